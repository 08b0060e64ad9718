//! Java sink connectors run by the plugin host (milestone M3), standalone on the embedded log:
//! Kafka's own `VerifiableSinkConnector` from `plugin.path` gets every record Kafka's
//! `VerifiableSourceConnector` wrote, its offsets are committed after its `flush`, and after a
//! SIGKILL of the worker it resumes from them with no seqno missing (at least once); a Java sink
//! task that throws from `put` is FAILED with the Java stack trace, one that throws a
//! `RetriableException` gets the batch again, one that calls `requestCommit()` has its offsets
//! committed before the flush interval.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::support;

use support::plugin_jars::plugin_jars;
use support::rest::{start, wait_running};
use support::*;

const WAIT: Duration = Duration::from_secs(120);
const SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";
const SINK: &str = "org.apache.kafka.connect.tools.VerifiableSinkConnector";

/// A seqno printed by a Verifiable task: `"seqno":N` or `"seqno":"N"` (a string after the
/// StringConverter).
fn seqno_in(line: &str) -> Option<u64> {
    let rest = line.split("\"seqno\":").nth(1)?;
    let rest = rest.trim_start_matches('"');
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The `"offset":N` of a line VerifiableSinkTask printed (the record's Kafka offset).
fn offset_in(line: &str) -> Option<u64> {
    let rest = line.split("\"offset\":").nth(1)?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The (seqno, Kafka offset) of each record VerifiableSinkTask got in `put` (its JSON lines
/// with `sinkTask` and without `flushed`), in log order.
pub(crate) fn sink_puts(log: &str) -> Vec<(u64, u64)> {
    log.lines()
        .filter(|l| l.contains("\"sinkTask\"") && !l.contains("\"flushed\""))
        .filter_map(|l| Some((seqno_in(l)?, offset_in(l)?)))
        .collect()
}

/// The seqnos VerifiableSinkTask printed as flushed.
fn sink_flushed(log: &str) -> BTreeSet<u64> {
    log.lines()
        .filter(|l| l.contains("\"sinkTask\"") && l.contains("\"flushed\":true"))
        .filter_map(seqno_in)
        .collect()
}

/// The seqnos VerifiableSourceTask printed (its JSON lines without `sinkTask`).
fn source_sent(log: &str) -> BTreeSet<u64> {
    log.lines()
        .filter(|l| l.contains("\"seqno\"") && !l.contains("\"sinkTask\""))
        .filter_map(seqno_in)
        .collect()
}

/// The committed `kafka_offset` of partition 0 of `seq` for connector `vsink`.
fn committed(client: &support::http::Client) -> Option<u64> {
    let r = client.get("/connectors/vsink/offsets");
    if r.status != 200 {
        return None;
    }
    r.json()["offsets"]
        .as_array()?
        .iter()
        .find(|o| o["partition"]["kafka_topic"] == "seq")?["offset"]["kafka_offset"]
        .as_u64()
}

#[test]
fn verifiable_sink_gets_every_record_commits_and_resumes_after_a_sigkill() {
    let jars = plugin_jars();
    let w = Workdir::new();
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=200\nplugin.path={}\nplugin.host.classpath={}",
        w.path("offsets").display(),
        jars.plugin_path.display(),
        jars.classpath_string()
    ));
    let source = w.write(
        "vsource.properties",
        format!("name=vsource\nconnector.class={SOURCE}\ntasks.max=1\ntopic=seq\nthroughput=200\n"),
    );
    let sink = w.write(
        "vsink.properties",
        format!("name=vsink\nconnector.class={SINK}\ntasks.max=1\ntopics=seq\n"),
    );

    let running = start(&w, &[&worker, &source, &sink]);
    wait_running(&running.client, "vsink", WAIT);
    wait_for("100 records put into the Java sink task", WAIT, || {
        sink_puts(&w.log()).len() >= 100
    });
    wait_for("the sink's offsets to be committed", WAIT, || {
        committed(&running.client).is_some_and(|o| o >= 50)
    });
    let status = running.client.get("/connectors/vsink/status").json();
    assert_eq!(status["connector"]["state"], "RUNNING", "{status:#}");
    assert_eq!(status["tasks"][0]["state"], "RUNNING", "{status:#}");
    let tasks = running.client.get("/connectors/vsink/tasks").json();
    assert_eq!(
        tasks[0]["config"]["task.class"], "org.apache.kafka.connect.tools.VerifiableSinkTask",
        "{tasks:#}"
    );
    let log = w.log();
    // In order, each once, from the start of the topic; the task's flush (its preCommit)
    // printed what it was given.
    let first_run = sink_puts(&log);
    let seqnos: Vec<u64> = first_run.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        seqnos,
        (0..seqnos.len() as u64).collect::<Vec<_>>(),
        "records put in order:\n{log}"
    );
    let offsets: Vec<u64> = first_run.iter().map(|(_, o)| *o).collect();
    assert_eq!(offsets, seqnos, "each record's Kafka offset");
    assert!(!sink_flushed(&log).is_empty(), "flush was called:\n{log}");
    let sent_before = source_sent(&log);
    let committed_before = committed(&running.client).expect("committed offset");

    // SIGKILL the worker, start it again: the sink resumes from its committed offset (at most
    // what was put but not committed comes again) and no seqno is missing.
    let mut running = running;
    running.child.kill().expect("SIGKILL the worker");
    let _ = running.child.wait();
    let running = start(&w, &[&worker, &source, &sink]);
    wait_running(&running.client, "vsink", WAIT);
    let max_before = *sent_before.iter().next_back().expect("records sent");
    wait_for(
        "the sink to pass what was sent before the kill",
        WAIT,
        || {
            sink_puts(&w.log())
                .iter()
                .any(|(s, _)| *s > max_before + 20)
        },
    );
    let log = w.log();
    let second_run = sink_puts(&log);
    let first_offset = second_run.first().map(|(_, o)| *o).expect("records put");
    assert!(
        first_offset >= committed_before,
        "redelivered from offset {first_offset}, but {committed_before} was committed"
    );
    let seen: BTreeSet<u64> = first_run
        .iter()
        .chain(second_run.iter())
        .map(|(s, _)| *s)
        .collect();
    let max = second_run.iter().map(|(s, _)| *s).max().expect("records");
    let missing: Vec<u64> = (0..=max).filter(|n| !seen.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "seqnos missing in the sink: {missing:?}"
    );
    drop(running);
}

/// Writes `<dir>/fixture/<name>.java`: a sink connector (version 1.0, no keys) whose one task
/// configuration is its own and whose task is `fixture.<task>`.
pub(crate) fn sink_connector_java(w: &Workdir, dir: &str, name: &str, task: &str) -> PathBuf {
    w.write(
        &format!("{dir}/fixture/{name}.java"),
        format!(
            r#"package fixture;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

public class {name} extends SinkConnector {{
    private Map<String, String> props;
    @Override public String version() {{ return "1.0"; }}
    @Override public void start(Map<String, String> props) {{ this.props = props; }}
    @Override public Class<? extends Task> taskClass() {{ return {task}.class; }}
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) {{ return List.of(props); }}
    @Override public void stop() {{}}
    @Override public ConfigDef config() {{ return new ConfigDef(); }}
}}
"#
        ),
    )
}

/// Writes `<dir>/fixture/<name>.java`: a source connector (version 1.0, no keys) whose one
/// task configuration is its own and whose task is `fixture.<task>`.
pub(crate) fn source_connector_java(w: &Workdir, dir: &str, name: &str, task: &str) -> PathBuf {
    let sink = sink_connector_java(w, dir, name, task);
    let text = std::fs::read_to_string(&sink).expect("the connector source");
    w.write(
        &format!("{dir}/fixture/{name}.java"),
        text.replace("sink.SinkConnector", "source.SourceConnector")
            .replace("extends SinkConnector", "extends SourceConnector"),
    )
}

/// A plugin directory with a sink connector whose task throws from `put`, one whose first
/// `put` throws a `RetriableException` (after `context.timeout(100)`), and one whose task
/// calls `context.requestCommit()` in `put`, one whose task rewinds (`context.offset`) to offset
/// 1 in `open` and once more in the `put` that got offset 1, and one whose task pauses its
/// partitions in its first `put` and resumes them in a `put` after the file `resume.file` names
/// exists (printing each record it gets, and each empty `put` while paused).
fn fixture_plugins(w: &Workdir) -> PathBuf {
    let connector = |name: &str, task: &str| sink_connector_java(w, "sink-src", name, task);
    let failing = connector("FailingSinkConnector", "FailingSinkTask");
    let failing_task = w.write(
        "sink-src/fixture/FailingSinkTask.java",
        r#"package fixture;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class FailingSinkTask extends SinkTask {
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) {}
    @Override public void put(Collection<SinkRecord> records) {
        if (!records.isEmpty()) {
            explode(records.iterator().next());
        }
    }
    private void explode(SinkRecord r) {
        throw new IllegalStateException("fixture put failed on " + r.value());
    }
    @Override public void stop() {}
}
"#,
    );
    let flaky = connector("FlakySinkConnector", "FlakySinkTask");
    let flaky_task = w.write(
        "sink-src/fixture/FlakySinkTask.java",
        r#"package fixture;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class FlakySinkTask extends SinkTask {
    private boolean failed;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) {}
    @Override public void put(Collection<SinkRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        if (!failed) {
            failed = true;
            context.timeout(100);
            throw new RetriableException("fixture put not ready yet");
        }
        for (SinkRecord r : records) {
            System.out.println("flaky got " + r.value() + " at " + r.kafkaOffset() + " of " + context.assignment());
        }
    }
    @Override public void stop() {}
}
"#,
    );
    let committing = connector("CommittingSinkConnector", "CommittingSinkTask");
    let committing_task = w.write(
        "sink-src/fixture/CommittingSinkTask.java",
        r#"package fixture;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class CommittingSinkTask extends SinkTask {
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) {}
    @Override public void put(Collection<SinkRecord> records) {
        if (!records.isEmpty()) {
            context.requestCommit();
        }
    }
    @Override public void stop() {}
}
"#,
    );
    let rewinding = connector("RewindingSinkConnector", "RewindingSinkTask");
    let rewinding_task = w.write(
        "sink-src/fixture/RewindingSinkTask.java",
        r#"package fixture;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class RewindingSinkTask extends SinkTask {
    private boolean rewound;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) {}
    @Override public void open(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            context.offset(tp, 1L);
        }
    }
    @Override public void put(Collection<SinkRecord> records) {
        for (SinkRecord r : records) {
            System.out.println("rewinding got " + r.value() + " at " + r.kafkaOffset());
            if (!rewound && r.kafkaOffset() == 1L) {
                rewound = true;
                context.offset(new TopicPartition(r.topic(), r.kafkaPartition()), 1L);
            }
        }
    }
    @Override public void stop() {}
}
"#,
    );
    let pausing = connector("PausingSinkConnector", "PausingSinkTask");
    let pausing_task = w.write(
        "sink-src/fixture/PausingSinkTask.java",
        r#"package fixture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class PausingSinkTask extends SinkTask {
    private Path resumeFile;
    private boolean paused;
    private boolean resumed;
    private int idle;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) { resumeFile = Path.of(props.get("resume.file")); }
    @Override public void put(Collection<SinkRecord> records) {
        for (SinkRecord r : records) {
            System.out.println("pausing got " + r.value() + " at " + r.kafkaOffset());
        }
        TopicPartition[] all = context.assignment().toArray(new TopicPartition[0]);
        if (!paused && !resumed && !records.isEmpty()) {
            context.pause(all);
            paused = true;
            System.out.println("pausing paused");
        } else if (paused && records.isEmpty()) {
            System.out.println("pausing idle put " + (++idle));
            if (Files.exists(resumeFile)) {
                context.resume(all);
                paused = false;
                resumed = true;
                System.out.println("pausing resumed");
            }
        }
    }
    @Override public void stop() {}
}
"#,
    );
    let classes = w.path("sink-classes");
    support::java::javac(
        &[
            failing,
            failing_task,
            flaky,
            flaky_task,
            committing,
            committing_task,
            rewinding,
            rewinding_task,
            pausing,
            pausing_task,
        ],
        &support::java::host_api_classpath(),
        &classes,
    );
    let plugins = w.path("plugins");
    support::java::jar(&classes, &plugins.join("fixture-sinks/fixture-sinks.jar"));
    plugins
}

#[test]
fn java_sink_tasks_fail_with_the_java_trace_get_retriable_puts_again_and_request_commits() {
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan\n\
         offset.flush.interval.ms=600000",
        w.path("offsets").display(),
        plugins.display()
    ));
    let input = w.write("in.txt", "first\nsecond\n");
    let source = w.write(
        "lines.properties",
        format!(
            "name=lines\nconnector.class=FileStreamSource\ntasks.max=1\nfile={}\ntopic=lines\n",
            input.display()
        ),
    );
    let failing = w.write(
        "failing.properties",
        "name=failing\nconnector.class=fixture.FailingSinkConnector\ntasks.max=1\ntopics=lines\n",
    );
    let flaky = w.write(
        "flaky.properties",
        "name=flaky\nconnector.class=fixture.FlakySinkConnector\ntasks.max=1\ntopics=lines\n",
    );
    let committing = w.write(
        "committing.properties",
        "name=committing\nconnector.class=fixture.CommittingSinkConnector\ntasks.max=1\ntopics=lines\n",
    );
    let running = start(&w, &[&worker, &source, &failing, &flaky, &committing]);

    // requestCommit(): the offsets are committed now, not at the (10 minutes) flush interval.
    wait_for("the requested commit of the sink's offsets", WAIT, || {
        let r = running.client.get("/connectors/committing/offsets");
        r.status == 200 && r.json()["offsets"][0]["offset"]["kafka_offset"] == 2
    });

    // A RetriableException: the same records come again, and the task keeps running.
    wait_for("the flaky sink to get the records again", WAIT, || {
        w.log().contains("flaky got second at 1 of [lines-0]")
    });
    let log = w.log();
    assert!(log.contains("flaky got first at 0 of [lines-0]"), "{log}");
    let flaky_status = running.client.get("/connectors/flaky/status").json();
    assert_eq!(
        flaky_status["tasks"][0]["state"], "RUNNING",
        "{flaky_status:#}"
    );

    // Any other exception: FAILED with the Java stack trace.
    let mut status = serde_json::Value::Null;
    wait_for("the Java sink task to fail", WAIT, || {
        let r = running.client.get("/connectors/failing/status");
        status = r.json();
        r.status == 200 && status["tasks"][0]["state"] == "FAILED"
    });
    assert_eq!(status["connector"]["state"], "RUNNING", "{status:#}");
    let trace = status["tasks"][0]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains("java.lang.IllegalStateException: fixture put failed on first"),
        "{trace}"
    );
    assert!(
        trace.contains("\tat fixture.FailingSinkTask.explode(FailingSinkTask.java:")
            && trace.contains("\tat fixture.FailingSinkTask.put(FailingSinkTask.java:"),
        "the Java stack trace: {trace}"
    );
}

/// The Kafka offsets of the records a fixture sink printed as `<name> got <value> at <offset>`.
fn got_offsets(log: &str, name: &str) -> Vec<u64> {
    let prefix = format!("{name} got ");
    log.lines()
        .filter_map(|l| l.split(prefix.as_str()).nth(1))
        .filter_map(|rest| rest.rsplit(" at ").next()?.trim().parse().ok())
        .collect()
}

/// The offsets a rewinding sink got from its rewind in `put` on (the second time it got
/// offset 1), once it got offset 3 after it.
fn after_second_rewind(offsets: &[u64]) -> Option<&[u64]> {
    let second = offsets
        .iter()
        .enumerate()
        .filter(|(_, &o)| o == 1)
        .nth(1)?
        .0;
    let rest = &offsets[second..];
    rest.contains(&3).then_some(rest)
}

/// What a Java sink task asks of its consumer is done, as Kafka Connect does it: a rewind
/// (`context.offset`) in `open` skips the first record, one in `put` delivers the records again
/// from there; `pause` holds back the records written meanwhile while the task keeps getting
/// (empty) `put`s, and `resume` delivers them, each once and in order.
#[test]
fn java_sink_tasks_rewind_pause_and_resume_their_partitions() {
    let w = Workdir::new();
    let plugins = fixture_plugins(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan",
        w.path("offsets").display(),
        plugins.display()
    ));
    let input = w.write("in.txt", "first\nsecond\n");
    let source = w.write(
        "lines.properties",
        format!(
            "name=lines\nconnector.class=FileStreamSource\ntasks.max=1\nfile={}\ntopic=lines\n",
            input.display()
        ),
    );
    let rewinding = w.write(
        "rewinding.properties",
        "name=rewinding\nconnector.class=fixture.RewindingSinkConnector\ntasks.max=1\ntopics=lines\n",
    );
    let resume = w.path("resume");
    let pausing = w.write(
        "pausing.properties",
        format!(
            "name=pausing\nconnector.class=fixture.PausingSinkConnector\ntasks.max=1\n\
             topics=lines\nresume.file={}\n",
            resume.display()
        ),
    );
    let _running = start(&w, &[&worker, &source, &rewinding, &pausing]);

    wait_for("the pausing sink to pause", WAIT, || {
        w.log().contains("pausing paused")
    });
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    std::io::Write::write_all(&mut file, b"third\nfourth\n").unwrap();
    // The rewinding sink got them: they are in the topic.
    let mut rewound = Vec::new();
    wait_for("the rewinding sink to get every record again", WAIT, || {
        rewound = got_offsets(&w.log(), "rewinding");
        after_second_rewind(&rewound).is_some()
    });
    assert_eq!(
        rewound[0], 1,
        "the rewind in open skips offset 0: {rewound:?}"
    );
    let again = after_second_rewind(&rewound).unwrap();
    assert_eq!(again, [1, 2, 3], "from the rewind in put on: {rewound:?}");
    let before = &rewound[..rewound.len() - again.len()];
    assert_eq!(
        before,
        (1..=before.len() as u64).collect::<Vec<_>>(),
        "up to the rewind in put: {rewound:?}"
    );

    // Paused: `put` keeps coming, empty, while the records wait.
    let idle_puts = |log: &str| log.matches("pausing idle put").count();
    let idle_then = idle_puts(&w.log());
    wait_for("three more empty puts of the paused task", WAIT, || {
        idle_puts(&w.log()) >= idle_then + 3
    });
    let log = w.log();
    assert!(
        !log.contains("pausing got third"),
        "a record of a paused partition was delivered: {log}"
    );
    std::fs::write(&resume, "").unwrap();
    wait_for("the records held while paused", WAIT, || {
        w.log().contains("pausing got fourth at 3")
    });
    let log = w.log();
    assert_eq!(got_offsets(&log, "pausing"), [0, 1, 2, 3], "{log}");
    let paused_at = log.find("pausing paused").unwrap();
    let resumed_at = log.find("pausing resumed").unwrap();
    assert!(
        !log[paused_at..resumed_at].contains("pausing got"),
        "records delivered while paused: {log}"
    );
}
