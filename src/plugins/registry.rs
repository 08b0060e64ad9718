//! Name resolution for plugins, with Kafka Connect's alias rules: the fully qualified class
//! name, the simple class name, and the simple name without its type suffix (`Connector`,
//! `Converter`, ...). An alias that would name two classes of one kind is dropped.

use std::collections::HashMap;
use std::sync::Arc;

use connect_api::{
    Converter, HeaderConverter, PluginDesc, PluginKind, PredicatePlugin, SinkPlugin, SourcePlugin,
    TransformationPlugin,
};

use crate::converters::ConverterDesc;

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

/// A name that matches no plugin of the wanted kind, or a connector this worker refuses.
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
    /// Set when the name is a built-in connector that the worker's plugin limit refuses.
    pub refused: Option<Box<Refusal>>,
}

impl RegistryError {
    fn message(&self) -> String {
        let available = if self.available.is_empty() {
            "none"
        } else {
            &self.available
        };
        match &self.refused {
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

struct Entry {
    desc: PluginDesc,
    factory: Factory,
}

impl Entry {
    fn converter(&self) -> Option<&ConverterDesc> {
        match &self.factory {
            Factory::Converter(c) => Some(c),
            _ => None,
        }
    }
}

/// All plugins known to this binary, by name and alias.
pub struct PluginRegistry {
    entries: Vec<Entry>,
    /// (kind group, name) → index into `entries`; `None` marks an ambiguous alias.
    names: HashMap<(Group, String), Option<usize>>,
    /// Every name (class name and aliases) of a connector the worker's plugin limit
    /// removed, with the reason.
    refused: HashMap<String, Refusal>,
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
    /// The Java interface name, used in messages and as the alias suffix.
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
            entries.push(Entry {
                desc: p.desc(),
                factory: Factory::Connector(ConnectorPlugin::Source(p)),
            });
        }
        for p in sinks {
            entries.push(Entry {
                desc: p.desc(),
                factory: Factory::Connector(ConnectorPlugin::Sink(p)),
            });
        }
        for c in converters {
            let kind = if c.new_converter.is_some() {
                PluginKind::Converter
            } else {
                PluginKind::HeaderConverter
            };
            entries.push(Entry {
                desc: PluginDesc {
                    class_name: c.class_name,
                    kind,
                    version: env!("CARGO_PKG_VERSION"),
                    task_class: None,
                },
                factory: Factory::Converter(c),
            });
        }
        let desc = |class_name, kind| PluginDesc {
            class_name,
            kind,
            version: env!("CARGO_PKG_VERSION"),
            task_class: None,
        };
        for t in transforms {
            entries.push(Entry {
                desc: desc(t.class_name, PluginKind::Transformation),
                factory: Factory::Transformation(t),
            });
        }
        for p in predicates {
            entries.push(Entry {
                desc: desc(p.class_name, PluginKind::Predicate),
                factory: Factory::Predicate(p),
            });
        }
        Self {
            names: index(&entries),
            entries,
            refused: HashMap::new(),
        }
    }

    /// This registry without the connectors `refuse` returns a reason for: they are no longer
    /// listed or found, and asking for one of them by any of its names is an error saying why
    /// ([`RegistryError::refused`]).
    pub fn without_connectors(self, refuse: impl Fn(&str) -> Option<&'static str>) -> Self {
        let Self {
            entries,
            names,
            mut refused,
        } = self;
        let reasons: Vec<Option<Refusal>> = entries
            .iter()
            .map(|e| match e.factory {
                Factory::Connector(_) => refuse(e.desc.class_name).map(|key| Refusal {
                    class: e.desc.class_name,
                    key,
                }),
                _ => None,
            })
            .collect();
        for ((group, name), i) in &names {
            if let (Group::Connector, Some(i)) = (group, i) {
                if let Some(r) = reasons[*i] {
                    refused.insert(name.clone(), r);
                }
            }
        }
        let entries: Vec<Entry> = entries
            .into_iter()
            .zip(&reasons)
            .filter(|(_, r)| r.is_none())
            .map(|(e, _)| e)
            .collect();
        Self {
            names: index(&entries),
            entries,
            refused,
        }
    }
}

/// Every class name and alias of `entries` → its index, per kind group; an alias naming two
/// entries of one group maps to `None`.
fn index(entries: &[Entry]) -> HashMap<(Group, String), Option<usize>> {
    let mut names: HashMap<(Group, String), Option<usize>> = HashMap::new();
    for (i, entry) in entries.iter().enumerate() {
        for group in groups(entry.desc.kind, entry.converter()) {
            let suffix = group.interface();
            names.insert((group, entry.desc.class_name.to_owned()), Some(i));
            let simple = simple_name(entry.desc.class_name);
            let mut aliases = vec![simple.to_owned()];
            if let Some(short) = simple.strip_suffix(suffix).filter(|s| !s.is_empty()) {
                aliases.push(short.to_owned());
            }
            for alias in aliases {
                names
                    .entry((group, alias))
                    .and_modify(|e| {
                        if *e != Some(i) {
                            *e = None;
                        }
                    })
                    .or_insert(Some(i));
            }
        }
    }
    names
}

impl PluginRegistry {
    /// The registry of every built-in plugin.
    pub fn builtin() -> Self {
        super::builtin::registry()
    }

    fn find(&self, group: Group, name: &str) -> Option<&Entry> {
        let name = name.trim();
        self.names
            .get(&(group, name.to_owned()))
            .copied()
            .flatten()
            .map(|i| &self.entries[i])
    }

    /// The error for a `name` of `group` that names no plugin: every plugin of the group once,
    /// as `Alias (fully.qualified.Name)` when its simple name is an alias of it alone, else by
    /// its class name (`org.apache.kafka.connect.transforms.Cast$Key`: `Key` names a dozen
    /// classes); a suggestion only for a close name.
    fn not_found(&self, group: Group, name: &str) -> RegistryError {
        let mut available: Vec<String> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| groups(e.desc.kind, e.converter()).contains(&group))
            .map(|(i, e)| {
                let class = e.desc.class_name;
                let simple = simple_name(class);
                match self.names.get(&(group, simple.to_owned())) {
                    Some(Some(j)) if *j == i && simple != class => format!("{simple} ({class})"),
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
            refused,
        }
    }

    /// ` Did you mean 'X'?` for a name close to `name`: an alias or class name of `group`, or
    /// the class name of a nested class given (or misspelled) without its package
    /// (`InsertField$Value` → `org.apache.kafka.connect.transforms.InsertField$Value`).
    fn suggestion(&self, group: Group, name: &str) -> String {
        let direct = crate::suggest::did_you_mean(name, self.names_of(group));
        if !direct.is_empty() {
            return direct;
        }
        let nested: Vec<(&str, &str)> = self
            .entries
            .iter()
            .filter(|e| groups(e.desc.kind, e.converter()).contains(&group))
            .map(|e| e.desc.class_name)
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
    fn names_of(&self, group: Group) -> Vec<&str> {
        let mut names: Vec<&str> = (self.names.iter())
            .filter(|((g, _), i)| *g == group && i.is_some())
            .map(|((_, n), _)| n.as_str())
            .collect();
        names.sort_unstable();
        names
    }

    /// The connector plugin called `name` (class name or alias).
    ///
    /// # Errors
    /// [`RegistryError`] listing the available connectors.
    pub fn connector(&self, name: &str) -> Result<ConnectorPlugin, RegistryError> {
        match self.find(Group::Connector, name).map(|e| &e.factory) {
            Some(Factory::Connector(p)) => Ok(p.clone()),
            _ => Err(self.not_found(Group::Connector, name)),
        }
    }

    /// A new, unconfigured converter called `name`.
    ///
    /// # Errors
    /// [`RegistryError`] listing the available converters.
    pub fn converter(&self, name: &str) -> Result<Box<dyn Converter>, RegistryError> {
        match self.find(Group::Converter, name).map(|e| &e.factory) {
            Some(Factory::Converter(ConverterDesc {
                new_converter: Some(new),
                ..
            })) => Ok(new()),
            _ => Err(self.not_found(Group::Converter, name)),
        }
    }

    /// The Java class name of the converter or header converter called `name` (class name or
    /// alias), for error reports; `name` itself when unknown.
    pub fn converter_class_name(&self, name: &str) -> String {
        self.find(Group::Converter, name)
            .or_else(|| self.find(Group::HeaderConverter, name))
            .map_or_else(|| name.trim().to_owned(), |e| e.desc.class_name.to_owned())
    }

    /// A new, unconfigured header converter called `name`.
    ///
    /// # Errors
    /// [`RegistryError`] listing the available header converters.
    pub fn header_converter(&self, name: &str) -> Result<Box<dyn HeaderConverter>, RegistryError> {
        match self.find(Group::HeaderConverter, name).map(|e| &e.factory) {
            Some(Factory::Converter(ConverterDesc {
                new_header_converter: Some(new),
                ..
            })) => Ok(new()),
            _ => Err(self.not_found(Group::HeaderConverter, name)),
        }
    }

    /// The transform plugin called `name` (class name or alias).
    ///
    /// # Errors
    /// [`RegistryError`] listing the available transforms.
    pub fn transformation(&self, name: &str) -> Result<TransformationPlugin, RegistryError> {
        match self.find(Group::Transformation, name).map(|e| &e.factory) {
            Some(Factory::Transformation(t)) => Ok(*t),
            _ => Err(self.not_found(Group::Transformation, name)),
        }
    }

    /// The predicate plugin called `name` (class name or alias).
    ///
    /// # Errors
    /// [`RegistryError`] listing the available predicates.
    pub fn predicate(&self, name: &str) -> Result<PredicatePlugin, RegistryError> {
        match self.find(Group::Predicate, name).map(|e| &e.factory) {
            Some(Factory::Predicate(p)) => Ok(*p),
            _ => Err(self.not_found(Group::Predicate, name)),
        }
    }

    /// Every plugin's static facts, in registration order.
    pub fn descriptors(&self) -> impl Iterator<Item = PluginDesc> + '_ {
        self.entries.iter().map(|e| e.desc)
    }

    /// The unambiguous aliases of the plugin whose class is `class_name` (every name but the
    /// class name itself that finds it, in any of its kinds), sorted.
    pub fn aliases(&self, class_name: &str) -> Vec<String> {
        let mut out: Vec<String> = (self.names.iter())
            .filter(|(_, i)| i.is_some_and(|i| self.entries[i].desc.class_name == class_name))
            .map(|((_, n), _)| n.clone())
            .filter(|n| n != class_name)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The static facts of the converter (`header`: header converter) called `name`.
    pub fn converter_desc(&self, name: &str, header: bool) -> Option<PluginDesc> {
        let group = if header {
            Group::HeaderConverter
        } else {
            Group::Converter
        };
        self.find(group, name).map(|e| e.desc)
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
}
