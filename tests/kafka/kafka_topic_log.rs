//! The internal-topic log and the topic offset store against a real Kafka broker: topics
//! created compacted, existing topics verified, reads to end, tailing, and the offsets' bytes as
//! Kafka's console consumer shows them.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, OffsetMap};
use connect_rs::storage::topic_log::{
    channel_handler, ensure_internal_topic, InternalTopicKind, InternalTopicSpec, LogRecord,
    TopicLog,
};
use connect_rs::storage::{OffsetStore, TopicOffsetStore};
use connect_rs::topics::kafka::KafkaBackend;
use support::kafka::{broker, Broker};
use tokio::sync::mpsc;

const TOPIC_COMMAND: &str = "org.apache.kafka.tools.TopicCommand";
const CONSOLE_CONSUMER: &str = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const WAIT: Duration = Duration::from_secs(60);

fn backend(broker: &Broker) -> KafkaBackend {
    KafkaBackend::new(
        &[broker.bootstrap().to_owned()],
        &ConfigMap::new(),
        ConfigMap::new(),
        ConfigMap::new(),
        &ConfigMap::new(),
    )
    .unwrap()
}

fn spec(kind: InternalTopicKind, name: &str, partitions: i32) -> InternalTopicSpec {
    InternalTopicSpec::new(kind, name, partitions, 1)
}

fn describe(broker: &Broker, topic: &str) -> String {
    let out = broker.tools(
        TOPIC_COMMAND,
        &[
            "--bootstrap-server",
            broker.bootstrap(),
            "--describe",
            "--topic",
            topic,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn create(broker: &Broker, topic: &str, partitions: &str, extra: &[&str]) {
    let mut args = vec![
        "--bootstrap-server",
        broker.bootstrap(),
        "--create",
        "--topic",
        topic,
        "--partitions",
        partitions,
        "--replication-factor",
        "1",
    ];
    args.extend_from_slice(extra);
    let out = broker.tools(TOPIC_COMMAND, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn recv(rx: &mut mpsc::UnboundedReceiver<LogRecord>) -> LogRecord {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("a record within the timeout")
        .expect("the log is running")
}

fn map(json: &str) -> OffsetMap {
    match serde_json::from_str(json).unwrap() {
        serde_json::Value::Object(m) => m,
        other => panic!("{other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_absent_topic_is_created_compacted_with_its_partitions() {
    let broker = broker();
    let b = backend(&broker);
    let offsets = Broker::unique("connect-offsets");
    let (handler, _rx) = channel_handler();
    let log = TopicLog::open(
        &b,
        &spec(InternalTopicKind::Offsets, &offsets, 3),
        "offsets",
        handler,
    )
    .await
    .unwrap();
    assert_eq!(log.partition_count(), 3);
    let text = describe(&broker, &offsets);
    assert!(text.contains("PartitionCount: 3"), "{text}");
    assert!(text.contains("cleanup.policy=compact"), "{text}");

    // The configs topic: one partition, compact forced over the worker's topic settings.
    let configs = Broker::unique("connect-configs");
    let mut s = spec(InternalTopicKind::Configs, &configs, 25);
    s.configs.insert("cleanup.policy".into(), "delete".into());
    s.configs.insert("retention.ms".into(), "123456789".into());
    ensure_internal_topic(&b, &s).await.unwrap();
    let text = describe(&broker, &configs);
    assert!(text.contains("PartitionCount: 1"), "{text}");
    assert!(text.contains("cleanup.policy=compact"), "{text}");
    assert!(text.contains("retention.ms=123456789"), "{text}");
    // Opening again finds it and accepts it.
    ensure_internal_topic(&b, &s).await.unwrap();

    // -1 partitions and replication factor: the broker's defaults.
    let status = Broker::unique("connect-status");
    let s = InternalTopicSpec::new(InternalTopicKind::Status, &status, -1, -1);
    ensure_internal_topic(&b, &s).await.unwrap();
    let text = describe(&broker, &status);
    assert!(text.contains("ReplicationFactor: 1"), "{text}");
    assert!(text.contains("cleanup.policy=compact"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn existing_topics_that_break_the_rules_are_refused() {
    let broker = broker();
    let b = backend(&broker);
    let status = Broker::unique("connect-status");
    create(&broker, &status, "1", &[]);
    let (handler, _rx) = channel_handler();
    let err = TopicLog::open(
        &b,
        &spec(InternalTopicKind::Status, &status, 5),
        "status",
        handler,
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Topic '{status}' supplied via the 'status.storage.topic' property is required to have 'cleanup.policy=compact' to guarantee consistency and durability of connector and task statuses, but found the topic currently has 'cleanup.policy=delete'. Continuing would likely result in eventually losing connector and task statuses and problems restarting this Connect cluster in the future. Change the 'status.storage.topic' property in the Connect worker configurations to use a topic with 'cleanup.policy=compact'."
        )
    );

    let configs = Broker::unique("connect-configs");
    create(
        &broker,
        &configs,
        "2",
        &["--config", "cleanup.policy=compact"],
    );
    let err = ensure_internal_topic(&b, &spec(InternalTopicKind::Configs, &configs, 1))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Topic '{configs}' supplied via the 'config.storage.topic' property is required to have a single partition in order to guarantee consistency of connector configurations, but found 2 partitions."
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_are_read_to_end_after_reopening_and_tailed_across_instances() {
    let broker = broker();
    let b = backend(&broker);
    let topic = Broker::unique("connect-status");
    let s = spec(InternalTopicKind::Status, &topic, 5);
    let sent: Vec<(Vec<u8>, Option<Vec<u8>>)> = (0..30)
        .map(|i| {
            let value = (i % 4 != 1).then(|| format!("{{\"n\":{i}}}").into_bytes());
            (format!("status-task-c-{i}").into_bytes(), value)
        })
        .collect();
    {
        let (handler, _rx) = channel_handler();
        let log = TopicLog::open(&b, &s, "writer", handler).await.unwrap();
        let ack = log.send_all(sent.clone()).await.unwrap();
        ack.await.unwrap();
        log.stop().await;
    }
    let (h1, mut rx1) = channel_handler();
    let reader = TopicLog::open(&b, &s, "reader", h1).await.unwrap();
    let mut seen = Vec::new();
    while let Ok(r) = rx1.try_recv() {
        seen.push((r.key.unwrap(), r.value));
    }
    let mut expected = sent.clone();
    expected.sort();
    seen.sort();
    assert_eq!(
        seen, expected,
        "everything is handed over once open returns"
    );

    // Another instance writes; the first one's tail sees it.
    let (h2, _rx2) = channel_handler();
    let other = TopicLog::open(&b, &s, "other", h2).await.unwrap();
    other
        .send(
            b"status-connector-c".to_vec(),
            Some(b"{\"state\":\"RUNNING\"}".to_vec()),
        )
        .await
        .unwrap()
        .await
        .unwrap();
    let r = recv(&mut rx1).await;
    assert_eq!(r.key.as_deref(), Some(&b"status-connector-c"[..]));
    assert_eq!(r.value.as_deref(), Some(&b"{\"state\":\"RUNNING\"}"[..]));
    let _ack = other
        .send(b"status-connector-c".to_vec(), None)
        .await
        .unwrap();
    other.flush().await;
    reader.read_to_end().await.unwrap();
    let r = rx1
        .try_recv()
        .expect("in the channel once read_to_end returns");
    assert_eq!(
        (r.key.as_deref(), r.value),
        (Some(&b"status-connector-c"[..]), None)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offsets_survive_reopening_reset_by_tombstones_and_match_kafka_connect_bytes() {
    let broker = broker();
    let b = backend(&broker);
    let topic = Broker::unique("connect-offsets");
    let s = spec(InternalTopicKind::Offsets, &topic, 5);
    let pa = Arc::new(map(r#"{"filename":"/data/in.txt"}"#));
    let pb = Arc::new(map(r#"{"filename":"/data/other.txt"}"#));
    {
        let store = TopicOffsetStore::open(&b, &s, "offsets").await.unwrap();
        store
            .put(
                "file-src",
                vec![
                    (pa.clone(), Some(map(r#"{"position":1234}"#))),
                    (pb.clone(), Some(map(r#"{"position":7}"#))),
                ],
            )
            .await
            .unwrap();
        store.log().stop().await;
    }
    let store = TopicOffsetStore::open(&b, &s, "offsets").await.unwrap();
    assert_eq!(
        store.get("file-src", &pa),
        Some(map(r#"{"position":1234}"#))
    );
    assert_eq!(store.connector_offsets("file-src").len(), 2);
    store
        .put("file-src", vec![(pb.clone(), None)])
        .await
        .unwrap();
    assert_eq!(store.get("file-src", &pb), None);
    let again = TopicOffsetStore::open(&b, &s, "offsets-2").await.unwrap();
    assert_eq!(again.get("file-src", &pb), None, "the tombstone reset it");
    assert_eq!(
        again.get("file-src", &pa),
        Some(map(r#"{"position":1234}"#))
    );

    let out = tokio::task::spawn_blocking(move || {
        broker.tools(
            CONSOLE_CONSUMER,
            &[
                "--bootstrap-server",
                broker.bootstrap(),
                "--topic",
                &topic,
                "--from-beginning",
                "--max-messages",
                "3",
                "--timeout-ms",
                "60000",
                "--formatter-property",
                "print.key=true",
                "--formatter-property",
                "key.separator=|",
            ],
        )
    })
    .await
    .unwrap();
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            r#"["file-src",{"filename":"/data/in.txt"}]|{"position":1234}"#,
            r#"["file-src",{"filename":"/data/other.txt"}]|null"#,
            r#"["file-src",{"filename":"/data/other.txt"}]|{"position":7}"#,
        ],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_top_level_sasl_settings_reach_the_internal_topic_clients() {
    let secure = support::kafka::secure_broker();
    let mut worker = ConfigMap::new();
    worker.insert("security.protocol".into(), "SASL_PLAINTEXT".into());
    worker.insert("sasl.mechanism".into(), "SCRAM-SHA-512".into());
    worker.insert(
        "sasl.jaas.config".into(),
        format!(
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"{}\" password=\"{}\";",
            secure.user, secure.password
        ),
    );
    // Not client settings: never given to librdkafka.
    worker.insert("group.id".into(), "connect-cluster".into());
    worker.insert(
        "key.converter".into(),
        "org.apache.kafka.connect.json.JsonConverter".into(),
    );
    let b = KafkaBackend::new(
        std::slice::from_ref(&secure.sasl_plaintext),
        &worker,
        ConfigMap::new(),
        ConfigMap::new(),
        &ConfigMap::new(),
    )
    .unwrap();
    let topic = Broker::unique("connect-configs");
    let (handler, mut rx) = channel_handler();
    let log = TopicLog::open(
        &b,
        &spec(InternalTopicKind::Configs, &topic, 1),
        "configs",
        handler,
    )
    .await
    .unwrap();
    log.send(b"connector-a".to_vec(), Some(b"{}".to_vec()))
        .await
        .unwrap()
        .await
        .unwrap();
    let r = recv(&mut rx).await;
    assert_eq!((r.partition, r.offset), (0, 0));
    assert_eq!(r.key.as_deref(), Some(&b"connector-a"[..]));
}
