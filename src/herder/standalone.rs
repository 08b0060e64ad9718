//! The standalone herder: one actor that owns the connectors' configurations and the worker.
//! Configurations live in memory (as in Kafka Connect's standalone mode).

use std::collections::BTreeMap;
use std::sync::Arc;

use connect_api::ConfigMap;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::entities::{
    ConnectorInfo, ConnectorStateInfo, ConnectorType, StateInfo, TaskId, TaskStateInfo,
};
use super::spec::{connector_spec, SpecError};
use super::{HerderError, HerderHandle, Request, TargetState};
use crate::config::{RawConfig, WorkerConfig};
use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::storage::configs_file::{ConfigsFile, StoredConnector};
use crate::worker::{Activity, ConnectorSpec, Worker};

struct Entry {
    config: ConfigMap,
    connector_type: ConnectorType,
    /// Why the connector failed to start, if it did.
    failure: Option<String>,
    target: TargetState,
    /// Task ids while paused (the task list is kept, as in Kafka Connect).
    paused_tasks: Vec<u32>,
}

/// The standalone herder, before and while it runs as an actor.
pub struct StandaloneHerder {
    worker: Worker,
    /// `config.storage.file.filename`: REST-created connectors survive restarts.
    configs_file: Option<ConfigsFile>,
    worker_config: Arc<WorkerConfig>,
    plugins: Arc<PluginRegistry>,
    worker_id: String,
    connectors: BTreeMap<String, Entry>,
    /// Topics each connector has used, kept across restarts of its tasks (KIP-558).
    topics: BTreeMap<String, std::collections::BTreeSet<String>>,
}

fn connector_type(spec: &ConnectorSpec) -> ConnectorType {
    match spec.plugin {
        ConnectorPlugin::Source(_) => ConnectorType::Source,
        ConnectorPlugin::Sink(_) => ConnectorType::Sink,
    }
}

/// Kafka Connect's message for a configuration that does not validate.
fn invalid_config(e: &SpecError) -> HerderError {
    let problems = e.problems();
    HerderError::BadRequest(format!(
        "Connector configuration is invalid and contains the following {} error(s):\n{}\nYou can also find the above list of errors at the endpoint `/connector-plugins/{{connectorType}}/config/validate`",
        problems.len(),
        problems.join("\n")
    ))
}

impl StandaloneHerder {
    /// A herder driving `worker`; `worker_id` is the REST `host:port`.
    pub fn new(
        worker: Worker,
        worker_config: Arc<WorkerConfig>,
        plugins: Arc<PluginRegistry>,
        worker_id: String,
    ) -> Self {
        Self {
            worker,
            configs_file: worker_config
                .config_storage_file()
                .map(|p| ConfigsFile::new(&p)),
            worker_config,
            plugins,
            worker_id,
            connectors: BTreeMap::new(),
            topics: BTreeMap::new(),
        }
    }

    /// Starts a validated connector (from the command line).
    ///
    /// # Errors
    /// When it fails to start.
    pub async fn start(
        &mut self,
        spec: ConnectorSpec,
    ) -> Result<(), crate::worker::ConnectorStartError> {
        let name = spec.name.clone();
        let entry = Entry {
            config: spec.raw_props.clone(),
            connector_type: connector_type(&spec),
            failure: None,
            target: TargetState::Started,
            paused_tasks: Vec::new(),
        };
        self.worker.start_connector(spec).await?;
        self.connectors.insert(name, entry);
        Ok(())
    }

    /// Starts the connectors kept in `config.storage.file.filename` that the command line did not
    /// define, in their stored target state.
    ///
    /// # Errors
    /// When the file cannot be read or is corrupt (it is left untouched).
    pub async fn restore(&mut self) -> Result<(), crate::storage::StorageError> {
        let Some(file) = &self.configs_file else {
            return Ok(());
        };
        for (name, stored) in file.load()? {
            if self.connectors.contains_key(&name) {
                continue;
            }
            let target = match stored.target_state.as_str() {
                "PAUSED" => TargetState::Paused,
                "STOPPED" => TargetState::Stopped,
                _ => TargetState::Started,
            };
            info!(connector = %name, "Restoring a connector created over REST.");
            if let Err(e) = self
                .put_with_state(name.clone(), stored.config, false, target)
                .await
            {
                warn!(connector = %name, error = %e, "A stored connector could not be restored.");
            }
        }
        Ok(())
    }

    /// Writes every connector's configuration and target state to the configurations file.
    fn persist(&self) {
        let Some(file) = &self.configs_file else {
            return;
        };
        let stored = self
            .connectors
            .iter()
            .map(|(name, e)| {
                let target = match e.target {
                    TargetState::Started => "STARTED",
                    TargetState::Paused => "PAUSED",
                    TargetState::Stopped => "STOPPED",
                };
                (
                    name.clone(),
                    StoredConnector {
                        config: e.config.clone(),
                        target_state: target.to_owned(),
                    },
                )
            })
            .collect();
        if let Err(e) = file.save(stored) {
            warn!(error = %e, "Could not write the connector configurations file.");
        }
    }

    /// Stops every connector (used when start-up fails half-way).
    pub async fn stop(self) -> crate::worker::StopReport {
        self.worker.stop().await
    }

    /// Runs the actor; returns its handle and task.
    pub fn spawn(self) -> (HerderHandle, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(64);
        let handle = HerderHandle::new(tx, self.worker_id.clone());
        (handle, tokio::spawn(self.run(rx)))
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Request>) {
        while let Some(request) = rx.recv().await {
            match request {
                Request::Connectors(reply) => {
                    let _ = reply.send(self.connectors.keys().cloned().collect());
                }
                Request::Info(name, reply) => {
                    let _ = reply.send(self.info(&name));
                }
                Request::Config(name, reply) => {
                    let _ = reply.send(self.entry(&name).map(|e| self.masked(&e.config)));
                }
                Request::RawConfig(name, reply) => {
                    let _ = reply.send(self.entry(&name).map(|e| e.config.clone()));
                }
                Request::Status(name, reply) => {
                    let _ = reply.send(self.status(&name));
                }
                Request::TaskConfigs(name, reply) => {
                    let _ = reply.send(self.entry(&name).map(|_| {
                        self.worker
                            .task_reports(&name)
                            .into_iter()
                            .map(|t| {
                                let id = TaskId {
                                    connector: name.clone(),
                                    task: t.id,
                                };
                                (id, self.masked(&t.config))
                            })
                            .collect()
                    }));
                }
                Request::PutConfig {
                    name,
                    config,
                    allow_replace,
                    initial,
                    reply,
                } => {
                    let result = self
                        .put_with_state(name, config, allow_replace, initial)
                        .await;
                    self.persist();
                    let _ = reply.send(result);
                }
                Request::Delete(name, reply) => {
                    let result = match self.connectors.remove(&name) {
                        Some(_) => {
                            self.worker.stop_connector(&name).await;
                            self.worker.take_topics(&name);
                            self.topics.remove(&name);
                            info!(connector = %name, "Connector deleted.");
                            Ok(())
                        }
                        None => Err(HerderError::NotFound(format!("Connector {name} not found"))),
                    };
                    self.persist();
                    let _ = reply.send(result);
                }
                Request::SetTarget(name, target, reply) => {
                    let result = self.set_target(&name, target).await;
                    self.persist();
                    let _ = reply.send(result);
                }
                Request::Restart {
                    name,
                    include_tasks,
                    only_failed,
                    reply,
                } => {
                    let _ = reply.send(self.restart(&name, include_tasks, only_failed).await);
                }
                Request::Offsets(name, reply) => {
                    let _ = reply.send(self.offsets(&name).await);
                }
                Request::AlterOffsets {
                    name,
                    offsets,
                    auto_stop,
                    reply,
                } => {
                    let _ = reply.send(self.alter_offsets(&name, offsets, auto_stop).await);
                }
                Request::RestartTask(name, task, reply) => {
                    let _ = reply.send(self.restart_task(&name, task).await);
                }
                Request::Topics(name, reset, reply) => {
                    let _ = reply.send(self.connector_topics(&name, reset));
                }
                Request::IdleFor(d, reply) => {
                    let idle = self.worker.all_idle_for(d);
                    let _ = reply.send(idle);
                }
                Request::Shutdown(reply) => {
                    let report = self.worker.stop().await;
                    let _ = reply.send(report);
                    return;
                }
            }
        }
        self.worker.stop().await;
    }

    /// Starts connector `name` from its stored configuration, recording a start failure.
    async fn start_stored(&mut self, name: &str) {
        let Some(config) = self.connectors.get(name).map(|e| e.config.clone()) else {
            return;
        };
        let raw = RawConfig::from_pairs(format!("the configuration of connector {name}"), config);
        let failure = match connector_spec(&raw, &self.worker_config, &self.plugins) {
            Ok(spec) => self
                .worker
                .start_connector(spec)
                .await
                .err()
                .map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        };
        if let Some(entry) = self.connectors.get_mut(name) {
            entry.failure = failure;
        }
    }

    async fn set_target(&mut self, name: &str, target: TargetState) -> Result<(), HerderError> {
        let Some(entry) = self.connectors.get_mut(name) else {
            return Err(HerderError::NotFound(format!("Unknown connector {name}")));
        };
        let previous = entry.target;
        if previous == target {
            return Ok(());
        }
        entry.target = target;
        match target {
            TargetState::Started => self.start_stored(name).await,
            TargetState::Paused | TargetState::Stopped => {
                if previous == TargetState::Started {
                    let ids = self
                        .worker
                        .task_reports(name)
                        .iter()
                        .map(|t| t.id)
                        .collect();
                    self.worker.stop_connector(name).await;
                    if let Some(entry) = self.connectors.get_mut(name) {
                        entry.paused_tasks = ids;
                    }
                }
                if target == TargetState::Stopped {
                    if let Some(entry) = self.connectors.get_mut(name) {
                        entry.paused_tasks.clear();
                    }
                }
            }
        }
        info!(connector = %name, target = ?target, "Connector target state changed.");
        Ok(())
    }

    async fn restart(
        &mut self,
        name: &str,
        include_tasks: bool,
        only_failed: bool,
    ) -> Result<Option<ConnectorStateInfo>, HerderError> {
        let status = self
            .status(name)
            .map_err(|_| HerderError::NotFound(format!("Unknown connector: {name}")))?;
        if self
            .connectors
            .get(name)
            .is_some_and(|e| e.target != TargetState::Started)
        {
            // A paused or stopped connector restarts when resumed.
            return Ok((include_tasks || only_failed).then_some(status));
        }
        let connector_restarts = !only_failed || status.connector.state == "FAILED";
        let task_restarts: Vec<u32> = status
            .tasks
            .iter()
            .filter(|t| include_tasks && (!only_failed || t.state == "FAILED"))
            .map(|t| t.id)
            .collect();
        let mut reply = status.clone();
        if connector_restarts {
            reply.connector.state = "RESTARTING".to_owned();
        }
        for t in &mut reply.tasks {
            if task_restarts.contains(&t.id) {
                t.state = "RESTARTING".to_owned();
            }
        }
        if connector_restarts && status.connector.state == "FAILED" {
            // The connector never started: start it (and so its tasks) again.
            self.worker.stop_connector(name).await;
            self.start_stored(name).await;
        } else {
            // The connector instance only planned the tasks; the selected tasks restart alone,
            // each from its committed offsets.
            for id in task_restarts {
                self.restart_task(name, id).await?;
            }
        }
        if connector_restarts {
            info!(connector = %name, "Connector restarted.");
        }
        Ok((include_tasks || only_failed).then_some(reply))
    }

    /// `config` with the values of secret keys replaced by `[hidden]`: keys of type PASSWORD in
    /// the connector's plugin or the framework, and client settings named like secrets
    /// (`*password`, `sasl.jaas.config`, `ssl.keystore.key`). A value that is nothing but config provider
    /// placeholders is shown as written, as Kafka shows it: it names where the secret is,
    /// not the secret.
    fn masked(&self, config: &ConfigMap) -> ConfigMap {
        let plugin = config
            .get("connector.class")
            .and_then(|c| self.plugins.connector(c).ok());
        let kind = match plugin {
            Some(ConnectorPlugin::Sink(_)) => crate::config::ConnectorKind::Sink,
            _ => crate::config::ConnectorKind::Source,
        };
        let def =
            crate::config::connector_def(kind, &plugin.map(|p| p.config_def()).unwrap_or_default());
        config
            .iter()
            .map(|(k, v)| {
                let secret = def
                    .key(k)
                    .is_some_and(|key| key.config_type == connect_api::ConfigType::Password)
                    || k.ends_with("password")
                    || k.ends_with("sasl.jaas.config")
                    || k.ends_with("ssl.keystore.key");
                let shown = if secret && !crate::config::providers::only_placeholders(v) {
                    "[hidden]".to_owned()
                } else {
                    v.clone()
                };
                (k.clone(), shown)
            })
            .collect()
    }

    async fn restart_task(&mut self, name: &str, task: u32) -> Result<(), HerderError> {
        if !self.connectors.contains_key(name) {
            return Err(HerderError::NotFound(format!("Unknown connector: {name}")));
        }
        match self.worker.restart_task(name, task).await {
            Ok(true) => Ok(()),
            // Kafka Connect's standalone herder: `Task <c>-<t> not found`.
            Ok(false) => Err(HerderError::NotFound(format!(
                "Task {name}-{task} not found"
            ))),
            Err(e) => Err(HerderError::Internal(format!(
                "Task {name}-{task} could not be restarted: {e}"
            ))),
        }
    }

    fn connector_topics(&mut self, name: &str, reset: bool) -> Result<Vec<String>, HerderError> {
        if !self.worker_config.topic_tracking_enable() {
            return Err(HerderError::Forbidden(
                "Topic tracking is disabled.".to_owned(),
            ));
        }
        if reset && !self.worker_config.topic_tracking_allow_reset() {
            return Err(HerderError::Forbidden(
                "Topic tracking reset is disabled.".to_owned(),
            ));
        }
        let used = self.worker.take_topics(name);
        let known = self.topics.entry(name.to_owned()).or_default();
        if reset {
            known.clear();
        } else {
            known.extend(used);
        }
        Ok(known.iter().cloned().collect())
    }

    /// The consumer group of sink connector `name` (from its configuration).
    fn sink_group(&self, name: &str) -> Result<String, HerderError> {
        let entry = self.entry(name)?;
        let raw = RawConfig::from_pairs(
            format!("the configuration of connector {name}"),
            entry.config.clone(),
        );
        let spec = connector_spec(&raw, &self.worker_config, &self.plugins)
            .map_err(|e| HerderError::Internal(e.to_string()))?;
        Ok(spec
            .consumer_overrides
            .get("group.id")
            .cloned()
            .unwrap_or_else(|| format!("connect-{name}")))
    }

    async fn offsets(&mut self, name: &str) -> Result<serde_json::Value, HerderError> {
        let entry = self.entry(name)?;
        match entry.connector_type {
            ConnectorType::Sink => {
                let group = self.sink_group(name)?;
                let backend = self.worker.topic_backend();
                let offsets = tokio::task::spawn_blocking(move || backend.group_offsets(&group))
                    .await
                    .map_err(|e| HerderError::Internal(e.to_string()))?
                    .map_err(|e| HerderError::Internal(e.to_string()))?;
                Ok(super::offsets::sink_offsets(&offsets))
            }
            _ => Ok(super::offsets::source_offsets(
                self.worker.offset_store().connector_offsets(name),
            )),
        }
    }

    async fn alter_offsets(
        &mut self,
        name: &str,
        offsets: Option<Vec<serde_json::Value>>,
        auto_stop: bool,
    ) -> Result<String, HerderError> {
        let (target, connector_type) = {
            let entry = self.entry(name)?;
            (entry.target, entry.connector_type)
        };
        if offsets.as_ref().is_some_and(Vec::is_empty) {
            return Err(HerderError::BadRequest(
                "Partitions / offsets need to be provided for an alter offsets request".to_owned(),
            ));
        }
        if target != TargetState::Stopped && !auto_stop {
            return Err(HerderError::BadRequest(format!(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
            )));
        }
        // Check the request before stopping anything.
        let source_entries = match (connector_type, &offsets) {
            (ConnectorType::Sink, _) | (_, None) => None,
            (_, Some(list)) => Some(super::offsets::parse_source(list)?),
        };
        let sink_changes = match (connector_type, &offsets) {
            (ConnectorType::Sink, Some(list)) => Some(super::offsets::parse_sink(list)?),
            _ => None,
        };
        if target != TargetState::Stopped {
            self.set_target(name, TargetState::Stopped).await?;
        }
        let result = match connector_type {
            ConnectorType::Sink => {
                let group = self.sink_group(name)?;
                let backend = self.worker.topic_backend();
                tokio::task::spawn_blocking(move || match sink_changes {
                    Some(changes) => backend.alter_group_offsets(&group, &changes),
                    None => backend.delete_group(&group),
                })
                .await
                .map_err(|e| HerderError::Internal(e.to_string()))
                .and_then(|r| r.map_err(|e| HerderError::Internal(e.to_string())))
            }
            _ => {
                let store = self.worker.offset_store();
                let entries = source_entries.unwrap_or_else(|| {
                    store
                        .connector_offsets(name)
                        .into_iter()
                        .map(|(p, _)| (Arc::new(p), None))
                        .collect()
                });
                store
                    .put(name, entries)
                    .await
                    .map_err(|e| HerderError::Internal(e.to_string()))
            }
        };
        if target != TargetState::Stopped {
            self.set_target(name, target).await?;
        }
        result?;
        Ok(if offsets.is_some() {
            "The offsets for this connector have been altered successfully".to_owned()
        } else {
            "The offsets for this connector have been reset successfully".to_owned()
        })
    }

    fn entry(&self, name: &str) -> Result<&Entry, HerderError> {
        self.connectors
            .get(name)
            .ok_or_else(|| HerderError::NotFound(format!("Connector {name} not found")))
    }

    fn info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        let entry = self.entry(name)?;
        let ids: Vec<u32> = match entry.target {
            TargetState::Started => self
                .worker
                .task_reports(name)
                .iter()
                .map(|t| t.id)
                .collect(),
            TargetState::Paused | TargetState::Stopped => entry.paused_tasks.clone(),
        };
        Ok(ConnectorInfo {
            name: name.to_owned(),
            config: self.masked(&entry.config),
            tasks: ids
                .into_iter()
                .map(|task| TaskId {
                    connector: name.to_owned(),
                    task,
                })
                .collect(),
            connector_type: entry.connector_type,
        })
    }

    /// The version of the connector plugin named by `entry`'s `connector.class` (connector and
    /// tasks report the plugin's version, as Kafka Connect 4.x); `None` when the plugin is
    /// unknown or has no version.
    fn plugin_version(&self, entry: &Entry) -> Option<String> {
        let class = entry.config.get("connector.class")?;
        let version = self.plugins.connector(class).ok()?.desc().version;
        (version != "undefined").then(|| version.to_owned())
    }

    fn status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        let entry = self.connectors.get(name).ok_or_else(|| {
            HerderError::NotFound(format!("No status found for connector {name}"))
        })?;
        let version = self.plugin_version(entry);
        let state = |s: &str, trace: Option<String>| StateInfo {
            state: s.to_owned(),
            worker_id: self.worker_id.clone(),
            trace,
            version: version.clone(),
        };
        let connector = match (&entry.failure, entry.target) {
            (_, TargetState::Paused) => state("PAUSED", None),
            (_, TargetState::Stopped) => state("STOPPED", None),
            (Some(f), TargetState::Started) => state("FAILED", Some(f.clone())),
            (None, TargetState::Started) => state("RUNNING", None),
        };
        if entry.target == TargetState::Paused {
            let tasks = entry
                .paused_tasks
                .iter()
                .map(|&id| TaskStateInfo {
                    id,
                    state: "PAUSED".to_owned(),
                    worker_id: self.worker_id.clone(),
                    trace: None,
                    version: version.clone(),
                    errors: None,
                })
                .collect();
            return Ok(ConnectorStateInfo {
                name: name.to_owned(),
                connector,
                tasks,
                connector_type: entry.connector_type,
            });
        }
        let tasks = self
            .worker
            .task_reports(name)
            .into_iter()
            .map(|t| {
                let (s, trace) = match t.activity {
                    Activity::Busy | Activity::Idle(_) => ("RUNNING", None),
                    Activity::Failed => ("FAILED", t.error),
                    Activity::Stopped => ("UNASSIGNED", None),
                    Activity::Restarting => ("RESTARTING", t.error),
                };
                TaskStateInfo {
                    id: t.id,
                    state: s.to_owned(),
                    worker_id: self.worker_id.clone(),
                    trace,
                    version: version.clone(),
                    errors: Some(t.errors),
                }
            })
            .collect();
        Ok(ConnectorStateInfo {
            name: name.to_owned(),
            connector,
            tasks,
            connector_type: entry.connector_type,
        })
    }

    async fn put_with_state(
        &mut self,
        name: String,
        config: ConfigMap,
        allow_replace: bool,
        initial: TargetState,
    ) -> Result<(bool, ConnectorInfo), HerderError> {
        let exists = self.connectors.contains_key(&name);
        if exists && !allow_replace {
            return Err(HerderError::Conflict(format!(
                "Connector {name} already exists"
            )));
        }
        let raw = RawConfig::from_pairs(
            format!("the configuration of connector {name}"),
            config.clone(),
        );
        let spec = connector_spec(&raw, &self.worker_config, &self.plugins)
            .map_err(|e| invalid_config(&e))?;
        if !exists && initial != TargetState::Started {
            self.connectors.insert(
                name.clone(),
                Entry {
                    config,
                    connector_type: connector_type(&spec),
                    failure: None,
                    target: initial,
                    paused_tasks: Vec::new(),
                },
            );
            info!(connector = %name, target = ?initial, "Connector created without starting it.");
            return Ok((true, self.info(&name)?));
        }
        let target = self
            .connectors
            .get(&name)
            .map_or(TargetState::Started, |e| e.target);
        if target != TargetState::Started {
            // A paused or stopped connector keeps its state; the new configuration applies
            // when it is resumed.
            if let Some(entry) = self.connectors.get_mut(&name) {
                entry.config = config;
            }
            return Ok((false, self.info(&name)?));
        }
        if exists {
            self.worker.stop_connector(&name).await;
        }
        let connector_type = connector_type(&spec);
        let failure = match self.worker.start_connector(spec).await {
            Ok(()) => None,
            Err(e) => {
                warn!(connector = %name, error = %e, "Connector failed to start.");
                Some(e.to_string())
            }
        };
        self.connectors.insert(
            name.clone(),
            Entry {
                config,
                connector_type,
                failure,
                target: TargetState::Started,
                paused_tasks: Vec::new(),
            },
        );
        info!(connector = %name, created = !exists, "Connector configuration stored.");
        Ok((!exists, self.info(&name)?))
    }
}
