//! The FileStream sink connector: validates its configuration and plans identical tasks.

use async_trait::async_trait;
use connect_api::{ConfigMap, Result, SinkConnector};

use crate::config::sink_filename;

/// Kafka's `FileStreamSinkConnector`: plans `max_tasks` tasks with identical configurations.
#[derive(Debug, Default)]
pub struct FileStreamSinkConnector {
    props: ConfigMap,
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
        sink_filename(props)?;
        self.props = props.clone();
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>> {
        Ok(vec![self.props.clone(); max_tasks])
    }

    async fn stop(&mut self) -> Result<()> {
        Ok(())
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
}
