//! The subcommands, and what they share: logging set-up and exit codes.

pub mod completions;
pub mod connector_files;
pub mod distributed;
pub mod dlq;
pub mod doctor;
pub mod embedded_log;
pub mod error_text;
pub mod man;
pub mod plugins;
pub mod standalone;
pub mod topics;
pub mod unique_names;
pub mod validate;
pub mod worker_converters;

/// Exit code for usage errors (as Kafka Connect).
pub const EXIT_USAGE: u8 = 1;
/// Exit code for start-up failures (as Kafka Connect).
pub const EXIT_STARTUP: u8 = 2;
/// Exit code for connector creation failures (as Kafka Connect).
pub const EXIT_CONNECTOR: u8 = 3;
/// Exit code of `--exit-when-idle` runs in which a task failed.
pub const EXIT_TASK_FAILED: u8 = 4;
/// Exit code of `doctor` when it found warnings but no errors.
pub const EXIT_WARNINGS: u8 = 5;

/// An error that ends the process with `code`.
#[derive(Debug)]
pub struct CommandError {
    /// The exit code.
    pub code: u8,
    /// What went wrong (printed with its context chain).
    pub error: anyhow::Error,
    /// Whether the command already reported it on stdout (nothing more is printed).
    pub reported: bool,
}

impl CommandError {
    /// An error ending the process with `code`.
    pub fn new(code: u8, error: impl Into<anyhow::Error>) -> Self {
        Self {
            code,
            error: error.into(),
            reported: false,
        }
    }

    /// An exit with `code` whose reason the command already printed (e.g. `doctor`'s
    /// findings): `error` is kept for callers but not printed again.
    pub fn reported(code: u8, error: impl Into<anyhow::Error>) -> Self {
        Self {
            code,
            error: error.into(),
            reported: true,
        }
    }
}

/// Sets up tracing: `--log-level`, else `RUST_LOG`, else `info`. Logs go to stderr; levels can
/// be changed at run time through [`crate::logging::levels`] (`/admin/loggers`).
pub fn init_logging(level: Option<&str>) {
    crate::logging::init(&crate::logging::initial_directives(level));
}
