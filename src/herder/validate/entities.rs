//! Kafka Connect's validation entities (`ConfigKeyInfo`, `ConfigValueInfo`, `ConfigInfo`,
//! `ConfigInfos`): what `GET /connector-plugins/{plugin}/config` and
//! `PUT /connector-plugins/{plugin}/config/validate` answer, serialized as Kafka does.

use connect_api::config_def::{parse_value, Default as KeyDefault};
use connect_api::{ConfigKey, ConfigValue, Importance};
use serde::Serialize;

use crate::plugin_host::scan::{ConfigKeyInfo as ScanKeyInfo, ConfigValueInfo as ScanValueInfo};

/// Kafka Connect's `ConfigKeyInfo`: the definition of one configuration key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigKeyInfo {
    /// Key name.
    pub name: String,
    /// `BOOLEAN`, `STRING`, `INT`, `SHORT`, `LONG`, `DOUBLE`, `LIST`, `CLASS` or `PASSWORD`.
    #[serde(rename = "type")]
    pub config_type: String,
    /// True iff the key has no default.
    pub required: bool,
    /// The default as text (LIST joined with `,`); null when required or defaulting to null.
    pub default_value: Option<String>,
    /// `HIGH`, `MEDIUM` or `LOW`.
    pub importance: String,
    /// Documentation (null when a Java plugin's definition has none).
    pub documentation: Option<String>,
    /// Group, if any.
    pub group: Option<String>,
    /// Order within the group; -1 when unordered.
    pub order_in_group: i32,
    /// Display width: `NONE`, `SHORT`, `MEDIUM` or `LONG`.
    pub width: String,
    /// Display name (the key name unless the definition names one).
    pub display_name: Option<String>,
    /// Keys that depend on this one: always empty.
    pub dependents: Vec<String>,
}

impl ConfigKeyInfo {
    /// The `ConfigKeyInfo` of `key` (Kafka's `AbstractHerder.convertConfigKey`).
    pub fn from_key(key: &ConfigKey) -> Self {
        let (required, default_value) = match key.default {
            KeyDefault::Required => (true, None),
            KeyDefault::Null => (false, None),
            KeyDefault::Value(d) => (false, Some(default_text(key, d))),
        };
        Self {
            name: key.name.to_owned(),
            config_type: key.config_type.name().to_owned(),
            required,
            default_value,
            importance: importance_name(key.importance).to_owned(),
            documentation: Some(key.doc.to_owned()),
            group: key.group.map(str::to_owned),
            order_in_group: key.order_in_group,
            width: key.width.name().to_owned(),
            display_name: Some(key.display_name.unwrap_or(key.name).to_owned()),
            dependents: Vec::new(),
        }
    }
}

impl From<ScanKeyInfo> for ConfigKeyInfo {
    /// A Java plugin's key as the plugin host rendered it (Kafka's own `convertConfigKey`).
    fn from(k: ScanKeyInfo) -> Self {
        Self {
            name: k.name,
            config_type: k.kind,
            required: k.required,
            default_value: k.default_value,
            importance: k.importance,
            documentation: k.documentation,
            group: k.group,
            order_in_group: k.order_in_group,
            width: k.width,
            display_name: k.display_name,
            dependents: k.dependents,
        }
    }
}

/// Kafka Connect's `ConfigValueInfo`: the value given for one key and its problems.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigValueInfo {
    /// Key name.
    pub name: String,
    /// The parsed value as text (the default when absent; `[hidden]` for a PASSWORD); null when
    /// absent without default, null in the request, or unparseable.
    pub value: Option<String>,
    /// Recommended values: the converter classes for a converter key, the plugin's version
    /// for a `*.plugin.version` key, else empty.
    pub recommended_values: Vec<String>,
    /// Error messages, in Kafka's words.
    pub errors: Vec<String>,
    /// Whether the key is relevant (always true for connect-rs's own keys).
    pub visible: bool,
}

impl From<ScanValueInfo> for ConfigValueInfo {
    /// A Java plugin's value as the plugin host rendered it (Kafka's `convertConfigValue`).
    fn from(v: ScanValueInfo) -> Self {
        Self {
            name: v.name,
            value: v.value,
            recommended_values: v.recommended_values,
            errors: v.errors,
            visible: v.visible,
        }
    }
}

/// Kafka Connect's `ConfigInfo`: a key's definition (null for a key no `ConfigDef` knows) and
/// its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigInfo {
    /// The key's definition; null for a key that no definition knows.
    pub definition: Option<ConfigKeyInfo>,
    /// The value and its errors.
    pub value: Option<ConfigValueInfo>,
}

/// Kafka Connect's `ConfigInfos`: the answer of the validate endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigInfos {
    /// `connector.class` as given in the request.
    pub name: String,
    /// Number of error messages over all keys.
    pub error_count: usize,
    /// The distinct groups of the keys, in definition order.
    pub groups: Vec<String>,
    /// Keys no definition knows first (with a null definition), then every defined key.
    pub configs: Vec<ConfigInfo>,
}

pub(super) fn importance_name(importance: Importance) -> &'static str {
    match importance {
        Importance::High => "HIGH",
        Importance::Medium => "MEDIUM",
        Importance::Low => "LOW",
    }
}

/// A default as Kafka's `ConfigDef.convertToString` prints the parsed default.
pub(super) fn default_text(key: &ConfigKey, default: &str) -> String {
    parse_value(key.name, key.config_type, default)
        .map(|v| value_text(&v))
        .unwrap_or_else(|_| default.to_owned())
}

/// A parsed value as Java prints it (`Double.toString` keeps `.0`; passwords are hidden).
pub fn value_text(value: &ConfigValue) -> String {
    match value {
        ConfigValue::Double(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e7 => {
            format!("{x:.1}")
        }
        other => other.to_string(),
    }
}
