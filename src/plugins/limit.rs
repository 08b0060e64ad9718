//! The worker's limit on the connectors it runs (connect-rs keys, not Kafka Connect's):
//! `connector.class.allowlist` (when set, only the connectors it names) and
//! `connector.class.denylist` (never the connectors it names; it wins over the allowlist).
//! Entries are connector class names or aliases (`FileStreamSource`). A refused connector is
//! not listed by `GET /connector-plugins` (as Kafka Connect does not list a plugin missing from
//! its plugin path) and is refused by name, with the key that refuses it, wherever a
//! `connector.class` is read: REST create, update and validate, and connector files.
//!
//! Kafka Connect stopped putting the FileStream connectors on its plugin path in 3.2, because
//! whoever may create a connector can read and write any file of the worker through them;
//! connect-rs keeps them built in (the README's job uses them) and lets the operator refuse
//! them: `connector.class.denylist=FileStreamSource,FileStreamSink`.

use crate::config::{ConfigError, ConfigProblem, WorkerConfig};

use super::PluginRegistry;

/// `connector.class.allowlist`.
pub const ALLOWLIST_KEY: &str = "connector.class.allowlist";
/// `connector.class.denylist`.
pub const DENYLIST_KEY: &str = "connector.class.denylist";

/// `plugins` without the connectors `worker` refuses.
///
/// # Errors
/// [`ConfigError::Invalid`] with a problem on its key (file and line) for every entry of the
/// two lists that names no built-in connector: a misspelled denylist must not let the
/// connector it meant through.
pub fn apply(
    plugins: PluginRegistry,
    worker: &WorkerConfig,
) -> Result<PluginRegistry, ConfigError> {
    let mut problems = Vec::new();
    let mut resolve = |key: &'static str| -> Vec<&'static str> {
        let mut classes = Vec::new();
        for entry in worker.values().list(key) {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            match plugins.connector(entry) {
                Ok(p) => classes.push(p.desc().class_name),
                Err(e) => problems.push(ConfigProblem::for_key(
                    worker.raw().origin_or_source(key),
                    key,
                    e.to_string(),
                )),
            }
        }
        classes
    };
    let allow = resolve(ALLOWLIST_KEY);
    let deny = resolve(DENYLIST_KEY);
    if !problems.is_empty() {
        return Err(ConfigError::invalid(problems));
    }
    if allow.is_empty() && deny.is_empty() {
        return Ok(plugins);
    }
    Ok(plugins.without_connectors(|class| {
        if deny.contains(&class) {
            Some(DENYLIST_KEY)
        } else if !allow.is_empty() && !allow.contains(&class) {
            Some(ALLOWLIST_KEY)
        } else {
            None
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(pairs: &[(&str, &str)]) -> WorkerConfig {
        WorkerConfig::for_tests(pairs)
    }

    fn connectors(r: &PluginRegistry) -> Vec<String> {
        super::super::plugin_infos(r, true)
            .into_iter()
            .map(|p| p.class_name)
            .collect()
    }

    #[test]
    fn no_limit_keeps_every_connector() {
        let r = apply(PluginRegistry::builtin(), &worker(&[])).unwrap();
        assert_eq!(connectors(&r).len(), 4);
    }

    #[test]
    fn the_denylist_refuses_by_any_name_and_says_which_key() {
        let w = worker(&[(
            DENYLIST_KEY,
            "FileStreamSource, org.apache.kafka.connect.file.FileStreamSinkConnector",
        )]);
        let r = apply(PluginRegistry::builtin(), &w).unwrap();
        assert_eq!(
            connectors(&r),
            [
                "io.confluent.connect.jdbc.JdbcSinkConnector",
                "io.confluent.connect.jdbc.JdbcSourceConnector"
            ]
        );
        for name in [
            "FileStreamSource",
            "FileStreamSourceConnector",
            "org.apache.kafka.connect.file.FileStreamSourceConnector",
        ] {
            let e = r.connector(name).err().expect("refused");
            assert_eq!(
                e.to_string(),
                format!(
                    "Connector {name} (org.apache.kafka.connect.file.FileStreamSourceConnector) \
                     is not allowed on this worker: the worker's connector.class.denylist names \
                     it. Allowed: JdbcSinkConnector (io.confluent.connect.jdbc.JdbcSinkConnector), \
                     JdbcSourceConnector (io.confluent.connect.jdbc.JdbcSourceConnector)"
                )
            );
        }
        assert!(r.connector("JdbcSource").is_ok());
        // Other kinds are not limited.
        assert!(r.converter("JsonConverter").is_ok());
    }

    #[test]
    fn the_allowlist_keeps_only_what_it_names_and_the_denylist_wins() {
        let w = worker(&[
            (ALLOWLIST_KEY, "JdbcSource,FileStreamSink"),
            (DENYLIST_KEY, "FileStreamSink"),
        ]);
        let r = apply(PluginRegistry::builtin(), &w).unwrap();
        assert_eq!(
            connectors(&r),
            ["io.confluent.connect.jdbc.JdbcSourceConnector"]
        );
        let e = r.connector("JdbcSink").err().expect("refused");
        assert!(
            e.to_string()
                .contains("the worker's connector.class.allowlist does not name it"),
            "{e}"
        );
        let e = r.connector("FileStreamSink").err().expect("refused");
        assert!(
            e.to_string().contains("connector.class.denylist names it"),
            "{e}"
        );
        // An unknown name is still unknown.
        let e = r.connector("Nope").err().expect("unknown");
        assert!(e.refused().is_none());
        assert!(e.to_string().starts_with("Failed to find any class"), "{e}");
    }

    #[test]
    fn an_entry_that_names_no_connector_is_an_error_on_its_key() {
        let w = worker(&[(DENYLIST_KEY, "FileStreamSorce")]);
        let e = apply(PluginRegistry::builtin(), &w).err().expect("refused");
        let p = &e.problems()[0];
        assert_eq!(p.key.as_deref(), Some(DENYLIST_KEY));
        assert!(
            p.message.contains("Did you mean 'FileStreamSource'?"),
            "{}",
            p.message
        );
    }
}
