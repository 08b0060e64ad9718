//! Where connector configurations, target states and task configurations are kept (Kafka
//! Connect's `ConfigBackingStore`): in memory ([`MemoryConfigStore`], a standalone worker
//! without `config.storage.file.filename`), in the configurations file ([`FileConfigStore`],
//! a standalone worker with it) or in the config topic
//! ([`TopicConfigStore`](super::topic_configs::TopicConfigStore), a cluster).
//!
//! Every store speaks the config topic's records ([`ConfigRecord`]) and keeps what it read in a
//! [`ConfigState`] (Kafka's `ClusterConfigState` snapshot): a write is durable when
//! [`ConfigStore::write`] returns, and acted upon once read back ([`ConfigStore::read_to_end`]),
//! so a herder reacts to its own writes and to other workers' alike.

use std::collections::BTreeMap;

use async_trait::async_trait;
use connect_api::ConfigMap;

use super::configs_file::{ConfigsFile, StoredConnector};
use super::internal::config_state::{
    connector_config_records, connector_removal_records, task_config_records,
};
use super::internal::{ConfigChange, ConfigProps, ConfigRecord, ConfigState, RestartRequest};
use super::{StorageError, TargetState};

/// What reading records changed.
#[derive(Debug, Default)]
pub struct Applied {
    /// Whether any record was read (a record that changed nothing still moves the offset).
    pub read: bool,
    /// What changed, in order, for the herder to react to.
    pub changes: Vec<ConfigChange>,
}

/// Connector configurations, target states, task configurations and the cluster's other
/// configuration records.
#[async_trait]
pub trait ConfigStore: Send {
    /// What the store holds, as read so far (Kafka's `snapshot()`).
    fn snapshot(&self) -> &ConfigState;

    /// The restart requests read since the last call, oldest first.
    fn take_restart_requests(&mut self) -> Vec<RestartRequest>;

    /// Writes `records` in order; they are durable when this returns (read them back with
    /// [`read_to_end`](Self::read_to_end)).
    ///
    /// # Errors
    /// They could not be written.
    async fn write(&mut self, records: Vec<ConfigRecord>) -> Result<(), StorageError>;

    /// Reads everything written so far (by this worker or another) and applies it.
    ///
    /// # Errors
    /// The store could not be read.
    async fn read_to_end(&mut self) -> Result<Applied, StorageError>;

    /// Applies the records already read, without waiting.
    fn apply_pending(&mut self) -> Applied;

    /// Waits until another writer's record arrives and applies it (the records behind it:
    /// [`apply_pending`](Self::apply_pending)); `None` when the store stopped. A store no one
    /// else writes to never answers.
    async fn next_records(&mut self) -> Option<Applied>;

    /// Flushes pending writes and stops reading.
    async fn stop(&mut self) {}

    /// Writes connector `connector`'s configuration (a new one with `target`, when given).
    ///
    /// # Errors
    /// As [`write`](Self::write).
    async fn put_connector_config(
        &mut self,
        connector: &str,
        config: &ConfigMap,
        target: Option<TargetState>,
    ) -> Result<(), StorageError> {
        self.write(connector_config_records(connector, props(config), target))
            .await
    }

    /// Removes connector `connector` (its configuration and target state).
    ///
    /// # Errors
    /// As [`write`](Self::write).
    async fn remove_connector_config(&mut self, connector: &str) -> Result<(), StorageError> {
        self.write(connector_removal_records(connector)).await
    }

    /// Writes connector `connector`'s target state; a stopped connector's task list is
    /// emptied too (KIP-875).
    ///
    /// # Errors
    /// As [`write`](Self::write).
    async fn put_target_state(
        &mut self,
        connector: &str,
        state: TargetState,
    ) -> Result<(), StorageError> {
        let mut records = vec![ConfigRecord::TargetState {
            connector: connector.to_owned(),
            state: Some(state),
        }];
        if state == TargetState::Stopped {
            records.extend(task_config_records(connector, Vec::new()));
        }
        self.write(records).await
    }

    /// Replaces connector `connector`'s task configurations (the task records, then the
    /// commit).
    ///
    /// # Errors
    /// As [`write`](Self::write).
    async fn put_task_configs(
        &mut self,
        connector: &str,
        configs: &[ConfigMap],
    ) -> Result<(), StorageError> {
        self.write(task_config_records(
            connector,
            configs.iter().map(props).collect(),
        ))
        .await
    }
}

/// Stored properties (a value may be null) as a configuration map (null values left out, as
/// Kafka Connect's `ConnectorConfig` sees them).
pub fn config_map(props: &ConfigProps) -> ConfigMap {
    props
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.clone(), v.clone())))
        .collect()
}

/// A configuration map as stored properties.
pub fn props(config: &ConfigMap) -> ConfigProps {
    config
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect()
}

/// Configurations in memory (Kafka Connect's `MemoryConfigBackingStore`): one worker's, lost
/// when it stops. A write is applied at once; what it changed is reported by the next read.
#[derive(Debug)]
pub struct MemoryConfigStore {
    state: ConfigState,
    /// The offset the next record is given.
    next_offset: i64,
    /// What writes changed, not read yet.
    unread: Applied,
}

impl Default for MemoryConfigStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryConfigStore {
    /// An empty store.
    pub fn new() -> Self {
        let mut state = ConfigState::new();
        state.mark_started();
        Self {
            state,
            next_offset: 0,
            unread: Applied::default(),
        }
    }

    /// What the store holds replaced by `connectors` (configuration and target state), as
    /// read from a file: reported as read, without changes.
    fn load(&mut self, connectors: BTreeMap<String, (ConfigMap, TargetState)>) {
        let mut state = ConfigState::new();
        let mut offset = 0;
        for (name, (config, target)) in connectors {
            for record in connector_config_records(&name, props(&config), Some(target)) {
                state.apply(offset, record);
                offset += 1;
            }
        }
        state.mark_started();
        self.state = state;
        self.next_offset = offset;
        self.unread = Applied {
            read: true,
            changes: Vec::new(),
        };
    }
}

#[async_trait]
impl ConfigStore for MemoryConfigStore {
    fn snapshot(&self) -> &ConfigState {
        &self.state
    }

    fn take_restart_requests(&mut self) -> Vec<RestartRequest> {
        self.state.drain_restart_requests()
    }

    async fn write(&mut self, records: Vec<ConfigRecord>) -> Result<(), StorageError> {
        for record in records {
            self.unread.read = true;
            if let Some(change) = self.state.apply(self.next_offset, record) {
                self.unread.changes.push(change);
            }
            self.next_offset += 1;
        }
        Ok(())
    }

    async fn read_to_end(&mut self) -> Result<Applied, StorageError> {
        Ok(self.apply_pending())
    }

    fn apply_pending(&mut self) -> Applied {
        std::mem::take(&mut self.unread)
    }

    async fn next_records(&mut self) -> Option<Applied> {
        std::future::pending().await
    }
}

/// Configurations in memory, kept in the configurations file (`config.storage.file.filename`)
/// as well: the first read reads the file (none: nothing stored), and every write replaces
/// it with every connector's configuration and target state, so that connectors created over
/// REST survive a restart.
#[derive(Debug)]
pub struct FileConfigStore {
    memory: MemoryConfigStore,
    file: ConfigsFile,
    /// Whether the file was read.
    loaded: bool,
}

impl FileConfigStore {
    /// The store of `file`.
    pub fn new(file: ConfigsFile) -> Self {
        Self {
            memory: MemoryConfigStore::new(),
            file,
            loaded: false,
        }
    }

    /// Replaces the file with what the store holds.
    fn save(&self) -> Result<(), StorageError> {
        let state = &self.memory.state;
        let stored = state
            .connectors()
            .into_iter()
            .filter_map(|name| {
                let config = config_map(state.connector_config(&name)?);
                let target_state = match state.target_state(&name) {
                    TargetState::Started => "STARTED",
                    TargetState::Paused => "PAUSED",
                    TargetState::Stopped => "STOPPED",
                };
                Some((
                    name,
                    StoredConnector {
                        config,
                        target_state: target_state.to_owned(),
                    },
                ))
            })
            .collect();
        self.file.save(stored)
    }
}

#[async_trait]
impl ConfigStore for FileConfigStore {
    fn snapshot(&self) -> &ConfigState {
        self.memory.snapshot()
    }

    fn take_restart_requests(&mut self) -> Vec<RestartRequest> {
        self.memory.take_restart_requests()
    }

    async fn write(&mut self, records: Vec<ConfigRecord>) -> Result<(), StorageError> {
        self.memory.write(records).await?;
        self.save()
    }

    /// The first time, reads the file in place of what the store holds (a stored target
    /// state other than `PAUSED` or `STOPPED` is read as started).
    ///
    /// # Errors
    /// The file cannot be read or is corrupt (it is left untouched).
    async fn read_to_end(&mut self) -> Result<Applied, StorageError> {
        if !self.loaded {
            let stored = self.file.load()?;
            self.loaded = true;
            self.memory.load(
                stored
                    .into_iter()
                    .map(|(name, s)| {
                        let target = match s.target_state.as_str() {
                            "PAUSED" => TargetState::Paused,
                            "STOPPED" => TargetState::Stopped,
                            _ => TargetState::Started,
                        };
                        (name, (s.config, target))
                    })
                    .collect(),
            );
        }
        self.memory.read_to_end().await
    }

    fn apply_pending(&mut self) -> Applied {
        self.memory.apply_pending()
    }

    async fn next_records(&mut self) -> Option<Applied> {
        std::future::pending().await
    }
}

#[cfg(test)]
mod tests;
