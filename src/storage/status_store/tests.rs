//! The memory status store: own writes visible at once, `put_safe`'s rule, topics.

use super::*;
use crate::storage::internal::ComponentState;

fn status(state: ComponentState, worker: &str, generation: i32) -> Status {
    Status {
        state,
        trace: None,
        worker_id: worker.to_owned(),
        generation,
        version: None,
    }
}

fn connector(name: &str, status: Option<Status>) -> StatusRecord {
    StatusRecord::Connector {
        connector: name.to_owned(),
        status,
    }
}

#[tokio::test]
async fn writes_are_visible_at_once_and_tombstones_remove() {
    let store = MemoryStatusStore::new();
    store
        .put(connector(
            "c",
            Some(status(ComponentState::Running, "a:1", 1)),
        ))
        .await;
    store
        .put(StatusRecord::Task {
            connector: "c".to_owned(),
            task: 0,
            status: Some(status(ComponentState::Failed, "a:1", 1)),
        })
        .await;
    assert_eq!(store.connectors(), vec!["c".to_owned()]);
    assert_eq!(
        store.connector("c").map(|s| s.state),
        Some(ComponentState::Running)
    );
    assert_eq!(
        store.tasks("c"),
        vec![(0, status(ComponentState::Failed, "a:1", 1))]
    );
    store.put(connector("c", None)).await;
    assert_eq!(store.connector("c"), None);
}

#[tokio::test]
async fn put_safe_keeps_a_newer_status_of_another_worker() {
    let store = MemoryStatusStore::new();
    store
        .put(connector(
            "c",
            Some(status(ComponentState::Running, "b:1", 5)),
        ))
        .await;
    // An older generation of another worker does not overwrite it.
    let older = connector("c", Some(status(ComponentState::Unassigned, "a:1", 4)));
    assert!(!store.put_safe(older).await);
    assert_eq!(
        store.connector("c").map(|s| s.worker_id),
        Some("b:1".to_owned())
    );
    // The same worker may.
    let same = connector("c", Some(status(ComponentState::Unassigned, "b:1", 4)));
    assert!(store.put_safe(same).await);
    assert_eq!(
        store.connector("c").map(|s| s.state),
        Some(ComponentState::Unassigned)
    );
}

#[tokio::test]
async fn topics_are_recorded_per_connector() {
    let store = MemoryStatusStore::new();
    let used = TopicStatus {
        topic: "t".to_owned(),
        connector: "c".to_owned(),
        task: 0,
        discover_timestamp: 7,
    };
    store
        .put(StatusRecord::Topic {
            topic: "t".to_owned(),
            connector: "c".to_owned(),
            status: Some(used.clone()),
        })
        .await;
    assert!(store.has_topic("c", "t"));
    assert!(!store.has_topic("c", "u"));
    assert_eq!(store.topics("c"), vec![used]);
}
