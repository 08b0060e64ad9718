//! The FileStream source connector: validates its configuration and plans one task.

use async_trait::async_trait;
use connect_api::{ConfigMap, Result, SourceConnector};

use crate::config::SourceSettings;

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
        SourceSettings::parse(props)?;
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
}
