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
    /// Automatic restarts of tasks that failed with a retriable error.
    pub restart: RestartPolicy,
    /// `exactly.once.source.support=enabled` (distributed mode on Kafka): source tasks run in
    /// transactions; `None` otherwise.
    pub exactly_once: Option<std::sync::Arc<super::ExactlyOnceSources>>,
    /// Whether sinks that can keep their output exact across crashes do so unless configured
    /// otherwise (`SinkTaskContext::exact_by_default`): true on the embedded log.
    pub exact_sinks_by_default: bool,
}

/// Automatic restart of tasks that failed with a retriable error (connect-rs; Kafka Connect
/// leaves such tasks FAILED until restarted over REST). Worker keys
/// `task.restart.auto.enable` (true), `task.restart.max.attempts` (10),
/// `task.restart.initial.backoff.ms` (1000), `task.restart.max.backoff.ms` (60000).
#[derive(Debug, Clone)]
pub struct RestartPolicy {
    /// Whether to restart at all.
    pub enabled: bool,
    /// Restarts after consecutive failures, at most.
    pub max_attempts: u32,
    /// Delay before the first restart; doubled for each further one.
    pub initial_backoff: Duration,
    /// Longest delay.
    pub max_backoff: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            max_attempts: 10,
            initial_backoff: Duration::from_millis(1000),
            max_backoff: Duration::from_millis(60_000),
        }
    }
}

impl RestartPolicy {
    /// The delay before restart number `attempt` (1-based): initial × 2^(attempt-1), capped.
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(30));
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            offset_flush_interval: Duration::from_millis(60_000),
            offset_flush_timeout: Duration::from_millis(5_000),
            graceful_shutdown_timeout: Duration::from_millis(5_000),
            restart: RestartPolicy::default(),
            exactly_once: None,
            exact_sinks_by_default: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restart_delays_double_up_to_the_maximum() {
        let p = RestartPolicy {
            enabled: true,
            max_attempts: 10,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
        };
        let delays: Vec<u128> = (1..=6).map(|a| p.delay(a).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1000, 1000]);
    }
}
