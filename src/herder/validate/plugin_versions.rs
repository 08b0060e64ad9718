//! The converter keys and `*.plugin.version` keys of a connector configuration under
//! validation: their defaults (the worker's converters, the version of the plugin in effect)
//! and the values to recommend, as Kafka Connect 4.x reports them.

use connect_api::config_def::Default as KeyDefault;
use connect_api::{ConfigDef, PluginDesc};

use crate::config::{plugin_version_key, CONNECTOR_CLASS_CONFIG, CONNECTOR_VERSION};
use crate::plugins::{plugin_infos, ChoiceError, PluginRegistry};

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
    /// Errors of `*.plugin.version` values (and of the class keys they choose for), by key.
    errors: Vec<(String, String)>,
}

/// The errors of the version value `version` given for the plugin `name` of `key` (with
/// `choose`): Kafka's `PluginVersionValidator` message on the version key for a value that is
/// no range; Kafka's "not found that matches the version range" on the version key (and, for
/// converters, on the class key too) when no implementation matches.
fn version_errors<T>(
    key: &str,
    version: &str,
    also_on_class: bool,
    choose: Result<T, ChoiceError>,
) -> Vec<(String, String)> {
    let version_key = if key == CONNECTOR_CLASS_CONFIG {
        CONNECTOR_VERSION.to_owned()
    } else {
        plugin_version_key(key)
    };
    match choose {
        Err(ChoiceError::InvalidRange { source, .. }) => vec![(
            version_key.clone(),
            format!("Invalid value {version} for configuration {version_key}: {source}"),
        )],
        Err(e @ ChoiceError::NoMatchingVersion { .. }) => {
            let mut out = vec![(version_key, e.to_string())];
            if also_on_class {
                out.push((key.to_owned(), e.to_string()));
            }
            out
        }
        _ => Vec::new(),
    }
}

impl PluginVersions {
    pub(super) fn new<'a>(
        plugins: &'a PluginRegistry,
        worker_converters: &'a [String; 3],
        given: impl Fn(&str) -> Option<&'a str>,
    ) -> Self {
        let mut errors = Vec::new();
        if let (Some(class), Some(version)) =
            (given(CONNECTOR_CLASS_CONFIG), given(CONNECTOR_VERSION))
        {
            errors.extend(version_errors(
                CONNECTOR_CLASS_CONFIG,
                version,
                false,
                plugins.choose_connector(class, Some(version)),
            ));
        }
        for ((key, header), worker) in CONVERTER_KEYS.iter().zip(worker_converters) {
            if let Some(version) = given(&plugin_version_key(key)) {
                let class = given(key).unwrap_or(worker);
                errors.extend(version_errors(
                    key,
                    version,
                    true,
                    plugins.choose_converter(class, Some(version), *header),
                ));
            }
        }
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
            errors,
        }
    }

    /// The errors of the `*.plugin.version` values given for the connector and converters
    /// (key, message), as Kafka Connect reports them.
    pub(super) fn errors(&self) -> &[(String, String)] {
        &self.errors
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
