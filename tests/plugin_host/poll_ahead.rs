//! Polling ahead: the plugin host calls a Java source task's `poll()` again while connect-rs
//! still handles the records of the last one, as Kafka Connect's task thread does, so one
//! `TASK_POLL` answer carries the records of many polls (Kafka's `VerifiableSourceTask` returns
//! one record per `poll()`), in order, none twice or lost; at most 10,000 records wait ahead of
//! connect-rs; and a stop is not held up by polling ahead.

use std::sync::Arc;
use std::time::{Duration, Instant};

use connect_api::{ConfigMap, OffsetMap, OffsetReader, SourcePlugin, SourceTaskContext, Value};
use connect_rs::plugin_host::{HostSettings, JavaSourcePlugin, PluginHost};
use tokio_util::sync::CancellationToken;

use crate::host_process::{fast_settings, use_built_bundle};
use crate::support::plugin_jars::plugin_jars;

const VERIFIABLE_SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";
/// The plugin host's limit of records polled ahead (`PollAhead.MAX_RECORDS`).
const MAX_AHEAD: usize = 10_000;

/// No committed offsets: the task starts from seqno 0.
struct NoOffsets;

impl OffsetReader for NoOffsets {
    fn offset(&self, _partition: &OffsetMap) -> Option<OffsetMap> {
        None
    }
}

fn seqno(value: &Value) -> i64 {
    match value {
        Value::Int64(n) => *n,
        other => panic!("a VerifiableSourceTask value is an Int64 seqno, not {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_java_source_task_is_polled_ahead_and_one_answer_carries_many_polls() {
    use_built_bundle();
    let jars = plugin_jars();
    let host = PluginHost::new(HostSettings {
        classpath: jars
            .classpath
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        ..fast_settings()
    });
    let plugin = JavaSourcePlugin::new(
        host.clone(),
        VERIFIABLE_SOURCE,
        &jars.kafka_version,
        jars.verifiable.to_str().expect("a UTF-8 path"),
    );
    let mut task = plugin.new_task();
    let props: ConfigMap = [
        ("name", "ahead"),
        ("id", "0"),
        ("topic", "seq"),
        ("throughput", "-1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let ctx = SourceTaskContext {
        connector: "ahead".into(),
        task: 0,
        offsets: Arc::new(NoOffsets),
        cancel: CancellationToken::new(),
    };
    task.start(ctx, &props).await.expect("the task starts");

    let mut seqnos = Vec::new();
    let mut largest = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    // Asked back to back, an answer holds what the task polled while the last one travelled.
    while largest < 2 {
        assert!(
            Instant::now() < deadline,
            "every answer held 1 record after {} polls: the task is not polled ahead",
            seqnos.len()
        );
        let batch = task.poll().await.expect("poll");
        largest = largest.max(batch.len());
        seqnos.extend(batch.iter().map(|r| seqno(&r.record.value)));
    }
    // Asked rarely, an answer holds at most MAX_AHEAD records: reached, never passed.
    loop {
        assert!(
            Instant::now() < deadline,
            "no answer reached {MAX_AHEAD} records"
        );
        // A slow connect-rs: the time is what lets the task poll ahead, not a condition.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let batch = task.poll().await.expect("poll");
        assert!(
            batch.len() <= MAX_AHEAD,
            "{} records polled ahead, more than {MAX_AHEAD}",
            batch.len()
        );
        seqnos.extend(batch.iter().map(|r| seqno(&r.record.value)));
        if batch.len() == MAX_AHEAD {
            break;
        }
    }
    let expected: Vec<i64> = (0..seqnos.len() as i64).collect();
    assert!(
        seqnos == expected,
        "the seqnos of {} records are not 0, 1, 2, ... in order",
        seqnos.len()
    );

    // Stopping is not held up by the polls ahead: at most the one running finishes first.
    tokio::time::timeout(Duration::from_secs(20), task.stop())
        .await
        .expect("the task stops within 20 s")
        .expect("stop");
    host.shutdown(Duration::from_secs(5)).await;
}
