//! Where connector and task statuses are kept (Kafka Connect's `StatusBackingStore`): in
//! memory for a single worker ([`MemoryStatusStore`]), in the status topic for a cluster
//! ([`TopicStatusStore`](super::TopicStatusStore)). A worker's own writes are visible to it at
//! once; the cache's rules (generations, which write wins) are
//! [`StatusState`](super::internal::StatusState)'s.

use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use super::internal::status_records::{Status, StatusRecord, StatusState, TopicStatus};

/// Connector, task and topic statuses.
#[async_trait]
pub trait StatusStore: Send + Sync {
    /// Writes `record` and applies it to this worker's view at once; best effort (a failed
    /// write is logged).
    async fn put(&self, record: StatusRecord);

    /// Writes `record` only if no newer status of another worker is known (Kafka Connect's
    /// `putSafe`, for failures, shutdowns and UNASSIGNED); returns whether it was written.
    async fn put_safe(&self, record: StatusRecord) -> bool;

    /// The status of connector `name`.
    fn connector(&self, name: &str) -> Option<Status>;

    /// The connectors with a status.
    fn connectors(&self) -> Vec<String>;

    /// The statuses of connector `name`'s tasks, by task id.
    fn tasks(&self, name: &str) -> Vec<(u32, Status)>;

    /// Whether connector `name` has a record of using `topic` (KIP-558).
    fn has_topic(&self, name: &str, topic: &str) -> bool;

    /// The topics connector `name` used (KIP-558), by topic name.
    fn topics(&self, name: &str) -> Vec<TopicStatus>;

    /// Flushes pending writes and stops (nothing to do in memory).
    async fn stop(&self) {}
}

/// Whether `record` may be written over what `state` knows (Kafka Connect's `putSafe` rule):
/// a status only when no newer one of another worker is cached; anything else always.
pub(crate) fn safe_to_write(state: &StatusState, record: &StatusRecord) -> bool {
    match record {
        StatusRecord::Connector {
            connector,
            status: Some(status),
        } => state.connector_safe_to_write(connector, status),
        StatusRecord::Task {
            connector,
            task,
            status: Some(status),
        } => state.task_safe_to_write(connector, *task, status),
        _ => true,
    }
}

/// Statuses in memory (Kafka Connect's `MemoryStatusBackingStore`): what one worker knows of
/// itself, lost when it stops.
#[derive(Debug, Default)]
pub struct MemoryStatusStore {
    state: Mutex<StatusState>,
}

impl MemoryStatusStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, StatusState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl StatusStore for MemoryStatusStore {
    async fn put(&self, record: StatusRecord) {
        self.lock().apply(record);
    }

    async fn put_safe(&self, record: StatusRecord) -> bool {
        let mut state = self.lock();
        let safe = safe_to_write(&state, &record);
        if safe {
            state.apply(record);
        }
        safe
    }

    fn connector(&self, name: &str) -> Option<Status> {
        self.lock().connector(name).cloned()
    }

    fn connectors(&self) -> Vec<String> {
        self.lock().connectors()
    }

    fn tasks(&self, name: &str) -> Vec<(u32, Status)> {
        self.lock()
            .tasks(name)
            .into_iter()
            .map(|(id, s)| (id, s.clone()))
            .collect()
    }

    fn has_topic(&self, name: &str, topic: &str) -> bool {
        self.lock().topic(name, topic).is_some()
    }

    fn topics(&self, name: &str) -> Vec<TopicStatus> {
        self.lock().topics(name).into_iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests;
