//! A Java source with exactly-once on Kafka (KIP-618): Kafka's `VerifiableSourceConnector` from
//! `plugin.path` on a distributed worker with `exactly.once.source.support=enabled` writes its
//! records and its offsets in the same transactions; after a SIGKILL of that worker, a new worker
//! takes the task over (fencing the old transactional id) and resumes from the committed offset,
//! so a `read_committed` reader sees seqnos 0, 1, 2, ... each exactly once, in order.

use serde_json::json;

use crate::distributed::create;
use crate::source::resumed_from;
use crate::support;
use crate::worker_kills::verifiable_plugin_path;

use support::cluster::{Cluster, ClusterSpec, Runtime, CONVERGE};
use support::kafka::{broker, Broker};
use support::plugin_jars::plugin_jars;
use support::{wait_for, Workdir};

const SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";

/// The seqnos of `topic` a `read_committed` ConsoleConsumer reads (until 5 s without one, or
/// `max` of them).
fn committed_seqnos(broker: &Broker, topic: &str, max: usize) -> Vec<u64> {
    let out =
        broker.consume_from_beginning(topic, max, 5_000, &["--isolation-level", "read_committed"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            l.trim()
                .parse::<u64>()
                .unwrap_or_else(|e| panic!("{l:?} in {topic}: {e}"))
        })
        .collect()
}

#[test]
fn a_java_source_writes_each_seqno_once_in_transactions_across_a_worker_sigkill() {
    let broker = broker();
    let jars = plugin_jars();
    let plugins = Workdir::new();
    let topic = Broker::unique("ph-eos");
    broker.create_topic(&topic, 1);
    let spec = ClusterSpec::new(broker.bootstrap(), "ph-eos")
        .with_plugins(&verifiable_plugin_path(&plugins), &[])
        .with_extra(&format!(
            "exactly.once.source.support=enabled\nplugin.host.classpath={}\n\
             scheduled.rebalance.max.delay.ms=1000",
            jars.classpath_string()
        ));
    let mut cluster = Cluster::start(spec, Runtime::ConnectRs, 1);
    create(
        &cluster.workers[0],
        "veos",
        &json!({
            "connector.class": SOURCE,
            "tasks.max": "1",
            "topic": topic,
            "throughput": "500",
        }),
    );
    // Records are in committed transactions before the kill.
    wait_for("300 committed records", CONVERGE, || {
        committed_seqnos(&broker, &topic, 300).len() >= 300
    });
    cluster.kill9(0);
    let taker = cluster.add(Runtime::ConnectRs);
    // The new worker's task resumes after the last committed seqno, then commits 300 more.
    let mut resumed = None;
    wait_for("the new worker's task to resume", CONVERGE, || {
        resumed = resumed_from(&cluster.workers[taker].log());
        resumed.is_some()
    });
    let target = usize::try_from(resumed.unwrap_or_default()).expect("a seqno") + 300;
    wait_for("the new worker to commit 300 more", CONVERGE, || {
        committed_seqnos(&broker, &topic, target).len() >= target
    });
    assert!(cluster.workers[taker].is_alive());
    cluster.stop_all();

    let seqnos = committed_seqnos(&broker, &topic, i32::MAX as usize);
    let expected: Vec<u64> = (0..seqnos.len() as u64).collect();
    assert!(
        seqnos == expected,
        "the {} committed seqnos are not 0, 1, 2, ... each once: first differences {:?}",
        seqnos.len(),
        seqnos
            .iter()
            .zip(&expected)
            .filter(|(a, b)| a != b)
            .take(5)
            .collect::<Vec<_>>()
    );
}
