//! The error-handling stage of both task loops, as Kafka Connect's `RetryWithToleranceOperator`:
//! an operation of a stage (conversion, transformation, put, produce) is retried on retriable
//! errors with Kafka's backoff until `errors.retry.timeout`; a final failure is reported (the log
//! line of `errors.log.enable`, the dead letter queue) and counted, then either skips the record
//! (`errors.tolerance=all`, and for the stages that tolerate any error) or fails the task.

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConnectError, ConnectRecord};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::error;

use super::dead_letter::DeadLetterQueue;
use super::error::TaskError;
use super::error_counters::ErrorCounters;
use super::record_converters::RecordConverters;
use super::record_offset::RecordOffset;
use crate::config::{ConnectorConfig, ConnectorKind, ErrorTolerance, SOURCE_DLQ_KEYS as DLQ_KEYS};
use crate::topics::{ConsumedRecord, Delivery};

/// First retry delay (Kafka's `RETRIES_DELAY_MIN_MS`); doubles with each attempt.
const RETRY_DELAY_MIN: Duration = Duration::from_millis(300);

/// Where in the pipeline an operation runs (Kafka's `Stage` enum; the names are Kafka's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Key conversion.
    KeyConverter,
    /// Value conversion.
    ValueConverter,
    /// Header conversion.
    HeaderConverter,
    /// A single message transform.
    Transformation,
    /// `SinkTask::put`.
    TaskPut,
    /// `SourceTask::poll`.
    TaskPoll,
    /// Sending to a topic.
    KafkaProduce,
    /// Reading a topic.
    KafkaConsume,
}

impl Stage {
    /// Kafka's enum constant name (`VALUE_CONVERTER`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::KeyConverter => "KEY_CONVERTER",
            Self::ValueConverter => "VALUE_CONVERTER",
            Self::HeaderConverter => "HEADER_CONVERTER",
            Self::Transformation => "TRANSFORMATION",
            Self::TaskPut => "TASK_PUT",
            Self::TaskPoll => "TASK_POLL",
            Self::KafkaProduce => "KAFKA_PRODUCE",
            Self::KafkaConsume => "KAFKA_CONSUME",
        }
    }

    /// Whether any error of this stage may be tolerated (conversions and transformations);
    /// the other stages tolerate only retriable errors.
    fn tolerates_any(self) -> bool {
        matches!(
            self,
            Self::KeyConverter
                | Self::ValueConverter
                | Self::HeaderConverter
                | Self::Transformation
        )
    }
}

/// Java class names of the stages that are not plugins.
pub mod classes {
    /// The class Kafka Connect names for the `KAFKA_PRODUCE` stage.
    pub const PRODUCER: &str = "org.apache.kafka.clients.producer.Producer";
    /// The class Kafka Connect names for the `KAFKA_CONSUME` stage.
    pub const CONSUMER: &str = "org.apache.kafka.clients.consumer.Consumer";
    /// The class Kafka Connect names for a record a sink task reported as errant.
    pub const SINK_TASK: &str = "org.apache.kafka.connect.sink.SinkTask";
}

/// A connector's dead letter queue settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DlqSettings {
    /// `errors.deadletterqueue.topic.name`.
    pub topic: String,
    /// `errors.deadletterqueue.topic.replication.factor`.
    pub replication_factor: i16,
    /// `errors.deadletterqueue.context.headers.enable`.
    pub context_headers: bool,
}

/// A connector's `errors.*` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorPolicy {
    /// `errors.retry.timeout`; `None` = retry forever (-1).
    pub retry_timeout: Option<Duration>,
    /// `errors.retry.delay.max.ms`.
    pub retry_delay_max: Duration,
    /// `errors.tolerance=all`.
    pub tolerate_all: bool,
    /// `errors.log.enable`.
    pub log_enable: bool,
    /// `errors.log.include.messages`.
    pub log_include_messages: bool,
    /// The dead letter queue, when `errors.deadletterqueue.topic.name` is set (sinks as in Kafka
    /// Connect; sources too, connect-rs's extension).
    pub dlq: Option<DlqSettings>,
}

impl Default for ErrorPolicy {
    fn default() -> Self {
        Self {
            retry_timeout: Some(Duration::ZERO),
            retry_delay_max: Duration::from_secs(60),
            tolerate_all: false,
            log_enable: false,
            log_include_messages: false,
            dlq: None,
        }
    }
}

impl ErrorPolicy {
    /// The policy of a validated connector configuration. Sink DLQ keys come from the sink
    /// definition; a source's from its raw keys (not part of Kafka's source definition).
    pub fn from_config(config: &ConnectorConfig, kind: ConnectorKind) -> Self {
        let dlq = match kind {
            ConnectorKind::Sink => config.dlq_topic().map(|topic| DlqSettings {
                topic: topic.trim().to_owned(),
                replication_factor: config.dlq_topic_replication_factor(),
                context_headers: config.dlq_context_headers_enable(),
            }),
            ConnectorKind::Source => {
                let raw = config.raw();
                raw.get(DLQ_KEYS[0])
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(|topic| DlqSettings {
                        topic: topic.to_owned(),
                        replication_factor: raw
                            .get(DLQ_KEYS[1])
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(3),
                        context_headers: raw
                            .get(DLQ_KEYS[2])
                            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
                    })
            }
        };
        Self {
            retry_timeout: config.errors_retry_timeout(),
            retry_delay_max: config.errors_retry_delay_max(),
            tolerate_all: config.errors_tolerance() == ErrorTolerance::All,
            log_enable: config.errors_log_enable(),
            log_include_messages: config.errors_log_include_messages(),
            dlq,
        }
    }

    /// The pause before retry number `attempt` (1-based), as Kafka's backoff: 300 ms doubled per
    /// attempt, a random delay below `errors.retry.delay.max.ms` once that is exceeded, never
    /// past `deadline`.
    pub fn backoff(&self, attempt: u32, now: Instant, deadline: Option<Instant>) -> Duration {
        let shift = attempt.saturating_sub(1).min(32);
        let mut delay = RETRY_DELAY_MIN.saturating_mul(1u32 << shift.min(31));
        if shift >= 31 || delay > self.retry_delay_max {
            let max = u64::try_from(self.retry_delay_max.as_millis()).unwrap_or(u64::MAX);
            delay = Duration::from_millis(if max == 0 { 0 } else { random_below(max) });
        }
        match deadline {
            Some(d) => delay.min(d.saturating_duration_since(now)),
            None => delay,
        }
    }
}

/// A pseudo-random number in `[0, max)` (for the jittered backoff; not for secrets).
fn random_below(max: u64) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(max);
    h.finish() % max
}

/// Kafka's exception class name for one of our errors.
pub fn exception_class(e: &ConnectError) -> &'static str {
    match e {
        ConnectError::Data(_) => "org.apache.kafka.connect.errors.DataException",
        ConnectError::Retriable(_) => "org.apache.kafka.connect.errors.RetriableException",
        ConnectError::Config { .. } => "org.apache.kafka.common.config.ConfigException",
        ConnectError::Io { .. } | ConnectError::InstanceLost(_) | ConnectError::Other(_) => {
            "org.apache.kafka.connect.errors.ConnectException"
        }
    }
}

/// A Java-like stack trace text: the exception with its message, where it happened, and its
/// cause chain (`Caused by: ...`).
pub fn stacktrace(e: &ConnectError, stage: Stage, class_name: &str) -> String {
    let mut out = format!(
        "{}: {e}\n\tat {class_name} (connect-rs stage {})\n",
        exception_class(e),
        stage.name()
    );
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let class = if c.is::<std::io::Error>() {
            "java.io.IOException"
        } else {
            "java.lang.Exception"
        };
        out.push_str(&format!("Caused by: {class}: {c}\n"));
        cause = c.source();
    }
    out
}

/// A stage's final failure on one record.
#[derive(Debug)]
pub struct Failure {
    /// The stage.
    pub stage: Stage,
    /// The Java class name of what executed it (converter, transform, task, producer).
    pub class_name: String,
    /// The error.
    pub error: ConnectError,
}

/// The record a stage was working on, as it came in.
pub enum Origin<'a> {
    /// A sink's consumed record (raw bytes).
    Consumed(&'a ConsumedRecord),
    /// A source record before transformation, with its source partition and offset, and the
    /// task's converters (to write it to a dead letter queue).
    Source {
        /// The record as the task returned it.
        record: &'a ConnectRecord,
        /// Its source partition and offset.
        offset: &'a RecordOffset,
        /// The task's converters.
        converters: &'a RecordConverters,
    },
}

impl Origin<'_> {
    /// `topic 't' partition 0 offset 42`, or the source record's topic and source position.
    pub fn describe(&self) -> String {
        match self {
            Self::Consumed(r) => format!(
                "topic '{}' partition {} offset {}",
                r.topic, r.partition, r.offset
            ),
            Self::Source { record, offset, .. } => describe_source(&record.topic, offset),
        }
    }

    /// Kafka's `ProcessingContext` record part of the log line (with `include.messages`).
    fn log_details(&self) -> String {
        match self {
            Self::Consumed(r) => format!(
                ", where consumed record is {{topic='{}', partition={}, offset={}, timestamp={}, timestampType=CreateTime}}",
                r.topic, r.partition, r.offset, r.timestamp
            ),
            Self::Source { record, offset, .. } => {
                let text = |s, v| {
                    connect_api::values::convert_to_string(s, v)
                        .unwrap_or_else(|| "null".to_owned())
                };
                format!(
                    ", where source record is = SourceRecord{{sourcePartition={}, sourceOffset={}}} ConnectRecord{{topic='{}', kafkaPartition={}, key={}, value={}, timestamp={}}}",
                    json(&*offset.0),
                    json(&offset.1),
                    record.topic,
                    record.kafka_partition.map_or_else(|| "null".to_owned(), |p| p.to_string()),
                    text(record.key_schema.as_ref(), &record.key),
                    text(record.value_schema.as_ref(), &record.value),
                    record.timestamp.map_or_else(|| "null".to_owned(), |t| t.to_string()),
                )
            }
        }
    }
}

/// `topic 't', source partition {...}, source offset {...}`: which source record failed.
pub fn describe_source(topic: &str, (partition, offset): &RecordOffset) -> String {
    format!(
        "topic '{topic}', source partition {}, source offset {}",
        json(&**partition),
        json(offset)
    )
}

/// A source partition or offset in a report: its JSON (`null` when there is none).
fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The converters' Java class names (for error reports).
#[derive(Debug, Clone, Default)]
pub struct ConverterClasses {
    /// Key converter.
    pub key: String,
    /// Value converter.
    pub value: String,
    /// Header converter.
    pub header: String,
}

/// One task's error handler: retries, tolerance, reporters and counters.
pub struct ErrorHandler {
    policy: ErrorPolicy,
    /// `<connector>-<task>`, as in Kafka's log line.
    task_name: String,
    counters: Arc<ErrorCounters>,
    dlq: Option<DeadLetterQueue>,
    /// Dead letter queue sends not yet known durable.
    pending: Vec<Delivery>,
    /// The converters' class names (shared: the record stages clone it per record).
    pub classes: Arc<ConverterClasses>,
    cancel: CancellationToken,
}

impl ErrorHandler {
    /// A handler for task `task_name` (`<connector>-<n>`).
    pub fn new(
        policy: ErrorPolicy,
        task_name: String,
        counters: Arc<ErrorCounters>,
        dlq: Option<DeadLetterQueue>,
        classes: ConverterClasses,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            policy,
            task_name,
            counters,
            dlq,
            pending: Vec::new(),
            classes: Arc::new(classes),
            cancel,
        }
    }

    /// The policy.
    pub fn policy(&self) -> &ErrorPolicy {
        &self.policy
    }

    /// The counters.
    pub fn counters(&self) -> &Arc<ErrorCounters> {
        &self.counters
    }

    /// Runs `op` for the record `origin` in `stage` (executed by `class_name`): retried on
    /// retriable errors until `errors.retry.timeout`; `Ok(None)` when it failed and the failure
    /// is tolerated (the record is skipped, after being logged and dead-lettered).
    ///
    /// # Errors
    /// [`TaskError::Tolerance`] when the failure is not tolerated (it is reported first).
    pub async fn execute<T>(
        &mut self,
        stage: Stage,
        class_name: &str,
        origin: &Origin<'_>,
        mut op: impl FnMut() -> Result<T, ConnectError>,
    ) -> Result<Option<T>, TaskError> {
        match op() {
            Ok(v) => Ok(Some(v)),
            // The retry loop's state (timers, reports) lives on the heap, only for failures:
            // the common path stays a small future.
            Err(first) => Box::pin(self.after_failure(stage, class_name, origin, op, first)).await,
        }
    }

    /// [`ErrorHandler::execute`] after its first attempt failed with `first`.
    async fn after_failure<T>(
        &mut self,
        stage: Stage,
        class_name: &str,
        origin: &Origin<'_>,
        mut op: impl FnMut() -> Result<T, ConnectError>,
        first: ConnectError,
    ) -> Result<Option<T>, TaskError> {
        let deadline = self.policy.retry_timeout.map(|t| Instant::now() + t);
        let mut attempt = 1u32;
        let mut error = first;
        loop {
            if error.is_retriable_in_place() && deadline.is_none_or(|d| Instant::now() < d) {
                self.counters.failure();
                let delay = self.policy.backoff(attempt, Instant::now(), deadline);
                tokio::select! {
                    () = self.cancel.cancelled() => {}
                    () = tokio::time::sleep(delay) => {}
                }
                if !self.cancel.is_cancelled() {
                    self.counters.retry();
                    attempt += 1;
                    match op() {
                        Ok(v) => return Ok(Some(v)),
                        Err(e) => {
                            error = e;
                            continue;
                        }
                    }
                }
            }
            let failure = Failure {
                stage,
                class_name: class_name.to_owned(),
                error,
            };
            return self.fail(failure, origin).await.map(|()| None);
        }
    }

    /// Handles a final failure of `origin`: counts and reports it, then `Ok` when tolerated (the
    /// record is to be skipped).
    ///
    /// # Errors
    /// [`TaskError::Tolerance`] when it is not tolerated.
    pub async fn fail(&mut self, failure: Failure, origin: &Origin<'_>) -> Result<(), TaskError> {
        self.counters.failure();
        self.counters.error();
        self.report(&failure, origin).await;
        // A lost instance (its plugin host died) is no record's fault: never skipped.
        let tolerable = !failure.error.is_instance_lost()
            && (failure.stage.tolerates_any() || failure.error.is_retriable());
        if self.policy.tolerate_all && tolerable {
            self.counters.skipped();
            return Ok(());
        }
        Err(TaskError::Tolerance {
            stage: failure.stage.name(),
            class_name: failure.class_name,
            record: origin.describe(),
            source: failure.error,
        })
    }

    /// Handles a record the task itself reported as failed (Kafka's
    /// `RetryWithToleranceOperator.executeFailed`): counted and reported as [`Self::fail`]
    /// does, then tolerated with `errors.tolerance=all` whatever the error.
    ///
    /// # Errors
    /// [`TaskError::Tolerance`] with `errors.tolerance=none`.
    pub async fn fail_reported(
        &mut self,
        failure: Failure,
        origin: &Origin<'_>,
    ) -> Result<(), TaskError> {
        self.counters.failure();
        self.report(&failure, origin).await;
        if self.policy.tolerate_all {
            self.counters.skipped();
            return Ok(());
        }
        self.counters.error();
        Err(TaskError::Tolerance {
            stage: failure.stage.name(),
            class_name: failure.class_name,
            record: origin.describe(),
            source: failure.error,
        })
    }

    /// The log line of `errors.log.enable` and the dead letter queue record.
    async fn report(&mut self, failure: &Failure, origin: &Origin<'_>) {
        if self.policy.log_enable {
            let details = if self.policy.log_include_messages {
                origin.log_details()
            } else {
                String::new()
            };
            error!(
                error = %failure.error,
                "Error encountered in task {}. Executing stage '{}' with class '{}'{details}.",
                self.task_name,
                failure.stage.name(),
                failure.class_name
            );
            self.counters.logged();
        }
        if let Some(dlq) = &self.dlq {
            self.counters.dlq_request();
            let record = dlq.record(failure, origin);
            match dlq.send(record).await {
                Ok(delivery) => self.pending.push(delivery),
                Err(e) => {
                    self.counters.dlq_failure();
                    error!(error = %e, topic = %dlq.topic(), "Could not produce message to dead letter queue.");
                }
            }
        }
    }

    /// Waits until every dead letter queue record sent so far is durable (before the offsets
    /// of the records they replace are committed).
    ///
    /// # Errors
    /// When the dead letter queue did not take a record: the task fails rather than commit past
    /// a record that is nowhere.
    pub async fn flush(&mut self) -> Result<(), TaskError> {
        for delivery in std::mem::take(&mut self.pending) {
            if let Err(e) = delivery.await {
                self.counters.dlq_failure();
                return Err(TaskError::DeadLetterQueue(e));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(tolerate_all: bool, retry_ms: Option<u64>) -> ErrorPolicy {
        ErrorPolicy {
            retry_timeout: retry_ms.map(Duration::from_millis),
            retry_delay_max: Duration::from_millis(1000),
            tolerate_all,
            ..ErrorPolicy::default()
        }
    }

    fn handler(p: ErrorPolicy) -> ErrorHandler {
        ErrorHandler::new(
            p,
            "c-0".into(),
            Arc::new(ErrorCounters::default()),
            None,
            ConverterClasses::default(),
            CancellationToken::new(),
        )
    }

    fn consumed() -> ConsumedRecord {
        ConsumedRecord {
            topic: "in".into(),
            partition: 2,
            offset: 41,
            timestamp: 7,
            key: None,
            value: Some(b"{oops".to_vec()),
            headers: vec![],
        }
    }

    #[test]
    fn backoff_doubles_from_300ms_then_jitters_below_the_max_and_stops_at_the_deadline() {
        let p = policy(false, Some(60_000));
        let now = Instant::now();
        assert_eq!(p.backoff(1, now, None), Duration::from_millis(300));
        assert_eq!(p.backoff(2, now, None), Duration::from_millis(600));
        // 1200 > 1000: a random delay below the max.
        assert!(p.backoff(3, now, None) < Duration::from_millis(1000));
        assert!(p.backoff(40, now, None) < Duration::from_millis(1000));
        let soon = now + Duration::from_millis(100);
        assert!(p.backoff(1, now, Some(soon)) <= Duration::from_millis(100));
    }

    #[test]
    fn exception_classes_and_stacktrace_follow_kafka() {
        let e = ConnectError::data("bad json");
        assert_eq!(
            exception_class(&e),
            "org.apache.kafka.connect.errors.DataException"
        );
        let io = ConnectError::io("Could not write", std::io::Error::other("disk full"));
        let trace = stacktrace(&io, Stage::TaskPut, "org.example.Task");
        assert!(
            trace.starts_with("org.apache.kafka.connect.errors.ConnectException: Could not write"),
            "{trace}"
        );
        assert!(trace.contains("TASK_PUT"), "{trace}");
        assert!(
            trace.contains("Caused by: java.io.IOException: disk full"),
            "{trace}"
        );
    }

    #[tokio::test]
    async fn retriable_errors_are_retried_until_success() {
        let mut h = handler(policy(false, Some(10_000)));
        let r = consumed();
        let mut calls = 0;
        let v = h
            .execute(Stage::ValueConverter, "X", &Origin::Consumed(&r), || {
                calls += 1;
                if calls < 3 {
                    Err(ConnectError::Retriable("later".into()))
                } else {
                    Ok(5)
                }
            })
            .await
            .unwrap();
        assert_eq!(v, Some(5));
        let c = h.counters().snapshot();
        assert_eq!((c.total_retries, c.total_record_failures), (2, 2));
        assert_eq!(c.total_record_errors, 0);
    }

    #[tokio::test]
    async fn none_fails_naming_the_record_all_skips_and_counts() {
        let r = consumed();
        let mut h = handler(policy(false, Some(0)));
        let err = h
            .execute::<()>(Stage::ValueConverter, "J", &Origin::Consumed(&r), || {
                Err(ConnectError::data("bad"))
            })
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("Tolerance exceeded in error handler")
                && text.contains("topic 'in' partition 2 offset 41")
                && text.contains("VALUE_CONVERTER"),
            "{text}"
        );
        let mut h = handler(policy(true, Some(0)));
        let v = h
            .execute::<()>(Stage::ValueConverter, "J", &Origin::Consumed(&r), || {
                Err(ConnectError::data("bad"))
            })
            .await
            .unwrap();
        assert_eq!(v, None);
        let c = h.counters().snapshot();
        assert_eq!(
            (
                c.total_record_failures,
                c.total_record_errors,
                c.total_records_skipped
            ),
            (1, 1, 1)
        );
    }

    #[tokio::test]
    async fn put_errors_that_are_not_retriable_are_never_tolerated() {
        let r = consumed();
        let mut h = handler(policy(true, Some(0)));
        let res = h
            .fail(
                Failure {
                    stage: Stage::TaskPut,
                    class_name: "T".into(),
                    error: ConnectError::Other("boom".into()),
                },
                &Origin::Consumed(&r),
            )
            .await;
        assert!(res.is_err());
    }
}
