//! ExactlyOnceWorkerSourceTask (KIP-618): poll → convert → produce inside a transaction → at
//! the transaction boundary, write the batch's source offsets to the offsets topic with the
//! same producer and commit. Records and offsets become visible to `read_committed` readers
//! together or not at all, so a task that dies mid-transaction leaves nothing behind, and its
//! next generation resumes from exactly the offsets of the records that were committed.
//!
//! Before the task starts, the leader fences the connector's previous task generation (every
//! transactional id it had, see [`zombie_fencing`](super::zombie_fencing)), then
//! `init_transactions` fences every older producer with the task's own transactional id (its
//! open transaction is aborted), the task checks that its task configurations are still the
//! current ones and it is still assigned here, then the offsets topic is read to its end, so
//! the task starts from the last committed offsets.

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, ConnectError, SourceTask, SourceTaskContext};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::activity::{TaskActivity, Uncommitted};
use super::error::TaskError;
use super::exactly_once::TransactionBoundary;
use super::record_converters::RecordConverters;
use super::record_offset::{into_entry, same_partition, RecordOffset};
use super::record_pipeline::source_batch;
use super::throughput::record_bytes;
use super::tolerance::ErrorHandler;
use super::transform_chain::TransformationChain;
use super::zombie_fencing::TaskFencing;
use crate::storage::{OffsetEntry, TransactionalOffsets};
use crate::topics::{Delivery, TopicError, TransactionalProducer};

/// Pause after a retriable poll error.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// Everything one exactly-once source task needs to run.
pub struct ExactlyOnceSourceTaskRunner {
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
    /// The task's transactional producer (`<group.id>-<connector>-<task>`).
    pub producer: Arc<dyn TransactionalProducer>,
    /// The offsets topic, written inside the transactions.
    pub offsets: Arc<dyn TransactionalOffsets>,
    /// When transactions are committed.
    pub boundary: TransactionBoundary,
    /// Activity cell for the idle watcher.
    pub activity: Arc<TaskActivity>,
    /// Retries, tolerance, error reporters and counters.
    pub errors: ErrorHandler,
    /// The herder's zombie fencing, with the task configuration generation the task was
    /// started with (`None`: no herder fences, e.g. in unit tests).
    pub fencing: Option<(Arc<dyn TaskFencing>, u32)>,
}

/// The open transaction.
#[derive(Default)]
struct Transaction {
    /// Whether `begin` was called and neither commit nor abort since.
    open: bool,
    /// The latest offset of each source partition polled in it.
    offsets: Vec<RecordOffset>,
    /// Deliveries of its records (resolved once it commits).
    deliveries: Vec<Delivery>,
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

impl ExactlyOnceSourceTaskRunner {
    /// Fences the task's previous generation, reads the committed offsets, runs the task until
    /// `ctx.cancel` fires or it fails, commits the open transaction (or aborts it after a
    /// failure) and stops the task.
    ///
    /// # Errors
    /// The failure that stopped the task.
    pub async fn run(mut self) -> Result<(), TaskError> {
        let cancel = self.ctx.cancel.clone();
        // The herder may be stopping this task while it waits for the herder's answers: a
        // stop ends the wait (and the task, before it claims its id or runs).
        if let Some((fencing, _)) = &self.fencing {
            tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                fenced = fencing.fence_zombies(&self.connector) => fenced
                    .map_err(|e| TaskError::at("Zombie fencing")(ConnectError::Retriable(e)))?,
            }
        }
        if cancel.is_cancelled() {
            // Do not claim the id when stopped meanwhile (that could fence a newer generation).
            return Ok(());
        }
        self.producer.init().await?;
        if let Some((fencing, generation)) = &self.fencing {
            tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                verified = fencing.verify_generation(&self.connector, self.ctx.task, *generation) => verified
                    .map_err(|e| TaskError::at("Exactly-once task start")(ConnectError::Other(e)))?,
            }
        }
        self.offsets.read_to_end().await?;
        self.task
            .start(self.ctx.clone(), &self.config)
            .await
            .map_err(TaskError::at("Task start"))?;
        info!(boundary = ?self.boundary, "Exactly-once source task started.");
        let mut txn = Transaction::default();
        let result = self.poll_loop(&mut txn, &cancel).await;
        let ended = match result {
            Ok(()) => self.commit(&mut txn).await,
            Err(e) => {
                self.abort(&mut txn).await;
                Err(e)
            }
        };
        if let Err(e) = self.task.stop().await {
            warn!(error = %e, "Source task stop failed.");
        }
        ended
    }

    async fn poll_loop(
        &mut self,
        txn: &mut Transaction,
        cancel: &CancellationToken,
    ) -> Result<(), TaskError> {
        let interval = match self.boundary {
            TransactionBoundary::Interval(d) => Some(d),
            _ => None,
        };
        let mut commit_at = interval.map(|d| Instant::now() + d);
        loop {
            if let (Some(at), Some(d)) = (commit_at, interval) {
                if Instant::now() >= at {
                    self.commit(txn).await?;
                    commit_at = Some(Instant::now() + d);
                }
            }
            let poll_started = std::time::Instant::now();
            let polled = match commit_at {
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
                if txn.is_empty() {
                    self.activity.idle_since(poll_started);
                }
                self.activity.set_unavailable(self.task.input_unavailable());
                continue;
            }
            let (records, offsets) = source_batch(
                &self.activity,
                &mut self.errors,
                &self.converters,
                &mut self.transforms,
                batch,
                poll_started,
            )
            .await?;
            // A record dropped by a transform, or skipped after an error, still advances its
            // source offset.
            for offset in offsets {
                txn.add_offset(offset);
            }
            if !records.is_empty() {
                let bytes: u64 = records
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
                self.begin(txn)?;
                txn.records += count;
                txn.bytes += bytes;
                txn.deliveries
                    .push(self.producer.send_batch(records).await?);
                self.activity
                    .set_uncommitted(Uncommitted::Source(txn.records));
            }
            if self.boundary == TransactionBoundary::Poll {
                self.commit(txn).await?;
            }
        }
    }

    fn begin(&self, txn: &mut Transaction) -> Result<(), TopicError> {
        if !txn.open {
            self.producer.begin()?;
            txn.open = true;
        }
        Ok(())
    }

    /// Writes the transaction's offsets with its producer and commits it; then the offsets
    /// count as stored and the task is told. A failed commit aborts the transaction and fails
    /// the task (retriable unless the producer was fenced): its next generation resumes from
    /// the last committed offsets.
    async fn commit(&mut self, txn: &mut Transaction) -> Result<(), TaskError> {
        if txn.is_empty() {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let outcome = self.write_and_commit(txn).await;
        let metrics = &self.activity.metrics;
        metrics
            .offset_commit_time
            .observe(started.elapsed().as_secs_f64());
        match outcome {
            Ok(()) => {
                metrics.offset_commit_success.inc();
                let offsets = txn.entries();
                debug!(
                    partitions = offsets.len(),
                    records = txn.records,
                    "Committed a transaction with its source offsets."
                );
                self.offsets.committed(&self.connector, offsets);
                // Written once committed: an aborted transaction's records are never read.
                self.activity
                    .throughput
                    .add("produced", txn.records, txn.bytes);
                *txn = Transaction::default();
                self.activity.set_uncommitted(Uncommitted::Source(0));
                if let Err(e) = self.task.commit().await {
                    warn!(error = %e, "Source task commit callback failed.");
                }
                Ok(())
            }
            Err(e) => {
                metrics.offset_commit_failure.inc();
                self.abort(txn).await;
                Err(e)
            }
        }
    }

    async fn write_and_commit(&mut self, txn: &mut Transaction) -> Result<(), TaskError> {
        let records = self
            .offsets
            .offset_records(&self.connector, &txn.entries())?;
        self.begin(txn)?;
        if !records.is_empty() {
            txn.deliveries
                .push(self.producer.send_batch(records).await?);
        }
        self.producer.commit().await?;
        txn.open = false;
        for delivery in std::mem::take(&mut txn.deliveries) {
            delivery.await?;
        }
        Ok(())
    }

    /// Aborts the open transaction, if any (best effort: a fenced or dead producer's
    /// transaction is aborted by the broker).
    async fn abort(&mut self, txn: &mut Transaction) {
        if txn.open {
            if let Err(e) = self.producer.abort().await {
                warn!(error = %e, "Could not abort the transaction; the broker aborts it when it times out or the task's next generation starts.");
            }
        }
        *txn = Transaction::default();
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
