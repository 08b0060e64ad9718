//! Binary-level tests on the embedded log: the standalone worker, its files, tools and messages.
//! One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod actionable_messages;
mod bad_input;
mod config_providers;
mod doctor;
mod exactly_once_embedded;
mod exactly_once_source;
mod hot_reload;
mod kill_restart;
mod log_honesty;
mod metrics;
mod no_silent;
mod offline_tools;
mod progress_display;
mod standalone_file;
mod transforms_pipeline;
