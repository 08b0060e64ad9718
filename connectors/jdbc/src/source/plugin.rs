//! The JDBC source plugin as the runtime registers it.

use connect_api::{ConfigDef, PluginDesc, PluginKind, SourceConnector, SourcePlugin, SourceTask};

use super::config::{source_config_def, SOURCE_CONNECTOR_CLASS, SOURCE_TASK_CLASS};
use super::connector::JdbcSourceConnector;
use super::task::JdbcSourceTask;

/// `io.confluent.connect.jdbc.JdbcSourceConnector` (alias `JdbcSource`).
#[derive(Debug, Clone, Copy, Default)]
pub struct JdbcSourcePlugin;

impl SourcePlugin for JdbcSourcePlugin {
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
        Box::new(JdbcSourceConnector::new())
    }

    fn new_task(&self) -> Box<dyn SourceTask> {
        Box::new(JdbcSourceTask::new())
    }
}
