//! Debezium's PostgreSQL connector, the differential of issue 28: Apache Kafka Connect (the
//! oracle) and connect-rs each run Debezium 3.6.1.Final from `plugin.path` on a database of their
//! own, on the harness broker, and the masked records and stored offsets are compared.

use std::time::Instant;

use crate::support;

use serde_json::{json, Value};
use support::cluster::{Cluster, ClusterSpec, Runtime};

use std::collections::BTreeMap;

use support::debezium::{
    assert_expected, expected_ops, is_compact_json, run_scenario, run_scenario_on_embedded_log,
    CdcRecord, CdcTopics, Outcome, Scenario, TopicReader, PHASES,
};
use support::kafka::broker;
use support::plugin_jars::plugin_jars;
use support::rest::start;
use support::Workdir;

/// One worker of `runtime` on the harness broker with Debezium in its `plugin.path`.
fn debezium_worker(runtime: Runtime) -> Cluster {
    let spec =
        ClusterSpec::new(broker().bootstrap(), "dbz").with_plugins(&plugin_jars().plugin_path, &[]);
    Cluster::start(spec, runtime, 1)
}

/// Runs the scenario on one worker of `runtime` (its own group, topics and database).
fn run_on(runtime: Runtime) -> Outcome {
    let cluster = debezium_worker(runtime);
    let broker = broker();
    run_scenario(
        &broker,
        cluster.workers[0].client,
        cluster.spec.offset_topic.as_str(),
    )
}

/// Runs the scenario on a standalone connect-rs worker on the embedded log (no Kafka).
fn run_on_embedded_log() -> BTreeMap<String, Vec<CdcRecord>> {
    let w = Workdir::new();
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=500\nplugin.path={}",
        w.path("offsets").display(),
        plugin_jars().plugin_path.display(),
    ));
    let running = start(&w, &[&worker]);
    let records = run_scenario_on_embedded_log(running.client, &worker);
    drop(running);
    records
}

/// Debezium on connect-rs writes the same records as on Apache Kafka Connect: topics, keys,
/// values with their JsonConverter schemas and headers, volatile fields masked (snapshot, the
/// streamed changes with tombstones, the table created later), on Kafka and on the embedded log;
/// and on Kafka connect-rs stores the same offsets in its offsets topic, key and value, volatile
/// fields masked.
#[test]
fn debezium_on_connect_rs_writes_the_records_and_offsets_of_kafka_connect() {
    let started = Instant::now();
    // Both runs at once (each with its own database, slot and topics) keep the test short.
    let (oracle, ours, embedded) = std::thread::scope(|s| {
        let oracle = s.spawn(|| run_on(Runtime::KafkaConnect));
        let ours = s.spawn(|| run_on(Runtime::ConnectRs));
        let embedded = s.spawn(run_on_embedded_log);
        (
            oracle.join().expect("the Kafka Connect run"),
            ours.join().expect("the connect-rs run"),
            embedded
                .join()
                .expect("the connect-rs run on the embedded log"),
        )
    });
    eprintln!(
        "Debezium on Apache Kafka Connect and on connect-rs took {:?}",
        started.elapsed()
    );
    assert_expected(&oracle);
    let diff = support::debezium::diff(&oracle.records, &ours.records);
    assert!(
        diff.is_empty(),
        "connect-rs's records differ from Kafka Connect's (- Kafka Connect, + connect-rs):\n{diff}"
    );
    let diff = support::debezium::diff(&oracle.records, &embedded);
    assert!(
        diff.is_empty(),
        "connect-rs's records on the embedded log differ from Kafka Connect's \
         (- Kafka Connect, + connect-rs):\n{diff}"
    );
    assert_same_offsets(&oracle, &ours);
    assert_chain_applied(&oracle);
    let diff = support::debezium::diff(&oracle.chain_records, &ours.chain_records);
    assert!(
        diff.is_empty(),
        "connect-rs's records through the chain of Debezium's ExtractNewRecordState (Java) and \
         InsertField$Value (built-in) differ from Kafka Connect's (- Kafka Connect, + connect-rs):\n{diff}"
    );
}

/// The SMT differential's chain did what it says (so that the comparison compares something):
/// `customers` unwrapped with `__op`, `__table` and the static field, deletes rewritten with
/// `__deleted` and their tombstones kept; `docs` (the negated predicate) still envelopes, with
/// the static field.
fn assert_chain_applied(outcome: &Outcome) {
    let customers = &outcome.chain_records["public.customers"];
    assert_eq!(customers.len(), 12, "{customers:?}");
    let first = customers[0].value.as_ref().expect("a value");
    assert_eq!(first["payload"]["id"], json!(1), "{first}");
    assert_eq!(first["payload"]["__op"], json!("r"), "{first}");
    assert_eq!(first["payload"]["__table"], json!("customers"), "{first}");
    assert_eq!(first["payload"]["chain"], json!("smt"), "{first}");
    let delete = customers[5].value.as_ref().expect("the rewritten delete");
    assert_eq!(delete["payload"]["__deleted"], json!("true"), "{delete}");
    assert_eq!(customers[6].value, None, "the delete's tombstone");
    let docs = &outcome.chain_records["public.docs"];
    let doc = docs[0].value.as_ref().expect("a value");
    assert_eq!(doc["payload"]["op"], json!("r"), "{doc}");
    assert_eq!(doc["payload"]["chain"], json!("smt"), "{doc}");
}

/// The offsets connect-rs stored are Kafka Connect's byte for byte, volatile fields aside: every
/// entry (key and value) is compact JSON, and the snapshot's end and the last change have the
/// same masked key and value, members in the same order. (Which intermediate offsets are stored
/// depends on when the periodic flushes fall, in both runtimes.)
fn assert_same_offsets(oracle: &Outcome, ours: &Outcome) {
    for (who, outcome) in [("Kafka Connect", oracle), ("connect-rs", ours)] {
        for (key, value) in &outcome.offset_bytes {
            for bytes in std::iter::once(key).chain(value) {
                assert!(
                    is_compact_json(bytes),
                    "{who} stored an offset entry that is not compact JSON: {}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    }
    let text = |o: &Outcome, pick: &dyn Fn(&(Value, Value)) -> bool| {
        let entry = o
            .masked_offsets
            .iter()
            .rev()
            .find(|e| pick(e))
            .unwrap_or_else(|| panic!("no such offset entry in {:?}", o.masked_offsets));
        serde_json::to_string(entry).expect("json")
    };
    let snapshot_end = |(_, v): &(Value, Value)| v["snapshot_completed"] == json!(true);
    assert_eq!(
        text(ours, &snapshot_end),
        text(oracle, &snapshot_end),
        "the offset of the snapshot's end (left connect-rs, right Kafka Connect)"
    );
    let any = |_: &(Value, Value)| true;
    assert_eq!(
        text(ours, &any),
        text(oracle, &any),
        "the last offset (left connect-rs, right Kafka Connect)"
    );
}

/// A running Debezium connector moves from Apache Kafka Connect to connect-rs and back on the
/// same group, config and offsets topics: each runtime resumes from the offsets the other stored
/// (after a graceful stop), with no new snapshot, no change lost and none written twice.
#[test]
fn debezium_moves_between_kafka_connect_and_connect_rs_on_the_stored_offsets() {
    let started = Instant::now();
    let broker = broker();
    let spec =
        ClusterSpec::new(broker.bootstrap(), "dbz").with_plugins(&plugin_jars().plugin_path, &[]);
    let scenario = Scenario::new();
    let reader = TopicReader::new(&broker);
    let mut runtime = Runtime::KafkaConnect;
    let mut cluster = Cluster::start(spec.clone(), runtime, 1);
    let r = cluster.workers[0].client.put(
        &format!("/connectors/{}/config", scenario.connector),
        &scenario.connector_config(),
    );
    assert_eq!(r.status, 201, "creating the connector: {}", r.body);
    reader.await_counts(
        &scenario.topics(&[("public.customers", 3), ("public.docs", 2)]),
        &cluster.workers[0].client,
        &scenario.connector,
        "the snapshot",
    );
    for (phase, (statements, counts)) in PHASES.iter().enumerate() {
        if phase > 0 {
            cluster.stop_all();
            scenario.await_slot_released();
            runtime = match runtime {
                Runtime::KafkaConnect => Runtime::ConnectRs,
                Runtime::ConnectRs => Runtime::KafkaConnect,
            };
            cluster = Cluster::start(spec.clone(), runtime, 1);
        }
        scenario.apply_changes_in(statements.clone());
        reader.await_counts(
            &scenario.topics(counts),
            &cluster.workers[0].client,
            &scenario.connector,
            &format!("the changes of phase {phase} on {runtime:?}"),
        );
    }
    let records = reader.read_prefix(&scenario);
    let ops: BTreeMap<String, Vec<&str>> = records
        .iter()
        .map(|(t, rs)| (t.clone(), rs.iter().map(CdcRecord::op).collect()))
        .collect();
    assert_eq!(
        ops,
        expected_ops(),
        "the operations per topic after Kafka Connect -> connect-rs -> Kafka Connect \
         (a new snapshot would add `r`s, a resumption from an older offset duplicates)"
    );
    let r = cluster.workers[0]
        .client
        .delete(&format!("/connectors/{}", scenario.connector));
    assert_eq!(r.status, 204, "deleting the connector: {}", r.body);
    scenario.await_slot_released();
    cluster.stop_all();
    eprintln!(
        "Debezium moved between Kafka Connect and connect-rs in {:?}",
        started.elapsed()
    );
}
