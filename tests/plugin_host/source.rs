//! Java source connectors run by the plugin host (milestone M2), standalone on the embedded log:
//! Kafka's own `VerifiableSourceConnector` from `plugin.path` writes contiguous seqnos, stores its
//! offsets as Kafka Connect stores them, and resumes from them after a SIGKILL of the worker
//! (whose JVM dies with it); a Java task that throws is FAILED with the Java stack trace in its
//! status `trace`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support;

use support::plugin_jars::plugin_jars;
use support::rest::{start, wait_running};
use support::*;

const WAIT: Duration = Duration::from_secs(120);
const VERIFIABLE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";

/// The values of the lines of `path` (each a seqno), in file order.
pub(crate) fn seqnos(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            l.parse()
                .unwrap_or_else(|e| panic!("line {l:?} of {}: {e}", path.display()))
        })
        .collect()
}

/// The pid in the log's `plugin host JVM started (generation N, pid P, ...)` line, the last one.
pub(crate) fn jvm_pid(log: &str) -> Option<u32> {
    let at = log.rfind("plugin host JVM started (generation ")?;
    let rest = &log[at..];
    let pid = rest.split("pid ").nth(1)?;
    pid.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The `N` of Verifiable's `... resuming from seqno N` log line (its SLF4J INFO event).
pub(crate) fn resumed_from(log: &str) -> Option<u64> {
    let at = log.rfind("resuming from seqno ")?;
    let rest = &log[at + "resuming from seqno ".len()..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The seqnos of the JSON events Verifiable printed (`{..."seqno":N...}`).
fn printed_seqnos(log: &str) -> BTreeSet<u64> {
    log.split("\"seqno\":")
        .skip(1)
        .filter_map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

#[test]
fn verifiable_source_runs_on_the_embedded_log_and_resumes_after_a_sigkill() {
    let jars = plugin_jars();
    let w = Workdir::new();
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=200\nplugin.path={}\nplugin.host.classpath={}",
        w.path("offsets").display(),
        jars.plugin_path.display(),
        jars.classpath_string()
    ));
    let source = w.write(
        "verifiable.properties",
        format!(
            "name=verifiable\nconnector.class={VERIFIABLE}\ntasks.max=1\ntopic=seq\nthroughput=500\n"
        ),
    );
    let out = w.path("out.txt");
    let sink = w.sink("out", &out, "seq");

    let running = start(&w, &[&worker, &source, &sink]);
    wait_running(&running.client, "verifiable", WAIT);
    wait_for("100 records in the sink's file", WAIT, || {
        seqnos(&out).len() >= 100
    });
    let log = w.log();
    // The connector's own keys are Java's: not warned about as unknown.
    assert!(
        !log.contains("'throughput' was supplied but isn't a known config"),
        "{log}"
    );
    assert_eq!(resumed_from(&log), Some(0), "{log}");
    // Verifiable's key is the task id (Int32), its value the seqno (Int64): with the
    // StringConverter the file holds the seqnos, contiguous from 0.
    let first = seqnos(&out);
    assert_eq!(
        first,
        (0..first.len() as u64).collect::<Vec<_>>(),
        "records of one run, in order"
    );
    // What the task printed (its JSON events on System.out, logged by connect-rs) is what
    // landed in the topic.
    let printed = printed_seqnos(&log);
    let unprinted: Vec<u64> = first
        .iter()
        .filter(|n| !printed.contains(n))
        .copied()
        .collect();
    assert!(
        unprinted.is_empty(),
        "written but never printed: {unprinted:?}\n{log}"
    );

    // Offsets are Kafka Connect's: partition {"id":<task>} and offset {"seqno":<long>}.
    wait_for("a committed offset", WAIT, || {
        let r = running.client.get("/connectors/verifiable/offsets");
        r.status == 200 && r.json()["offsets"][0]["offset"]["seqno"].as_u64().is_some()
    });
    let offsets = running.client.get("/connectors/verifiable/offsets").json();
    let committed = offsets["offsets"][0]["offset"]["seqno"]
        .as_u64()
        .unwrap_or_else(|| panic!("{offsets}"));
    assert_eq!(
        offsets["offsets"][0]["partition"],
        serde_json::json!({"id": 0}),
        "{offsets}"
    );

    // SIGKILL the worker: its JVM dies with it (no orphan), and a restart resumes from the
    // committed offset.
    let pid = jvm_pid(&log).unwrap_or_else(|| panic!("no JVM pid in the log:\n{log}"));
    let mut running = running;
    running.child.kill().expect("SIGKILL the worker");
    let _ = running.child.wait();
    wait_for("the plugin host JVM to die with its worker", WAIT, || {
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| s.contains(") Z "))
                .unwrap_or(true)
    });
    let before = seqnos(&out);

    let running = start(&w, &[&worker, &source, &sink]);
    wait_running(&running.client, "verifiable", WAIT);
    wait_for("100 more records after the restart", WAIT, || {
        seqnos(&out).len() >= before.len() + 100
    });
    let log = w.log();
    let resumed = resumed_from(&log).unwrap_or_else(|| panic!("no resume line:\n{log}"));
    // Not from the start: from after an offset committed before the kill (a later one may have
    // been committed since the offsets were read)...
    assert!(
        resumed > committed,
        "resumed from {resumed}, but seqno {committed} was committed before the kill"
    );
    // ... and without a gap (at least once): every seqno up to the highest is in the topic.
    let all = seqnos(&out);
    let seen: BTreeSet<u64> = all.iter().copied().collect();
    let max = *seen.iter().next_back().expect("records");
    let missing: Vec<u64> = (0..=max).filter(|n| !seen.contains(n)).collect();
    assert!(missing.is_empty(), "seqnos missing: {missing:?}");
    drop(running);
}

/// A plugin directory with a source connector whose task throws from `poll()` after 3 polls,
/// and one that asks for a task reconfiguration, then raises an error.
fn fixture_plugins(w: &Workdir) -> PathBuf {
    let src = w.path("fixture-src/fixture");
    std::fs::create_dir_all(&src).expect("fixture sources");
    let connector = w.write(
        "fixture-src/fixture/FailingSourceConnector.java",
        r#"package fixture;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

public class FailingSourceConnector extends SourceConnector {
    private Map<String, String> props;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) { this.props = props; }
    @Override public Class<? extends Task> taskClass() { return FailingSourceTask.class; }
    /** The task resumes from the connector's committed offset (its OffsetStorageReader). */
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) {
        Map<String, Object> offset = context().offsetStorageReader().offset(Map.of("f", 1));
        Map<String, String> config = new HashMap<>(props);
        config.put("resume.from", offset == null ? "none" : String.valueOf(offset.get("n")));
        return List.of(config);
    }
    @Override public void stop() {}
    @Override public ConfigDef config() { return new ConfigDef(); }
}
"#,
    );
    let task = w.write(
        "fixture-src/fixture/FailingSourceTask.java",
        r#"package fixture;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

public class FailingSourceTask extends SourceTask {
    private int polls;
    private Sensor sensor;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) {
        // KIP-877 plugin metrics: a metric and a sensor of the task's context.
        PluginMetrics metrics = context.pluginMetrics();
        metrics.addMetric(metrics.metricName("polls", "Polls so far.", new LinkedHashMap<>()),
            (Measurable) (config, now) -> polls);
        sensor = metrics.addSensor("poll-sensor");
    }
    @Override public List<SourceRecord> poll() {
        sensor.record();
        polls++;
        if (polls > 3) {
            explode();
        }
        return List.of(new SourceRecord(Map.of("f", 1), Map.of("n", polls), "failing",
            Schema.STRING_SCHEMA, "record " + polls));
    }
    private void explode() {
        throw new IllegalStateException("fixture poll failed after 3 polls");
    }
    @Override public void stop() {}
}
"#,
    );
    let reconfiguring = w.write(
        "fixture-src/fixture/ReconfiguringSourceConnector.java",
        r#"package fixture;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectorContext;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceConnector;

/** Plans tasks of generation 1; its first task's poll asks for generation 2, whose first poll
 *  raises an error on the connector. */
public class ReconfiguringSourceConnector extends SourceConnector {
    static volatile ConnectorContext ctx;
    static volatile int generation = 1;
    private Map<String, String> props;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) { this.props = props; ctx = context(); }
    @Override public Class<? extends Task> taskClass() { return ReconfiguringSourceTask.class; }
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) {
        Map<String, String> c = new HashMap<>(props);
        c.put("generation", Integer.toString(generation));
        return List.of(c);
    }
    @Override public void stop() {}
    @Override public ConfigDef config() { return new ConfigDef(); }

    static void polled(String taskGeneration) {
        if (taskGeneration.equals("1") && generation == 1) {
            generation = 2;
            ctx.requestTaskReconfiguration();
        } else if (taskGeneration.equals("2")) {
            ctx.raiseError(new ConnectException("fixture raised an error in generation 2"));
        }
    }
}
"#,
    );
    let reconfiguring_task = w.write(
        "fixture-src/fixture/ReconfiguringSourceTask.java",
        r#"package fixture;

import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

public class ReconfiguringSourceTask extends SourceTask {
    private String generation;
    private boolean polled;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) { generation = props.get("generation"); }
    @Override public List<SourceRecord> poll() throws InterruptedException {
        if (!polled) {
            polled = true;
            ReconfiguringSourceConnector.polled(generation);
        }
        Thread.sleep(20);
        return null;
    }
    @Override public void stop() {}
}
"#,
    );
    let classes = w.path("fixture-classes");
    support::java::javac(
        &[connector, task, reconfiguring, reconfiguring_task],
        &support::java::host_api_classpath(),
        &classes,
    );
    let plugins = w.path("plugins");
    support::java::jar(&classes, &plugins.join("failing/failing.jar"));
    plugins
}

#[test]
fn a_java_task_that_throws_is_failed_with_the_java_stack_trace() {
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=100\nplugin.path={}\n\
         plugin.discovery=only_scan",
        w.path("offsets").display(),
        plugins.display()
    ));
    let source = w.write(
        "failing.properties",
        "name=failing\nconnector.class=fixture.FailingSourceConnector\ntasks.max=1\n",
    );
    let running = start(&w, &[&worker, &source]);
    let mut status = serde_json::Value::Null;
    wait_for("the Java task to fail", WAIT, || {
        let r = running.client.get("/connectors/failing/status");
        status = r.json();
        r.status == 200 && status["tasks"][0]["state"] == "FAILED"
    });
    assert_eq!(status["connector"]["state"], "RUNNING", "{status:#}");
    let trace = status["tasks"][0]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains("java.lang.IllegalStateException: fixture poll failed after 3 polls"),
        "{trace}"
    );
    assert!(
        trace.contains("\tat fixture.FailingSourceTask.explode(FailingSourceTask.java:")
            && trace.contains("\tat fixture.FailingSourceTask.poll(FailingSourceTask.java:"),
        "the Java stack trace: {trace}"
    );
    // Its plugin metrics were accepted (pluginMetrics() was null before): it failed in its
    // fourth poll, not in `start` (their export: commit_record.rs).

    // The connector reads its committed offset (its OffsetStorageReader) when it plans tasks.
    let task_config = |key: &str| {
        let r = running.client.get("/connectors/failing/tasks");
        r.json()[0]["config"][key].as_str().map(str::to_owned)
    };
    assert_eq!(task_config("resume.from").as_deref(), Some("none"));
    wait_for("the 3 records' offset to be committed", WAIT, || {
        let r = running.client.get("/connectors/failing/offsets");
        r.status == 200 && r.json()["offsets"][0]["offset"]["n"] == 3
    });
    // A restart starts a new connector instance (as Kafka Connect): it plans the tasks anew.
    let r = running
        .client
        .post_with("/connectors/failing/restart", &[], "");
    assert_eq!(r.status, 204, "{}", r.body);
    wait_for(
        "the restarted connector to plan from its offset",
        WAIT,
        || task_config("resume.from").as_deref() == Some("3"),
    );
}

#[test]
fn a_java_connector_reconfigures_its_tasks_and_raises_errors_through_its_context() {
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan",
        w.path("offsets").display(),
        plugins.display()
    ));
    let source = w.write(
        "reconf.properties",
        "name=reconf\nconnector.class=fixture.ReconfiguringSourceConnector\ntasks.max=1\n",
    );
    let running = start(&w, &[&worker, &source]);
    // requestTaskReconfiguration(): the new task configurations are fetched from Java and
    // replace the old ones.
    wait_for("the tasks of generation 2", WAIT, || {
        let r = running.client.get("/connectors/reconf/tasks");
        r.status == 200 && r.json()[0]["config"]["generation"] == "2"
    });
    let tasks = running.client.get("/connectors/reconf/tasks").json();
    assert_eq!(
        tasks[0]["config"]["task.class"], "fixture.ReconfiguringSourceTask",
        "{tasks:#}"
    );
    // raiseError(e): the connector fails with the Java trace.
    let mut status = serde_json::Value::Null;
    wait_for("the connector to fail", WAIT, || {
        let r = running.client.get("/connectors/reconf/status");
        status = r.json();
        r.status == 200 && status["connector"]["state"] == "FAILED"
    });
    let trace = status["connector"]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains("org.apache.kafka.connect.errors.ConnectException: fixture raised an error in generation 2")
            && trace.contains("\tat fixture.ReconfiguringSourceConnector.polled("),
        "{status:#}"
    );
}
