//! Per-task error counters, named as Kafka Connect's `task-error-metrics` group, shown in the
//! task's REST status (connect-rs's extension) and served by `GET /metrics`: the counters are
//! the task's metric handles ([`ErrorMetrics`]), so the two always agree.

use std::sync::atomic::{AtomicI64, Ordering};

use crate::metrics::ErrorMetrics;

/// The live counters of one task (shared by the task loop and the status reports; they survive
/// restarts of the task instance).
#[derive(Debug, Default)]
pub struct ErrorCounters {
    metrics: ErrorMetrics,
    last_error_timestamp: AtomicI64,
}

/// A snapshot of [`ErrorCounters`], serialized with Kafka's metric names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct ErrorCounts {
    /// Failed attempts (each retriable failure and each final failure).
    pub total_record_failures: u64,
    /// Records (operations) that ended in an error.
    pub total_record_errors: u64,
    /// Records skipped because of an error (`errors.tolerance=all`).
    pub total_records_skipped: u64,
    /// Retries made.
    pub total_retries: u64,
    /// Errors written to the log (`errors.log.enable`).
    pub total_errors_logged: u64,
    /// Records sent to the dead letter queue.
    pub deadletterqueue_produce_requests: u64,
    /// Records the dead letter queue could not take.
    pub deadletterqueue_produce_failures: u64,
    /// Epoch milliseconds of the last error; 0 when none.
    pub last_error_timestamp: i64,
}

impl ErrorCounters {
    /// Counters that are the task's metric handles `metrics`.
    pub fn new(metrics: ErrorMetrics) -> Self {
        Self {
            metrics,
            last_error_timestamp: AtomicI64::new(0),
        }
    }

    /// A failed attempt.
    pub fn failure(&self) {
        self.metrics.record_failures.inc();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let millis = i64::try_from(now.as_millis()).unwrap_or(i64::MAX);
        self.last_error_timestamp.store(millis, Ordering::Relaxed);
        self.metrics.last_error.set(now.as_secs_f64());
    }

    /// An operation that ended in an error.
    pub fn error(&self) {
        self.metrics.record_errors.inc();
    }

    /// A skipped record.
    pub fn skipped(&self) {
        self.metrics.records_skipped.inc();
    }

    /// A retry.
    pub fn retry(&self) {
        self.metrics.retries.inc();
    }

    /// An error logged.
    pub fn logged(&self) {
        self.metrics.errors_logged.inc();
    }

    /// A record sent to the dead letter queue.
    pub fn dlq_request(&self) {
        self.metrics.dlq_requests.inc();
    }

    /// A record the dead letter queue did not take.
    pub fn dlq_failure(&self) {
        self.metrics.dlq_failures.inc();
    }

    /// The current values.
    pub fn snapshot(&self) -> ErrorCounts {
        let m = &self.metrics;
        ErrorCounts {
            total_record_failures: m.record_failures.get(),
            total_record_errors: m.record_errors.get(),
            total_records_skipped: m.records_skipped.get(),
            total_retries: m.retries.get(),
            total_errors_logged: m.errors_logged.get(),
            deadletterqueue_produce_requests: m.dlq_requests.get(),
            deadletterqueue_produce_failures: m.dlq_failures.get(),
            last_error_timestamp: self.last_error_timestamp.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_serialize_with_kafka_metric_names() {
        let c = ErrorCounters::default();
        c.failure();
        c.failure();
        c.error();
        c.skipped();
        c.retry();
        c.dlq_request();
        c.dlq_failure();
        let s = c.snapshot();
        assert_eq!(s.total_record_failures, 2);
        assert!(s.last_error_timestamp > 0);
        let json = serde_json::to_value(s).unwrap();
        for (k, v) in [
            ("total-record-failures", 2),
            ("total-record-errors", 1),
            ("total-records-skipped", 1),
            ("total-retries", 1),
            ("total-errors-logged", 0),
            ("deadletterqueue-produce-requests", 1),
            ("deadletterqueue-produce-failures", 1),
        ] {
            assert_eq!(json[k], v, "{k} in {json}");
        }
    }
}
