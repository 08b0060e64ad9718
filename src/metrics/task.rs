//! Per-task metrics: Kafka Connect's `connector-task-metrics`, `source-task-metrics`,
//! `sink-task-metrics` and `task-error-metrics` groups, plus connect-rs's byte counter and
//! pipeline stage histograms. A task resolves its label sets once, when it is built
//! ([`TaskMetrics`]): the task loops then only bump atomics and observe one histogram sample
//! per batch, never look a label up per record.

use std::sync::atomic::AtomicU64;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use super::active_count::{ActiveCount, ActiveCountFamilies};
use super::buckets;
use super::labels::{StageLabels, TaskLabels};

/// A family of histograms.
pub type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;
/// A gauge holding a float (seconds since the epoch).
pub type FloatGauge = Gauge<f64, AtomicU64>;

/// Whether a task is a source or a sink task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    /// A source task: `source-task-metrics`.
    Source,
    /// A sink task: `sink-task-metrics`.
    Sink,
}

/// The families of the per-task groups, registered once per worker.
#[derive(Debug, Clone)]
pub struct TaskFamilies {
    batch_size: HistogramFamily<TaskLabels>,
    offset_commit_time: HistogramFamily<TaskLabels>,
    offset_commit_success: Family<TaskLabels, Counter>,
    offset_commit_failure: Family<TaskLabels, Counter>,
    source_poll: Family<TaskLabels, Counter>,
    source_write: Family<TaskLabels, Counter>,
    poll_batch_time: HistogramFamily<TaskLabels>,
    source_active: ActiveCountFamilies,
    sink_read: Family<TaskLabels, Counter>,
    sink_send: Family<TaskLabels, Counter>,
    put_batch_time: HistogramFamily<TaskLabels>,
    partition_count: Family<TaskLabels, Gauge>,
    sink_lag: Family<TaskLabels, Gauge>,
    commit_completion: Family<TaskLabels, Counter>,
    commit_skip: Family<TaskLabels, Counter>,
    commit_seq_no: Family<TaskLabels, Gauge>,
    sink_active: ActiveCountFamilies,
    record_failures: Family<TaskLabels, Counter>,
    record_errors: Family<TaskLabels, Counter>,
    records_skipped: Family<TaskLabels, Counter>,
    retries: Family<TaskLabels, Counter>,
    errors_logged: Family<TaskLabels, Counter>,
    dlq_requests: Family<TaskLabels, Counter>,
    dlq_failures: Family<TaskLabels, Counter>,
    last_error: Family<TaskLabels, FloatGauge>,
    bytes: Family<TaskLabels, Counter>,
    stage_time: HistogramFamily<StageLabels>,
}

fn histograms<L: Clone + std::hash::Hash + Eq>(make: fn() -> Histogram) -> HistogramFamily<L> {
    Family::new_with_constructor(make)
}

impl TaskFamilies {
    /// The families, registered in `registry` under Kafka Connect's group names.
    pub fn register(registry: &mut Registry) -> Self {
        let f = Self {
            batch_size: histograms(buckets::records),
            offset_commit_time: histograms(buckets::seconds),
            offset_commit_success: Family::default(),
            offset_commit_failure: Family::default(),
            source_poll: Family::default(),
            source_write: Family::default(),
            poll_batch_time: histograms(buckets::seconds),
            source_active: ActiveCountFamilies::default(),
            sink_read: Family::default(),
            sink_send: Family::default(),
            put_batch_time: histograms(buckets::seconds),
            partition_count: Family::default(),
            sink_lag: Family::default(),
            commit_completion: Family::default(),
            commit_skip: Family::default(),
            commit_seq_no: Family::default(),
            sink_active: ActiveCountFamilies::default(),
            record_failures: Family::default(),
            record_errors: Family::default(),
            records_skipped: Family::default(),
            retries: Family::default(),
            errors_logged: Family::default(),
            dlq_requests: Family::default(),
            dlq_failures: Family::default(),
            last_error: Family::default(),
            bytes: Family::default(),
            stage_time: histograms(buckets::seconds),
        };
        let g = registry.sub_registry_with_prefix("kafka_connect_connector_task_metrics");
        g.register(
            "batch_size",
            "Records per batch the task handled (polled or consumed); batch-size-max/-avg",
            f.batch_size.clone(),
        );
        g.register(
            "offset_commit_time_seconds",
            "Time taken by the task's offset commits; offset-commit-max/avg-time-ms",
            f.offset_commit_time.clone(),
        );
        g.register(
            "offset_commit_success",
            "Offset commits that succeeded (offset-commit-success-percentage = success / (success + failure))",
            f.offset_commit_success.clone(),
        );
        g.register(
            "offset_commit_failure",
            "Offset commits that failed (offset-commit-failure-percentage = failure / (success + failure))",
            f.offset_commit_failure.clone(),
        );
        let g = registry.sub_registry_with_prefix("kafka_connect_source_task_metrics");
        g.register(
            "source_record_poll",
            "Records polled from the source task, before transformations (source-record-poll-total; rate() gives -rate)",
            f.source_poll.clone(),
        );
        g.register(
            "source_record_write",
            "Records written to topics after transformations (source-record-write-total; rate() gives -rate)",
            f.source_write.clone(),
        );
        g.register(
            "poll_batch_time_seconds",
            "Time of the task's polls that returned records; poll-batch-max/avg-time-ms",
            f.poll_batch_time.clone(),
        );
        f.source_active.register(
            g,
            "source_record_active_count",
            "Records sent whose source offsets are not stored yet",
        );
        let g = registry.sub_registry_with_prefix("kafka_connect_sink_task_metrics");
        g.register(
            "sink_record_read",
            "Records read from topics, before transformations (sink-record-read-total; rate() gives -rate)",
            f.sink_read.clone(),
        );
        g.register(
            "sink_record_send",
            "Records put to the sink task after transformations (sink-record-send-total; rate() gives -rate)",
            f.sink_send.clone(),
        );
        g.register(
            "put_batch_time_seconds",
            "Time of the task's put calls; put-batch-max/avg-time-ms",
            f.put_batch_time.clone(),
        );
        g.register(
            "partition_count",
            "Topic partitions assigned to the task",
            f.partition_count.clone(),
        );
        g.register(
            "sink_record_lag_max",
            "Records between the task's position and the end of its assigned partitions, at its last poll (sink-record-lag-max)",
            f.sink_lag.clone(),
        );
        g.register(
            "offset_commit_completion",
            "Offset commits that completed (offset-commit-completion-total)",
            f.commit_completion.clone(),
        );
        g.register(
            "offset_commit_skip",
            "Offset commit completions received too late and ignored (offset-commit-skip-total; commits are synchronous here, so always 0)",
            f.commit_skip.clone(),
        );
        g.register(
            "offset_commit_seq_no",
            "Sequence number of the task's last offset commit",
            f.commit_seq_no.clone(),
        );
        f.sink_active.register(
            g,
            "sink_record_active_count",
            "Records put to the task whose offsets are not committed yet",
        );
        let g = registry.sub_registry_with_prefix("kafka_connect_task_error_metrics");
        g.register(
            "record_failures",
            "Failed attempts to process a record (total-record-failures)",
            f.record_failures.clone(),
        );
        g.register(
            "record_errors",
            "Records that ended in an error (total-record-errors)",
            f.record_errors.clone(),
        );
        g.register(
            "records_skipped",
            "Records skipped because of an error (total-records-skipped)",
            f.records_skipped.clone(),
        );
        g.register(
            "retries",
            "Retries of failed operations (total-retries)",
            f.retries.clone(),
        );
        g.register(
            "errors_logged",
            "Errors written to the log (total-errors-logged)",
            f.errors_logged.clone(),
        );
        g.register(
            "deadletterqueue_produce_requests",
            "Records sent to the dead letter queue",
            f.dlq_requests.clone(),
        );
        g.register(
            "deadletterqueue_produce_failures",
            "Records the dead letter queue did not take",
            f.dlq_failures.clone(),
        );
        g.register(
            "last_error_timestamp_seconds",
            "Time of the task's last error, in seconds since the epoch (0: none)",
            f.last_error.clone(),
        );
        let g = registry.sub_registry_with_prefix("connect_rs_task");
        g.register(
            "record_bytes",
            "Bytes of the records the task moved (keys, values, header names and values; connect-rs)",
            f.bytes.clone(),
        );
        g.register(
            "stage_time_seconds",
            "Time per batch in a stage of the record pipeline: convert, transform, produce (until acknowledged) (connect-rs)",
            f.stage_time.clone(),
        );
        f
    }
}

/// `source-task-metrics` of one task.
#[derive(Debug, Clone)]
pub struct SourceTaskMetrics {
    /// `source-record-poll-total`.
    pub poll_total: Counter,
    /// `source-record-write-total`.
    pub write_total: Counter,
    /// `poll-batch-*-time-ms`, in seconds.
    pub poll_batch_time: Histogram,
    /// `source-record-active-count` (with `-max`, `-avg`).
    pub active_count: ActiveCount,
    /// Time from sending a batch to its acknowledgement.
    pub produce_time: Histogram,
}

/// `sink-task-metrics` of one task.
#[derive(Debug, Clone)]
pub struct SinkTaskMetrics {
    /// `sink-record-read-total`.
    pub read_total: Counter,
    /// `sink-record-send-total`.
    pub send_total: Counter,
    /// `put-batch-*-time-ms`, in seconds.
    pub put_batch_time: Histogram,
    /// `partition-count`.
    pub partition_count: Gauge,
    /// `sink-record-lag-max`: records to the end of the assigned partitions at the last poll.
    pub lag: Gauge,
    /// `offset-commit-completion-total`.
    pub commit_completion: Counter,
    /// `offset-commit-skip-total`.
    pub commit_skip: Counter,
    /// `offset-commit-seq-no`.
    pub commit_seq_no: Gauge,
    /// `sink-record-active-count` (with `-max`, `-avg`).
    pub active_count: ActiveCount,
}

/// `task-error-metrics` of one task.
#[derive(Debug, Clone)]
pub struct ErrorMetrics {
    /// `total-record-failures`.
    pub record_failures: Counter,
    /// `total-record-errors`.
    pub record_errors: Counter,
    /// `total-records-skipped`.
    pub records_skipped: Counter,
    /// `total-retries`.
    pub retries: Counter,
    /// `total-errors-logged`.
    pub errors_logged: Counter,
    /// `deadletterqueue-produce-requests`.
    pub dlq_requests: Counter,
    /// `deadletterqueue-produce-failures`.
    pub dlq_failures: Counter,
    /// `last-error-timestamp`, in seconds.
    pub last_error: FloatGauge,
}

impl Default for ErrorMetrics {
    /// Counters in no registry (tests, a task without a worker).
    fn default() -> Self {
        Self {
            record_failures: Counter::default(),
            record_errors: Counter::default(),
            records_skipped: Counter::default(),
            retries: Counter::default(),
            errors_logged: Counter::default(),
            dlq_requests: Counter::default(),
            dlq_failures: Counter::default(),
            last_error: FloatGauge::default(),
        }
    }
}

/// The metric handles of one task, label sets resolved once. Counters of the other task kind
/// exist but belong to no registry.
#[derive(Debug, Clone)]
pub struct TaskMetrics {
    /// `batch-size-*`.
    pub batch_size: Histogram,
    /// `offset-commit-*-time-ms`, in seconds.
    pub offset_commit_time: Histogram,
    /// Successful offset commits.
    pub offset_commit_success: Counter,
    /// Failed offset commits.
    pub offset_commit_failure: Counter,
    /// Bytes of the records moved (written by a source task, put by a sink task).
    pub bytes: Counter,
    /// Time per batch converting records (and everything else in the per-record loop but
    /// transformations).
    pub convert_time: Histogram,
    /// Time per batch in transformations (observed only when the connector has some).
    pub transform_time: Histogram,
    /// Source task metrics.
    pub source: SourceTaskMetrics,
    /// Sink task metrics.
    pub sink: SinkTaskMetrics,
    /// Error metrics.
    pub errors: ErrorMetrics,
    /// Whether the handles are a source or a sink task's (`None`: not said, detached handles).
    kind: Option<TaskKind>,
    /// Where the handles are registered (`None`: nowhere).
    registered: Option<(TaskFamilies, TaskLabels)>,
}

fn stage(labels: &TaskLabels, stage: &'static str) -> StageLabels {
    StageLabels {
        connector: labels.connector.clone(),
        task: labels.task.clone(),
        stage,
    }
}

const STAGES: [&str; 3] = ["convert", "transform", "produce"];

impl TaskMetrics {
    /// The handles of task `task` of `connector`, registered in `families`.
    pub fn new(families: &TaskFamilies, connector: &str, task: u32, kind: TaskKind) -> Self {
        let l = TaskLabels {
            connector: connector.to_owned(),
            task: task.to_string(),
        };
        let f = families;
        let source = kind == TaskKind::Source;
        let counter = |family: &Family<TaskLabels, Counter>, on: bool| {
            if on {
                family.get_or_create_owned(&l)
            } else {
                Counter::default()
            }
        };
        let gauge = |family: &Family<TaskLabels, Gauge>, on: bool| {
            if on {
                family.get_or_create_owned(&l)
            } else {
                Gauge::default()
            }
        };
        let histogram = |family: &HistogramFamily<TaskLabels>, on: bool| {
            if on {
                family.get_or_create_owned(&l)
            } else {
                buckets::seconds()
            }
        };
        Self {
            batch_size: f.batch_size.get_or_create_owned(&l),
            offset_commit_time: f.offset_commit_time.get_or_create_owned(&l),
            offset_commit_success: counter(&f.offset_commit_success, true),
            offset_commit_failure: counter(&f.offset_commit_failure, true),
            bytes: counter(&f.bytes, true),
            convert_time: f.stage_time.get_or_create_owned(&stage(&l, "convert")),
            transform_time: f.stage_time.get_or_create_owned(&stage(&l, "transform")),
            source: SourceTaskMetrics {
                poll_total: counter(&f.source_poll, source),
                write_total: counter(&f.source_write, source),
                poll_batch_time: histogram(&f.poll_batch_time, source),
                active_count: f.source_active.get(&l, source),
                produce_time: if source {
                    f.stage_time.get_or_create_owned(&stage(&l, "produce"))
                } else {
                    buckets::seconds()
                },
            },
            sink: SinkTaskMetrics {
                read_total: counter(&f.sink_read, !source),
                send_total: counter(&f.sink_send, !source),
                put_batch_time: histogram(&f.put_batch_time, !source),
                partition_count: gauge(&f.partition_count, !source),
                lag: gauge(&f.sink_lag, !source),
                commit_completion: counter(&f.commit_completion, !source),
                commit_skip: counter(&f.commit_skip, !source),
                commit_seq_no: gauge(&f.commit_seq_no, !source),
                active_count: f.sink_active.get(&l, !source),
            },
            errors: ErrorMetrics {
                record_failures: counter(&f.record_failures, true),
                record_errors: counter(&f.record_errors, true),
                records_skipped: counter(&f.records_skipped, true),
                retries: counter(&f.retries, true),
                errors_logged: counter(&f.errors_logged, true),
                dlq_requests: counter(&f.dlq_requests, true),
                dlq_failures: counter(&f.dlq_failures, true),
                last_error: f.last_error.get_or_create_owned(&l),
            },
            kind: Some(kind),
            registered: Some((families.clone(), l)),
        }
    }

    /// Handles in no registry (unit tests, tasks run without a worker).
    pub fn detached() -> Self {
        Self {
            batch_size: buckets::records(),
            offset_commit_time: buckets::seconds(),
            offset_commit_success: Counter::default(),
            offset_commit_failure: Counter::default(),
            bytes: Counter::default(),
            convert_time: buckets::seconds(),
            transform_time: buckets::seconds(),
            source: SourceTaskMetrics {
                poll_total: Counter::default(),
                write_total: Counter::default(),
                poll_batch_time: buckets::seconds(),
                active_count: ActiveCount::default(),
                produce_time: buckets::seconds(),
            },
            sink: SinkTaskMetrics {
                read_total: Counter::default(),
                send_total: Counter::default(),
                put_batch_time: buckets::seconds(),
                partition_count: Gauge::default(),
                lag: Gauge::default(),
                commit_completion: Counter::default(),
                commit_skip: Counter::default(),
                commit_seq_no: Gauge::default(),
                active_count: ActiveCount::default(),
            },
            errors: ErrorMetrics::default(),
            kind: None,
            registered: None,
        }
    }

    /// Handles in no registry of a task of `kind`.
    pub fn detached_of(kind: TaskKind) -> Self {
        Self {
            kind: Some(kind),
            ..Self::detached()
        }
    }

    /// Whether these are a source or a sink task's handles (`None` for [`Self::detached`]).
    pub fn kind(&self) -> Option<TaskKind> {
        self.kind
    }

    /// Removes the task's series from the registry (the task is gone; a new instance of the
    /// same task starts its counters at zero, which Prometheus reads as a counter reset).
    pub fn unregister(&self) {
        let Some((f, l)) = &self.registered else {
            return;
        };
        for family in [
            &f.offset_commit_success,
            &f.offset_commit_failure,
            &f.source_poll,
            &f.source_write,
            &f.sink_read,
            &f.sink_send,
            &f.commit_completion,
            &f.commit_skip,
            &f.record_failures,
            &f.record_errors,
            &f.records_skipped,
            &f.retries,
            &f.errors_logged,
            &f.dlq_requests,
            &f.dlq_failures,
            &f.bytes,
        ] {
            family.remove(l);
        }
        for family in [&f.partition_count, &f.sink_lag, &f.commit_seq_no] {
            family.remove(l);
        }
        for family in [
            &f.batch_size,
            &f.offset_commit_time,
            &f.poll_batch_time,
            &f.put_batch_time,
        ] {
            family.remove(l);
        }
        f.last_error.remove(l);
        f.source_active.remove(l);
        f.sink_active.remove(l);
        for s in STAGES {
            f.stage_time.remove(&stage(l, s));
        }
    }
}
