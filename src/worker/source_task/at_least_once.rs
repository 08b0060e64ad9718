//! The at-least-once commit strategy (Kafka Connect's `WorkerSourceTask`): each batch is
//! sent with the task's producer; its offsets are stored only for the acknowledged prefix of
//! each source partition ([`SubmittedRecords`]), every `offset.flush.interval.ms` and when the
//! task stops.
//!
//! When the producer commits source offsets with their records (the embedded log's commit
//! journal), every batch is sent with the offsets it completes, batches whose records were all
//! dropped included; the flush then only refreshes the readable view
//! ([`OffsetStore::put_committed`]).

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::{debug, error, info, warn};

use connect_api::{RecordCommit, RecordMetadata};

use super::{CommitStrategy, Dispatch, LoopContext, PolledRecords};
use crate::storage::{OffsetEntry, OffsetStore};
use crate::topics::{SourceOffsets, TopicError, TopicProducer};
use crate::worker::activity::{TaskActivity, Uncommitted};
use crate::worker::error::TaskError;
use crate::worker::record_offset::{into_entry, same_partition, RecordOffset};
use crate::worker::settings::WorkerSettings;
use crate::worker::submitted::{BatchId, SubmittedRecords};

/// Records in flight under which the producer's batch limit does not hold polls back.
const SMALL_BATCHES_RECORDS: u64 = 10_000;
/// Batches in flight at most, whatever their size.
const MAX_BATCHES_IN_FLIGHT: usize = 10_000;

/// A batch's acknowledgement: its id, its records, the outcome and, for a task that wants
/// them, its polled records' fates.
type Ack = (BatchId, u64, Result<(), TopicError>, Vec<RecordCommit>);

/// Producer sends, acknowledgements and offsets stored after acknowledgement.
pub struct AtLeastOnce {
    /// Where records go.
    producer: Arc<dyn TopicProducer>,
    /// Where offsets go.
    offsets: Arc<dyn OffsetStore>,
    /// `offset.flush.interval.ms` and `offset.flush.timeout.ms`.
    settings: WorkerSettings,
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
    /// Polled records' fates not told to the task yet.
    record_commits: Vec<RecordCommit>,
}

impl AtLeastOnce {
    /// Sends records with `producer` and stores offsets in `offsets`, as `settings` time it.
    pub fn new(
        producer: Arc<dyn TopicProducer>,
        offsets: Arc<dyn OffsetStore>,
        settings: WorkerSettings,
    ) -> Self {
        let (ack_tx, ack_rx) = mpsc::unbounded_channel();
        Self {
            producer,
            offsets,
            settings,
            submitted: SubmittedRecords::new(),
            unflushed: Vec::new(),
            sent: 0,
            acked: 0,
            releasing: 0,
            stored: 0,
            ack_tx,
            ack_rx,
            record_commits: Vec::new(),
        }
    }

    /// Tells the task the fates of its polled records gathered so far (Kafka Connect's
    /// `commitRecord`); its failure is only logged, as Kafka Connect logs it.
    async fn tell_record_commits(&mut self, cx: &mut LoopContext<'_>) {
        if self.record_commits.is_empty() {
            return;
        }
        let commits = std::mem::take(&mut self.record_commits);
        if let Err(e) = cx.task.commit_records(commits).await {
            warn!(error = %e, "Source task commitRecord failed.");
        }
    }

    /// Whether the next poll waits for acknowledgements: the producer's batch limit applies
    /// once [`SMALL_BATCHES_RECORDS`] records are in flight (a source returning a record or a
    /// few per poll, as Kafka's Verifiable source or a CDC source under light load, would else
    /// wait for the broker every few records: Kafka Connect bounds it by the producer's buffer
    /// only), and [`MAX_BATCHES_IN_FLIGHT`] bounds the bookkeeping.
    fn held_back(&self) -> bool {
        let batches = self.submitted.in_flight();
        batches >= MAX_BATCHES_IN_FLIGHT
            || (batches >= self.producer.max_in_flight_batches()
                && self.sent.saturating_sub(self.acked) >= SMALL_BATCHES_RECORDS)
    }

    /// Applies one acknowledgement: a failed delivery fails the task.
    fn apply(&mut self, (id, records, result, commits): Ack) -> Result<(), TaskError> {
        result?;
        self.submitted.ack(id);
        self.acked += records;
        self.record_commits.extend(commits);
        Ok(())
    }

    /// Applies acknowledgements; with `wait`, waits for at least one.
    async fn take_acks(&mut self, wait: bool) -> Result<(), TaskError> {
        if wait {
            if let Some(ack) = self.ack_rx.recv().await {
                self.apply(ack)?;
            }
        }
        while let Ok(ack) = self.ack_rx.try_recv() {
            self.apply(ack)?;
        }
        Ok(())
    }

    /// Waits up to `offset.flush.timeout.ms` for outstanding acknowledgements.
    async fn drain(&mut self) -> Result<(), TaskError> {
        let deadline = Instant::now() + self.settings.offset_flush_timeout;
        while self.submitted.in_flight() > 0 {
            match tokio::time::timeout_at(deadline, self.take_acks(true)).await {
                Ok(r) => r?,
                Err(_) => {
                    warn!(
                        batches = self.submitted.in_flight(),
                        records = self.sent.saturating_sub(self.acked),
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
    fn source_offsets(connector: &str, batch: &[RecordOffset]) -> SourceOffsets {
        let mut last: Vec<&RecordOffset> = Vec::new();
        for entry in batch {
            match last.iter_mut().find(|(p, _)| same_partition(p, &entry.0)) {
                Some(slot) => *slot = entry,
                None => last.push(entry),
            }
        }
        SourceOffsets {
            connector: connector.to_owned(),
            offsets: last
                .into_iter()
                .filter(|(_, offset)| offset.is_some())
                .cloned()
                .map(into_entry)
                .collect(),
        }
    }

    /// Tells the activity cell how many records sent have no stored offsets yet.
    fn report_uncommitted(&self, activity: &TaskActivity) {
        let pending = self.sent.saturating_sub(self.stored);
        activity.set_uncommitted(if self.producer.commits_source_offsets() {
            Uncommitted::JournaledSource(pending)
        } else {
            Uncommitted::Source(pending)
        });
    }

    /// Stores the committable offsets, then tells the task they were committed. A failed
    /// store is retried at the next flush.
    async fn flush(&mut self, mut cx: LoopContext<'_>) -> Result<(), TaskError> {
        let mut entries = std::mem::take(&mut self.unflushed);
        entries.extend(self.submitted.committable());
        self.releasing += self.submitted.take_released_records();
        if entries.is_empty() {
            self.stored += std::mem::take(&mut self.releasing);
            self.report_uncommitted(cx.activity);
            return Ok(());
        }
        let started = std::time::Instant::now();
        let stored = if self.producer.commits_source_offsets() {
            self.offsets
                .put_committed(cx.connector, entries.clone())
                .await
        } else {
            self.offsets.put(cx.connector, entries.clone()).await
        };
        let metrics = &cx.activity.metrics;
        metrics
            .offset_commit_time
            .observe(started.elapsed().as_secs_f64());
        match stored {
            Ok(()) => {
                metrics.offset_commit_success.inc();
                self.stored += std::mem::take(&mut self.releasing);
                self.report_uncommitted(cx.activity);
                debug!(partitions = entries.len(), "Committed source offsets.");
                cx.notify_committed().await;
                Ok(())
            }
            Err(e) => {
                metrics.offset_commit_failure.inc();
                error!(error = %e, "Could not store source offsets; will retry at the next flush.");
                self.unflushed = entries;
                Ok(())
            }
        }
    }
}

/// The fates of a batch's polled records: where each produced one was written (`positions`
/// and `topics` in the order of the produced records), `None` for the dropped ones.
pub(super) fn fates(
    polled: &PolledRecords,
    topics: &[String],
    positions: &[crate::topics::RecordPosition],
) -> Vec<RecordCommit> {
    let mut produced = topics.iter().zip(positions);
    (polled.first..)
        .zip(&polled.kept)
        .map(|(n, &kept)| {
            let written = kept.then(|| produced.next()).flatten();
            let metadata = written.map(|(topic, at)| RecordMetadata {
                topic: topic.clone(),
                partition: at.partition,
                offset: at.offset,
                timestamp: at.timestamp,
            });
            (n, metadata)
        })
        .collect()
}

impl CommitStrategy for AtLeastOnce {
    async fn prepare(&mut self, _cx: LoopContext<'_>) -> Result<bool, TaskError> {
        Ok(true)
    }

    fn log_started(&self) {
        info!("Source task started.");
    }

    fn commit_interval(&self) -> Option<Duration> {
        Some(self.settings.offset_flush_interval)
    }

    fn commit_interrupts_poll(&self) -> bool {
        false
    }

    async fn before_poll(&mut self, mut cx: LoopContext<'_>) -> Result<ControlFlow<()>, TaskError> {
        self.take_acks(false).await?;
        while self.held_back() {
            tokio::select! {
                _ = cx.cancel.cancelled() => return Ok(ControlFlow::Break(())),
                r = self.take_acks(true) => r?,
            }
        }
        self.tell_record_commits(&mut cx).await;
        Ok(ControlFlow::Continue(()))
    }

    async fn settled(&mut self, mut cx: LoopContext<'_>) -> Result<bool, TaskError> {
        self.take_acks(false).await?;
        self.tell_record_commits(&mut cx).await;
        Ok(self.submitted.in_flight() == 0)
    }

    async fn dispatch(&mut self, cx: LoopContext<'_>, batch: Dispatch) -> Result<(), TaskError> {
        let Dispatch {
            records,
            offsets,
            count,
            bytes,
            record_commits,
        } = batch;
        let journaled = self.producer.commits_source_offsets();
        if records.is_empty() {
            // Every record was dropped or skipped: none will ever be written.
            if let Some(polled) = &record_commits {
                self.record_commits
                    .extend((polled.first..).take(polled.kept.len()).map(|n| (n, None)));
            }
        }
        if records.is_empty() && journaled {
            let commit = Self::source_offsets(cx.connector, &offsets);
            if !commit.offsets.is_empty() {
                // Every record was dropped or skipped: their offsets are committed alone.
                let delivery = self
                    .producer
                    .send_batch_with_offsets(Vec::new(), commit)
                    .await?;
                // Submitted once sent: a send that failed leaves no batch to wait for.
                let id = self.submitted.submit(offsets);
                let tx = self.ack_tx.clone();
                tokio::spawn(async move {
                    let _ = tx.send((id, 0, delivery.await, Vec::new()));
                });
            }
            return Ok(());
        }
        if records.is_empty() {
            // Every record was dropped or skipped: their offsets are committable at once.
            if !offsets.is_empty() {
                let id = self.submitted.submit(offsets);
                self.submitted.ack(id);
            }
            return Ok(());
        }
        let commit = journaled.then(|| Self::source_offsets(cx.connector, &offsets));
        self.sent += count;
        self.report_uncommitted(cx.activity);
        let sent_at = std::time::Instant::now();
        if let Some(polled) = record_commits {
            let topics: Vec<String> = records.iter().map(|r| r.topic.clone()).collect();
            let delivery = self.producer.send_batch_positioned(records, commit).await?;
            let id = self.submitted.submit(offsets);
            let tx = self.ack_tx.clone();
            let activity = cx.activity.clone();
            tokio::spawn(async move {
                let written = delivery.await;
                activity
                    .metrics
                    .source
                    .produce_time
                    .observe(sent_at.elapsed().as_secs_f64());
                let (acked, commits) = match written {
                    Ok(positions) => {
                        activity.throughput.add("produced", count, bytes);
                        (Ok(()), fates(&polled, &topics, &positions))
                    }
                    Err(e) => (Err(e), Vec::new()),
                };
                let _ = tx.send((id, count, acked, commits));
            });
            return Ok(());
        }
        let delivery = match commit {
            Some(commit) => {
                self.producer
                    .send_batch_with_offsets(records, commit)
                    .await?
            }
            None => self.producer.send_batch(records).await?,
        };
        let id = self.submitted.submit(offsets);
        let tx = self.ack_tx.clone();
        let activity = cx.activity.clone();
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
            let _ = tx.send((id, count, acked, Vec::new()));
        });
        Ok(())
    }

    async fn commit(&mut self, cx: LoopContext<'_>) -> Result<(), TaskError> {
        self.flush(cx).await
    }

    /// Whatever happened, commits what was acknowledged.
    async fn finish(
        &mut self,
        cx: LoopContext<'_>,
        result: Result<(), TaskError>,
    ) -> Result<(), TaskError> {
        let drained = self.drain().await;
        let mut cx = cx;
        self.tell_record_commits(&mut cx).await;
        let flushed = self.flush(cx).await;
        result.and(drained).and(flushed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::offsets_file::FileOffsetStore;
    use crate::topics::{Delivery, ProducerRecord};
    use futures::future::BoxFuture;

    /// A producer with the default batch limit (8); never asked to send here.
    struct Unused;
    impl TopicProducer for Unused {
        fn send_batch(
            &self,
            _: Vec<ProducerRecord>,
        ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
            Box::pin(async { Err(TopicError::Other("unused".into())) })
        }
    }

    /// `batches` batches of `records_each` records sent and not acknowledged.
    fn in_flight(batches: usize, records_each: u64) -> AtLeastOnce {
        let dir = tempfile::tempdir().unwrap();
        let offsets = FileOffsetStore::open(&dir.path().join("offsets")).unwrap();
        let mut s = AtLeastOnce::new(
            Arc::new(Unused),
            Arc::new(offsets),
            WorkerSettings::default(),
        );
        let partition = Arc::new(connect_api::OffsetMap::new());
        for _ in 0..batches {
            s.submitted.submit([(partition.clone(), None)]);
            s.sent += records_each;
        }
        s
    }

    #[test]
    fn small_batches_are_not_held_back_by_the_producers_batch_limit() {
        // Kafka's limit is 8 batches: one record per poll must not wait for the broker every
        // 8 records.
        assert!(!in_flight(8, 1).held_back());
        assert!(!in_flight(500, 1).held_back());
        // Large batches still are, once enough records are in flight.
        assert!(in_flight(8, 2_000).held_back());
        assert!(!in_flight(7, 2_000).held_back());
        // And the number of batches is bounded whatever their size.
        assert!(in_flight(MAX_BATCHES_IN_FLIGHT, 0).held_back());
    }
}
