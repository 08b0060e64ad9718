//! The distributed herder (Kafka Connect's `DistributedHerder`): connector configurations,
//! target states and task configurations live in the config topic; every change is written
//! there first and acted upon when read back, so a restarted worker (or another worker of the
//! cluster) finds the same state. This worker is the cluster's only member and its leader: it
//! runs every connector and task (a one-worker cluster, as on the embedded log). Offsets go
//! to the offsets topic through the worker's offset store.

use std::collections::BTreeMap;
use std::sync::Arc;

use connect_api::ConfigMap;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::config::{RawConfig, WorkerConfig};
use crate::herder::core::{connector_type, invalid_config, Entry, HerderCore};
use crate::herder::spec::connector_spec;
use crate::herder::{HerderError, HerderHandle, Request, TargetState};
use crate::storage::internal::config_state::{
    connector_config_records, connector_removal_records, task_config_records,
};
use crate::storage::internal::{ConfigChange, ConfigProps, ConfigRecord, ConfigState};
use crate::storage::topic_log::{
    channel_handler, InternalTopicKind, InternalTopicSpec, LogRecord, TopicLog, TopicLogError,
};
use crate::topics::internal_topic::InternalTopicBackend;
use crate::worker::ConnectorSpec;

/// The config topic of `worker` (`config.storage.topic`, one partition).
pub fn config_topic_spec(worker: &WorkerConfig) -> InternalTopicSpec {
    InternalTopicSpec::new(
        InternalTopicKind::Configs,
        worker.config_storage_topic().unwrap_or("connect-configs"),
        1,
        worker.storage_replication_factor("config.storage"),
    )
}

/// Stored properties (a value may be null) as a configuration map (null values left out, as
/// Kafka Connect's `ConnectorConfig` sees them).
fn config_map(props: &ConfigProps) -> ConfigMap {
    props
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.clone(), v.clone())))
        .collect()
}

fn props(config: &ConfigMap) -> ConfigProps {
    config
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect()
}

fn storage_error(e: impl std::fmt::Display) -> HerderError {
    HerderError::Internal(format!("Could not write to the config topic: {e}"))
}

/// The distributed herder of a one-worker cluster.
pub struct DistributedHerder {
    core: HerderCore,
    configs: TopicLog,
    records: mpsc::UnboundedReceiver<LogRecord>,
    state: ConfigState,
    /// The specs of the connectors whose tasks run here (tasks are built from them).
    specs: BTreeMap<String, Arc<ConnectorSpec>>,
}

impl DistributedHerder {
    /// Opens the config topic (created if absent, checked otherwise) and reads it to its end.
    ///
    /// # Errors
    /// The config topic cannot be opened or read.
    pub async fn open(
        core: HerderCore,
        backend: &dyn InternalTopicBackend,
        worker: &WorkerConfig,
    ) -> Result<Self, TopicLogError> {
        let (handler, records) = channel_handler();
        let client_id = format!("{}-configs", worker.group_id().unwrap_or("connect-cluster"));
        let configs =
            TopicLog::open(backend, &config_topic_spec(worker), &client_id, handler).await?;
        let mut herder = Self {
            core,
            configs,
            records,
            state: ConfigState::new(),
            specs: BTreeMap::new(),
        };
        herder.drain();
        herder.state.mark_started();
        info!(
            connectors = herder.state.connectors().len(),
            offset = herder.state.offset(),
            "Read the config topic."
        );
        Ok(herder)
    }

    /// Applies the records already handed over by the config log; returns what changed.
    fn drain(&mut self) -> Vec<ConfigChange> {
        let mut changes = Vec::new();
        while let Ok(record) = self.records.try_recv() {
            let key = record.key.unwrap_or_default();
            match self
                .state
                .apply_raw(record.offset, &key, record.value.as_deref())
            {
                Ok(Some(change)) => changes.push(change),
                Ok(None) => {}
                Err(e) => warn!(error = %e, "Discarded a record of the config topic."),
            }
        }
        changes
    }

    /// Writes `records` to the config topic, waits until they are durable and read back, and
    /// acts on what changed.
    async fn write(&mut self, records: Vec<ConfigRecord>) -> Result<(), HerderError> {
        let encoded = records
            .iter()
            .map(|r| {
                let (key, value) = r.encode();
                (key.into_bytes(), value)
            })
            .collect();
        let ack = self
            .configs
            .send_all(encoded)
            .await
            .map_err(storage_error)?;
        ack.await.map_err(storage_error)?;
        self.configs.read_to_end().await.map_err(storage_error)?;
        let changes = self.drain();
        for change in changes {
            self.on_change(change).await;
        }
        Ok(())
    }

    /// Starts every connector of the config topic in its target state (a worker start).
    pub async fn start_all(&mut self) {
        for name in self.state.connectors() {
            self.start_connector(&name).await;
        }
    }

    /// The spec of connector `name` from its stored configuration.
    fn spec(&self, name: &str, config: &ConfigMap) -> Result<ConnectorSpec, String> {
        let raw = RawConfig::from_pairs(
            format!("the configuration of connector {name}"),
            config.clone(),
        );
        connector_spec(&raw, &self.core.worker_config, &self.core.plugins)
            .map_err(|e| e.to_string())
    }

    /// (Re)starts connector `name` from the config topic: its instance, then its tasks from
    /// the stored task configurations, after writing new ones if the connector plans others.
    async fn start_connector(&mut self, name: &str) {
        self.core.worker.stop_connector(name).await;
        self.specs.remove(name);
        let Some(stored) = self.state.connector_config(name) else {
            return;
        };
        let config = config_map(stored);
        let target = self.state.target_state(name);
        let spec = self.spec(name, &config);
        let kind = match &spec {
            Ok(spec) => connector_type(spec),
            Err(_) => self
                .core
                .connectors
                .get(name)
                .map_or(crate::herder::ConnectorType::Unknown, |e| e.connector_type),
        };
        self.core.connectors.insert(
            name.to_owned(),
            Entry {
                config,
                connector_type: kind,
                failure: None,
                target,
                paused_tasks: if target == TargetState::Paused {
                    self.state.tasks(name)
                } else {
                    Vec::new()
                },
            },
        );
        if target != TargetState::Started {
            return;
        }
        let spec = match spec {
            Ok(spec) => Arc::new(spec),
            Err(e) => return self.failed(name, e),
        };
        let planned = match self.core.worker.start_connector_instance(&spec).await {
            Ok(planned) => planned,
            Err(e) => return self.failed(name, e.to_string()),
        };
        self.specs.insert(name.to_owned(), spec);
        let stored: Vec<ConfigMap> = self
            .state
            .task_configs(name)
            .into_iter()
            .map(|(_, p)| config_map(p))
            .collect();
        if stored != planned || self.state.inconsistent().contains(name) {
            info!(connector = %name, tasks = planned.len(), "Writing new task configurations.");
            let records = task_config_records(name, planned.iter().map(props).collect());
            // The commit record applies them; its change starts the tasks.
            if let Err(e) = Box::pin(self.write(records)).await {
                self.failed(name, e.to_string());
            }
        } else {
            self.start_tasks(name);
        }
    }

    /// Starts the tasks of connector `name` from their stored configurations.
    fn start_tasks(&mut self, name: &str) {
        let Some(spec) = self.specs.get(name).cloned() else {
            return;
        };
        let configs: Vec<(u32, ConfigMap)> = self
            .state
            .task_configs(name)
            .into_iter()
            .map(|(id, p)| (id, config_map(p)))
            .collect();
        let members = configs.len();
        for (id, config) in configs {
            if let Err(e) = self.core.worker.start_task(&spec, id, config, members) {
                warn!(connector = %name, task = id, error = %e, "Task failed to start.");
            }
        }
    }

    fn failed(&mut self, name: &str, reason: String) {
        warn!(connector = %name, error = %reason, "Connector failed to start.");
        if let Some(entry) = self.core.connectors.get_mut(name) {
            entry.failure = Some(reason);
        }
    }

    /// Acts on a change read from the config topic.
    async fn on_change(&mut self, change: ConfigChange) {
        match change {
            ConfigChange::ConnectorConfigUpdated(name) => self.start_connector(&name).await,
            ConfigChange::ConnectorConfigRemoved(name) => {
                self.specs.remove(&name);
                let _ = self.core.delete(&name).await;
            }
            ConfigChange::TargetStateChanged(name) => match self.state.target_state(&name) {
                TargetState::Started => self.start_connector(&name).await,
                target => {
                    self.specs.remove(&name);
                    let _ = self.core.set_target(&name, target).await;
                }
            },
            ConfigChange::TaskConfigsUpdated(tasks) => {
                let mut connectors: Vec<String> = tasks.into_iter().map(|(c, _)| c).collect();
                connectors.dedup();
                for name in connectors {
                    self.core.worker.stop_tasks(&name).await;
                    self.start_tasks(&name);
                }
            }
            other => tracing::debug!(change = ?other, "Config topic change not acted upon."),
        }
    }

    async fn put(
        &mut self,
        name: String,
        config: ConfigMap,
        allow_replace: bool,
        initial: TargetState,
    ) -> Result<(bool, crate::herder::ConnectorInfo), HerderError> {
        let exists = self.state.contains(&name);
        if exists && !allow_replace {
            return Err(HerderError::Conflict(format!(
                "Connector {name} already exists"
            )));
        }
        let raw = RawConfig::from_pairs(
            format!("the configuration of connector {name}"),
            config.clone(),
        );
        connector_spec(&raw, &self.core.worker_config, &self.core.plugins)
            .map_err(|e| invalid_config(&e))?;
        let target = (!exists && initial != TargetState::Started).then_some(initial);
        self.write(connector_config_records(&name, props(&config), target))
            .await?;
        Ok((!exists, self.core.info(&name)?))
    }

    async fn delete(&mut self, name: &str) -> Result<(), HerderError> {
        if !self.state.contains(name) {
            return Err(HerderError::NotFound(format!("Connector {name} not found")));
        }
        self.write(connector_removal_records(name)).await
    }

    async fn set_target(&mut self, name: &str, target: TargetState) -> Result<(), HerderError> {
        if !self.state.contains(name) {
            return Err(HerderError::NotFound(format!("Unknown connector {name}")));
        }
        let mut records = vec![ConfigRecord::TargetState {
            connector: name.to_owned(),
            state: Some(target),
        }];
        if target == TargetState::Stopped {
            // KIP-875: a stopped connector has no tasks.
            records.extend(task_config_records(name, Vec::new()));
        }
        self.write(records).await
    }

    /// Runs the actor; returns its handle and task.
    pub fn spawn(self) -> (HerderHandle, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(64);
        let handle = HerderHandle::new(tx, self.core.worker_id.clone());
        (handle, tokio::spawn(self.run(rx)))
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Request>) {
        loop {
            let request = tokio::select! {
                request = rx.recv() => match request {
                    Some(request) => request,
                    None => break,
                },
                record = self.records.recv() => {
                    // Records written by another process on the same topic (not in a
                    // one-worker cluster) or late reads: apply them.
                    let Some(record) = record else { break };
                    let key = record.key.unwrap_or_default();
                    match self.state.apply_raw(record.offset, &key, record.value.as_deref()) {
                        Ok(Some(change)) => self.on_change(change).await,
                        Ok(None) => {}
                        Err(e) => warn!(error = %e, "Discarded a record of the config topic."),
                    }
                    continue;
                }
            };
            match request {
                Request::PutConfig {
                    name,
                    config,
                    allow_replace,
                    initial,
                    reply,
                } => {
                    let _ = reply.send(self.put(name, config, allow_replace, initial).await);
                }
                Request::Delete(name, reply) => {
                    let _ = reply.send(self.delete(&name).await);
                }
                Request::SetTarget(name, target, reply) => {
                    let _ = reply.send(self.set_target(&name, target).await);
                }
                Request::Shutdown(reply) => {
                    let report = self.core.worker.stop().await;
                    self.configs.stop().await;
                    let _ = reply.send(report);
                    return;
                }
                other => self.core.answer(other).await,
            }
        }
        self.core.worker.stop().await;
        self.configs.stop().await;
    }
}
