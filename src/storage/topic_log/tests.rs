//! Topic logs and the topic offset store on the embedded log.

use std::sync::Arc;
use std::time::Duration;

use connect_api::OffsetMap;
use tokio::sync::mpsc;

use super::*;
use crate::storage::{OffsetStore, TopicOffsetStore};
use crate::topics::internal_topic::{InternalTopicBackend, NewTopicSpec};
use crate::topics::local::partitioner::partition_for_key;
use crate::topics::local::LocalLog;
use crate::topics::{ClientSpec, ProducerRecord, TopicBackend};

const WAIT: Duration = Duration::from_secs(10);

fn spec(kind: InternalTopicKind, name: &str, partitions: i32) -> InternalTopicSpec {
    InternalTopicSpec::new(kind, name, partitions, 3)
}

async fn recv(rx: &mut mpsc::UnboundedReceiver<LogRecord>) -> LogRecord {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("a record within the timeout")
        .expect("the log is running")
}

fn drain(rx: &mut mpsc::UnboundedReceiver<LogRecord>) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    while let Ok(r) = rx.try_recv() {
        out.push((r.key.unwrap_or_default(), r.value));
    }
    out
}

#[tokio::test]
async fn an_absent_topic_is_created_compacted_with_the_partitions_asked() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let (handler, _rx) = channel_handler();
    let topic = TopicLog::open(
        log.as_ref(),
        &spec(InternalTopicKind::Offsets, "connect-offsets", 25),
        "offsets",
        handler,
    )
    .await
    .unwrap();
    assert_eq!(topic.partition_count(), 25);
    let d = log
        .describe_topic("connect-offsets")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(d.partitions, 25);
    assert_eq!(d.cleanup_policy.as_deref(), Some("compact"));
    let recorded =
        std::fs::read_to_string(dir.path().join("__topics/connect-offsets.json")).unwrap();
    assert_eq!(recorded, r#"{"configs":{"cleanup.policy":"compact"}}"#);

    // The configs topic gets one partition whatever is asked, and extra configs are kept.
    let mut configs = spec(InternalTopicKind::Configs, "connect-configs", 25);
    configs
        .configs
        .insert("cleanup.policy".into(), "delete".into());
    configs
        .configs
        .insert("min.insync.replicas".into(), "2".into());
    ensure_internal_topic(log.as_ref(), &configs).await.unwrap();
    let d = log
        .describe_topic("connect-configs")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(d.partitions, 1);
    assert_eq!(
        d.cleanup_policy.as_deref(),
        Some("compact"),
        "compact is forced"
    );
    log.close().await;

    // Recorded durably: after reopening, the policy is still known.
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let d = log
        .describe_topic("connect-offsets")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (d.partitions, d.cleanup_policy.as_deref()),
        (25, Some("compact"))
    );
    ensure_internal_topic(
        log.as_ref(),
        &spec(InternalTopicKind::Offsets, "connect-offsets", 25),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn an_existing_topic_that_is_not_compacted_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 3).unwrap();
    // Created automatically by a producer: Kafka's default policy, delete.
    let producer = log.producer(&ClientSpec::default()).unwrap();
    let record = ProducerRecord {
        topic: "connect-status".into(),
        value: Some(b"x".to_vec()),
        ..ProducerRecord::default()
    };
    producer
        .send_batch(vec![record])
        .await
        .unwrap()
        .await
        .unwrap();
    let (handler, _rx) = channel_handler();
    let err = TopicLog::open(
        log.as_ref(),
        &spec(InternalTopicKind::Status, "connect-status", 5),
        "status",
        handler,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, TopicLogError::CleanupPolicy { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "Topic 'connect-status' supplied via the 'status.storage.topic' property is required to have 'cleanup.policy=compact' to guarantee consistency and durability of connector and task statuses, but found the topic currently has 'cleanup.policy=delete'. Continuing would likely result in eventually losing connector and task statuses and problems restarting this Connect cluster in the future. Change the 'status.storage.topic' property in the Connect worker configurations to use a topic with 'cleanup.policy=compact'."
    );

    // compact,delete is not compacted only either.
    let both = NewTopicSpec {
        name: "both".into(),
        partitions: 1,
        replication_factor: 1,
        configs: [("cleanup.policy".to_owned(), "Delete, compact".to_owned())].into(),
    };
    assert!(log.create_topic_if_absent(&both).await.unwrap());
    let err = ensure_internal_topic(log.as_ref(), &spec(InternalTopicKind::Offsets, "both", 1))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("'offset.storage.topic'")
            && err.to_string().contains("source connector offsets")
            && err
                .to_string()
                .contains("currently has 'cleanup.policy=compact,delete'"),
        "{err}"
    );
}

#[tokio::test]
async fn a_configs_topic_with_two_partitions_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let two = NewTopicSpec {
        name: "connect-configs".into(),
        partitions: 2,
        replication_factor: 1,
        configs: [("cleanup.policy".to_owned(), "compact".to_owned())].into(),
    };
    assert!(log.create_topic_if_absent(&two).await.unwrap());
    let err = ensure_internal_topic(
        log.as_ref(),
        &spec(InternalTopicKind::Configs, "connect-configs", 1),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Topic 'connect-configs' supplied via the 'config.storage.topic' property is required to have a single partition in order to guarantee consistency of connector configurations, but found 2 partitions."
    );
}

#[tokio::test]
async fn records_written_are_read_again_after_reopening_and_keys_pick_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec(InternalTopicKind::Status, "connect-status", 5);
    let sent: Vec<(Vec<u8>, Option<Vec<u8>>)> = (0..20)
        .map(|i| {
            let value = (i % 7 != 3).then(|| format!("v{i}").into_bytes());
            (format!("status-task-c-{i}").into_bytes(), value)
        })
        .collect();
    {
        let log = LocalLog::open(dir.path(), 1).unwrap();
        let (handler, mut rx) = channel_handler();
        let topic = TopicLog::open(log.as_ref(), &s, "status", handler)
            .await
            .unwrap();
        assert!(drain(&mut rx).is_empty());
        let mut acks = Vec::new();
        for (k, v) in &sent {
            acks.push(topic.send(k.clone(), v.clone()).await.unwrap());
        }
        for ack in acks {
            ack.await.unwrap();
        }
        topic.flush().await;
        topic.read_to_end().await.unwrap();
        assert_eq!(
            drain(&mut rx).len(),
            sent.len(),
            "its own records are read back"
        );
        topic.stop().await;
        assert!(matches!(
            topic.read_to_end().await,
            Err(TopicLogError::Stopped(_))
        ));
        log.close().await;
    }
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let (handler, mut rx) = channel_handler();
    let topic = TopicLog::open(log.as_ref(), &s, "status", handler)
        .await
        .unwrap();
    let mut seen = Vec::new();
    while let Ok(r) = rx.try_recv() {
        let key = r.key.clone().unwrap();
        assert_eq!(
            r.partition,
            partition_for_key(&key, 5),
            "murmur2 of the key picks the partition"
        );
        seen.push((key, r.value));
    }
    // Everything is there once open returns (it reads to the end); order holds per key.
    let mut expected = sent.clone();
    expected.sort();
    seen.sort();
    assert_eq!(seen, expected);
    drop(topic);
}

#[tokio::test]
async fn a_log_tails_what_another_instance_writes() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let s = spec(InternalTopicKind::Configs, "connect-configs", 1);
    let (h1, mut rx1) = channel_handler();
    let (h2, mut rx2) = channel_handler();
    let writer = TopicLog::open(log.as_ref(), &s, "w", h1).await.unwrap();
    let reader = TopicLog::open(log.as_ref(), &s, "r", h2).await.unwrap();
    writer
        .send(b"connector-a".to_vec(), Some(b"{}".to_vec()))
        .await
        .unwrap()
        .await
        .unwrap();
    let r = recv(&mut rx2).await;
    assert_eq!(
        (r.partition, r.offset, r.key.as_deref(), r.value.as_deref()),
        (0, 0, Some(&b"connector-a"[..]), Some(&b"{}"[..]))
    );
    assert_eq!(recv(&mut rx1).await, r);
    writer
        .send(b"connector-a".to_vec(), None)
        .await
        .unwrap()
        .await
        .unwrap();
    reader.read_to_end().await.unwrap();
    let tombstone = rx2
        .try_recv()
        .expect("in the channel once read_to_end returns");
    assert_eq!((tombstone.offset, tombstone.value), (1, None));
}

fn map(json: &str) -> OffsetMap {
    match serde_json::from_str(json).unwrap() {
        serde_json::Value::Object(m) => m,
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn offsets_survive_reopening_and_tombstones_reset_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec(InternalTopicKind::Offsets, "connect-offsets", 25);
    let (pa, pb) = (
        Arc::new(map(r#"{"filename":"/a"}"#)),
        Arc::new(map(r#"{"filename":"/b"}"#)),
    );
    {
        let log = LocalLog::open(dir.path(), 1).unwrap();
        let store = TopicOffsetStore::open(log.as_ref(), &s, "offsets")
            .await
            .unwrap();
        store
            .put(
                "src",
                vec![
                    (pa.clone(), Some(map(r#"{"position":10}"#))),
                    (pb.clone(), Some(map(r#"{"position":20}"#))),
                ],
            )
            .await
            .unwrap();
        store
            .put("other", vec![(pa.clone(), Some(map(r#"{"position":1}"#)))])
            .await
            .unwrap();
        store
            .put("src", vec![(pa.clone(), Some(map(r#"{"position":11}"#)))])
            .await
            .unwrap();
        assert_eq!(store.get("src", &pa), Some(map(r#"{"position":11}"#)));
        store.log().stop().await;
        log.close().await;
    }
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let store = TopicOffsetStore::open(log.as_ref(), &s, "offsets")
        .await
        .unwrap();
    assert_eq!(store.get("src", &pa), Some(map(r#"{"position":11}"#)));
    assert_eq!(store.get("other", &pa), Some(map(r#"{"position":1}"#)));
    assert_eq!(
        store.connector_offsets("src"),
        vec![
            ((*pa).clone(), map(r#"{"position":11}"#)),
            ((*pb).clone(), map(r#"{"position":20}"#))
        ]
    );
    store.put("src", vec![(pa.clone(), None)]).await.unwrap();
    assert_eq!(
        store.get("src", &pa),
        None,
        "the tombstone resets the offset"
    );
    let second = TopicOffsetStore::open(log.as_ref(), &s, "offsets2")
        .await
        .unwrap();
    assert_eq!(second.get("src", &pa), None);
    assert_eq!(second.get("src", &pb), Some(map(r#"{"position":20}"#)));
    // A write by the other store reaches this one by tailing.
    second
        .put("src", vec![(pb.clone(), Some(map(r#"{"position":21}"#)))])
        .await
        .unwrap();
    store.log().read_to_end().await.unwrap();
    assert_eq!(store.get("src", &pb), Some(map(r#"{"position":21}"#)));
}
