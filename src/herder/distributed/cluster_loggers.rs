//! Cluster-wide logger levels (KIP-976) written straight to the config topic, as Kafka
//! Connect's REST thread writes them: a request never waits for the herder's loop, which may be
//! busy with the group while Kafka is down, and fails after 30 s as Kafka Connect's does.

use std::sync::Arc;
use std::time::Duration;

use crate::herder::HerderError;
use crate::storage::internal::ConfigRecord;
use crate::storage::topic_log::TopicLog;

/// How long a cluster-wide logger level may take to be written to the config topic (Kafka
/// Connect's `READ_WRITE_TOTAL_TIMEOUT_MS`).
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Writes `logger-cluster-<namespace>` records to one worker's config topic.
pub struct ClusterLoggerWriter {
    configs: Arc<TopicLog>,
    on_kafka: bool,
}

impl ClusterLoggerWriter {
    /// A writer to `configs`, the config topic of a worker on Kafka (`on_kafka`) or on the
    /// embedded log.
    pub fn new(configs: Arc<TopicLog>, on_kafka: bool) -> Self {
        Self { configs, on_kafka }
    }

    /// `PUT /admin/loggers/{namespace}?scope=cluster` (Kafka Connect's `setClusterLoggerLevel`):
    /// writes `{"level": level}` under `logger-cluster-<namespace>` and waits, at most 30 s,
    /// until it is durable; then applies it here, so that this worker has the level when the
    /// request is answered. Every other worker started before applies it when its herder reads
    /// the record.
    ///
    /// # Errors
    /// Internal (`Error writing logger level to Kafka`) when the record is not durable in time.
    pub async fn write(&self, namespace: &str, level: &str) -> Result<(), HerderError> {
        tracing::debug!(
            "Writing level {level} for logging namespace {namespace} to the config topic"
        );
        let (key, value) = ConfigRecord::LoggerCluster {
            namespace: namespace.to_owned(),
            level: level.to_owned(),
        }
        .encode();
        let configs = &self.configs;
        let written = async move { configs.send(key.into_bytes(), value).await?.await };
        let failure = match tokio::time::timeout(WRITE_TIMEOUT, written).await {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e.to_string()),
            Err(_) => Some(format!(
                "not acknowledged within {} s",
                WRITE_TIMEOUT.as_secs()
            )),
        };
        if let Some(cause) = failure {
            tracing::error!(error = %cause, "Failed to write logger level to the config topic");
            let message = if self.on_kafka {
                "Error writing logger level to Kafka"
            } else {
                "Error writing logger level to the embedded log"
            };
            return Err(HerderError::Internal(message.to_owned()));
        }
        crate::logging::levels().set_named(namespace, level);
        Ok(())
    }
}
