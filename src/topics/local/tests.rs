//! Tests of the embedded log through its public API, on temporary directories.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::partitioner::partition_for_key;
use super::*;
use crate::topics::{ProducerRecord, Subscription, TopicBackend, TopicConsumer};

fn record(topic: &str, key: Option<&str>, value: Option<&str>) -> ProducerRecord {
    ProducerRecord {
        topic: topic.to_string(),
        partition: None,
        key: key.map(|k| k.as_bytes().to_vec()),
        value: value.map(|v| v.as_bytes().to_vec()),
        timestamp: None,
        headers: Vec::new(),
    }
}

fn to_partition(topic: &str, partition: i32, value: &str) -> ProducerRecord {
    ProducerRecord {
        partition: Some(partition),
        ..record(topic, None, Some(value))
    }
}

fn tp(topic: &str, partition: i32) -> TopicPartition {
    TopicPartition {
        topic: topic.to_string(),
        partition,
    }
}

fn values(records: &[ConsumedRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| String::from_utf8_lossy(r.value.as_deref().unwrap_or(b"<null>")).into_owned())
        .collect()
}

/// Options without the commit journal: a torn tail is cut frame by frame (with the journal a
/// round the crash interrupted is dropped whole, see `crash_tests.rs`).
fn at_least_once() -> LocalLogOptions {
    LocalLogOptions {
        exactly_once_source: false,
        ..LocalLogOptions::new(1)
    }
}

async fn send(log: &LocalLog, records: Vec<ProducerRecord>) {
    let delivery = log
        .producer(&ClientSpec::default())
        .unwrap()
        .send_batch(records)
        .await
        .unwrap();
    delivery.await.unwrap();
}

/// Sends `n` records `{prefix}{i}` to partition 0 of `topic`, one batch of `per_batch` at a time.
async fn send_numbered(log: &LocalLog, topic: &str, prefix: &str, n: usize, per_batch: usize) {
    let all: Vec<_> = (0..n)
        .map(|i| to_partition(topic, 0, &format!("{prefix}{i}")))
        .collect();
    for batch in all.chunks(per_batch) {
        send(log, batch.to_vec()).await;
    }
}

/// Makes the next open behave as after a crash (no clean-shutdown checkpoint).
fn forget_clean_shutdown(dir: &Path) {
    std::fs::remove_file(dir.join("clean-shutdown.json")).unwrap();
}

fn segment_path(dir: &Path, topic: &str, partition: i32, base: i64) -> PathBuf {
    dir.join(format!("{topic}-{partition}"))
        .join(format!("{base:020}.log"))
}

fn end_offsets(log: &LocalLog, topic: &str) -> Vec<i64> {
    let topics = log.topics();
    let info = topics.iter().find(|t| t.name == topic).unwrap();
    info.partitions.iter().map(|p| p.end_offset).collect()
}

/// Polls until `n` records arrived (each poll waits for data; no sleeps).
async fn poll_n(consumer: &mut LocalConsumer, n: usize) -> Vec<ConsumedRecord> {
    let mut out = Vec::new();
    while out.len() < n {
        let got = consumer
            .poll(n - out.len(), Duration::from_secs(10))
            .await
            .unwrap();
        assert!(
            !got.is_empty(),
            "no record within 10 s; got {} of {n}",
            out.len()
        );
        out.extend(got);
    }
    out
}

#[tokio::test]
async fn round_trip_keeps_keys_null_values_headers_and_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let with_headers = ProducerRecord {
        timestamp: Some(1_700_000_000_123),
        headers: vec![
            ("h1".to_string(), Some(b"v1".to_vec())),
            ("h2".to_string(), None),
            ("h1".to_string(), Some(vec![])),
        ],
        ..record("orders", Some("k1"), Some("v1"))
    };
    let tombstone = record("orders", Some("k2"), None);
    let no_key = ProducerRecord {
        value: Some(vec![0, 255, 7]),
        ..record("orders", None, None)
    };
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    send(&log, vec![with_headers.clone(), tombstone, no_key]).await;

    let read = log.read(&tp("orders", 0), 0, 100).unwrap();
    assert_eq!(read.len(), 3);
    assert_eq!(read[0].offset, 0);
    assert_eq!(read[0].key.as_deref(), Some(&b"k1"[..]));
    assert_eq!(read[0].value.as_deref(), Some(&b"v1"[..]));
    assert_eq!(read[0].timestamp, 1_700_000_000_123);
    assert_eq!(read[0].headers, with_headers.headers);
    assert_eq!(
        (
            read[1].offset,
            read[1].key.as_deref(),
            read[1].value.as_deref()
        ),
        (1, Some(&b"k2"[..]), None)
    );
    assert!(
        read[1].timestamp >= before,
        "append time used when no timestamp"
    );
    assert_eq!(
        (read[2].key.as_deref(), read[2].value.as_deref()),
        (None, Some(&[0u8, 255, 7][..]))
    );
    assert!(read.iter().all(|r| r.topic == "orders" && r.partition == 0));
    assert_eq!(
        log.read(&tp("orders", 0), 1, 1).unwrap(),
        vec![read[1].clone()]
    );

    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .subscribe(Subscription::Topics(vec!["orders".to_string()]))
        .await
        .unwrap();
    assert_eq!(consumer.assignment(), vec![tp("orders", 0)]);
    assert!(!consumer.at_end());
    assert_eq!(consumer.lag(), Some(3));
    assert_eq!(poll_n(&mut consumer, 3).await, read);
    assert!(consumer.at_end());
    assert_eq!(consumer.lag(), Some(0));
    log.close().await;
}

#[tokio::test]
async fn offsets_are_monotonic_and_continue_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    send_numbered(&log, "t", "a", 10, 3).await;
    assert_eq!(end_offsets(&log, "t"), vec![10]);
    log.close().await;
    drop(log);

    let log = LocalLog::open(dir.path(), 1).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![10]);
    send_numbered(&log, "t", "b", 5, 5).await;
    let read = log.read(&tp("t", 0), 0, 100).unwrap();
    assert_eq!(
        read.iter().map(|r| r.offset).collect::<Vec<_>>(),
        (0..15).collect::<Vec<_>>()
    );
    assert_eq!(values(&read)[9..11], ["a9".to_string(), "b0".to_string()]);
    log.close().await;
}

#[tokio::test]
async fn a_clean_shutdown_checkpoint_is_used_once() {
    let dir = tempfile::tempdir().unwrap();
    let options = LocalLogOptions {
        segment_bytes: 1024,
        ..LocalLogOptions::new(2)
    };
    let log = LocalLog::open_with(dir.path(), options.clone()).unwrap();
    send_numbered(&log, "t", "a", 50, 7).await;
    log.close().await;
    drop(log);
    let checkpoint = std::fs::read_to_string(dir.path().join("clean-shutdown.json")).unwrap();
    assert!(
        checkpoint.contains("\"t-0\"") && checkpoint.contains("\"t-1\""),
        "{checkpoint}"
    );

    let log = LocalLog::open_with(dir.path(), options.clone()).unwrap();
    assert!(
        !dir.path().join("clean-shutdown.json").exists(),
        "removed before writing again"
    );
    assert_eq!(end_offsets(&log, "t"), vec![50, 0]);
    send_numbered(&log, "t", "b", 50, 7).await;
    let read = log.read(&tp("t", 0), 40, 20).unwrap();
    assert_eq!(
        read.iter().map(|r| r.offset).collect::<Vec<_>>(),
        (40..60).collect::<Vec<_>>()
    );
    assert_eq!(values(&read)[9..11], ["a49".to_string(), "b0".to_string()]);
    drop(log); // no close: the next open scans
    let log = loop {
        // The dropped log's writer releases the lock when it has drained its queue.
        match LocalLog::open_with(dir.path(), options.clone()) {
            Ok(log) => break log,
            Err(TopicError::Unavailable(_)) => tokio::task::yield_now().await,
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(end_offsets(&log, "t"), vec![100, 0]);
    log.close().await;
}

#[tokio::test]
async fn a_truncated_tail_is_cut_at_reopen_and_appends_continue() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    send_numbered(&log, "t", "v", 5, 5).await;
    log.close().await;
    drop(log);
    forget_clean_shutdown(dir.path());
    let path = segment_path(dir.path(), "t", 0, 0);
    let len = std::fs::metadata(&path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(len - 3).unwrap();
    drop(file);

    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![4]);
    let cut_len = std::fs::metadata(&path).unwrap().len();
    assert!(
        cut_len < len - 3,
        "the partial frame was removed from the file"
    );
    send_numbered(&log, "t", "w", 2, 2).await;
    let read = log.read(&tp("t", 0), 0, 100).unwrap();
    assert_eq!(values(&read), ["v0", "v1", "v2", "v3", "w0", "w1"]);
    assert_eq!(
        read.iter().map(|r| r.offset).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4, 5]
    );
    log.close().await;
    drop(log);
    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    assert_eq!(
        values(&log.read(&tp("t", 0), 0, 100).unwrap()),
        ["v0", "v1", "v2", "v3", "w0", "w1"]
    );
}

#[tokio::test]
async fn a_corrupt_last_frame_is_cut_at_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    send_numbered(&log, "t", "v", 3, 3).await;
    log.close().await;
    drop(log);
    forget_clean_shutdown(dir.path());
    let path = segment_path(dir.path(), "t", 0, 0);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40; // a byte of the last record's value
    std::fs::write(&path, &bytes).unwrap();

    // A read-only open repairs nothing and reads the valid records only.
    let ro = LocalLog::open_read_only(dir.path()).unwrap();
    assert_eq!(values(&ro.read(&tp("t", 0), 0, 100).unwrap()), ["v0", "v1"]);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), bytes.len() as u64);

    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![2]);
    send_numbered(&log, "t", "x", 1, 1).await;
    let read = log.read(&tp("t", 0), 0, 100).unwrap();
    assert_eq!(values(&read), ["v0", "v1", "x0"]);
    assert_eq!(read[2].offset, 2);
    log.close().await;
}

#[tokio::test]
async fn segments_roll_and_reads_cross_them_also_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let options = LocalLogOptions {
        segment_bytes: 1024,
        ..LocalLogOptions::new(1)
    };
    let log = LocalLog::open_with(dir.path(), options.clone()).unwrap();
    send_numbered(&log, "t", "value-", 200, 7).await;
    let segments = std::fs::read_dir(dir.path().join("t-0")).unwrap().count();
    assert!(segments > 5, "{segments} segments");
    let read = log.read(&tp("t", 0), 0, 1000).unwrap();
    assert_eq!(
        values(&read),
        (0..200).map(|i| format!("value-{i}")).collect::<Vec<_>>()
    );
    // Starting mid-log (mid-segment) seeks to the right record.
    let from_150 = log.read(&tp("t", 0), 150, 3).unwrap();
    assert_eq!(
        from_150.iter().map(|r| r.offset).collect::<Vec<_>>(),
        vec![150, 151, 152]
    );
    log.close().await;
    drop(log);

    let log = LocalLog::open_with(dir.path(), options).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![200]);
    send_numbered(&log, "t", "more-", 20, 20).await;
    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .commit(&PartitionOffsets::from([(tp("t", 0), 97)]))
        .await
        .unwrap();
    consumer
        .subscribe(Subscription::Topics(vec!["t".to_string()]))
        .await
        .unwrap();
    let read = poll_n(&mut consumer, 123).await;
    assert_eq!(read.first().map(|r| r.offset), Some(97));
    assert_eq!(
        read.last()
            .map(|r| (r.offset, values(&read[122..])[0].clone())),
        Some((219, "more-19".to_string()))
    );
    assert!(read.windows(2).all(|w| w[1].offset == w[0].offset + 1));
    log.close().await;
}

#[tokio::test]
async fn consumers_resume_from_committed_offsets_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 2).unwrap();
    let batch: Vec<_> = (0..10)
        .map(|i| to_partition("t", i % 2, &format!("v{i}")))
        .collect();
    send(&log, batch).await;
    let mut consumer = log.consumer("sink", 0, 1);
    consumer
        .subscribe(Subscription::Topics(vec!["t".to_string()]))
        .await
        .unwrap();
    let read = poll_n(&mut consumer, 10).await;
    assert_eq!(read.len(), 10);
    let offsets = PartitionOffsets::from([(tp("t", 0), 3), (tp("t", 1), 5)]);
    consumer.commit(&offsets).await.unwrap();
    assert_eq!(log.committed("sink").unwrap(), offsets);
    log.close().await;
    drop((consumer, log));

    let log = LocalLog::open(dir.path(), 2).unwrap();
    assert_eq!(log.committed("sink").unwrap(), offsets);
    assert!(log.committed("other").unwrap().is_empty());
    let mut consumer = log.consumer("sink", 0, 1);
    consumer
        .subscribe(Subscription::Topics(vec!["t".to_string()]))
        .await
        .unwrap();
    let mut read = poll_n(&mut consumer, 2).await;
    read.sort_by_key(|r| (r.partition, r.offset));
    assert_eq!(
        read.iter()
            .map(|r| (r.partition, r.offset))
            .collect::<Vec<_>>(),
        vec![(0, 3), (0, 4)]
    );
    assert_eq!(values(&read), ["v6", "v8"]);
    assert!(consumer.at_end());
    log.close().await;
}

#[tokio::test]
async fn two_members_split_the_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 3).unwrap();
    let mut a = log.consumer("g", 0, 2);
    let mut b = log.consumer("g", 1, 2);
    let topics = Subscription::Topics(vec!["y".to_string(), "x".to_string()]);
    a.subscribe(topics.clone()).await.unwrap();
    b.subscribe(topics).await.unwrap();
    // Sorted: x-0 x-1 x-2 y-0 y-1 y-2 → members alternate.
    assert_eq!(a.assignment(), vec![tp("x", 0), tp("x", 2), tp("y", 1)]);
    assert_eq!(b.assignment(), vec![tp("x", 1), tp("y", 0), tp("y", 2)]);
    let batch: Vec<_> = ["x", "y"]
        .iter()
        .flat_map(|t| (0..3).map(move |p| to_partition(t, p, &format!("{t}{p}"))))
        .collect();
    send(&log, batch).await;
    let mut got_a = values(&poll_n(&mut a, 3).await);
    let mut got_b = values(&poll_n(&mut b, 3).await);
    got_a.sort();
    got_b.sort();
    assert_eq!(got_a, ["x0", "x2", "y1"]);
    assert_eq!(got_b, ["x1", "y0", "y2"]);
    // Commits of both members merge in the group.
    a.commit(&PartitionOffsets::from([(tp("x", 0), 1)]))
        .await
        .unwrap();
    b.commit(&PartitionOffsets::from([(tp("x", 1), 1)]))
        .await
        .unwrap();
    assert_eq!(
        log.committed("g").unwrap(),
        PartitionOffsets::from([(tp("x", 0), 1), (tp("x", 1), 1)])
    );
    log.close().await;
}

#[tokio::test]
async fn a_pattern_subscription_picks_up_topics_created_later() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    send(
        &log,
        vec![
            record("logs-a", None, Some("a")),
            record("other", None, Some("o")),
        ],
    )
    .await;
    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .subscribe(Subscription::Pattern(
            crate::topics::TopicPattern::new("logs-.*").unwrap(),
        ))
        .await
        .unwrap();
    assert_eq!(consumer.assignment(), vec![tp("logs-a", 0)]);
    assert_eq!(values(&poll_n(&mut consumer, 1).await), ["a"]);

    let poller = tokio::spawn(async move {
        let got = poll_n(&mut consumer, 1).await;
        (consumer, got)
    });
    send(
        &log,
        vec![
            record("logs-b", None, Some("b")),
            record("xlogs-c", None, Some("c")),
        ],
    )
    .await;
    let (consumer, got) = poller.await.unwrap();
    assert_eq!(values(&got), ["b"]);
    assert_eq!(
        consumer.assignment(),
        vec![tp("logs-a", 0), tp("logs-b", 0)]
    );
    log.close().await;
}

#[tokio::test]
async fn poll_wakes_as_soon_as_records_are_durable() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .subscribe(Subscription::Topics(vec!["t".to_string()]))
        .await
        .unwrap();
    assert!(consumer
        .poll(10, Duration::from_millis(1))
        .await
        .unwrap()
        .is_empty());
    assert!(consumer.at_end());
    let started = std::time::Instant::now();
    let poller =
        tokio::spawn(async move { consumer.poll(10, Duration::from_secs(60)).await.unwrap() });
    send(&log, vec![to_partition("t", 0, "hello")]).await;
    let got = tokio::time::timeout(Duration::from_secs(30), poller)
        .await
        .expect("poll did not wake")
        .unwrap();
    assert_eq!(values(&got), ["hello"]);
    assert!(started.elapsed() < Duration::from_secs(30));
    log.close().await;
}

#[tokio::test]
async fn read_only_open_sees_the_data_of_a_running_writer() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 2).unwrap();
    send(
        &log,
        vec![to_partition("t", 0, "a"), to_partition("t", 1, "b")],
    )
    .await;
    let ro = LocalLog::open_read_only(dir.path()).unwrap();
    assert!(ro.is_read_only());
    let topics = ro.topics();
    assert_eq!(
        topics,
        vec![TopicInfo {
            name: "t".to_string(),
            partitions: vec![
                PartitionInfo {
                    partition: 0,
                    start_offset: 0,
                    end_offset: 1
                },
                PartitionInfo {
                    partition: 1,
                    start_offset: 0,
                    end_offset: 1
                },
            ],
        }]
    );
    // Appends and a new topic after the read-only open are seen too.
    send(
        &log,
        vec![to_partition("t", 0, "c"), record("u", None, Some("d"))],
    )
    .await;
    assert_eq!(values(&ro.read(&tp("t", 0), 0, 10).unwrap()), ["a", "c"]);
    assert_eq!(values(&ro.read(&tp("u", 0), 0, 10).unwrap()), ["d"]);
    assert_eq!(ro.topics().len(), 2);
    // The read-only instance cannot write.
    let err = ro
        .producer(&ClientSpec::default())
        .unwrap()
        .send_batch(vec![record("t", None, Some("x"))])
        .await
        .err();
    assert!(matches!(err, Some(TopicError::Unavailable(_))), "{err:?}");
    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .subscribe(Subscription::Topics(vec!["t".to_string()]))
        .await
        .unwrap();
    consumer
        .commit(&PartitionOffsets::from([(tp("t", 0), 2)]))
        .await
        .unwrap();
    assert_eq!(
        ro.committed("g").unwrap(),
        PartitionOffsets::from([(tp("t", 0), 2)])
    );
    log.close().await;
}

#[tokio::test]
async fn a_second_writer_is_refused_until_the_first_closes() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let err = LocalLog::open(dir.path(), 1).unwrap_err();
    match &err {
        TopicError::Unavailable(msg) => {
            assert!(msg.contains(&dir.path().display().to_string()), "{msg}")
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    send(&log, vec![record("t", None, Some("v"))]).await;
    log.close().await;
    let err = log
        .producer(&ClientSpec::default())
        .unwrap()
        .send_batch(vec![record("t", None, Some("late"))])
        .await
        .err();
    assert!(matches!(err, Some(TopicError::Unavailable(_))), "{err:?}");
    let again = LocalLog::open(dir.path(), 1).unwrap();
    assert_eq!(values(&again.read(&tp("t", 0), 0, 10).unwrap()), ["v"]);
    again.close().await;
}

#[tokio::test]
async fn keys_use_murmur2_and_null_keys_spread() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 4).unwrap();
    let keys: Vec<String> = (0..40).map(|i| format!("key-{i}")).collect();
    send(
        &log,
        keys.iter().map(|k| record("t", Some(k), Some(k))).collect(),
    )
    .await;
    for p in 0..4 {
        for r in log.read(&tp("t", p), 0, 100).unwrap() {
            assert_eq!(partition_for_key(r.key.as_deref().unwrap(), 4), p);
        }
    }
    assert_eq!(end_offsets(&log, "t").iter().sum::<i64>(), 40);
    for i in 0..8 {
        send(
            &log,
            vec![
                record("n", None, Some(&format!("{i}"))),
                record("n", None, Some("same batch")),
            ],
        )
        .await;
    }
    // One partition per batch, rotating: 8 batches of 2 over 4 partitions.
    assert_eq!(end_offsets(&log, "n"), vec![4, 4, 4, 4]);
    let err = log
        .producer(&ClientSpec::default())
        .unwrap()
        .send_batch(vec![to_partition("t", 9, "x")])
        .await
        .err();
    assert!(
        matches!(err, Some(TopicError::Other(ref m)) if m.contains("no partition 9")),
        "{err:?}"
    );
    let err = log
        .producer(&ClientSpec::default())
        .unwrap()
        .send_batch(vec![record("bad/name", None, None)])
        .await
        .err();
    assert!(matches!(err, Some(TopicError::Other(_))), "{err:?}");
    log.close().await;
}

#[tokio::test]
async fn pipelined_sends_under_back_pressure_all_become_durable() {
    let dir = tempfile::tempdir().unwrap();
    let options = LocalLogOptions {
        max_in_flight_bytes: 4096,
        segment_bytes: 64 * 1024,
        ..LocalLogOptions::new(2)
    };
    let log = LocalLog::open_with(dir.path(), options.clone()).unwrap();
    let producer = log.producer(&ClientSpec::default()).unwrap();
    let mut deliveries = Vec::new();
    for b in 0..200 {
        let batch = (0..10)
            .map(|i| record("t", Some(&format!("k{i}")), Some(&format!("b{b}-{i}"))))
            .collect();
        deliveries.push(producer.send_batch(batch).await.unwrap());
    }
    for d in deliveries {
        d.await.unwrap();
    }
    assert_eq!(end_offsets(&log, "t").iter().sum::<i64>(), 2000);
    log.close().await;
    drop((producer, log));
    let log = LocalLog::open_with(dir.path(), options).unwrap();
    let mut all = Vec::new();
    for p in 0..2 {
        let read = log.read(&tp("t", p), 0, 5000).unwrap();
        assert!(read.windows(2).all(|w| w[1].offset == w[0].offset + 1));
        all.extend(values(&read));
    }
    all.sort();
    let mut expected: Vec<String> = (0..200)
        .flat_map(|b| (0..10).map(move |i| format!("b{b}-{i}")))
        .collect();
    expected.sort();
    assert_eq!(all, expected);
}

#[tokio::test]
async fn a_sealed_segment_with_missing_records_is_reported_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let options = LocalLogOptions {
        segment_bytes: 200,
        ..LocalLogOptions::new(1)
    };
    let log = LocalLog::open_with(dir.path(), options).unwrap();
    send_numbered(&log, "t", "value-", 20, 1).await;
    log.close().await;
    drop(log);
    // Cut the first (sealed) segment: recovery does not scan it, reading must notice.
    let path = segment_path(dir.path(), "t", 0, 0);
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let log = LocalLog::open_read_only(dir.path()).unwrap();
    // The good records before the cut come first; the next read reports the problem.
    let good = log.read(&tp("t", 0), 0, 100).unwrap();
    let next = good.len() as i64;
    assert!(next > 0 && good.iter().enumerate().all(|(i, r)| r.offset == i as i64));
    let err = log.read(&tp("t", 0), next, 100).unwrap_err();
    let at = format!("corrupt record in topic t partition 0 at offset {next}");
    assert!(
        matches!(&err, TopicError::Corrupt(m) if m.contains(&path.display().to_string()) && m.contains(&at)),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_corrupt_record_in_the_last_segment_is_an_error_for_readers_not_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    send_numbered(&log, "t", "value-", 10, 10).await;
    log.close().await;
    drop(log);
    let path = segment_path(dir.path(), "t", 0, 0);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(7).position(|w| w == b"value-6").unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();

    let log = LocalLog::open_read_only(dir.path()).unwrap();
    let read = log.read(&tp("t", 0), 0, 100).unwrap();
    assert_eq!(
        values(&read),
        (0..6).map(|i| format!("value-{i}")).collect::<Vec<_>>()
    );
    let err = log.read(&tp("t", 0), 6, 100).unwrap_err();
    assert!(
        matches!(&err, TopicError::Corrupt(m) if m.contains("at offset 6") && m.contains("CRC mismatch")),
        "{err:?}"
    );
    // Reading again (the view is refreshed) still reports it.
    assert!(matches!(
        log.read(&tp("t", 0), 6, 100),
        Err(TopicError::Corrupt(_))
    ));
}

#[tokio::test]
async fn committed_offsets_beyond_a_cut_log_move_to_its_end_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    send_numbered(&log, "t", "value-", 10, 10).await;
    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .commit(&PartitionOffsets::from([
            (tp("t", 0), 10),
            (tp("gone", 0), 4),
        ]))
        .await
        .unwrap();
    log.close().await;
    drop(log);
    // The tail is torn in the middle of record 7.
    let path = segment_path(dir.path(), "t", 0, 0);
    let bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(7).position(|w| w == b"value-7").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(at as u64)
        .unwrap();

    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![7]);
    assert_eq!(
        log.committed("g").unwrap(),
        PartitionOffsets::from([(tp("t", 0), 7), (tp("gone", 0), 0)])
    );
    // New records take offsets 7.. and the group reads exactly them.
    send_numbered(&log, "t", "new-", 2, 2).await;
    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .subscribe(Subscription::Topics(vec!["t".to_string()]))
        .await
        .unwrap();
    let read = poll_n(&mut consumer, 2).await;
    assert_eq!(values(&read), ["new-0", "new-1"]);
    log.close().await;
}

#[tokio::test]
async fn a_poll_returns_about_max_poll_bytes_of_record_data_and_at_least_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let options = LocalLogOptions {
        max_poll_bytes: 100,
        ..LocalLogOptions::new(1)
    };
    let log = LocalLog::open_with(dir.path(), options).unwrap();
    // Ten values of 10 bytes, then one of 40 (more than the bound on its own).
    let mut batch: Vec<_> = (0..10)
        .map(|i| to_partition("t", 0, &format!("value-{i:04}")))
        .collect();
    batch.push(to_partition("t", 0, &"x".repeat(40)));
    send(&log, batch).await;
    let mut consumer = log.consumer("g", 0, 1);
    consumer
        .subscribe(Subscription::Topics(vec!["t".to_string()]))
        .await
        .unwrap();
    let mut sizes = Vec::new();
    while sizes.iter().sum::<usize>() < 11 {
        let got = consumer.poll(100, Duration::from_secs(10)).await.unwrap();
        assert!(!got.is_empty(), "no record within 10 s");
        sizes.push(got.len());
    }
    // A poll stops once it holds 100 bytes or more; a 10-byte value takes 39 bytes in the log
    // (segment::MIN_BODY + 10), the 40-byte one 69: 3 records a poll, then the last two.
    assert_eq!(sizes, [3, 3, 3, 2]);
    log.close().await;
}

/// The commit journal's frames: (start, length with header), in file order.
fn journal_frames(dir: &Path) -> Vec<(usize, usize)> {
    let bytes = std::fs::read(dir.join("commit-journal.log")).unwrap();
    let mut frames = Vec::new();
    let mut pos = 0;
    while pos + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        frames.push((pos, 8 + len));
        pos += 8 + len;
    }
    frames
}

/// Every file under `dir` with its contents (the lock file aside).
fn dir_contents(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.ends_with(".lock") {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Overwrites `bytes` at `at` in the commit journal of `dir`.
fn overwrite_journal(dir: &Path, at: usize, bytes: &[u8]) {
    let path = dir.join("commit-journal.log");
    let mut all = std::fs::read(&path).unwrap();
    all[at..at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(&path, all).unwrap();
}

fn file_partition() -> std::sync::Arc<connect_api::OffsetMap> {
    std::sync::Arc::new(
        serde_json::json!({"filename": "in.txt"})
            .as_object()
            .cloned()
            .unwrap(),
    )
}

/// Sends `count` records `r{first}..` to partition 0 of `t` in one round, with source offset
/// `{"line": first + count}` of connector `src`.
async fn send_with_offset(log: &LocalLog, first: usize, count: usize) {
    let records = (first..first + count)
        .map(|i| to_partition("t", 0, &format!("r{i}")))
        .collect();
    let offsets = crate::topics::SourceOffsets {
        connector: "src".to_string(),
        offsets: vec![(
            file_partition(),
            serde_json::json!({"line": first + count})
                .as_object()
                .cloned(),
        )],
    };
    let producer = log.producer(&ClientSpec::default()).unwrap();
    let delivery = producer
        .send_batch_with_offsets(records, offsets)
        .await
        .unwrap();
    delivery.await.unwrap();
}

fn committed_line(log: &LocalLog) -> Option<u64> {
    log.committed_source_offset("src", &file_partition())
        .map(|o| o["line"].as_u64().unwrap())
}

/// A log of 30 records in three rounds (source offsets 10, 20, 30), closed after a crash
/// (no clean-shutdown checkpoint): a journal of a snapshot and three entries.
async fn three_rounds(dir: &Path) {
    let log = LocalLog::open(dir, 1).unwrap();
    for round in 0..3 {
        send_with_offset(&log, round * 10, 10).await;
    }
    log.close().await;
    drop(log);
    forget_clean_shutdown(dir);
    assert_eq!(journal_frames(dir).len(), 4);
}

#[tokio::test]
async fn a_damaged_commit_journal_stops_the_open_and_changes_nothing_until_repaired() {
    // Each case damages the journal of `three_rounds` and names the byte the error must give.
    type Damage = fn(&Path) -> usize;
    let cases: [(&str, Damage); 5] = [
        ("the last entry's body (CRC mismatch)", |dir| {
            let (start, len) = journal_frames(dir)[3];
            overwrite_journal(dir, start + len - 6, b"XXXX");
            start
        }),
        ("the last entry's length", |dir| {
            let (start, _) = journal_frames(dir)[3];
            overwrite_journal(dir, start, b"XXXX");
            start
        }),
        ("the last entry's length, still plausible", |dir| {
            let (start, len) = journal_frames(dir)[3];
            overwrite_journal(dir, start, &((len - 8 + 5) as u32).to_le_bytes());
            start
        }),
        ("an entry in the middle", |dir| {
            let (start, _) = journal_frames(dir)[2];
            overwrite_journal(dir, start + 12, b"XXXX");
            start
        }),
        ("the last entry zeroed", |dir| {
            let (start, len) = journal_frames(dir)[3];
            overwrite_journal(dir, start, &vec![0; len]);
            start
        }),
    ];
    for (what, damage) in cases {
        let dir = tempfile::tempdir().unwrap();
        three_rounds(dir.path()).await;
        let at = damage(dir.path());
        let before = dir_contents(dir.path());
        let err = LocalLog::open(dir.path(), 1).unwrap_err();
        let journal = dir.path().join("commit-journal.log");
        assert!(
            matches!(&err, TopicError::Corrupt(m) if m.contains(&format!("{} is corrupt at byte {at}", journal.display()))
                && m.contains("nothing was changed")
                && m.contains("repair-journal")),
            "{what}: {err:?}"
        );
        assert!(
            dir_contents(dir.path()) == before,
            "{what}: the open changed files"
        );
        assert!(
            matches!(
                LocalLog::check_journal(dir.path()),
                Err(TopicError::Corrupt(_))
            ),
            "{what}"
        );

        let repaired = repair_journal(dir.path()).unwrap();
        let JournalRepair::Rebuilt { saved, .. } = &repaired else {
            panic!("{what}: {repaired:?}")
        };
        assert_eq!(
            std::fs::read(saved).unwrap(),
            before[&journal],
            "{what}: the damaged journal is kept"
        );
        assert_eq!(repair_journal(dir.path()).unwrap(), JournalRepair::Intact);
        let log = LocalLog::open(dir.path(), 1).unwrap();
        assert_eq!(
            end_offsets(&log, "t"),
            vec![30],
            "{what}: every record kept"
        );
        // Sources resume from the last entry before the damage: never beyond a record.
        let line = committed_line(&log).unwrap();
        assert!((10..=30).contains(&line), "{what}: {line}");
        send_with_offset(&log, 30, 1).await;
        log.close().await;
        drop(log);
        forget_clean_shutdown(dir.path());
        let log = LocalLog::open(dir.path(), 1).unwrap();
        assert_eq!(end_offsets(&log, "t"), vec![31], "{what}");
        assert_eq!(committed_line(&log), Some(31), "{what}");
        log.close().await;
    }
}

#[tokio::test]
async fn a_damaged_only_entry_stops_the_open_though_the_log_closed_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    three_rounds(dir.path()).await;
    // Reopened without a journal: it starts again as one snapshot of the ends.
    std::fs::remove_file(dir.path().join("commit-journal.log")).unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    log.close().await;
    drop(log);
    assert_eq!(journal_frames(dir.path()).len(), 1);
    overwrite_journal(dir.path(), 12, b"XXXX");
    let before = dir_contents(dir.path());
    let err = LocalLog::open(dir.path(), 1).unwrap_err();
    assert!(
        matches!(&err, TopicError::Corrupt(m) if m.contains("corrupt at byte 0 (CRC mismatch)")),
        "{err:?}"
    );
    assert!(dir_contents(dir.path()) == before, "the open changed files");
    assert!(matches!(
        repair_journal(dir.path()).unwrap(),
        JournalRepair::Rebuilt { ref kept, .. } if kept == &[("t-0".to_string(), 0, 30)]
    ));
    let log = LocalLog::open(dir.path(), 1).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![30]);
    log.close().await;
}

#[tokio::test]
async fn a_damaged_last_entry_whose_records_never_reached_the_disk_is_cut() {
    // A machine crash during the last round: its journal entry has its length but not its
    // bytes, its records are not in the partition. Nothing that passes its CRC is cut.
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    send_with_offset(&log, 0, 10).await;
    let segment = segment_path(dir.path(), "t", 0, 0);
    let len = std::fs::metadata(&segment).unwrap().len();
    send_with_offset(&log, 10, 10).await;
    log.close().await;
    drop(log);
    forget_clean_shutdown(dir.path());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&segment)
        .unwrap()
        .set_len(len)
        .unwrap();
    let (start, frame) = *journal_frames(dir.path()).last().unwrap();
    overwrite_journal(dir.path(), start + 8, &vec![0; frame - 8]);

    assert!(LocalLog::check_journal(dir.path()).is_ok());
    let log = LocalLog::open(dir.path(), 1).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![10]);
    assert_eq!(committed_line(&log), Some(10));
    send_with_offset(&log, 10, 1).await;
    log.close().await;
    drop(log);
    forget_clean_shutdown(dir.path());
    let log = LocalLog::open(dir.path(), 1).unwrap();
    assert_eq!(end_offsets(&log, "t"), vec![11]);
    assert_eq!(committed_line(&log), Some(11));
    log.close().await;
}

#[tokio::test]
async fn repair_journal_refuses_while_the_log_is_open_or_a_partition_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        repair_journal(dir.path()).unwrap(),
        JournalRepair::NoJournal
    );
    three_rounds(dir.path()).await;
    assert_eq!(repair_journal(dir.path()).unwrap(), JournalRepair::Intact);
    let (start, _) = journal_frames(dir.path())[3];
    overwrite_journal(dir.path(), start + 12, b"XXXX");
    let log = LocalLog::open_with(dir.path(), at_least_once()).unwrap();
    assert!(matches!(
        repair_journal(dir.path()),
        Err(TopicError::Unavailable(m)) if m.contains("in use by another process")
    ));
    log.close().await;
    drop(log);
    // (Opened without exactly-once sources, the log dropped its journal: damage it again.)
    three_rounds(dir.path()).await;
    let (start, _) = journal_frames(dir.path())[3];
    overwrite_journal(dir.path(), start + 12, b"XXXX");
    let segment = segment_path(dir.path(), "t", 0, 0);
    let mut bytes = std::fs::read(&segment).unwrap();
    let at = bytes.windows(3).position(|w| w == b"r15").unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(&segment, &bytes).unwrap();
    let before = dir_contents(dir.path());
    let err = repair_journal(dir.path()).unwrap_err();
    assert!(
        matches!(&err, TopicError::Corrupt(m) if m.contains("partition t-0 has a corrupt record at offset 15")),
        "{err:?}"
    );
    assert!(
        dir_contents(dir.path()) == before,
        "the repair changed files"
    );
}
