//! Kafka Connect's `PluginInfo`: the plugins as `GET /connector-plugins` and the offline
//! `plugins` command list them, and as validation recommends converter classes.

use connect_api::PluginKind;
use serde::Serialize;

use super::version::Version;
use super::PluginRegistry;

/// Kafka Connect's `PluginInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginInfo {
    /// Fully qualified Java class name.
    #[serde(rename = "class")]
    pub class_name: String,
    /// `source`, `sink`, `converter`, `header_converter`, ...
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The plugin's version (left out when `undefined`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The plugins in Kafka Connect's order (`ConnectorPluginsResource`): sink connectors, source
/// connectors, then (unless `connectors_only`) transforms, predicates, converters and header
/// converters; each group sorted as Kafka's `PluginDesc` sorts (class name, then version in
/// Maven order), one entry per (class, version): a built-in and a Java implementation of one
/// class and version are listed once. A converter that also serves as a header converter is
/// listed in both groups, as in Kafka.
pub fn plugin_infos(plugins: &PluginRegistry, connectors_only: bool) -> Vec<PluginInfo> {
    plugin_rows(plugins, connectors_only)
        .into_iter()
        .map(|(info, _)| info)
        .collect()
}

/// [`plugin_infos`], each with where it comes from: `None` for a built-in (listed first of
/// equal versions, as Kafka lists class-path plugins before isolated ones), else the Java
/// plugin's location.
pub fn plugin_rows(
    plugins: &PluginRegistry,
    connectors_only: bool,
) -> Vec<(PluginInfo, Option<String>)> {
    let mut kinds = vec![PluginKind::Sink, PluginKind::Source];
    if !connectors_only {
        kinds.extend([
            PluginKind::Transformation,
            PluginKind::Predicate,
            PluginKind::Converter,
            PluginKind::HeaderConverter,
        ]);
    }
    let mut out = Vec::new();
    for kind in kinds {
        let mut group: Vec<_> = plugins
            .implementations()
            .filter(|i| i.kind == kind)
            .collect();
        group.sort_by(|a, b| {
            a.class_name
                .cmp(b.class_name)
                .then_with(|| Version::new(a.version).cmp(&Version::new(b.version)))
                .then_with(|| a.location.is_some().cmp(&b.location.is_some()))
        });
        group.dedup_by(|later, first| {
            later.class_name == first.class_name && later.version == first.version
        });
        out.extend(group.into_iter().map(|i| {
            let info = PluginInfo {
                class_name: i.class_name.to_owned(),
                kind: kind.rest_name(),
                version: (i.version != "undefined").then(|| i.version.to_owned()),
            };
            (info, i.location.map(str::to_owned))
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connectors_only_lists_sinks_then_sources() {
        let r = PluginRegistry::builtin();
        let infos = plugin_infos(&r, true);
        let classes: Vec<_> = infos
            .iter()
            .map(|p| (p.class_name.as_str(), p.kind))
            .collect();
        assert_eq!(
            classes,
            [
                ("io.confluent.connect.jdbc.JdbcSinkConnector", "sink"),
                (
                    "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "sink"
                ),
                ("io.confluent.connect.jdbc.JdbcSourceConnector", "source"),
                (
                    "org.apache.kafka.connect.file.FileStreamSourceConnector",
                    "source"
                ),
            ]
        );
    }

    #[test]
    fn all_plugins_list_transforms_predicates_converters_then_header_converters() {
        let r = PluginRegistry::builtin();
        let infos = plugin_infos(&r, false);
        let kinds: Vec<_> = infos.iter().map(|p| p.kind).collect();
        let mut runs: Vec<&str> = kinds.clone();
        runs.dedup();
        assert_eq!(
            runs,
            [
                "sink",
                "source",
                "transformation",
                "predicate",
                "converter",
                "header_converter"
            ]
        );
        let headers: Vec<_> = infos
            .iter()
            .filter(|p| p.kind == "header_converter")
            .map(|p| p.class_name.as_str())
            .collect();
        assert!(headers.contains(&"org.apache.kafka.connect.storage.SimpleHeaderConverter"));
        assert!(headers.contains(&"org.apache.kafka.connect.json.JsonConverter"));
        assert!(headers.contains(&"org.apache.kafka.connect.storage.StringConverter"));
    }
}
