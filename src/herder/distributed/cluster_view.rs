//! What this worker tells the group: the config topic offset it has read and, when it leads,
//! the connectors and task counts to assign ([`connect_membership::ClusterView`]). The herder
//! publishes a new snapshot after every change read from the config topic.

use std::collections::BTreeMap;
use std::time::Duration;

use connect_membership::assignor::ConfigSnapshot;
use connect_membership::ClusterView;
use tokio::sync::watch;

use crate::storage::internal::ConfigState;

/// How long the leader waits for its config reader to catch up with the most advanced member
/// before assigning from what it has (the assignor then answers CONFIG_MISMATCH and everyone
/// rejoins).
const CATCH_UP: Duration = Duration::from_secs(5);

/// The snapshot of the config topic this worker has read.
pub fn snapshot_of(state: &ConfigState) -> ConfigSnapshot {
    let connectors: BTreeMap<String, u32> = state
        .connectors()
        .into_iter()
        .map(|name| {
            let tasks = if state.inconsistent().contains(&name) {
                0
            } else {
                u32::try_from(state.tasks(&name).len()).unwrap_or(u32::MAX)
            };
            (name, tasks)
        })
        .collect();
    ConfigSnapshot {
        offset: state.offset(),
        connectors,
    }
}

/// The herder's side of the view: it publishes snapshots; the group member reads them.
#[derive(Debug)]
pub struct SharedView {
    snapshots: watch::Sender<ConfigSnapshot>,
}

impl SharedView {
    /// A view starting at `snapshot`.
    pub fn new(snapshot: ConfigSnapshot) -> Self {
        Self {
            snapshots: watch::Sender::new(snapshot),
        }
    }

    /// Publishes a new snapshot; returns whether its work items differ from the last one
    /// (connectors or task counts changed: the group must rebalance).
    pub fn publish(&self, snapshot: ConfigSnapshot) -> bool {
        let mut changed = false;
        self.snapshots.send_modify(|current| {
            changed = current.connectors != snapshot.connectors;
            *current = snapshot;
        });
        changed
    }
}

impl SharedView {
    /// Publishes `snapshot` when only its offset moved (records that change no work item, such
    /// as a task count record; the group must still see the offset, or a leader waits for it
    /// and answers CONFIG_MISMATCH forever). A snapshot with other work items is left to
    /// [`SharedView::publish`], whose answer decides the rebalance. Returns whether it published.
    pub fn publish_offset(&self, snapshot: ConfigSnapshot) -> bool {
        self.snapshots.send_if_modified(|current| {
            let moved =
                current.connectors == snapshot.connectors && current.offset != snapshot.offset;
            if moved {
                *current = snapshot;
            }
            moved
        })
    }
}

#[async_trait::async_trait]
impl ClusterView for SharedView {
    fn config_offset(&self) -> i64 {
        self.snapshots.borrow().offset
    }

    async fn snapshot(&self, max_member_offset: i64) -> ConfigSnapshot {
        let mut rx = self.snapshots.subscribe();
        let _ =
            tokio::time::timeout(CATCH_UP, rx.wait_for(|s| s.offset >= max_member_offset)).await;
        let snapshot = rx.borrow().clone();
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(offset: i64, connectors: &[(&str, u32)]) -> ConfigSnapshot {
        ConfigSnapshot {
            offset,
            connectors: connectors
                .iter()
                .map(|(n, t)| ((*n).to_owned(), *t))
                .collect(),
        }
    }

    #[tokio::test]
    async fn the_leader_waits_for_its_reader_to_reach_the_members_offset() {
        let view = std::sync::Arc::new(SharedView::new(snapshot(3, &[("a", 1)])));
        let waiting = {
            let view = view.clone();
            tokio::spawn(async move { view.snapshot(5).await })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        assert!(!view.publish(snapshot(5, &[("a", 1)])));
        let got = waiting.await.unwrap();
        assert_eq!(got.offset, 5);
        assert_eq!(view.config_offset(), 5);
    }

    #[tokio::test]
    async fn an_offset_moved_by_records_that_change_no_work_item_is_published() {
        let view = std::sync::Arc::new(SharedView::new(snapshot(7, &[("a", 1)])));
        let waiting = {
            let view = view.clone();
            tokio::spawn(async move { view.snapshot(8).await })
        };
        assert!(view.publish_offset(snapshot(8, &[("a", 1)])));
        assert_eq!(waiting.await.unwrap().offset, 8, "the leader caught up");
        assert!(
            !view.publish_offset(snapshot(8, &[("a", 1)])),
            "nothing moved"
        );
        assert!(
            !view.publish_offset(snapshot(9, &[("a", 1), ("b", 0)])),
            "new work items are left to publish"
        );
        assert_eq!(view.config_offset(), 8);
        assert!(view.publish(snapshot(9, &[("a", 1), ("b", 0)])));
    }

    #[test]
    fn a_new_connector_or_task_count_asks_for_a_rebalance() {
        let view = SharedView::new(snapshot(1, &[("a", 1)]));
        assert!(view.publish(snapshot(2, &[("a", 1), ("b", 0)])));
        assert!(view.publish(snapshot(3, &[("a", 1), ("b", 2)])));
        assert!(!view.publish(snapshot(4, &[("a", 1), ("b", 2)])));
    }
}
