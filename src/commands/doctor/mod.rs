//! `connect-rs doctor WORKER_FILE [CONNECTOR_FILE...]`: the common mistakes of a Kafka Connect
//! set-up, each a [`Finding`] with a severity, the file and key it concerns, what is wrong and
//! what to do. One file per family of checks:
//!
//! - [`config_files`]: everything `validate` finds, for the worker file too (problems are
//!   errors; unknown, deprecated and duplicate keys warnings; a connector name used twice);
//! - [`tasks`]: `tasks.max` above what the connector's task planning
//!   (`task_configs(tasks.max)`) splits its work into;
//! - [`internal_topics`]: internal topics with one replica, or (Kafka reachable) existing ones
//!   not compacted;
//! - [`error_tolerance`]: sinks with `errors.tolerance=all` and no dead letter queue;
//! - [`temp_storage`]: the offsets file or the embedded log on temporary storage;
//! - [`offset_flush`]: `offset.flush.interval.ms` above the restart tolerance;
//! - [`exposed_files`]: the FileStream connectors available to anyone who reaches a REST
//!   listener that is not loopback-only and has no authentication;
//! - [`plugin_host`]: with a `plugin.path` that exists, the Java plugin host starts (Java found,
//!   17 or later); a note gives its Java version and start time.
//!
//! Exit codes: 0 nothing found (notes aside), 5 warnings only, 3 errors, 2 a file cannot be
//! read. Clean runs print nothing.

mod config_files;
mod error_tolerance;
mod exposed_files;
mod finding;
mod internal_topics;
mod offset_flush;
mod plugin_host;
mod tasks;
mod temp_storage;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use serde_json::json;

pub use finding::{Finding, Severity};

use super::{CommandError, EXIT_CONNECTOR, EXIT_STARTUP, EXIT_WARNINGS};
use crate::cli::{DoctorArgs, OutputFormat};
use crate::config::{RawConfig, WorkerConfig};
use crate::plugins::{ConnectorPlugin, PluginRegistry};

/// The worker file, loaded.
pub struct WorkerFile {
    /// The file as given.
    pub path: PathBuf,
    /// Its keys with their lines.
    pub raw: RawConfig,
    /// The validated configuration; `None` when it has errors.
    pub config: Option<WorkerConfig>,
}

/// A connector file that passed validation: the checks beyond `validate` look at it.
pub struct ConnectorFile {
    /// The file as given.
    pub path: PathBuf,
    /// Its keys with their lines.
    pub raw: RawConfig,
    /// Its connector plugin.
    pub plugin: ConnectorPlugin,
}

/// Runs `doctor`.
///
/// # Errors
/// Exit 2 when a file cannot be read, 3 when an error was found, 5 when only warnings were.
pub async fn run(args: &DoctorArgs) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let mut findings = Vec::new();
    let worker = config_files::worker(&args.worker_file, &PluginRegistry::builtin(), &mut findings)
        .map_err(|e| startup(e.into()))?;
    let plugins = config_files::limited_plugins(worker.as_ref(), &mut findings);
    let default;
    let effective = match worker.as_ref().and_then(|w| w.config.as_ref()) {
        Some(config) => config,
        None => {
            default = super::validate::default_worker().map_err(startup)?;
            &default
        }
    };
    let (connectors, unreadable) =
        config_files::connectors(&args.connector_files, effective, &plugins, &mut findings).await;
    if let Some(worker) = &worker {
        if let Some(config) = &worker.config {
            findings.extend(temp_storage::check(worker, config));
            findings.extend(offset_flush::check(worker, config, args.restart_tolerance));
            findings.extend(exposed_files::check(worker, config, &plugins));
            findings.extend(internal_topics::check(worker, config).await);
            findings.extend(plugin_host::check(worker, config).await);
        }
    }
    for connector in &connectors {
        findings.extend(tasks::check(connector, effective).await);
        findings.extend(error_tolerance::check(connector));
    }
    let order: Vec<&Path> = std::iter::once(args.worker_file.as_path())
        .chain(args.connector_files.iter().map(PathBuf::as_path))
        .collect();
    findings.sort_by_key(|f| {
        order
            .iter()
            .position(|p| *p == f.file)
            .unwrap_or(order.len())
    });

    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, notes) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note),
    );
    let mut out = std::io::stdout().lock();
    let shown = match args.format {
        OutputFormat::Json => format!(
            "{}\n",
            json!({
                "findings": findings.iter().map(Finding::json).collect::<Vec<_>>(),
                "errors": errors,
                "warnings": warnings,
                "notes": notes,
            })
        ),
        OutputFormat::Text => text(&findings, errors, warnings, notes),
    };
    // Values the worker's config providers resolved are shown as their placeholders.
    let _ = out.write_all(crate::config::providers::secrets::redact(&shown).as_bytes());
    drop(out);
    if !unreadable.is_empty() {
        return Err(startup(anyhow!(unreadable.join("\n"))));
    }
    let summary = anyhow!("{}", summary(errors, warnings, notes));
    match (errors, warnings) {
        (0, 0) => Ok(()),
        (0, _) => Err(CommandError::reported(EXIT_WARNINGS, summary)),
        _ => Err(CommandError::reported(EXIT_CONNECTOR, summary)),
    }
}

/// Every finding, then the counts; nothing at all when there is no finding.
fn text(findings: &[Finding], errors: usize, warnings: usize, notes: usize) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let mut out: String = findings.iter().map(Finding::text).collect();
    out.push_str(&summary(errors, warnings, notes));
    out.push('\n');
    out
}

/// `1 error, 2 warnings` (and `, 1 note` when there are notes).
fn summary(errors: usize, warnings: usize, notes: usize) -> String {
    let n =
        |count: usize, word: &str| format!("{count} {word}{}", if count == 1 { "" } else { "s" });
    let mut out = format!("{}, {}", n(errors, "error"), n(warnings, "warning"));
    if notes > 0 {
        out.push_str(", ");
        out.push_str(&n(notes, "note"));
    }
    out
}
