//! The JDBC sink connector (Confluent's `JdbcSinkConnector`): validates the configuration and
//! plans `tasks.max` identical tasks (at most `connect_api::MAX_IDENTICAL_TASKS`).

use async_trait::async_trait;
use connect_api::{identical_task_configs, ConfigIssue, ConfigMap, Result, SinkConnector};

use crate::sink::config::{validate, SinkConfig};

/// `io.confluent.connect.jdbc.JdbcSinkConnector`.
#[derive(Debug, Default)]
pub struct JdbcSinkConnector {
    props: ConfigMap,
}

impl JdbcSinkConnector {
    /// A connector that is not started yet.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl SinkConnector for JdbcSinkConnector {
    async fn start(&mut self, props: &ConfigMap) -> Result<()> {
        SinkConfig::parse(props)?;
        self.props = props.clone();
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>> {
        Ok(identical_task_configs(&self.props, max_tasks))
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }

    fn validate(&self, props: &ConfigMap) -> Vec<ConfigIssue> {
        validate(props)
    }
}
