//! KIP-618 preflight checks of a source connector's `exactly.once.support` and
//! `transaction.boundary` on a distributed worker (Kafka Connect's
//! `DistributedHerder.validateSourceConnectorConfig`): `required` is refused when the worker does
//! not run sources in transactions or the connector does not declare support, and `connector`
//! boundaries are refused (connect-rs's connector API has no transaction context, so no
//! connector can define its own boundaries), as is a per-connector `offsets.storage.topic`
//! other than the worker's (connect-rs has one offsets topic per cluster).

use connect_api::{ConfigMap, ExactlyOnceSupport, SourcePlugin};

use crate::config::{ConfigProblem, RawConfig, WorkerConfig, WorkerMode};

/// Message when the worker does not run sources in transactions.
pub const WORKER_DISABLED: &str = "This worker does not have exactly-once source support enabled.";
/// Message when the connector does not say whether it supports exactly-once delivery.
pub const CONNECTOR_SILENT: &str = "The connector does not implement the API required for \
    preflight validation of exactly-once source support. Please consult the documentation for \
    the connector to determine whether it supports exactly-once semantics, and then consider \
    reconfiguring the connector to use the value \"requested\" for this property (which will \
    disable this preflight check and allow the connector to be created).";
/// Message when the connector says it cannot give exactly-once delivery.
pub const CONNECTOR_UNSUPPORTED: &str =
    "The connector does not support exactly-once semantics with the provided configuration.";
/// Message for `transaction.boundary=connector`.
pub const NO_CONNECTOR_BOUNDARIES: &str = "The connector does not support connector-defined \
    transaction boundaries with the given configuration. Please reconfigure it to use a \
    different transaction boundary definition.";

/// The preflight problems of source connector `plugin` configured by `raw` on `worker`; none
/// on a standalone worker (Kafka Connect's standalone herder does not check these keys).
pub fn problems(
    raw: &RawConfig,
    worker: &WorkerConfig,
    plugin: &dyn SourcePlugin,
) -> Vec<ConfigProblem> {
    if worker.mode() != WorkerMode::Distributed {
        return Vec::new();
    }
    let props: ConfigMap = raw.to_map();
    let mut found = Vec::new();
    let mut problem = |key: &str, message: &str| {
        found.push(ConfigProblem::for_key(
            raw.origin_or_source(key),
            key,
            message,
        ));
    };
    if raw
        .get("exactly.once.support")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("required"))
    {
        if !worker.exactly_once_source_enabled() {
            problem("exactly.once.support", WORKER_DISABLED);
        }
        match plugin.new_connector().exactly_once_support(&props) {
            Some(ExactlyOnceSupport::Supported) => {}
            Some(ExactlyOnceSupport::Unsupported) => {
                problem("exactly.once.support", CONNECTOR_UNSUPPORTED);
            }
            None => problem("exactly.once.support", CONNECTOR_SILENT),
        }
    }
    if let Some(topic) = raw
        .get("offsets.storage.topic")
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        let worker_topic = worker.offset_storage_topic().unwrap_or_default();
        if topic != worker_topic {
            problem(
                "offsets.storage.topic",
                &format!(
                    "connect-rs keeps the offsets of every connector in the worker's \
                     offset.storage.topic ('{worker_topic}'); a per-connector offsets topic \
                     ('{topic}') is not supported. Remove the key."
                ),
            );
        }
    }
    if raw
        .get("transaction.boundary")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("connector"))
    {
        problem("transaction.boundary", NO_CONNECTOR_BOUNDARIES);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(support: &str) -> WorkerConfig {
        let raw = RawConfig::from_pairs(
            "worker.properties",
            [
                ("bootstrap.servers", "localhost:9092"),
                ("group.id", "g"),
                ("config.storage.topic", "c"),
                ("offset.storage.topic", "o"),
                ("status.storage.topic", "s"),
                ("key.converter", "StringConverter"),
                ("value.converter", "StringConverter"),
                ("exactly.once.source.support", support),
            ],
        );
        WorkerConfig::from_raw(&raw, WorkerMode::Distributed).unwrap()
    }

    fn messages(worker: &WorkerConfig, pairs: &[(&str, &str)]) -> Vec<String> {
        let mut all = vec![("connector.class", "FileStreamSource"), ("topic", "t")];
        all.extend_from_slice(pairs);
        let raw = RawConfig::from_pairs("src.properties", all);
        problems(&raw, worker, &connect_file::FileStreamSourcePlugin)
            .into_iter()
            .map(|p| format!("{}: {}", p.key.unwrap_or_default(), p.message))
            .collect()
    }

    #[test]
    fn required_needs_an_enabled_worker_and_a_connector_that_declares_support() {
        let enabled = worker("enabled");
        let required = ("exactly.once.support", "required");
        assert!(messages(&enabled, &[required, ("file", "/in.txt")]).is_empty());
        assert_eq!(
            messages(&worker("preparing"), &[required, ("file", "/in.txt")]),
            [format!("exactly.once.support: {WORKER_DISABLED}")]
        );
        assert_eq!(
            messages(&enabled, &[required]),
            [format!("exactly.once.support: {CONNECTOR_UNSUPPORTED}")],
            "stdin cannot be read again"
        );
        assert!(messages(&worker("disabled"), &[("file", "/in.txt")]).is_empty());
    }

    #[test]
    fn connector_boundaries_and_other_offsets_topics_are_refused() {
        let enabled = worker("enabled");
        assert_eq!(
            messages(&enabled, &[("transaction.boundary", "connector")]),
            [format!("transaction.boundary: {NO_CONNECTOR_BOUNDARIES}")]
        );
        assert!(messages(&enabled, &[("transaction.boundary", "interval")]).is_empty());
        assert!(messages(&enabled, &[("offsets.storage.topic", "o")]).is_empty());
        let other = messages(&enabled, &[("offsets.storage.topic", "mine")]);
        assert_eq!(other.len(), 1);
        assert!(other[0].starts_with("offsets.storage.topic: "), "{other:?}");
    }
}
