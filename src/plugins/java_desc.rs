//! A Java plugin implementation found on `plugin.path` (by the plugin host's scan), as the
//! registry learns it: class, Kafka plugin type, version and location. The registry lists and
//! chooses these; running one is the plugin host's job.

use connect_api::PluginKind;

/// Kafka's `PluginType`, of a Java plugin: the six kinds connect-rs lists and runs, and the
/// three Kafka scans but `GET /connector-plugins` does not list (they still take part in alias
/// computation, as in Kafka's `PluginUtils.computeAliases`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JavaPluginKind {
    /// A connector, converter, header converter, transformation or predicate.
    Plugin(PluginKind),
    /// `org.apache.kafka.common.config.provider.ConfigProvider`.
    ConfigProvider,
    /// `org.apache.kafka.connect.rest.ConnectRestExtension`.
    RestExtension,
    /// `org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy`.
    ConnectorClientConfigOverridePolicy,
}

/// The plugin type names Kafka's scan reports (lower-case `PluginType` names).
const TYPES: [(&str, JavaPluginKind); 9] = [
    ("source", JavaPluginKind::Plugin(PluginKind::Source)),
    ("sink", JavaPluginKind::Plugin(PluginKind::Sink)),
    ("converter", JavaPluginKind::Plugin(PluginKind::Converter)),
    (
        "header_converter",
        JavaPluginKind::Plugin(PluginKind::HeaderConverter),
    ),
    (
        "transformation",
        JavaPluginKind::Plugin(PluginKind::Transformation),
    ),
    ("predicate", JavaPluginKind::Plugin(PluginKind::Predicate)),
    ("configprovider", JavaPluginKind::ConfigProvider),
    ("rest_extension", JavaPluginKind::RestExtension),
    (
        "connector_client_config_override_policy",
        JavaPluginKind::ConnectorClientConfigOverridePolicy,
    ),
];

/// A plugin type name Kafka does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown plugin type '{0}': expected one of source, sink, converter, header_converter, transformation, predicate, configprovider, rest_extension, connector_client_config_override_policy")]
pub struct UnknownPluginType(pub String);

impl JavaPluginKind {
    /// The kind of Kafka's lower-case `PluginType` name (`source`, `header_converter`,
    /// `configprovider` — Kafka's enum constant has no underscore, ...).
    ///
    /// # Errors
    /// [`UnknownPluginType`] for another name.
    pub fn from_type_name(name: &str) -> Result<Self, UnknownPluginType> {
        TYPES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| *k)
            .ok_or_else(|| UnknownPluginType(name.to_owned()))
    }

    /// Kafka's lower-case `PluginType` name.
    pub fn type_name(self) -> &'static str {
        TYPES
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("unknown", |(n, _)| n)
    }

    /// Kafka's `PluginUtils.prunedName` suffix: `Connector` for connectors, else the simple
    /// name of the type's interface.
    pub fn alias_suffix(self) -> &'static str {
        match self {
            Self::Plugin(kind) => kind.alias_suffix(),
            Self::ConfigProvider => "ConfigProvider",
            Self::RestExtension => "ConnectRestExtension",
            Self::ConnectorClientConfigOverridePolicy => "ConnectorClientConfigOverridePolicy",
        }
    }
}

/// One Java implementation of a plugin class, found at `location` (a jar, a directory of
/// classes, or a plugin directory of `plugin.path`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaPluginDesc {
    /// Fully qualified class name.
    pub class: String,
    /// Its Kafka plugin type.
    pub kind: JavaPluginKind,
    /// Its `version()`, or `undefined` as Kafka reports a plugin without one.
    pub version: String,
    /// Where it was found.
    pub location: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_type_names_round_trip() {
        for (name, kind) in TYPES {
            assert_eq!(JavaPluginKind::from_type_name(name), Ok(kind));
            assert_eq!(kind.type_name(), name);
        }
        let e = JavaPluginKind::from_type_name("Source").unwrap_err();
        assert!(
            e.to_string().starts_with("unknown plugin type 'Source'"),
            "{e}"
        );
    }
}
