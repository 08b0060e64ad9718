//! Everything `validate` finds, as findings: the worker file's problems and warnings (it is
//! validated as a distributed worker when it sets `group.id`, else as a standalone one, and
//! its converters are configured), each connector file's validation errors and loader warnings,
//! and connector names used by two files.

use std::path::{Path, PathBuf};

use super::{ConnectorFile, Finding, Severity, WorkerFile};
use crate::commands::validate::{check_files, FileCheck};
use crate::commands::worker_converters::check_worker_converters;
use crate::config::{self, ConfigError, ConfigProblem, ConfigWarning, WorkerConfig, WorkerMode};
use crate::plugins::PluginRegistry;

/// What to do about a configuration problem.
const FIX_PROBLEM: &str =
    "Correct the value: the worker refuses this configuration as it is (`connect-rs validate` \
     runs the same check).";
/// What to do about a loader warning.
const FIX_WARNING: &str =
    "Remove the key or correct its name: as written the worker ignores it (or a later line \
     overrides it).";

/// Loads the worker file; its problems and warnings become findings.
///
/// # Errors
/// The file cannot be read (I/O). `Ok(None)` when it cannot be parsed.
pub fn worker(
    path: &Path,
    plugins: &PluginRegistry,
    findings: &mut Vec<Finding>,
) -> Result<Option<WorkerFile>, ConfigError> {
    let (raw, mut warnings) = match config::load_file_with_warnings(path) {
        Err(e @ ConfigError::Io { .. }) => return Err(e),
        Err(e) => {
            findings.extend(e.problems().iter().map(|p| problem(path, p)));
            findings.extend(e.warnings().iter().map(|w| warning(path, w)));
            return Ok(None);
        }
        Ok(loaded) => loaded,
    };
    let mode = if raw.get("group.id").is_some() {
        WorkerMode::Distributed
    } else {
        WorkerMode::Standalone
    };
    let config = match WorkerConfig::from_raw(&raw, mode) {
        Ok(config) => {
            warnings.extend(config.warnings().iter().cloned());
            if let Err(e) = check_worker_converters(&config, plugins) {
                findings.extend(e.problems().iter().map(|p| problem(path, p)));
            }
            Some(config)
        }
        Err(e) => {
            findings.extend(e.problems().iter().map(|p| problem(path, p)));
            warnings.extend(e.warnings().iter().cloned());
            None
        }
    };
    let mut seen: Vec<&ConfigWarning> = Vec::new();
    for w in &warnings {
        if !seen.contains(&w) {
            seen.push(w);
            findings.push(warning(path, w));
        }
    }
    Ok(Some(WorkerFile {
        path: path.to_owned(),
        raw,
        config,
    }))
}

/// The built-in plugins without the connectors the worker file refuses
/// (`connector.class.allowlist` / `.denylist`); an entry naming no connector is an error
/// finding, and then every connector is kept.
pub fn limited_plugins(worker: Option<&WorkerFile>, findings: &mut Vec<Finding>) -> PluginRegistry {
    let Some((path, config)) = worker.and_then(|w| w.config.as_ref().map(|c| (&w.path, c))) else {
        return PluginRegistry::builtin();
    };
    match crate::plugins::limit::apply(PluginRegistry::builtin(), config) {
        Ok(plugins) => plugins,
        Err(e) => {
            findings.extend(e.problems().iter().map(|p| problem(path, p)));
            PluginRegistry::builtin()
        }
    }
}

/// Validates the connector files; their problems and warnings become findings. Returns the
/// valid files (for the other checks) and the messages of the files that cannot be read.
pub async fn connectors(
    files: &[PathBuf],
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
    findings: &mut Vec<Finding>,
) -> (Vec<ConnectorFile>, Vec<String>) {
    let checks = check_files(files, worker, plugins).await;
    let mut valid = Vec::new();
    for check in &checks.files {
        findings.extend(file_findings(check));
        let Some(raw) = check.raw.as_ref().filter(|_| check.is_valid()) else {
            continue;
        };
        if let Ok(plugin) = plugins.connector(
            raw.get(crate::config::CONNECTOR_CLASS_CONFIG)
                .unwrap_or_default(),
        ) {
            valid.push(ConnectorFile {
                path: check.file.clone(),
                raw: raw.clone(),
                plugin,
            });
        }
    }
    findings.extend(duplicate_names(&checks.files, &checks.duplicates));
    (valid, checks.unreadable)
}

/// A validation problem or loader warning of one connector file.
fn file_findings(check: &FileCheck) -> Vec<Finding> {
    let mut out: Vec<Finding> = check
        .problems()
        .into_iter()
        .map(|p| {
            let f = Finding::new(
                Severity::Error,
                "config",
                &check.file,
                p.message,
                FIX_PROBLEM,
            );
            match p.key {
                Some(key) => f.at(key, p.line),
                None => Finding { line: p.line, ..f },
            }
        })
        .collect();
    out.extend(check.warnings.iter().map(|w| warning(&check.file, w)));
    out
}

/// One error per connector name used again, on the file that uses it again.
fn duplicate_names(files: &[FileCheck], messages: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut reported: Vec<&str> = Vec::new();
    for check in files {
        let Some(raw) = &check.raw else { continue };
        let Some(name) = raw.get("name").map(str::trim) else {
            continue;
        };
        if !seen.contains(&name) {
            seen.push(name);
            continue;
        }
        if reported.contains(&name) {
            continue;
        }
        reported.push(name);
        let quoted = format!("'{name}'");
        let message = messages
            .iter()
            .find(|m| m.contains(&quoted))
            .cloned()
            .unwrap_or_else(|| format!("Connector name {quoted} is used more than once."));
        out.push(
            Finding::new(
                Severity::Error,
                "duplicate-name",
                &check.file,
                message,
                "Give each connector its own name: the worker refuses a name given twice on the \
                 command line.",
            )
            .at("name", raw.line("name")),
        );
    }
    out
}

/// An error about `file` from a configuration problem.
fn problem(file: &Path, p: &ConfigProblem) -> Finding {
    let f = Finding::new(
        Severity::Error,
        "config",
        file,
        p.message.clone(),
        FIX_PROBLEM,
    );
    match &p.key {
        Some(key) => f.at(key.clone(), p.origin.line),
        None => Finding {
            line: p.origin.line,
            ..f
        },
    }
}

/// A warning about `file` from a loader warning.
fn warning(file: &Path, w: &ConfigWarning) -> Finding {
    Finding::new(
        Severity::Warning,
        "config-key",
        file,
        w.message.clone(),
        FIX_WARNING,
    )
    .at(w.key.clone(), w.origin.line)
}
