//! A connector's `transforms` and `predicates`: resolved against the plugin registry, each
//! transform's and predicate's own keys validated (and a configured instance tried once) before
//! any task runs, then built into a [`TransformationChain`] for each task.

use std::collections::BTreeMap;
use std::sync::Arc;

use connect_api::{
    ConfigDef, ConfigMap, ConnectError, Predicate, PredicatePlugin, Transformation,
    TransformationPlugin,
};

use super::transform_chain::{TransformStage, TransformationChain};
use crate::config::{ConfigProblem, ConfigWarning, RawConfig};
use crate::plugin_host::JavaSmtPlugin;
use crate::plugins::PluginRegistry;

/// A transform's implementation: built in, or a Java class run by the plugin host.
#[derive(Debug, Clone)]
enum TransformImpl {
    Builtin(TransformationPlugin),
    Java(JavaSmtPlugin),
}

impl TransformImpl {
    fn new_instance(&self) -> Box<dyn Transformation> {
        match self {
            Self::Builtin(p) => (p.new)(),
            Self::Java(j) => j.new_transformation(),
        }
    }

    fn class_name(&self) -> &'static str {
        match self {
            Self::Builtin(p) => p.class_name,
            Self::Java(j) => crate::plugin_host::intern::intern(j.class_name()),
        }
    }

    /// Its keys; empty for a Java one (its `ConfigDef` lives in Java: `configure` checks them).
    fn config_def(&self) -> Option<ConfigDef> {
        match self {
            Self::Builtin(p) => Some((p.config_def)()),
            Self::Java(_) => None,
        }
    }
}

/// A predicate's implementation: built in, or a Java class run by the plugin host.
#[derive(Debug, Clone)]
enum PredicateImpl {
    Builtin(PredicatePlugin),
    Java(JavaSmtPlugin),
}

impl PredicateImpl {
    fn new_instance(&self) -> Box<dyn Predicate> {
        match self {
            Self::Builtin(p) => (p.new)(),
            Self::Java(j) => j.new_predicate(),
        }
    }

    fn config_def(&self) -> Option<ConfigDef> {
        match self {
            Self::Builtin(p) => Some((p.config_def)()),
            Self::Java(_) => None,
        }
    }
}

/// One transform of the chain: its plugin, its own properties and its condition.
#[derive(Debug, Clone)]
struct StageSpec {
    alias: String,
    plugin: TransformImpl,
    props: ConfigMap,
    /// Predicate alias and `negate`.
    predicate: Option<String>,
    negate: bool,
}

/// The validated transforms and predicates of a connector.
#[derive(Debug, Clone, Default)]
pub struct TransformChainSpec {
    stages: Vec<StageSpec>,
    predicates: BTreeMap<String, (PredicateImpl, ConfigMap)>,
}

/// The aliases listed in `key` (comma-separated, trimmed, empty entries skipped).
fn aliases(raw: &RawConfig, key: &str) -> Vec<String> {
    raw.get(key)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `raw`'s keys under `prefix`, with the prefix removed.
fn sub_map(raw: &RawConfig, prefix: &str) -> ConfigMap {
    raw.iter()
        .filter_map(|(k, e)| {
            k.strip_prefix(prefix)
                .map(|s| (s.to_owned(), e.value.clone()))
        })
        .collect()
}

/// Collects the problems and warnings of one plugin's keys under `prefix`.
struct Checker<'a> {
    raw: &'a RawConfig,
    problems: Vec<ConfigProblem>,
    warnings: Vec<ConfigWarning>,
}

impl Checker<'_> {
    fn problem(&mut self, key: &str, message: String) {
        self.problems.push(ConfigProblem::for_key(
            self.raw.origin_or_source(key),
            key,
            message,
        ));
    }

    /// Parses `props` with `def` (none: a Java plugin, whose `configure` checks its keys) and
    /// tries `configure`; reports every problem under `prefix`.
    fn check_plugin(
        &mut self,
        prefix: &str,
        def: Option<&ConfigDef>,
        props: &ConfigMap,
        configure: impl FnOnce() -> Result<(), ConnectError>,
    ) {
        if let Some(def) = def {
            if !self.check_keys(prefix, def, props) {
                return;
            }
        }
        if let Err(e) = configure() {
            match e {
                // A problem of the whole configuration (`No field insertion configured`) is
                // reported on the alias's `type` key.
                ConnectError::Config { key, message } if key.is_empty() => {
                    self.problem(&format!("{prefix}type"), message);
                }
                ConnectError::Config { key, message } => {
                    let full = format!("{prefix}{key}");
                    let message = crate::config::with_full_key(&message, &key, prefix);
                    self.problem(&full, message);
                }
                other => self.problem(&format!("{prefix}type"), other.to_string()),
            }
        }
    }
}

impl Checker<'_> {
    /// Warns of unknown keys and reports `def`'s parse problems; `false` when there were some.
    fn check_keys(&mut self, prefix: &str, def: &ConfigDef, props: &ConfigMap) -> bool {
        for (key, _) in props.iter() {
            let reserved = prefix.starts_with("transforms.")
                && matches!(key.as_str(), "type" | "predicate" | "negate");
            if !reserved && key != "type" && def.key(key).is_none() {
                let full = format!("{prefix}{key}");
                let known: Vec<&str> = def.keys().iter().map(|k| k.name).collect();
                let suggestion = crate::suggest::did_you_mean(key, known.iter().copied());
                self.warnings.push(ConfigWarning {
                    origin: self.raw.origin_or_source(&full),
                    key: full.clone(),
                    message: format!(
                        "The configuration '{full}' was supplied but isn't a known config.{suggestion}"
                    ),
                });
            }
        }
        if let Err(issues) = def.parse(props) {
            for issue in issues {
                let full = format!("{prefix}{}", issue.key);
                let message = crate::config::with_full_key(&issue.message, &issue.key, prefix);
                self.problem(&full, message);
            }
            return false;
        }
        true
    }
}

impl TransformChainSpec {
    /// Resolves and validates `transforms` and `predicates` of `raw`. Missing `type` keys,
    /// duplicate aliases and `negate` without `predicate` are the connector configuration's
    /// own checks and are not repeated here.
    ///
    /// # Errors
    /// Every problem, located at its key's file and line, with the warnings found.
    pub fn validate(
        raw: &RawConfig,
        plugins: &PluginRegistry,
    ) -> (Self, Vec<ConfigProblem>, Vec<ConfigWarning>) {
        let mut check = Checker {
            raw,
            problems: Vec::new(),
            warnings: Vec::new(),
        };
        let mut spec = Self::default();
        for alias in aliases(raw, "predicates") {
            let prefix = format!("predicates.{alias}.");
            let type_key = format!("{prefix}type");
            let Some(class) = raw.get(&type_key).map(str::trim).filter(|c| !c.is_empty()) else {
                continue;
            };
            let plugin = match plugins.predicate(class) {
                Ok(p) => PredicateImpl::Builtin(p),
                Err(e) => match plugins.java_smt(&e) {
                    Some(j) => PredicateImpl::Java(j),
                    None => {
                        check.problem(&type_key, unknown_class(class, &type_key, &e.to_string()));
                        continue;
                    }
                },
            };
            let props = sub_map(raw, &prefix);
            check.check_plugin(&prefix, plugin.config_def().as_ref(), &props, || {
                try_configure(&plugin, |p| p.new_instance().configure(&props))
            });
            spec.predicates.insert(alias, (plugin, props));
        }
        for alias in aliases(raw, "transforms") {
            let prefix = format!("transforms.{alias}.");
            let type_key = format!("{prefix}type");
            let Some(class) = raw.get(&type_key).map(str::trim).filter(|c| !c.is_empty()) else {
                continue;
            };
            let plugin = match plugins.transformation(class) {
                Ok(p) => TransformImpl::Builtin(p),
                Err(e) => match plugins.java_smt(&e) {
                    Some(j) => TransformImpl::Java(j),
                    None => {
                        check.problem(&type_key, unknown_class(class, &type_key, &e.to_string()));
                        continue;
                    }
                },
            };
            let mut props = sub_map(raw, &prefix);
            let predicate = props
                .remove("predicate")
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty());
            let negate = props
                .remove("negate")
                .is_some_and(|n| n.trim().eq_ignore_ascii_case("true"));
            props.remove("type");
            check.check_plugin(&prefix, plugin.config_def().as_ref(), &props, || {
                try_configure(&plugin, |p| p.new_instance().configure(&props))
            });
            spec.stages.push(StageSpec {
                alias,
                plugin,
                props,
                predicate,
                negate,
            });
        }
        (spec, check.problems, check.warnings)
    }

    /// Whether no transform is configured.
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// New, configured instances of every transform and predicate, for one task.
    ///
    /// # Errors
    /// A transform or predicate that refuses its configuration (already checked by
    /// [`Self::validate`], so only a plugin that changed its mind).
    pub fn build(&self) -> Result<TransformationChain, ConnectError> {
        let mut predicates: BTreeMap<&str, Arc<dyn Predicate>> = BTreeMap::new();
        for (alias, (plugin, props)) in &self.predicates {
            let mut p = plugin.new_instance();
            p.configure(props)?;
            predicates.insert(alias, Arc::from(p));
        }
        let mut stages = Vec::with_capacity(self.stages.len());
        for s in &self.stages {
            let mut transform = s.plugin.new_instance();
            transform.configure(&s.props)?;
            let predicate = match &s.predicate {
                Some(alias) => Some((
                    alias.clone(),
                    predicates.get(alias.as_str()).cloned().ok_or_else(|| {
                        ConnectError::config(
                            format!("transforms.{}.predicate", s.alias),
                            format!("There is no predicate with alias '{alias}' in 'predicates'"),
                        )
                    })?,
                )),
                None => None,
            };
            stages.push(TransformStage {
                alias: s.alias.clone(),
                class_name: s.plugin.class_name(),
                transform,
                predicate,
                negate: s.negate,
            });
        }
        Ok(TransformationChain::new(stages))
    }
}

/// Runs `configure` on a new instance of `plugin` to check its configuration: always for a
/// built-in one; for a Java one only where it can run (the worker's multi-thread runtime; a
/// command that only reads files does not start the JVM).
fn try_configure<P: IsJava>(
    plugin: &P,
    configure: impl FnOnce(&P) -> Result<(), ConnectError>,
) -> Result<(), ConnectError> {
    if plugin.is_java() && !crate::plugin_host::smt::can_run_here() {
        return Ok(());
    }
    configure(plugin)
}

/// Whether an implementation is a Java one.
trait IsJava {
    fn is_java(&self) -> bool;
}

impl IsJava for TransformImpl {
    fn is_java(&self) -> bool {
        matches!(self, Self::Java(_))
    }
}

impl IsJava for PredicateImpl {
    fn is_java(&self) -> bool {
        matches!(self, Self::Java(_))
    }
}

/// Kafka's message for a class that cannot be found, followed by connect-rs's list of what
/// exists and a close name.
fn unknown_class(class: &str, key: &str, registry_error: &str) -> String {
    format!("Invalid value {class} for configuration {key}: Class {class} could not be found. {registry_error}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::{ConnectRecord, RecordContext};

    fn raw(text: &str) -> RawConfig {
        RawConfig::from_pairs(
            "c.properties",
            text.lines()
                .filter_map(|l| l.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned()))),
        )
    }

    #[test]
    fn a_valid_chain_builds_with_its_predicates() {
        let plugins = PluginRegistry::builtin();
        let (spec, problems, warnings) = TransformChainSpec::validate(
            &raw("transforms=keepA\n\
                  transforms.keepA.type=Filter\n\
                  transforms.keepA.predicate=isA\n\
                  transforms.keepA.negate=true\n\
                  transforms.keepA.feild=x\n\
                  predicates=isA\n\
                  predicates.isA.type=TopicNameMatches\n\
                  predicates.isA.pattern=a"),
            &plugins,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0]
            .message
            .contains("'transforms.keepA.feild' was supplied but isn't a known config"));
        let mut chain = spec.build().unwrap();
        let record = |topic: &str| ConnectRecord {
            topic: topic.into(),
            ..ConnectRecord::default()
        };
        let ctx = RecordContext::source();
        assert!(chain.apply(record("a"), &ctx).unwrap().is_some());
        assert!(chain.apply(record("b"), &ctx).unwrap().is_none());
    }

    #[test]
    fn problems_name_the_full_key() {
        let plugins = PluginRegistry::builtin();
        let (_, problems, _) = TransformChainSpec::validate(
            &raw("transforms=x,y\n\
                  transforms.x.type=com.example.Nope\n\
                  predicates=p,q\n\
                  predicates.p.type=HasHeaderKey\n\
                  predicates.q.type=TopicNameMatches\n\
                  predicates.q.pattern=(\n\
                  transforms.y.type=org.apache.kafka.connect.transforms.InsertField$Value"),
            &plugins,
        );
        let keys: Vec<_> = problems.iter().filter_map(|p| p.key.clone()).collect();
        assert_eq!(
            keys,
            [
                "predicates.p.name",
                "predicates.q.pattern",
                "transforms.x.type",
                "transforms.y.type"
            ]
        );
        assert_eq!(problems[3].message, "No field insertion configured");
        assert_eq!(
            problems[0].message,
            "Missing required configuration \"predicates.p.name\" which has no default value."
        );
        assert!(problems[1]
            .message
            .starts_with("Invalid value ( for configuration predicates.q.pattern: Invalid regex"));
        assert!(problems[2].message.starts_with(
            "Invalid value com.example.Nope for configuration transforms.x.type: \
             Class com.example.Nope could not be found."
        ));
    }
}
