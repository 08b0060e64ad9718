//! The JDBC sink plugin factory.

use connect_api::{ConfigDef, PluginDesc, PluginKind, SinkConnector, SinkPlugin, SinkTask};

use crate::sink::config::{config_def, CONNECTOR_CLASS, TASK_CLASS};
use crate::sink::connector::JdbcSinkConnector;
use crate::sink::task::JdbcSinkTask;

/// The JDBC sink plugin (`io.confluent.connect.jdbc.JdbcSinkConnector`, alias `JdbcSink`).
#[derive(Debug, Clone, Copy, Default)]
pub struct JdbcSinkPlugin;

impl SinkPlugin for JdbcSinkPlugin {
    fn desc(&self) -> PluginDesc {
        PluginDesc {
            class_name: CONNECTOR_CLASS,
            kind: PluginKind::Sink,
            version: env!("CARGO_PKG_VERSION"),
            task_class: Some(TASK_CLASS),
        }
    }

    fn config_def(&self) -> ConfigDef {
        config_def()
    }

    fn new_connector(&self) -> Box<dyn SinkConnector> {
        Box::new(JdbcSinkConnector::new())
    }

    fn new_task(&self) -> Box<dyn SinkTask> {
        Box::new(JdbcSinkTask::new())
    }
}
