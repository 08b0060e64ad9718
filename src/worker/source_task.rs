//! WorkerSourceTask: poll → convert → produce → acknowledge → commit offsets.
//!
//! Offsets are stored only for the acknowledged prefix of each source partition
//! ([`SubmittedRecords`]), every `offset.flush.interval.ms` and when the task stops.
//!
//! When the producer commits source offsets with their records (the embedded log's commit
//! journal, exactly-once sources), every batch is sent with the offsets it completes, batches
//! whose records were all dropped included; the flush then only refreshes the readable view
//! ([`OffsetStore::put_committed`]).

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, SourceTask, SourceTaskContext};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, error, info, warn};

use super::activity::{TaskActivity, Uncommitted};
use super::error::TaskError;
use super::record_converters::RecordConverters;
use super::record_offset::{into_entry, same_partition, RecordOffset};
use super::record_pipeline::source_batch;
use super::settings::WorkerSettings;
use super::submitted::{BatchId, SubmittedRecords};
use super::throughput::record_bytes;
use super::tolerance::ErrorHandler;
use super::transform_chain::TransformationChain;
use crate::storage::{OffsetEntry, OffsetStore};
use crate::topics::{SourceOffsets, TopicError, TopicProducer};

/// Pause after a retriable poll error.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// Everything one source task needs to run.
pub struct SourceTaskRunner {
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
    /// Where records go.
    pub producer: Arc<dyn TopicProducer>,
    /// Where offsets go.
    pub offsets: Arc<dyn OffsetStore>,
    /// Timing settings.
    pub settings: WorkerSettings,
    /// Activity cell for the idle watcher.
    pub activity: Arc<TaskActivity>,
    /// Retries, tolerance, error reporters and counters.
    pub errors: ErrorHandler,
}

/// A batch's acknowledgement: its id, its records and the outcome.
type Ack = (BatchId, u64, Result<(), TopicError>);

impl SourceTaskRunner {
    /// Runs the task until `ctx.cancel` fires or it fails; then drains acknowledgements, flushes
    /// offsets a last time and stops the task.
    ///
    /// # Errors
    /// The failure that stopped the task.
    pub async fn run(mut self) -> Result<(), TaskError> {
        let cancel = self.ctx.cancel.clone();
        self.task
            .start(self.ctx.clone(), &self.config)
            .await
            .map_err(TaskError::at("Task start"))?;
        info!("Source task started.");
        let (ack_tx, ack_rx) = mpsc::unbounded_channel();
        let mut state = LoopState {
            submitted: SubmittedRecords::new(),
            unflushed: Vec::new(),
            sent: 0,
            acked: 0,
            releasing: 0,
            stored: 0,
            ack_tx,
            ack_rx,
        };
        let result = self.poll_loop(&mut state, &cancel).await;
        // Whatever happened, commit what was acknowledged.
        let drained = self.drain(&mut state).await;
        let flushed = self.flush(&mut state).await;
        if let Err(e) = self.task.stop().await {
            warn!(error = %e, "Source task stop failed.");
        }
        result.and(drained).and(flushed)
    }

    async fn poll_loop(
        &mut self,
        state: &mut LoopState,
        cancel: &CancellationToken,
    ) -> Result<(), TaskError> {
        let mut flush_at = Instant::now() + self.settings.offset_flush_interval;
        loop {
            self.take_acks(state, false).await?;
            while state.submitted.in_flight() >= self.producer.max_in_flight_batches() {
                tokio::select! {
                    _ = cancel.cancelled() => return Ok(()),
                    r = self.take_acks(state, true) => r?,
                }
            }
            if Instant::now() >= flush_at {
                self.flush(state).await?;
                flush_at = Instant::now() + self.settings.offset_flush_interval;
            }
            let poll_started = std::time::Instant::now();
            let polled = tokio::select! {
                _ = cancel.cancelled() => return Ok(()),
                r = self.task.poll() => r,
            };
            let batch = match polled {
                Ok(batch) => batch,
                Err(e) if e.is_retriable() => {
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
                // that return records are timed, as Kafka Connect does. Acknowledgements that
                // arrived while the poll waited count: without them the task would look busy
                // for one more poll interval.
                self.take_acks(state, false).await?;
                if state.submitted.in_flight() == 0 {
                    self.activity.idle_since(poll_started);
                }
                self.activity.set_unavailable(self.task.input_unavailable());
                continue;
            }
            // Dead-lettered records are durable when this returns, before their offsets can be
            // committed.
            let (records, offsets) = source_batch(
                &self.activity,
                &mut self.errors,
                &self.converters,
                &mut self.transforms,
                batch,
                poll_started,
            )
            .await?;
            let journaled = self.producer.commits_source_offsets();
            if records.is_empty() && journaled {
                let commit = self.source_offsets(&offsets);
                if !commit.offsets.is_empty() {
                    // Every record was dropped or skipped: their offsets are committed alone.
                    let delivery = self
                        .producer
                        .send_batch_with_offsets(Vec::new(), commit)
                        .await?;
                    // Submitted once sent: a send that failed leaves no batch to wait for.
                    let id = state.submitted.submit(offsets);
                    let tx = state.ack_tx.clone();
                    tokio::spawn(async move {
                        let _ = tx.send((id, 0, delivery.await));
                    });
                }
                continue;
            }
            if records.is_empty() {
                // Every record was dropped or skipped: their offsets are committable at once.
                if !offsets.is_empty() {
                    let id = state.submitted.submit(offsets);
                    state.submitted.ack(id);
                }
                continue;
            }
            let bytes = records
                .iter()
                .map(|r| record_bytes(r.key.as_deref(), r.value.as_deref(), &r.headers))
                .sum();
            let count = u64::try_from(records.len()).unwrap_or(u64::MAX);
            let mut last_topic: Option<&str> = None;
            for r in &records {
                if last_topic != Some(r.topic.as_str()) {
                    self.activity.used_topic(&r.topic);
                    last_topic = Some(&r.topic);
                }
            }
            let commit = journaled.then(|| self.source_offsets(&offsets));
            state.sent += count;
            self.report_uncommitted(state);
            let sent_at = std::time::Instant::now();
            let delivery = match commit {
                Some(commit) => {
                    self.producer
                        .send_batch_with_offsets(records, commit)
                        .await?
                }
                None => self.producer.send_batch(records).await?,
            };
            let id = state.submitted.submit(offsets);
            let tx = state.ack_tx.clone();
            let activity = self.activity.clone();
            tokio::spawn(async move {
                let acked = delivery.await;
                activity
                    .metrics
                    .source
                    .produce_time
                    .observe(sent_at.elapsed().as_secs_f64());
                // Written once acknowledged (`source-record-write-total`, as Kafka Connect
                // counts on the producer's callbacks), at the instant it was.
                if acked.is_ok() {
                    activity.throughput.add("produced", count, bytes);
                }
                let _ = tx.send((id, count, acked));
            });
        }
    }

    /// Applies acknowledgements; with `wait`, waits for at least one.
    async fn take_acks(&mut self, state: &mut LoopState, wait: bool) -> Result<(), TaskError> {
        if wait {
            if let Some(ack) = state.ack_rx.recv().await {
                state.apply(ack)?;
            }
        }
        while let Ok(ack) = state.ack_rx.try_recv() {
            state.apply(ack)?;
        }
        Ok(())
    }

    /// Waits up to `offset.flush.timeout.ms` for outstanding acknowledgements.
    async fn drain(&mut self, state: &mut LoopState) -> Result<(), TaskError> {
        let deadline = Instant::now() + self.settings.offset_flush_timeout;
        while state.submitted.in_flight() > 0 {
            match tokio::time::timeout_at(deadline, self.take_acks(state, true)).await {
                Ok(r) => r?,
                Err(_) => {
                    warn!(
                        batches = state.submitted.in_flight(),
                        records = state.sent.saturating_sub(state.acked),
                        "Timed out waiting for acknowledgements; their records are not counted as produced and their offsets are not committed."
                    );
                    break;
                }
            }
        }
        Ok(())
    }

    /// The source offsets a batch completes: per source partition, the offset of its last
    /// record in the batch (records of sources that track no offsets are left out).
    fn source_offsets(&self, batch: &[RecordOffset]) -> SourceOffsets {
        let mut last: Vec<&RecordOffset> = Vec::new();
        for entry in batch {
            match last.iter_mut().find(|(p, _)| same_partition(p, &entry.0)) {
                Some(slot) => *slot = entry,
                None => last.push(entry),
            }
        }
        SourceOffsets {
            connector: self.connector.clone(),
            offsets: last
                .into_iter()
                .filter(|(_, offset)| offset.is_some())
                .cloned()
                .map(into_entry)
                .collect(),
        }
    }

    /// Tells the activity cell how many records sent have no stored offsets yet.
    fn report_uncommitted(&self, state: &LoopState) {
        let pending = state.sent.saturating_sub(state.stored);
        self.activity
            .set_uncommitted(if self.producer.commits_source_offsets() {
                Uncommitted::JournaledSource(pending)
            } else {
                Uncommitted::Source(pending)
            });
    }

    /// Stores the committable offsets, then tells the task they were committed.
    async fn flush(&mut self, state: &mut LoopState) -> Result<(), TaskError> {
        let mut entries = std::mem::take(&mut state.unflushed);
        entries.extend(state.submitted.committable());
        state.releasing += state.submitted.take_released_records();
        if entries.is_empty() {
            state.stored += std::mem::take(&mut state.releasing);
            self.report_uncommitted(state);
            return Ok(());
        }
        let started = std::time::Instant::now();
        let stored = if self.producer.commits_source_offsets() {
            self.offsets
                .put_committed(&self.connector, entries.clone())
                .await
        } else {
            self.offsets.put(&self.connector, entries.clone()).await
        };
        let metrics = &self.activity.metrics;
        metrics
            .offset_commit_time
            .observe(started.elapsed().as_secs_f64());
        match stored {
            Ok(()) => {
                metrics.offset_commit_success.inc();
                state.stored += std::mem::take(&mut state.releasing);
                self.report_uncommitted(state);
                debug!(partitions = entries.len(), "Committed source offsets.");
                if let Err(e) = self.task.commit().await {
                    warn!(error = %e, "Source task commit callback failed.");
                }
                Ok(())
            }
            Err(e) => {
                metrics.offset_commit_failure.inc();
                error!(error = %e, "Could not store source offsets; will retry at the next flush.");
                state.unflushed = entries;
                Ok(())
            }
        }
    }
}

struct LoopState {
    submitted: SubmittedRecords,
    /// Offsets whose store failed, retried at the next flush.
    unflushed: Vec<OffsetEntry>,
    /// Records sent.
    sent: u64,
    /// Records acknowledged.
    acked: u64,
    /// Records whose offsets are being stored (or wait for a retry).
    releasing: u64,
    /// Records whose offsets are stored.
    stored: u64,
    ack_tx: mpsc::UnboundedSender<Ack>,
    ack_rx: mpsc::UnboundedReceiver<Ack>,
}

impl LoopState {
    /// Applies one acknowledgement: a failed delivery fails the task.
    fn apply(&mut self, (id, records, result): Ack) -> Result<(), TaskError> {
        result?;
        self.submitted.ack(id);
        self.acked += records;
        Ok(())
    }
}
