//! Kafka Connect's `PluginInfo`: the plugins as `GET /connector-plugins` and the offline
//! `plugins` command list them, and as validation recommends converter classes.

use connect_api::PluginKind;
use serde::Serialize;

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

/// The plugins in Kafka Connect's order: sink connectors, source connectors, then (unless
/// `connectors_only`) transforms, predicates, converters and header converters; each group
/// sorted by class name. A
/// converter that also serves as a header converter is listed in both groups, as in Kafka.
pub fn plugin_infos(plugins: &PluginRegistry, connectors_only: bool) -> Vec<PluginInfo> {
    let descs: Vec<_> = plugins.descriptors().collect();
    let group = |kind: PluginKind, also: &dyn Fn(&connect_api::PluginDesc) -> bool| {
        let mut out: Vec<PluginInfo> = descs
            .iter()
            .filter(|d| d.kind == kind || also(d))
            .map(|d| PluginInfo {
                class_name: d.class_name.to_owned(),
                kind: kind.rest_name(),
                version: (d.version != "undefined").then(|| d.version.to_owned()),
            })
            .collect();
        out.sort_by(|a, b| a.class_name.cmp(&b.class_name));
        out.dedup_by(|a, b| a.class_name == b.class_name);
        out
    };
    let none = |_: &connect_api::PluginDesc| false;
    let mut out = group(PluginKind::Sink, &none);
    out.extend(group(PluginKind::Source, &none));
    if !connectors_only {
        out.extend(group(PluginKind::Transformation, &none));
        out.extend(group(PluginKind::Predicate, &none));
        out.extend(group(PluginKind::Converter, &none));
        let also_header = |d: &connect_api::PluginDesc| {
            d.kind == PluginKind::Converter && plugins.header_converter(d.class_name).is_ok()
        };
        out.extend(group(PluginKind::HeaderConverter, &also_header));
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
