//! The herder core shared by the standalone and distributed herders: the connectors this
//! worker knows (configuration, type, target state, start failure), the worker that runs
//! them, and the answers and actions that do not depend on where configurations are stored:
//! connector info and status, task configurations, secret masking, topic tracking, offsets
//! (read, alter, reset), restarts and target-state changes applied to the local worker.

use std::collections::BTreeMap;
use std::sync::Arc;

use connect_api::ConfigMap;
use tracing::{info, warn};

use super::entities::{
    ConnectorInfo, ConnectorStateInfo, ConnectorType, StateInfo, TaskId, TaskStateInfo,
};
use super::spec::{connector_spec, SpecError};
use super::{HerderError, TargetState};
use crate::config::{RawConfig, WorkerConfig, CONNECTOR_CLASS_CONFIG};
use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::worker::connector_events::ConnectorEvent;
use crate::worker::{Activity, ConnectorSpec, Worker};
use tokio::sync::mpsc::UnboundedReceiver;

mod offsets;

/// The spec of a connector's configuration, or why it cannot be built (a stored configuration
/// that does not validate here, a plugin this worker lacks).
pub(crate) type KeptSpec = Result<Arc<ConnectorSpec>, Arc<SpecError>>;

/// What the herder knows of one connector.
pub(crate) struct Entry {
    /// The configuration as submitted (placeholders not resolved); REST shows it masked.
    pub(crate) config: ConfigMap,
    /// The spec built from `config` when it was accepted, read from the store or last started.
    pub(crate) spec: KeptSpec,
    pub(crate) connector_type: ConnectorType,
    /// Why the connector failed to start, if it did.
    pub(crate) failure: Option<String>,
    pub(crate) target: TargetState,
    /// Task ids while paused (the task list is kept, as in Kafka Connect).
    pub(crate) paused_tasks: Vec<u32>,
}

impl Entry {
    /// The connector's plugin: the kept spec's; for a configuration that makes no spec, the
    /// plugin its `connector.class` names, if this worker has it.
    pub(crate) fn plugin(&self, plugins: &PluginRegistry) -> Option<ConnectorPlugin> {
        match &self.spec {
            Ok(spec) => Some(spec.plugin.clone()),
            Err(_) => self
                .config
                .get(CONNECTOR_CLASS_CONFIG)
                .and_then(|c| plugins.connector(c).ok()),
        }
    }
}

/// The state and actions both herders share.
pub struct HerderCore {
    /// The data plane.
    pub(crate) worker: Worker,
    pub(crate) worker_config: Arc<WorkerConfig>,
    pub(crate) plugins: Arc<PluginRegistry>,
    /// `host:port` of this worker's REST listener (Kafka Connect's `worker_id`).
    pub(crate) worker_id: String,
    pub(crate) connectors: BTreeMap<String, Entry>,
    /// Replies held until the start of a connector under way ends (the request that began
    /// it is answered then; every other request is answered meanwhile).
    start_waiters: BTreeMap<String, Vec<StartWaiter>>,
}

/// A reply held until a connector's start ends: given the connector's info then (`None` when
/// it has none, e.g. it was deleted meanwhile).
pub(crate) type StartWaiter = Box<dyn FnOnce(Option<ConnectorInfo>) + Send>;

pub(crate) fn connector_type(spec: &ConnectorSpec) -> ConnectorType {
    match spec.plugin {
        ConnectorPlugin::Source(_) => ConnectorType::Source,
        ConnectorPlugin::Sink(_) => ConnectorType::Sink,
    }
}

/// The next request of a running connector; pending forever when there is no receiver.
pub(crate) async fn next_event(
    events: &mut Option<UnboundedReceiver<ConnectorEvent>>,
) -> Option<ConnectorEvent> {
    match events {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// Kafka Connect's message for a configuration that does not validate.
pub(crate) fn invalid_config(e: &SpecError) -> HerderError {
    HerderError::BadRequest(super::validate::before_write::invalid_config_text(
        &e.problems(),
    ))
}

impl HerderCore {
    /// A core driving `worker`, knowing no connector yet.
    pub fn new(
        worker: Worker,
        worker_config: Arc<WorkerConfig>,
        plugins: Arc<PluginRegistry>,
        worker_id: String,
    ) -> Self {
        Self {
            worker,
            worker_config,
            plugins,
            worker_id,
            connectors: BTreeMap::new(),
            start_waiters: BTreeMap::new(),
        }
    }

    /// Answers a running connector's request (standalone mode): a reconfiguration replaces
    /// its tasks when the planned configurations differ from the running ones; a background
    /// failure marks the connector FAILED.
    pub(crate) async fn on_connector_event(&mut self, event: ConnectorEvent) {
        match event {
            ConnectorEvent::Reconfigure(name) => {
                let planned = match self.worker.plan_tasks(&name) {
                    None => return,
                    Some(Ok(planned)) => planned,
                    Some(Err(e)) => return self.fail(&name, e.to_string()),
                };
                if let Some(failure) = self.replace_changed_tasks(&name, planned).await {
                    self.fail(&name, failure);
                }
            }
            ConnectorEvent::Failed(name, message) => self.fail(&name, message),
            ConnectorEvent::InstanceLost(name, reason) => {
                if !self.worker.runs_connector(&name) {
                    return;
                }
                warn!(connector = %name, reason = %reason, "The connector's instance was lost; starting a new one (its tasks keep running).");
                self.worker.stop_connector_instance(&name).await;
                self.start_stored(&name);
            }
            ConnectorEvent::Started(outcome) => {
                let name = outcome.connector().to_owned();
                let failure = match self.worker.finish_connector_start(outcome) {
                    None => return,
                    // Tasks that still run (only the instance was started again, after it
                    // was lost) are replaced only when the new plan differs.
                    Some(Ok((_, task_configs))) if !self.worker.task_reports(&name).is_empty() => {
                        self.replace_changed_tasks(&name, task_configs).await
                    }
                    Some(Ok((spec, task_configs))) => self
                        .worker
                        .start_tasks(&spec, task_configs)
                        .err()
                        .map(|e| e.to_string()),
                    Some(Err(e)) => Some(e.to_string()),
                };
                if let Some(f) = &failure {
                    warn!(connector = %name, error = %f, "Connector failed to start.");
                }
                if let Some(entry) = self.connectors.get_mut(&name) {
                    entry.failure = failure;
                }
            }
        }
    }

    /// Replaces connector `name`'s running tasks by `planned` when their configurations
    /// differ; the failure, if the replacement failed.
    async fn replace_changed_tasks(
        &mut self,
        name: &str,
        planned: Vec<ConfigMap>,
    ) -> Option<String> {
        let mut running = self.worker.task_reports(name);
        running.sort_by_key(|t| t.id);
        let current: Vec<&ConfigMap> = running.iter().map(|t| &t.config).collect();
        if current.len() == planned.len() && current.iter().zip(&planned).all(|(a, b)| *a == b) {
            return None;
        }
        info!(connector = %name, tasks = planned.len(), "Reconfiguring the connector's tasks.");
        self.worker
            .replace_tasks(name, planned)
            .await
            .err()
            .map(|e| e.to_string())
    }

    /// Holds `waiter` until connector `name`'s start ends, when one is under way here; calls
    /// it at once (with `None`) otherwise.
    pub(crate) fn reply_when_started(&mut self, name: &str, waiter: StartWaiter) {
        if self.worker.is_starting(name) {
            self.start_waiters
                .entry(name.to_owned())
                .or_default()
                .push(waiter);
        } else {
            waiter(None);
        }
    }

    /// Takes the held replies of the connectors whose start is no longer under way (it ended,
    /// or was abandoned), to be answered with `info`.
    pub(crate) fn take_ended_waiters(&mut self) -> Vec<(String, Vec<StartWaiter>)> {
        let ended: Vec<String> = self
            .start_waiters
            .keys()
            .filter(|name| !self.worker.is_starting(name))
            .cloned()
            .collect();
        ended
            .into_iter()
            .filter_map(|name| {
                let waiters = self.start_waiters.remove(&name)?;
                Some((name, waiters))
            })
            .collect()
    }

    /// Marks connector `name` FAILED with `message` (its tasks keep their own state).
    fn fail(&mut self, name: &str, message: String) {
        warn!(connector = %name, error = %message, "The connector failed.");
        if let Some(entry) = self.connectors.get_mut(name) {
            entry.failure = Some(message);
        }
    }

    /// The names of the known connectors, sorted.
    pub(crate) fn connector_names(&self) -> Vec<String> {
        self.connectors.keys().cloned().collect()
    }

    /// The task configurations of connector `name`, masked.
    pub(crate) fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        self.entry(name).map(|_| {
            self.worker
                .task_reports(name)
                .into_iter()
                .map(|t| {
                    let id = TaskId {
                        connector: name.to_owned(),
                        task: t.id,
                    };
                    (id, self.masked(&t.config))
                })
                .collect()
        })
    }

    /// Stops and forgets connector `name`.
    pub(crate) async fn delete(&mut self, name: &str) -> Result<(), HerderError> {
        match self.connectors.remove(name) {
            Some(_) => {
                self.worker.stop_connector(name).await;
                self.worker.take_topics(name);
                info!(connector = %name, "Connector deleted.");
                Ok(())
            }
            None => Err(HerderError::NotFound(format!("Connector {name} not found"))),
        }
    }

    /// Begins starting connector `name` from its stored configuration (the end arrives as a
    /// connector event), recording a configuration that makes no spec as a start failure.
    ///
    /// The spec is built anew, as Kafka Connect transforms the configuration at each start:
    /// config-provider placeholders resolve to their values of now (a rotated secret). The
    /// entry keeps the new spec.
    pub(crate) fn start_stored(&mut self, name: &str) {
        let Some(config) = self.connectors.get(name).map(|e| e.config.clone()) else {
            return;
        };
        let spec = self.build_spec(name, config);
        let failure = match &spec {
            Ok(spec) => {
                self.worker.begin_connector_start(spec);
                None
            }
            Err(e) => Some(e.to_string()),
        };
        if let Some(entry) = self.connectors.get_mut(name) {
            entry.spec = spec;
            entry.failure = failure;
        }
    }

    /// The spec of connector `name`'s configuration `config` (placeholders resolved now).
    pub(crate) fn build_spec(&self, name: &str, config: ConfigMap) -> KeptSpec {
        let raw = RawConfig::from_pairs(format!("the configuration of connector {name}"), config);
        connector_spec(&raw, &self.worker_config, &self.plugins)
            .map(Arc::new)
            .map_err(Arc::new)
    }

    pub(crate) async fn set_target(
        &mut self,
        name: &str,
        target: TargetState,
    ) -> Result<(), HerderError> {
        let Some(entry) = self.connectors.get_mut(name) else {
            return Err(HerderError::NotFound(format!("Unknown connector {name}")));
        };
        let previous = entry.target;
        if previous == target {
            return Ok(());
        }
        entry.target = target;
        match target {
            TargetState::Started => self.start_stored(name),
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

    pub(crate) async fn restart(
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
            self.start_stored(name);
        } else {
            if connector_restarts {
                // A new instance of the connector (as Kafka Connect restarts it); its tasks keep
                // running unless it plans other configurations.
                self.worker.stop_connector_instance(name).await;
                self.start_stored(name);
            }
            // The selected tasks restart, each from its committed offsets.
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
    pub(crate) fn masked(&self, config: &ConfigMap) -> ConfigMap {
        let plugin = config
            .get(CONNECTOR_CLASS_CONFIG)
            .and_then(|c| self.plugins.connector(c).ok());
        Self::masked_with(plugin, config)
    }

    /// Connector `entry`'s configuration as submitted, masked as [`Self::masked`] does with
    /// the entry's plugin.
    pub(crate) fn masked_config(&self, entry: &Entry) -> ConfigMap {
        Self::masked_with(entry.plugin(&self.plugins), &entry.config)
    }

    /// `config` masked with the secret keys of `plugin` (of the framework alone without one).
    fn masked_with(plugin: Option<ConnectorPlugin>, config: &ConfigMap) -> ConfigMap {
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

    pub(crate) async fn restart_task(&mut self, name: &str, task: u32) -> Result<(), HerderError> {
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

    /// Kafka Connect's refusals of `GET /connectors/{c}/topics` (and, with `reset`, of
    /// `PUT .../topics/reset`) when `topic.tracking.enable` (`topic.tracking.allow.reset`)
    /// is false.
    pub(crate) fn check_topic_tracking(&self, reset: bool) -> Result<(), HerderError> {
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
        Ok(())
    }

    pub(crate) fn entry(&self, name: &str) -> Result<&Entry, HerderError> {
        self.connectors
            .get(name)
            .ok_or_else(|| HerderError::NotFound(format!("Connector {name} not found")))
    }

    pub(crate) fn info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
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
        Ok(self.connector_info(name, entry, ids))
    }

    /// `GET /connectors/{c}`'s answer: `entry`'s masked configuration and the task ids `ids`.
    pub(crate) fn connector_info(&self, name: &str, entry: &Entry, ids: Vec<u32>) -> ConnectorInfo {
        ConnectorInfo {
            name: name.to_owned(),
            config: self.masked_config(entry),
            tasks: ids
                .into_iter()
                .map(|task| TaskId {
                    connector: name.to_owned(),
                    task,
                })
                .collect(),
            connector_type: entry.connector_type,
        }
    }

    /// The version of `entry`'s connector plugin (connector and tasks report the plugin's
    /// version, as Kafka Connect 4.x); `None` when the plugin is unknown or has no version.
    pub(crate) fn plugin_version(&self, entry: &Entry) -> Option<String> {
        let plugin = entry.plugin(&self.plugins)?;
        let version = plugin.desc().version;
        (version != "undefined").then(|| version.to_owned())
    }

    /// Sets the worker-wide metrics from every connector's status (the standalone worker runs
    /// them all).
    pub(crate) fn refresh_metrics(&self) {
        let connectors = self
            .connectors
            .keys()
            .filter_map(|name| {
                let status = self.status(name).ok()?;
                let tasks = status.tasks.into_iter().map(|t| (t.id, t.state)).collect();
                Some(self.metrics_snapshot(name, Some(status.connector.state), tasks))
            })
            .collect();
        self.worker
            .metrics()
            .refresh(&crate::metrics::WorkerSnapshot { connectors });
    }

    /// Connector `name` for the worker-wide metrics: its state (when its instance runs here)
    /// and its tasks' states here, with its type, class and plugin version.
    pub(crate) fn metrics_snapshot(
        &self,
        name: &str,
        state: Option<String>,
        tasks: Vec<(u32, String)>,
    ) -> crate::metrics::ConnectorSnapshot {
        let entry = self.connectors.get(name);
        crate::metrics::ConnectorSnapshot {
            name: name.to_owned(),
            state,
            connector_type: match entry.map(|e| e.connector_type) {
                Some(ConnectorType::Source) => "source",
                Some(ConnectorType::Sink) => "sink",
                Some(ConnectorType::Unknown) | None => "unknown",
            }
            .to_owned(),
            class: entry
                .and_then(|e| e.config.get(CONNECTOR_CLASS_CONFIG).cloned())
                .unwrap_or_default(),
            version: entry
                .and_then(|e| self.plugin_version(e))
                .unwrap_or_default(),
            tasks,
        }
    }

    pub(crate) fn status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
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
            // Its start is under way: not running yet (Kafka Connect writes no status until
            // the connector's start returns).
            (None, TargetState::Started) if self.worker.is_starting(name) => {
                state("UNASSIGNED", None)
            }
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

    pub(crate) async fn put_with_state(
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
        let spec = Arc::new(
            connector_spec(&raw, &self.worker_config, &self.plugins)
                .map_err(|e| invalid_config(&e))?,
        );
        if !exists && initial != TargetState::Started {
            self.connectors.insert(
                name.clone(),
                Entry {
                    config,
                    connector_type: connector_type(&spec),
                    spec: Ok(spec),
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
                entry.spec = Ok(spec);
            }
            return Ok((false, self.info(&name)?));
        }
        if exists {
            self.worker.stop_connector(&name).await;
        }
        let connector_type = connector_type(&spec);
        // The start runs on its own task; its end is a connector event (Kafka Connect's
        // WorkerConnector on the worker's executor).
        self.worker.begin_connector_start(&spec);
        self.connectors.insert(
            name.clone(),
            Entry {
                config,
                spec: Ok(spec),
                connector_type,
                failure: None,
                target: TargetState::Started,
                paused_tasks: Vec::new(),
            },
        );
        info!(connector = %name, created = !exists, "Connector configuration stored.");
        Ok((!exists, self.info(&name)?))
    }
}
