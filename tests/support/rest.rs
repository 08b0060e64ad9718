//! Running the real binary with its REST API for a test: start, find the port in the log,
//! and kill the process if the test fails before stopping it.

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use super::http::Client;
use super::{wait_for, Workdir};

/// How long a worker may take to serve its REST API.
pub const STARTUP: Duration = Duration::from_secs(60);

/// A running worker that is killed if the test ends before stopping it.
pub struct Running {
    pub child: Child,
    pub client: Client,
    pub port: u16,
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The port of `REST API listening on http://127.0.0.1:PORT` in a log.
pub fn rest_port(log: &str) -> Option<u16> {
    let marker = "REST API listening on http://127.0.0.1:";
    let at = log.find(marker)? + marker.len();
    let digits: String = log[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Starts `connect-rs standalone` with these files and waits for its REST API.
pub fn start(w: &Workdir, files: &[&Path]) -> Running {
    let mut args = vec!["standalone".to_owned()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    start_args(w, &args)
}

/// Starts `connect-rs ARGS...` and waits for its REST API.
pub fn start_args(w: &Workdir, args: &[String]) -> Running {
    let mut child = w.spawn_args(args);
    let mut port = None;
    wait_for("the REST API to listen", STARTUP, || {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("connect-rs exited with {status}; its log:\n{}", w.log());
        }
        port = rest_port(&w.log());
        port.is_some()
    });
    let port = port.unwrap_or_else(|| unreachable!());
    Running {
        child,
        client: Client::local(port),
        port,
    }
}

/// Waits until connector `name` and all its tasks (at least one) are RUNNING.
#[track_caller]
pub fn wait_running(c: &Client, name: &str, timeout: Duration) {
    wait_for(&format!("{name} to be RUNNING"), timeout, || {
        let r = c.get(&format!("/connectors/{name}/status"));
        if r.status != 200 {
            return false;
        }
        let s = r.json();
        let tasks = s["tasks"].as_array().cloned().unwrap_or_default();
        s["connector"]["state"] == "RUNNING"
            && !tasks.is_empty()
            && tasks.iter().all(|t| t["state"] == "RUNNING")
    });
}

/// A TCP listener on a free local port that accepts connections and never answers (a database
/// that hangs at connect); it lives until the test process ends. Returns its port.
pub fn blackhole() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    let port = listener.local_addr().expect("local address").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

/// `POST /connectors` of connector `name` with `config` on another thread (it waits for the
/// connector's start); joins to the response and how long it took.
pub fn post_in_background(
    port: u16,
    name: &str,
    config: &serde_json::Value,
) -> std::thread::JoinHandle<(super::http::Response, Duration)> {
    let body = serde_json::json!({"name": name, "config": config});
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let response = Client::local(port).post("/connectors", &body);
        (response, started.elapsed())
    })
}

/// Issue 34 item 4: a JDBC source whose database accepts TCP and never answers hangs in its
/// start. On the worker at `port` (with `connector.start.timeout.ms=<bound_ms>`, running
/// connector `other`): while the POST that created it waits, the worker answers every other
/// request at once; the connector is FAILED after the bound with the reason (and the POST is
/// answered then); deleting a connector whose start hangs is answered at once.
pub fn check_a_hanging_start_blocks_nothing(port: u16, other: &str, bound_ms: u64) {
    use serde_json::{json, Value};
    use std::time::Instant;

    let c = Client::local(port);
    let db = blackhole();
    let config = json!({
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": format!("jdbc:postgresql://127.0.0.1:{db}/db"),
        "mode": "bulk",
        "topic.prefix": "db-",
        "tasks.max": "1",
    });
    let listed = |name: &str| {
        c.get("/connectors")
            .json()
            .as_array()
            .is_some_and(|names| names.contains(&json!(name)))
    };
    let post = post_in_background(port, "stuck", &config);
    wait_for(
        "the hanging connector to be listed",
        Duration::from_secs(10),
        || listed("stuck"),
    );
    for path in [
        "/connectors".to_owned(),
        format!("/connectors/{other}/status"),
        format!("/connectors/{other}"),
        "/connectors/stuck/status".to_owned(),
        "/connectors/stuck".to_owned(),
    ] {
        let asked = Instant::now();
        let r = c.get(&path);
        let took = asked.elapsed();
        assert_eq!(r.status, 200, "GET {path}: {}", r.body);
        assert!(took < Duration::from_secs(1), "GET {path} took {took:?}");
    }
    let status = c.get("/connectors/stuck/status").json();
    assert_eq!(status["connector"]["state"], "UNASSIGNED", "{status}");
    assert_eq!(
        c.get(&format!("/connectors/{other}/status")).json()["connector"]["state"],
        "RUNNING"
    );
    assert!(
        !post.is_finished(),
        "the POST still waits for the start while the others are answered"
    );

    let (created, took) = post.join().expect("the POST thread");
    assert_eq!(created.status, 201, "{}", created.body);
    assert!(
        took >= Duration::from_millis(bound_ms) && took < Duration::from_millis(bound_ms + 10_000),
        "the POST was answered after {took:?}, the bound is {bound_ms} ms"
    );
    let mut status = Value::Null;
    wait_for(
        "the hanging connector to be FAILED",
        Duration::from_secs(10),
        || {
            status = c.get("/connectors/stuck/status").json();
            status["connector"]["state"] == "FAILED"
        },
    );
    let trace = status["connector"]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains(&format!(
            "did not start within {bound_ms} ms (connector.start.timeout.ms)"
        )),
        "{status}"
    );

    // Deleting (and so stopping) a connector whose start hangs is answered at once; the POST
    // that created it is answered when its start is abandoned.
    let post = post_in_background(port, "stuck-too", &config);
    wait_for(
        "the second hanging connector to be listed",
        Duration::from_secs(10),
        || listed("stuck-too"),
    );
    let asked = Instant::now();
    let deleted = c.delete("/connectors/stuck-too");
    let took = asked.elapsed();
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    assert!(took < Duration::from_secs(1), "DELETE took {took:?}");
    let (created, took) = post.join().expect("the POST thread");
    assert_eq!(created.status, 201, "{}", created.body);
    assert!(
        took < Duration::from_millis(bound_ms),
        "the POST took {took:?}"
    );
    assert!(!listed("stuck-too"));
    let status = c.get(&format!("/connectors/{other}/status")).json();
    assert_eq!(status["connector"]["state"], "RUNNING", "{status}");
}
