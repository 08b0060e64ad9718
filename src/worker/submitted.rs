//! SubmittedRecords: which source offsets may be committed. A source offset becomes committable
//! only when every record before it in its source partition was acknowledged by the topic
//! (DESIGN §4.1, Kafka Connect's `SubmittedRecords`).
//!
//! Records are tracked per submitted batch: a batch contributes, for each source partition it
//! touches, one entry holding the last offset of that partition in the batch. The topic
//! acknowledges whole batches, so this is exact and costs O(partitions) per batch, not O(records).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use connect_api::OffsetMap;

use super::record_offset::{into_entry, RecordOffset};
use crate::storage::OffsetEntry;

/// Identifies a submitted batch.
pub type BatchId = u64;

struct Entry {
    batch: BatchId,
    offset: Option<OffsetMap>,
    acked: bool,
    /// Records of the partition in the batch.
    records: u64,
}

struct PartitionQueue {
    partition: Arc<OffsetMap>,
    entries: VecDeque<Entry>,
    /// The offset of the last committable entry not yet handed out by `committable`.
    pending: Option<Option<OffsetMap>>,
    /// Records of the entries behind `pending`.
    pending_records: u64,
}

/// Per-partition queues of submitted batches.
#[derive(Default)]
pub struct SubmittedRecords {
    /// Canonical JSON of the partition → queue.
    queues: HashMap<String, PartitionQueue>,
    /// Batch → keys of the partitions it touched.
    batches: HashMap<BatchId, Vec<String>>,
    next_batch: BatchId,
    /// Records whose offsets `committable` handed out since `take_released_records`.
    released: u64,
}

impl SubmittedRecords {
    /// No submitted records.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers the (source partition, source offset) of each record of one batch, in
    /// submission order, and returns the batch's id. Only the last offset of each partition
    /// is kept (and becomes a map).
    pub fn submit(&mut self, records: impl IntoIterator<Item = RecordOffset>) -> BatchId {
        let batch = self.next_batch;
        self.next_batch += 1;
        // Last offset (and record count) per partition within the batch, in first-seen order.
        let mut last: Vec<(RecordOffset, u64)> = Vec::new();
        for (partition, offset) in records {
            match last
                .iter_mut()
                .find(|((p, _), _)| Arc::ptr_eq(p, &partition))
            {
                Some(slot) => {
                    slot.0 .1 = offset;
                    slot.1 += 1;
                }
                None => last.push(((partition, offset), 1)),
            }
        }
        // Arc-distinct partitions may still be equal maps: merge by canonical key.
        let mut keys = Vec::with_capacity(last.len());
        for (entry, records) in last {
            let (partition, offset) = into_entry(entry);
            let key = serde_json::to_string(&*partition).unwrap_or_default();
            let queue = self
                .queues
                .entry(key.clone())
                .or_insert_with(|| PartitionQueue {
                    partition,
                    entries: VecDeque::new(),
                    pending: None,
                    pending_records: 0,
                });
            match queue.entries.back_mut() {
                Some(e) if e.batch == batch => {
                    e.offset = offset;
                    e.records += records;
                }
                _ => queue.entries.push_back(Entry {
                    batch,
                    offset,
                    acked: false,
                    records,
                }),
            }
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        self.batches.insert(batch, keys);
        batch
    }

    /// Marks a batch as acknowledged by the topic.
    pub fn ack(&mut self, batch: BatchId) {
        let Some(keys) = self.batches.remove(&batch) else {
            return;
        };
        for key in keys {
            let Some(queue) = self.queues.get_mut(&key) else {
                continue;
            };
            if let Some(e) = queue.entries.iter_mut().find(|e| e.batch == batch) {
                e.acked = true;
            }
            while queue.entries.front().is_some_and(|e| e.acked) {
                if let Some(e) = queue.entries.pop_front() {
                    queue.pending = Some(e.offset);
                    queue.pending_records += e.records;
                }
            }
        }
    }

    /// Takes the offsets that became committable since the last call: per source partition,
    /// the offset of the last record of its acknowledged prefix.
    pub fn committable(&mut self) -> Vec<OffsetEntry> {
        let mut out = Vec::new();
        let mut released = 0;
        self.queues.retain(|_, queue| {
            released += std::mem::take(&mut queue.pending_records);
            if let Some(offset) = queue.pending.take() {
                // A source that does not track offsets (offset None) has nothing to commit.
                if offset.is_some() {
                    out.push((queue.partition.clone(), offset));
                }
            }
            !queue.entries.is_empty()
        });
        self.released += released;
        out
    }

    /// Takes the number of records whose offsets [`Self::committable`] handed out since the
    /// last call (with those of sources that track no offsets).
    pub fn take_released_records(&mut self) -> u64 {
        std::mem::take(&mut self.released)
    }

    /// Number of batches not yet acknowledged.
    pub fn in_flight(&self) -> usize {
        self.batches.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn record(partition: &Arc<OffsetMap>, position: i64) -> RecordOffset {
        (
            partition.clone(),
            json!({"position": position})
                .as_object()
                .cloned()
                .map(Into::into),
        )
    }

    fn partition(name: &str) -> Arc<OffsetMap> {
        Arc::new(json!({"filename": name}).as_object().cloned().unwrap())
    }

    fn position(entries: &[OffsetEntry], p: &str) -> Option<i64> {
        entries
            .iter()
            .find(|(part, _)| part["filename"] == p)
            .and_then(|(_, o)| o.as_ref()?["position"].as_i64())
    }

    #[test]
    fn a_later_ack_waits_for_an_earlier_batch() {
        let a = partition("a");
        let mut s = SubmittedRecords::new();
        let b1 = s.submit([record(&a, 1), record(&a, 2)]);
        let b2 = s.submit([record(&a, 3)]);
        s.ack(b2);
        assert!(s.committable().is_empty());
        assert_eq!(s.take_released_records(), 0);
        s.ack(b1);
        assert_eq!(position(&s.committable(), "a"), Some(3));
        assert_eq!(s.take_released_records(), 3, "both batches' records");
        assert!(s.committable().is_empty(), "offsets are handed out once");
        assert_eq!(s.take_released_records(), 0);
        assert_eq!(s.in_flight(), 0);
    }

    #[test]
    fn partitions_are_independent() {
        let (a, b) = (partition("a"), partition("b"));
        let mut s = SubmittedRecords::new();
        let b1 = s.submit([record(&a, 1), record(&b, 10)]);
        let b2 = s.submit([record(&b, 20)]);
        let b3 = s.submit([record(&a, 2)]);
        s.ack(b3);
        s.ack(b2);
        assert!(
            s.committable().is_empty(),
            "both partitions wait for batch 1"
        );
        s.ack(b1);
        let c = s.committable();
        assert_eq!(position(&c, "a"), Some(2));
        assert_eq!(position(&c, "b"), Some(20));
    }

    proptest! {
        /// Model test: whatever the ack order, a committed offset never passes an unacked record,
        /// and once everything is acked the last offset of each partition is committed.
        #[test]
        fn never_commits_past_an_unacked_record(
            batches in prop::collection::vec(prop::collection::vec(0usize..3, 1..5), 1..20),
            order in prop::collection::vec(any::<prop::sample::Index>(), 20),
        ) {
            let parts = [partition("p0"), partition("p1"), partition("p2")];
            let mut s = SubmittedRecords::new();
            let mut next = [0i64; 3];
            // (batch id, per-partition positions in it)
            let mut submitted = Vec::new();
            for b in &batches {
                let recs: Vec<_> = b.iter().map(|&p| { next[p] += 1; (p, next[p]) }).collect();
                let sr: Vec<_> = recs.iter().map(|&(p, pos)| record(&parts[p], pos)).collect();
                submitted.push((s.submit(sr), recs));
            }
            let mut pending: Vec<usize> = (0..submitted.len()).collect();
            let mut acked = vec![false; submitted.len()];
            let mut committed = [0i64; 3];
            for idx in order.iter().take(submitted.len()) {
                let i = pending.remove(idx.index(pending.len()));
                s.ack(submitted[i].0);
                acked[i] = true;
                for (part, offset) in s.committable() {
                    let p = parts.iter().position(|x| **x == *part).unwrap();
                    committed[p] = offset.unwrap()["position"].as_i64().unwrap();
                }
                // The smallest unacked position per partition bounds what may be committed.
                for (p, done) in committed.iter().enumerate() {
                    let first_unacked = submitted.iter().zip(&acked)
                        .filter(|(_, a)| !**a)
                        .flat_map(|((_, recs), _)| recs.iter().filter(|r| r.0 == p).map(|r| r.1))
                        .min();
                    if let Some(u) = first_unacked { prop_assert!(*done < u); }
                }
            }
            prop_assert_eq!(committed, next);
        }
    }
}
