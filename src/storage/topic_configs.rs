//! Connector configurations in the `config.storage.topic` (Kafka Connect's
//! `KafkaConfigBackingStore`): every worker writes records there (the leader: configurations,
//! target states, task configurations; any worker: logger levels) and reads everyone's; what a
//! herder acts upon is what it read back. Records and the state's rules are
//! [`super::internal::config_records`]' and [`super::internal::config_state`]'s.

use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::mpsc;
use tracing::warn;

use super::config_store::{Applied, ConfigStore};
use super::internal::{ConfigRecord, ConfigState, RestartRequest};
use super::topic_log::{channel_handler, InternalTopicSpec, LogRecord, TopicLog, TopicLogError};
use super::StorageError;
use crate::topics::internal_topic::InternalTopicBackend;

/// Configurations kept in a compacted one-partition topic.
pub struct TopicConfigStore {
    log: Arc<TopicLog>,
    records: mpsc::UnboundedReceiver<LogRecord>,
    state: ConfigState,
}

impl std::fmt::Debug for TopicConfigStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicConfigStore")
            .field("topic", &self.log.topic())
            .field("offset", &self.state.offset())
            .finish_non_exhaustive()
    }
}

impl TopicConfigStore {
    /// Opens the config topic of `spec` (created if absent, checked otherwise) and reads it to
    /// its end; records read so far only build the state (no change is reported for them,
    /// as Kafka Connect does not act on old restart requests and logger levels).
    ///
    /// # Errors
    /// As [`TopicLog::open`].
    pub async fn open(
        backend: &dyn InternalTopicBackend,
        spec: &InternalTopicSpec,
        client_id: &str,
    ) -> Result<Self, TopicLogError> {
        let (handler, records) = channel_handler();
        let log = TopicLog::open(backend, spec, client_id, handler).await?;
        let mut store = Self {
            log: Arc::new(log),
            records,
            state: ConfigState::new(),
        };
        store.apply_pending();
        store.state.mark_started();
        Ok(store)
    }

    /// The topic log, for writers that do not go through the herder (cluster-wide logger
    /// levels).
    pub fn log(&self) -> Arc<TopicLog> {
        self.log.clone()
    }

    /// Applies `record`, adding what changed to `applied`; a record that cannot be read is
    /// logged and discarded.
    fn apply(&mut self, record: LogRecord, applied: &mut Applied) {
        applied.read = true;
        let key = record.key.unwrap_or_default();
        match self
            .state
            .apply_raw(record.offset, &key, record.value.as_deref())
        {
            Ok(Some(change)) => applied.changes.push(change),
            Ok(None) => {}
            Err(e) => warn!(error = %e, "Discarded a record of the config topic."),
        }
    }
}

#[async_trait]
impl ConfigStore for TopicConfigStore {
    fn snapshot(&self) -> &ConfigState {
        &self.state
    }

    fn take_restart_requests(&mut self) -> Vec<RestartRequest> {
        self.state.drain_restart_requests()
    }

    async fn write(&mut self, records: Vec<ConfigRecord>) -> Result<(), StorageError> {
        let encoded = records
            .iter()
            .map(|r| {
                let (key, value) = r.encode();
                (key.into_bytes(), value)
            })
            .collect();
        let ack = self.log.send_all(encoded).await?;
        ack.await?;
        Ok(())
    }

    async fn read_to_end(&mut self) -> Result<Applied, StorageError> {
        self.log.read_to_end().await?;
        Ok(self.apply_pending())
    }

    fn apply_pending(&mut self) -> Applied {
        let mut applied = Applied::default();
        while let Ok(record) = self.records.try_recv() {
            self.apply(record, &mut applied);
        }
        applied
    }

    async fn next_records(&mut self) -> Option<Applied> {
        let record = self.records.recv().await?;
        let mut applied = Applied::default();
        self.apply(record, &mut applied);
        Some(applied)
    }

    async fn stop(&mut self) {
        self.log.stop().await;
    }
}
