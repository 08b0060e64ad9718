//! Validation of connector configurations, which Kafka Connect keeps in the herder
//! (`AbstractHerder.validateConnectorConfig`, `connectorPluginConfig`): a connector
//! configuration checked without creating anything, answered as `ConfigInfos` (even when there
//! are errors), and a plugin's configuration keys as `ConfigKeyInfo`s. REST's
//! `PUT /connector-plugins/{plugin}/config/validate` and `GET /connector-plugins/{plugin}/config`
//! and the offline `validate`, `doctor` and `plugins` commands call it here. See
//! `reference/kafka-connect.md` §1.2–1.3.
//!
//! [`entities`] holds the answer's shapes, `transforms` the keys that `transforms` and
//! `predicates` add, `plugin_versions` the converter and `*.plugin.version` keys, `java_map`
//! how Java prints a configuration map, `remote` the plugin part of a Java plugin (asked of
//! the plugin host, off the herder: callers await it) and `merge` how that part joins the
//! framework's as Kafka's `validateConnectorPluginSpecifiedConfigs` joins them.

pub mod before_write;
mod converters;
pub mod entities;
mod java_map;
mod merge;
mod plugin_versions;
pub mod remote;
mod transforms;

use std::collections::HashMap;

use connect_api::config_def::{parse_value, Default as KeyDefault};
use connect_api::ConfigDef;

use self::entities::default_text;
pub use self::entities::{value_text, ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo};
use self::java_map::java_map_string;
use self::plugin_versions::PluginVersions;
use self::transforms::{enriched_keys, EnrichedKey};
use crate::config::providers::{has_placeholder, ConfigProviders, Redactor};
use crate::config::{
    connector_def, validate_connector, ConfigError, ConnectorKind, RawConfig, CONNECTOR_VERSION,
};
use crate::plugins::{
    ChoiceError, ConnectorPlugin, JavaPluginDesc, PluginChoice, PluginRegistry, RegistryError,
};
use crate::worker::transform_spec::TransformChainSpec;

// The key that names the connector plugin in a connector configuration.
use crate::config::CONNECTOR_CLASS_CONFIG as CONNECTOR_CLASS;

/// Error added to a key whose value is JSON `null` (Kafka's `addNullValuedErrors`).
const NULL_VALUE_ERROR: &str = "Null value can not be supplied as the configuration value.";

/// Why a configuration could not be validated at all (REST answers 400, or 404 for
/// [`ValidateError::UnknownPlugin`]); problems of single keys are not errors but part of the
/// [`ConfigInfos`] answer.
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    /// No `connector.class` in the configuration (shown as Java prints the map).
    #[error("Connector config {config} contains no connector type")]
    NoConnectorType {
        /// The configuration as Java's `HashMap.toString` prints it.
        config: String,
    },
    /// `connector.class` names another plugin than the request path.
    #[error("Included connector type {class} does not match request type {plugin}")]
    TypeMismatch {
        /// `connector.class` as given.
        class: String,
        /// The plugin of the request path.
        plugin: String,
    },
    /// `connector.class` names no connector plugin.
    #[error(transparent)]
    UnknownConnector(RegistryError),
    /// No connector, transform or predicate plugin of that name.
    #[error("Unknown plugin {0}.")]
    UnknownPlugin(String),
    /// The `version` asked for is no Maven version or range.
    #[error("Invalid version specification: {0}")]
    InvalidVersion(String),
    /// No implementation of the plugin has a version in the range asked for (Kafka's
    /// `VersionedPluginLoadingException` message).
    #[error("{0}")]
    NoMatchingVersion(String),
    /// The implementation chosen is a Java plugin and the plugin host could not answer for it
    /// (no Java, a JVM that did not start, died or did not answer in time).
    #[error("{} {} (version {}) is a Java plugin from {}, and the plugin host could not answer for it: {reason}", .plugin.kind.type_name(), .plugin.class, .plugin.version, .plugin.location)]
    Host {
        /// The plugin asked about.
        plugin: Box<JavaPluginDesc>,
        /// Why the host could not answer.
        reason: String,
    },
    /// The Java plugin's answer is one Kafka Connect refuses (`config()` or `validate()`
    /// returned null, ...), with Kafka's message.
    #[error("{0}")]
    PluginRefused(String),
}

impl ValidateError {
    /// The HTTP status REST answers with: 404 for an unknown plugin, 500 when the plugin host
    /// could not answer for a Java plugin, else 400.
    pub fn status(&self) -> u16 {
        match self {
            Self::UnknownPlugin(_) => 404,
            Self::Host { .. } => 500,
            _ => 400,
        }
    }
}

/// The configuration keys of the plugin called `plugin` (class name or alias): for a
/// connector its own keys first, then the framework's source or sink connector keys it does not
/// define itself; for a transform, predicate or (Java) converter its own keys. `version` is the
/// `version` query parameter (Kafka's `GET /connector-plugins/{plugin}/config?version=`): a
/// Maven version or range choosing among the plugin's implementations; `None` or `latest` is
/// the worker's default choice. A Java plugin's own keys are the plugin host's answer
/// (Kafka's `convertConfigKey` of its `config()`), awaited here.
///
/// # Errors
/// [`ValidateError::UnknownPlugin`] (404) when no plugin of those kinds has that name;
/// [`ValidateError::InvalidVersion`] and [`ValidateError::NoMatchingVersion`] (400) for a
/// `version` that is no range or that no implementation matches;
/// [`ValidateError::Host`] (500) when the plugin host cannot answer for a Java plugin.
pub async fn plugin_config(
    plugins: &PluginRegistry,
    plugin: &str,
    version: Option<&str>,
) -> Result<Vec<ConfigKeyInfo>, ValidateError> {
    if let Some(v) = version {
        crate::plugins::version::version_requirement(Some(v))
            .map_err(|_| ValidateError::InvalidVersion(v.to_owned()))?;
    }
    let own_keys = |def: ConfigDef| def.keys().iter().map(ConfigKeyInfo::from_key).collect();
    match found(plugins.choose_transformation(plugin, version))? {
        Some(PluginChoice::Builtin(t)) => return Ok(own_keys((t.config_def)())),
        Some(PluginChoice::Java(j)) => return java_keys(plugins, &j).await,
        None => {}
    }
    match found(plugins.choose_predicate(plugin, version))? {
        Some(PluginChoice::Builtin(p)) => return Ok(own_keys((p.config_def)())),
        Some(PluginChoice::Java(j)) => return java_keys(plugins, &j).await,
        None => {}
    }
    match found(plugins.choose_connector(plugin, version))? {
        Some(PluginChoice::Builtin(connector)) => {
            let framework = connector_def(kind_of(&connector), &ConfigDef::new());
            let def = with_connector_version(
                connector.config_def().merge(&framework),
                connector.desc().version,
            );
            return Ok(def.keys().iter().map(ConfigKeyInfo::from_key).collect());
        }
        Some(PluginChoice::Java(j)) => {
            // Kafka: the plugin's keys, then the framework's it does not define (`putIfAbsent`).
            let mut keys = java_keys(plugins, &j).await?;
            let framework = connector_def(java_kind(&j), &ConfigDef::new());
            for key in framework.keys() {
                if !keys.iter().any(|k| k.name == key.name) {
                    let mut info = ConfigKeyInfo::from_key(key);
                    if key.name == CONNECTOR_VERSION {
                        info.default_value = Some(j.version.clone());
                    }
                    keys.push(info);
                }
            }
            return Ok(keys);
        }
        None => {}
    }
    // Built-in converters have no REST key listing (yet); Java ones answer theirs.
    for header in [false, true] {
        if let Ok(PluginChoice::Java(j)) = plugins.choose_converter(plugin, version, header) {
            return java_keys(plugins, &j).await;
        }
    }
    Err(ValidateError::UnknownPlugin(plugin.to_owned()))
}

/// A Java plugin's own keys, from the plugin host.
async fn java_keys(
    plugins: &PluginRegistry,
    j: &JavaPluginDesc,
) -> Result<Vec<ConfigKeyInfo>, ValidateError> {
    Ok(remote::config_keys(plugins, j)
        .await?
        .into_iter()
        .map(ConfigKeyInfo::from)
        .collect())
}

/// The implementation chosen, `None` when there is no plugin of that kind and name.
///
/// # Errors
/// A version the plugin's implementations do not match.
fn found<T>(
    choice: Result<PluginChoice<T>, ChoiceError>,
) -> Result<Option<PluginChoice<T>>, ValidateError> {
    match choice {
        Ok(c) => Ok(Some(c)),
        Err(ChoiceError::NotFound(_)) => Ok(None),
        Err(ChoiceError::InvalidRange { value, .. }) => Err(ValidateError::InvalidVersion(value)),
        Err(e @ ChoiceError::NoMatchingVersion { .. }) => {
            Err(ValidateError::NoMatchingVersion(e.to_string()))
        }
    }
}

/// Validates the connector configuration `props` (in request order; `None` is a JSON null) as
/// `PUT /connector-plugins/{plugin}/config/validate` answers (Kafka's
/// `AbstractHerder.validateConnectorConfig`). The connector is the one `connector.class`
/// names; `plugin` is only checked against it. Errors per key are those of the framework and
/// plugin `ConfigDef`s plus the framework's cross-key checks; keys no definition knows are
/// listed with a null definition. The converter keys default to the worker's converters
/// (`worker_converters`: key, value, header) and the `*.plugin.version` keys to the version of
/// their plugin, as in Kafka Connect 4.x. Placeholders are resolved with `providers` before
/// validation (as Kafka's `validateConnectorConfig`); a value with placeholders is reported as
/// given, a placeholder that cannot be resolved is an error on its key, and no message shows
/// a resolved value.
///
/// For a Java connector the framework part is connect-rs's and the plugin part (its
/// `config()` and `validate(props)`) the plugin host's, awaited here (the JVM may start, and
/// the plugin may do I/O, as Debezium connects to its database), joined as Kafka Connect
/// joins them ([`merge`]).
///
/// # Errors
/// [`ValidateError`] (400) when `connector.class` is missing, does not match `plugin`, or names
/// no connector plugin; 500 when the plugin host cannot answer for a Java connector.
pub async fn validate_config(
    plugins: &PluginRegistry,
    worker_converters: &[String; 3],
    providers: &ConfigProviders,
    plugin: &str,
    props: &[(String, Option<String>)],
) -> Result<ConfigInfos, ValidateError> {
    let class = props
        .iter()
        .find(|(k, _)| k == CONNECTOR_CLASS)
        .and_then(|(_, v)| v.as_deref());
    if let Some(class) = class {
        if !normalized(class).ends_with(normalized(plugin)) {
            return Err(ValidateError::TypeMismatch {
                class: class.to_owned(),
                plugin: plugin.to_owned(),
            });
        }
    }
    let Some(class) = class else {
        return Err(ValidateError::NoConnectorType {
            config: java_map_string(props),
        });
    };
    let given_value = |key: &str| {
        props
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    };
    let target = match plugins.choose_connector(class, given_value(CONNECTOR_VERSION)) {
        Ok(PluginChoice::Builtin(c)) => Target::Builtin(c),
        Ok(PluginChoice::Java(j)) => Target::Java { desc: j, ask: true },
        Err(ChoiceError::NotFound(e)) => return Err(ValidateError::UnknownConnector(e)),
        // A version no implementation matches is an error on `connector.plugin.version`
        // ([`PluginVersions::errors`]); the rest is validated against the default choice
        // (for a Java one, like Kafka, without asking the plugin).
        Err(_) => match plugins.connector(class) {
            Ok(c) => Target::Builtin(c),
            Err(e) => match e.java() {
                Some(j) => Target::Java {
                    desc: j.clone(),
                    ask: false,
                },
                None => return Err(ValidateError::UnknownConnector(e)),
            },
        },
    };
    let kind = target.kind();
    let own = target.own_def();
    let connector_version = target.version().to_owned();
    let versions = PluginVersions::new(plugins, worker_converters, given_value);
    let def = versions.apply(connector_def(kind, &own));

    let raw = RawConfig::from_pairs(
        "<REST request>",
        props
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| (k.clone(), v.clone()))),
    );
    let given: HashMap<&str, Option<&str>> = props
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref()))
        .collect();

    // Every problem, by key; a null value only has the null error (Kafka parses null as null).
    let mut errors: HashMap<String, Vec<String>> = HashMap::new();
    let mut unkeyed: Vec<String> = Vec::new();
    // Placeholders resolved first; a key whose placeholder does not resolve only has that error.
    let (raw, redactor) = match providers.resolve(&raw, |_| false) {
        Ok(resolved) => (resolved.raw, resolved.redactor),
        Err(problems) => {
            for problem in problems {
                if let Some(key) = problem.key {
                    errors.entry(key).or_default().push(problem.message);
                }
            }
            (raw, Redactor::default())
        }
    };
    let unresolved: Vec<String> = errors.keys().cloned().collect();
    let mut push = |key: String, message: &str| {
        if !unresolved.contains(&key) {
            let message = redactor.redact(message).into_owned();
            errors.entry(key).or_default().push(message);
        }
    };
    if let Err(ConfigError::Invalid { problems, .. }) = validate_connector(&raw, kind, &own) {
        for problem in problems {
            match problem.key {
                Some(key) if given.get(key.as_str()) == Some(&None) => {}
                Some(key) => push(key, &problem.message),
                None => unkeyed.push(redactor.redact(&problem.message).into_owned()),
            }
        }
    }
    if let Target::Builtin(connector) = &target {
        for issue in connector.validate(&raw.to_map()) {
            if given.get(issue.key.as_str()) != Some(&None) {
                push(issue.key, &issue.message);
            }
        }
    }
    for (key, message) in versions.errors() {
        if given.get(key.as_str()) != Some(&None) {
            push(key.clone(), message);
        }
    }
    let java_stages = transforms::java_stages(plugins, given_value, props).await?;
    let (_, chain_problems, _) = TransformChainSpec::validate(&raw, plugins);
    for problem in chain_problems {
        if let Some(key) = problem.key {
            // A Java stage whose own `config().validate(...)` found errors shows those, as
            // Kafka Connect does, not also what its `configure` then refused (which only
            // connect-rs reports: the creation would fail with it).
            if java_stages
                .iter()
                .any(|(prefix, stage)| stage.has_errors() && key.starts_with(prefix.as_str()))
            {
                continue;
            }
            if given.get(key.as_str()) != Some(&None) {
                push(key, &problem.message);
            }
        }
    }
    let enriched = enriched_keys(plugins, given_value, &java_stages);
    let is_defined = |k: &str| def.key(k).is_some() || enriched.iter().any(|e| e.info.name == k);
    for (key, value) in props {
        if value.is_none() {
            errors
                .entry(key.clone())
                .or_default()
                .push(NULL_VALUE_ERROR.to_owned());
        }
    }
    // Cannot happen for pairs without lines; kept on `connector.class` so that none is lost.
    if !unkeyed.is_empty() {
        errors
            .entry(CONNECTOR_CLASS.to_owned())
            .or_default()
            .extend(unkeyed);
    }

    let mut configs = Vec::new();
    // Keys no definition knows, as given, then problem keys built at run time
    // (`transforms.<alias>.type`) that are missing from the request.
    let mut undefined: Vec<(String, Option<String>)> = props
        .iter()
        .filter(|(k, _)| !is_defined(k))
        .cloned()
        .collect();
    let mut extra: Vec<&String> = errors
        .keys()
        .filter(|k| !is_defined(k) && !given.contains_key(k.as_str()))
        .collect();
    extra.sort();
    undefined.extend(extra.into_iter().map(|k| (k.clone(), None)));
    for (key, value) in undefined {
        let errs = errors.remove(&key).unwrap_or_default();
        configs.push(ConfigInfo {
            definition: None,
            value: Some(ConfigValueInfo {
                name: key,
                value,
                recommended_values: Vec::new(),
                errors: errs,
                visible: true,
            }),
        });
    }
    let mut groups: Vec<String> = Vec::new();
    // Framework keys, then the keys of the transforms and predicates, then the connector
    // plugin's own keys, as Kafka Connect lists them.
    let mut enriched = Some(enriched);
    for key in def.keys() {
        if own.key(key.name).is_some() {
            if let Some(keys) = enriched.take() {
                push_enriched(keys, &given, &mut errors, &mut groups, &mut configs);
            }
        }
        if let Some(group) = key.group {
            if !groups.iter().any(|g| g == group) {
                groups.push(group.to_owned());
            }
        }
        let value = match given.get(key.name) {
            // As given: a resolved value is not shown.
            Some(Some(raw)) if has_placeholder(raw) => Some((*raw).to_owned()),
            Some(Some(raw)) => parse_value(key.name, key.config_type, raw)
                .ok()
                .map(|v| value_text(&v)),
            Some(None) => None,
            // `connector.plugin.version` defaults to the version of the connector in effect.
            None if key.name == CONNECTOR_VERSION => Some(connector_version.clone()),
            None => match key.default {
                KeyDefault::Value(d) => Some(default_text(key, d)),
                KeyDefault::Required | KeyDefault::Null => None,
            },
        };
        let mut info = ConfigKeyInfo::from_key(key);
        let mut recommended = versions.recommended(key.name, &connector_version);
        if key.name == CONNECTOR_VERSION {
            info.default_value = Some(connector_version.clone());
            if let Target::Java { .. } = &target {
                recommended = plugins.connector_versions(class);
            }
        }
        configs.push(ConfigInfo {
            definition: Some(info),
            value: Some(ConfigValueInfo {
                name: key.name.to_owned(),
                value,
                recommended_values: recommended,
                errors: errors.remove(key.name).unwrap_or_default(),
                visible: true,
            }),
        });
    }
    if let Some(keys) = enriched {
        push_enriched(keys, &given, &mut errors, &mut groups, &mut configs);
    }
    let framework = ConfigInfos {
        name: class.to_owned(),
        error_count: merge::error_count(&configs),
        groups,
        configs,
    };
    let Target::Java { desc, ask: true } = &target else {
        let mut result = framework;
        converters::append_java_converters(plugins, given_value, props, &mut result).await?;
        return Ok(result);
    };
    // The plugin sees the configuration resolved, nulls as nulls (Kafka's transformed props).
    let resolved: Vec<(String, Option<String>)> = props
        .iter()
        .map(|(k, v)| {
            let value = v
                .as_ref()
                .map(|v| raw.get(k).map_or_else(|| v.clone(), str::to_owned));
            (k.clone(), value)
        })
        .collect();
    let part = remote::validate(plugins, desc, &resolved).await?;
    let given_raw = |name: &str| given.get(name).copied().flatten();
    let mut result = merge::join(framework, part, given_raw, &redactor);
    converters::append_java_converters(plugins, given_value, props, &mut result).await?;
    Ok(result)
}

/// The connector implementation validated.
enum Target {
    /// A built-in connector: connect-rs validates it all.
    Builtin(ConnectorPlugin),
    /// A Java connector: connect-rs validates the framework part; the plugin host the plugin
    /// part, unless `ask` is false (the version asked for matches no implementation: Kafka
    /// then reports the framework part only).
    Java { desc: JavaPluginDesc, ask: bool },
}

impl Target {
    fn kind(&self) -> ConnectorKind {
        match self {
            Self::Builtin(c) => kind_of(c),
            Self::Java { desc, .. } => java_kind(desc),
        }
    }

    /// The plugin's own keys connect-rs knows (none of a Java plugin's: the host has them).
    fn own_def(&self) -> ConfigDef {
        match self {
            Self::Builtin(c) => c.config_def(),
            Self::Java { .. } => ConfigDef::new(),
        }
    }

    fn version(&self) -> &str {
        match self {
            Self::Builtin(c) => c.desc().version,
            Self::Java { desc, .. } => &desc.version,
        }
    }
}

/// Whether a Java connector is a sink (else a source).
fn java_kind(j: &JavaPluginDesc) -> ConnectorKind {
    match j.kind {
        crate::plugins::JavaPluginKind::Plugin(connect_api::PluginKind::Sink) => {
            ConnectorKind::Sink
        }
        _ => ConnectorKind::Source,
    }
}

/// Appends the keys of the transforms and predicates with their values and errors.
fn push_enriched(
    keys: Vec<EnrichedKey>,
    given: &HashMap<&str, Option<&str>>,
    errors: &mut HashMap<String, Vec<String>>,
    groups: &mut Vec<String>,
    configs: &mut Vec<ConfigInfo>,
) {
    for key in keys {
        let name = key.info.name.clone();
        if let Some(group) = &key.info.group {
            if !groups.contains(group) {
                groups.push(group.clone());
            }
        }
        let value = match given.get(name.as_str()) {
            Some(None) => None,
            _ => key.value,
        };
        configs.push(ConfigInfo {
            definition: Some(key.info),
            value: Some(ConfigValueInfo {
                errors: {
                    let mut errs = errors.remove(&name).unwrap_or_default();
                    errs.extend(key.errors);
                    errs
                },
                name,
                value,
                recommended_values: key.recommended,
                visible: true,
            }),
        });
    }
}

/// `def` with `connector.plugin.version` defaulting to the connector plugin's `version`.
fn with_connector_version(def: ConfigDef, version: &'static str) -> ConfigDef {
    def.with_default(CONNECTOR_VERSION, KeyDefault::Value(version))
}

fn kind_of(plugin: &ConnectorPlugin) -> ConnectorKind {
    match plugin {
        ConnectorPlugin::Source(_) => ConnectorKind::Source,
        ConnectorPlugin::Sink(_) => ConnectorKind::Sink,
    }
}

/// Kafka's `normalizedPluginName`: without a trailing `Connector` (unless that is all of it).
fn normalized(name: &str) -> &str {
    match name.strip_suffix("Connector") {
        Some(short) if !short.is_empty() => short,
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKER_CONVERTERS: [&str; 3] = [
        "org.apache.kafka.connect.json.JsonConverter",
        "StringConverter",
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    ];

    fn pairs(p: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
        p.iter()
            .map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned)))
            .collect()
    }

    #[test]
    fn plugin_names_normalize_like_kafka() {
        assert_eq!(normalized("FileStreamSourceConnector"), "FileStreamSource");
        assert_eq!(normalized("Connector"), "Connector");
        assert_eq!(normalized("FileStreamSource"), "FileStreamSource");
    }

    #[tokio::test]
    async fn sink_validation_reports_cross_key_problems_on_their_key() {
        let r = PluginRegistry::builtin();
        let infos = validate_config(
            &r,
            &WORKER_CONVERTERS.map(str::to_owned),
            &ConfigProviders::none(),
            "FileStreamSink",
            &pairs(&[
                ("name", Some("s")),
                ("connector.class", Some("FileStreamSink")),
                ("file", None),
            ]),
        )
        .await
        .unwrap();
        assert_eq!(infos.error_count, 2);
        let errors = |name: &str| {
            infos
                .configs
                .iter()
                .filter_map(|c| c.value.as_ref())
                .find(|v| v.name == name)
                .map(|v| v.errors.clone())
                .unwrap()
        };
        assert_eq!(
            errors("topics"),
            ["Must configure one of topics or topics.regex"]
        );
        assert_eq!(errors("file"), [NULL_VALUE_ERROR]);
    }

    fn java_file_source() -> PluginRegistry {
        PluginRegistry::builtin().with_java_plugins([JavaPluginDesc {
            class: "org.apache.kafka.connect.file.FileStreamSourceConnector".to_owned(),
            kind: crate::plugins::JavaPluginKind::from_type_name("source").unwrap(),
            version: "3.9.0".to_owned(),
            location: "/plugins/file".to_owned(),
        }])
    }

    async fn version_errors(
        r: &PluginRegistry,
        extra: &[(&str, Option<&str>)],
    ) -> Vec<(String, Vec<String>)> {
        let mut props = vec![
            ("name", Some("s")),
            ("connector.class", Some("FileStreamSource")),
            ("topic", Some("t")),
        ];
        props.extend_from_slice(extra);
        let infos = validate_config(
            r,
            &WORKER_CONVERTERS.map(str::to_owned),
            &ConfigProviders::none(),
            "FileStreamSource",
            &pairs(&props),
        )
        .await
        .unwrap();
        infos
            .configs
            .iter()
            .filter_map(|c| c.value.as_ref())
            .filter(|v| !v.errors.is_empty())
            .map(|v| (v.name.clone(), v.errors.clone()))
            .collect()
    }

    #[tokio::test]
    async fn a_plugin_version_no_implementation_matches_is_kafkas_error_on_its_key() {
        let r = java_file_source();
        let v = env!("CARGO_PKG_VERSION");
        assert_eq!(
            version_errors(&r, &[("connector.plugin.version", Some(v))]).await,
            []
        );
        let message = format!(
            "Plugin org.apache.kafka.connect.file.FileStreamSourceConnector not found that \
             matches the version range [4.0,4.0], available versions: [{v}, 3.9.0]"
        );
        assert_eq!(
            version_errors(&r, &[("connector.plugin.version", Some("4.0"))]).await,
            [("connector.plugin.version".to_owned(), vec![message])]
        );
        assert_eq!(
            version_errors(&r, &[("connector.plugin.version", Some("[1.0"))]).await,
            [(
                "connector.plugin.version".to_owned(),
                vec![
                    "Invalid value [1.0 for configuration connector.plugin.version: \
                      Unbounded range: [1.0"
                        .to_owned()
                ]
            )]
        );
        // A converter version: on the class key and the version key, as Kafka.
        let converter = format!(
            "Plugin org.apache.kafka.connect.json.JsonConverter not found that matches the \
             version range [9.9,9.9], available versions: [{v}]"
        );
        let errors = version_errors(&r, &[("key.converter.plugin.version", Some("9.9"))]).await;
        assert!(
            errors.contains(&("key.converter".to_owned(), vec![converter.clone()])),
            "{errors:?}"
        );
        assert!(
            errors.contains(&("key.converter.plugin.version".to_owned(), vec![converter])),
            "{errors:?}"
        );
    }

    /// A Java choice is answered by the plugin host; a registry without one (no plugin.path
    /// location) cannot answer, and says which plugin and why (500), for validate and config.
    #[tokio::test]
    async fn a_java_choice_without_a_plugin_host_is_a_500_naming_the_plugin() {
        let r = java_file_source();
        let e = validate_config(
            &r,
            &WORKER_CONVERTERS.map(str::to_owned),
            &ConfigProviders::none(),
            "FileStreamSource",
            &pairs(&[
                ("name", Some("s")),
                ("connector.class", Some("FileStreamSource")),
                ("connector.plugin.version", Some("3.9.0")),
            ]),
        )
        .await
        .unwrap_err();
        assert_eq!(e.status(), 500);
        let expected = "source org.apache.kafka.connect.file.FileStreamSourceConnector \
                        (version 3.9.0) is a Java plugin from /plugins/file, and the plugin \
                        host could not answer for it: this worker has no plugin host (no \
                        plugin.path location with Java plugins)";
        assert_eq!(e.to_string(), expected);
        let e = plugin_config(&r, "FileStreamSource", Some("3.9.0"))
            .await
            .unwrap_err();
        assert_eq!((e.status(), e.to_string()), (500, expected.to_owned()));
    }
}
