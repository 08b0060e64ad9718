//! What a sink task asks of the consumer that feeds it (Kafka Connect's
//! `SinkTaskContext.offset`, `pause` and `resume`): the task records its requests, the runtime
//! applies them before it reads again.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::connector::TopicPartition;

/// A sink task's pending requests to its consumer; shared by the task and the runtime.
#[derive(Clone, Debug, Default)]
pub struct ConsumerRequests(Arc<Mutex<PendingConsumerRequests>>);

/// The requests made since the runtime last took them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PendingConsumerRequests {
    /// Partitions to read next from the given offset (the latest request of each wins).
    pub rewinds: BTreeMap<TopicPartition, i64>,
    /// Partitions to pause (`true`) or resume (`false`), the latest request of each.
    pub paused: BTreeMap<TopicPartition, bool>,
}

impl PendingConsumerRequests {
    /// Whether nothing was requested.
    pub fn is_empty(&self) -> bool {
        self.rewinds.is_empty() && self.paused.is_empty()
    }
}

impl ConsumerRequests {
    /// Asks that `tp` be read next from `offset` (Kafka Connect's `SinkTaskContext.offset`).
    pub fn rewind(&self, tp: TopicPartition, offset: i64) {
        self.lock().rewinds.insert(tp, offset);
    }

    /// Asks that no more records of `partitions` be delivered until they are resumed.
    pub fn pause(&self, partitions: impl IntoIterator<Item = TopicPartition>) {
        let mut pending = self.lock();
        for tp in partitions {
            pending.paused.insert(tp, true);
        }
    }

    /// Asks that records of paused `partitions` be delivered again.
    pub fn resume(&self, partitions: impl IntoIterator<Item = TopicPartition>) {
        let mut pending = self.lock();
        for tp in partitions {
            pending.paused.insert(tp, false);
        }
    }

    /// The requests made since the last call; clears them.
    pub fn take(&self) -> PendingConsumerRequests {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> MutexGuard<'_, PendingConsumerRequests> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(p: i32) -> TopicPartition {
        TopicPartition {
            topic: "t".into(),
            partition: p,
        }
    }

    #[test]
    fn the_latest_request_per_partition_wins_and_taking_clears() {
        let r = ConsumerRequests::default();
        r.rewind(tp(0), 5);
        r.rewind(tp(0), 2);
        r.pause([tp(0), tp(1)]);
        r.resume([tp(1)]);
        let taken = r.take();
        assert_eq!(taken.rewinds, BTreeMap::from([(tp(0), 2)]));
        assert_eq!(
            taken.paused,
            BTreeMap::from([(tp(0), true), (tp(1), false)])
        );
        assert!(r.take().is_empty());
    }
}
