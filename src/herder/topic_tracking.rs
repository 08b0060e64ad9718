//! Topic tracking (KIP-558) over a [`StatusStore`], as Kafka Connect keeps it in its status
//! backing store: the first time a task uses a topic, `status-topic-<topic>:connector-<c>` is
//! recorded (in memory on a standalone worker, in the status topic in a cluster);
//! `GET /connectors/{c}/topics` answers from the records, `PUT .../topics/reset` and the
//! deletion of a connector write their tombstones.

use tracing::debug;

use crate::storage::internal::{StatusRecord, TopicStatus};
use crate::storage::StatusStore;
use crate::worker::UsedTopics;

/// Now, in epoch milliseconds.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Records the topics in `used` (by connector, with the lowest id of a task that used each)
/// that have no record yet (Kafka Connect's `WorkerTask.recordActiveTopic`), for the
/// connectors `known` accepts (not one deleted meanwhile).
pub(crate) async fn record_used(
    statuses: &dyn StatusStore,
    used: std::collections::BTreeMap<String, UsedTopics>,
    known: impl Fn(&str) -> bool,
) {
    let now = now_ms();
    for (connector, topics) in used {
        if !known(&connector) {
            continue;
        }
        for (topic, task) in topics {
            if statuses.has_topic(&connector, &topic) {
                continue;
            }
            debug!(connector = %connector, topic = %topic, task, "Recording an active topic.");
            let status = TopicStatus {
                topic: topic.clone(),
                connector: connector.clone(),
                task: i32::try_from(task).unwrap_or(i32::MAX),
                discover_timestamp: now,
            };
            statuses
                .put(StatusRecord::Topic {
                    topic,
                    connector: connector.clone(),
                    status: Some(status),
                })
                .await;
        }
    }
}

/// Writes a tombstone for every topic connector `name` has a record of (Kafka Connect's
/// `resetConnectorActiveTopics`).
pub(crate) async fn reset(statuses: &dyn StatusStore, name: &str) {
    for status in statuses.topics(name) {
        debug!(connector = %name, topic = %status.topic, "Resetting an active topic.");
        statuses
            .put(StatusRecord::Topic {
                topic: status.topic,
                connector: name.to_owned(),
                status: None,
            })
            .await;
    }
}

/// The topics connector `name` has a record of, by name.
pub(crate) fn recorded(statuses: &dyn StatusStore, name: &str) -> Vec<String> {
    statuses.topics(name).into_iter().map(|t| t.topic).collect()
}
