//! The keys that `transforms` and `predicates` add to a connector's configuration for
//! `config/validate`, as Kafka Connect's `ConnectorConfig.enrich` defines them: per alias a
//! `<prefix>type` key (group `Transforms: <alias>` / `Predicates: <alias>`, order 0), then the
//! plugin's own keys (and, for transforms, `predicate` and `negate`) under the prefix, in
//! `ConfigDef.sortedConfigs` order (required first, then by importance, then by name). A Java
//! transformation's or predicate's own keys come from the plugin host, validated there by its
//! `config().validate(...)` ([`java_stages`]), as Kafka Connect's enriched `ConfigDef` does.

use connect_api::config_def::{parse_value, Default as KeyDefault};
use connect_api::{ConfigDef, ConfigKey, ConfigType, Importance, Width};

use std::collections::HashMap;

use super::entities::{value_text, ConfigKeyInfo};
use super::{remote, ValidateError};
use crate::plugin_host::scan::ValidateResult;
use crate::plugins::PluginRegistry;

/// One enriched key: its definition as REST shows it, its value and the values to recommend.
pub(super) struct EnrichedKey {
    /// The definition.
    pub info: ConfigKeyInfo,
    /// The value as Kafka prints it: the given one parsed, else the default; `None` when
    /// absent without default or unparsable.
    pub value: Option<String>,
    /// Recommended values (the plugin classes for a `type` key, the plugin's version for a
    /// `plugin.version` key).
    pub recommended: Vec<String>,
    /// Errors found by the plugin itself (a Java stage's own keys).
    pub errors: Vec<String>,
}

/// The aliases of `family` given in `given`, each once, with their key prefix.
fn aliases<'a>(family: Family, given: &impl Fn(&str) -> Option<&'a str>) -> Vec<(&'a str, String)> {
    let mut seen: Vec<(&str, String)> = Vec::new();
    let listed = given(family.list_key()).unwrap_or_default();
    for alias in listed.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        if !seen.iter().any(|(a, _)| *a == alias) {
            seen.push((alias, format!("{}.{alias}.", family.list_key())));
        }
    }
    seen
}

/// The plugin part of a Java transformation's or predicate's stage: its own keys, values and
/// errors, and the plugin's version.
pub(super) struct JavaStage {
    /// What the plugin host's `VALIDATE` answered.
    result: ValidateResult,
    /// The plugin's version.
    version: String,
}

impl JavaStage {
    /// Whether the plugin's own validation found errors.
    pub(super) fn has_errors(&self) -> bool {
        self.result.error_count > 0
    }
}

/// The plugin part of each Java transformation's and predicate's stage, by key prefix: its
/// own keys, values and errors, as the plugin host validates the stage's keys (prefix
/// removed) with the plugin's `config()`.
///
/// # Errors
/// As [`remote::validate`].
pub(super) async fn java_stages<'a>(
    plugins: &PluginRegistry,
    given: impl Fn(&str) -> Option<&'a str>,
    props: &[(String, Option<String>)],
) -> Result<HashMap<String, JavaStage>, ValidateError> {
    let mut out = HashMap::new();
    for family in [Family::Transforms, Family::Predicates] {
        for (_, prefix) in aliases(family, &given) {
            let Some(class) = given(&format!("{prefix}type")).map(str::trim) else {
                continue;
            };
            let missing = match family {
                Family::Transforms => plugins.transformation(class).err(),
                Family::Predicates => plugins.predicate(class).err(),
            };
            let Some(desc) = missing
                .filter(|e| plugins.java_smt(e).is_some())
                .and_then(|e| e.java().cloned())
            else {
                continue;
            };
            let stage: Vec<(String, Option<String>)> = props
                .iter()
                .filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?.to_owned(), v.clone())))
                .collect();
            let result = remote::validate(plugins, &desc, &stage).await?;
            out.insert(
                prefix,
                JavaStage {
                    result,
                    version: desc.version.clone(),
                },
            );
        }
    }
    Ok(out)
}

/// The value of `name` of type `config_type`: given, else `default`, as Kafka prints it.
fn value_of<'a>(
    name: &str,
    config_type: ConfigType,
    default: Option<&str>,
    given: &impl Fn(&str) -> Option<&'a str>,
) -> Option<String> {
    let text = given(name).or(default)?;
    parse_value(name, config_type, text)
        .ok()
        .map(|v| value_text(&v))
}

/// Which alias family.
#[derive(Clone, Copy)]
enum Family {
    Transforms,
    Predicates,
}

impl Family {
    fn list_key(self) -> &'static str {
        match self {
            Self::Transforms => "transforms",
            Self::Predicates => "predicates",
        }
    }

    fn group(self) -> &'static str {
        match self {
            Self::Transforms => "Transforms",
            Self::Predicates => "Predicates",
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Self::Transforms => "Transformation",
            Self::Predicates => "Predicate",
        }
    }
}

/// The implicit keys of every transform stage.
fn stage_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "predicate",
            ConfigType::String,
            KeyDefault::Null,
            Importance::Medium,
            "The alias of a predicate used to decide whether to apply this transformation.",
        ))
        .define(ConfigKey::new(
            "negate",
            ConfigType::Boolean,
            KeyDefault::Value("false"),
            Importance::Medium,
            "Whether the predicate's result is negated.",
        ))
}

fn importance_rank(i: Importance) -> u8 {
    match i {
        Importance::High => 0,
        Importance::Medium => 1,
        Importance::Low => 2,
    }
}

/// The enriched keys for the aliases given in `given("transforms")` / `given("predicates")`.
/// `java` holds the plugin part of the Java stages ([`java_stages`]).
pub(super) fn enriched_keys<'a>(
    plugins: &PluginRegistry,
    given: impl Fn(&str) -> Option<&'a str>,
    java_stages: &HashMap<String, JavaStage>,
) -> Vec<EnrichedKey> {
    let mut out = Vec::new();
    for family in [Family::Transforms, Family::Predicates] {
        for (alias, prefix) in aliases(family, &given) {
            let group = format!("{}: {alias}", family.group());
            let kind = family.kind();
            let classes: Vec<String> = plugins
                .implementations()
                .filter(|d| d.kind.alias_suffix() == kind)
                .map(|d| d.class_name.to_owned())
                .collect();
            let mut classes = classes;
            classes.sort();
            classes.dedup();
            let type_key = format!("{prefix}type");
            let class = given(&type_key).map(str::trim);
            // A Java transformation or predicate: its class, with the framework's keys only
            // (its own keys are defined in Java; see docs/compatibility.md).
            let java = |e: crate::plugins::RegistryError| {
                plugins.java_smt(&e).map(|j| {
                    let class = crate::plugin_host::intern::intern(j.class_name());
                    let def = match family {
                        Family::Transforms => stage_def(),
                        Family::Predicates => ConfigDef::new(),
                    };
                    (class, def)
                })
            };
            let resolved = match (family, class) {
                (Family::Transforms, Some(c)) => plugins.transformation(c).map_or_else(java, |p| {
                    let own = (p.config_def)();
                    let mut def = stage_def();
                    for key in own.keys() {
                        if !matches!(key.name, "predicate" | "negate") {
                            def = def.define(key.clone());
                        }
                    }
                    Some((p.class_name, def))
                }),
                (Family::Predicates, Some(c)) => plugins
                    .predicate(c)
                    .map_or_else(java, |p| Some((p.class_name, (p.config_def)()))),
                _ => None,
            };
            let kind_lower = kind.to_lowercase();
            out.push(EnrichedKey {
                info: ConfigKeyInfo {
                    name: type_key,
                    config_type: "CLASS".to_owned(),
                    required: true,
                    default_value: None,
                    importance: "HIGH".to_owned(),
                    documentation: Some(format!("Class for the '{alias}' {kind_lower}.")),
                    group: Some(group.clone()),
                    order_in_group: 0,
                    width: Width::Long.name().to_owned(),
                    display_name: Some(format!("{kind} type for {alias}")),
                    dependents: Vec::new(),
                },
                value: resolved.as_ref().map(|(c, _)| (*c).to_owned()),
                recommended: classes,
                errors: Vec::new(),
            });
            let java_stage = java_stages.get(&prefix);
            let version = java_stage.map_or(env!("CARGO_PKG_VERSION"), |j| j.version.as_str());
            let version_key = format!("{prefix}plugin.version");
            out.push(EnrichedKey {
                value: value_of(&version_key, ConfigType::String, Some(version), &given),
                info: ConfigKeyInfo {
                    name: version_key,
                    config_type: "STRING".to_owned(),
                    required: false,
                    default_value: Some(version.to_owned()),
                    importance: "HIGH".to_owned(),
                    documentation: Some(format!("Version of the '{alias}' {kind_lower}.")),
                    group: Some(group.clone()),
                    order_in_group: 1,
                    width: Width::Long.name().to_owned(),
                    display_name: Some(format!("{kind} version for {alias}")),
                    dependents: Vec::new(),
                },
                recommended: vec![version.to_owned()],
                errors: Vec::new(),
            });
            let def = resolved.map(|(_, def)| def);
            let Some(def) = def else { continue };
            if let Some(stage) = java_stage {
                out.extend(java_stage_keys(
                    &def,
                    &stage.result,
                    &prefix,
                    &group,
                    &given,
                ));
                continue;
            }
            let mut keys: Vec<&ConfigKey> = def.keys().iter().collect();
            keys.sort_by(|a, b| {
                let required = |k: &ConfigKey| !matches!(k.default, KeyDefault::Required);
                required(a)
                    .cmp(&required(b))
                    .then(importance_rank(a.importance).cmp(&importance_rank(b.importance)))
                    .then(a.name.cmp(b.name))
            });
            for (i, key) in keys.into_iter().enumerate() {
                let mut info = ConfigKeyInfo::from_key(key);
                info.name = format!("{prefix}{}", key.name);
                info.group = Some(match key.group {
                    Some(g) => format!("{group}: {g}"),
                    None => group.clone(),
                });
                info.order_in_group = i32::try_from(i + 2).unwrap_or(i32::MAX);
                let default = match key.default {
                    KeyDefault::Value(d) => Some(d),
                    _ => None,
                };
                out.push(EnrichedKey {
                    value: value_of(&info.name, key.config_type, default, &given),
                    info,
                    recommended: Vec::new(),
                    errors: Vec::new(),
                });
            }
        }
    }
    out
}

/// The keys of a Java stage: the framework's stage keys of `def` (`predicate`, `negate`) with
/// the plugin's own from `result`, in `sortedConfigs` order, under `prefix` and `group`.
fn java_stage_keys<'a>(
    def: &ConfigDef,
    result: &ValidateResult,
    prefix: &str,
    group: &str,
    given: &impl Fn(&str) -> Option<&'a str>,
) -> Vec<EnrichedKey> {
    let mut keys: Vec<EnrichedKey> = def
        .keys()
        .iter()
        .map(|key| {
            let default = match key.default {
                KeyDefault::Value(d) => Some(d),
                _ => None,
            };
            let name = format!("{prefix}{}", key.name);
            EnrichedKey {
                value: value_of(&name, key.config_type, default, given),
                info: ConfigKeyInfo::from_key(key),
                recommended: Vec::new(),
                errors: Vec::new(),
            }
        })
        .collect();
    let own = def.keys();
    for config in &result.configs {
        let Some(definition) = &config.definition else {
            continue;
        };
        if own.iter().any(|k| k.name == definition.name) {
            continue;
        }
        let value = config.value.clone();
        keys.push(EnrichedKey {
            info: ConfigKeyInfo::from(definition.clone()),
            value: value.as_ref().and_then(|v| v.value.clone()),
            recommended: value
                .as_ref()
                .map(|v| v.recommended_values.clone())
                .unwrap_or_default(),
            errors: value
                .map(|v| {
                    // Kafka's embedded definition names the key with its prefix.
                    let name = &definition.name;
                    v.errors
                        .into_iter()
                        .map(|e| {
                            e.replace(
                                &format!("for configuration {name}:"),
                                &format!("for configuration {prefix}{name}:"),
                            )
                            .replace(
                                &format!("configuration \"{name}\""),
                                &format!("configuration \"{prefix}{name}\""),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    // Kafka's `ConfigDef.sortedConfigs`: keys without a group first, then by the group's
    // place, the order in it, required first, importance, name.
    let rank = |importance: &str| match importance {
        "HIGH" => 0,
        "MEDIUM" => 1,
        _ => 2,
    };
    let group_place = |g: &Option<String>| {
        g.as_ref().map(|g| {
            result
                .groups
                .iter()
                .position(|x| x == g)
                .unwrap_or(usize::MAX)
        })
    };
    keys.sort_by(|a, b| {
        group_place(&a.info.group)
            .cmp(&group_place(&b.info.group))
            .then(a.info.order_in_group.cmp(&b.info.order_in_group))
            .then((!a.info.required).cmp(&!b.info.required))
            .then(rank(&a.info.importance).cmp(&rank(&b.info.importance)))
            .then(a.info.name.cmp(&b.info.name))
    });
    for (i, key) in keys.iter_mut().enumerate() {
        key.info.group = Some(match key.info.group.take() {
            Some(g) => format!("{group}: {g}"),
            None => group.to_owned(),
        });
        key.info.name = format!("{prefix}{}", key.info.name);
        key.info.order_in_group = i32::try_from(i + 2).unwrap_or(i32::MAX);
    }
    keys
}
