//! What a worker with `exactly.once.source.support=enabled` gives its source tasks (KIP-618):
//! the group id that names their transactional producers, the offsets store their transactions
//! write to, and each connector's `transaction.boundary`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::zombie_fencing::TaskFencing;
use crate::storage::TransactionalOffsets;

/// When a source task commits its transaction (`transaction.boundary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TransactionBoundary {
    /// After every non-empty batch returned by `poll` (the default).
    #[default]
    Poll,
    /// Every `transaction.boundary.interval.ms` (default: the worker's
    /// `offset.flush.interval.ms`).
    Interval(Duration),
    /// Defined by the connector (refused by the preflight check: no connect-rs connector can).
    Connector,
}

impl TransactionBoundary {
    /// The boundary named by `transaction.boundary` (`poll`, `interval`, `connector`; anything
    /// else is refused by the key's validator before), with `interval` for `interval`.
    pub fn from_config(name: &str, interval: Duration) -> Self {
        if name.eq_ignore_ascii_case("interval") {
            Self::Interval(interval)
        } else if name.eq_ignore_ascii_case("connector") {
            Self::Connector
        } else {
            Self::Poll
        }
    }
}

/// The worker's part of exactly-once source tasks.
#[derive(Clone)]
pub struct ExactlyOnceSources {
    /// The worker's `group.id`: task producers are `<group.id>-<connector>-<task>`.
    pub group_id: String,
    /// The offsets topic, written inside each task's transactions.
    pub offsets: Arc<dyn TransactionalOffsets>,
    /// The herder's zombie fencing, once the herder is up (set once; a distributed worker sets
    /// it before any task starts).
    pub fencing: OnceLock<Arc<dyn TaskFencing>>,
}

impl std::fmt::Debug for ExactlyOnceSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExactlyOnceSources")
            .field("group_id", &self.group_id)
            .finish_non_exhaustive()
    }
}

impl ExactlyOnceSources {
    /// The `transactional.id` of task `task` of `connector` (Kafka Connect's
    /// `Worker.taskTransactionalId`).
    pub fn transactional_id(&self, connector: &str, task: u32) -> String {
        transactional_id(&self.group_id, connector, task)
    }

    /// The herder's zombie fencing, when one was set.
    pub fn fencing(&self) -> Option<Arc<dyn TaskFencing>> {
        self.fencing.get().cloned()
    }
}

/// `<group.id>-<connector>-<task>`.
pub fn transactional_id(group_id: &str, connector: &str, task: u32) -> String {
    format!("{group_id}-{connector}-{task}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_boundaries_follow_kafka_connect() {
        assert_eq!(
            transactional_id("connect-cluster", "src", 2),
            "connect-cluster-src-2"
        );
        let d = Duration::from_secs(7);
        assert_eq!(
            TransactionBoundary::from_config("poll", d),
            TransactionBoundary::Poll
        );
        assert_eq!(
            TransactionBoundary::from_config("INTERVAL", d),
            TransactionBoundary::Interval(d)
        );
        assert_eq!(
            TransactionBoundary::from_config("connector", d),
            TransactionBoundary::Connector
        );
    }
}
