//! Plugin factories registered with the runtime.

use connect_api::{
    ConfigDef, PluginDesc, PluginKind, SinkConnector, SinkPlugin, SinkTask, SourceConnector,
    SourcePlugin, SourceTask,
};

use crate::config::{
    sink_config_def, source_config_def, SINK_CONNECTOR_CLASS, SINK_TASK_CLASS,
    SOURCE_CONNECTOR_CLASS, SOURCE_TASK_CLASS,
};
use crate::sink_connector::FileStreamSinkConnector;
use crate::sink_task::FileStreamSinkTask;
use crate::source_connector::FileStreamSourceConnector;
use crate::source_task::FileStreamSourceTask;

/// The FileStream source plugin (`org.apache.kafka.connect.file.FileStreamSourceConnector`).
#[derive(Debug, Clone, Copy, Default)]
pub struct FileStreamSourcePlugin;

impl FileStreamSourcePlugin {
    /// The plugin.
    pub fn new() -> Self {
        Self
    }
}

impl SourcePlugin for FileStreamSourcePlugin {
    fn desc(&self) -> PluginDesc {
        PluginDesc {
            class_name: SOURCE_CONNECTOR_CLASS,
            kind: PluginKind::Source,
            version: env!("CARGO_PKG_VERSION"),
            task_class: Some(SOURCE_TASK_CLASS),
        }
    }

    fn config_def(&self) -> ConfigDef {
        source_config_def()
    }

    fn new_connector(&self) -> Box<dyn SourceConnector> {
        Box::new(FileStreamSourceConnector::new())
    }

    fn new_task(&self) -> Box<dyn SourceTask> {
        Box::new(FileStreamSourceTask::new())
    }
}

/// The FileStream sink plugin (`org.apache.kafka.connect.file.FileStreamSinkConnector`).
#[derive(Debug, Clone, Copy, Default)]
pub struct FileStreamSinkPlugin;

impl FileStreamSinkPlugin {
    /// The plugin.
    pub fn new() -> Self {
        Self
    }
}

impl SinkPlugin for FileStreamSinkPlugin {
    fn desc(&self) -> PluginDesc {
        PluginDesc {
            class_name: SINK_CONNECTOR_CLASS,
            kind: PluginKind::Sink,
            version: env!("CARGO_PKG_VERSION"),
            task_class: Some(SINK_TASK_CLASS),
        }
    }

    fn config_def(&self) -> ConfigDef {
        sink_config_def()
    }

    fn new_connector(&self) -> Box<dyn SinkConnector> {
        Box::new(FileStreamSinkConnector::new())
    }

    fn new_task(&self) -> Box<dyn SinkTask> {
        Box::new(FileStreamSinkTask::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors() {
        let src = FileStreamSourcePlugin::new();
        assert_eq!(src.desc().class_name, SOURCE_CONNECTOR_CLASS);
        assert_eq!(src.desc().kind, PluginKind::Source);
        assert_eq!(src.desc().version, "0.1.0");
        let names: Vec<_> = src.config_def().keys().iter().map(|k| k.name).collect();
        assert_eq!(names, ["file", "topic", "batch.size"]);
        let sink = FileStreamSinkPlugin::new();
        assert_eq!(sink.desc().class_name, SINK_CONNECTOR_CLASS);
        assert_eq!(sink.desc().kind, PluginKind::Sink);
        let names: Vec<_> = sink.config_def().keys().iter().map(|k| k.name).collect();
        assert_eq!(names, ["file", "exactly.once"]);
    }
}
