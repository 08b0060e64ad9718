//! The keys that `transforms` and `predicates` add to a connector's configuration for
//! `config/validate`, as Kafka Connect's `ConnectorConfig.enrich` defines them: per alias a
//! `<prefix>type` key (group `Transforms: <alias>` / `Predicates: <alias>`, order 0), then the
//! plugin's own keys (and, for transforms, `predicate` and `negate`) under the prefix, in
//! `ConfigDef.sortedConfigs` order (required first, then by importance, then by name).

use connect_api::config_def::{parse_value, Default as KeyDefault};
use connect_api::{ConfigDef, ConfigKey, ConfigType, Importance, Width};

use super::entities::{value_text, ConfigKeyInfo};
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
pub(super) fn enriched_keys<'a>(
    plugins: &PluginRegistry,
    given: impl Fn(&str) -> Option<&'a str>,
) -> Vec<EnrichedKey> {
    let mut out = Vec::new();
    for family in [Family::Transforms, Family::Predicates] {
        let mut seen: Vec<&str> = Vec::new();
        let aliases = given(family.list_key()).unwrap_or_default();
        for alias in aliases.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            if seen.contains(&alias) {
                continue;
            }
            seen.push(alias);
            let prefix = format!("{}.{alias}.", family.list_key());
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
            });
            let version = env!("CARGO_PKG_VERSION");
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
            });
            let def = resolved.map(|(_, def)| def);
            let Some(def) = def else { continue };
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
                });
            }
        }
    }
    out
}
