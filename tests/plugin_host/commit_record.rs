//! `SourceTask.commitRecord(record, metadata)` of a Java source task (MirrorMaker 2's offset
//! syncs rely on it): called once per polled record after its topic acknowledged it, with the
//! partition and offset it was written at, and with null metadata for a record a
//! transformation dropped — on the embedded log and on a real Kafka broker, at least once and
//! in exactly-once transactions. A FileStreamSink
//! reading the topic shows that each offset holds the record the task was told of.

use std::path::PathBuf;
use std::time::Duration;

use crate::support;

use support::cluster::{Cluster, ClusterSpec, Runtime, CONVERGE};
use support::kafka::{broker, Broker};
use support::rest::start;
use support::*;

const WAIT: Duration = Duration::from_secs(120);

/// A plugin directory with a source connector whose one task polls ten records once (values
/// `r<i>`, every third one from 1 a tombstone) to partition 0 of `topic`, then nothing, and
/// prints `commitRecord of <i> <topic>-<partition>@<offset>` (or `... <i> dropped`) in its
/// `commitRecord`.
fn fixture_plugins(w: &Workdir) -> PathBuf {
    let connector = crate::sink::source_connector_java(
        w,
        "commit-src",
        "CommittingSourceConnector",
        "CommittingSourceTask",
    );
    let task = w.write(
        "commit-src/fixture/CommittingSourceTask.java",
        r#"package fixture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

public class CommittingSourceTask extends SourceTask {
    private String topic;
    private boolean done;
    private volatile int committed;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) {
        topic = props.get("topic");
        // A KIP-877 plugin metric: the records commitRecord was called for.
        context.pluginMetrics().addMetric(
            context.pluginMetrics().metricName("committed-records", "commitRecord calls", new java.util.LinkedHashMap<>()),
            (Measurable) (config, now) -> committed);
    }
    @Override public List<SourceRecord> poll() throws InterruptedException {
        if (done) {
            Thread.sleep(50);
            return null;
        }
        done = true;
        List<SourceRecord> out = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String value = i % 3 == 1 ? null : "r" + i;
            out.add(new SourceRecord(Map.of("f", 1), Map.of("n", i), topic, 0,
                Schema.OPTIONAL_STRING_SCHEMA, value));
        }
        return out;
    }
    @Override public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        committed++;
        Object n = record.sourceOffset().get("n");
        System.out.println("commitRecord of " + n + " " + (metadata == null ? "dropped"
            : metadata.topic() + "-" + metadata.partition() + "@" + metadata.offset()));
    }
    @Override public void stop() {}
}
"#,
    );
    let classes = w.path("commit-classes");
    support::java::javac(
        &[connector, task],
        &support::java::host_api_classpath(),
        &classes,
    );
    let plugins = w.path("plugins");
    support::java::jar(&classes, &plugins.join("fixture-commit/fixture-commit.jar"));
    plugins
}

/// What the task printed in `commitRecord`, in the order printed.
fn committed(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.split("commitRecord of ").nth(1))
        .map(|s| s.trim().to_owned())
        .collect()
}

/// `lines` by record number.
fn sorted(mut lines: Vec<String>) -> Vec<String> {
    lines.sort_by_key(|l| l.split(' ').next().and_then(|n| n.parse::<u32>().ok()));
    lines
}

/// What `commitRecord` must be told of the ten records written to partition 0 of a new
/// `topic`: the kept ones at offsets 0.., the tombstones dropped.
fn expected(topic: &str) -> Vec<String> {
    let mut offset = 0;
    (0..10)
        .map(|i| {
            if i % 3 == 1 {
                format!("{i} dropped")
            } else {
                offset += 1;
                format!("{i} {topic}-0@{}", offset - 1)
            }
        })
        .collect()
}

/// The committing source's connector configuration (tombstones dropped by `Filter`).
fn committing_config(topic: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "connector.class",
            "fixture.CommittingSourceConnector".into(),
        ),
        ("tasks.max", "1".into()),
        ("topic", topic.into()),
        (
            "value.converter",
            "org.apache.kafka.connect.storage.StringConverter".into(),
        ),
        ("transforms", "dropNulls".into()),
        (
            "transforms.dropNulls.type",
            "org.apache.kafka.connect.transforms.Filter".into(),
        ),
        ("transforms.dropNulls.predicate", "isNull".into()),
        ("predicates", "isNull".into()),
        (
            "predicates.isNull.type",
            "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone".into(),
        ),
    ]
}

/// Runs the committing source (tombstones dropped by `Filter`) and a FileStreamSink of its
/// topic on a worker with `extra` settings; checks what `commitRecord` was told.
fn commit_record_scenario(extra: &str, topic: &str) {
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=100\nplugin.path={}\n\
         plugin.discovery=only_scan\n{extra}",
        w.path("offsets").display(),
        plugins.display()
    ));
    let lines: String = committing_config(topic)
        .into_iter()
        .map(|(k, v)| format!("{k}={v}\n"))
        .collect();
    let source = w.write("committing.properties", format!("name=committing\n{lines}"));
    let out = w.path("out.txt");
    let sink = w.write(
        "sink.properties",
        format!(
            "name=copy\nconnector.class=FileStreamSink\ntasks.max=1\ntopics={topic}\nfile={}\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n",
            out.display()
        ),
    );
    let running = start(&w, &[&worker, &source, &sink]);
    wait_for("commitRecord of the ten records", WAIT, || {
        committed(&w.log()).len() >= 10
    });
    assert_eq!(
        sorted(committed(&w.log())),
        expected(topic),
        "each record once, where it was written"
    );
    // The task's plugin metric (KIP-877) is served by GET /metrics.
    let metrics = running.client.get("/metrics").body;
    assert!(
        metrics.contains(
            "kafka_connect_plugins_committed_records{connector=\"committing\",task=\"0\"} 10"
        ),
        "{metrics}"
    );
    // The topic holds at each offset the record commitRecord named.
    wait_for("the sink to copy the seven records", WAIT, || {
        std::fs::read_to_string(&out).is_ok_and(|s| s.lines().count() >= 7)
    });
    let lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines, ["r0", "r2", "r3", "r5", "r6", "r8", "r9"]);
}

#[test]
fn commit_record_tells_a_java_source_task_where_each_record_went_on_the_embedded_log() {
    commit_record_scenario("", "recs");
}

#[test]
fn commit_record_tells_a_java_source_task_where_each_record_went_on_kafka() {
    let broker: Broker = broker();
    let topic = Broker::unique("recs");
    broker.create_topic(&topic, 1);
    commit_record_scenario(&format!("bootstrap.servers={}", broker.bootstrap()), &topic);
}

/// In exactly-once mode (a distributed worker with `exactly.once.source.support=enabled`),
/// `commitRecord` is called once the records' transaction committed.
#[test]
fn commit_record_tells_a_java_source_task_where_each_record_went_in_transactions() {
    let broker: Broker = broker();
    let topic = Broker::unique("recs-eos");
    broker.create_topic(&topic, 1);
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let spec = ClusterSpec::new(broker.bootstrap(), "ph-commit-eos")
        .with_plugins(&plugins, &[])
        .with_extra("exactly.once.source.support=enabled");
    let cluster = Cluster::start(spec, Runtime::ConnectRs, 1);
    let config: serde_json::Map<String, serde_json::Value> = committing_config(&topic)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.into()))
        .collect();
    crate::distributed::create(&cluster.workers[0], "committing", &config.into());
    wait_for("commitRecord of the ten records", CONVERGE, || {
        committed(&cluster.workers[0].log()).len() >= 10
    });
    assert_eq!(
        sorted(committed(&cluster.workers[0].log())),
        expected(&topic),
        "each record once, where it was written"
    );
    cluster.stop_all();
}
