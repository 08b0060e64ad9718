//! Per-task error counters, named as Kafka Connect's `task-error-metrics` group, shown in the
//! task's REST status (connect-rs's extension) and ready for the metrics exposition.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// The live counters of one task (shared by the task loop and the status reports; they survive
/// restarts of the task instance).
#[derive(Debug, Default)]
pub struct ErrorCounters {
    record_failures: AtomicU64,
    record_errors: AtomicU64,
    records_skipped: AtomicU64,
    retries: AtomicU64,
    errors_logged: AtomicU64,
    dlq_produce_requests: AtomicU64,
    dlq_produce_failures: AtomicU64,
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

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

impl ErrorCounters {
    /// A failed attempt.
    pub fn failure(&self) {
        bump(&self.record_failures);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.last_error_timestamp.store(now, Ordering::Relaxed);
    }

    /// An operation that ended in an error.
    pub fn error(&self) {
        bump(&self.record_errors);
    }

    /// A skipped record.
    pub fn skipped(&self) {
        bump(&self.records_skipped);
    }

    /// A retry.
    pub fn retry(&self) {
        bump(&self.retries);
    }

    /// An error logged.
    pub fn logged(&self) {
        bump(&self.errors_logged);
    }

    /// A record sent to the dead letter queue.
    pub fn dlq_request(&self) {
        bump(&self.dlq_produce_requests);
    }

    /// A record the dead letter queue did not take.
    pub fn dlq_failure(&self) {
        bump(&self.dlq_produce_failures);
    }

    /// The current values.
    pub fn snapshot(&self) -> ErrorCounts {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        ErrorCounts {
            total_record_failures: get(&self.record_failures),
            total_record_errors: get(&self.record_errors),
            total_records_skipped: get(&self.records_skipped),
            total_retries: get(&self.retries),
            total_errors_logged: get(&self.errors_logged),
            deadletterqueue_produce_requests: get(&self.dlq_produce_requests),
            deadletterqueue_produce_failures: get(&self.dlq_produce_failures),
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
