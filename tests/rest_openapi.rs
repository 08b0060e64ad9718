//! `GET /openapi.json` of `connect-rs standalone`, over HTTP against the real binary: an
//! OpenAPI 3.0.3 document that describes exactly the paths the router serves, and only methods
//! the router answers.

mod support;

use std::collections::BTreeSet;
use std::process::Child;
use std::time::Duration;

use serde_json::Value;
use support::http::Client;
use support::*;

const STARTUP: Duration = Duration::from_secs(60);

/// Every path the REST router serves, as OpenAPI path templates. A route added to the router
/// must be added here and to `src/rest/openapi.json`.
const SERVED_PATHS: &[&str] = &[
    "/",
    "/health",
    "/openapi.json",
    "/connectors",
    "/connectors/{connector}",
    "/connectors/{connector}/config",
    "/connectors/{connector}/status",
    "/connectors/{connector}/tasks",
    "/connectors/{connector}/tasks/{task}/status",
    "/connectors/{connector}/tasks/{task}/restart",
    "/connectors/{connector}/restart",
    "/connectors/{connector}/pause",
    "/connectors/{connector}/resume",
    "/connectors/{connector}/stop",
    "/connectors/{connector}/offsets",
    "/connectors/{connector}/topics",
    "/connectors/{connector}/topics/reset",
    "/connector-plugins",
    "/connector-plugins/{plugin}/config",
    "/connector-plugins/{plugin}/config/validate",
    "/admin/loggers",
    "/admin/loggers/{logger}",
];

const METHODS: &[&str] = &["get", "put", "post", "delete", "patch"];

/// Kills the worker if the test fails before it is stopped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The port of `REST API listening on http://127.0.0.1:PORT` in a log.
fn rest_port(log: &str) -> Option<u16> {
    let marker = "REST API listening on http://127.0.0.1:";
    let at = log.find(marker)? + marker.len();
    let digits: String = log[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// A concrete path for a template: a connector that does not exist, task 0, a real plugin, the
/// root logger (so that probing a method changes nothing).
fn concrete(template: &str) -> String {
    template
        .replace("{connector}", "openapi-probe-missing")
        .replace("{task}", "0")
        .replace("{plugin}", "FileStreamSource")
        .replace("{logger}", "root")
}

#[test]
fn openapi_json_describes_every_served_path() {
    let w = Workdir::new();
    let worker = w.worker("");
    let mut run = Running(w.spawn(&[&worker]));
    let mut port = None;
    wait_for("the REST API to listen", STARTUP, || {
        if let Ok(Some(status)) = run.0.try_wait() {
            panic!("connect-rs exited with {status}; its log:\n{}", w.log());
        }
        port = rest_port(&w.log());
        port.is_some()
    });
    let c = Client::local(port.unwrap_or_else(|| unreachable!()));

    let r = c.get("/openapi.json");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let doc = r.json();
    assert_eq!(doc["openapi"], "3.0.3");
    assert!(doc["info"]["title"].is_string(), "{}", doc["info"]);
    let paths = doc["paths"].as_object().expect("paths is an object");

    let documented: BTreeSet<&str> = paths.keys().map(String::as_str).collect();
    let served: BTreeSet<&str> = SERVED_PATHS.iter().copied().collect();
    let missing: Vec<_> = served.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&served).collect();
    assert!(missing.is_empty(), "served but not documented: {missing:?}");
    assert!(extra.is_empty(), "documented but not served: {extra:?}");

    // Every documented operation is routed: it answers neither 405 (a method the path does not
    // serve) nor Jersey's unknown-path 404.
    for (template, item) in paths {
        let path = concrete(template);
        let ops: Vec<&str> = METHODS
            .iter()
            .copied()
            .filter(|m| item.get(*m).is_some())
            .collect();
        assert!(!ops.is_empty(), "{template} documents no operation");
        for method in ops {
            let op = &item[method];
            assert!(
                op["responses"].as_object().is_some_and(|r| !r.is_empty()),
                "{method} {template} documents no response"
            );
            let body = op.get("requestBody").map(|_| ("application/json", "{}"));
            let r = c.send(&method.to_ascii_uppercase(), &path, body);
            let unknown_path = r.status == 404
                && serde_json::from_str::<Value>(&r.body)
                    .is_ok_and(|b| b["message"] == "HTTP 404 Not Found");
            assert!(
                r.status != 405 && !unknown_path,
                "{method} {template} is documented but not routed: {} {}",
                r.status,
                r.body
            );
            let status = r.status.to_string();
            assert!(
                op["responses"].get(&status).is_some(),
                "{method} {path} answered {status}, which {template} does not document: {}",
                r.body
            );
        }
    }

    let status = terminate(&mut run.0, STARTUP);
    assert!(status.success(), "worker exit {status}; log:\n{}", w.log());
}
