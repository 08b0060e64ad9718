//! Debezium's PostgreSQL connector, the differential of issue 28: the oracle side (Apache Kafka
//! Connect running Debezium 3.6.1.Final from `plugin.path`) and the proof that the scenario's
//! masking leaves nothing that differs between two runs.

use std::time::Instant;

use crate::support;

use support::cluster::{Cluster, ClusterSpec, Runtime};
use support::debezium::{assert_expected, run_scenario, Outcome};
use support::kafka::broker;
use support::plugin_jars::plugin_jars;

/// One worker of `runtime` on the harness broker with Debezium in its `plugin.path`.
fn debezium_worker(runtime: Runtime) -> Cluster {
    let spec =
        ClusterSpec::new(broker().bootstrap(), "dbz").with_plugins(&plugin_jars().plugin_path, &[]);
    Cluster::start(spec, runtime, 1)
}

/// Runs the scenario on two databases at once through the one worker of `cluster`.
fn twice(cluster: &Cluster) -> (Outcome, Outcome) {
    let broker = broker();
    let worker = &cluster.workers[0];
    let offsets = cluster.spec.offset_topic.as_str();
    std::thread::scope(|s| {
        let a = s.spawn(|| run_scenario(&broker, worker.client, offsets));
        let b = s.spawn(|| run_scenario(&broker, worker.client, offsets));
        (
            a.join().expect("the first run"),
            b.join().expect("the second run"),
        )
    })
}

/// Apache Kafka Connect runs the scenario twice, on two databases: the masked records are the
/// same (so the masking covers everything volatile and the connect-rs run can be compared with
/// it), they hold the snapshot, the streamed changes with tombstones and the table created later,
/// and the stored offsets are the same once masked.
#[test]
fn debezium_on_kafka_connect_masks_to_the_same_records_twice() {
    let started = Instant::now();
    let cluster = debezium_worker(Runtime::KafkaConnect);
    let (a, b) = twice(&cluster);
    eprintln!(
        "two Debezium runs on Apache Kafka Connect took {:?}",
        started.elapsed()
    );
    let diff = support::debezium::diff(&a.records, &b.records);
    assert!(
        diff.is_empty(),
        "two runs of the same scenario differ after masking:\n{diff}"
    );
    assert_expected(&a);
    assert_eq!(
        a.masked_offsets.last(),
        b.masked_offsets.last(),
        "the last offsets two runs stored differ after masking"
    );
}
