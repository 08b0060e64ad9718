//! Connector files in JSON, as `connect-standalone` accepts them:
//!
//! * a flat object of string → string, e.g. `{"name": "x", "connector.class": "..."}`;
//! * a `CreateConnectorRequest`: `{"name": "x", "config": {..}, "initial_state": "PAUSED"}`.
//!   `name` is copied into the config; a different `config.name` is an error in Kafka's words.
//!   Other top-level fields are ignored with a warning (Kafka ignores them silently).
//!
//! Like Jackson reading a `Map<String, String>`, numbers and booleans are accepted and
//! stringified (`"tasks.max": 2` → `"2"`); `null`, arrays and nested objects are rejected.
//! Each key gets the line it was written on (found by a small scan of the text).

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde_json::{Map, Value};

use super::error::{ConfigError, ConfigProblem, ConfigWarning};
use super::origin::Origin;
use super::raw::RawConfig;

/// The state a connector is created in (`initial_state` of a `CreateConnectorRequest`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InitialState {
    /// Started normally (the default).
    Running,
    /// Created paused.
    Paused,
    /// Created stopped.
    Stopped,
}

impl InitialState {
    /// Parses `RUNNING`, `PAUSED` or `STOPPED`, case-insensitively (as Kafka does).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_uppercase().as_str() {
            "RUNNING" => Some(Self::Running),
            "PAUSED" => Some(Self::Paused),
            "STOPPED" => Some(Self::Stopped),
            _ => None,
        }
    }
}

impl fmt::Display for InitialState {
    /// `RUNNING`, `PAUSED` or `STOPPED`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Running => "RUNNING",
            Self::Paused => "PAUSED",
            Self::Stopped => "STOPPED",
        })
    }
}

/// A JSON connector file parsed: its configuration and the non-fatal remarks about it.
#[derive(Debug, Clone)]
pub struct JsonConfig {
    /// The configuration (with `name` inserted for the `CreateConnectorRequest` shape).
    pub raw: RawConfig,
    /// Ignored top-level fields.
    pub warnings: Vec<ConfigWarning>,
}

/// Parses a JSON connector file read from `file`.
///
/// # Errors
/// Invalid JSON (with line), a top level that is not an object, `null`/array/object values,
/// a `name` different from `config.name`, or a bad `initial_state`; all reported together.
pub fn parse_json(bytes: &[u8], file: &Path) -> Result<JsonConfig, ConfigError> {
    let at = |line: Option<usize>| Origin::new(file, line);
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        let text = e.to_string();
        let message = text
            .rfind(" at line ")
            .map_or(text.as_str(), |i| &text[..i])
            .to_owned();
        let line = (e.line() > 0).then_some(e.line());
        let column = if e.column() > 0 {
            format!(" (column {})", e.column())
        } else {
            String::new()
        };
        ConfigError::single(ConfigProblem::at(
            at(line),
            format!("Invalid JSON: {message}{column}"),
        ))
    })?;
    let Value::Object(top) = value else {
        return Err(ConfigError::single(ConfigProblem::at(
            at(Some(1)),
            "Expected a JSON object: either a flat map of configuration keys to values, or \
             {\"name\": ..., \"config\": {...}}",
        )));
    };
    let lines = key_lines(bytes);
    let mut raw = RawConfig::new(file);
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let wrapped = top.values().any(|v| v.is_object() || v.is_array());
    if !wrapped {
        fill(&mut raw, &top, &lines, &[None], &mut problems);
        return finish(raw, problems, warnings);
    }
    let line_of = |k: &str| lines.get(&(vec![None], k.to_owned())).copied();
    let config = match top.get("config") {
        Some(Value::Object(config)) => config,
        _ => {
            let nested = top
                .iter()
                .find(|(_, v)| v.is_object() || v.is_array())
                .map_or("config", |(k, _)| k.as_str());
            return Err(ConfigError::single(ConfigProblem::for_key(
                at(line_of(nested)),
                nested,
                "Nested JSON objects and arrays are not supported: a connector file is either a \
                 flat map of configuration keys to string values, or {\"name\": ..., \"config\": {...}}",
            )));
        }
    };
    fill(
        &mut raw,
        config,
        &lines,
        &[None, Some("config".to_owned())],
        &mut problems,
    );
    for (k, v) in &top {
        match k.as_str() {
            "config" => {}
            "name" => {
                let name = match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Null => None,
                    other => scalar(other),
                };
                let mismatch = match (raw.get("name"), &name) {
                    (Some(in_config), Some(name)) => in_config != name,
                    // Kafka also rejects a null `name` next to `config.name`; we accept it.
                    _ => false,
                };
                if mismatch {
                    problems.push(ConfigProblem::for_key(
                        at(line_of("name")),
                        "name",
                        format!(
                            "Connector name configuration in 'config' doesn't match the one \
                             specified in 'name' at '{}'",
                            file.display()
                        ),
                    ));
                } else if let (None, Some(name)) = (raw.get("name"), name) {
                    raw.insert("name", name, line_of("name"));
                }
            }
            "initial_state" => match v {
                Value::Null => {}
                Value::String(s) if InitialState::parse(s).is_some() => {
                    raw.set_initial_state(InitialState::parse(s));
                }
                other => problems.push(ConfigProblem::for_key(
                    at(line_of("initial_state")),
                    "initial_state",
                    format!(
                        "Invalid initial_state {other}: must be one of RUNNING, PAUSED, STOPPED"
                    ),
                )),
            },
            other => warnings.push(ConfigWarning {
                origin: at(line_of(other)),
                key: other.to_owned(),
                message: "Unknown field of a connector creation request; ignored".to_owned(),
            }),
        }
    }
    finish(raw, problems, warnings)
}

fn finish(
    raw: RawConfig,
    problems: Vec<ConfigProblem>,
    warnings: Vec<ConfigWarning>,
) -> Result<JsonConfig, ConfigError> {
    if problems.is_empty() {
        Ok(JsonConfig { raw, warnings })
    } else {
        Err(ConfigError::Invalid { problems, warnings })
    }
}

type KeyPath = Vec<Option<String>>;

fn fill(
    raw: &mut RawConfig,
    map: &Map<String, Value>,
    lines: &HashMap<(KeyPath, String), usize>,
    path: &[Option<String>],
    problems: &mut Vec<ConfigProblem>,
) {
    for (k, v) in map {
        let line = lines.get(&(path.to_vec(), k.clone())).copied();
        match scalar(v) {
            Some(s) => raw.insert(k.clone(), s, line),
            None => {
                let message = if v.is_null() {
                    "Null value can not be supplied as the configuration value.".to_owned()
                } else {
                    format!(
                        "Invalid value {v} for configuration {k}: nested JSON objects and arrays \
                         are not supported, configuration values must be strings"
                    )
                };
                problems.push(ConfigProblem::for_key(
                    Origin::new(raw.source(), line),
                    k.clone(),
                    message,
                ));
            }
        }
    }
}

/// Strings as they are; numbers and booleans as their JSON text (Jackson coerces them too).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The 1-based line of every object key, indexed by the keys of the enclosing containers
/// (`None` for the top level and for arrays). For duplicates the last occurrence wins, matching
/// serde_json. The input is already known to be valid JSON.
fn key_lines(bytes: &[u8]) -> HashMap<(KeyPath, String), usize> {
    let mut lines = HashMap::new();
    let mut stack: KeyPath = Vec::new();
    let mut last_key: Option<String> = None;
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'{' | b'[' => stack.push(last_key.take()),
            b'}' | b']' => {
                stack.pop();
                last_key = None;
            }
            b',' => last_key = None,
            b'"' => {
                let start = i;
                let start_line = line;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                let end = (i + 1).min(bytes.len());
                let mut j = end;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                if bytes.get(j) == Some(&b':') {
                    if let Ok(key) = serde_json::from_slice::<String>(&bytes[start..end]) {
                        lines.insert((stack.clone(), key.clone()), start_line);
                        last_key = Some(key);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<JsonConfig, ConfigError> {
        parse_json(text.as_bytes(), Path::new("c.json"))
    }

    #[test]
    fn flat_map_with_lines_and_lenient_scalars() {
        let c = parse("{\n  \"name\": \"x\",\n  \"tasks.max\": 2,\n  \"flag\": true\n}").unwrap();
        assert_eq!(c.raw.get("name"), Some("x"));
        assert_eq!(c.raw.get("tasks.max"), Some("2"));
        assert_eq!(c.raw.get("flag"), Some("true"));
        assert_eq!(c.raw.line("name"), Some(2));
        assert_eq!(c.raw.line("flag"), Some(4));
        assert_eq!(c.raw.initial_state(), None);
    }

    #[test]
    fn create_connector_request_inserts_name() {
        let c = parse(
            "{\"name\": \"src\",\n \"config\": {\n  \"connector.class\": \"FileStreamSource\",\n  \"name\": \"src\"\n },\n \"initial_state\": \"paused\"}",
        )
        .unwrap();
        assert_eq!(c.raw.get("name"), Some("src"));
        assert_eq!(c.raw.line("connector.class"), Some(3));
        assert_eq!(c.raw.initial_state(), Some(InitialState::Paused));

        let c =
            parse("{\"name\": \"src\", \"config\": {\"connector.class\": \"X\"}, \"extra\": 1}")
                .unwrap();
        assert_eq!(c.raw.get("name"), Some("src"));
        assert_eq!(c.raw.line("name"), Some(1));
        assert_eq!(c.warnings.len(), 1);
        assert_eq!(c.warnings[0].key, "extra");
    }

    #[test]
    fn name_mismatch_in_kafka_words() {
        let err = parse("{\"name\": \"a\", \"config\": {\"name\": \"b\"}}").unwrap_err();
        assert_eq!(
            err.problems()[0].message,
            "Connector name configuration in 'config' doesn't match the one specified in 'name' at 'c.json'"
        );
    }

    #[test]
    fn nested_values_and_nulls_are_rejected_together() {
        let err = parse(
            "{\"name\": \"a\",\n \"config\": {\"x\": {\"y\": 1},\n \"z\": null, \"w\": [1]}}",
        )
        .unwrap_err();
        let keys: Vec<_> = err
            .problems()
            .iter()
            .map(|p| p.key.clone().unwrap())
            .collect();
        assert_eq!(keys, ["x", "z", "w"]);
        assert_eq!(err.problems()[0].origin.line, Some(2));
        assert!(err.problems()[1].message.contains("Null value"));

        let err = parse("{\"name\": \"a\", \"x\": {\"y\": 1}}").unwrap_err();
        assert_eq!(err.problems()[0].key.as_deref(), Some("x"));
        assert!(err.problems()[0].message.contains("Nested JSON"));
    }

    #[test]
    fn syntax_errors_have_a_line() {
        let err = parse("{\n\"a\": \"b\",\n\"c\" \"d\"}").unwrap_err();
        let p = &err.problems()[0];
        assert_eq!(p.origin.line, Some(3));
        assert!(
            p.message.starts_with("Invalid JSON: expected `:`"),
            "{}",
            p.message
        );
        assert!(parse("[1]").is_err());
    }

    #[test]
    fn bad_initial_state() {
        let err =
            parse("{\"name\": \"a\", \"config\": {}, \"initial_state\": \"FLYING\"}").unwrap_err();
        assert_eq!(err.problems()[0].key.as_deref(), Some("initial_state"));
    }

    #[test]
    fn escaped_keys_and_duplicates() {
        let c = parse("{\"a\\u002eb\": \"1\",\n\"q\\\"\": \"2\",\n\"a.b\": \"3\"}").unwrap();
        assert_eq!(c.raw.get("a.b"), Some("3"));
        assert_eq!(c.raw.line("a.b"), Some(3));
        assert_eq!(c.raw.get("q\""), Some("2"));
        assert_eq!(c.raw.line("q\""), Some(2));
    }
}
