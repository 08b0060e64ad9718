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

/// The session keys of the config topic, in order: (key bytes, algorithm, creation timestamp).
fn session_keys(w: &Workdir, worker: &Path) -> Vec<(Vec<u8>, String, i64)> {
    use base64::Engine as _;
    let lines = topic_lines(w, worker, "connect-configs");
    values_of(&lines, "session-key")
        .into_iter()
        .map(|value| {
            let v: serde_json::Value = serde_json::from_str(value)
                .unwrap_or_else(|e| panic!("session key record {value}: {e}"));
            let key = base64::engine::general_purpose::STANDARD
                .decode(v["key"].as_str().expect("a key"))
                .expect("base64");
            (
                key,
                v["algorithm"].as_str().expect("an algorithm").to_owned(),
                v["creation-timestamp"]
                    .as_i64()
                    .expect("a creation timestamp"),
            )
        })
        .collect()
}

/// `POST path` of `body` signed as another worker would sign it (KIP-507) with `key`.
fn post_signed(running: &Running, path: &str, key: &[u8], body: &str) -> support::http::Response {
    use base64::Engine as _;
    let pkey = openssl::pkey::PKey::hmac(key).expect("an HMAC key");
    let mut signer =
        openssl::sign::Signer::new(openssl::hash::MessageDigest::sha256(), &pkey).unwrap();
    signer.update(body.as_bytes()).unwrap();
    let signature = base64::engine::general_purpose::STANDARD.encode(signer.sign_to_vec().unwrap());
    running.client.post_with(
        path,
        &[
            ("X-Connect-Authorization", &signature),
            ("X-Connect-Request-Signature-Algorithm", "HmacSHA256"),
        ],
        body,
    )
}

/// KIP-507 as Kafka Connect's leader does it: the session key is replaced when it expires
/// (`inter.worker.key.ttl.ms` after its creation), and a request signed with a replaced key
/// is refused with Kafka Connect's 403 while one signed with the current key is accepted.
#[test]
fn the_leader_rotates_the_session_key_at_its_ttl_and_a_replaced_key_is_refused() {
    const TTL_MS: i64 = 3000;
    let w = Workdir::new();
    let worker = w.worker(&format!("{DISTRIBUTED}\ninter.worker.key.ttl.ms={TTL_MS}"));
    let src = w.source("src", &w.write("in.txt", "a\n"), "lines");
    let running = start_args(
        &w,
        &args(&["standalone", "--distributed"], &[&worker, &src]),
    );
    support::rest::wait_running(&running.client, "src", Duration::from_secs(30));
    // The task configurations as another worker would send them to the leader: writing them
    // again changes nothing, so an accepted request answers 204.
    let tasks = running.client.get("/connectors/src/tasks").json();
    let configs: Vec<serde_json::Value> = tasks
        .as_array()
        .expect("a list of tasks")
        .iter()
        .map(|t| t["config"].clone())
        .collect();
    let body = serde_json::Value::Array(configs).to_string();

    let mut keys = Vec::new();
    wait_for(
        "a session key in the config topic",
        Duration::from_secs(10),
        || {
            keys = session_keys(&w, &worker);
            !keys.is_empty()
        },
    );
    let (first, algorithm, created) = keys[0].clone();
    assert_eq!(algorithm, "HmacSHA256");
    wait_for(
        "a second session key, written at the first one's TTL",
        Duration::from_millis(TTL_MS as u64 + 15_000),
        || {
            keys = session_keys(&w, &worker);
            keys.len() >= 2
        },
    );
    let (second, _, rotated) = keys[1].clone();
    assert_ne!(first, second, "a new key");
    assert!(
        // Not before the TTL; soon after it (a loaded machine may wake the leader late).
        rotated - created >= TTL_MS && rotated - created < TTL_MS + 5000,
        "the key was replaced {} ms after its creation; its TTL is {TTL_MS} ms",
        rotated - created
    );

    let refused = post_signed(&running, "/connectors/src/tasks", &first, &body);
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(
        refused.json()["message"],
        "Internal request contained invalid signature.",
        "{}",
        refused.body
    );
    // The current key (rotation goes on every 3 s: the newest key read when sending).
    wait_for(
        "a request signed with the current key to be accepted",
        Duration::from_secs(20),
        || {
            let keys = session_keys(&w, &worker);
            let current = &keys.last().expect("keys").0;
            post_signed(&running, "/connectors/src/tasks", current, &body).status == 204
        },
    );
    stop(running);
}

/// The embedded log holds the session key and connector configurations: only the worker's
/// user can read them. Every file connect-rs writes is 0600, every directory 0700; the user
/// `nobody` cannot read the config topic's segment, so it cannot sign internal requests.
#[test]
fn the_session_key_on_disk_is_private_to_the_workers_user() {
    let w = Workdir::new();
    // Only connect-rs's own modes may stop another user from reading its files.
    support::chmod(w.dir.path(), 0o755);
    let worker = w.worker(DISTRIBUTED);
    let input = w.write("in.txt", numbered_lines(0, 100, 40));
    let output = w.path("out.txt");
    let src = w.source("src", &input, "lines");
    let dst = w.sink("dst", &output, "lines");
    let running = start_args(
        &w,
        &args(&["standalone", "--distributed"], &[&worker, &src, &dst]),
    );
    wait_for("100 lines copied", Duration::from_secs(60), || {
        line_count(&output) == 100
    });
    let key = session_keys(&w, &worker).pop().expect("a session key").0;
    let data = w.path("data");
    let segment = data.join("connect-configs-0/00000000000000000000.log");
    assert!(
        std::fs::read(&segment)
            .unwrap()
            .windows(8)
            .any(|win| win == b"session-"),
        "the segment holds the session key"
    );
    // What a reader of the file could do with it: a signed internal request passes the check
    // (404: no such connector, after the signature was accepted).
    let forged = post_signed(&running, "/connectors/nope/tasks", &key, "[]");
    assert_eq!(forged.status, 404, "{}", forged.body);

    if support::is_root() {
        let read = support::cat_as_nobody(&segment);
        assert!(!read.status.success(), "nobody read the segment");
        assert!(
            support::stderr(&read).contains("Permission denied"),
            "{}",
            support::stderr(&read)
        );
        // The file's own mode stops nobody, also where its directories would let it through.
        support::chmod(&data, 0o755);
        support::chmod(&data.join("connect-configs-0"), 0o755);
        let read = support::cat_as_nobody(&segment);
        assert!(!read.status.success(), "nobody read the segment");
        assert!(read.stdout.is_empty());
        support::chmod(&data.join("connect-configs-0"), 0o700);
        support::chmod(&data, 0o700);
        // Without the key, a forged signature (here under a guessed key) is refused.
        let refused = post_signed(&running, "/connectors/nope/tasks", &[0u8; 32], "[]");
        assert_eq!(refused.status, 403, "{}", refused.body);
    } else {
        eprintln!("not root: the read as user nobody is left out; the modes are checked");
    }
    stop(running);
    assert_eq!(support::not_private(&data), Vec::<String>::new());
}
