//! The transactional commit strategy (KIP-618, Kafka Connect's
//! `ExactlyOnceWorkerSourceTask`): records are produced inside a transaction; at the
//! transaction boundary the transaction's source offsets are written to the offsets topic with
//! the same producer and it is committed. Records and offsets become visible to
//! `read_committed` readers together or not at all, so a task that dies mid-transaction leaves
//! nothing behind, and its next generation resumes from exactly the offsets of the records
//! that were committed.
//!
//! Before the task starts, the leader fences the connector's previous task generation (every
//! transactional id it had, see [`zombie_fencing`](crate::worker::zombie_fencing)), then
//! `init_transactions` fences every older producer with the task's own transactional id (its
//! open transaction is aborted), the task checks that its task configurations are still the
//! current ones and it is still assigned here, then the offsets topic is read to its end, so
//! the task starts from the last committed offsets.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use tracing::{debug, info, warn};

use connect_api::RecordCommit;

use super::at_least_once::fates;
use super::{CommitStrategy, Dispatch, LoopContext, PolledRecords};
use crate::storage::{OffsetEntry, TransactionalOffsets};
use crate::topics::{Delivery, PositionedDelivery, TopicError, TransactionalProducer};
use crate::worker::activity::Uncommitted;
use crate::worker::error::TaskError;
use crate::worker::exactly_once::TransactionBoundary;
use crate::worker::record_offset::{into_entry, same_partition, RecordOffset};
use crate::worker::zombie_fencing::TaskFencing;

/// A transactional producer per task, offsets written inside its transactions.
pub struct Transactional {
    /// The task's transactional producer (`<group.id>-<connector>-<task>`).
    producer: Arc<dyn TransactionalProducer>,
    /// The offsets topic, written inside the transactions.
    offsets: Arc<dyn TransactionalOffsets>,
    /// When transactions are committed.
    boundary: TransactionBoundary,
    /// The herder's zombie fencing, with the task configuration generation the task was
    /// started with (`None`: no herder fences, e.g. in unit tests).
    fencing: Option<(Arc<dyn TaskFencing>, u32)>,
    /// The open transaction.
    txn: Transaction,
}

/// Records sent for a task that wants each record's fate (`SourceTask::commit_records`): the
/// delivery that says where they went, the polled records and the produced ones' topics.
type Positioned = (PositionedDelivery, PolledRecords, Vec<String>);

/// The open transaction.
#[derive(Default)]
struct Transaction {
    /// Whether `begin` was called and neither commit nor abort since.
    open: bool,
    /// The latest offset of each source partition polled in it.
    offsets: Vec<RecordOffset>,
    /// Deliveries of its records (resolved once it commits).
    deliveries: Vec<Delivery>,
    /// Deliveries of the records of a task that wants their fates.
    positioned: Vec<Positioned>,
    /// Fates known already (records dropped or skipped), told once it commits.
    fates: Vec<RecordCommit>,
    /// Records sent in it.
    records: u64,
    /// Bytes of those records.
    bytes: u64,
}

impl Transaction {
    /// Keeps `entry` as its partition's latest offset.
    fn add_offset(&mut self, entry: RecordOffset) {
        match self
            .offsets
            .iter_mut()
            .find(|(p, _)| same_partition(p, &entry.0))
        {
            Some(slot) => *slot = entry,
            None => self.offsets.push(entry),
        }
    }

    fn is_empty(&self) -> bool {
        self.offsets.is_empty() && self.records == 0
    }

    /// The offsets to store: one map per source partition.
    fn entries(&self) -> Vec<OffsetEntry> {
        self.offsets.iter().cloned().map(into_entry).collect()
    }
}

impl Transactional {
    /// Produces with `producer` and writes offsets to `offsets` inside its transactions,
    /// committed at `boundary`; `fencing` is asked before the task starts.
    pub fn new(
        producer: Arc<dyn TransactionalProducer>,
        offsets: Arc<dyn TransactionalOffsets>,
        boundary: TransactionBoundary,
        fencing: Option<(Arc<dyn TaskFencing>, u32)>,
    ) -> Self {
        Self {
            producer,
            offsets,
            boundary,
            fencing,
            txn: Transaction::default(),
        }
    }

    fn begin(&mut self) -> Result<(), TopicError> {
        if !self.txn.open {
            self.producer.begin()?;
            self.txn.open = true;
        }
        Ok(())
    }

    async fn write_and_commit(&mut self, connector: &str) -> Result<(), TaskError> {
        let records = self
            .offsets
            .offset_records(connector, &self.txn.entries())?;
        self.begin()?;
        if !records.is_empty() {
            self.txn
                .deliveries
                .push(self.producer.send_batch(records).await?);
        }
        self.producer.commit().await?;
        self.txn.open = false;
        for delivery in std::mem::take(&mut self.txn.deliveries) {
            delivery.await?;
        }
        for (delivery, polled, topics) in std::mem::take(&mut self.txn.positioned) {
            let positions = delivery.await?;
            self.txn.fates.extend(fates(&polled, &topics, &positions));
        }
        Ok(())
    }

    /// Aborts the open transaction, if any (best effort: a fenced or dead producer's
    /// transaction is aborted by the broker).
    async fn abort(&mut self) {
        if self.txn.open {
            if let Err(e) = self.producer.abort().await {
                warn!(error = %e, "Could not abort the transaction; the broker aborts it when it times out or the task's next generation starts.");
            }
        }
        self.txn = Transaction::default();
    }
}

impl CommitStrategy for Transactional {
    /// Fences the task's previous generation, claims the transactional id, verifies the
    /// task's generation and reads the committed offsets.
    async fn prepare(&mut self, cx: LoopContext<'_>) -> Result<bool, TaskError> {
        let cancel = cx.cancel;
        // The herder may be stopping this task while it waits for the herder's answers: a
        // stop ends the wait (and the task, before it claims its id or runs).
        if let Some((fencing, _)) = &self.fencing {
            tokio::select! {
                () = cancel.cancelled() => return Ok(false),
                fenced = fencing.fence_zombies(cx.connector) => fenced
                    .map_err(|source| TaskError::Fencing {
                        stage: "Zombie fencing",
                        retriable: true,
                        source,
                    })?,
            }
        }
        if cancel.is_cancelled() {
            // Do not claim the id when stopped meanwhile (that could fence a newer generation).
            return Ok(false);
        }
        self.producer.init().await?;
        if let Some((fencing, generation)) = &self.fencing {
            tokio::select! {
                () = cancel.cancelled() => return Ok(false),
                verified = fencing.verify_generation(cx.connector, cx.task_id, *generation) => verified
                    .map_err(|source| TaskError::Fencing {
                        stage: "Exactly-once task start",
                        retriable: false,
                        source,
                    })?,
            }
        }
        self.offsets.read_to_end().await?;
        Ok(true)
    }

    fn log_started(&self) {
        info!(boundary = ?self.boundary, "Exactly-once source task started.");
    }

    fn commit_interval(&self) -> Option<Duration> {
        match self.boundary {
            TransactionBoundary::Interval(d) => Some(d),
            _ => None,
        }
    }

    fn commit_interrupts_poll(&self) -> bool {
        true
    }

    async fn before_poll(&mut self, _cx: LoopContext<'_>) -> Result<ControlFlow<()>, TaskError> {
        Ok(ControlFlow::Continue(()))
    }

    async fn settled(&mut self, _cx: LoopContext<'_>) -> Result<bool, TaskError> {
        Ok(self.txn.is_empty())
    }

    async fn dispatch(&mut self, cx: LoopContext<'_>, batch: Dispatch) -> Result<(), TaskError> {
        // A record dropped by a transform, or skipped after an error, still advances its
        // source offset.
        for offset in batch.offsets {
            self.txn.add_offset(offset);
        }
        if batch.records.is_empty() {
            if let Some(polled) = &batch.record_commits {
                self.txn
                    .fates
                    .extend((polled.first..).take(polled.kept.len()).map(|n| (n, None)));
            }
        } else {
            self.begin()?;
            self.txn.records += batch.count;
            self.txn.bytes += batch.bytes;
            match batch.record_commits {
                Some(polled) => {
                    let topics = batch.records.iter().map(|r| r.topic.clone()).collect();
                    let delivery = self
                        .producer
                        .send_batch_positioned(batch.records, None)
                        .await?;
                    self.txn.positioned.push((delivery, polled, topics));
                }
                None => self
                    .txn
                    .deliveries
                    .push(self.producer.send_batch(batch.records).await?),
            }
            cx.activity
                .set_uncommitted(Uncommitted::Source(self.txn.records));
        }
        if self.boundary == TransactionBoundary::Poll {
            self.commit(cx).await?;
        }
        Ok(())
    }

    /// Writes the transaction's offsets with its producer and commits it; then the offsets
    /// count as stored and the task is told. A failed commit aborts the transaction and fails
    /// the task (retriable unless the producer was fenced): its next generation resumes from
    /// the last committed offsets.
    async fn commit(&mut self, mut cx: LoopContext<'_>) -> Result<(), TaskError> {
        if self.txn.is_empty() {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let outcome = self.write_and_commit(cx.connector).await;
        let metrics = &cx.activity.metrics;
        metrics
            .offset_commit_time
            .observe(started.elapsed().as_secs_f64());
        match outcome {
            Ok(()) => {
                metrics.offset_commit_success.inc();
                let offsets = self.txn.entries();
                debug!(
                    partitions = offsets.len(),
                    records = self.txn.records,
                    "Committed a transaction with its source offsets."
                );
                self.offsets.committed(cx.connector, offsets);
                // Written once committed: an aborted transaction's records are never read.
                cx.activity
                    .throughput
                    .add("produced", self.txn.records, self.txn.bytes);
                let committed = std::mem::take(&mut self.txn.fates);
                self.txn = Transaction::default();
                if !committed.is_empty() {
                    if let Err(e) = cx.task.commit_records(committed).await {
                        warn!(error = %e, "Source task commitRecord failed.");
                    }
                }
                cx.activity.set_uncommitted(Uncommitted::Source(0));
                cx.notify_committed().await;
                Ok(())
            }
            Err(e) => {
                metrics.offset_commit_failure.inc();
                self.abort().await;
                Err(e)
            }
        }
    }

    /// Commits the open transaction, or aborts it after a failure.
    async fn finish(
        &mut self,
        cx: LoopContext<'_>,
        result: Result<(), TaskError>,
    ) -> Result<(), TaskError> {
        match result {
            Ok(()) => self.commit(cx).await,
            Err(e) => {
                self.abort().await;
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::OffsetMap;

    fn map(json: &str) -> OffsetMap {
        match serde_json::from_str(json).unwrap() {
            serde_json::Value::Object(m) => m,
            other => panic!("{other}"),
        }
    }

    #[test]
    fn a_transaction_keeps_the_latest_offset_of_each_partition() {
        let mut txn = Transaction::default();
        let a = Arc::new(map(r#"{"f":"a"}"#));
        let b = Arc::new(map(r#"{"f":"b"}"#));
        txn.add_offset((a.clone(), Some(map(r#"{"pos":1}"#).into())));
        txn.add_offset((b.clone(), Some(map(r#"{"pos":5}"#).into())));
        let a_again = Arc::new(map(r#"{"f":"a"}"#));
        txn.add_offset((a_again, Some(map(r#"{"pos":2}"#).into())));
        let entries = txn.entries();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].1, Some(map(r#"{"pos":2}"#)));
        assert_eq!(entries[1].1, Some(map(r#"{"pos":5}"#)));
        assert!(!txn.is_empty());
    }
}
