//! The worker settings the task loops need, taken from the worker configuration.

use std::time::Duration;

use crate::config::WorkerConfig;

/// The default of `connector.start.timeout.ms`: 60 s, less than the REST request timeout
/// (90 s), so that the request that created or restarted a connector whose start hangs is
/// answered (with the connector FAILED) rather than timed out.
pub const DEFAULT_CONNECTOR_START_TIMEOUT_MS: u64 = 60_000;

/// Timing and tolerance settings of the worker.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// `offset.flush.interval.ms`: how often source offsets are flushed and sink offsets committed.
    pub offset_flush_interval: Duration,
    /// `offset.flush.timeout.ms`: how long a stopping source task waits for outstanding acks.
    pub offset_flush_timeout: Duration,
    /// `task.shutdown.graceful.timeout.ms`: total time tasks get to stop before they are aborted.
    pub graceful_shutdown_timeout: Duration,
    /// `connector.start.timeout.ms` (connect-rs): how long a connector's `start` may take
    /// before the connector is FAILED and its instance abandoned.
    pub connector_start_timeout: Duration,
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
    /// Restarts after consecutive failures, at most (a run that lasted `max_backoff` or more
    /// ends a series).
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
    /// The `task.restart.*` keys of the worker configuration.
    pub fn from_config(config: &WorkerConfig) -> Self {
        let values = config.values();
        let ms = |key: &str, default: u64| {
            Duration::from_millis(
                values
                    .long(key)
                    .and_then(|v| u64::try_from(v).ok())
                    .unwrap_or(default),
            )
        };
        Self {
            enabled: values.boolean("task.restart.auto.enable").unwrap_or(true),
            max_attempts: values
                .int("task.restart.max.attempts")
                .and_then(|v| u32::try_from(v).ok())
                .unwrap_or(10),
            initial_backoff: ms("task.restart.initial.backoff.ms", 1000),
            max_backoff: ms("task.restart.max.backoff.ms", 60_000),
        }
    }

    /// The delay before restart number `attempt` (1-based): initial × 2^(attempt-1), capped.
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(30));
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

impl WorkerSettings {
    /// What the task loops need from the worker configuration: flush and shutdown timing, and
    /// the restart policy. `exactly_once` is left unset: the distributed command sets it once
    /// the offsets topic is open.
    pub fn from_config(config: &WorkerConfig) -> Self {
        Self {
            offset_flush_interval: config.offset_flush_interval(),
            offset_flush_timeout: config.offset_flush_timeout(),
            graceful_shutdown_timeout: config.task_shutdown_graceful_timeout(),
            connector_start_timeout: config.connector_start_timeout(),
            restart: RestartPolicy::from_config(config),
            exactly_once: None,
            // On the embedded log, sinks keep their output exact by default (issue 26).
            exact_sinks_by_default: config.bootstrap_servers().is_none(),
        }
    }
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            offset_flush_interval: Duration::from_millis(60_000),
            offset_flush_timeout: Duration::from_millis(5_000),
            graceful_shutdown_timeout: Duration::from_millis(5_000),
            connector_start_timeout: Duration::from_millis(DEFAULT_CONNECTOR_START_TIMEOUT_MS),
            restart: RestartPolicy::default(),
            exactly_once: None,
            exact_sinks_by_default: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(pairs: &[(&str, &str)]) -> WorkerConfig {
        WorkerConfig::for_tests(pairs)
    }

    #[test]
    fn sinks_are_exact_by_default_only_on_the_embedded_log() {
        assert!(
            WorkerSettings::from_config(&worker(&[])).exact_sinks_by_default,
            "on the embedded log, sinks keep their output exact by default"
        );
        assert!(
            !WorkerSettings::from_config(&worker(&[("bootstrap.servers", "localhost:9092")]))
                .exact_sinks_by_default,
            "with Kafka, sinks append by default (Kafka Connect's behaviour)"
        );
    }

    #[test]
    fn settings_come_from_the_worker_keys() {
        let s = WorkerSettings::from_config(&worker(&[
            ("offset.flush.interval.ms", "10000"),
            ("task.restart.auto.enable", "false"),
            ("task.restart.max.attempts", "3"),
            ("task.restart.initial.backoff.ms", "50"),
        ]));
        assert_eq!(s.offset_flush_interval, Duration::from_secs(10));
        assert_eq!(s.offset_flush_timeout, Duration::from_secs(5));
        assert_eq!(s.graceful_shutdown_timeout, Duration::from_secs(5));
        assert!(!s.restart.enabled);
        assert_eq!(s.restart.max_attempts, 3);
        assert_eq!(s.restart.initial_backoff, Duration::from_millis(50));
        assert_eq!(s.restart.max_backoff, Duration::from_secs(60));
    }

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
