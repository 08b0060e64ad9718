//! Name resolution for plugins, with Kafka Connect's alias rules: the fully qualified class
//! name, the simple class name, and the simple name pruned of its type suffix (`Connector`,
//! `Converter`, ...). As Kafka's `PluginUtils.computeAliases`, an alias is kept only when it
//! names one class over every plugin known (built-in and Java, of every kind).
//!
//! A class may have several implementations: built in and/or Java ones found on
//! `plugin.path` ([`JavaPluginDesc`]), each with a version. Which one runs is chosen as
//! Kafka Connect chooses (KIP-891): a `*.plugin.version` range picks the highest version it
//! contains; without one, the worker's `plugin.version.default` decides ([`VersionDefault`]).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use connect_api::{
    Converter, HeaderConverter, PluginDesc, PluginKind, PredicatePlugin, SinkPlugin, SourcePlugin,
    TransformationPlugin,
};

use super::java_desc::{JavaPluginDesc, JavaPluginKind};
use super::version::{version_requirement, InvalidVersionSpec, Version, VersionRange};
pub use crate::config::VersionDefault;
use crate::converters::ConverterDesc;
use crate::plugin_host::{
    JavaConverterPlugin, JavaSinkPlugin, JavaSmtPlugin, JavaSourcePlugin, PluginHost, SmtKind,
};

/// A connector plugin of either direction.
#[derive(Clone)]
pub enum ConnectorPlugin {
    /// A source connector.
    Source(Arc<dyn SourcePlugin>),
    /// A sink connector.
    Sink(Arc<dyn SinkPlugin>),
}

impl ConnectorPlugin {
    /// Static facts.
    pub fn desc(&self) -> PluginDesc {
        match self {
            Self::Source(p) => p.desc(),
            Self::Sink(p) => p.desc(),
        }
    }

    /// The plugin's own configuration keys.
    pub fn config_def(&self) -> connect_api::ConfigDef {
        match self {
            Self::Source(p) => p.config_def(),
            Self::Sink(p) => p.config_def(),
        }
    }

    /// The connector's own cross-key checks of `props` (Kafka Connect's `Connector.validate`),
    /// asked of a new instance that is never started.
    pub fn validate(&self, props: &connect_api::ConfigMap) -> Vec<connect_api::ConfigIssue> {
        match self {
            Self::Source(p) => p.new_connector().validate(props),
            Self::Sink(p) => p.new_connector().validate(props),
        }
    }
}

/// Which implementation of a class the registry chose: one compiled into this binary, or a
/// Java one from `plugin.path` (run by the plugin host).
#[derive(Clone, Debug)]
pub enum PluginChoice<T> {
    /// The built-in implementation.
    Builtin(T),
    /// A Java implementation.
    Java(JavaPluginDesc),
}

/// A name that matches no plugin of the wanted kind, a connector this worker refuses, or a
/// class whose chosen implementation is a Java one where only built-ins can run.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.message())]
pub struct RegistryError {
    /// What kind of plugin was wanted (`Connector`, `Converter`, `HeaderConverter`, `Transformation`, `Predicate`).
    pub kind: &'static str,
    /// The name asked for.
    pub name: String,
    /// The plugins of that kind, each once, comma-separated: `Alias (fully.qualified.Name)`,
    /// or the class name alone when its simple name is no alias of it alone.
    pub available: String,
    /// ` Did you mean 'X'?` for a close name of that kind, else empty.
    pub suggestion: String,
    /// Why a name that exists gives no plugin: a built-in connector the worker's plugin limit
    /// refuses, or a Java implementation this caller cannot run yet.
    pub unavailable: Option<Box<Unavailable>>,
}

/// Why a plugin that exists is not given out.
#[derive(Debug, Clone)]
pub enum Unavailable {
    /// The worker's plugin limit refuses the built-in connector.
    Refused(Refusal),
    /// The implementation chosen is a Java plugin.
    Java(JavaPluginDesc),
}

impl RegistryError {
    /// Set when the name is a built-in connector that the worker's plugin limit refuses.
    pub fn refused(&self) -> Option<&Refusal> {
        match self.unavailable.as_deref() {
            Some(Unavailable::Refused(r)) => Some(r),
            _ => None,
        }
    }

    /// Set when the name was found but the implementation chosen is a Java plugin.
    pub fn java(&self) -> Option<&JavaPluginDesc> {
        match self.unavailable.as_deref() {
            Some(Unavailable::Java(j)) => Some(j),
            _ => None,
        }
    }

    fn message(&self) -> String {
        if let Some(j) = self.java() {
            return java_not_wired(self.kind, j);
        }
        let available = if self.available.is_empty() {
            "none"
        } else {
            &self.available
        };
        match self.refused() {
            Some(r) => format!(
                "{} {} ({}) is not allowed on this worker: {}. Allowed: {available}",
                self.kind,
                self.name.trim(),
                r.class,
                r.reason()
            ),
            None => format!(
                "Failed to find any class that implements {} and which name matches {}.{} \
                 Available: {available}",
                self.kind, self.name, self.suggestion
            ),
        }
    }
}

fn java_not_wired(kind: &str, j: &JavaPluginDesc) -> String {
    let why = match j.kind {
        JavaPluginKind::Plugin(
            PluginKind::Source
            | PluginKind::Sink
            | PluginKind::Transformation
            | PluginKind::Predicate
            | PluginKind::Converter
            | PluginKind::HeaderConverter,
        ) => "no plugin host runs Java plugins here",
        _ => "running this kind of Java plugin is not supported",
    };
    format!(
        "{kind} {} (version {}) is a Java plugin from {}; {why}",
        j.class, j.version, j.location
    )
}

/// Why no implementation could be chosen.
#[derive(Debug, thiserror::Error)]
pub enum ChoiceError {
    /// No plugin of that kind has that name (or the worker refuses it).
    #[error(transparent)]
    NotFound(RegistryError),
    /// The `*.plugin.version` value is no Maven version range.
    #[error("Invalid version range {value}: {source}")]
    InvalidRange {
        /// The value given.
        value: String,
        /// Maven's reason.
        source: InvalidVersionSpec,
    },
    /// No implementation's version is in the range (Kafka's
    /// `VersionedPluginLoadingException`).
    #[error(
        "Plugin {class} not found that matches the version range {range}, available versions: [{}]",
        available.join(", ")
    )]
    NoMatchingVersion {
        /// The class name.
        class: String,
        /// The range, as Maven prints it.
        range: String,
        /// Every implementation's version, in ascending order.
        available: Vec<String>,
    },
}

/// Why the worker refuses a built-in connector: the worker key that limits the connectors
/// ([`super::limit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The connector's class name.
    pub class: &'static str,
    /// `connector.class.denylist` (it names the connector) or `connector.class.allowlist`
    /// (it does not).
    pub key: &'static str,
}

impl Refusal {
    /// `the worker's connector.class.denylist names it`, or the allowlist's counterpart.
    pub fn reason(&self) -> String {
        if self.key == super::limit::ALLOWLIST_KEY {
            format!("the worker's {} does not name it", self.key)
        } else {
            format!("the worker's {} names it", self.key)
        }
    }
}

#[derive(Clone)]
enum Factory {
    Connector(ConnectorPlugin),
    Converter(ConverterDesc),
    Transformation(TransformationPlugin),
    Predicate(PredicatePlugin),
}

#[derive(Clone)]
enum Origin {
    Builtin { desc: PluginDesc, factory: Factory },
    Java(JavaPluginDesc),
}

/// One implementation of a class.
#[derive(Clone)]
struct Entry {
    class: String,
    kind: JavaPluginKind,
    version: Version,
    origin: Origin,
}

impl Entry {
    fn builtin(desc: PluginDesc, factory: Factory) -> Self {
        Self {
            class: desc.class_name.to_owned(),
            kind: JavaPluginKind::Plugin(desc.kind),
            version: Version::new(desc.version),
            origin: Origin::Builtin { desc, factory },
        }
    }

    fn converter(&self) -> Option<&ConverterDesc> {
        match &self.origin {
            Origin::Builtin {
                factory: Factory::Converter(c),
                ..
            } => Some(c),
            _ => None,
        }
    }

    fn is_builtin(&self) -> bool {
        matches!(self.origin, Origin::Builtin { .. })
    }

    fn groups(&self) -> Vec<Group> {
        match (self.kind, &self.origin) {
            (JavaPluginKind::Plugin(kind), Origin::Builtin { .. }) => {
                groups(kind, self.converter())
            }
            (JavaPluginKind::Plugin(kind), Origin::Java(_)) => match kind {
                PluginKind::Source | PluginKind::Sink => vec![Group::Connector],
                PluginKind::Converter => vec![Group::Converter],
                PluginKind::HeaderConverter => vec![Group::HeaderConverter],
                PluginKind::Transformation => vec![Group::Transformation],
                PluginKind::Predicate => vec![Group::Predicate],
            },
            _ => Vec::new(),
        }
    }

    /// Orders implementations as the choice ranks them: by version, a built-in above a Java
    /// one of an equal version.
    fn rank(&self, other: &Self) -> Ordering {
        self.version
            .cmp(&other.version)
            .then_with(|| self.is_builtin().cmp(&other.is_builtin()))
    }
}

/// One implementation as listed (`GET /connector-plugins`, `connect-rs plugins`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Implementation<'a> {
    /// Fully qualified class name.
    pub class_name: &'a str,
    /// Its kind.
    pub kind: PluginKind,
    /// Its version (`undefined` when it has none).
    pub version: &'a str,
    /// `None` for a built-in, else where the Java plugin was found.
    pub location: Option<&'a str>,
}

/// All plugins known to this worker, by name and alias.
pub struct PluginRegistry {
    entries: Vec<Entry>,
    /// Alias → the one class it names, `None` when it names several (Kafka drops those).
    aliases: HashMap<String, Option<String>>,
    /// Every name (class name and aliases) of a connector the worker's plugin limit
    /// removed, with the reason.
    refused: HashMap<String, Refusal>,
    /// The choice when no `*.plugin.version` is given.
    version_default: VersionDefault,
    /// The worker's plugin host, which runs the Java implementations; `None` when the worker
    /// has no Java plugin (no JVM is ever started then).
    host: Option<PluginHost>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Group {
    Connector,
    Converter,
    HeaderConverter,
    Transformation,
    Predicate,
}

impl Group {
    /// The Java interface name, used in messages.
    fn interface(self) -> &'static str {
        match self {
            Self::Connector => "Connector",
            Self::Converter => "Converter",
            Self::HeaderConverter => "HeaderConverter",
            Self::Transformation => "Transformation",
            Self::Predicate => "Predicate",
        }
    }
}

fn groups(kind: PluginKind, desc: Option<&ConverterDesc>) -> Vec<Group> {
    match (kind, desc) {
        (PluginKind::Source | PluginKind::Sink, _) => vec![Group::Connector],
        (PluginKind::Transformation, _) => vec![Group::Transformation],
        (PluginKind::Predicate, _) => vec![Group::Predicate],
        (_, Some(c)) => {
            let mut g = Vec::new();
            if c.new_converter.is_some() {
                g.push(Group::Converter);
            }
            if c.new_header_converter.is_some() {
                g.push(Group::HeaderConverter);
            }
            g
        }
        _ => Vec::new(),
    }
}

/// The simple class name, as Java's `Class.getSimpleName`: the part after the last `.`, and
/// for a nested class (`InsertField$Value`) the part after the last `$`.
fn simple_name(class_name: &str) -> &str {
    let name = class_name.rsplit('.').next().unwrap_or(class_name);
    name.rsplit('$').next().unwrap_or(name)
}

/// Kafka's `PluginUtils.prunedName`: the simple name up to the last occurrence of the type's
/// suffix when that is not at its start, else the simple name.
fn pruned_name(class_name: &str, suffix: &str) -> String {
    let simple = simple_name(class_name);
    match simple.rfind(suffix) {
        Some(pos) if pos > 0 => simple[..pos].to_owned(),
        _ => simple.to_owned(),
    }
}

/// The names of each entry a user may give besides its class name: its simple name and pruned
/// name, for each of its kinds (a built-in converter that also serves as header converter is
/// pruned by both suffixes, as Kafka's scan reports it once per type).
fn alias_candidates(entry: &Entry) -> Vec<String> {
    let mut out = vec![simple_name(&entry.class).to_owned()];
    let mut suffixes = vec![entry.kind.alias_suffix()];
    if entry.groups().contains(&Group::HeaderConverter) {
        suffixes.push(PluginKind::HeaderConverter.alias_suffix());
    }
    for suffix in suffixes {
        out.push(pruned_name(&entry.class, suffix));
    }
    out
}

/// Kafka's `PluginUtils.computeAliases` over `entries`: each alias maps to the one class it
/// names, or to `None` when it names several.
fn compute_aliases(entries: &[Entry]) -> HashMap<String, Option<String>> {
    let mut aliases: HashMap<String, Option<String>> = HashMap::new();
    for entry in entries {
        for alias in alias_candidates(entry) {
            aliases
                .entry(alias)
                .and_modify(|c| {
                    if c.as_deref() != Some(entry.class.as_str()) {
                        *c = None;
                    }
                })
                .or_insert_with(|| Some(entry.class.clone()));
        }
    }
    aliases
}

impl PluginRegistry {
    /// A registry of the given plugins.
    pub fn new(
        sources: Vec<Arc<dyn SourcePlugin>>,
        sinks: Vec<Arc<dyn SinkPlugin>>,
        converters: Vec<ConverterDesc>,
        transforms: Vec<TransformationPlugin>,
        predicates: Vec<PredicatePlugin>,
    ) -> Self {
        let mut entries = Vec::new();
        for p in sources {
            entries.push(Entry::builtin(
                p.desc(),
                Factory::Connector(ConnectorPlugin::Source(p)),
            ));
        }
        for p in sinks {
            entries.push(Entry::builtin(
                p.desc(),
                Factory::Connector(ConnectorPlugin::Sink(p)),
            ));
        }
        let desc = |class_name, kind| PluginDesc {
            class_name,
            kind,
            version: env!("CARGO_PKG_VERSION"),
            task_class: None,
        };
        for c in converters {
            let kind = if c.new_converter.is_some() {
                PluginKind::Converter
            } else {
                PluginKind::HeaderConverter
            };
            entries.push(Entry::builtin(
                desc(c.class_name, kind),
                Factory::Converter(c),
            ));
        }
        for t in transforms {
            entries.push(Entry::builtin(
                desc(t.class_name, PluginKind::Transformation),
                Factory::Transformation(t),
            ));
        }
        for p in predicates {
            entries.push(Entry::builtin(
                desc(p.class_name, PluginKind::Predicate),
                Factory::Predicate(p),
            ));
        }
        Self {
            aliases: compute_aliases(&entries),
            entries,
            refused: HashMap::new(),
            version_default: VersionDefault::default(),
            host: None,
        }
    }

    /// This registry with the Java implementations found on `plugin.path` added (a class may
    /// then have several implementations); aliases are computed again over all of them, so a
    /// Java class whose simple name equals a built-in's alias makes that alias ambiguous, and
    /// Kafka drops it.
    pub fn with_java_plugins(mut self, plugins: impl IntoIterator<Item = JavaPluginDesc>) -> Self {
        for p in plugins {
            self.entries.push(Entry {
                class: p.class.clone(),
                kind: p.kind,
                version: Version::new(&p.version),
                origin: Origin::Java(p),
            });
        }
        self.aliases = compute_aliases(&self.entries);
        self
    }

    /// This registry with the worker's plugin host, which runs (and answers questions about)
    /// its Java implementations; the JVM starts on the host's first use.
    pub fn with_plugin_host(mut self, host: PluginHost) -> Self {
        self.host = Some(host);
        self
    }

    /// The worker's plugin host, when it has Java plugins.
    pub fn plugin_host(&self) -> Option<&PluginHost> {
        self.host.as_ref()
    }

    /// This registry choosing by `default` when no `*.plugin.version` is given.
    pub fn with_version_default(mut self, default: VersionDefault) -> Self {
        self.version_default = default;
        self
    }

    /// This registry without the built-in connectors `refuse` returns a reason for: they are
    /// no longer listed or found, and asking for one of them by any of its names is an error
    /// saying why ([`RegistryError::refused`]).
    pub fn without_connectors(mut self, refuse: impl Fn(&str) -> Option<&'static str>) -> Self {
        let mut kept = Vec::new();
        for entry in std::mem::take(&mut self.entries) {
            let refusal = match &entry.origin {
                Origin::Builtin {
                    desc,
                    factory: Factory::Connector(_),
                } => refuse(desc.class_name).map(|key| Refusal {
                    class: desc.class_name,
                    key,
                }),
                _ => None,
            };
            match refusal {
                Some(r) => {
                    self.refused.insert(entry.class.clone(), r);
                    for alias in alias_candidates(&entry) {
                        if self.aliases.get(&alias) == Some(&Some(entry.class.clone())) {
                            self.refused.insert(alias, r);
                        }
                    }
                }
                None => kept.push(entry),
            }
        }
        self.entries = kept;
        self.aliases = compute_aliases(&self.entries);
        self
    }

    /// The registry of every built-in plugin.
    pub fn builtin() -> Self {
        super::builtin::registry()
    }

    /// The class `name` (class name or alias, trimmed) stands for.
    fn class_of<'a>(&'a self, name: &'a str) -> &'a str {
        let name = name.trim();
        match self.aliases.get(name) {
            Some(Some(class)) => class,
            _ => name,
        }
    }

    /// The implementations of `group` called `name`, in registration order.
    fn candidates(&self, group: Group, name: &str) -> Vec<&Entry> {
        let class = self.class_of(name);
        self.entries
            .iter()
            .filter(|e| e.class == class && e.groups().contains(&group))
            .collect()
    }

    /// The implementation of `group` called `name` that runs for the `*.plugin.version` value
    /// `version` (`None`: not given).
    fn choose(
        &self,
        group: Group,
        name: &str,
        version: Option<&str>,
    ) -> Result<&Entry, ChoiceError> {
        let candidates = self.candidates(group, name);
        if candidates.is_empty() {
            return Err(ChoiceError::NotFound(self.not_found(group, name)));
        }
        let range = version_requirement(version).map_err(|source| ChoiceError::InvalidRange {
            value: version.unwrap_or_default().to_owned(),
            source,
        })?;
        let best = |keep: &dyn Fn(&Entry) -> bool| {
            (candidates.iter().copied())
                .filter(|e| keep(e))
                .max_by(|a, b| a.rank(b))
        };
        let chosen = match (&range, self.version_default) {
            (Some(r), _) => best(&|e| r.contains(&e.version)),
            (None, VersionDefault::Builtin) => best(&Entry::is_builtin).or_else(|| best(&|_| true)),
            (None, VersionDefault::Latest) => best(&|_| true),
        };
        chosen.ok_or_else(|| no_matching_version(&candidates, range.as_ref()))
    }

    /// The implementation of `group` called `name` under the worker's default, as a built-in
    /// entry; a Java choice is a [`RegistryError`] saying so.
    /// The error of a lookup that chose Java implementation `j` where a built-in one was
    /// wanted (its caller may still run it in the plugin host).
    fn java_chosen(&self, group: Group, name: &str, j: &JavaPluginDesc) -> RegistryError {
        let mut e = self.not_found(group, name);
        e.unavailable = Some(Box::new(Unavailable::Java(j.clone())));
        e
    }

    fn builtin_choice(&self, group: Group, name: &str) -> Result<&Factory, RegistryError> {
        match self.choose(group, name, None) {
            Ok(Entry {
                origin: Origin::Builtin { factory, .. },
                ..
            }) => Ok(factory),
            Ok(Entry {
                origin: Origin::Java(j),
                ..
            }) => Err(self.java_chosen(group, name, j)),
            Err(ChoiceError::NotFound(e)) => Err(e),
            // No range is given, so every candidate matches.
            Err(_) => Err(self.not_found(group, name)),
        }
    }
}

fn no_matching_version(candidates: &[&Entry], range: Option<&VersionRange>) -> ChoiceError {
    let mut sorted = candidates.to_vec();
    sorted.sort_by(|a, b| a.rank(b));
    ChoiceError::NoMatchingVersion {
        class: sorted.first().map(|e| e.class.clone()).unwrap_or_default(),
        range: range.map(ToString::to_string).unwrap_or_default(),
        available: sorted.iter().map(|e| e.version.to_string()).collect(),
    }
}

impl PluginRegistry {
    /// The error for a `name` of `group` that names no plugin: every plugin of the group once,
    /// as `Alias (fully.qualified.Name)` when its simple name is an alias of it alone, else by
    /// its class name (`org.apache.kafka.connect.transforms.Cast$Key`: `Key` names a dozen
    /// classes); a suggestion only for a close name.
    fn not_found(&self, group: Group, name: &str) -> RegistryError {
        let mut available: Vec<String> = self
            .entries
            .iter()
            .filter(|e| e.groups().contains(&group))
            .map(|e| {
                let class = e.class.as_str();
                let simple = simple_name(class);
                match self.aliases.get(simple) {
                    Some(Some(c)) if c == class && simple != class => {
                        format!("{simple} ({class})")
                    }
                    _ => class.to_owned(),
                }
            })
            .collect();
        available.sort();
        available.dedup();
        let refused = match group {
            Group::Connector => self.refused.get(name.trim()).copied().map(Box::new),
            _ => None,
        };
        RegistryError {
            kind: group.interface(),
            name: name.to_owned(),
            available: available.join(", "),
            suggestion: if refused.is_some() {
                String::new()
            } else {
                self.suggestion(group, name)
            },
            unavailable: refused.map(|r| Box::new(Unavailable::Refused(*r))),
        }
    }

    /// ` Did you mean 'X'?` for a name close to `name`: an alias or class name of `group`, or
    /// the class name of a nested class given (or misspelled) without its package
    /// (`InsertField$Value` → `org.apache.kafka.connect.transforms.InsertField$Value`).
    fn suggestion(&self, group: Group, name: &str) -> String {
        let names = self.names_of(group);
        let direct = crate::suggest::did_you_mean(name, names.iter().map(String::as_str));
        if !direct.is_empty() {
            return direct;
        }
        let nested: Vec<(&str, &str)> = self
            .entries
            .iter()
            .filter(|e| e.groups().contains(&group))
            .map(|e| e.class.as_str())
            .filter(|class| class.contains('$'))
            .map(|class| (class.rsplit('.').next().unwrap_or(class), class))
            .collect();
        let wanted = name.trim();
        let short = nested
            .iter()
            .find(|(short, _)| *short == wanted)
            .map(|(short, _)| *short)
            .or_else(|| crate::suggest::closest(wanted, nested.iter().map(|(s, _)| *s)));
        nested
            .iter()
            .find(|(s, _)| Some(*s) == short)
            .map(|(_, class)| format!(" Did you mean '{class}'?"))
            .unwrap_or_default()
    }

    /// Every unambiguous name (class name or alias) of `group`, sorted.
    fn names_of(&self, group: Group) -> Vec<String> {
        let classes: Vec<&str> = (self.entries.iter())
            .filter(|e| e.groups().contains(&group))
            .map(|e| e.class.as_str())
            .collect();
        let mut names: Vec<String> = classes.iter().map(|c| (*c).to_owned()).collect();
        names.extend(
            (self.aliases.iter())
                .filter(|(_, c)| c.as_deref().is_some_and(|c| classes.contains(&c)))
                .map(|(a, _)| a.clone()),
        );
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The connector plugin called `name` (class name or alias) that the worker's default
    /// chooses: a built-in one, or a Java source connector run by the worker's plugin host
    /// ([`crate::plugin_host::JavaSourcePlugin`]) or sink connector
    /// ([`crate::plugin_host::JavaSinkPlugin`]).
    ///
    /// # Errors
    /// [`RegistryError`] listing the available connectors, or saying that the choice is a
    /// Java plugin that cannot run (no plugin host).
    pub fn connector(&self, name: &str) -> Result<ConnectorPlugin, RegistryError> {
        match self.builtin_choice(Group::Connector, name) {
            Ok(Factory::Connector(p)) => Ok(p.clone()),
            Ok(_) => Err(self.not_found(Group::Connector, name)),
            Err(e) => match (e.java(), &self.host) {
                (Some(j), Some(host)) if j.kind == JavaPluginKind::Plugin(PluginKind::Source) => {
                    Ok(ConnectorPlugin::Source(Arc::new(JavaSourcePlugin::new(
                        host.clone(),
                        &j.class,
                        &j.version,
                        &j.location,
                    ))))
                }
                (Some(j), Some(host)) if j.kind == JavaPluginKind::Plugin(PluginKind::Sink) => {
                    Ok(ConnectorPlugin::Sink(Arc::new(JavaSinkPlugin::new(
                        host.clone(),
                        &j.class,
                        &j.version,
                        &j.location,
                    ))))
                }
                _ => Err(e),
            },
        }
    }

    /// Whether the connector called `name` runs as a Java plugin: its own configuration keys
    /// are checked by Java, not by connect-rs's `ConfigDef`, so they are no unknown keys.
    pub fn runs_java_connector(&self, name: &str) -> bool {
        matches!(
            self.choose(Group::Connector, name, None),
            Ok(Entry {
                origin: Origin::Java(_),
                ..
            })
        )
    }

    /// A new, unconfigured converter called `name`: built in, or a Java converter when this
    /// worker's plugin host runs the Java implementation chosen.
    ///
    /// # Errors
    /// [`RegistryError`] listing the available converters, or saying that the choice is a
    /// Java plugin no plugin host runs here.
    pub fn converter(&self, name: &str) -> Result<Box<dyn Converter>, RegistryError> {
        match self.builtin_choice(Group::Converter, name) {
            Ok(Factory::Converter(ConverterDesc {
                new_converter: Some(new),
                ..
            })) => Ok(new()),
            Ok(_) => Err(self.not_found(Group::Converter, name)),
            Err(e) => match self.java_converter(&e) {
                Some(java) => Ok(java.new_converter()),
                None => Err(e),
            },
        }
    }

    /// As [`Self::converter`], for the implementation `*.converter.plugin.version` = `version`
    /// chooses (`None`: not given, as [`Self::converter`]).
    ///
    /// # Errors
    /// [`ChoiceError`]: no such converter, an invalid range, no version in the range, or a
    /// Java implementation no plugin host runs here.
    pub fn versioned_converter(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<Box<dyn Converter>, ChoiceError> {
        let entry = self.choose(Group::Converter, name, version)?;
        match &entry.origin {
            Origin::Builtin {
                factory:
                    Factory::Converter(ConverterDesc {
                        new_converter: Some(new),
                        ..
                    }),
                ..
            } => Ok(new()),
            Origin::Java(j) => {
                let e = self.java_chosen(Group::Converter, name, j);
                match self.java_converter(&e) {
                    Some(java) => Ok(java.new_converter()),
                    None => Err(ChoiceError::NotFound(e)),
                }
            }
            Origin::Builtin { .. } => Err(ChoiceError::NotFound(
                self.not_found(Group::Converter, name),
            )),
        }
    }

    /// As [`Self::header_converter`], for the implementation `header.converter.plugin.version`
    /// = `version` chooses (`None`: not given).
    ///
    /// # Errors
    /// As [`Self::versioned_converter`].
    pub fn versioned_header_converter(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<Box<dyn HeaderConverter>, ChoiceError> {
        let entry = self.choose(Group::HeaderConverter, name, version)?;
        match &entry.origin {
            Origin::Builtin {
                factory:
                    Factory::Converter(ConverterDesc {
                        new_header_converter: Some(new),
                        ..
                    }),
                ..
            } => Ok(new()),
            Origin::Java(j) => {
                let e = self.java_chosen(Group::HeaderConverter, name, j);
                match self.java_converter(&e) {
                    Some(java) => Ok(java.new_header_converter()),
                    None => Err(ChoiceError::NotFound(e)),
                }
            }
            Origin::Builtin { .. } => Err(ChoiceError::NotFound(
                self.not_found(Group::HeaderConverter, name),
            )),
        }
    }

    /// The Java converter (`header`: header converter) that `name` and `*.plugin.version` =
    /// `version` choose, when the choice is a Java plugin and a plugin host runs it here.
    pub fn java_converter_desc(
        &self,
        name: &str,
        version: Option<&str>,
        header: bool,
    ) -> Option<JavaPluginDesc> {
        let group = if header {
            Group::HeaderConverter
        } else {
            Group::Converter
        };
        self.host.as_ref()?;
        match &self.choose(group, name, version).ok()?.origin {
            Origin::Java(j) => Some(j.clone()),
            Origin::Builtin { .. } => None,
        }
    }

    /// Whether the converter called `name` is a Java plugin (run by the plugin host: its
    /// `configure` needs the worker's runtime).
    pub fn converter_is_java(&self, name: &str, version: Option<&str>) -> bool {
        matches!(
            self.choose(Group::Converter, name, version),
            Ok(Entry {
                origin: Origin::Java(_),
                ..
            })
        )
    }

    /// The Java class name of the converter or header converter called `name` (class name or
    /// alias), for error reports; `name` itself when unknown.
    pub fn converter_class_name(&self, name: &str) -> String {
        [Group::Converter, Group::HeaderConverter]
            .into_iter()
            .find_map(|g| self.candidates(g, name).first().map(|e| e.class.clone()))
            .unwrap_or_else(|| name.trim().to_owned())
    }

    /// A new, unconfigured header converter called `name`.
    ///
    /// # Errors
    /// [`RegistryError`] listing the available header converters, or saying that the choice
    /// is a Java plugin no plugin host runs here.
    pub fn header_converter(&self, name: &str) -> Result<Box<dyn HeaderConverter>, RegistryError> {
        match self.builtin_choice(Group::HeaderConverter, name) {
            Ok(Factory::Converter(ConverterDesc {
                new_header_converter: Some(new),
                ..
            })) => Ok(new()),
            Ok(_) => Err(self.not_found(Group::HeaderConverter, name)),
            Err(e) => match self.java_converter(&e) {
                Some(java) => Ok(java.new_header_converter()),
                None => Err(e),
            },
        }
    }

    /// The transform plugin called `name` (class name or alias).
    ///
    /// # Errors
    /// [`RegistryError`] listing the available transforms, or saying that the choice is a
    /// Java plugin.
    pub fn transformation(&self, name: &str) -> Result<TransformationPlugin, RegistryError> {
        match self.builtin_choice(Group::Transformation, name)? {
            Factory::Transformation(t) => Ok(*t),
            _ => Err(self.not_found(Group::Transformation, name)),
        }
    }

    /// The predicate plugin called `name` (class name or alias).
    ///
    /// # Errors
    /// [`RegistryError`] listing the available predicates, or saying that the choice is a
    /// Java plugin.
    pub fn predicate(&self, name: &str) -> Result<PredicatePlugin, RegistryError> {
        match self.builtin_choice(Group::Predicate, name)? {
            Factory::Predicate(p) => Ok(*p),
            _ => Err(self.not_found(Group::Predicate, name)),
        }
    }

    /// The Java transformation or predicate that `e` (an error of [`Self::transformation`] or
    /// [`Self::predicate`]) says the name chose, when this worker's plugin host can run it.
    pub fn java_smt(&self, e: &RegistryError) -> Option<JavaSmtPlugin> {
        let (j, host) = (e.java()?, self.host.as_ref()?);
        let kind = match j.kind {
            JavaPluginKind::Plugin(PluginKind::Transformation) => SmtKind::Transformation,
            JavaPluginKind::Plugin(PluginKind::Predicate) => SmtKind::Predicate,
            _ => return None,
        };
        Some(JavaSmtPlugin::new(
            host.clone(),
            kind,
            &j.class,
            &j.version,
            &j.location,
        ))
    }

    /// The Java converter or header converter that `e` (an error of [`Self::converter`] or
    /// [`Self::header_converter`]) says the name chose, when this worker's plugin host can run
    /// it.
    pub fn java_converter(&self, e: &RegistryError) -> Option<JavaConverterPlugin> {
        let (j, host) = (e.java()?, self.host.as_ref()?);
        if e.kind != "Converter" && e.kind != "HeaderConverter" {
            return None;
        }
        Some(JavaConverterPlugin::new(
            host.clone(),
            &j.class,
            &j.version,
            &j.location,
        ))
    }

    /// The implementation of the connector called `name` that runs for
    /// `connector.plugin.version` = `version` (`None`: not given; `latest`: the highest).
    ///
    /// # Errors
    /// [`ChoiceError`]: no such connector, an invalid range, or no version in the range.
    pub fn choose_connector(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<PluginChoice<ConnectorPlugin>, ChoiceError> {
        self.choose_as(Group::Connector, name, version, |f| match f {
            Factory::Connector(p) => Some(p.clone()),
            _ => None,
        })
    }

    /// As [`Self::choose_connector`], for a converter (`key.converter.plugin.version`, ...);
    /// the built-in arm is its factory.
    ///
    /// # Errors
    /// As [`Self::choose_connector`].
    pub fn choose_converter(
        &self,
        name: &str,
        version: Option<&str>,
        header: bool,
    ) -> Result<PluginChoice<ConverterDesc>, ChoiceError> {
        let group = if header {
            Group::HeaderConverter
        } else {
            Group::Converter
        };
        self.choose_as(group, name, version, |f| match f {
            Factory::Converter(c) => Some(*c),
            _ => None,
        })
    }

    /// As [`Self::choose_connector`], for a transformation (`transforms.<a>.plugin.version`).
    ///
    /// # Errors
    /// As [`Self::choose_connector`].
    pub fn choose_transformation(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<PluginChoice<TransformationPlugin>, ChoiceError> {
        self.choose_as(Group::Transformation, name, version, |f| match f {
            Factory::Transformation(t) => Some(*t),
            _ => None,
        })
    }

    /// As [`Self::choose_connector`], for a predicate (`predicates.<a>.plugin.version`).
    ///
    /// # Errors
    /// As [`Self::choose_connector`].
    pub fn choose_predicate(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<PluginChoice<PredicatePlugin>, ChoiceError> {
        self.choose_as(Group::Predicate, name, version, |f| match f {
            Factory::Predicate(p) => Some(*p),
            _ => None,
        })
    }

    fn choose_as<T>(
        &self,
        group: Group,
        name: &str,
        version: Option<&str>,
        builtin: impl Fn(&Factory) -> Option<T>,
    ) -> Result<PluginChoice<T>, ChoiceError> {
        let entry = self.choose(group, name, version)?;
        match &entry.origin {
            Origin::Builtin { factory, .. } => builtin(factory)
                .map(PluginChoice::Builtin)
                .ok_or_else(|| ChoiceError::NotFound(self.not_found(group, name))),
            Origin::Java(j) => Ok(PluginChoice::Java(j.clone())),
        }
    }

    /// The versions of every implementation of the `group` plugin called `name`, ascending.
    fn versions(&self, group: Group, name: &str) -> Vec<String> {
        let mut c = self.candidates(group, name);
        c.sort_by(|a, b| a.rank(b));
        let mut out: Vec<String> = c.iter().map(|e| e.version.to_string()).collect();
        out.dedup();
        out
    }

    /// The versions of every implementation of the connector called `name`, ascending (what
    /// Kafka recommends for `connector.plugin.version`).
    pub fn connector_versions(&self, name: &str) -> Vec<String> {
        self.versions(Group::Connector, name)
    }

    /// The versions of every implementation of the converter (`header`: header converter)
    /// called `name`, ascending.
    pub fn converter_versions(&self, name: &str, header: bool) -> Vec<String> {
        let group = if header {
            Group::HeaderConverter
        } else {
            Group::Converter
        };
        self.versions(group, name)
    }

    /// Every built-in plugin's static facts, in registration order.
    pub fn descriptors(&self) -> impl Iterator<Item = PluginDesc> + '_ {
        self.entries.iter().filter_map(|e| match &e.origin {
            Origin::Builtin { desc, .. } => Some(*desc),
            Origin::Java(_) => None,
        })
    }

    /// Every implementation of the kinds connect-rs lists (built-in and Java), in
    /// registration order; a built-in converter that is also a header converter is listed
    /// under each of its kinds.
    pub fn implementations(&self) -> impl Iterator<Item = Implementation<'_>> + '_ {
        self.entries.iter().flat_map(|e| {
            let location = match &e.origin {
                Origin::Builtin { .. } => None,
                Origin::Java(j) => Some(j.location.as_str()),
            };
            e.groups().into_iter().filter_map(move |g| {
                let kind = match (g, e.kind) {
                    (Group::Connector, JavaPluginKind::Plugin(k)) => k,
                    (Group::Converter, _) => PluginKind::Converter,
                    (Group::HeaderConverter, _) => PluginKind::HeaderConverter,
                    (Group::Transformation, _) => PluginKind::Transformation,
                    (Group::Predicate, _) => PluginKind::Predicate,
                    _ => return None,
                };
                Some(Implementation {
                    class_name: &e.class,
                    kind,
                    version: e.version.as_str(),
                    location,
                })
            })
        })
    }

    /// The unambiguous aliases of the plugin whose class is `class_name`, sorted.
    pub fn aliases(&self, class_name: &str) -> Vec<String> {
        let mut out: Vec<String> = (self.aliases.iter())
            .filter(|(a, c)| c.as_deref() == Some(class_name) && a.as_str() != class_name)
            .map(|(a, _)| a.clone())
            .collect();
        out.sort_unstable();
        out
    }

    /// The static facts of the built-in converter (`header`: header converter) called `name`
    /// (`None` when there is none, or when the worker's default chooses a Java one).
    pub fn converter_desc(&self, name: &str, header: bool) -> Option<PluginDesc> {
        let group = if header {
            Group::HeaderConverter
        } else {
            Group::Converter
        };
        match self.choose(group, name, None).ok()?.origin {
            Origin::Builtin { desc, .. } => Some(desc),
            Origin::Java(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_the_unambiguous_other_names() {
        let r = PluginRegistry::builtin();
        assert_eq!(
            r.aliases("org.apache.kafka.connect.file.FileStreamSinkConnector"),
            ["FileStreamSink", "FileStreamSinkConnector"]
        );
        // `Value` names several nested classes: no alias.
        assert!(r
            .aliases("org.apache.kafka.connect.transforms.InsertField$Value")
            .is_empty());
        assert_eq!(
            r.aliases("org.apache.kafka.connect.storage.StringConverter"),
            ["String", "StringConverter"]
        );
        assert!(r.aliases("com.example.Nothing").is_empty());
    }

    #[test]
    fn connectors_resolve_by_class_name_and_aliases() {
        let r = PluginRegistry::builtin();
        for name in [
            "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "FileStreamSourceConnector",
            "FileStreamSource",
        ] {
            let p = r.connector(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(matches!(p, ConnectorPlugin::Source(_)), "{name}");
        }
        assert!(matches!(
            r.connector("FileStreamSink").unwrap(),
            ConnectorPlugin::Sink(_)
        ));
    }

    #[test]
    fn converters_resolve_by_class_name_and_aliases() {
        let r = PluginRegistry::builtin();
        for name in [
            "org.apache.kafka.connect.json.JsonConverter",
            "JsonConverter",
            "Json",
            "org.apache.kafka.connect.storage.StringConverter",
            "String",
            "ByteArrayConverter",
            "ByteArray",
        ] {
            assert!(r.converter(name).is_ok(), "{name}");
        }
        for name in [
            "org.apache.kafka.connect.storage.SimpleHeaderConverter",
            "SimpleHeaderConverter",
            "Simple",
        ] {
            assert!(r.header_converter(name).is_ok(), "{name}");
        }
        assert!(
            r.converter("Simple").is_err(),
            "SimpleHeaderConverter is not a Converter"
        );
    }

    #[test]
    fn an_unknown_name_lists_what_is_available() {
        let r = PluginRegistry::builtin();
        let message = r.connector("FileStreamSorce").err().unwrap().to_string();
        assert!(message.contains("FileStreamSorce"), "{message}");
        assert!(
            message.contains("FileStreamSourceConnector (org.apache.kafka.connect.file.FileStreamSourceConnector)"),
            "{message}"
        );
        assert!(message.contains("FileStreamSinkConnector"), "{message}");
    }

    #[test]
    fn nested_classes_are_listed_once_by_class_name_and_far_names_get_no_suggestion() {
        let r = PluginRegistry::builtin();
        let e = r.transformation("Nope").err().unwrap();
        assert_eq!(e.suggestion, "");
        let listed: Vec<&str> = e.available.split(", ").collect();
        assert!(listed.contains(&"org.apache.kafka.connect.transforms.InsertField$Value"));
        assert!(listed.contains(&"Filter (org.apache.kafka.connect.transforms.Filter)"));
        assert!(
            !listed
                .iter()
                .any(|l| l.starts_with("Key") || l.starts_with("Value ")),
            "{listed:?}"
        );
        let mut unique = listed.clone();
        unique.dedup();
        assert_eq!(unique, listed);

        let hint = |name: &str| r.transformation(name).err().unwrap().suggestion;
        assert_eq!(hint("Filtr"), " Did you mean 'Filter'?");
        for name in ["InsertField$Value", "InsertFeld$Value"] {
            assert_eq!(
                hint(name),
                " Did you mean 'org.apache.kafka.connect.transforms.InsertField$Value'?"
            );
        }
    }

    fn java(class: &str, kind: &str, version: &str, location: &str) -> JavaPluginDesc {
        JavaPluginDesc {
            class: class.to_owned(),
            kind: JavaPluginKind::from_type_name(kind).unwrap(),
            version: version.to_owned(),
            location: location.to_owned(),
        }
    }

    const FILE_SOURCE: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";

    /// The built-ins plus a Java FileStreamSource 3.9.0 and 99.0 (both directions of the
    /// built-in's version, which is this crate's 0.x) and a Java-only connector.
    fn with_java() -> PluginRegistry {
        PluginRegistry::builtin().with_java_plugins([
            java(FILE_SOURCE, "source", "3.9.0", "/plugins/file-old"),
            java(FILE_SOURCE, "source", "99.0", "/plugins/file-new"),
            java(
                "io.debezium.connector.postgresql.PostgresConnector",
                "source",
                "3.6.1.Final",
                "/plugins/debezium",
            ),
        ])
    }

    #[test]
    fn a_java_class_whose_simple_name_is_a_builtin_alias_makes_it_ambiguous() {
        let before = PluginRegistry::builtin();
        assert!(before.connector("FileStreamSource").is_ok());
        // A Java sink named `FileStreamSource` (simple name) collides with the built-in
        // source's pruned alias: Kafka drops the alias for both.
        let r = PluginRegistry::builtin().with_java_plugins([java(
            "com.example.FileStreamSource",
            "sink",
            "1.0",
            "/plugins/example",
        )]);
        assert_eq!(r.aliases(FILE_SOURCE), ["FileStreamSourceConnector"]);
        assert!(r.aliases("com.example.FileStreamSource").is_empty());
        let e = r.connector("FileStreamSource").err().unwrap();
        assert!(e.to_string().starts_with("Failed to find any class"), "{e}");
        // Class names and the unambiguous alias still resolve.
        assert!(r.connector("FileStreamSourceConnector").is_ok());
        assert!(matches!(
            r.choose_connector("com.example.FileStreamSource", None),
            Ok(PluginChoice::Java(j)) if j.location == "/plugins/example"
        ));
    }

    #[test]
    fn kinds_kafka_does_not_list_still_take_part_in_aliases() {
        let r = PluginRegistry::builtin().with_java_plugins([java(
            "com.example.StringConverter",
            "configprovider",
            "1.0",
            "/plugins/p",
        )]);
        assert!(r.converter("StringConverter").is_err());
        assert!(
            r.converter("String").is_ok(),
            "`String` still names one class"
        );
        assert!(plugin_ids(&r)
            .iter()
            .all(|(c, _)| c != "com.example.StringConverter"));
    }

    fn plugin_ids(r: &PluginRegistry) -> Vec<(String, String)> {
        super::super::plugin_infos(r, false)
            .into_iter()
            .map(|p| (p.class_name, p.version.unwrap_or_default()))
            .collect()
    }

    fn chosen(r: &PluginRegistry, name: &str, version: Option<&str>) -> String {
        match r.choose_connector(name, version) {
            Ok(PluginChoice::Builtin(p)) => format!("builtin {}", p.desc().version),
            Ok(PluginChoice::Java(j)) => format!("java {} {}", j.version, j.location),
            Err(e) => format!("error {e}"),
        }
    }

    #[test]
    fn builtin_default_prefers_the_builtin_and_latest_takes_the_highest() {
        let builtin = format!("builtin {}", env!("CARGO_PKG_VERSION"));
        let r = with_java();
        assert_eq!(chosen(&r, "FileStreamSource", None), builtin);
        assert_eq!(
            chosen(&r, "PostgresConnector", None),
            "java 3.6.1.Final /plugins/debezium"
        );
        let r = with_java().with_version_default(VersionDefault::Latest);
        assert_eq!(
            chosen(&r, "FileStreamSource", None),
            "java 99.0 /plugins/file-new"
        );
        // `latest` given as the version is Kafka's "no requirement": the default applies.
        assert_eq!(
            chosen(&with_java(), "FileStreamSource", Some("latest")),
            builtin
        );
    }

    #[test]
    fn equal_versions_choose_the_builtin() {
        let v = env!("CARGO_PKG_VERSION");
        let r = PluginRegistry::builtin()
            .with_java_plugins([java(FILE_SOURCE, "source", v, "/plugins/same")])
            .with_version_default(VersionDefault::Latest);
        assert_eq!(chosen(&r, FILE_SOURCE, None), format!("builtin {v}"));
        assert_eq!(chosen(&r, FILE_SOURCE, Some(v)), format!("builtin {v}"));
        // Listed once: one entry per (class, version).
        let ids = plugin_ids(&r);
        assert_eq!(ids.iter().filter(|(c, _)| c == FILE_SOURCE).count(), 1);
    }

    #[test]
    fn a_version_range_picks_the_highest_match_over_all_implementations() {
        let r = with_java();
        assert_eq!(
            chosen(&r, "FileStreamSource", Some("3.9.0")),
            "java 3.9.0 /plugins/file-old"
        );
        assert_eq!(
            chosen(&r, "FileStreamSource", Some("[1.0,)")),
            "java 99.0 /plugins/file-new"
        );
        assert_eq!(
            chosen(&r, "FileStreamSource", Some("[3.0,99.0)")),
            "java 3.9.0 /plugins/file-old"
        );
        assert_eq!(
            chosen(&r, "FileStreamSource", Some("(,1.0)")),
            format!("builtin {}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(
            chosen(&r, "FileStreamSource", Some("4.0")),
            format!(
                "error Plugin {FILE_SOURCE} not found that matches the version range \
                 [4.0,4.0], available versions: [{}, 3.9.0, 99.0]",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(
            chosen(&r, "FileStreamSource", Some("[4.0")),
            "error Invalid version range [4.0: Unbounded range: [4.0"
        );
    }

    #[test]
    fn a_java_choice_where_only_builtins_run_is_a_clear_error() {
        let r = with_java().with_version_default(VersionDefault::Latest);
        let e = r.connector("FileStreamSource").err().unwrap().to_string();
        assert_eq!(
            e,
            format!(
                "Connector {FILE_SOURCE} (version 99.0) is a Java plugin from /plugins/file-new; \
                 no plugin host runs Java plugins here"
            )
        );
        let e = with_java().connector("PostgresConnector").err().unwrap();
        assert!(
            e.to_string()
                .contains("is a Java plugin from /plugins/debezium"),
            "{e}"
        );
        let t = PluginRegistry::builtin().with_java_plugins([java(
            "io.debezium.transforms.ExtractNewRecordState",
            "transformation",
            "3.6.1.Final",
            "/plugins/debezium",
        )]);
        let e = t.transformation("ExtractNewRecordState").err().unwrap();
        assert!(e.to_string().starts_with("Transformation io.debezium.transforms.ExtractNewRecordState (version 3.6.1.Final) is a Java plugin"), "{e}");
        assert!(t.java_smt(&e).is_none(), "no plugin host runs it here");
        let host = crate::plugin_host::PluginHost::new(crate::plugin_host::HostSettings::default());
        let t = t
            .with_java_plugins([java(
                "com.example.JsonishConverter",
                "converter",
                "1.0",
                "/plugins/conv",
            )])
            .with_plugin_host(host);
        let e = t.transformation("ExtractNewRecordState").err().unwrap();
        let smt = t.java_smt(&e).expect("a Java transformation the host runs");
        assert_eq!(
            smt.class_name(),
            "io.debezium.transforms.ExtractNewRecordState"
        );
        assert!(t.converter_is_java("com.example.JsonishConverter", None));
        assert!(
            t.converter("com.example.JsonishConverter").is_ok(),
            "a Java converter the host runs"
        );
        let t = t.with_java_plugins([java(
            "com.example.JsonishHeaders",
            "header_converter",
            "1.0",
            "/plugins/conv",
        )]);
        assert!(
            t.header_converter("com.example.JsonishHeaders").is_ok(),
            "a Java header converter the host runs"
        );
    }

    #[test]
    fn java_source_and_sink_choices_run_in_the_plugin_host() {
        let host = crate::plugin_host::PluginHost::new(crate::plugin_host::HostSettings::default());
        let r = with_java()
            .with_java_plugins([java(
                "org.apache.kafka.connect.tools.VerifiableSinkConnector",
                "sink",
                "4.3.1",
                "/plugins/verifiable",
            )])
            .with_plugin_host(host)
            .with_version_default(VersionDefault::Latest);
        let Ok(ConnectorPlugin::Source(p)) = r.connector("FileStreamSource") else {
            panic!("a Java source connector is given out as a source plugin");
        };
        assert_eq!(
            (p.desc().class_name, p.desc().version),
            (FILE_SOURCE, "99.0")
        );
        assert!(p.config_def().keys().is_empty());
        assert!(r.runs_java_connector("FileStreamSource"));
        assert!(!r.runs_java_connector("FileStreamSink"));
        let Ok(ConnectorPlugin::Sink(sink)) = r.connector("VerifiableSink") else {
            panic!("a Java sink connector is given out as a sink plugin");
        };
        assert_eq!(
            (
                sink.desc().class_name,
                sink.desc().kind,
                sink.desc().version
            ),
            (
                "org.apache.kafka.connect.tools.VerifiableSinkConnector",
                PluginKind::Sink,
                "4.3.1"
            )
        );
    }

    #[test]
    fn java_plugins_are_listed_per_version_in_kafkas_order() {
        let r = with_java();
        let sources: Vec<(String, String)> = super::super::plugin_infos(&r, true)
            .into_iter()
            .filter(|p| p.kind == "source")
            .map(|p| (p.class_name, p.version.unwrap_or_default()))
            .collect();
        let v = env!("CARGO_PKG_VERSION").to_owned();
        let s = |c: &str, v: &str| (c.to_owned(), v.to_owned());
        assert_eq!(
            sources,
            [
                s("io.confluent.connect.jdbc.JdbcSourceConnector", &v),
                s(
                    "io.debezium.connector.postgresql.PostgresConnector",
                    "3.6.1.Final"
                ),
                s(FILE_SOURCE, &v),
                s(FILE_SOURCE, "3.9.0"),
                s(FILE_SOURCE, "99.0"),
            ]
        );
        assert_eq!(
            r.connector_versions("FileStreamSource"),
            [v.as_str(), "3.9.0", "99.0"]
        );
    }
}
