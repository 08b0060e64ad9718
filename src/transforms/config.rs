//! Reading a transform's or predicate's own keys with its `ConfigDef`.

use connect_api::{ConfigDef, ConfigMap, ConfigValues, ConnectError};

/// Parses `props` (the `transforms.<alias>.` prefix already removed) with `def`.
///
/// # Errors
/// A configuration error for the first problem, with Kafka's message (e.g.
/// `Missing required configuration "field" which has no default value.`).
pub fn parse(def: &ConfigDef, props: &ConfigMap) -> Result<ConfigValues, ConnectError> {
    def.parse(props).map_err(|issues| {
        let first = issues.into_iter().next();
        match first {
            Some(issue) => ConnectError::config(issue.key, issue.message),
            None => ConnectError::Other("invalid configuration".to_owned()),
        }
    })
}

/// Like [`parse`], plus checks on the raw text of given keys that Kafka's validators make but a
/// [`connect_api::Validator`] cannot express (case-sensitive `ValidString.in`, custom lambdas).
/// `check(key, raw)` returns the complete Kafka message of a problem. As Kafka's
/// `ConfigDef.parse`, the first problem in definition order wins.
///
/// # Errors
/// A configuration error for the first problem.
pub fn parse_checked(
    def: &ConfigDef,
    props: &ConfigMap,
    check: impl Fn(&str, &str) -> Option<String>,
) -> Result<ConfigValues, ConnectError> {
    let parsed = def.parse(props);
    let mut issues = parsed.as_ref().err().cloned().unwrap_or_default();
    for key in def.keys() {
        if issues.iter().any(|i| i.key == key.name) {
            continue;
        }
        if let Some(message) = props.get(key.name).and_then(|raw| check(key.name, raw)) {
            issues.push(connect_api::ConfigIssue::new(key.name, message));
        }
    }
    let position = |name: &str| def.keys().iter().position(|k| k.name == name);
    match issues.into_iter().min_by_key(|i| position(&i.key)) {
        Some(issue) => Err(ConnectError::config(issue.key, issue.message)),
        None => parsed.map_err(|_| ConnectError::Other("invalid configuration".to_owned())),
    }
}

/// Kafka's case-sensitive `ValidString.in` message for `raw` when it is not one of `allowed`.
pub fn one_of_exact(key: &str, raw: &str, allowed: &[&str]) -> Option<String> {
    let value = raw.trim();
    (!allowed.contains(&value)).then(|| {
        format!(
            "Invalid value {value} for configuration {key}: String must be one of: {}",
            allowed.join(", ")
        )
    })
}
