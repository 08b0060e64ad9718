//! Connector and task statuses in the `status.storage.topic` (Kafka Connect's
//! `KafkaStatusBackingStore`): every worker writes the statuses of what it runs and reads
//! everyone's, so any worker answers `/connectors/{c}/status` for the whole cluster. Records
//! and the cache's rules are [`super::internal::status_records`]'s; a worker's own writes are
//! visible to it at once, and everyone's once read back.

use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use tracing::warn;

use super::internal::status_records::{Status, StatusRecord, StatusState, TopicStatus};
use super::status_store::{safe_to_write, StatusStore};
use super::topic_log::{InternalTopicSpec, LogRecord, TopicLog, TopicLogError};
use crate::topics::internal_topic::InternalTopicBackend;

/// Statuses kept in a compacted topic.
pub struct TopicStatusStore {
    log: TopicLog,
    state: Arc<Mutex<StatusState>>,
}

impl std::fmt::Debug for TopicStatusStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicStatusStore")
            .field("topic", &self.log.topic())
            .finish_non_exhaustive()
    }
}

fn lock(state: &Mutex<StatusState>) -> MutexGuard<'_, StatusState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl TopicStatusStore {
    /// Opens the status topic of `spec` (created if absent, compaction verified) and reads it
    /// to its end.
    ///
    /// # Errors
    /// As [`TopicLog::open`].
    pub async fn open(
        backend: &dyn InternalTopicBackend,
        spec: &InternalTopicSpec,
        client_id: &str,
    ) -> Result<Self, TopicLogError> {
        let state = Arc::new(Mutex::new(StatusState::new()));
        let applied = state.clone();
        let handler = Box::new(move |record: LogRecord| {
            let key = record.key.unwrap_or_default();
            if let Err(e) = lock(&applied).apply_raw(&key, record.value.as_deref()) {
                warn!(
                    partition = record.partition,
                    offset = record.offset,
                    "Ignoring a status record that cannot be read: {e}"
                );
            }
        });
        let log = TopicLog::open(backend, spec, client_id, handler).await?;
        Ok(Self { log, state })
    }

    /// Reads the topic to its end (everyone's statuses written so far).
    ///
    /// # Errors
    /// As [`TopicLog::read_to_end`].
    pub async fn read_to_end(&self) -> Result<(), TopicLogError> {
        self.log.read_to_end().await
    }
}

#[async_trait]
impl StatusStore for TopicStatusStore {
    /// Writes `record` and applies it to this worker's view at once. The write is not
    /// awaited (as Kafka Connect's, statuses are best effort); a failure is logged.
    async fn put(&self, record: StatusRecord) {
        let (key, value) = record.encode();
        lock(&self.state).apply(record);
        match self.log.send(key.clone().into_bytes(), value).await {
            Ok(ack) => {
                let topic = self.log.topic().to_owned();
                tokio::spawn(async move {
                    if let Err(e) = ack.await {
                        warn!(topic = %topic, key = %key, error = %e, "Could not write a status.");
                    }
                });
            }
            Err(e) => warn!(key = %key, error = %e, "Could not write a status."),
        }
    }

    /// Writes `record` only if no newer status of another worker is cached (Kafka Connect's
    /// `putSafe`, for failures, shutdowns and UNASSIGNED); returns whether it was written.
    async fn put_safe(&self, record: StatusRecord) -> bool {
        let safe = safe_to_write(&lock(&self.state), &record);
        if safe {
            self.put(record).await;
        }
        safe
    }

    /// The status of connector `name`.
    fn connector(&self, name: &str) -> Option<Status> {
        lock(&self.state).connector(name).cloned()
    }

    /// The connectors with a status.
    fn connectors(&self) -> Vec<String> {
        lock(&self.state).connectors()
    }

    /// The statuses of connector `name`'s tasks, by task id.
    fn tasks(&self, name: &str) -> Vec<(u32, Status)> {
        lock(&self.state)
            .tasks(name)
            .into_iter()
            .map(|(id, s)| (id, s.clone()))
            .collect()
    }

    /// Whether connector `name` has a record of using `topic` (KIP-558).
    fn has_topic(&self, name: &str, topic: &str) -> bool {
        lock(&self.state).topic(name, topic).is_some()
    }

    /// The topics connector `name` used (KIP-558), by topic name.
    fn topics(&self, name: &str) -> Vec<TopicStatus> {
        lock(&self.state)
            .topics(name)
            .into_iter()
            .cloned()
            .collect()
    }

    /// Flushes pending writes and stops tailing.
    async fn stop(&self) {
        self.log.stop().await;
    }
}
