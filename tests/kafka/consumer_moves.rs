//! A sink consumer moved by its task (Kafka Connect's `SinkTaskContext.offset`, `pause`,
//! `resume`), on a real broker and on the embedded log alike: after a seek, records read
//! ahead of it are not returned and the partition is read from the new offset; a paused
//! partition returns nothing while others go on, and is read on from where it stopped once
//! resumed.

use crate::support;

use std::time::Duration;

use connect_api::ConfigMap;
use connect_rs::topics::kafka::KafkaBackend;
use connect_rs::topics::local::LocalLog;
use connect_rs::topics::{
    ClientSpec, ConsumedRecord, ProducerRecord, Subscription, TopicBackend, TopicConsumer,
    TopicPartition,
};
use support::kafka::broker;

const WAIT: Duration = Duration::from_secs(60);

fn tp(topic: &str) -> TopicPartition {
    TopicPartition {
        topic: topic.to_owned(),
        partition: 0,
    }
}

/// Appends `values` to partition 0 of `topic` and waits until they are durable.
async fn produce(backend: &dyn TopicBackend, topic: &str, values: &[&str]) {
    let producer = backend.producer(&ClientSpec::default()).unwrap();
    let records = values
        .iter()
        .map(|v| ProducerRecord {
            topic: topic.to_owned(),
            partition: Some(0),
            key: None,
            value: Some(v.as_bytes().to_vec()),
            timestamp: None,
            headers: Vec::new(),
        })
        .collect();
    let delivery = producer.send_batch(records).await.unwrap();
    delivery.await.unwrap();
}

/// Polls until `done` holds for what was polled so far (one record per poll when `one`).
async fn poll_until(
    consumer: &mut dyn TopicConsumer,
    what: &str,
    one: bool,
    done: impl Fn(&[ConsumedRecord]) -> bool,
) -> Vec<ConsumedRecord> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + WAIT;
    while !done(&got) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: got only {:?}",
            described(&got)
        );
        if let Some(revocation) = consumer.take_revocation() {
            let _ = revocation.done.send(());
        }
        let max = if one { 1 } else { 100 };
        got.extend(
            consumer
                .poll(max, Duration::from_millis(200))
                .await
                .unwrap(),
        );
    }
    got
}

/// `topic:offset=value` of each record of `topic`.
fn of(records: &[ConsumedRecord], topic: &str) -> Vec<String> {
    let records: Vec<ConsumedRecord> = records
        .iter()
        .filter(|r| r.topic == topic)
        .cloned()
        .collect();
    described(&records)
}

/// `topic:offset=value` of each record.
fn described(records: &[ConsumedRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            format!(
                "{}:{}={}",
                r.topic,
                r.offset,
                String::from_utf8_lossy(r.value.as_deref().unwrap_or_default())
            )
        })
        .collect()
}

async fn seeks_and_pauses(backend: &dyn TopicBackend, prefix: &str) {
    let (a, b) = (format!("{prefix}-a"), format!("{prefix}-b"));
    produce(backend, &a, &["a0", "a1", "a2", "a3", "a4"]).await;
    // Both topics exist before the group is joined (no rebalance when one appears).
    produce(backend, &b, &["b0"]).await;
    let mut consumer = backend
        .consumer(&ClientSpec::default(), &format!("{prefix}-group"), 0, 1)
        .unwrap();
    consumer
        .subscribe(Subscription::Topics(vec![a.clone(), b.clone()]))
        .await
        .unwrap();

    // One record at a time until the first of `a`; the others of `a` are read ahead (Kafka)
    // or still to read (embedded log).
    let first = poll_until(consumer.as_mut(), "the first record", true, |got| {
        got.iter().any(|r| r.topic == a)
    })
    .await;
    assert_eq!(of(&first, &a), [format!("{a}:0=a0")]);
    consumer.seek(&tp(&a), 3).await.unwrap();
    let after_seek = poll_until(
        consumer.as_mut(),
        "the records after the seek",
        false,
        |got| got.iter().any(|r| r.topic == a && r.offset == 4),
    )
    .await;
    assert_eq!(
        of(&after_seek, &a),
        [format!("{a}:3=a3"), format!("{a}:4=a4")],
        "read from the new offset, nothing read ahead before the seek"
    );

    // Back to an earlier offset: read again from there.
    consumer.seek(&tp(&a), 1).await.unwrap();
    let again = poll_until(consumer.as_mut(), "the records read again", false, |got| {
        got.iter().any(|r| r.topic == a && r.offset == 4)
    })
    .await;
    let offsets: Vec<i64> = again
        .iter()
        .filter(|r| r.topic == a)
        .map(|r| r.offset)
        .collect();
    assert_eq!(offsets, [1, 2, 3, 4], "{:?}", described(&again));
    // `b0` has been read by now.
    let seen_b = [&first, &after_seek, &again]
        .iter()
        .map(|got| got.iter().filter(|r| r.topic == b).count())
        .sum::<usize>();
    if seen_b == 0 {
        poll_until(consumer.as_mut(), "b0", false, |got| {
            got.iter().any(|r| r.topic == b)
        })
        .await;
    }

    // `a` paused: records appended to it wait, `b` goes on.
    consumer.pause(&[tp(&a)]).unwrap();
    produce(backend, &a, &["a5", "a6"]).await;
    produce(backend, &b, &["b1", "b2"]).await;
    let while_paused = poll_until(
        consumer.as_mut(),
        "the other topic's records",
        false,
        |got| got.iter().filter(|r| r.topic == b).count() == 2,
    )
    .await;
    assert_eq!(
        described(&while_paused),
        [format!("{b}:1=b1"), format!("{b}:2=b2")],
        "nothing of the paused partition"
    );
    consumer.resume(&[tp(&a)]).unwrap();
    let resumed = poll_until(
        consumer.as_mut(),
        "the resumed partition's records",
        false,
        |got| got.iter().any(|r| r.offset == 6),
    )
    .await;
    assert_eq!(
        described(&resumed),
        [format!("{a}:5=a5"), format!("{a}:6=a6")]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kafka_consumer_seeks_pauses_and_resumes_as_its_task_asks() {
    let broker = broker();
    let backend = KafkaBackend::new(
        &[broker.bootstrap().to_owned()],
        &ConfigMap::new(),
        ConfigMap::new(),
        ConfigMap::new(),
        &ConfigMap::new(),
    )
    .unwrap();
    seeks_and_pauses(&backend, &support::kafka::Broker::unique("moves")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_log_consumer_seeks_pauses_and_resumes_as_its_task_asks() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    seeks_and_pauses(log.as_ref(), "moves").await;
    log.close().await;
}
