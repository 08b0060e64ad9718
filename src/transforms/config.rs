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
