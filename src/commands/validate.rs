//! `connect-rs validate`: checks connector files offline with the validation of
//! `PUT /connector-plugins/{plugin}/config/validate` ([`validate_config`]), against the
//! converters and config providers of a worker file (or a standalone worker's defaults); also
//! reports what the loader would only log (unknown, deprecated and duplicate keys) and refuses
//! a connector name used by two files, as `standalone` does.
//!
//! `--format json` prints one document: `{"files": [{"file", "valid", "body", "warnings"}],
//! "problems": [..], "valid"}`, where `body` is exactly the REST validate answer (or the REST
//! error body) of that file and `problems` are the cross-file ones (duplicate names).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use serde_json::{json, Value};

use super::{CommandError, EXIT_CONNECTOR, EXIT_STARTUP};
use crate::cli::{OutputFormat, ValidateArgs};
use crate::config::{self, ConfigError, ConfigWarning, RawConfig, WorkerConfig, WorkerMode};
use crate::herder::spec::connector_warnings;
use crate::herder::validate::{validate_config, ConfigInfos, ValidateError};
use crate::plugins::PluginRegistry;

// The key naming the connector plugin.
use crate::config::CONNECTOR_CLASS_CONFIG as CONNECTOR_CLASS;

/// The outcome of one connector file.
enum Outcome {
    /// The REST validate body.
    Checked(ConfigInfos),
    /// The error the REST endpoint answers (400): no or unknown `connector.class`.
    Refused(ValidateError),
    /// The file could be read but not parsed: the loader's problems.
    Unparsed(ConfigError),
}

/// One problem of a connector file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The line of the key, when the file has it.
    pub line: Option<usize>,
    /// The key concerned, when the problem is about one.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// A connector file checked.
pub struct FileCheck {
    /// The file as given.
    pub file: PathBuf,
    /// Its configuration, when it could be parsed.
    pub raw: Option<RawConfig>,
    outcome: Outcome,
    /// What the loader would log: unknown, deprecated and duplicate keys.
    pub warnings: Vec<ConfigWarning>,
}

impl FileCheck {
    /// Whether the REST endpoint would find no error.
    pub fn is_valid(&self) -> bool {
        matches!(&self.outcome, Outcome::Checked(infos) if infos.error_count == 0)
    }

    /// Every problem, with line and key where known.
    pub fn problems(&self) -> Vec<Problem> {
        let line = |key: &str| self.raw.as_ref().and_then(|r| r.line(key));
        match &self.outcome {
            Outcome::Checked(infos) => infos
                .configs
                .iter()
                .filter_map(|c| c.value.as_ref())
                .flat_map(|value| {
                    value.errors.iter().map(|error| Problem {
                        line: line(&value.name),
                        key: Some(value.name.clone()),
                        message: error.clone(),
                    })
                })
                .collect(),
            Outcome::Refused(e) => vec![Problem {
                line: line(CONNECTOR_CLASS),
                key: Some(CONNECTOR_CLASS.to_owned()),
                message: e.to_string(),
            }],
            Outcome::Unparsed(ConfigError::Invalid { problems, .. }) => problems
                .iter()
                .map(|p| Problem {
                    line: p.origin.line,
                    key: p.key.clone(),
                    message: p.message.clone(),
                })
                .collect(),
            Outcome::Unparsed(e) => vec![Problem {
                line: None,
                key: None,
                message: e.to_string(),
            }],
        }
    }

    /// The JSON the REST API would answer: the validate body, or its error body; for a file
    /// that cannot be parsed, an error body with the loader's message.
    pub fn body(&self) -> Value {
        let error = |code: u16, message: String| json!({ "error_code": code, "message": message });
        match &self.outcome {
            Outcome::Checked(infos) => serde_json::to_value(infos).unwrap_or(Value::Null),
            Outcome::Refused(e) => error(e.status(), e.to_string()),
            Outcome::Unparsed(e) => error(400, e.to_string()),
        }
    }
}

/// The connector files of one command line, checked.
pub struct Checks {
    /// One per readable file, in command-line order.
    pub files: Vec<FileCheck>,
    /// Problems across files: a connector name used twice.
    pub duplicates: Vec<String>,
    /// Files that could not be read (the OS's reason, naming the file).
    pub unreadable: Vec<String>,
}

/// Checks `files` against `worker` and `plugins` (a Java connector's plugin part is asked of
/// the plugin host, one file after the other).
pub async fn check_files(
    files: &[PathBuf],
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Checks {
    let mut checks = Checks {
        files: Vec::new(),
        duplicates: Vec::new(),
        unreadable: Vec::new(),
    };
    let mut names = Vec::new();
    for file in files {
        let check = match config::load_file_with_warnings(file) {
            Err(e @ ConfigError::Io { .. }) => {
                checks.unreadable.push(e.to_string());
                continue;
            }
            Err(e) => FileCheck {
                file: file.clone(),
                raw: None,
                warnings: e.warnings().to_vec(),
                outcome: Outcome::Unparsed(e),
            },
            Ok((raw, mut warnings)) => {
                if let Some(name) = raw.get("name") {
                    names.push((file.clone(), name.trim().to_owned()));
                }
                warnings.extend(connector_warnings(&raw, plugins));
                FileCheck {
                    file: file.clone(),
                    outcome: check(&raw, worker, plugins).await,
                    raw: Some(raw),
                    warnings: dedup(warnings),
                }
            }
        };
        checks.files.push(check);
    }
    checks.duplicates = super::unique_names::duplicate_names(&names);
    checks
}

/// `warnings` once each (the first of equal ones), by line; linear in their number.
fn dedup(warnings: Vec<ConfigWarning>) -> Vec<ConfigWarning> {
    let mut seen = std::collections::HashSet::with_capacity(warnings.len());
    let mut out: Vec<ConfigWarning> = warnings
        .into_iter()
        .filter(|w| seen.insert(w.clone()))
        .collect();
    out.sort_by_key(|w| w.origin.line);
    out
}

/// Runs `validate`; the plugin host, when a Java connector needed it, is stopped before the
/// answer.
///
/// # Errors
/// Exit 2 when the worker file is invalid or a connector file cannot be read; exit 3 when a
/// connector file is invalid or two files name the same connector.
pub async fn run(args: &ValidateArgs) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let (worker, plugins) = match &args.worker {
        Some(path) => super::standalone::load_worker_with_plugins(path, WorkerMode::Standalone)
            .map_err(startup)?,
        None => (
            default_worker().map_err(startup)?,
            PluginRegistry::builtin(),
        ),
    };
    let checks = check_files(&args.connector_files, &worker, &plugins).await;
    if let Some(host) = plugins.plugin_host() {
        host.shutdown(std::time::Duration::from_secs(5)).await;
    }
    // Output ends quietly when stdout is closed (e.g. piped into `head`), as `topics` does.
    let mut out = std::io::stdout().lock();
    let shown = match args.format {
        OutputFormat::Json => format!("{}\n", json_document(&checks)),
        OutputFormat::Text => text_document(&checks),
    };
    // Values the worker's config providers resolved are shown as their placeholders.
    let _ = out.write_all(crate::config::providers::secrets::redact(&shown).as_bytes());
    if !checks.unreadable.is_empty() {
        return Err(startup(anyhow!(checks.unreadable.join("\n"))));
    }
    let invalid = checks.files.iter().filter(|c| !c.is_valid()).count();
    if invalid > 0 || !checks.duplicates.is_empty() {
        let mut what = Vec::new();
        if invalid > 0 {
            what.push(format!(
                "{invalid} of {} connector files invalid",
                args.connector_files.len()
            ));
        }
        if !checks.duplicates.is_empty() {
            what.push("connector names not unique".to_owned());
        }
        return Err(CommandError::new(EXIT_CONNECTOR, anyhow!(what.join("; "))));
    }
    Ok(())
}

/// A standalone worker with every key at its default, and the two keys that have none
/// (`key.converter`, `value.converter`) set to `JsonConverter`, as Kafka's shipped
/// `connect-standalone.properties` does.
pub fn default_worker() -> anyhow::Result<WorkerConfig> {
    let json = "org.apache.kafka.connect.json.JsonConverter";
    let pairs = [("key.converter", json), ("value.converter", json)];
    Ok(WorkerConfig::from_raw(
        &RawConfig::from_pairs("<defaults>", pairs),
        WorkerMode::Standalone,
    )?)
}

/// Validates one loaded connector file as the REST endpoint would its JSON body.
async fn check(raw: &RawConfig, worker: &WorkerConfig, plugins: &PluginRegistry) -> Outcome {
    let props: Vec<(String, Option<String>)> = raw
        .iter()
        .map(|(k, e)| (k.to_owned(), Some(e.value.clone())))
        .collect();
    let plugin = raw.get(CONNECTOR_CLASS).unwrap_or_default();
    let converters = worker.converter_classes();
    match validate_config(plugins, &converters, worker.providers(), plugin, &props).await {
        Ok(infos) => Outcome::Checked(infos),
        Err(e) => Outcome::Refused(e),
    }
}

/// A warning as JSON: `file`, `line` (or null), `key`, `message`.
pub fn warning_json(w: &ConfigWarning) -> Value {
    json!({
        "file": w.origin.file.display().to_string(),
        "line": w.origin.line,
        "key": w.key,
        "message": w.message,
    })
}

/// The `--format json` document (see the module documentation).
fn json_document(checks: &Checks) -> Value {
    let files: Vec<Value> = checks
        .files
        .iter()
        .map(|c| {
            json!({
                "file": c.file.display().to_string(),
                "valid": c.is_valid(),
                "body": c.body(),
                "warnings": c.warnings.iter().map(warning_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let valid = checks.unreadable.is_empty()
        && checks.duplicates.is_empty()
        && checks.files.iter().all(FileCheck::is_valid);
    json!({ "files": files, "problems": checks.duplicates, "valid": valid })
}

/// Every file's text, then one line per cross-file problem.
fn text_document(checks: &Checks) -> String {
    let mut out: String = checks.files.iter().map(text).collect();
    for p in &checks.duplicates {
        out.push_str(p);
        out.push('\n');
    }
    out
}

/// `FILE: OK`, or `FILE: N problem(s)` and one `  FILE[:LINE]: KEY: MESSAGE` line each; then
/// one `  FILE[:LINE]: warning: KEY: MESSAGE` line per warning.
fn text(check: &FileCheck) -> String {
    let problems = check.problems();
    let mut out = if problems.is_empty() {
        format!("{}: OK\n", check.file.display())
    } else {
        let plural = if problems.len() == 1 { "" } else { "s" };
        format!(
            "{}: {} problem{plural}\n",
            check.file.display(),
            problems.len()
        )
    };
    for p in problems {
        out.push_str(&format!("  {}: ", place(&check.file, p.line)));
        if let Some(key) = &p.key {
            out.push_str(key);
            out.push_str(": ");
        }
        out.push_str(&p.message);
        out.push('\n');
    }
    for w in &check.warnings {
        out.push_str(&format!(
            "  {}: warning: {}: {}\n",
            place(&w.origin.file, w.origin.line),
            w.key,
            w.message
        ));
    }
    out
}

/// `FILE:LINE`, or `FILE` when the line is unknown.
pub fn place(file: &Path, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{}:{line}", file.display()),
        None => file.display().to_string(),
    }
}
