//! Connector and task traits (Kafka Connect's `SourceConnector`, `SourceTask`, `SinkConnector`,
//! `SinkTask`). Tasks are built by the plugin, not by a running connector.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::config_def::ConfigIssue;
use crate::connector_context::ConnectorContext;
use crate::error::Result;
use crate::record::{OffsetMap, SinkRecord, SourceRecord};
use crate::ConfigMap;

/// Reads the committed offsets of the connector's source partitions.
pub trait OffsetReader: Send + Sync {
    /// The last committed offset of `partition`, if any.
    fn offset(&self, partition: &OffsetMap) -> Option<OffsetMap>;
}

/// What a source task gets from the runtime.
#[derive(Clone)]
pub struct SourceTaskContext {
    /// Connector name.
    pub connector: String,
    /// Task number.
    pub task: u32,
    /// Committed offsets of this connector.
    pub offsets: Arc<dyn OffsetReader>,
    /// Cancelled when the task is asked to stop; long waits inside `poll` may watch it.
    pub cancel: CancellationToken,
}

/// What a sink task gets from the runtime.
#[derive(Clone)]
pub struct SinkTaskContext {
    /// Connector name.
    pub connector: String,
    /// Task number.
    pub task: u32,
    /// Cancelled when the task is asked to stop.
    pub cancel: CancellationToken,
    /// Whether a sink that can keep its output exact across crashes (storing a position with
    /// its commits, see [`SinkTask::keeps_positions`]) does so when its configuration does not
    /// say: true on connect-rs's embedded log (no `bootstrap.servers`), false with Kafka,
    /// where Kafka Connect's behaviour is the reference.
    pub exact_by_default: bool,
    /// Set by the task to have its offsets committed soon (Kafka Connect's
    /// `SinkTaskContext.requestCommit()`); the runtime commits after the current batch.
    pub commit_request: CommitRequest,
    /// Records of the current `put` the task reports as failed (Kafka Connect's
    /// `ErrantRecordReporter`); the runtime handles them by `errors.tolerance`, its log and
    /// dead letter queue when `put` returns.
    pub errant_records: ErrantRecords,
    /// Rewinds, pauses and resumes the task asks of its consumer (Kafka Connect's
    /// `SinkTaskContext.offset`, `pause`, `resume`); the runtime applies them before it reads
    /// again.
    pub consumer: crate::ConsumerRequests,
}

/// The records of a `put` a sink task could not write (Kafka Connect's
/// `SinkTaskContext.errantRecordReporter()`), by their index in the batch `put` got: the task
/// reports them during `put`, the runtime takes them when `put` returns and treats each as a
/// failure of the `TASK_PUT` stage (tolerated with `errors.tolerance=all`: logged and
/// dead-lettered, its offset committed; else the task fails).
#[derive(Clone, Debug, Default)]
pub struct ErrantRecords(Arc<std::sync::Mutex<Vec<ErrantRecord>>>);

/// One record a sink task reported as failed.
#[derive(Debug)]
pub struct ErrantRecord {
    /// Its index in the batch of the `put` that reported it.
    pub index: usize,
    /// Why the task could not write it.
    pub error: crate::ConnectError,
}

impl ErrantRecords {
    /// Reports the record at `index` of the current `put` batch as failed with `error`.
    pub fn report(&self, index: usize, error: crate::ConnectError) {
        self.lock().push(ErrantRecord { index, error });
    }

    /// The records reported since the last call, in the order reported.
    pub fn take(&self) -> Vec<ErrantRecord> {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ErrantRecord>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A sink task's request for an offset commit (Kafka Connect's
/// `SinkTaskContext.requestCommit()`): the task sets it, the runtime takes it between batches.
#[derive(Clone, Debug, Default)]
pub struct CommitRequest(Arc<std::sync::atomic::AtomicBool>);

impl CommitRequest {
    /// Asks the runtime to commit the task's offsets after the current batch.
    pub fn request(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether a commit was requested since the last call; clears the request.
    pub fn take(&self) -> bool {
        self.0.swap(false, std::sync::atomic::Ordering::AcqRel)
    }
}

/// A topic partition.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartition {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
}

/// Whether a source connector can give exactly-once delivery with a configuration (Kafka
/// Connect's `ExactlyOnceSupport`), asked by the preflight check of
/// `exactly.once.support=required`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactlyOnceSupport {
    /// Records are delivered exactly once when the worker runs the task in transactions.
    Supported,
    /// The connector cannot give exactly-once delivery with this configuration.
    Unsupported,
}

/// A source connector: validates its configuration and plans its tasks.
#[async_trait]
pub trait SourceConnector: Send {
    /// Gives the connector its context, once, before `start` (Kafka Connect's `initialize`).
    /// By default the context is dropped: a connector that never asks for a reconfiguration
    /// needs none.
    fn initialize(&mut self, _ctx: ConnectorContext) {}
    /// Starts the connector with its configuration.
    async fn start(&mut self, props: &ConfigMap) -> Result<()>;
    /// Plans at most `max_tasks` task configurations.
    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>>;
    /// Stops the connector.
    async fn stop(&mut self) -> Result<()>;
    /// Cross-key checks beyond the plugin's ConfigDef (pure, no I/O).
    fn validate(&self, _props: &ConfigMap) -> Vec<ConfigIssue> {
        Vec::new()
    }
    /// Whether the connector gives exactly-once delivery with `props` (pure, no I/O); `None`
    /// (the default, as Kafka Connect's `null`): it does not say.
    fn exactly_once_support(&self, _props: &ConfigMap) -> Option<ExactlyOnceSupport> {
        None
    }
    /// Checks an alteration of the connector's offsets before the runtime stores it (Kafka
    /// Connect's `SourceConnector.alterOffsets`, KIP-875). Called on an instance that is not
    /// started, with the connector's configuration and every entry of the request: a partition
    /// (`None`: null) and its new offset (`None`: null, the partition's offset is removed); a
    /// reset passes every stored partition with `None`. An error refuses the whole request:
    /// nothing is stored, and REST answers 500 with its message, as Kafka Connect.
    /// `Ok(true)`: the connector altered what it keeps outside the runtime too (or keeps
    /// nothing there); `Ok(false)`, the default: only the runtime's offsets are altered, and
    /// the answer says so.
    fn alter_offsets(&self, _props: &ConfigMap, _offsets: &[SourceOffsetChange]) -> Result<bool> {
        Ok(false)
    }
}

/// One entry of a source connector's offsets alteration: a partition and its new offset,
/// `None` where the request holds null.
pub type SourceOffsetChange = (Option<OffsetMap>, Option<OffsetMap>);

/// A source task: polls an external system for records.
#[async_trait]
pub trait SourceTask: Send {
    /// Starts the task with its configuration.
    async fn start(&mut self, ctx: SourceTaskContext, props: &ConfigMap) -> Result<()>;
    /// Returns the next records; an empty batch when there is nothing yet. Must be cancel-safe:
    /// when the future is dropped, no record may be lost (the next call returns it).
    async fn poll(&mut self) -> Result<Vec<SourceRecord>>;
    /// Called after offsets were committed.
    async fn commit(&mut self) -> Result<()> {
        Ok(())
    }
    /// Whether the runtime tells the task the fate of each polled record
    /// ([`Self::commit_records`]); asked once after `start`. False by default.
    fn wants_record_commits(&self) -> bool {
        false
    }
    /// Polled records were acknowledged by their topic, or will never be written (Kafka
    /// Connect's `commitRecord`, called per record); batches may come out of poll order. An
    /// error is only logged, as Kafka Connect logs an exception of `commitRecord`.
    async fn commit_records(&mut self, _records: Vec<crate::RecordCommit>) -> Result<()> {
        Ok(())
    }
    /// Stops the task; called once, after the last `poll`.
    async fn stop(&mut self) -> Result<()>;
    /// Why the task could not read anything yet because its input is missing (e.g. a file that
    /// does not exist), while it waits for it; `None` once the input was opened. A run that
    /// ends (`--exit-when-idle`) with such a task reports the reason and fails.
    fn input_unavailable(&self) -> Option<String> {
        None
    }
    /// How far the task has read into an input of known size (e.g. a regular file), for
    /// progress displays; `None` when the size is unknown (a stream, a database).
    fn progress(&self) -> Option<InputProgress> {
        None
    }
}

/// How far a source task has read into an input of known size, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InputProgress {
    /// Bytes handed out as records so far (the position reached in the input).
    pub done: u64,
    /// The input's current size (it may still grow).
    pub total: u64,
}

/// A sink connector: validates its configuration and plans its tasks.
#[async_trait]
pub trait SinkConnector: Send {
    /// Gives the connector its context, once, before `start` (Kafka Connect's `initialize`).
    fn initialize(&mut self, _ctx: ConnectorContext) {}
    /// Starts the connector with its configuration.
    async fn start(&mut self, props: &ConfigMap) -> Result<()>;
    /// Plans at most `max_tasks` task configurations.
    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>>;
    /// Stops the connector.
    async fn stop(&mut self) -> Result<()>;
    /// Cross-key checks beyond the plugin's ConfigDef (pure, no I/O).
    fn validate(&self, _props: &ConfigMap) -> Vec<ConfigIssue> {
        Vec::new()
    }
    /// Checks an alteration of the connector's consumer group offsets before the runtime
    /// applies it (Kafka Connect's `SinkConnector.alterOffsets`, KIP-875), as
    /// [`SourceConnector::alter_offsets`]: each partition with its new offset (`None`: its
    /// committed offset is removed; a reset passes every committed partition with `None`).
    fn alter_offsets(
        &self,
        _props: &ConfigMap,
        _offsets: &[(TopicPartition, Option<i64>)],
    ) -> Result<bool> {
        Ok(false)
    }
}

/// Offsets per topic partition: the next offset to read (last processed + 1).
pub type PartitionOffsets = BTreeMap<TopicPartition, i64>;

/// A sink's own position per topic partition (opaque to the runtime), stored atomically with
/// the partition's committed offset: Kafka commit metadata, or the embedded log's group offsets
/// file. Kept short: Kafka refuses metadata above the broker's `offset.metadata.max.bytes`
/// (4096 by default).
pub type SinkPositions = BTreeMap<TopicPartition, String>;

/// A sink task: writes records outward.
#[async_trait]
pub trait SinkTask: Send {
    /// Starts the task with its configuration.
    async fn start(&mut self, ctx: SinkTaskContext, props: &ConfigMap) -> Result<()>;
    /// Partitions were assigned to this task.
    async fn open(&mut self, _partitions: &[TopicPartition]) -> Result<()> {
        Ok(())
    }
    /// Writes (or buffers) records. A retriable error redelivers the same batch.
    async fn put(&mut self, records: Vec<SinkRecord>) -> Result<()>;
    /// Makes everything `put` so far durable.
    async fn flush(&mut self, _offsets: &PartitionOffsets) -> Result<()> {
        Ok(())
    }
    /// Returns the offsets that are safe to commit; by default flushes and returns them all.
    async fn pre_commit(&mut self, offsets: PartitionOffsets) -> Result<PartitionOffsets> {
        self.flush(&offsets).await?;
        Ok(offsets)
    }
    /// Partitions are taken from this task.
    async fn close(&mut self, _partitions: &[TopicPartition]) -> Result<()> {
        Ok(())
    }
    /// Stops the task; called once.
    async fn stop(&mut self) -> Result<()>;

    /// Whether `put` is called with no records after a poll that found none, as Kafka Connect
    /// calls it after every poll: tasks that flush on a schedule or resume paused partitions
    /// from `put` rely on it. False by default (connect-rs's own tasks do not need it).
    fn puts_when_idle(&self) -> bool {
        false
    }

    /// Whether this task stores a position with its commits (an exactly-once sink; see
    /// `docs/connector-spec.md`). Asked once after `start`. When true, the runtime calls
    /// [`open_at`](Self::open_at) and [`pre_commit_at`](Self::pre_commit_at) instead of
    /// `open` and `pre_commit`, and commits before the first `put` of each partition it opens,
    /// so every output the task writes follows a committed position.
    fn keeps_positions(&self) -> bool {
        false
    }
    /// Partitions were assigned, with the positions committed with their offsets (only the
    /// partitions that have one; none after the offsets were reset or altered). Called before
    /// any `put` of records of these partitions: the task restores its output to the positions
    /// (e.g. truncates a file to the committed length). By default `open`.
    async fn open_at(
        &mut self,
        partitions: &[TopicPartition],
        _positions: &SinkPositions,
    ) -> Result<()> {
        self.open(partitions).await
    }
    /// `pre_commit`, plus the position to store with each returned offset: the task's output
    /// state that matches exactly these offsets, already durable. By default `pre_commit` and
    /// no positions.
    async fn pre_commit_at(
        &mut self,
        offsets: PartitionOffsets,
    ) -> Result<(PartitionOffsets, SinkPositions)> {
        let offsets = self.pre_commit(offsets).await?;
        Ok((offsets, SinkPositions::new()))
    }
}

/// The most tasks [`identical_task_configs`] plans. `tasks.max` is a maximum ("the connector
/// may create fewer tasks"): a sink whose tasks all get the same configuration would
/// otherwise plan one task, a consumer and an open output per unit of `tasks.max`, and
/// `tasks.max=2147483647` would exhaust memory. A sink task needs a partition of its own to
/// do any work, and topics with more partitions than this are rare.
pub const MAX_IDENTICAL_TASKS: usize = 256;

/// `min(max_tasks, MAX_IDENTICAL_TASKS)` copies of `props`: the plan of a sink connector whose
/// tasks are all alike (Kafka's `FileStreamSinkConnector` and `JdbcSinkConnector` plan
/// `max_tasks` copies). Nothing is sized by `max_tasks` itself.
pub fn identical_task_configs(props: &ConfigMap, max_tasks: usize) -> Vec<ConfigMap> {
    vec![props.clone(); max_tasks.min(MAX_IDENTICAL_TASKS)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_task_configs_are_bounded_not_sized_by_tasks_max() {
        let props: ConfigMap = [("k".to_owned(), "v".to_owned())].into();
        assert_eq!(identical_task_configs(&props, 0).len(), 0);
        assert_eq!(identical_task_configs(&props, 3), vec![props.clone(); 3]);
        assert_eq!(
            identical_task_configs(&props, i32::MAX as usize).len(),
            MAX_IDENTICAL_TASKS
        );
    }
}
