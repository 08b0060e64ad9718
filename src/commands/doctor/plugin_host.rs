//! The Java plugin host: when the worker file's `plugin.path` names something that exists, the
//! worker may need Java to run what is there, so `doctor` starts the host once, as the worker
//! would: a missing Java (naming where it looked), a Java older than 17, a binary built without
//! the host, or a JVM that does not start is an error; a host that starts is a note with the
//! Java version and the start time.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{Finding, Severity, WorkerFile};
use crate::config::WorkerConfig;
use crate::plugin_host::{HostError, HostSettings, MessageType, PluginHost};

/// The check's name in findings.
const CHECK: &str = "plugin-host";

/// The finding about the plugin host, when `plugin.path` names an existing location.
pub async fn check(worker: &WorkerFile, config: &WorkerConfig) -> Vec<Finding> {
    let locations: Vec<&String> = config
        .plugin_path()
        .iter()
        .filter(|p| !p.trim().is_empty() && Path::new(p.trim()).exists())
        .collect();
    if locations.is_empty() {
        return Vec::new();
    }
    let settings = HostSettings::from_worker_config(config);
    let key = if settings.java.is_empty() {
        "plugin.path"
    } else {
        "plugin.host.java"
    };
    let host = PluginHost::new(settings);
    let started = Instant::now();
    let result = match host.control().await {
        Ok(conn) => conn
            .request(MessageType::VERSION, Vec::new())
            .await
            .map(|answer| (conn, answer, started.elapsed())),
        Err(e) => Err(e),
    };
    host.shutdown(Duration::from_secs(5)).await;
    let finding = match result {
        Ok((conn, answer, took)) => {
            let version = serde_json::from_slice::<serde_json::Value>(&answer)
                .ok()
                .and_then(|v| v.get("java")?.as_str().map(str::to_owned))
                .unwrap_or_else(|| conn.java_version().to_owned());
            let java = host
                .java()
                .await
                .map(|j| j.path.display().to_string())
                .unwrap_or_default();
            Finding::new(
                Severity::Note,
                CHECK,
                &worker.path,
                format!(
                    "the plugin host for the Java plugins of plugin.path started in {} ms \
                     with Java {version} ({java})",
                    took.as_millis()
                ),
                "",
            )
        }
        Err(e) => Finding::new(
            Severity::Error,
            CHECK,
            &worker.path,
            format!(
                "plugin.path names {}, whose Java plugins need the plugin host, but it cannot \
                 start: {e}",
                locations
                    .iter()
                    .map(|l| l.trim())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            action(&e),
        ),
    };
    vec![finding.at(key, worker.raw.line(key))]
}

fn action(e: &HostError) -> String {
    match e {
        HostError::NoJava { .. } | HostError::JavaTooOld { .. } => {
            "Install Java 17 or later (Debian: apt-get install openjdk-17-jre-headless), then \
             set JAVA_HOME, put its bin directory on PATH, or set plugin.host.java."
                .into()
        }
        HostError::BuiltWithoutHost { .. } => {
            "Rebuild connect-rs on a machine with a JDK 17 and Maven (cargo build --release)."
                .into()
        }
        _ => "See the JVM's stderr lines above; plugin.host.jvm.options and \
              plugin.host.start.timeout.ms set how it starts."
            .into(),
    }
}
