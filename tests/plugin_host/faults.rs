//! A plugin host JVM that dies (milestone M5, issue 28 point 4): SIGKILLed three times under a
//! standalone worker on the embedded log running Kafka's `VerifiableSourceConnector` →
//! topic → `VerifiableSinkConnector` beside built-in FileStream connectors. Each death fails
//! only the Java tasks (retriably, naming the signal), the worker starts the next JVM, the
//! Java tasks restart from their committed offsets and the Java connector instances start
//! again on it; the built-in tasks never notice. No seqno is missing in the topic or at the
//! sink, and the Java connectors still answer afterwards.

use std::collections::BTreeSet;
use std::process::Command;
use std::time::Duration;

use crate::sink::sink_puts;
use crate::source::{jvm_pid, seqnos};
use crate::support;

use support::plugin_jars::plugin_jars;
use support::rest::{start, wait_running};
use support::*;

const WAIT: Duration = Duration::from_secs(60);
const SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";
const SINK: &str = "org.apache.kafka.connect.tools.VerifiableSinkConnector";

/// How many lines of `log` hold all of `parts`.
fn count(log: &str, parts: &[&str]) -> usize {
    log.lines()
        .filter(|l| parts.iter().all(|p| l.contains(p)))
        .count()
}

/// How many times connector `name`'s instance started.
fn connector_starts(log: &str, name: &str) -> usize {
    count(
        log,
        &[
            &format!("connector{{connector={name}}}:"),
            "Connector started.",
        ],
    )
}

/// Whether connector `name` and its `tasks` tasks are RUNNING.
fn all_running(client: &support::http::Client, name: &str, tasks: usize) -> bool {
    let r = client.get(&format!("/connectors/{name}/status"));
    let s = r.json();
    let states: Vec<&serde_json::Value> = s["tasks"]
        .as_array()
        .map(|t| t.iter().map(|t| &t["state"]).collect())
        .unwrap_or_default();
    r.status == 200
        && s["connector"]["state"] == "RUNNING"
        && states.len() == tasks
        && states.iter().all(|s| *s == "RUNNING")
}

#[test]
fn a_killed_plugin_host_jvm_fails_only_its_tasks_which_resume_on_the_next_one() {
    let jars = plugin_jars();
    let w = Workdir::new();
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=200\nplugin.path={}\n\
         plugin.host.classpath={}\nplugin.host.restart.backoff.ms=100\n\
         plugin.host.restart.backoff.max.ms=1000\ntask.restart.initial.backoff.ms=100\n\
         task.restart.max.backoff.ms=1000",
        w.path("offsets").display(),
        jars.plugin_path.display(),
        jars.classpath_string()
    ));
    let vsource = w.write(
        "vsource.properties",
        format!("name=vsource\nconnector.class={SOURCE}\ntasks.max=1\ntopic=seq\nthroughput=100\n"),
    );
    let vsink = w.write(
        "vsink.properties",
        format!("name=vsink\nconnector.class={SINK}\ntasks.max=1\ntopics=seq\n"),
    );
    // Built-in connectors in the same worker: the topic's content into a file, and a file
    // into another topic.
    let out = w.path("seq.txt");
    let topic_file = w.sink("seqfile", &out, "seq");
    let input = w.write("in.txt", "a\nb\nc\n");
    let lines = w.source("lines", &input, "lines");

    let running = start(&w, &[&worker, &vsource, &vsink, &topic_file, &lines]);
    for name in ["vsource", "vsink", "seqfile", "lines"] {
        wait_running(&running.client, name, WAIT);
    }
    wait_for("50 records in the topic", WAIT, || seqnos(&out).len() >= 50);

    for kill in 1..=3 {
        let log = w.log();
        let pid = jvm_pid(&log).unwrap_or_else(|| panic!("no JVM pid in the log:\n{log}"));
        let starts = (
            connector_starts(&log, "vsource"),
            connector_starts(&log, "vsink"),
        );
        let (records, puts) = (seqnos(&out).len(), sink_puts(&log).len());
        let killed = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .expect("run kill");
        assert!(killed.success(), "kill {pid} (kill {kill})");
        wait_for(&format!("the JVM after kill {kill}"), WAIT, || {
            jvm_pid(&w.log()).is_some_and(|p| p != pid)
        });
        wait_for(
            &format!("the Java connector instances to start again (kill {kill})"),
            WAIT,
            || {
                let log = w.log();
                connector_starts(&log, "vsource") > starts.0
                    && connector_starts(&log, "vsink") > starts.1
            },
        );
        wait_for(
            &format!("the Java tasks to run again (kill {kill})"),
            WAIT,
            || {
                all_running(&running.client, "vsource", 1)
                    && all_running(&running.client, "vsink", 1)
            },
        );
        wait_for(&format!("the source to go on (kill {kill})"), WAIT, || {
            seqnos(&out).len() >= records + 30
        });
        wait_for(&format!("the sink to go on (kill {kill})"), WAIT, || {
            sink_puts(&w.log()).len() >= puts + 30
        });
    }

    // At least once: every seqno up to the highest is in the topic...
    let topic: BTreeSet<u64> = seqnos(&out).into_iter().collect();
    let max = *topic.iter().next_back().expect("records");
    let missing: Vec<u64> = (0..=max).filter(|n| !topic.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "seqnos missing in the topic: {missing:?}"
    );
    // ... and the Java sink task got every one of them.
    let mut unput = Vec::new();
    wait_for("the sink to get every seqno of the topic", WAIT, || {
        let put: BTreeSet<u64> = sink_puts(&w.log()).iter().map(|(s, _)| *s).collect();
        unput = (0..=max).filter(|n| !put.contains(n)).collect();
        unput.is_empty()
    });

    let log = w.log();
    assert!(
        log.contains("plugin host JVM connected (generation 4,"),
        "three restarted JVMs:\n{log}"
    );
    // Each death failed the Java tasks retriably, saying how the JVM ended; they and the
    // connector instances were started again.
    for name in ["vsource", "vsink"] {
        let failed = count(
            &log,
            &[
                &format!("task{{connector={name} task=0}}"),
                "Task failed with a retriable error; restarting it.",
                "plugin host JVM (generation ",
                "exited: killed by signal 9 (SIGKILL)",
            ],
        );
        assert!(
            failed >= 3,
            "{name}: {failed} restarts after a JVM death:\n{log}"
        );
        assert_eq!(
            connector_starts(&log, name),
            4,
            "{name}'s instances:\n{log}"
        );
        assert!(all_running(&running.client, name, 1), "{name}");
    }
    // The built-in tasks never noticed.
    for (name, started) in [
        ("lines", "Source task started."),
        ("seqfile", "Sink task started."),
    ] {
        assert_eq!(
            count(
                &log,
                &[&format!("task{{connector={name} task=0}}"), started]
            ),
            1,
            "{name}'s task started once:\n{log}"
        );
        assert_eq!(
            count(&log, &[&format!("connector={name}"), "Task failed"]),
            0,
            "{name}'s task never failed:\n{log}"
        );
        assert_eq!(connector_starts(&log, name), 1, "{name}'s instance:\n{log}");
        assert!(all_running(&running.client, name, 1), "{name}");
    }

    // The Java connector instance on the last JVM still answers: a new tasks.max makes it
    // plan two tasks, which run.
    let mut config = running.client.get("/connectors/vsink/config").json();
    config["tasks.max"] = serde_json::json!("2");
    let r = running.client.put("/connectors/vsink/config", &config);
    assert_eq!(r.status, 200, "{}", r.json());
    wait_for("vsink's two tasks", WAIT, || {
        all_running(&running.client, "vsink", 2)
    });
    let tasks = running.client.get("/connectors/vsink/tasks").json();
    assert_eq!(tasks.as_array().map(Vec::len), Some(2), "{tasks:#}");
    drop(running);
}
