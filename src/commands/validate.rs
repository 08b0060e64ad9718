//! `connect-rs validate`: checks connector files offline with the validation of
//! `PUT /connector-plugins/{plugin}/config/validate` ([`validate_config`]), against the
//! converters and config providers of a worker file (or a standalone worker's defaults).

use std::io::Write;
use std::path::Path;

use anyhow::anyhow;
use serde_json::Value;

use super::{CommandError, EXIT_CONNECTOR, EXIT_STARTUP};
use crate::cli::{OutputFormat, ValidateArgs};
use crate::config::{self, ConfigError, RawConfig, WorkerConfig, WorkerMode};
use crate::plugins::PluginRegistry;
use crate::rest::validate::{validate_config, ConfigInfos};
use crate::rest::RestError;

/// The key naming the connector plugin.
const CONNECTOR_CLASS: &str = "connector.class";

/// The outcome of one connector file.
enum Outcome {
    /// The REST validate body.
    Checked(ConfigInfos),
    /// The REST error (400) the endpoint answers: no or unknown `connector.class`.
    Refused(RestError),
    /// The file could be read but not parsed: the loader's problems.
    Unparsed(ConfigError),
}

/// Runs `validate`.
///
/// # Errors
/// Exit 2 when the worker file is invalid or a connector file cannot be read; exit 3 when a
/// connector file is invalid.
pub fn run(args: &ValidateArgs) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let plugins = PluginRegistry::builtin();
    let worker = match &args.worker {
        Some(path) => super::standalone::load_worker(path, WorkerMode::Standalone, &plugins)
            .map_err(startup)?,
        None => default_worker().map_err(startup)?,
    };
    // Output ends quietly when stdout is closed (e.g. piped into `head`), as `topics` does.
    let mut out = std::io::stdout().lock();
    let mut invalid = 0usize;
    let mut unreadable = Vec::new();
    for file in &args.connector_files {
        let (outcome, raw) = match config::load_file(file) {
            Err(e @ ConfigError::Io { .. }) => {
                unreadable.push(e.to_string());
                continue;
            }
            Err(e) => (Outcome::Unparsed(e), None),
            Ok(raw) => (check(&raw, &worker, &plugins), Some(raw)),
        };
        if !is_valid(&outcome) {
            invalid += 1;
        }
        let _ = match args.format {
            OutputFormat::Json => writeln!(out, "{}", json_body(&outcome)),
            OutputFormat::Text => write!(out, "{}", text(file, raw.as_ref(), &outcome)),
        };
    }
    if !unreadable.is_empty() {
        return Err(startup(anyhow!(unreadable.join("\n"))));
    }
    if invalid > 0 {
        return Err(CommandError::new(
            EXIT_CONNECTOR,
            anyhow!(
                "{invalid} of {} connector files invalid",
                args.connector_files.len()
            ),
        ));
    }
    Ok(())
}

/// A standalone worker with every key at its default, and the two keys that have none
/// (`key.converter`, `value.converter`) set to `JsonConverter`, as Kafka's shipped
/// `connect-standalone.properties` does.
fn default_worker() -> anyhow::Result<WorkerConfig> {
    let json = "org.apache.kafka.connect.json.JsonConverter";
    let pairs = [("key.converter", json), ("value.converter", json)];
    Ok(WorkerConfig::from_raw(
        &RawConfig::from_pairs("<defaults>", pairs),
        WorkerMode::Standalone,
    )?)
}

/// Validates one loaded connector file as the REST endpoint would its JSON body.
fn check(raw: &RawConfig, worker: &WorkerConfig, plugins: &PluginRegistry) -> Outcome {
    let props: Vec<(String, Option<String>)> = raw
        .iter()
        .map(|(k, e)| (k.to_owned(), Some(e.value.clone())))
        .collect();
    let plugin = raw.get(CONNECTOR_CLASS).unwrap_or_default();
    let converters = [
        worker.key_converter_class().to_owned(),
        worker.value_converter_class().to_owned(),
        worker.header_converter_class().to_owned(),
    ];
    match validate_config(plugins, &converters, worker.providers(), plugin, &props) {
        Ok(infos) => Outcome::Checked(infos),
        Err(e) => Outcome::Refused(e),
    }
}

fn is_valid(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Checked(infos) if infos.error_count == 0)
}

/// The JSON the REST API would answer: the validate body, or its error body; for a file that
/// cannot be parsed, an error body with the loader's message.
fn json_body(outcome: &Outcome) -> Value {
    let error =
        |code: u16, message: String| serde_json::json!({ "error_code": code, "message": message });
    match outcome {
        Outcome::Checked(infos) => serde_json::to_value(infos).unwrap_or(Value::Null),
        Outcome::Refused(e) => error(e.status.as_u16(), e.message.clone()),
        Outcome::Unparsed(e) => error(400, e.to_string()),
    }
}

/// `FILE: OK`, or `FILE: N problem(s)` and one `  FILE[:LINE]: KEY: MESSAGE` line each.
fn text(file: &Path, raw: Option<&RawConfig>, outcome: &Outcome) -> String {
    let name = file.display();
    let at = |key: &str| match raw.and_then(|r| r.line(key)) {
        Some(line) => format!("{name}:{line}"),
        None => format!("{name}"),
    };
    let mut problems: Vec<String> = Vec::new();
    match outcome {
        Outcome::Checked(infos) => {
            for value in infos.configs.iter().filter_map(|c| c.value.as_ref()) {
                for error in &value.errors {
                    problems.push(format!("{}: {}: {error}", at(&value.name), value.name));
                }
            }
        }
        Outcome::Refused(e) => {
            problems.push(format!(
                "{}: {CONNECTOR_CLASS}: {}",
                at(CONNECTOR_CLASS),
                e.message
            ));
        }
        Outcome::Unparsed(ConfigError::Invalid { problems: ps, .. }) => {
            problems.extend(ps.iter().map(|p| format!("{name}: {p}")));
        }
        Outcome::Unparsed(e) => problems.push(format!("{name}: {e}")),
    }
    if problems.is_empty() {
        return format!("{name}: OK\n");
    }
    let plural = if problems.len() == 1 { "" } else { "s" };
    let mut out = format!("{name}: {} problem{plural}\n", problems.len());
    for p in problems {
        out.push_str("  ");
        out.push_str(&p);
        out.push('\n');
    }
    out
}
