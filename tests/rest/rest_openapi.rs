//! `GET /openapi.json` of `connect-rs standalone`, over HTTP against the real binary: an
//! OpenAPI 3.0.3 document that describes exactly the paths the router serves, and only methods
//! the router answers.

use crate::support;

use std::collections::BTreeSet;

use serde_json::Value;
use support::rest::{start, STARTUP};
use support::*;

/// Every path the REST router serves, as OpenAPI path templates. A route added to the router
/// must be added here and to `src/rest/openapi.json`.
const SERVED_PATHS: &[&str] = &[
    "/",
    "/health",
    "/openapi.json",
    "/metrics",
    "/connectors",
    "/connectors/{connector}",
    "/connectors/{connector}/config",
    "/connectors/{connector}/status",
    "/connectors/{connector}/tasks",
    "/connectors/{connector}/fence",
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
    let mut run = start(&w, &[&worker]);
    let c = run.client;

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

    let status = terminate(&mut run.child, STARTUP);
    assert!(status.success(), "worker exit {status}; log:\n{}", w.log());
}
