//! The state the config topic builds: Kafka Connect's `ClusterConfigState` together with the
//! buffering `KafkaConfigBackingStore` does while reading the topic.
//!
//! Task configurations wait in a buffer until their connector's `commit-` record; the commit
//! applies them only if the tasks `0..N-1` are all there, else the connector is marked
//! inconsistent (its task list reads empty) until a later complete commit. The buffer is
//! cleared at every commit. A connector tombstone removes its configuration, task count and
//! task configurations; its target state goes with its own tombstone (the herder writes both).

use std::collections::{BTreeMap, BTreeSet};

use super::config_records::{ConfigProps, ConfigRecord, SessionKey};
use super::RecordError;
use crate::storage::TargetState;

/// A restart request read from the config topic (KIP-745).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestartRequest {
    /// Connector name.
    pub connector: String,
    /// Whether the tasks restart too.
    pub include_tasks: bool,
    /// Whether only failed instances restart.
    pub only_failed: bool,
}

/// What changed when a record was applied, for the herder to react to (Kafka's
/// `ConfigBackingStore.UpdateListener` calls). Reported only after [`ConfigState::mark_started`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigChange {
    /// A connector's configuration was created or updated.
    ConnectorConfigUpdated(String),
    /// A connector's configuration was deleted.
    ConnectorConfigRemoved(String),
    /// An existing connector's target state changed.
    TargetStateChanged(String),
    /// A commit applied task configurations (the tasks whose configuration was replaced;
    /// possibly none, e.g. when the connector now has zero tasks).
    TaskConfigsUpdated(Vec<(String, u32)>),
    /// A new session key was read.
    SessionKeyUpdated,
    /// A cluster-wide logger level was read.
    LoggerLevel {
        /// The logger namespace.
        namespace: String,
        /// The level.
        level: String,
    },
}

/// The cluster's configuration as read from the config topic so far.
#[derive(Debug, Clone, Default)]
pub struct ConfigState {
    /// Offset of the next record to read; -1 before the first.
    offset: Option<i64>,
    started: bool,
    session_key: Option<SessionKey>,
    connector_configs: BTreeMap<String, ConfigProps>,
    target_states: BTreeMap<String, TargetState>,
    task_counts: BTreeMap<String, u32>,
    task_configs: BTreeMap<String, BTreeMap<u32, ConfigProps>>,
    deferred: BTreeMap<String, BTreeMap<u32, ConfigProps>>,
    task_count_records: BTreeMap<String, u32>,
    task_config_generations: BTreeMap<String, u32>,
    applied_connector_configs: BTreeMap<String, ConfigProps>,
    pending_fencing: BTreeSet<String>,
    inconsistent: BTreeSet<String>,
    restart_requests: Vec<RestartRequest>,
}

impl ConfigState {
    /// An empty state (Kafka's `ClusterConfigState.EMPTY`).
    pub fn new() -> Self {
        Self::default()
    }

    /// From now on, [`apply`](Self::apply) reports changes and queues restart requests; call it
    /// once the topic was read to its end at startup (Kafka's `started`). Records read before
    /// only build the state, as in Kafka, where old restart requests and logger levels are
    /// not acted upon.
    pub fn mark_started(&mut self) {
        self.started = true;
    }

    /// Decodes and applies the record at `offset`, as Kafka's consume callback does: a value
    /// that is not JSON leaves the state and its offset as they were; any other bad record
    /// still moves the offset past it. Unknown keys are applied as no-ops.
    ///
    /// # Errors
    /// The decoding error, for the caller to log; the record is discarded.
    pub fn apply_raw(
        &mut self,
        offset: i64,
        key: &[u8],
        value: Option<&[u8]>,
    ) -> Result<Option<ConfigChange>, RecordError> {
        match ConfigRecord::decode(key, value) {
            Ok(record) => Ok(self.apply(offset, record)),
            Err(e @ RecordError::Conversion { .. }) => Err(e),
            Err(e) => {
                self.offset = Some(offset + 1);
                Err(e)
            }
        }
    }

    /// Applies `record`, read at `offset` of the config topic, and says what changed (always
    /// `None` before [`mark_started`](Self::mark_started)).
    pub fn apply(&mut self, offset: i64, record: ConfigRecord) -> Option<ConfigChange> {
        self.offset = Some(offset + 1);
        let change = match record {
            ConfigRecord::Connector { name, props: None } => {
                self.remove_connector(&name);
                Some(ConfigChange::ConnectorConfigRemoved(name))
            }
            ConfigRecord::Connector {
                name,
                props: Some(props),
            } => {
                self.connector_configs.insert(name.clone(), props);
                // Connectors created by old workers have no target state: they are STARTED.
                self.target_states
                    .entry(name.clone())
                    .or_insert(TargetState::Started);
                Some(ConfigChange::ConnectorConfigUpdated(name))
            }
            ConfigRecord::Task {
                connector,
                task,
                props,
            } => {
                self.deferred
                    .entry(connector)
                    .or_default()
                    .insert(task, props);
                None
            }
            ConfigRecord::Commit { connector, tasks } => self.commit(connector, tasks),
            ConfigRecord::TargetState { connector, state } => {
                self.set_target_state(connector, state)
            }
            ConfigRecord::RestartConnector {
                connector,
                include_tasks,
                only_failed,
            } => {
                if self.started {
                    self.restart_requests.push(RestartRequest {
                        connector,
                        include_tasks,
                        only_failed,
                    });
                }
                None
            }
            ConfigRecord::SessionKey(key) => {
                self.session_key = Some(key);
                Some(ConfigChange::SessionKeyUpdated)
            }
            ConfigRecord::TaskCountFencing {
                connector,
                task_count,
            } => {
                self.task_count_records
                    .insert(connector.clone(), task_count);
                // Tasks configured before this record need no new round of zombie fencing.
                self.pending_fencing.remove(&connector);
                None
            }
            ConfigRecord::LoggerCluster { namespace, level } => {
                Some(ConfigChange::LoggerLevel { namespace, level })
            }
            ConfigRecord::Unknown { .. } => None,
        };
        change.filter(|_| self.started)
    }

    fn remove_connector(&mut self, name: &str) {
        self.connector_configs.remove(name);
        self.task_counts.remove(name);
        self.task_configs.remove(name);
        self.deferred.remove(name);
        self.applied_connector_configs.remove(name);
    }

    fn set_target_state(
        &mut self,
        connector: String,
        state: Option<TargetState>,
    ) -> Option<ConfigChange> {
        let Some(state) = state else {
            self.target_states.remove(&connector);
            // A connector that still has a configuration always has a target state.
            if self.connector_configs.contains_key(&connector) {
                self.target_states.insert(connector, TargetState::Started);
            }
            // Kafka reports the removal through the connector's own tombstone.
            return None;
        };
        let previous = self.target_states.insert(connector.clone(), state);
        // No report for a connector that does not exist yet (an initial target state written
        // just before its configuration).
        (previous != Some(state) && self.connector_configs.contains_key(&connector))
            .then_some(ConfigChange::TargetStateChanged(connector))
    }

    fn commit(&mut self, connector: String, tasks: u32) -> Option<ConfigChange> {
        let Some(applied) = self.connector_configs.get(&connector).cloned() else {
            // The connector was deleted and compaction removed its records: ignore the tasks.
            self.remove_connector(&connector);
            return None;
        };
        let deferred = self.deferred.remove(&connector).unwrap_or_default();
        let complete = (0..tasks).all(|t| deferred.contains_key(&t));
        let mut updated = Vec::new();
        if complete {
            if !deferred.is_empty() {
                updated = deferred.keys().map(|t| (connector.clone(), *t)).collect();
                self.task_configs
                    .entry(connector.clone())
                    .or_default()
                    .extend(deferred);
                self.task_config_generations
                    .entry(connector.clone())
                    .and_modify(|g| *g += 1)
                    .or_insert(0);
            }
            self.inconsistent.remove(&connector);
            self.applied_connector_configs
                .insert(connector.clone(), applied);
        } else {
            // Compaction removed some of this generation's task configs: the herder must
            // have the connector write its task configs again.
            self.inconsistent.insert(connector.clone());
        }
        self.task_counts.insert(connector.clone(), tasks);
        // Task configs newer than the last task-count record need a round of zombie fencing.
        self.pending_fencing.insert(connector);
        Some(ConfigChange::TaskConfigsUpdated(updated))
    }

    /// Offset of the next record to read from the config topic (the offset a worker reports
    /// in the group protocol), -1 before any record was read.
    pub fn offset(&self) -> i64 {
        self.offset.unwrap_or(-1)
    }

    /// Whether the connector has a configuration.
    pub fn contains(&self, connector: &str) -> bool {
        self.connector_configs.contains_key(connector)
    }

    /// Names of all connectors with a configuration, sorted.
    pub fn connectors(&self) -> Vec<String> {
        self.connector_configs.keys().cloned().collect()
    }

    /// A connector's raw configuration.
    pub fn connector_config(&self, connector: &str) -> Option<&ConfigProps> {
        self.connector_configs.get(connector)
    }

    /// The configuration the connector's current tasks were generated from (set by the last
    /// complete commit).
    pub fn applied_connector_config(&self, connector: &str) -> Option<&ConfigProps> {
        self.applied_connector_configs.get(connector)
    }

    /// A connector's target state; STARTED when none was written.
    pub fn target_state(&self, connector: &str) -> TargetState {
        self.target_states
            .get(connector)
            .copied()
            .unwrap_or(TargetState::Started)
    }

    /// The committed task count (0 when none), also when the connector is inconsistent.
    pub fn task_count(&self, connector: &str) -> u32 {
        self.task_counts.get(connector).copied().unwrap_or(0)
    }

    /// The connector's task ids `0..task_count`; empty when it is inconsistent (Kafka's
    /// `ClusterConfigState.tasks`).
    pub fn tasks(&self, connector: &str) -> Vec<u32> {
        if self.inconsistent.contains(connector) {
            return Vec::new();
        }
        (0..self.task_count(connector)).collect()
    }

    /// One task's committed raw configuration.
    pub fn task_config(&self, connector: &str, task: u32) -> Option<&ConfigProps> {
        self.task_configs.get(connector)?.get(&task)
    }

    /// The committed configurations of the connector's tasks, in task order; empty when the
    /// connector is inconsistent.
    pub fn task_configs(&self, connector: &str) -> Vec<(u32, &ConfigProps)> {
        self.tasks(connector)
            .into_iter()
            .filter_map(|t| self.task_config(connector, t).map(|p| (t, p)))
            .collect()
    }

    /// Connectors whose last commit named tasks whose configs were missing.
    pub fn inconsistent(&self) -> &BTreeSet<String> {
        &self.inconsistent
    }

    /// The current session key.
    pub fn session_key(&self) -> Option<&SessionKey> {
        self.session_key.as_ref()
    }

    /// The task count of the connector's last `tasks-fencing-` record.
    pub fn task_count_record(&self, connector: &str) -> Option<u32> {
        self.task_count_records.get(connector).copied()
    }

    /// How many times the connector's task configs were replaced (0 for the first set).
    pub fn task_config_generation(&self, connector: &str) -> Option<u32> {
        self.task_config_generations.get(connector).copied()
    }

    /// Whether task configs were committed after the connector's last task-count record, so
    /// its tasks need zombie fencing before they start (exactly-once source support).
    pub fn pending_fencing(&self, connector: &str) -> bool {
        self.pending_fencing.contains(connector)
    }

    /// The restart requests read since the last call, oldest first.
    pub fn drain_restart_requests(&mut self) -> Vec<RestartRequest> {
        std::mem::take(&mut self.restart_requests)
    }
}

/// The records that write a connector's configuration, in Kafka's order: its target state
/// first (when one is given), then the configuration.
pub fn connector_config_records(
    connector: &str,
    props: ConfigProps,
    target_state: Option<TargetState>,
) -> Vec<ConfigRecord> {
    let mut out = Vec::with_capacity(2);
    if let Some(state) = target_state {
        out.push(ConfigRecord::TargetState {
            connector: connector.to_owned(),
            state: Some(state),
        });
    }
    out.push(ConfigRecord::Connector {
        name: connector.to_owned(),
        props: Some(props),
    });
    out
}

/// The records that delete a connector: tombstones for its configuration and target state.
pub fn connector_removal_records(connector: &str) -> Vec<ConfigRecord> {
    vec![
        ConfigRecord::Connector {
            name: connector.to_owned(),
            props: None,
        },
        ConfigRecord::TargetState {
            connector: connector.to_owned(),
            state: None,
        },
    ]
}

/// The records that replace a connector's task configs, in write order: one `task-` record per
/// config, then the `commit-` record with their count (an empty list gives only
/// `{"tasks":0}`). Kafka reads the topic to its end before writing the commit.
pub fn task_config_records(connector: &str, configs: Vec<ConfigProps>) -> Vec<ConfigRecord> {
    let tasks = u32::try_from(configs.len()).unwrap_or(u32::MAX);
    let mut out: Vec<ConfigRecord> = configs
        .into_iter()
        .zip(0u32..)
        .map(|(props, task)| ConfigRecord::Task {
            connector: connector.to_owned(),
            task,
            props,
        })
        .collect();
    out.push(ConfigRecord::Commit {
        connector: connector.to_owned(),
        tasks,
    });
    out
}

#[cfg(test)]
#[path = "config_state_tests.rs"]
mod tests;
