//! Plugin descriptors and factories: what the registry knows before anything runs.

use crate::config_def::ConfigDef;
use crate::connector::{SinkConnector, SinkTask, SourceConnector, SourceTask};

/// The kind of a plugin, as `GET /connector-plugins` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PluginKind {
    /// Source connector.
    Source,
    /// Sink connector.
    Sink,
    /// Converter.
    Converter,
    /// Header converter.
    HeaderConverter,
    /// Single message transform.
    Transformation,
    /// Transform predicate.
    Predicate,
}

impl PluginKind {
    /// Lower-case name used by the REST API (`source`, `sink`, `converter`, ...).
    pub fn rest_name(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Sink => "sink",
            Self::Converter => "converter",
            Self::HeaderConverter => "header_converter",
            Self::Transformation => "transformation",
            Self::Predicate => "predicate",
        }
    }

    /// The suffix removed from the simple class name to derive the short alias.
    pub fn alias_suffix(self) -> &'static str {
        match self {
            Self::Source | Self::Sink => "Connector",
            Self::Converter => "Converter",
            Self::HeaderConverter => "HeaderConverter",
            Self::Transformation => "Transformation",
            Self::Predicate => "Predicate",
        }
    }
}

/// Static facts about a plugin.
#[derive(Debug, Clone, Copy)]
pub struct PluginDesc {
    /// Fully qualified Java class name, e.g.
    /// `org.apache.kafka.connect.file.FileStreamSourceConnector`.
    pub class_name: &'static str,
    /// Kind.
    pub kind: PluginKind,
    /// Version.
    pub version: &'static str,
    /// Fully qualified Java class name of the connector's tasks (`task.class` in task
    /// configurations), e.g. `org.apache.kafka.connect.file.FileStreamSourceTask`; `None` for
    /// plugins that have no tasks.
    pub task_class: Option<&'static str>,
}

/// Factory of a source connector and its tasks.
pub trait SourcePlugin: Send + Sync {
    /// Static facts.
    fn desc(&self) -> PluginDesc;
    /// The connector's own configuration keys.
    fn config_def(&self) -> ConfigDef;
    /// A new connector instance.
    fn new_connector(&self) -> Box<dyn SourceConnector>;
    /// A new task instance.
    fn new_task(&self) -> Box<dyn SourceTask>;
}

/// Factory of a sink connector and its tasks.
pub trait SinkPlugin: Send + Sync {
    /// Static facts.
    fn desc(&self) -> PluginDesc;
    /// The connector's own configuration keys.
    fn config_def(&self) -> ConfigDef;
    /// A new connector instance.
    fn new_connector(&self) -> Box<dyn SinkConnector>;
    /// A new task instance.
    fn new_task(&self) -> Box<dyn SinkTask>;
}
