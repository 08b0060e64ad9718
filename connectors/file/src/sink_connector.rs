//! The FileStream sink connector: validates its configuration and plans identical tasks.

use async_trait::async_trait;
use connect_api::{
    identical_task_configs, ConfigIssue, ConfigMap, ConnectError, Result, SinkConnector,
    TopicPartition,
};

use crate::config::{SinkSettings, EXACTLY_ONCE_CONFIG};

/// Kafka's `FileStreamSinkConnector`: plans `max_tasks` tasks with identical configurations
/// (at most [`connect_api::MAX_IDENTICAL_TASKS`]).
/// With `exactly.once=true` it refuses more than one task: several tasks appending to one
/// file cannot cut it back to one committed length. (Unset, `exactly.once` is the runtime's
/// default where it applies, decided by the task: several tasks simply append.)
#[derive(Debug, Default)]
pub struct FileStreamSinkConnector {
    props: ConfigMap,
    exactly_once: bool,
}

impl FileStreamSinkConnector {
    /// A connector that is not started yet.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl SinkConnector for FileStreamSinkConnector {
    async fn start(&mut self, props: &ConfigMap) -> Result<()> {
        self.exactly_once = SinkSettings::parse(props)?.exactly_once == Some(true);
        self.props = props.clone();
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>> {
        if self.exactly_once && max_tasks > 1 {
            return Err(ConnectError::config(
                EXACTLY_ONCE_CONFIG,
                format!(
                    "exactly.once=true needs tasks.max=1 (it is {max_tasks}): several tasks \
                     append to one file in turns, so no single committed length describes it"
                ),
            ));
        }
        Ok(identical_task_configs(&self.props, max_tasks))
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }

    /// `exactly.once=true` with `tasks.max` above 1 is refused before the connector is
    /// stored (the REST create or validate call answers it), not only when it starts.
    fn validate(&self, props: &ConfigMap) -> Vec<ConfigIssue> {
        let exactly_once = props
            .get(EXACTLY_ONCE_CONFIG)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let tasks_max = props
            .get("tasks.max")
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(1);
        if exactly_once && tasks_max > 1 {
            return vec![ConfigIssue::new(
                EXACTLY_ONCE_CONFIG,
                format!(
                    "exactly.once=true needs tasks.max=1 (it is {tasks_max}): several tasks \
                     append to one file in turns, so no single committed length describes it"
                ),
            )];
        }
        Vec::new()
    }

    /// Kafka's `FileStreamSinkConnector.alterOffsets`: any alteration is fine, and the
    /// connector keeps no offsets of its own (its exactly-once position travels with the
    /// group offsets the runtime alters).
    fn alter_offsets(
        &self,
        _props: &ConfigMap,
        _offsets: &[(TopicPartition, Option<i64>)],
    ) -> Result<bool> {
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn plans_max_tasks_identical_configs() {
        let props: ConfigMap = [("file".to_owned(), "/tmp/out".to_owned())].into();
        let mut c = FileStreamSinkConnector::new();
        c.start(&props).await.unwrap();
        assert_eq!(c.task_configs(3).unwrap(), vec![props.clone(); 3]);
        c.stop().await.unwrap();
    }

    #[tokio::test]
    async fn exactly_once_refuses_more_than_one_task() {
        let props: ConfigMap = [
            ("file".to_owned(), "/tmp/out".to_owned()),
            ("exactly.once".to_owned(), "true".to_owned()),
        ]
        .into();
        let mut c = FileStreamSinkConnector::new();
        c.start(&props).await.unwrap();
        assert_eq!(c.task_configs(1).unwrap(), vec![props.clone()]);
        let err = c.task_configs(2).unwrap_err().to_string();
        assert!(err.contains("exactly.once=true needs tasks.max=1"), "{err}");
        let mut with_two = props.clone();
        with_two.insert("tasks.max".into(), "2".into());
        let issues = c.validate(&with_two);
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].key, "exactly.once");
        assert!(issues[0].message.contains("needs tasks.max=1 (it is 2)"));
        assert!(c.validate(&props).is_empty());
    }
}
