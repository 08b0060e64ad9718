//! WorkerSinkTask: consume → convert → put → flush → commit (last offset + 1).
//!
//! Offsets are committed only after `put` and `pre_commit` (by default `flush`) succeeded,
//! every `offset.flush.interval.ms` and when the task stops.
//!
//! A task that keeps positions (an exactly-once sink, `SinkTask::keeps_positions`) gets the
//! positions committed with its partitions' offsets at `open_at`, and its `pre_commit_at`
//! positions are committed with the offsets. Before the first `put` of records of a partition
//! it opened, the partition's starting offset is committed with the task's position, so all
//! output follows a committed position and a restart can cut back what was not committed.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use connect_api::{
    ConfigMap, ConnectError, SinkPositions, SinkRecord, SinkTask, SinkTaskContext, TopicPartition,
};
use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::activity::{SinkCoverage, TaskActivity, Uncommitted};
use super::error::TaskError;
use super::record_converters::RecordConverters;
use super::record_pipeline::{plain_sink_record, sink_record, StageTime};
use super::settings::WorkerSettings;
use super::throughput::record_bytes;
use super::tolerance::{
    classes::SINK_TASK as SINK_TASK_CLASS, ErrorHandler, Failure, Origin, Stage,
};
use super::transform_chain::TransformationChain;
use crate::topics::{ConsumedRecord, PartitionOffsets, Revocation, Subscription, TopicConsumer};

/// Records handed to one `put`, at most.
const MAX_POLL_RECORDS: usize = 4096;
/// How long one consumer poll waits for data.
const POLL_TIMEOUT: Duration = Duration::from_millis(200);

/// Everything one sink task needs to run.
pub struct SinkTaskRunner {
    /// The task instance.
    pub task: Box<dyn SinkTask>,
    /// The task's configuration.
    pub config: ConfigMap,
    /// Task context.
    pub ctx: SinkTaskContext,
    /// Converters.
    pub converters: RecordConverters,
    /// Transforms, applied after conversion.
    pub transforms: TransformationChain,
    /// The group member reading the topics.
    pub consumer: Box<dyn TopicConsumer>,
    /// What to read.
    pub subscription: Subscription,
    /// Timing settings.
    pub settings: WorkerSettings,
    /// Activity cell for the idle watcher.
    pub activity: Arc<TaskActivity>,
    /// Retries, tolerance, error reporters and counters.
    pub errors: ErrorHandler,
}

impl SinkTaskRunner {
    /// Runs the task until cancelled or failed, then commits what was flushed and stops it.
    ///
    /// # Errors
    /// The failure that stopped the task.
    pub async fn run(mut self) -> Result<(), TaskError> {
        self.task
            .start(self.ctx.clone(), &self.config)
            .await
            .map_err(TaskError::at("Task start"))?;
        self.consumer.subscribe(self.subscription.clone()).await?;
        info!("Sink task started.");
        let mut st = SinkState {
            positioned: self.task.keeps_positions(),
            idle_puts: self.task.puts_when_idle(),
            ..SinkState::default()
        };
        let result = self.consume_loop(&mut st).await;
        let committed = if result.is_ok() {
            self.commit(&mut st).await
        } else {
            Ok(())
        };
        let open: Vec<_> = st.open.iter().cloned().collect();
        if let Err(e) = self.task.close(&open).await {
            warn!(error = %e, "Sink task close failed.");
        }
        if let Err(e) = self.task.stop().await {
            warn!(error = %e, "Sink task stop failed.");
        }
        self.consumer.close().await;
        result.and(committed)
    }

    async fn consume_loop(&mut self, st: &mut SinkState) -> Result<(), TaskError> {
        let cancel = self.ctx.cancel.clone();
        let mut commit_at = Instant::now() + self.settings.offset_flush_interval;
        loop {
            let poll_started = std::time::Instant::now();
            // Records held while their partitions were paused go first once resumed.
            let mut polled = match st.take_resumed() {
                Some(resumed) => resumed,
                None => tokio::select! {
                    _ = cancel.cancelled() => return Ok(()),
                    r = self.consumer.poll(MAX_POLL_RECORDS, POLL_TIMEOUT) => r?,
                },
            };
            if let Some(revocation) = self.consumer.take_revocation() {
                self.drain(st, revocation).await?;
            }
            self.open_new_partitions(st).await?;
            // Rewinds asked for in `open`, and records of paused partitions held back.
            self.apply_consumer_requests(st, &mut polled).await?;
            self.activity.set_lag(self.consumer.lag());
            if polled.is_empty() {
                // Kafka Connect calls `put` after every poll; tasks that want it get it empty.
                if st.idle_puts && !self.deliver(&[], 0, &cancel).await? {
                    return Ok(());
                }
                if self.consumer.at_end() && st.held.is_empty() {
                    // Idle since the poll began: it waited for records and none came. Whether
                    // the connector's tasks together read every partition is for the worker
                    // to tell (`unread_partitions`).
                    self.activity.idle_since(poll_started);
                    self.activity.set_sink_coverage(SinkCoverage {
                        assigned: self.consumer.assignment(),
                        subscribed: self.consumer.subscribed_partitions(),
                    });
                } else {
                    // Records are left to read (or the assignment is not known yet).
                    self.activity.busy();
                }
            } else {
                // `inflow` below counts `sink-record-read-total`.
                #[allow(clippy::cast_precision_loss)]
                self.activity
                    .metrics
                    .batch_size
                    .observe(polled.len() as f64);
                self.activity.busy();
                let bytes = polled
                    .iter()
                    .map(|r| record_bytes(r.key.as_deref(), r.value.as_deref(), &r.headers))
                    .sum();
                let count = u64::try_from(polled.len()).unwrap_or(u64::MAX);
                self.activity.inflow.add("read", count, bytes);
                if st.positioned {
                    self.anchor(st, &polled).await?;
                }
                if !self.deliver(&polled, bytes, &cancel).await? {
                    return Ok(());
                }
                // Once per run of records of one partition (a poll returns them in order).
                let runs = polled.chunk_by(|a, b| a.partition == b.partition && a.topic == b.topic);
                for run in runs {
                    let (Some(first), Some(last)) = (run.first(), run.last()) else {
                        continue;
                    };
                    let tp = TopicPartition {
                        topic: first.topic.clone(),
                        partition: first.partition,
                    };
                    st.first.entry(tp.clone()).or_insert(first.offset);
                    st.current.insert(tp, last.offset + 1);
                }
                self.report_uncommitted(st);
            }
            // Rewinds, pauses and resumes asked for in `put`.
            self.apply_consumer_requests(st, &mut Vec::new()).await?;
            // A commit the task asked for (`requestCommit()`) is made now, as a due one.
            if self.ctx.commit_request.take() || Instant::now() >= commit_at {
                match self.commit(st).await {
                    Err(TaskError::Topic(e)) if e.is_retriable() => {
                        warn!(error = %e, "Could not commit sink offsets; will retry at the next interval.");
                    }
                    other => other?,
                }
                commit_at = Instant::now() + self.settings.offset_flush_interval;
            }
        }
    }

    /// A rebalance takes partitions away: everything consumed from them was put already, so
    /// flush and commit, close them, and let the rebalance go on.
    async fn drain(&mut self, st: &mut SinkState, revocation: Revocation) -> Result<(), TaskError> {
        // A rebalance is work in progress: not idle until the new assignment is read.
        self.activity.busy();
        let result = self.commit(st).await;
        if let Err(e) = self.task.close(&revocation.partitions).await {
            warn!(error = %e, "Sink task close failed.");
        }
        for tp in &revocation.partitions {
            st.open.remove(tp);
            st.current.remove(tp);
            st.committed.remove(tp);
            st.first.remove(tp);
        }
        // Held records of revoked partitions were not put: their new owner reads them.
        st.held
            .retain(|r| !revocation.partitions.contains(&partition_of(r)));
        self.report_partitions(st);
        self.report_uncommitted(st);
        let _ = revocation.done.send(());
        match result {
            Err(TaskError::Topic(e)) if e.is_retriable() => {
                warn!(error = %e, "Could not commit offsets of revoked partitions; their records may be delivered again.");
                Ok(())
            }
            other => other,
        }
    }

    /// Before the first records of a partition are put, commits the partition's starting
    /// offset (the first polled record's) with the task's position, flushing and committing
    /// the other partitions' progress along with it.
    async fn anchor(
        &mut self,
        st: &mut SinkState,
        polled: &[ConsumedRecord],
    ) -> Result<(), TaskError> {
        let mut new = false;
        for r in polled {
            let tp = TopicPartition {
                topic: r.topic.clone(),
                partition: r.partition,
            };
            if let std::collections::btree_map::Entry::Vacant(e) = st.current.entry(tp) {
                e.insert(r.offset);
                new = true;
            }
        }
        if !new {
            return Ok(());
        }
        match self.commit(st).await {
            Err(TaskError::Topic(e)) if e.is_retriable() => {
                warn!(error = %e, "Could not commit the starting offsets with the sink's position; a crash before the next commit may duplicate output.");
                Ok(())
            }
            other => other,
        }
    }

    /// Applies what the task asked of its consumer (Kafka Connect's `SinkTaskContext.offset`,
    /// `pause`, `resume`): a rewound partition is read next from its new offset, which becomes
    /// its current and committed offset as in Kafka Connect (records of it in `polled` or
    /// held are dropped: they are read again or skipped as asked); records of a paused
    /// partition in `polled` are held until it is resumed.
    async fn apply_consumer_requests(
        &mut self,
        st: &mut SinkState,
        polled: &mut Vec<ConsumedRecord>,
    ) -> Result<(), TaskError> {
        let requests = self.ctx.consumer.take();
        if !requests.is_empty() {
            let assigned = self.consumer.assignment();
            for (tp, offset) in requests.rewinds {
                if !assigned.contains(&tp) {
                    warn!(topic = %tp.topic, partition = tp.partition, offset,
                        "The task asked to rewind a partition not assigned to it; ignored.");
                    continue;
                }
                info!(topic = %tp.topic, partition = tp.partition, offset,
                    "Rewinding the partition as the task asked.");
                self.consumer.seek(&tp, offset).await?;
                polled.retain(|r| partition_of(r) != tp);
                st.held.retain(|r| partition_of(r) != tp);
                st.current.insert(tp.clone(), offset);
                st.committed.insert(tp.clone(), offset);
                st.first.remove(&tp);
            }
            for (tp, pause) in requests.paused {
                if !assigned.contains(&tp) {
                    continue;
                }
                if pause && st.paused.insert(tp.clone()) {
                    self.consumer.pause(std::slice::from_ref(&tp))?;
                } else if !pause && st.paused.remove(&tp) {
                    self.consumer.resume(std::slice::from_ref(&tp))?;
                }
            }
            self.report_uncommitted(st);
        }
        if !st.paused.is_empty() && !polled.is_empty() {
            let (held, ready): (Vec<_>, Vec<_>) = std::mem::take(polled)
                .into_iter()
                .partition(|r| st.paused.contains(&partition_of(r)));
            st.held.extend(held);
            *polled = ready;
        }
        Ok(())
    }

    async fn open_new_partitions(&mut self, st: &mut SinkState) -> Result<(), TaskError> {
        let new: Vec<_> = self
            .consumer
            .assignment()
            .into_iter()
            .filter(|tp| !st.open.contains(tp))
            .collect();
        if !new.is_empty() {
            self.activity.busy();
            if st.positioned {
                let positions = self.consumer.committed_positions(&new).await?;
                debug!(
                    partitions = new.len(),
                    positions = positions.len(),
                    "Opening partitions at their committed sink positions."
                );
                self.task
                    .open_at(&new, &positions)
                    .await
                    .map_err(TaskError::at("Task open"))?;
            } else {
                self.task
                    .open(&new)
                    .await
                    .map_err(TaskError::at("Task open"))?;
            }
            // As Kafka Connect: what the task paused stays paused when the group gives it
            // back (an eager rebalance takes every partition and gives them again).
            st.paused
                .retain(|tp| st.open.contains(tp) || new.contains(tp));
            let repause: Vec<_> = new
                .iter()
                .filter(|tp| st.paused.contains(*tp))
                .cloned()
                .collect();
            if !repause.is_empty() {
                self.consumer.pause(&repause)?;
            }
            st.open.extend(new);
            self.report_partitions(st);
        }
        Ok(())
    }

    /// Converts, transforms and puts one polled batch (`bytes` in all), each record under the
    /// error handler;
    /// retriable `put` errors redeliver the batch after Kafka's backoff. Dead letter queue
    /// records are durable before the batch counts as delivered. Returns false when cancelled
    /// before the batch was accepted.
    async fn deliver(
        &mut self,
        polled: &[ConsumedRecord],
        bytes: u64,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<bool, TaskError> {
        let (mut kept, mut batch) = self.convert_batch(polled, 0..polled.len()).await?;
        self.errors.flush().await?;
        let mut attempt = 0u32;
        loop {
            let count = u64::try_from(batch.len()).unwrap_or(u64::MAX);
            self.refuse_stale_errant_records()?;
            let put_started = std::time::Instant::now();
            let put = self.task.put(batch).await;
            let errant = self.ctx.errant_records.take();
            self.activity
                .metrics
                .sink
                .put_batch_time
                .observe(put_started.elapsed().as_secs_f64());
            match put {
                Ok(()) => {
                    self.handle_errant_records(polled, &kept, errant).await?;
                    self.activity.throughput.add("put", count, bytes);
                    return Ok(true);
                }
                // A lost instance (its plugin host died) fails the task, to be restarted; the
                // records it reported come again with the redelivered batch.
                Err(e) if e.is_retriable_in_place() => {
                    attempt += 1;
                    self.errors.counters().failure();
                    let delay = self.errors.policy().backoff(attempt, Instant::now(), None);
                    warn!(error = %e, attempt, "Retriable error in put; redelivering the batch.");
                    tokio::select! {
                        _ = cancel.cancelled() => return Ok(false),
                        _ = tokio::time::sleep(delay) => {}
                    }
                    self.errors.counters().retry();
                    (kept, batch) = self.convert_batch(polled, kept.into_iter()).await?;
                }
                Err(e) => return Err(TaskError::at("Task put")(e)),
            }
        }
    }

    /// Handles the records the task reported as failed during its last `put` (Kafka Connect's
    /// `ErrantRecordReporter`, its `TASK_PUT` stage of class `SinkTask`): logged and
    /// dead-lettered as the policy says (durable before the batch counts as delivered), then
    /// skipped with `errors.tolerance=all`, else the task fails. `kept` maps the batch's
    /// indices to `polled`.
    ///
    /// # Errors
    /// [`TaskError::Tolerance`] for a reported record not tolerated; a clear error for an
    /// index outside the batch.
    async fn handle_errant_records(
        &mut self,
        polled: &[ConsumedRecord],
        kept: &[usize],
        errant: Vec<connect_api::ErrantRecord>,
    ) -> Result<(), TaskError> {
        if errant.is_empty() {
            return Ok(());
        }
        for report in errant {
            let Some(record) = kept.get(report.index).and_then(|&i| polled.get(i)) else {
                return Err(TaskError::at("Task put")(ConnectError::Other(format!(
                    "the task reported a record as errant that was not one of the {} records of \
                     its put: {}",
                    kept.len(),
                    report.error
                ))));
            };
            let failure = Failure {
                stage: Stage::TaskPut,
                class_name: SINK_TASK_CLASS.to_owned(),
                error: report.error,
            };
            self.errors
                .fail_reported(failure, &Origin::Consumed(record))
                .await?;
        }
        self.errors.flush().await
    }

    /// Fails the task when it reported errant records outside `put` (after it returned, e.g.
    /// in `flush`): connect-rs cannot tell which records they were, and ignoring them could
    /// lose them.
    fn refuse_stale_errant_records(&self) -> Result<(), TaskError> {
        let stale = self.ctx.errant_records.take();
        match stale.first() {
            None => Ok(()),
            Some(first) => Err(TaskError::at("Task put")(ConnectError::Other(format!(
                "the task reported {} errant record(s) outside put (the first: {}); connect-rs \
                 handles the records a sink task reports during put only",
                stale.len(),
                first.error
            )))),
        }
    }

    /// Converts (and transforms) the records of `polled` at `indices`, timing the stages once
    /// for the batch; returns the indices of the records kept and their sink records. Without
    /// transforms a record is converted in a plain call, and only one that fails goes through
    /// the error handler.
    async fn convert_batch<'a>(
        &mut self,
        polled: &'a [ConsumedRecord],
        indices: impl ExactSizeIterator<Item = usize>,
    ) -> Result<(Vec<usize>, Vec<SinkRecord>), TaskError> {
        let mut kept = Vec::with_capacity(indices.len());
        let mut batch = Vec::with_capacity(indices.len());
        let started = std::time::Instant::now();
        let mut clock = StageTime::default();
        // The topic last recorded as used (KIP-558): once per run of records of one topic.
        let mut tracked: Option<&str> = None;
        let activity = &self.activity;
        let mut track = |topic: &'a str| {
            if tracked != Some(topic) {
                activity.used_topic(topic);
                tracked = Some(topic);
            }
        };
        for i in indices {
            let r = &polled[i];
            let converted = match plain_sink_record(&self.converters, &self.transforms, r) {
                Some(rec) => {
                    track(&r.topic);
                    Some(rec)
                }
                None => {
                    sink_record(
                        &mut self.errors,
                        &self.converters,
                        &mut self.transforms,
                        r,
                        &mut clock,
                        || track(&r.topic),
                    )
                    .await?
                }
            };
            if let Some(rec) = converted {
                kept.push(i);
                batch.push(rec);
            }
        }
        clock.observe(started, &self.activity.metrics);
        Ok((kept, batch))
    }

    /// Flushes the task and commits its offsets, timed and counted in the task's metrics
    /// (`offset-commit-*`; a `pre_commit` that leaves nothing new to commit counts as a
    /// completed commit).
    async fn commit(&mut self, st: &mut SinkState) -> Result<(), TaskError> {
        if st.current == st.committed {
            return Ok(());
        }
        let activity = self.activity.clone();
        let metrics = &activity.metrics;
        metrics.sink.commit_seq_no.inc();
        let started = std::time::Instant::now();
        let result = self.commit_offsets(st).await;
        metrics
            .offset_commit_time
            .observe(started.elapsed().as_secs_f64());
        match &result {
            Ok(()) => {
                metrics.offset_commit_success.inc();
                metrics.sink.commit_completion.inc();
            }
            Err(_) => {
                metrics.offset_commit_failure.inc();
            }
        }
        result
    }

    async fn commit_offsets(&mut self, st: &mut SinkState) -> Result<(), TaskError> {
        let (offsets, positions) = if st.positioned {
            self.task
                .pre_commit_at(st.current.clone())
                .await
                .map_err(TaskError::at("Task flush"))?
        } else {
            let offsets = self
                .task
                .pre_commit(st.current.clone())
                .await
                .map_err(TaskError::at("Task flush"))?;
            (offsets, SinkPositions::new())
        };
        // Never commit past what was consumed.
        let offsets: PartitionOffsets = offsets
            .into_iter()
            .filter(|(tp, o)| st.current.get(tp).is_some_and(|c| o <= c))
            .collect();
        if offsets.is_empty() || offsets == st.committed {
            return Ok(());
        }
        if st.positioned {
            self.consumer.commit_at(&offsets, &positions).await?;
        } else {
            self.consumer.commit(&offsets).await?;
        }
        debug!(partitions = offsets.len(), "Committed sink offsets.");
        st.committed = offsets;
        self.report_uncommitted(st);
        Ok(())
    }

    /// Sets the task's `partition-count`.
    fn report_partitions(&self, st: &SinkState) {
        let open = i64::try_from(st.open.len()).unwrap_or(i64::MAX);
        self.activity.metrics.sink.partition_count.set(open);
    }

    /// Tells the activity cell how many records were put since their offsets were committed
    /// (per partition: the next offset to read minus the committed one, or the first one put).
    fn report_uncommitted(&self, st: &SinkState) {
        let pending: i64 = st
            .current
            .iter()
            .map(|(tp, next)| {
                let from = st.committed.get(tp).or(st.first.get(tp)).copied();
                from.map_or(0, |from| (next - from).max(0))
            })
            .sum();
        self.activity
            .set_uncommitted(Uncommitted::Sink(u64::try_from(pending).unwrap_or(0)));
    }
}

#[derive(Default)]
struct SinkState {
    /// Next offset to read per partition, after successful puts.
    current: PartitionOffsets,
    /// Last committed offsets.
    committed: PartitionOffsets,
    /// Offset of the first record put per partition (counts what was put but not committed).
    first: PartitionOffsets,
    /// Partitions the task was told about with `open`.
    open: BTreeSet<TopicPartition>,
    /// Whether the task keeps positions (commits carry them).
    positioned: bool,
    /// Whether the task gets `put` with no records after an empty poll.
    idle_puts: bool,
    /// Partitions the task paused.
    paused: BTreeSet<TopicPartition>,
    /// Records read from partitions the task paused, not put yet, in the order read.
    held: Vec<ConsumedRecord>,
}

impl SinkState {
    /// The held records of partitions resumed since, if any (the others stay held).
    fn take_resumed(&mut self) -> Option<Vec<ConsumedRecord>> {
        let paused = &self.paused;
        if self.held.iter().all(|r| paused.contains(&partition_of(r))) {
            return None;
        }
        let (ready, held): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|r| !paused.contains(&partition_of(r)));
        self.held = held;
        Some(ready)
    }
}

/// The topic partition of a consumed record.
fn partition_of(r: &ConsumedRecord) -> TopicPartition {
    TopicPartition {
        topic: r.topic.clone(),
        partition: r.partition,
    }
}
