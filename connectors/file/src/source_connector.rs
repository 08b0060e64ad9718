//! The FileStream source connector: validates its configuration and plans one task.

use async_trait::async_trait;
use connect_api::{
    topic_name_problem, ConfigIssue, ConfigMap, ConnectError, ExactlyOnceSupport, Result,
    SourceConnector,
};

use crate::config::{SourceSettings, FILE_CONFIG, TOPIC_CONFIG};

/// Kafka's `FileStreamSourceConnector`: always plans exactly one task whose configuration is
/// the connector's.
#[derive(Debug, Default)]
pub struct FileStreamSourceConnector {
    props: ConfigMap,
}

impl FileStreamSourceConnector {
    /// A connector that is not started yet.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl SourceConnector for FileStreamSourceConnector {
    async fn start(&mut self, props: &ConfigMap) -> Result<()> {
        let settings = SourceSettings::parse(props)?;
        // A file that does not exist yet is waited for by the task; one that exists but can
        // never be read as a file (a directory) is a configuration error caught here.
        if let Some(file) = &settings.filename {
            if std::path::Path::new(file).is_dir() {
                return Err(ConnectError::config(
                    FILE_CONFIG,
                    format!("{file} is a directory, not a file that can be read line by line"),
                ));
            }
        }
        self.props = props.clone();
        Ok(())
    }

    fn task_configs(&self, _max_tasks: usize) -> Result<Vec<ConfigMap>> {
        // Only one input stream makes sense.
        Ok(vec![self.props.clone()])
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
    }

    /// `topic` must be a name Kafka accepts (an empty one is refused by its definition).
    fn validate(&self, props: &ConfigMap) -> Vec<ConfigIssue> {
        props
            .get(TOPIC_CONFIG)
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
            .and_then(topic_name_problem)
            .map(|message| ConfigIssue::new(TOPIC_CONFIG, message))
            .into_iter()
            .collect()
    }

    /// Supported when reading a file (offsets let it resume at the same byte); not for stdin,
    /// which has no offsets (Kafka's FileStreamSourceConnector answers the same).
    fn exactly_once_support(&self, props: &ConfigMap) -> Option<ExactlyOnceSupport> {
        let file = props.get(FILE_CONFIG).map(String::as_str).unwrap_or("");
        Some(if file.is_empty() {
            ExactlyOnceSupport::Unsupported
        } else {
            ExactlyOnceSupport::Supported
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn plans_exactly_one_task_with_the_connector_config() {
        let props: ConfigMap = [("topic", "t"), ("file", "/tmp/in")]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let mut c = FileStreamSourceConnector::new();
        c.start(&props).await.unwrap();
        assert_eq!(c.task_configs(5).unwrap(), vec![props.clone()]);
        assert_eq!(c.task_configs(1).unwrap(), vec![props]);
        c.stop().await.unwrap();
        assert!(FileStreamSourceConnector::new()
            .start(&ConfigMap::new())
            .await
            .is_err());
    }

    #[test]
    fn validate_refuses_topic_names_kafka_refuses() {
        let c = FileStreamSourceConnector::new();
        let with_topic = |t: &str| -> ConfigMap { [("topic".to_owned(), t.to_owned())].into() };
        assert!(c.validate(&with_topic("ok.topic_1-x")).is_empty());
        assert!(c.validate(&with_topic("")).is_empty());
        let issues = c.validate(&with_topic(" a/b "));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].key, "topic");
        assert!(
            issues[0]
                .message
                .starts_with("Topic name is invalid: 'a/b' contains"),
            "{}",
            issues[0].message
        );
    }

    #[tokio::test]
    async fn a_directory_as_input_fails_at_start_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap().to_owned();
        let props: ConfigMap = [("topic", "t"), ("file", path.as_str())]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let err = FileStreamSourceConnector::new()
            .start(&props)
            .await
            .unwrap_err();
        assert!(err.to_string().contains(&path), "{err}");
    }
}
