//! The JSON messages of the plugin host's scan service (`SCAN`, `CONFIG_KEYS`, `VALIDATE`), as
//! Java's `io.connectrs.host.scan.ScanService` reads and writes them.
//!
//! - [`ScanRequest`] → [`ScanResult`]: discovery over the locations of
//!   [`super::locations`] in one of Kafka's `plugin.discovery` modes;
//! - [`ConfigKeysRequest`] → `Vec<`[`ConfigKeyInfo`]`>`: a plugin's own `config()` as Kafka's
//!   REST `ConfigKeyInfo` (`AbstractHerder.convertConfigKey`);
//! - [`ValidateRequest`] → [`ValidateResult`]: the plugin part of a validation
//!   (`config()` + `validate(props)`), as Kafka's `AbstractHerder.generateResult` builds it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::locations::{PluginLocation, PluginLocations};

/// Kafka's `plugin.discovery` modes: the worker key's own type, sent by its lower-case name.
pub use crate::config::PluginDiscovery as DiscoveryMode;

/// One location to scan: its loader reads `urls`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanLocation {
    /// The location (a `plugin.path` child), as reported back in [`ScannedPlugin::location`].
    pub path: String,
    /// The archives or class directory of the location's loader.
    pub urls: Vec<String>,
}

impl From<&PluginLocation> for ScanLocation {
    fn from(l: &PluginLocation) -> Self {
        Self {
            path: l.path.display().to_string(),
            urls: l.urls.iter().map(|u| u.display().to_string()).collect(),
        }
    }
}

/// `SCAN`: discover the plugins of `locations` (and of the host's own class path entries
/// `classpath`, Kafka's "classpath" source).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanRequest {
    /// The discovery mode.
    pub mode: DiscoveryMode,
    /// The isolated locations, each with its own class loader.
    pub locations: Vec<ScanLocation>,
    /// Class path entries scanned as Kafka's classpath source (no isolation).
    #[serde(default)]
    pub classpath: Vec<String>,
}

impl ScanRequest {
    /// A request for the locations `plugin.path` resolved to.
    pub fn new(mode: DiscoveryMode, locations: &PluginLocations, classpath: Vec<String>) -> Self {
        Self {
            mode,
            locations: locations.locations.iter().map(ScanLocation::from).collect(),
            classpath,
        }
    }
}

/// Kafka's `PluginType`, named as its lower-case `toString()` (the REST `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PluginType {
    /// `SourceConnector`.
    Source,
    /// `SinkConnector`.
    Sink,
    /// `Converter`.
    Converter,
    /// `HeaderConverter`.
    HeaderConverter,
    /// `Transformation`.
    Transformation,
    /// `Predicate`.
    Predicate,
    /// `ConfigProvider` (Kafka's enum constant is `CONFIGPROVIDER`, without underscore).
    #[serde(rename = "configprovider", alias = "config_provider")]
    ConfigProvider,
    /// `ConnectRestExtension`.
    RestExtension,
    /// `ConnectorClientConfigOverridePolicy`.
    ConnectorClientConfigOverridePolicy,
}

impl PluginType {
    /// The REST/log name (`source`, `header_converter`, `configprovider`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Sink => "sink",
            Self::Converter => "converter",
            Self::HeaderConverter => "header_converter",
            Self::Transformation => "transformation",
            Self::Predicate => "predicate",
            Self::ConfigProvider => "configprovider",
            Self::RestExtension => "rest_extension",
            Self::ConnectorClientConfigOverridePolicy => "connector_client_config_override_policy",
        }
    }
}

/// One discovered plugin (Kafka's `PluginDesc`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScannedPlugin {
    /// The fully qualified class name.
    pub class: String,
    /// The plugin type.
    #[serde(rename = "type")]
    pub kind: PluginType,
    /// `version()` of a fresh instance, or `"undefined"` (not `Versioned`, or it threw).
    pub version: String,
    /// The location's `path` from the request, or `"classpath"`.
    pub location: String,
    /// Whether a ServiceLoader manifest lists it (false: found by the reflective scan only).
    pub via_manifest: bool,
}

/// A plugin (or a whole archive) that could not be discovered; the scan went on without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanError {
    /// The location (or archive) concerned.
    pub location: String,
    /// The class concerned, when one is known.
    pub class: Option<String>,
    /// Kafka's log text ("Failed to discover Converter in ...: Unable to instantiate ...").
    pub message: String,
    /// The Java stack trace of the cause, when there is one.
    pub trace: Option<String>,
}

/// A plugin found by the reflective scan that no ServiceLoader manifest lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HybridEntry {
    /// Kafka's location text (the loader's `file:` URL).
    pub location: String,
    /// The class.
    pub class: String,
    /// The type name.
    #[serde(rename = "type")]
    pub kind: String,
    /// The version.
    pub version: String,
}

/// The answer to `SCAN`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanResult {
    /// Every (class, type, version, location) found, manifests and reflective scan merged.
    pub plugins: Vec<ScannedPlugin>,
    /// What could not be discovered (Kafka logs these at ERROR and goes on).
    pub errors: Vec<ScanError>,
    /// In the hybrid modes, the plugins without manifest (`maybeReportHybridDiscoveryIssue`);
    /// `None` in `only_scan` and `service_load`.
    pub hybrid_report: Option<Vec<HybridEntry>>,
    /// Kafka's text for the hybrid report: WARN text in `hybrid_warn` (also the "All plugins
    /// have ServiceLoader manifests" hint), the exception text in `hybrid_fail` (the worker must
    /// not start); `None` when Kafka says nothing.
    #[serde(default)]
    pub hybrid_message: Option<String>,
}

/// `CONFIG_KEYS`: the plugin's own `config()` keys. `version` is an exact version string or
/// `"latest"`/absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigKeysRequest {
    /// The plugin class.
    pub class: String,
    /// The plugin type.
    #[serde(rename = "type")]
    pub kind: PluginType,
    /// Exact version, or `None`/`"latest"` for the latest.
    #[serde(default)]
    pub version: Option<String>,
}

/// Kafka's REST `ConfigKeyInfo`, field for field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigKeyInfo {
    /// The key.
    pub name: String,
    /// `ConfigDef.Type` name (`STRING`, `INT`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// True iff the key has no default.
    pub required: bool,
    /// The default through `ConfigDef.convertToString`, `None` when required.
    pub default_value: Option<String>,
    /// `HIGH`/`MEDIUM`/`LOW`.
    pub importance: String,
    /// The documentation text.
    pub documentation: Option<String>,
    /// The group.
    pub group: Option<String>,
    /// The order in the group.
    pub order_in_group: i32,
    /// `NONE`/`SHORT`/`MEDIUM`/`LONG`.
    pub width: String,
    /// The display name.
    pub display_name: Option<String>,
    /// The dependent keys.
    pub dependents: Vec<String>,
}

/// `VALIDATE`: the plugin part of a validation of `props`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidateRequest {
    /// The plugin class.
    pub class: String,
    /// The plugin type.
    #[serde(rename = "type")]
    pub kind: PluginType,
    /// Exact version, or `None`/`"latest"` for the latest.
    #[serde(default)]
    pub version: Option<String>,
    /// The properties the plugin validates (for a connector, the whole connector config).
    pub props: BTreeMap<String, String>,
}

/// Kafka's REST `ConfigValueInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigValueInfo {
    /// The key.
    pub name: String,
    /// The value through `ConfigDef.convertToString`.
    pub value: Option<String>,
    /// Recommended values (a LIST key's as STRING).
    pub recommended_values: Vec<String>,
    /// Error messages.
    pub errors: Vec<String>,
    /// Whether the key is visible.
    pub visible: bool,
}

/// Kafka's REST `ConfigInfo`: a key's definition with its validated value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigInfo {
    /// The definition (`None` for a value the plugin reported without a key).
    pub definition: Option<ConfigKeyInfo>,
    /// The value (`None` for a key the plugin did not validate).
    pub value: Option<ConfigValueInfo>,
}

/// The answer to `VALIDATE`, as `AbstractHerder.generateResult` orders it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidateResult {
    /// The number of error messages.
    pub error_count: u32,
    /// The `ConfigDef` groups.
    pub groups: Vec<String>,
    /// Values without a key first, then the keys in `ConfigDef` order.
    pub configs: Vec<ConfigInfo>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_messages_have_the_contract_shape() {
        let req = ScanRequest {
            mode: DiscoveryMode::HybridWarn,
            locations: vec![ScanLocation {
                path: "/p/a".into(),
                urls: vec!["/p/a/x.jar".into()],
            }],
            classpath: vec![],
        };
        assert_eq!(
            serde_json::to_string(&req).unwrap(),
            r#"{"mode":"hybrid_warn","locations":[{"path":"/p/a","urls":["/p/a/x.jar"]}],"classpath":[]}"#
        );
        let res: ScanResult = serde_json::from_str(
            r#"{"plugins":[{"class":"a.B","type":"header_converter","version":"undefined","location":"/p/a","via_manifest":false},
                {"class":"a.C","type":"config_provider","version":"1","location":"classpath","via_manifest":true}],
               "errors":[{"location":"/p/x.jar","class":null,"message":"m","trace":null}],"hybrid_report":null}"#,
        )
        .unwrap();
        assert_eq!(res.plugins[0].kind, PluginType::HeaderConverter);
        assert_eq!(res.plugins[1].kind.name(), "configprovider");
        assert_eq!(
            serde_json::to_value(PluginType::ConfigProvider).unwrap(),
            "configprovider"
        );
    }

    #[test]
    fn config_key_info_uses_kafka_field_names() {
        let k: ConfigKeyInfo = serde_json::from_str(
            r#"{"name":"n","type":"STRING","required":true,"default_value":null,"importance":"HIGH",
                "documentation":"d","group":null,"order_in_group":-1,"width":"NONE","display_name":"n","dependents":[]}"#,
        )
        .unwrap();
        assert!(k.required);
        assert_eq!(k.order_in_group, -1);
    }
}
