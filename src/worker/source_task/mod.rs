//! The source task loop (Kafka Connect's `AbstractWorkerSourceTask`): start → poll (retrying
//! retriable errors after a pause) → transforms and converters ([`source_batch`]) → hand the
//! batch to the commit strategy, until the task is stopped or fails; then the strategy commits
//! what it can and the task is stopped.
//!
//! The loop owns what every source task does alike: cancellation, retry and backoff of polls,
//! idle detection, input progress and unavailability, topic tracking, throughput counts of
//! what is produced and the commit schedule. How records and offsets reach Kafka is the
//! [`CommitStrategy`]'s, called at defined points (before the task starts, before each poll,
//! per batch, at commit time, on stop):
//! - [`at_least_once`] (`WorkerSourceTask`): producer sends, acknowledgements,
//!   [`SubmittedRecords`](super::submitted::SubmittedRecords), offsets stored after
//!   acknowledgement every `offset.flush.interval.ms` and on stop;
//! - [`transactional`] (`ExactlyOnceWorkerSourceTask`, KIP-618): a transactional producer
//!   per task, offsets written inside the transaction at its boundary, zombie fencing before
//!   the task starts.

pub mod at_least_once;
pub mod transactional;

use std::future::Future;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, SourceTask, SourceTaskContext};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::activity::TaskActivity;
use super::error::TaskError;
use super::record_converters::RecordConverters;
use super::record_offset::RecordOffset;
use super::record_pipeline::source_batch;
use super::throughput::record_bytes;
use super::tolerance::ErrorHandler;
use super::transform_chain::TransformationChain;
use crate::topics::ProducerRecord;

pub use at_least_once::AtLeastOnce;
pub use transactional::Transactional;

/// Pause after a retriable poll error.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// Everything one source task needs to run, with how it commits.
pub struct SourceTaskRunner<C> {
    /// Connector name.
    pub connector: String,
    /// The task instance.
    pub task: Box<dyn SourceTask>,
    /// The task's configuration.
    pub config: ConfigMap,
    /// Task context (offsets, cancellation).
    pub ctx: SourceTaskContext,
    /// Converters.
    pub converters: RecordConverters,
    /// Transforms, applied before conversion.
    pub transforms: TransformationChain,
    /// Activity cell for the idle watcher.
    pub activity: Arc<TaskActivity>,
    /// Retries, tolerance, error reporters and counters.
    pub errors: ErrorHandler,
    /// How records and offsets are produced and committed.
    pub commit: C,
}

/// What the loop lends its commit strategy at each call.
pub struct LoopContext<'a> {
    /// Connector name.
    pub connector: &'a str,
    /// The task's number.
    pub task_id: u32,
    /// The task instance (its `commit` callback follows every commit).
    pub task: &'a mut dyn SourceTask,
    /// The task's activity cell (metrics, throughput, uncommitted records).
    pub activity: &'a Arc<TaskActivity>,
    /// Fires when the task is asked to stop.
    pub cancel: &'a CancellationToken,
}

impl LoopContext<'_> {
    /// Tells the task its records were committed (Kafka Connect's `SourceTask.commit`); a
    /// failure is only logged.
    pub async fn notify_committed(&mut self) {
        if let Err(e) = self.task.commit().await {
            warn!(error = %e, "Source task commit callback failed.");
        }
    }
}

/// One polled batch after transforms and converters.
pub struct Dispatch {
    /// The records to produce (dropped and skipped ones are not).
    pub records: Vec<ProducerRecord>,
    /// The source partition and offset of every polled record, dropped ones included.
    pub offsets: Vec<RecordOffset>,
    /// `records.len()`.
    pub count: u64,
    /// The records' key, value and header bytes.
    pub bytes: u64,
    /// For a task that wants each record's fate (`SourceTask::wants_record_commits`): the
    /// number of the batch's first polled record and, per polled record, whether it is in
    /// `records` (else it was dropped or skipped).
    pub record_commits: Option<PolledRecords>,
}

/// The polled records of one batch, for `SourceTask::commit_records`.
pub struct PolledRecords {
    /// The number of the batch's first polled record (counted over the task's life).
    pub first: u64,
    /// Per polled record, whether it is produced.
    pub kept: Vec<bool>,
}

/// How a source task's records and offsets are produced and committed: the loop calls it
/// at defined points.
pub trait CommitStrategy: Send {
    /// Before the task starts (fencing, initialising producers, reading offsets).
    /// `Ok(false)`: the task was stopped meanwhile and must not start.
    fn prepare(
        &mut self,
        cx: LoopContext<'_>,
    ) -> impl Future<Output = Result<bool, TaskError>> + Send;

    /// Logs that the task started.
    fn log_started(&self);

    /// How often [`commit`](Self::commit) runs between polls (`None`: only as the strategy
    /// decides itself).
    fn commit_interval(&self) -> Option<Duration>;

    /// Whether a poll still waiting at the commit time is given up to commit (and polled
    /// again afterwards).
    fn commit_interrupts_poll(&self) -> bool;

    /// Before each poll: takes acknowledgements and waits while too much is in flight.
    /// `Break`: the task was stopped.
    fn before_poll(
        &mut self,
        cx: LoopContext<'_>,
    ) -> impl Future<Output = Result<ControlFlow<()>, TaskError>> + Send;

    /// After a poll that returned nothing: whether nothing waits to be committed (then the
    /// task is idle since the poll started).
    fn settled(
        &mut self,
        cx: LoopContext<'_>,
    ) -> impl Future<Output = Result<bool, TaskError>> + Send;

    /// Produces one batch (its records, and its offsets as the strategy does).
    fn dispatch(
        &mut self,
        cx: LoopContext<'_>,
        batch: Dispatch,
    ) -> impl Future<Output = Result<(), TaskError>> + Send;

    /// Commits what can be committed.
    fn commit(&mut self, cx: LoopContext<'_>)
        -> impl Future<Output = Result<(), TaskError>> + Send;

    /// After the loop ended with `result`: commits what can be (or gives it up after a
    /// failure); the task's outcome.
    fn finish(
        &mut self,
        cx: LoopContext<'_>,
        result: Result<(), TaskError>,
    ) -> impl Future<Output = Result<(), TaskError>> + Send;
}

impl<C: CommitStrategy> SourceTaskRunner<C> {
    /// Prepares the strategy, starts the task, runs it until `ctx.cancel` fires or it fails,
    /// lets the strategy commit (or give up) what is pending and stops the task.
    ///
    /// # Errors
    /// The failure that stopped the task.
    pub async fn run(mut self) -> Result<(), TaskError> {
        let cancel = self.ctx.cancel.clone();
        let (commit, cx) = self.split(&cancel);
        if !commit.prepare(cx).await? {
            return Ok(());
        }
        self.task
            .start(self.ctx.clone(), &self.config)
            .await
            .map_err(TaskError::at("Task start"))?;
        self.commit.log_started();
        let result = self.poll_loop(&cancel).await;
        let (commit, cx) = self.split(&cancel);
        let ended = commit.finish(cx, result).await;
        if let Err(e) = self.task.stop().await {
            warn!(error = %e, "Source task stop failed.");
        }
        ended
    }

    /// The strategy and what the loop lends it.
    fn split<'a>(&'a mut self, cancel: &'a CancellationToken) -> (&'a mut C, LoopContext<'a>) {
        (
            &mut self.commit,
            LoopContext {
                connector: &self.connector,
                task_id: self.ctx.task,
                task: &mut *self.task,
                activity: &self.activity,
                cancel,
            },
        )
    }

    async fn poll_loop(&mut self, cancel: &CancellationToken) -> Result<(), TaskError> {
        let interval = self.commit.commit_interval();
        let mut commit_at = interval.map(|d| Instant::now() + d);
        let interrupts = self.commit.commit_interrupts_poll();
        let wants_record_commits = self.task.wants_record_commits();
        // Records polled so far (numbers them for `commit_records`).
        let mut polled_so_far = 0u64;
        loop {
            let (commit, cx) = self.split(cancel);
            if commit.before_poll(cx).await?.is_break() {
                return Ok(());
            }
            if let (Some(at), Some(d)) = (commit_at, interval) {
                if Instant::now() >= at {
                    let (commit, cx) = self.split(cancel);
                    commit.commit(cx).await?;
                    commit_at = Some(Instant::now() + d);
                }
            }
            let poll_started = std::time::Instant::now();
            let polled = match commit_at.filter(|_| interrupts) {
                Some(at) => tokio::select! {
                    _ = cancel.cancelled() => return Ok(()),
                    _ = tokio::time::sleep_until(at) => continue,
                    r = self.task.poll() => r,
                },
                None => tokio::select! {
                    _ = cancel.cancelled() => return Ok(()),
                    r = self.task.poll() => r,
                },
            };
            let batch = match polled {
                Ok(batch) => batch,
                // A lost instance (its plugin host died) fails the task, to be restarted.
                Err(e) if e.is_retriable_in_place() => {
                    warn!(error = %e, "Retriable error in poll; retrying.");
                    tokio::select! {
                        _ = cancel.cancelled() => return Ok(()),
                        _ = tokio::time::sleep(RETRY_BACKOFF) => {}
                    }
                    continue;
                }
                Err(e) => return Err(TaskError::at("Task poll")(e)),
            };
            self.activity.set_input_progress(self.task.progress());
            if batch.is_empty() {
                // Nothing new since the poll started (a poll may wait for data). Only polls
                // that return records are timed, as Kafka Connect does. The strategy takes
                // what was acknowledged while the poll waited: without it the task would look
                // busy for one more poll interval.
                let (commit, cx) = self.split(cancel);
                if commit.settled(cx).await? {
                    self.activity.idle_since(poll_started);
                }
                self.activity.set_unavailable(self.task.input_unavailable());
                continue;
            }
            let polled_count = u64::try_from(batch.len()).unwrap_or(u64::MAX);
            let mut record_commits = wants_record_commits.then(|| PolledRecords {
                first: polled_so_far,
                kept: Vec::with_capacity(batch.len()),
            });
            polled_so_far += polled_count;
            // Dead-lettered records are durable when this returns, before their offsets can be
            // committed.
            let (records, offsets) = source_batch(
                &self.activity,
                &mut self.errors,
                &self.converters,
                &mut self.transforms,
                batch,
                poll_started,
                record_commits.as_mut().map(|c| &mut c.kept),
            )
            .await?;
            let mut bytes = 0;
            if !records.is_empty() {
                bytes = records
                    .iter()
                    .map(|r| record_bytes(r.key.as_deref(), r.value.as_deref(), &r.headers))
                    .sum();
                let mut last_topic: Option<&str> = None;
                for r in &records {
                    if last_topic != Some(r.topic.as_str()) {
                        self.activity.used_topic(&r.topic);
                        last_topic = Some(&r.topic);
                    }
                }
            }
            let count = u64::try_from(records.len()).unwrap_or(u64::MAX);
            let (commit, cx) = self.split(cancel);
            commit
                .dispatch(
                    cx,
                    Dispatch {
                        records,
                        offsets,
                        count,
                        bytes,
                        record_commits,
                    },
                )
                .await?;
        }
    }
}
