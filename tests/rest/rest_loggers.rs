//! `/admin/loggers` of `connect-rs standalone`, end to end over HTTP against the real binary:
//! reading levels, changing them at run time (and seeing the log follow), and Kafka Connect's
//! error bodies.

use crate::support;

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};
use support::http::{Client, Response};
use support::rest::{start, wait_running, STARTUP};
use support::*;

const COMMITTED: &str = "Committed source offsets.";

#[track_caller]
fn check(r: &Response, status: u16, body: &Value) {
    assert_eq!(r.status, status, "body: {}", r.body);
    assert_eq!(&r.json(), body);
}

fn error(code: u16, message: &str) -> Value {
    json!({"error_code": code, "message": message})
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open input");
    f.write_all(text.as_bytes()).expect("append input");
}

/// `last_modified` is epoch milliseconds of a change made in this test.
#[track_caller]
fn assert_recent(last_modified: &Value) {
    let ms = last_modified
        .as_u64()
        .unwrap_or_else(|| panic!("last_modified is no number: {last_modified}"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(ms <= now && now - ms < 600_000, "{ms} vs now {now}");
}

/// The source's committed position in `input`, from `GET /connectors/file-source/offsets`.
fn position(c: &Client) -> Value {
    c.get("/connectors/file-source/offsets").json()["offsets"][0]["offset"]["position"].clone()
}

#[test]
fn log_levels_are_read_and_changed_at_run_time() {
    let w = Workdir::new();
    let input = w.write("input.txt", "alpha\nbeta\n");
    let worker = w.worker("offset.flush.interval.ms=100");
    let source = w.source("file-source", &input, "loggers-topic");
    let run = start(&w, &[&worker, &source]);
    let c = run.client;
    wait_running(&c, "file-source", STARTUP);

    // At the default level: root and the Kafka class loggers connect-rs maps, never changed.
    let all = c.get("/admin/loggers").json();
    let info = json!({"level": "INFO", "last_modified": null});
    assert_eq!(all["root"], info, "{all}");
    assert_eq!(
        all["org.apache.kafka.connect.runtime.WorkerSourceTask"], info,
        "{all}"
    );
    check(&c.get("/admin/loggers/connect_rs.worker"), 200, &info);
    check(
        &c.get("/admin/loggers/org.apache.kafka.connect.runtime.WorkerSourceTask"),
        200,
        &info,
    );
    // A logger that does not exist: Kafka Connect's 404 (a package has no logger until set).
    check(
        &c.get("/admin/loggers/no.such.logger"),
        404,
        &error(404, "Logger no.such.logger not found."),
    );
    check(
        &c.get("/admin/loggers/org.apache.kafka.connect.runtime"),
        404,
        &error(404, "Logger org.apache.kafka.connect.runtime not found."),
    );
    assert!(
        !w.log().contains(COMMITTED),
        "no debug lines at info:\n{}",
        w.log()
    );

    // Root to DEBUG (case-insensitive): the worker's debug lines appear; every logger that
    // inherits the root level is listed as affected.
    let r = c.put("/admin/loggers/root", &json!({"level": "debug"}));
    assert_eq!(r.status, 200, "{}", r.body);
    let affected = r.json();
    for name in ["root", "org.apache.kafka.connect.runtime.WorkerSourceTask"] {
        assert!(
            affected.as_array().unwrap().contains(&json!(name)),
            "{affected}"
        );
    }
    append(&input, "gamma\ndelta\n");
    wait_for("a debug line in the log", STARTUP, || {
        w.log().contains(COMMITTED)
    });
    let root = c.get("/admin/loggers/root");
    assert_eq!(root.status, 200, "{}", root.body);
    let root = root.json();
    assert_eq!(root["level"], "DEBUG", "{root}");
    assert_recent(&root["last_modified"]);

    // A Kafka logger name drives the connect-rs targets doing that work, and is read back
    // under the name that was set: with the runtime at WARN the worker's debug lines stop.
    check(
        &c.put(
            "/admin/loggers/org.apache.kafka.connect.runtime",
            &json!({"level": "WARN"}),
        ),
        200,
        &json!([
            "org.apache.kafka.connect.runtime",
            "org.apache.kafka.connect.runtime.WorkerSinkTask",
            "org.apache.kafka.connect.runtime.WorkerSourceTask",
            "org.apache.kafka.connect.runtime.standalone.StandaloneHerder"
        ]),
    );
    let runtime = c.get("/admin/loggers/org.apache.kafka.connect.runtime");
    assert_eq!(runtime.status, 200, "{}", runtime.body);
    let runtime = runtime.json();
    assert_eq!(runtime["level"], "WARN", "{runtime}");
    assert_recent(&runtime["last_modified"]);
    let mark = w.log().len();
    let before = position(&c);
    append(&input, "epsilon\n");
    wait_for("the new line committed", STARTUP, || position(&c) != before);
    assert!(
        !w.log()[mark..].contains(COMMITTED),
        "no worker debug lines with the runtime at WARN:\n{}",
        &w.log()[mark..]
    );
    // The same level again changes nothing.
    check(
        &c.put(
            "/admin/loggers/org.apache.kafka.connect.runtime",
            &json!({"level": "warn"}),
        ),
        200,
        &json!([]),
    );

    // A Java-style connect-rs name is read back as set; loggers below it inherit.
    check(
        &c.put(
            "/admin/loggers/connect_rs.worker",
            &json!({"level": "ERROR"}),
        ),
        200,
        &json!(["connect_rs.worker"]),
    );
    check(
        &c.get("/admin/loggers/connect_rs::worker::source_task"),
        200,
        &json!({"level": "ERROR", "last_modified": null}),
    );
    check(
        &c.get("/admin/loggers/org.apache.kafka.connect.file.FileStreamSourceTask"),
        200,
        &json!({"level": "DEBUG", "last_modified": root["last_modified"]}),
    );
    let own = c.get("/admin/loggers/connect_rs.worker").json();
    assert_eq!(own["level"], "ERROR", "{own}");
    assert_recent(&own["last_modified"]);
    check(
        &c.put(
            "/admin/loggers/connect_rs.worker.source_task",
            &json!({"level": "Fatal"}),
        ),
        200,
        &json!(["connect_rs.worker.source_task"]),
    );
    let all = c.get("/admin/loggers");
    assert_eq!(all.status, 200, "{}", all.body);
    let all = all.json();
    let names: Vec<&String> = all.as_object().unwrap().keys().collect();
    for name in [
        "connect_rs.worker",
        "connect_rs.worker.source_task",
        "org.apache.kafka.connect.runtime",
        "root",
    ] {
        assert!(names.contains(&&name.to_owned()), "{name} in {all}");
    }
    assert!(
        names.iter().all(|n| !n.contains("::")),
        "names are read back as set: {all}"
    );
    assert_eq!(all["connect_rs.worker.source_task"]["level"], "FATAL");

    // Setting a namespace sets the loggers set before whose names start with it.
    check(
        &c.put("/admin/loggers/connect_rs", &json!({"level": "INFO"})),
        200,
        &json!([
            "connect_rs",
            "connect_rs.worker",
            "connect_rs.worker.source_task"
        ]),
    );
    assert_eq!(
        c.get("/admin/loggers/connect_rs.worker.source_task").json()["level"],
        "INFO"
    );

    // Errors: no level is 400, an unknown level 404, with Kafka Connect's messages.
    let missing = error(
        400,
        "Desired 'level' parameter was not specified in request.",
    );
    check(&c.put("/admin/loggers/root", &json!({})), 400, &missing);
    check(
        &c.put("/admin/loggers/root", &json!({"level": null})),
        400,
        &missing,
    );
    check(
        &c.put("/admin/loggers/root", &json!({"level": "verbose"})),
        404,
        &error(404, "invalid log level 'verbose'."),
    );
    check(
        &c.put(
            "/admin/loggers/root?scope=cluster",
            &json!({"level": "LOUD"}),
        ),
        404,
        &error(404, "invalid log level 'LOUD'."),
    );
    assert_eq!(c.get("/admin/loggers/root").json()["level"], "DEBUG");

    // Cluster scope (case-insensitive) answers 204 and, in standalone, applies here.
    let r = c.put(
        "/admin/loggers/connect_rs.rest?scope=CLUSTER",
        &json!({"level": "trace"}),
    );
    assert_eq!(r.status, 204, "{}", r.body);
    assert!(r.body.is_empty(), "{}", r.body);
    assert_eq!(
        c.get("/admin/loggers/connect_rs.rest").json()["level"],
        "TRACE"
    );
    // An unknown scope is worker scope.
    check(
        &c.put(
            "/admin/loggers/connect_rs.rest?scope=galaxy",
            &json!({"level": "off"}),
        ),
        200,
        &json!(["connect_rs.rest"]),
    );
    assert!(
        c.get("/admin/loggers")
            .json()
            .get("connect_rs.rest")
            .is_none(),
        "loggers at OFF are not listed"
    );
    check(
        &c.put(
            "/admin/loggers/connect_rs.rest?scope=Worker",
            &json!({"level": "info"}),
        ),
        200,
        &json!(["connect_rs.rest"]),
    );

    // Root affects every logger whose level changes.
    let r = c.put("/admin/loggers/root", &json!({"level": "INFO"}));
    assert_eq!(r.status, 200, "{}", r.body);
    let affected = r.json();
    for name in ["root", "org.apache.kafka.connect.runtime"] {
        assert!(
            affected.as_array().unwrap().contains(&json!(name)),
            "{affected}"
        );
    }
    assert!(
        !affected.as_array().unwrap().contains(&json!("connect_rs")),
        "connect_rs was INFO already: {affected}"
    );
    let all = c.get("/admin/loggers").json();
    assert!(
        all.as_object()
            .unwrap()
            .values()
            .all(|l| l["level"] == "INFO"),
        "{all}"
    );
    drop(run);
}

/// The port of `REST admin endpoints listening on http://127.0.0.1:PORT` in a log.
fn admin_port(log: &str) -> Option<u16> {
    let marker = "REST admin endpoints listening on http://127.0.0.1:";
    let at = log.find(marker)? + marker.len();
    let digits: String = log[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Jersey's answer for a path no resource serves, which Kafka Connect gives for
/// `/admin/loggers` where its admin resources are not registered.
fn unknown_path() -> Value {
    error(404, "HTTP 404 Not Found")
}

/// The admin endpoints answer on `c` as Kafka Connect's `LoggingResource`.
#[track_caller]
fn assert_admin_served(c: &Client) {
    let all = c.get("/admin/loggers");
    assert_eq!(all.status, 200, "{}", all.body);
    assert_eq!(all.json()["root"]["level"], "INFO", "{}", all.body);
    check(
        &c.put("/admin/loggers/connect_rs.rest", &json!({"level": "DEBUG"})),
        200,
        &json!(["connect_rs.rest"]),
    );
    assert_eq!(
        c.get("/admin/loggers/connect_rs.rest").json()["level"],
        "DEBUG"
    );
    // Cluster scope (standalone: applied here) answers 204.
    let r = c.put(
        "/admin/loggers/connect_rs.rest?scope=cluster",
        &json!({"level": "INFO"}),
    );
    assert_eq!(r.status, 204, "{}", r.body);
    assert_eq!(
        c.get("/admin/loggers/connect_rs.rest").json()["level"],
        "INFO"
    );
}

/// The admin endpoints are not there: every method is Jersey's 404 for an unknown path.
#[track_caller]
fn assert_admin_absent(c: &Client) {
    check(&c.get("/admin/loggers"), 404, &unknown_path());
    check(&c.get("/admin/loggers/root"), 404, &unknown_path());
    check(
        &c.put("/admin/loggers/root", &json!({"level": "DEBUG"})),
        404,
        &unknown_path(),
    );
    check(
        &c.put(
            "/admin/loggers/root?scope=cluster",
            &json!({"level": "DEBUG"}),
        ),
        404,
        &unknown_path(),
    );
}

#[test]
fn admin_listeners_absent_empty_or_set_place_the_admin_endpoints_as_kafka_connect() {
    // Absent: the admin endpoints are on the main listener.
    let w = Workdir::new();
    let run = start(&w, &[&w.worker("")]);
    assert_admin_served(&run.client);
    assert!(admin_port(&w.log()).is_none(), "{}", w.log());
    drop(run);

    // Empty: disabled everywhere; the rest of the API is served.
    let w = Workdir::new();
    let run = start(&w, &[&w.worker("admin.listeners=")]);
    assert_admin_absent(&run.client);
    check(&run.client.get("/connectors"), 200, &json!([]));
    assert!(
        w.log().contains(
            "REST admin endpoints (/admin/loggers) are disabled: admin.listeners is empty."
        ),
        "{}",
        w.log()
    );
    drop(run);

    // A listener: the admin endpoints only there, nothing else there.
    let w = Workdir::new();
    let run = start(&w, &[&w.worker("admin.listeners=http://127.0.0.1:0")]);
    let port = admin_port(&w.log()).unwrap_or_else(|| panic!("no admin listener: {}", w.log()));
    assert_ne!(port, run.port);
    let admin = Client::local(port);
    assert_admin_absent(&run.client);
    check(&run.client.get("/connectors"), 200, &json!([]));
    assert_admin_served(&admin);
    check(&admin.get("/connectors"), 404, &unknown_path());
    check(&admin.get("/"), 404, &unknown_path());
    check(
        &admin.post("/connectors", &json!({"name": "x", "config": {}})),
        404,
        &unknown_path(),
    );
    drop(run);
}

#[test]
fn invalid_admin_listeners_stop_start_up_as_kafka_connect() {
    let w = Workdir::new();
    for (value, message) in [
        (
            "http://127.0.0.1:0,",
            "Empty URL found when parsing admin.listeners list.",
        ),
        (
            "ftp://127.0.0.1:0",
            "Listener protocol must be either \"http\" or \"https\"",
        ),
        ("127.0.0.1:0", "admin.listeners entry 127.0.0.1:0"),
    ] {
        let worker = w.worker(&format!("admin.listeners={value}"));
        let out = w.run_to_exit(&["standalone", &worker.display().to_string()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{value}: {err}");
        assert!(err.contains(message), "{value}: {err}");
    }
    // The main listeners too: an empty entry is refused, not skipped.
    for (value, message) in [
        (
            "http://127.0.0.1:0,",
            "Empty URL found when parsing listeners list.",
        ),
        (
            "http://127.0.0.1:0,,http://127.0.0.1:0",
            "Empty URL found when parsing listeners list.",
        ),
        ("", "at least one URL is expected"),
    ] {
        let worker = w.worker(&format!("listeners={value}"));
        let out = w.run_to_exit(&["standalone", &worker.display().to_string()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{value}: {err}");
        assert!(err.contains(message), "{value}: {err}");
    }
}
