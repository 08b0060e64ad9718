//! The converter keys and `*.plugin.version` keys of a connector configuration under
//! validation: their defaults (the worker's converters, the version of the plugin in effect)
//! and the values to recommend, as Kafka Connect 4.x reports them.

use connect_api::config_def::Default as KeyDefault;
use connect_api::{ConfigDef, PluginDesc};

use crate::config::{plugin_version_key, CONNECTOR_VERSION};
use crate::plugins::{plugin_infos, PluginRegistry};

/// The converter class keys and whether each names a header converter.
pub(super) const CONVERTER_KEYS: [(&str, bool); 3] = [
    ("key.converter", false),
    ("value.converter", false),
    ("header.converter", true),
];

/// What validation reports about the converter keys and the `*.plugin.version` keys: each
/// converter key's default (the worker's converter) and the converter in effect (the one
/// given, else the default), and the converter classes to recommend.
pub(super) struct PluginVersions {
    /// Per entry of [`CONVERTER_KEYS`]: the worker's converter and the converter in effect.
    converters: Vec<(Option<PluginDesc>, Option<PluginDesc>)>,
    /// Key/value converter classes, sorted.
    converter_classes: Vec<String>,
    /// Header converter classes, sorted.
    header_classes: Vec<String>,
}

impl PluginVersions {
    pub(super) fn new<'a>(
        plugins: &PluginRegistry,
        worker_converters: &[String; 3],
        given: impl Fn(&str) -> Option<&'a str>,
    ) -> Self {
        let converters = CONVERTER_KEYS
            .iter()
            .zip(worker_converters)
            .map(|((key, header), worker)| {
                let default = plugins.converter_desc(worker, *header);
                let effective = match given(key) {
                    Some(name) => plugins.converter_desc(name.trim(), *header),
                    None => default,
                };
                (default, effective)
            })
            .collect();
        let classes = |kind: &str| {
            plugin_infos(plugins, false)
                .into_iter()
                .filter(|p| p.kind == kind)
                .map(|p| p.class_name)
                .collect()
        };
        Self {
            converters,
            converter_classes: classes("converter"),
            header_classes: classes("header_converter"),
        }
    }

    /// `def` with the converter keys defaulting to the worker's converters and their
    /// `.plugin.version` keys to the version of the converter in effect.
    pub(super) fn apply(&self, mut def: ConfigDef) -> ConfigDef {
        for ((key, _), (default, effective)) in CONVERTER_KEYS.iter().zip(&self.converters) {
            if let Some(d) = default {
                def = def.with_default(key, KeyDefault::Value(d.class_name));
            }
            if let Some(e) = effective {
                def = def.with_default(&plugin_version_key(key), KeyDefault::Value(e.version));
            }
        }
        def
    }

    /// The recommended values of `key`.
    pub(super) fn recommended(&self, key: &str, connector_version: &str) -> Vec<String> {
        if key == CONNECTOR_VERSION {
            return vec![connector_version.to_owned()];
        }
        for ((class_key, header), (_, effective)) in CONVERTER_KEYS.iter().zip(&self.converters) {
            if key == *class_key {
                return if *header {
                    self.header_classes.clone()
                } else {
                    self.converter_classes.clone()
                };
            }
            if key == plugin_version_key(class_key) {
                return effective.iter().map(|e| e.version.to_owned()).collect();
            }
        }
        Vec::new()
    }
}
