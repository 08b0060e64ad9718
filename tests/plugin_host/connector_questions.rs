//! What Kafka Connect asks a fresh (not started) connector instance, asked of a Java connector
//! in the plugin host: `exactlyOnceSupport(props)` by the KIP-618 preflight check of
//! `exactly.once.support=required` on a distributed worker (a connector that says SUPPORTED is
//! created, one that says UNSUPPORTED is refused with Kafka's message), and
//! `alterOffsets(props, offsets)` by `PATCH /connectors/{c}/offsets` (its `true` changes the
//! answer, its exception refuses the change).

use std::path::PathBuf;

use serde_json::json;

use crate::distributed::create;
use crate::support;

use support::cluster::{Cluster, ClusterSpec, Runtime, CONVERGE};
use support::kafka::broker;
use support::rest::start;
use support::*;

/// A plugin directory with `fixture.AskedSourceConnector`: its `exactlyOnceSupport` is
/// SUPPORTED when `eos=yes`, else UNSUPPORTED; its `alterOffsets` handles offsets of partition
/// `{"f":1}` (true) and throws for any other; its task polls nothing.
fn fixture_plugins(w: &Workdir) -> PathBuf {
    let connector = w.write(
        "asked-src/fixture/AskedSourceConnector.java",
        r#"package fixture;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

public class AskedSourceConnector extends SourceConnector {
    private Map<String, String> props;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) { this.props = props; }
    @Override public Class<? extends Task> taskClass() { return IdleSourceTask.class; }
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(props); }
    @Override public void stop() {}
    @Override public ConfigDef config() { return new ConfigDef(); }
    @Override public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> props) {
        return "yes".equals(props.get("eos")) ? ExactlyOnceSupport.SUPPORTED : ExactlyOnceSupport.UNSUPPORTED;
    }
    @Override public boolean alterOffsets(Map<String, String> config, Map<Map<String, ?>, Map<String, ?>> offsets) {
        for (Map<String, ?> partition : offsets.keySet()) {
            if (!Map.of("f", 1L).equals(partition) && !Map.of("f", 1).equals(partition)) {
                throw new IllegalArgumentException("fixture refuses the partition " + partition);
            }
        }
        return true;
    }
}
"#,
    );
    let task = w.write(
        "asked-src/fixture/IdleSourceTask.java",
        r#"package fixture;

import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

public class IdleSourceTask extends SourceTask {
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) {}
    @Override public List<SourceRecord> poll() throws InterruptedException {
        Thread.sleep(50);
        return null;
    }
    @Override public void stop() {}
}
"#,
    );
    let classes = w.path("asked-classes");
    support::java::javac(
        &[connector, task],
        &support::java::host_api_classpath(),
        &classes,
    );
    let plugins = w.path("plugins");
    support::java::jar(&classes, &plugins.join("fixture-asked/fixture-asked.jar"));
    plugins
}

#[test]
fn a_java_connector_is_asked_for_its_exactly_once_support() {
    let broker = broker();
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let spec = ClusterSpec::new(broker.bootstrap(), "ph-asked")
        .with_plugins(&plugins, &[])
        .with_extra("exactly.once.source.support=enabled");
    let cluster = Cluster::start(spec, Runtime::ConnectRs, 1);
    let config = |eos: &str| {
        json!({
            "connector.class": "fixture.AskedSourceConnector",
            "tasks.max": "1",
            "eos": eos,
            "exactly.once.support": "required",
        })
    };
    // SUPPORTED: created.
    create(&cluster.workers[0], "eos-yes", &config("yes"));
    // UNSUPPORTED: refused by the preflight check with Kafka's message.
    let body = json!({"name": "eos-no", "config": config("no")}).to_string();
    let mut answer = None;
    wait_for("the refusal of eos-no", CONVERGE, || {
        let r = cluster.workers[0].client.try_send(
            "POST",
            "/connectors",
            Some(("application/json", &body)),
        );
        answer = r.ok().filter(|r| r.status == 400);
        answer.is_some()
    });
    let answer = answer.expect("an answer");
    assert!(
        answer.body.contains(
            "The connector does not support exactly-once semantics with the provided configuration."
        ),
        "{}",
        answer.body
    );
    cluster.stop_all();
}

#[test]
fn a_java_connector_is_asked_to_alter_its_offsets() {
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan",
        w.path("offsets").display(),
        plugins.display()
    ));
    let source = w.write(
        "asked.properties",
        "name=asked\nconnector.class=fixture.AskedSourceConnector\ntasks.max=1\n",
    );
    let running = start(&w, &[&worker, &source]);
    let r = running.client.put("/connectors/asked/stop", &json!({}));
    assert!(
        r.status == 202 || r.status == 204,
        "{} {}",
        r.status,
        r.body
    );
    let patch = |partition: serde_json::Value| {
        let body = json!({"offsets": [{"partition": partition, "offset": {"n": 5}}]}).to_string();
        let mut last = None;
        wait_for("an answer to the offsets change", CONVERGE, || {
            let r = running.client.send(
                "PATCH",
                "/connectors/asked/offsets",
                Some(("application/json", &body)),
            );
            // 409 while the connector is still stopping.
            let done = r.status != 409;
            last = Some(r);
            done
        });
        last.expect("an answer")
    };
    // The connector handles it: Kafka Connect's answer for that case.
    let r = patch(json!({"f": 1}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["message"],
        "The offsets for this connector have been altered successfully"
    );
    // It throws: the change is refused with its message, nothing is stored.
    let r = patch(json!({"f": 2}));
    assert_eq!(r.status, 500, "{}", r.body);
    assert!(
        r.body.contains("fixture refuses the partition"),
        "{}",
        r.body
    );
    let offsets = running.client.get("/connectors/asked/offsets").json();
    let stored: Vec<_> = offsets["offsets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| o["partition"].clone())
        .collect();
    assert_eq!(stored, [json!({"f": 1})], "{offsets}");
}
