//! The Rust side of the Java plugin host (issue 28): the process, the channel, and the encodings
//! that carry records between connect-rs and the JVM.

pub mod codec;
