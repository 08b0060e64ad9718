//! The worker keys that say where Java plugins come from and which implementation of a class
//! runs: `plugin.path` (Kafka's), `plugin.discovery` (Kafka's `PluginDiscoveryMode`) and
//! `plugin.version.default` (connect-rs's).

use super::error::ConfigProblem;
use super::raw::RawConfig;

/// `plugin.path`.
pub const PLUGIN_PATH: &str = "plugin.path";
/// `plugin.discovery`.
pub const PLUGIN_DISCOVERY: &str = "plugin.discovery";
/// `plugin.version.default`.
pub const PLUGIN_VERSION_DEFAULT: &str = "plugin.version.default";

/// Kafka's `PluginDiscoveryMode`: how plugins are found in `plugin.path`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PluginDiscovery {
    /// `only_scan`: reflective scan only.
    OnlyScan,
    /// `hybrid_warn` (default): scan and ServiceLoader manifests; warn about plugins without a
    /// manifest.
    #[default]
    HybridWarn,
    /// `hybrid_fail`: as `hybrid_warn`, but a plugin without a manifest stops start-up.
    HybridFail,
    /// `service_load`: ServiceLoader manifests only.
    ServiceLoad,
}

/// Kafka's enum order (`PluginDiscoveryMode.values()`).
const DISCOVERY_MODES: [(&str, PluginDiscovery); 4] = [
    ("only_scan", PluginDiscovery::OnlyScan),
    ("hybrid_warn", PluginDiscovery::HybridWarn),
    ("hybrid_fail", PluginDiscovery::HybridFail),
    ("service_load", PluginDiscovery::ServiceLoad),
];

/// Kafka's `CaseInsensitiveValidString` message for `plugin.discovery`: the upper-case names
/// in the iteration order of Java's `HashSet` of them (checked with JDK 17).
const DISCOVERY_ERROR: &str =
    "String must be one of (case insensitive): ONLY_SCAN, SERVICE_LOAD, HYBRID_WARN, HYBRID_FAIL";

impl PluginDiscovery {
    /// The mode called `value`, case-insensitive (as Kafka; not trimmed).
    pub fn parse(value: &str) -> Option<Self> {
        DISCOVERY_MODES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(value))
            .map(|(_, m)| *m)
    }

    /// The lower-case name (`hybrid_warn`, ...).
    pub fn name(self) -> &'static str {
        DISCOVERY_MODES
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("hybrid_warn", |(n, _)| n)
    }
}

/// By its lower-case name, as the plugin host's `SCAN` request carries it.
impl serde::Serialize for PluginDiscovery {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// From its name, case-insensitive.
impl<'de> serde::Deserialize<'de> for PluginDiscovery {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("{DISCOVERY_ERROR}, not {name}")))
    }
}

/// Which implementation of a class runs when a connector configuration gives no
/// `*.plugin.version`: the worker key `plugin.version.default`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum VersionDefault {
    /// `builtin` (default): the built-in implementation when there is one, else the latest
    /// Java one.
    #[default]
    Builtin,
    /// `latest`: the highest version (Maven order) of all implementations, as Kafka chooses;
    /// on equal versions the built-in.
    Latest,
}

impl VersionDefault {
    /// The value `builtin` or `latest`, case-insensitive.
    pub fn parse(value: &str) -> Option<Self> {
        if value.eq_ignore_ascii_case("builtin") {
            Some(Self::Builtin)
        } else if value.eq_ignore_ascii_case("latest") {
            Some(Self::Latest)
        } else {
            None
        }
    }

    /// `builtin` or `latest`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Builtin => "builtin",
            Self::Latest => "latest",
        }
    }
}

/// The problems of `plugin.discovery` and `plugin.version.default` in `raw`, with Kafka's
/// message for the first.
pub(super) fn problems(raw: &RawConfig) -> Vec<ConfigProblem> {
    let mut out = Vec::new();
    let mut check = |key: &str, valid: &dyn Fn(&str) -> bool, reason: &str| {
        if let Some(value) = raw.get(key) {
            if !valid(value) {
                out.push(ConfigProblem::for_key(
                    raw.origin_or_source(key),
                    key,
                    format!("Invalid value {value} for configuration {key}: {reason}"),
                ));
            }
        }
    };
    check(
        PLUGIN_DISCOVERY,
        &|v| PluginDiscovery::parse(v).is_some(),
        DISCOVERY_ERROR,
    );
    check(
        PLUGIN_VERSION_DEFAULT,
        &|v| VersionDefault::parse(v.trim()).is_some(),
        "String must be one of: builtin, latest",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_modes_parse_case_insensitively() {
        assert_eq!(
            PluginDiscovery::parse("ONLY_SCAN"),
            Some(PluginDiscovery::OnlyScan)
        );
        assert_eq!(
            PluginDiscovery::parse("Hybrid_Fail"),
            Some(PluginDiscovery::HybridFail)
        );
        assert_eq!(
            PluginDiscovery::parse("service_load").map(PluginDiscovery::name),
            Some("service_load")
        );
        assert_eq!(PluginDiscovery::parse("scan"), None);
        assert_eq!(
            VersionDefault::parse("LATEST"),
            Some(VersionDefault::Latest)
        );
        assert_eq!(VersionDefault::parse("newest"), None);
    }
}
