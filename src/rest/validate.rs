//! `GET /connector-plugins/{plugin}/config` and `PUT /connector-plugins/{plugin}/config/validate`,
//! as Kafka Connect's `ConnectorPluginsResource`: a connector plugin's configuration keys as
//! `ConfigKeyInfo`s, and a connector configuration checked without creating anything, answered
//! as `ConfigInfos` (200 even when there are errors). See `reference/kafka-connect.md` §1.2–1.3.

use std::collections::HashMap;

use axum::extract::State;
use axum::routing::{get, put};
use axum::{Json, Router};
use connect_api::config_def::{parse_value, Default as KeyDefault};
use connect_api::{ConfigDef, ConfigKey, ConfigValue, Importance, PluginDesc};
use serde::Serialize;
use serde_json::Value;

use super::error::{JsonBody, PathParams, RestError};
use super::plugins::plugin_infos;
use super::validate_transforms::{enriched_keys, EnrichedKey};
use super::AppState;
use crate::config::providers::{has_placeholder, ConfigProviders, Redactor};
use crate::config::{
    connector_def, plugin_version_key, validate_connector, ConfigError, ConnectorKind, RawConfig,
    CONNECTOR_VERSION,
};
use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::worker::transform_spec::TransformChainSpec;

/// The key that names the connector plugin in a connector configuration.
const CONNECTOR_CLASS: &str = "connector.class";

/// Error added to a key whose value is JSON `null` (Kafka's `addNullValuedErrors`).
const NULL_VALUE_ERROR: &str = "Null value can not be supplied as the configuration value.";

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/connector-plugins/{plugin}/config", get(get_plugin_config))
        .route(
            "/connector-plugins/{plugin}/config/validate",
            put(validate_configs),
        )
}

/// Kafka Connect's `ConfigKeyInfo`: the definition of one configuration key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigKeyInfo {
    /// Key name.
    pub name: String,
    /// `BOOLEAN`, `STRING`, `INT`, `SHORT`, `LONG`, `DOUBLE`, `LIST`, `CLASS` or `PASSWORD`.
    #[serde(rename = "type")]
    pub config_type: &'static str,
    /// True iff the key has no default.
    pub required: bool,
    /// The default as text (LIST joined with `,`); null when required or defaulting to null.
    pub default_value: Option<String>,
    /// `HIGH`, `MEDIUM` or `LOW`.
    pub importance: &'static str,
    /// Documentation.
    pub documentation: String,
    /// Group, if any.
    pub group: Option<String>,
    /// Order within the group; -1 when unordered.
    pub order_in_group: i32,
    /// Display width: `NONE`, `SHORT`, `MEDIUM` or `LONG`.
    pub width: &'static str,
    /// Display name (the key name unless the definition names one).
    pub display_name: String,
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
            config_type: key.config_type.name(),
            required,
            default_value,
            importance: importance_name(key.importance),
            documentation: key.doc.to_owned(),
            group: key.group.map(str::to_owned),
            order_in_group: key.order_in_group,
            width: key.width.name(),
            display_name: key.display_name.unwrap_or(key.name).to_owned(),
            dependents: Vec::new(),
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
    /// Whether the key is relevant: always true.
    pub visible: bool,
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

/// `GET /connector-plugins/{plugin}/config`.
async fn get_plugin_config(
    State(state): State<AppState>,
    PathParams(plugin): PathParams<String>,
) -> Result<Json<Vec<ConfigKeyInfo>>, RestError> {
    plugin_config(&state.plugins, &plugin).map(Json)
}

/// `PUT /connector-plugins/{plugin}/config/validate`.
async fn validate_configs(
    State(state): State<AppState>,
    PathParams(plugin): PathParams<String>,
    JsonBody(body): JsonBody<serde_json::Map<String, Value>>,
) -> Result<Json<ConfigInfos>, RestError> {
    let props = request_props(body)?;
    validate_config(
        &state.plugins,
        &state.worker.converters,
        &state.worker.providers,
        &plugin,
        &props,
    )
    .map(Json)
}

/// The configuration keys of the plugin called `plugin` (class name or alias): for a
/// connector its own keys first, then the framework's source or sink connector keys it does not
/// define itself; for a transform or predicate its own keys.
///
/// # Errors
/// 404 `Unknown plugin <p>.` when no connector plugin has that name.
pub fn plugin_config(
    plugins: &PluginRegistry,
    plugin: &str,
) -> Result<Vec<ConfigKeyInfo>, RestError> {
    let own_keys = |def: ConfigDef| def.keys().iter().map(ConfigKeyInfo::from_key).collect();
    if let Ok(t) = plugins.transformation(plugin) {
        return Ok(own_keys((t.config_def)()));
    }
    if let Ok(p) = plugins.predicate(plugin) {
        return Ok(own_keys((p.config_def)()));
    }
    let connector = plugins
        .connector(plugin)
        .map_err(|_| RestError::not_found(format!("Unknown plugin {plugin}.")))?;
    let framework = connector_def(kind_of(&connector), &ConfigDef::new());
    let def = with_connector_version(
        connector.config_def().merge(&framework),
        connector.desc().version,
    );
    Ok(def.keys().iter().map(ConfigKeyInfo::from_key).collect())
}

/// Validates the connector configuration `props` (in request order; `None` is a JSON null) for
/// `PUT /connector-plugins/{plugin}/config/validate`. The connector is the one `connector.class`
/// names; `plugin` is only checked against it. Errors per key are those of the framework and
/// plugin `ConfigDef`s plus the framework's cross-key checks; keys no definition knows are
/// listed with a null definition. The converter keys default to the worker's converters
/// (`worker_converters`: key, value, header) and the `*.plugin.version` keys to the version of
/// their plugin, as in Kafka Connect 4.x. Placeholders are resolved with `providers` before
/// validation (as Kafka's `validateConnectorConfig`); a value with placeholders is reported as
/// given, a placeholder that cannot be resolved is an error on its key, and no message shows
/// a resolved value.
///
/// # Errors
/// 400 when `connector.class` is missing, does not match `plugin`, or names no connector plugin.
pub fn validate_config(
    plugins: &PluginRegistry,
    worker_converters: &[String; 3],
    providers: &ConfigProviders,
    plugin: &str,
    props: &[(String, Option<String>)],
) -> Result<ConfigInfos, RestError> {
    let class = props
        .iter()
        .find(|(k, _)| k == CONNECTOR_CLASS)
        .and_then(|(_, v)| v.as_deref());
    if let Some(class) = class {
        if !normalized(class).ends_with(normalized(plugin)) {
            return Err(RestError::bad_request(format!(
                "Included connector type {class} does not match request type {plugin}"
            )));
        }
    }
    let Some(class) = class else {
        return Err(RestError::bad_request(format!(
            "Connector config {} contains no connector type",
            java_map_string(props)
        )));
    };
    let connector = plugins
        .connector(class)
        .map_err(|e| RestError::bad_request(e.to_string()))?;
    let kind = kind_of(&connector);
    let given_value = |key: &str| {
        props
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    };
    let versions = PluginVersions::new(plugins, worker_converters, given_value);
    let def = versions.apply(with_connector_version(
        connector_def(kind, &connector.config_def()),
        connector.desc().version,
    ));

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
    if let Err(ConfigError::Invalid { problems, .. }) =
        validate_connector(&raw, kind, &connector.config_def())
    {
        for problem in problems {
            match problem.key {
                Some(key) if given.get(key.as_str()) == Some(&None) => {}
                Some(key) => push(key, &problem.message),
                None => unkeyed.push(redactor.redact(&problem.message).into_owned()),
            }
        }
    }
    for issue in connector.validate(&raw.to_map()) {
        if given.get(issue.key.as_str()) != Some(&None) {
            push(issue.key, &issue.message);
        }
    }
    let (_, chain_problems, _) = TransformChainSpec::validate(&raw, plugins);
    for problem in chain_problems {
        if let Some(key) = problem.key {
            if given.get(key.as_str()) != Some(&None) {
                push(key, &problem.message);
            }
        }
    }
    let enriched = enriched_keys(plugins, given_value);
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
    let own = connector.config_def();
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
            None => match key.default {
                KeyDefault::Value(d) => Some(default_text(key, d)),
                KeyDefault::Required | KeyDefault::Null => None,
            },
        };
        configs.push(ConfigInfo {
            definition: Some(ConfigKeyInfo::from_key(key)),
            value: Some(ConfigValueInfo {
                name: key.name.to_owned(),
                value,
                recommended_values: versions.recommended(key.name, connector.desc().version),
                errors: errors.remove(key.name).unwrap_or_default(),
                visible: true,
            }),
        });
    }
    if let Some(keys) = enriched {
        push_enriched(keys, &given, &mut errors, &mut groups, &mut configs);
    }
    let error_count = configs
        .iter()
        .filter_map(|c| c.value.as_ref())
        .map(|v| v.errors.len())
        .sum();
    Ok(ConfigInfos {
        name: class.to_owned(),
        error_count,
        groups,
        configs,
    })
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
                errors: errors.remove(&name).unwrap_or_default(),
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

/// The converter class keys and whether each names a header converter.
const CONVERTER_KEYS: [(&str, bool); 3] = [
    ("key.converter", false),
    ("value.converter", false),
    ("header.converter", true),
];

/// What validation reports about the converter keys and the `*.plugin.version` keys: each
/// converter key's default (the worker's converter) and the converter in effect (the one
/// given, else the default), and the converter classes to recommend.
struct PluginVersions {
    /// Per entry of [`CONVERTER_KEYS`]: the worker's converter and the converter in effect.
    converters: Vec<(Option<PluginDesc>, Option<PluginDesc>)>,
    /// Key/value converter classes, sorted.
    converter_classes: Vec<String>,
    /// Header converter classes, sorted.
    header_classes: Vec<String>,
}

impl PluginVersions {
    fn new<'a>(
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
    fn apply(&self, mut def: ConfigDef) -> ConfigDef {
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
    fn recommended(&self, key: &str, connector_version: &str) -> Vec<String> {
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

/// The request body as (key, value) pairs in request order: JSON strings as they are, numbers
/// and booleans as their text (Jackson coerces them), `null` as `None`.
///
/// # Errors
/// 400 for an array or object value.
fn request_props(
    body: serde_json::Map<String, Value>,
) -> Result<Vec<(String, Option<String>)>, RestError> {
    body.into_iter()
        .map(|(k, v)| {
            let value = match v {
                Value::String(s) => Some(s),
                Value::Null => None,
                Value::Bool(b) => Some(b.to_string()),
                Value::Number(n) => Some(n.to_string()),
                Value::Array(_) | Value::Object(_) => {
                    return Err(RestError::bad_request(format!(
                        "Cannot deserialize value of type `java.lang.String` from {} value \
                         (configuration {k})",
                        if v.is_array() { "Array" } else { "Object" }
                    )))
                }
            };
            Ok((k, value))
        })
        .collect()
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

fn importance_name(importance: Importance) -> &'static str {
    match importance {
        Importance::High => "HIGH",
        Importance::Medium => "MEDIUM",
        Importance::Low => "LOW",
    }
}

/// A default as Kafka's `ConfigDef.convertToString` prints the parsed default.
fn default_text(key: &ConfigKey, default: &str) -> String {
    parse_value(key.name, key.config_type, default)
        .map(|v| value_text(&v))
        .unwrap_or_else(|_| default.to_owned())
}

/// A parsed value as Java prints it (`Double.toString` keeps `.0`; passwords are hidden).
pub(super) fn value_text(value: &ConfigValue) -> String {
    match value {
        ConfigValue::Double(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e7 => {
            format!("{x:.1}")
        }
        other => other.to_string(),
    }
}

/// Java's `String.hashCode`: over UTF-16 code units, wrapping.
fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `props` as Java prints the `HashMap` Kafka copies them into (`{k1=v1, k2=null}`): entries
/// in bucket order of a table sized by the copy constructor (JDK 19+), insertion order within
/// a bucket. (Bins large enough to be treeified are not modelled.)
fn java_map_string(props: &[(String, Option<String>)]) -> String {
    let capacity = if props.is_empty() {
        1
    } else {
        // ceil(size / 0.75), then the next power of two (`tableSizeFor`).
        (props.len() * 4).div_ceil(3).next_power_of_two()
    };
    let mask = u32::try_from(capacity - 1).unwrap_or(u32::MAX);
    let bucket = |key: &str| {
        let h = java_hash(key) as u32;
        (h ^ (h >> 16)) & mask
    };
    let mut ordered: Vec<&(String, Option<String>)> = props.iter().collect();
    ordered.sort_by_key(|(k, _)| bucket(k));
    let entries: Vec<String> = ordered
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_deref().unwrap_or("null")))
        .collect();
    format!("{{{}}}", entries.join(", "))
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
    fn java_hash_matches_string_hash_code() {
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("a"), 97);
        assert_eq!(java_hash("name"), 3_373_707);
        assert_eq!(java_hash("connector.class"), -862_495_593);
    }

    /// Expected strings printed by `new HashMap<>(linkedHashMap)` on JDK 17 and JDK 25.
    #[test]
    fn maps_print_like_java_hash_maps() {
        assert_eq!(java_map_string(&[]), "{}");
        assert_eq!(java_map_string(&pairs(&[("name", Some("x"))])), "{name=x}");
        assert_eq!(
            java_map_string(&pairs(&[("name", Some("x")), ("a", None)])),
            "{name=x, a=null}"
        );
        assert_eq!(
            java_map_string(&pairs(&[
                ("name", Some("")),
                ("topic", Some("")),
                ("file", Some(""))
            ])),
            "{name=, topic=, file=}"
        );
        assert_eq!(
            java_map_string(&pairs(&[
                ("name", Some("v")),
                ("tasks.max", Some("1")),
                ("topic", Some("t")),
                ("file", Some("f.txt")),
                ("batch.size", Some("10")),
            ])),
            "{name=v, topic=t, file=f.txt, tasks.max=1, batch.size=10}"
        );
        assert_eq!(
            java_map_string(&pairs(&[
                ("name", Some("n")),
                ("tasks.max", Some("1")),
                ("topic", Some("t")),
                ("file", Some("f")),
                ("batch.size", Some("10")),
                ("key.converter", Some("k")),
                ("value.converter", Some("v")),
                ("errors.tolerance", Some("all")),
                ("transforms", Some("x")),
            ])),
            "{file=f, tasks.max=1, batch.size=10, name=n, transforms=x, topic=t, \
             errors.tolerance=all, value.converter=v, key.converter=k}"
        );
    }

    #[test]
    fn plugin_names_normalize_like_kafka() {
        assert_eq!(normalized("FileStreamSourceConnector"), "FileStreamSource");
        assert_eq!(normalized("Connector"), "Connector");
        assert_eq!(normalized("FileStreamSource"), "FileStreamSource");
    }

    #[test]
    fn sink_validation_reports_cross_key_problems_on_their_key() {
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
}
