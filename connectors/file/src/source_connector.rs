//! The FileStream source connector: validates its configuration and plans one task.

use async_trait::async_trait;
use connect_api::{
    topic_name_problem, ConfigIssue, ConfigMap, ConnectError, ExactlyOnceSupport, Result,
    SourceConnector, SourceOffsetChange,
};

use crate::config::{SourceSettings, FILE_CONFIG, TOPIC_CONFIG};
use crate::source_task::{FILENAME_FIELD, POSITION_FIELD};

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

    /// Kafka's `FileStreamSourceConnector.alterOffsets`: its checks in its order, with its
    /// messages. Offsets of stdin are not tracked; a null offset is always fine (its partition
    /// is not checked); an offset is `{"position": <non-negative integer>}` and its partition
    /// names the `filename`.
    fn alter_offsets(&self, props: &ConfigMap, offsets: &[SourceOffsetChange]) -> Result<bool> {
        let settings = SourceSettings::parse(props)?;
        if settings.filename.is_none() {
            return Err(ConnectError::Other(
                "Offsets cannot be modified if the 'file' configuration is unspecified. This is \
                 because stdin is used for input and offsets are not tracked."
                    .to_owned(),
            ));
        }
        for (partition, offset) in offsets {
            let Some(offset) = offset else {
                continue;
            };
            let Some(position) = offset.get(POSITION_FIELD) else {
                return Err(refused(
                    "Offset objects should either be null or contain the key 'position'",
                ));
            };
            // Java's `Long`: an integral JSON number that fits 64 bits.
            let Some(position) = position.as_i64() else {
                return Err(refused(
                    "The value for the 'position' key in the offset is expected to be a Long value",
                ));
            };
            if position < 0 {
                return Err(refused(
                    "The value for the 'position' key in the offset should be a non-negative value",
                ));
            }
            let Some(partition) = partition else {
                return Err(refused("Partition objects cannot be null"));
            };
            if !partition.contains_key(FILENAME_FIELD) {
                return Err(refused(
                    "Partition objects should contain the key 'filename'",
                ));
            }
        }
        // Offsets are tracked by the runtime alone.
        Ok(true)
    }
}

/// A refused offsets alteration, with Kafka's message.
fn refused(message: &str) -> ConnectError {
    ConnectError::Other(message.to_owned())
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
    fn alter_offsets_checks_as_kafka_in_its_order() {
        let with_file: ConfigMap = [("topic", "t"), ("file", "/tmp/in")]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let map = |v: serde_json::Value| v.as_object().cloned();
        let c = FileStreamSourceConnector::new();
        let check = |partition: serde_json::Value, offset: serde_json::Value| {
            c.alter_offsets(&with_file, &[(map(partition), map(offset))])
                .map_err(|e| e.to_string())
        };
        use serde_json::json;
        let good = json!({"filename": "/tmp/in"});
        assert_eq!(check(good.clone(), json!({"position": 6})), Ok(true));
        assert_eq!(check(good.clone(), json!({"position": 0})), Ok(true));
        // A null offset: its partition is not looked at.
        assert_eq!(check(json!(null), json!(null)), Ok(true));
        assert_eq!(check(json!({"file": "x"}), json!(null)), Ok(true));
        let refused = [
            (
                good.clone(),
                json!({"pos": 1}),
                "Offset objects should either be null or contain the key 'position'",
            ),
            (
                good.clone(),
                json!({"position": "6"}),
                "The value for the 'position' key in the offset is expected to be a Long value",
            ),
            (
                good.clone(),
                json!({"position": 6.5}),
                "The value for the 'position' key in the offset is expected to be a Long value",
            ),
            (
                good.clone(),
                json!({"position": 18446744073709551615u64}),
                "The value for the 'position' key in the offset is expected to be a Long value",
            ),
            (
                good,
                json!({"position": -1}),
                "The value for the 'position' key in the offset should be a non-negative value",
            ),
            // The offset is checked before the partition.
            (
                json!({"file": "x"}),
                json!({"position": -1}),
                "The value for the 'position' key in the offset should be a non-negative value",
            ),
            (
                json!(null),
                json!({"position": 1}),
                "Partition objects cannot be null",
            ),
            (
                json!({"file": "/tmp/in"}),
                json!({"position": 1}),
                "Partition objects should contain the key 'filename'",
            ),
        ];
        for (partition, offset, message) in refused {
            assert_eq!(
                check(partition.clone(), offset.clone()),
                Err(message.to_owned()),
                "{partition} {offset}"
            );
        }
        // Without a file (stdin), nothing may be altered, not even reset.
        let stdin: ConfigMap = [("topic".to_owned(), "t".to_owned())].into();
        let err = c.alter_offsets(&stdin, &[]).unwrap_err().to_string();
        assert_eq!(
            err,
            "Offsets cannot be modified if the 'file' configuration is unspecified. This is \
             because stdin is used for input and offsets are not tracked."
        );
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
