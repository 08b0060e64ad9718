//! The FileStream connectors open to anyone: a REST listener that is not loopback-only (e.g.
//! `http://0.0.0.0:8083`, or Kafka's `http://:8083`) and has no authentication (no basic-auth
//! `rest.extension.classes`, and not an https listener with `ssl.client.auth=required`), on a
//! worker that does not refuse `FileStreamSource` / `FileStreamSink`. Whoever reaches the
//! listener can then create a connector that reads or writes any file the worker can; Kafka
//! Connect has not offered them by default since 3.2.

use super::{Finding, Severity, WorkerFile};
use crate::config::WorkerConfig;
use crate::plugins::PluginRegistry;
use crate::rest::parse_listener;
use crate::rest::security::basic_auth::EXTENSION_CLASS;

/// The check's name in findings.
const CHECK: &str = "exposed-file-connectors";

/// The FileStream connectors: (class, alias).
const FILE_CONNECTORS: [(&str, &str); 2] = [
    (
        "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "FileStreamSource",
    ),
    (
        "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "FileStreamSink",
    ),
];

/// A warning when a FileStream connector can be created through an open listener.
pub fn check(
    worker: &WorkerFile,
    config: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Option<Finding> {
    let available: Vec<&str> = FILE_CONNECTORS
        .iter()
        .filter(|(class, _)| plugins.connector(class).is_ok())
        .map(|(_, alias)| *alias)
        .collect();
    if available.is_empty() || basic_auth(config) || config.raw().get("listeners").is_none() {
        // Without `listeners`, connect-rs listens on 127.0.0.1 only.
        return None;
    }
    let (https, _) = crate::tls::https_settings(config);
    let client_certificates = https
        .get("ssl.client.auth")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("required"));
    let open: Vec<&str> = config
        .listeners()
        .iter()
        .map(|l| l.trim())
        .filter(|l| match parse_listener(l) {
            Ok(l) => !(l.addr.ip().is_loopback() || (l.https && client_certificates)),
            // An invalid listener stops the worker at start-up: nothing is reachable.
            Err(_) => false,
        })
        .collect();
    if open.is_empty() {
        return None;
    }
    Some(
        Finding::new(
            Severity::Warning,
            CHECK,
            &worker.path,
            format!(
                "{} can be created by anyone who reaches {} (not loopback-only, no \
                 authentication): such a connector reads or writes any file this worker can.",
                available.join(" and "),
                open.join(", ")
            ),
            "Refuse them with connector.class.denylist=FileStreamSource,FileStreamSink (Kafka \
             Connect has not offered them by default since 3.2), listen on 127.0.0.1 only, or \
             require authentication (rest.extension.classes=BasicAuthSecurityRestExtension, or \
             https listeners with ssl.client.auth=required).",
        )
        .at("listeners", worker.raw.line("listeners")),
    )
}

/// Whether `rest.extension.classes` turns basic authentication on.
fn basic_auth(config: &WorkerConfig) -> bool {
    config
        .values()
        .list("rest.extension.classes")
        .iter()
        .map(|c| c.trim())
        .any(|c| c == EXTENSION_CLASS || c == "BasicAuthSecurityRestExtension")
}
