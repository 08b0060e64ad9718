//! The worker settings the task loops need, taken from the worker configuration.

use std::time::Duration;

/// Timing and tolerance settings of the worker.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// `offset.flush.interval.ms`: how often source offsets are flushed and sink offsets committed.
    pub offset_flush_interval: Duration,
    /// `offset.flush.timeout.ms`: how long a stopping source task waits for outstanding acks.
    pub offset_flush_timeout: Duration,
    /// `task.shutdown.graceful.timeout.ms`: total time tasks get to stop before they are aborted.
    pub graceful_shutdown_timeout: Duration,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            offset_flush_interval: Duration::from_millis(60_000),
            offset_flush_timeout: Duration::from_millis(5_000),
            graceful_shutdown_timeout: Duration::from_millis(5_000),
        }
    }
}
