//! `--distributed` without Kafka: connector configurations, target states, task
//! configurations and source offsets live in compacted internal topics of the embedded log (a
//! one-worker cluster), so a restarted worker comes back with the same connectors, in the same
//! states, resuming where it was.

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use support::rest::{start_args, Running};
use support::{line_count, numbered_lines, terminate, wait_for, Workdir};

const DISTRIBUTED: &str = "group.id=connect-cluster\n\
     config.storage.topic=connect-configs\n\
     offset.storage.topic=connect-offsets\n\
     status.storage.topic=connect-status\n\
     offset.flush.interval.ms=100";

fn args(first: &[&str], files: &[&Path]) -> Vec<String> {
    first
        .iter()
        .map(|s| (*s).to_owned())
        .chain(files.iter().map(|f| f.display().to_string()))
        .collect()
}

/// `connect-rs distributed WORKER` run to its end: (exit code, stderr).
fn run_distributed(w: &Workdir, worker: &Path) -> (Option<i32>, String) {
    let out = w
        .command(&["distributed", &worker.display().to_string()])
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn stop(mut running: Running) {
    let status = terminate(&mut running.child, Duration::from_secs(30));
    assert!(status.success(), "worker exited with {status}");
}

/// `connect-rs topics --worker W read TOPIC --from-beginning`: the records' lines.
fn topic_lines(w: &Workdir, worker: &Path, topic: &str) -> String {
    let out = Command::new(support::binary())
        .args(["topics", "--worker"])
        .arg(worker)
        .args(["read", topic, "--from-beginning", "--timeout-ms", "300"])
        .env_remove("RUST_LOG")
        .current_dir(w.dir.path())
        .output()
        .expect("run topics read");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_restarted_worker_comes_back_from_the_internal_topics_and_resumes() {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, 1000, 40));
    let output = w.path("out.txt");
    let worker = w.worker(DISTRIBUTED);
    let src = w.source("src", &input, "lines");
    let dst = w.sink("dst", &output, "lines");

    // First run: the connector files are submitted to the cluster.
    let running = start_args(
        &w,
        &args(&["standalone", "--distributed"], &[&worker, &src, &dst]),
    );
    wait_for("1,000 lines copied", Duration::from_secs(60), || {
        line_count(&output) == 1000
    });
    let list = running.client.get("/connectors").json();
    assert_eq!(list, json!(["dst", "src"]));
    let paused = running.client.put("/connectors/dst/pause", &json!({}));
    assert_eq!(paused.status, 202, "{}", paused.body);
    wait_for("the sink paused", Duration::from_secs(30), || {
        running.client.get("/connectors/dst/status").json()["connector"]["state"] == "PAUSED"
    });
    stop(running);

    // The config topic holds Kafka Connect's records.
    let configs = topic_lines(&w, &worker, "connect-configs");
    assert!(configs.contains("connector-src"), "{configs}");
    assert!(
        configs.contains(r#"{"properties":{"#),
        "connector records carry Kafka Connect's envelope: {configs}"
    );
    assert!(configs.contains("commit-src\t{\"tasks\":1}"), "{configs}");
    assert!(
        configs.contains(r#"target-state-dst	{"state":"PAUSED","state.v2":"PAUSED"}"#),
        "{configs}"
    );
    let offsets = topic_lines(&w, &worker, "connect-offsets");
    assert!(
        offsets.contains(&format!(r#"["src",{{"filename":"{}"}}]"#, input.display())),
        "{offsets}"
    );

    // More input while the worker is down; the second run names no connector file.
    let mut more = std::fs::read(&input).unwrap();
    more.extend(numbered_lines(1000, 500, 40));
    std::fs::write(&input, more).unwrap();
    let running = start_args(&w, &args(&["distributed"], &[&worker]));
    assert_eq!(
        running.client.get("/connectors").json(),
        json!(["dst", "src"])
    );
    let status = running.client.get("/connectors/dst/status").json();
    assert_eq!(status["connector"]["state"], "PAUSED", "{status}");
    assert_eq!(line_count(&output), 1000, "a paused sink writes nothing");
    let resumed = running.client.put("/connectors/dst/resume", &json!({}));
    assert_eq!(resumed.status, 202, "{}", resumed.body);
    wait_for("1,500 lines copied", Duration::from_secs(60), || {
        line_count(&output) == 1500
    });
    stop(running);
    let copied = std::fs::read(&output).unwrap();
    assert_eq!(
        copied,
        std::fs::read(&input).unwrap(),
        "every line once, in order: the source resumed from the offsets topic"
    );
}

#[test]
fn a_distributed_worker_file_without_group_id_is_refused_naming_the_key() {
    let w = Workdir::new();
    let worker = w.worker("config.storage.topic=c\noffset.storage.topic=o\nstatus.storage.topic=s");
    let (code, err) = run_distributed(&w, &worker);
    assert_eq!(code, Some(2));
    assert!(err.contains("group.id"), "{err}");
}

#[test]
fn a_second_worker_on_the_same_embedded_log_is_refused() {
    let w = Workdir::new();
    let worker = w.worker(DISTRIBUTED);
    let running = start_args(&w, &args(&["distributed"], &[&worker]));
    let (code, err) = run_distributed(&w, &worker);
    assert_eq!(code, Some(2));
    assert!(err.contains("embedded log"), "{err}");
    stop(running);
}

#[test]
fn a_distributed_worker_on_kafka_with_an_unusable_security_setting_is_refused_naming_the_key() {
    let w = Workdir::new();
    let worker = w.worker(&format!(
        "{DISTRIBUTED}\nbootstrap.servers=127.0.0.1:9\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI"
    ));
    let (code, err) = run_distributed(&w, &worker);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("sasl.mechanism"), "{err}");
    assert!(err.contains("GSSAPI"), "{err}");
}

/// The values of the records of `key` in `topic_lines` output, in order (`null` for a
/// tombstone).
fn values_of<'a>(lines: &'a str, key: &str) -> Vec<&'a str> {
    lines
        .lines()
        .filter_map(|l| {
            let mut fields = l.splitn(5, '\t');
            let k = fields.nth(3)?;
            (k == key).then(|| fields.next().unwrap_or_default())
        })
        .collect()
}

/// Now, in epoch milliseconds.
fn now_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970");
    i64::try_from(since.as_millis()).expect("a time in range")
}

/// The `discoverTimestamp` of a topic-status value, after checking the value's bytes are
/// Kafka Connect's (`KafkaStatusBackingStore.serializeTopicStatus` through the internal
/// JsonConverter) for `topic`, `connector` and task 0.
#[track_caller]
fn topic_status_timestamp(value: &str, topic: &str, connector: &str) -> i64 {
    let prefix = format!(
        r#"{{"topic":{{"name":"{topic}","connector":"{connector}","task":0,"discoverTimestamp":"#
    );
    let ts = value
        .strip_prefix(&prefix)
        .and_then(|v| v.strip_suffix("}}"))
        .unwrap_or_else(|| panic!("not Kafka Connect's topic status value: {value}"));
    ts.parse()
        .unwrap_or_else(|_| panic!("discoverTimestamp is not a number: {value}"))
}

/// KIP-558 topic tracking in distributed mode: the topics the tasks used are written to the
/// status topic as Kafka Connect writes them (so Java workers and tools see them), a restarted
/// worker reads them back, and a reset or the deletion of the connector writes their
/// tombstones.
#[test]
fn active_topics_live_in_the_status_topic() {
    let w = Workdir::new();
    let input = w.write("in.txt", "one\ntwo\n");
    let output = w.path("out.txt");
    let worker = w.worker(DISTRIBUTED);
    let src = w.source("src", &input, "lines");
    let dst = w.sink("dst", &output, "lines");
    let started = now_ms();
    let running = start_args(
        &w,
        &args(&["standalone", "--distributed"], &[&worker, &src, &dst]),
    );
    wait_for("2 lines copied", Duration::from_secs(60), || {
        line_count(&output) == 2
    });
    let c = &running.client;
    for name in ["src", "dst"] {
        assert_eq!(
            c.get(&format!("/connectors/{name}/topics")).json(),
            json!({ name: {"topics": ["lines"]} })
        );
        // Stopped, the connectors run no task: what /topics answers next comes from the
        // status topic alone.
        let r = c.put(&format!("/connectors/{name}/stop"), &json!({}));
        assert_eq!(r.status, 204, "{}", r.body);
    }
    stop(running);
    let ended = now_ms();
    let status = topic_lines(&w, &worker, "connect-status");
    for name in ["src", "dst"] {
        let values = values_of(&status, &format!("status-topic-lines:connector-{name}"));
        assert_eq!(
            values.len(),
            1,
            "one record per connector and topic:\n{status}"
        );
        let ts = topic_status_timestamp(values[0], "lines", name);
        assert!(
            (started..=ended).contains(&ts),
            "{ts} not in {started}..={ended}"
        );
    }

    // Read back by a restarted worker; a reset writes a tombstone, and so does the deletion
    // of a connector.
    let running = start_args(&w, &args(&["distributed"], &[&worker]));
    let c = &running.client;
    for name in ["src", "dst"] {
        assert_eq!(
            c.get(&format!("/connectors/{name}/topics")).json(),
            json!({ name: {"topics": ["lines"]} })
        );
    }
    let r = c.send("PUT", "/connectors/src/topics/reset", None);
    assert_eq!((r.status, r.body.as_str()), (202, ""));
    assert_eq!(
        c.get("/connectors/src/topics").json(),
        json!({"src": {"topics": []}})
    );
    assert_eq!(
        c.get("/connectors/dst/topics").json(),
        json!({"dst": {"topics": ["lines"]}})
    );
    let r = c.delete("/connectors/dst");
    assert_eq!(r.status, 204, "{}", r.body);
    wait_for("dst's topics gone", Duration::from_secs(30), || {
        c.get("/connectors/dst/topics").json() == json!({"dst": {"topics": []}})
    });
    stop(running);
    let status = topic_lines(&w, &worker, "connect-status");
    for name in ["src", "dst"] {
        let values = values_of(&status, &format!("status-topic-lines:connector-{name}"));
        assert_eq!(values.len(), 2, "the record and its tombstone:\n{status}");
        assert_eq!(values[1], "null", "{status}");
    }
}

/// Cluster-wide logger levels (KIP-976) on the embedded log: a cluster-scope PUT answers 204,
/// writes `logger-cluster-<namespace>` to the config topic as Kafka Connect writes it (the level
/// as the request spelled it) and applies it; a worker started afterwards does not apply it.
#[test]
fn a_cluster_scope_logger_level_is_written_to_the_config_topic_and_applied() {
    const RUNTIME: &str = "org.apache.kafka.connect.runtime";
    let w = Workdir::new();
    let worker = w.worker(DISTRIBUTED);
    let running = start_args(&w, &args(&["distributed"], &[&worker]));
    let c = &running.client;
    let path = format!("/admin/loggers/{RUNTIME}");
    assert_eq!(c.get(&path).status, 404, "not set yet");
    let r = c.put(&format!("{path}?scope=cluster"), &json!({"level": "debug"}));
    assert_eq!((r.status, r.body.as_str()), (204, ""));
    wait_for("the level applied", Duration::from_secs(5), || {
        let l = c.get(&path);
        l.status == 200 && l.json()["level"] == "DEBUG" && l.json()["last_modified"].is_u64()
    });
    assert_eq!(c.get("/admin/loggers").json()[RUNTIME]["level"], "DEBUG");
    // A name that can be no logger is refused before anything is written.
    let r = c.put(
        "/admin/loggers/a=b?scope=cluster",
        &json!({"level": "INFO"}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(r.json()["message"], "Logger a=b not found.");
    stop(running);

    let configs = topic_lines(&w, &worker, "connect-configs");
    assert_eq!(
        values_of(&configs, &format!("logger-cluster-{RUNTIME}")),
        [r#"{"level":"debug"}"#],
        "{configs}"
    );
    assert!(!configs.contains("logger-cluster-a=b"), "{configs}");

    // Written before this worker started: not applied. A record written since is.
    let running = start_args(&w, &args(&["distributed"], &[&worker]));
    let c = &running.client;
    let r = c.put(
        "/admin/loggers/org.apache.kafka.connect.storage?scope=cluster",
        &json!({"level": "TRACE"}),
    );
    assert_eq!((r.status, r.body.as_str()), (204, ""));
    wait_for("the new level applied", Duration::from_secs(5), || {
        c.get("/admin/loggers/org.apache.kafka.connect.storage")
            .json()["level"]
            == "TRACE"
    });
    let r = c.get(&path);
    assert_eq!(r.status, 404, "{}", r.body);
    stop(running);
}

/// With `admin.listeners`, a distributed worker serves `/admin/loggers` only on its admin
/// listener, and a cluster-scope level set there is written to the config topic and applied as
/// on the main listener (no forwarding to the leader is involved, as in Kafka Connect).
#[test]
fn a_cluster_scope_logger_level_is_set_on_the_admin_listener() {
    const RUNTIME: &str = "org.apache.kafka.connect.runtime";
    let w = Workdir::new();
    let worker = w.worker(&format!(
        "{DISTRIBUTED}\nadmin.listeners=http://127.0.0.1:0"
    ));
    let running = start_args(&w, &args(&["distributed"], &[&worker]));
    let marker = "REST admin endpoints listening on http://127.0.0.1:";
    let log = w.log();
    let at = log.find(marker).unwrap_or_else(|| panic!("{log}")) + marker.len();
    let port: u16 = log[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    let admin = support::http::Client::local(port);
    let c = &running.client;
    let path = format!("/admin/loggers/{RUNTIME}");
    let unknown = json!({"error_code": 404, "message": "HTTP 404 Not Found"});
    let r = c.put(&format!("{path}?scope=cluster"), &json!({"level": "debug"}));
    assert_eq!((r.status, r.json()), (404, unknown.clone()));
    assert_eq!(admin.get("/connectors").json(), unknown);
    let r = admin.put(&format!("{path}?scope=cluster"), &json!({"level": "debug"}));
    assert_eq!((r.status, r.body.as_str()), (204, ""));
    wait_for("the level applied", Duration::from_secs(5), || {
        let l = admin.get(&path);
        l.status == 200 && l.json()["level"] == "DEBUG"
    });
    assert_eq!(c.get("/connectors").status, 200);
    stop(running);
    let configs = topic_lines(&w, &worker, "connect-configs");
    assert_eq!(
        values_of(&configs, &format!("logger-cluster-{RUNTIME}")),
        [r#"{"level":"debug"}"#],
        "{configs}"
    );
}

/// Issue 34 item 4 in distributed mode: a connector whose start hangs (a JDBC source on a
/// database that never answers) blocks neither reads nor other connectors' answers nor its
/// own deletion, and is FAILED with the reason after `connector.start.timeout.ms`.
#[test]
fn a_connector_whose_start_hangs_blocks_no_other_request() {
    let w = Workdir::new();
    let worker = w.worker(&format!("{DISTRIBUTED}\nconnector.start.timeout.ms=4000"));
    let input = w.write("in.txt", "a\n");
    let running = start_args(&w, &args(&["distributed"], &[&worker]));
    let created = running.client.post(
        "/connectors",
        &json!({"name": "other", "config": {"connector.class": "FileStreamSource", "file": input, "topic": "t"}}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    support::rest::wait_running(&running.client, "other", Duration::from_secs(60));
    support::rest::check_a_hanging_start_blocks_nothing(running.port, "other", 4000);
    stop(running);
}
