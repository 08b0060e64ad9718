//! connect-rs runtime.
