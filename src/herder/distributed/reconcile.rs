//! Bringing what runs on this worker in line with the config topic and the assignment:
//! connector instances and tasks that are no longer assigned here, or whose configuration
//! changed, stop; assigned ones that do not run start. Only what changes is touched, so a
//! rebalance that moves other work leaves these tasks running (incremental cooperative).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use connect_api::ConfigMap;
use tracing::{info, warn};

use super::herder::{config_map, DistributedHerder};
use crate::herder::core::{connector_type, Entry};
use crate::herder::{
    ConnectorInfo, ConnectorStateInfo, ConnectorType, HerderError, TargetState, TaskId,
};
use crate::storage::internal::{ConfigProps, ConfigRecord};

/// Why the spec of a connector's current configuration cannot be built.
#[derive(Debug, thiserror::Error)]
pub(super) enum CurrentSpecError {
    /// The config topic holds no configuration of the connector.
    #[error("Connector {0} has no configuration")]
    NoConfiguration(String),
    /// Its configuration does not make a spec.
    #[error(transparent)]
    Spec(#[from] crate::herder::spec::SpecError),
}

impl DistributedHerder {
    /// Connectors assigned here that should run (a configuration, target STARTED).
    fn desired_connectors(&self) -> BTreeSet<String> {
        self.assignment
            .connectors
            .iter()
            .filter(|c| {
                self.configs.snapshot().contains(c)
                    && self.configs.snapshot().target_state(c) == TargetState::Started
            })
            .cloned()
            .collect()
    }

    /// Tasks assigned here that should run, with their configuration.
    pub(super) fn desired_tasks(&self) -> BTreeMap<(String, u32), ConfigProps> {
        let mut desired = BTreeMap::new();
        for task in &self.assignment.tasks {
            let c = &task.connector;
            let Ok(id) = u32::try_from(task.task) else {
                continue;
            };
            if !self.configs.snapshot().contains(c)
                || self.configs.snapshot().target_state(c) != TargetState::Started
                || self.configs.snapshot().inconsistent().contains(c)
            {
                continue;
            }
            if let Some(config) = self.configs.snapshot().task_config(c, id) {
                desired.insert((c.clone(), id), config.clone());
            }
        }
        desired
    }

    /// Keeps the core's entries (configuration, type, target state) equal to the config
    /// topic's connectors, for the answers every worker gives.
    fn sync_entries(&mut self) {
        let names: BTreeSet<String> = self.configs.snapshot().connectors().into_iter().collect();
        self.core.connectors.retain(|n, _| names.contains(n));
        for name in names {
            let Some(stored) = self.configs.snapshot().connector_config(&name).cloned() else {
                continue;
            };
            let config = config_map(&stored);
            let target = self.configs.snapshot().target_state(&name);
            let paused_tasks = self.configs.snapshot().tasks(&name);
            let known = self
                .core
                .connectors
                .get(&name)
                .is_some_and(|e| e.config == config);
            if !known {
                let spec = self.stored_spec(&name, &stored);
                let kind = spec
                    .as_ref()
                    .map_or(ConnectorType::Unknown, |s| connector_type(s));
                self.core.connectors.insert(
                    name.clone(),
                    Entry {
                        config,
                        spec,
                        connector_type: kind,
                        failure: None,
                        target,
                        paused_tasks,
                    },
                );
            } else if let Some(entry) = self.core.connectors.get_mut(&name) {
                entry.target = target;
                entry.paused_tasks = paused_tasks;
            }
        }
    }

    /// Stops and starts connector instances and tasks until this worker runs exactly what it
    /// is assigned, with the stored configurations.
    pub(super) async fn reconcile(&mut self) {
        self.sync_entries();
        let desired = self.desired_connectors();
        let running: Vec<(String, ConfigProps)> = self
            .running_connectors
            .iter()
            .map(|(n, c)| (n.clone(), c.clone()))
            .collect();
        for (name, config) in running {
            if !desired.contains(&name)
                || self.configs.snapshot().connector_config(&name) != Some(&config)
            {
                self.core.worker.stop_connector_instance(&name).await;
                self.running_connectors.remove(&name);
                info!(connector = %name, "Connector stopped on this worker.");
            }
        }
        for name in desired {
            if !self.running_connectors.contains_key(&name) {
                self.start_connector_here(&name);
            }
        }
        let desired_tasks = self.desired_tasks();
        let running: Vec<((String, u32), (ConfigProps, ConfigProps))> = self
            .running_tasks
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // A task restarts when its task configurations were written again: they changed, or
        // they were planned from another connector configuration (as Kafka Connect, which
        // leaves a task running on a connector configuration change until then).
        for (key, (task_config, applied)) in running {
            let same = desired_tasks.get(&key) == Some(&task_config)
                && self.applied_config(&key.0) == Some(&applied);
            if !same {
                self.core.worker.stop_task(&key.0, key.1).await;
                self.running_tasks.remove(&key);
                info!(connector = %key.0, task = key.1, "Task stopped on this worker.");
            }
        }
        self.task_failures
            .retain(|key, _| desired_tasks.contains_key(key));
        for (key, config) in desired_tasks {
            if !self.running_tasks.contains_key(&key) && !self.task_failures.contains_key(&key) {
                self.start_task_here(&key.0, key.1, config);
            }
        }
    }

    /// Whether this worker runs what it should for now: it joined the group (when there is
    /// one) and no rejoin is pending, every connector assigned here runs (or failed) with task configurations planned
    /// from its current configuration, and every task assigned here runs (or failed). Until
    /// then `--exit-when-idle` does not count the worker as idle.
    pub(super) fn settled(&self) -> bool {
        if self
            .group
            .as_ref()
            .is_some_and(|g| g.leader_url.is_none() || g.rejoining)
        {
            return false;
        }
        let connectors_planned = self.desired_connectors().iter().all(|c| {
            let failed = self
                .core
                .connectors
                .get(c)
                .is_some_and(|e| e.failure.is_some());
            failed
                || (self.running_connectors.contains_key(c)
                    && !self.core.worker.is_starting(c)
                    && !self.configs.snapshot().inconsistent().contains(c)
                    && self.configs.snapshot().applied_connector_config(c)
                        == self.configs.snapshot().connector_config(c))
        });
        connectors_planned
            && self
                .desired_tasks()
                .keys()
                .all(|k| self.running_tasks.contains_key(k) || self.task_failures.contains_key(k))
    }

    /// The spec of `name`'s stored configuration `stored`: the one built when this worker
    /// accepted it, else built now (and kept for its tasks).
    fn stored_spec(&mut self, name: &str, stored: &ConfigProps) -> crate::herder::core::KeptSpec {
        if let Some((config, spec)) = self.specs.get(name) {
            if config == stored {
                return Ok(spec.clone());
            }
        }
        let spec = Arc::new(self.spec(name, &config_map(stored)).map_err(Arc::new)?);
        self.specs
            .insert(name.to_owned(), (stored.clone(), spec.clone()));
        Ok(spec)
    }

    /// The spec of `name`'s current configuration (built once per configuration).
    pub(super) fn current_spec(
        &mut self,
        name: &str,
    ) -> Result<Arc<crate::worker::ConnectorSpec>, CurrentSpecError> {
        let stored = self
            .configs
            .snapshot()
            .connector_config(name)
            .cloned()
            .ok_or_else(|| CurrentSpecError::NoConfiguration(name.to_owned()))?;
        if let Some((config, spec)) = self.specs.get(name) {
            if *config == stored {
                return Ok(spec.clone());
            }
        }
        let spec = Arc::new(self.spec(name, &config_map(&stored))?);
        self.specs.insert(name.to_owned(), (stored, spec.clone()));
        Ok(spec)
    }

    pub(super) fn fail_connector(&mut self, name: &str, reason: String) {
        warn!(connector = %name, error = %reason, "Connector failed to start.");
        if let Some(entry) = self.core.connectors.get_mut(name) {
            entry.failure = Some(reason);
        }
    }

    /// Begins starting connector `name`'s instance here (on its own task: the herder goes on
    /// answering); when it has started, the task configurations it plans are stored if they
    /// differ from the stored ones (`on_connector_event`).
    fn start_connector_here(&mut self, name: &str) {
        let Some(stored) = self.configs.snapshot().connector_config(name).cloned() else {
            return;
        };
        // Marked as running (also when it fails) so a failure is not retried in a loop; a
        // new configuration or a restart tries again.
        self.running_connectors.insert(name.to_owned(), stored);
        let spec = match self.current_spec(name) {
            Ok(spec) => spec,
            Err(e) => return self.fail_connector(name, e.to_string()),
        };
        if let Some(entry) = self.core.connectors.get_mut(name) {
            entry.failure = None;
        }
        self.core.worker.begin_connector_start(&spec);
    }

    /// The connector configuration that `name`'s task configurations were planned from (its
    /// current one when no complete commit recorded any).
    fn applied_config(&self, name: &str) -> Option<&ConfigProps> {
        self.configs
            .snapshot()
            .applied_connector_config(name)
            .or_else(|| self.configs.snapshot().connector_config(name))
    }

    /// Starts task `id` of connector `name` here with the connector's current configuration
    /// (its converters, transforms and error handling) and task configuration `config`.
    fn start_task_here(&mut self, name: &str, id: u32, config: ConfigProps) {
        let Some(applied) = self.applied_config(name).cloned() else {
            return;
        };
        let spec = match self.current_spec(name) {
            Ok(spec) => spec,
            Err(e) => {
                self.task_failures
                    .insert((name.to_owned(), id), e.to_string());
                return;
            }
        };
        let members = self.configs.snapshot().tasks(name).len();
        let generation = self
            .configs
            .snapshot()
            .task_config_generation(name)
            .unwrap_or(0);
        match self
            .core
            .worker
            .start_task(&spec, id, config_map(&config), members, generation)
        {
            Ok(()) => {
                info!(connector = %name, task = id, "Task started on this worker.");
                self.running_tasks
                    .insert((name.to_owned(), id), (config, applied));
            }
            Err(e) => {
                warn!(connector = %name, task = id, error = %e, "Task failed to start.");
                self.task_failures
                    .insert((name.to_owned(), id), e.to_string());
            }
        }
    }

    /// A connector's configuration and its tasks, as stored.
    pub(super) fn info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        let entry = self.core.entry(name)?;
        Ok(self
            .core
            .connector_info(name, entry, self.configs.snapshot().tasks(name)))
    }

    /// A connector's stored task configurations, masked.
    pub(super) fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        self.core.entry(name)?;
        Ok(self
            .configs
            .snapshot()
            .task_configs(name)
            .into_iter()
            .map(|(task, p)| {
                let id = TaskId {
                    connector: name.to_owned(),
                    task,
                };
                (id, self.core.masked(&config_map(p)))
            })
            .collect())
    }

    /// POST `/connectors/{c}/restart`: the leader writes a restart request (KIP-745) that every
    /// worker applies to what it runs; answers with the instances that restart as RESTARTING.
    pub(super) async fn restart(
        &mut self,
        name: &str,
        include_tasks: bool,
        only_failed: bool,
    ) -> Result<Option<ConnectorStateInfo>, HerderError> {
        self.require_leader()?;
        if !self.configs.snapshot().contains(name) {
            return Err(HerderError::NotFound(format!("Unknown connector: {name}")));
        }
        let status = self
            .status(name)
            .map_err(|_| HerderError::NotFound(format!("Unknown connector: {name}")))?;
        let mut reply = status.clone();
        if self.configs.snapshot().target_state(name) == TargetState::Started {
            if !only_failed || status.connector.state == "FAILED" {
                reply.connector.state = "RESTARTING".to_owned();
            }
            for t in &mut reply.tasks {
                if include_tasks && (!only_failed || t.state == "FAILED") {
                    t.state = "RESTARTING".to_owned();
                }
            }
            self.write(vec![ConfigRecord::RestartConnector {
                connector: name.to_owned(),
                include_tasks,
                only_failed,
            }])
            .await?;
            self.drain_restart_requests().await;
        }
        Ok((include_tasks || only_failed).then_some(reply))
    }

    /// Applies the restart requests read from the config topic to what runs here.
    pub(super) async fn drain_restart_requests(&mut self) {
        let requests = self.configs.take_restart_requests();
        for request in requests {
            let name = request.connector;
            if self.configs.snapshot().target_state(&name) != TargetState::Started {
                continue;
            }
            if self.assignment.connectors.contains(&name) {
                let failed = self
                    .core
                    .connectors
                    .get(&name)
                    .is_some_and(|e| e.failure.is_some());
                if !request.only_failed || failed {
                    self.core.worker.stop_connector_instance(&name).await;
                    self.running_connectors.remove(&name);
                    info!(connector = %name, "Connector restarting.");
                }
            }
            if request.include_tasks {
                let mine: Vec<u32> = self
                    .running_tasks
                    .keys()
                    .filter(|(c, _)| *c == name)
                    .map(|(_, id)| *id)
                    .chain(
                        self.task_failures
                            .keys()
                            .filter(|(c, _)| *c == name)
                            .map(|(_, id)| *id),
                    )
                    .collect();
                for id in mine {
                    let failed = self.task_failures.contains_key(&(name.clone(), id))
                        || self
                            .core
                            .worker
                            .task_reports(&name)
                            .iter()
                            .any(|t| t.id == id && t.error.is_some());
                    if !request.only_failed || failed {
                        self.core.worker.stop_task(&name, id).await;
                        self.running_tasks.remove(&(name.clone(), id));
                        self.task_failures.remove(&(name.clone(), id));
                        info!(connector = %name, task = id, "Task restarting.");
                    }
                }
            }
            self.dirty = true;
        }
        if self.dirty {
            self.settle().await;
        }
    }

    /// POST `/connectors/{c}/tasks/{t}/restart`: restarted by its owner; another worker sends
    /// the request to the owner (from the task's status) or to the leader.
    pub(super) async fn restart_task(&mut self, name: &str, task: u32) -> Result<(), HerderError> {
        if !self.configs.snapshot().contains(name) {
            return Err(HerderError::NotFound(format!("Unknown connector: {name}")));
        }
        if !self.configs.snapshot().tasks(name).contains(&task) {
            return Err(HerderError::NotFound(format!(
                "Task {name}-{task} not found"
            )));
        }
        let key = (name.to_owned(), task);
        if self.running_tasks.contains_key(&key) || self.task_failures.contains_key(&key) {
            self.core.worker.stop_task(name, task).await;
            self.running_tasks.remove(&key);
            self.task_failures.remove(&key);
            self.dirty = true;
            self.settle().await;
            return Ok(());
        }
        let owner = self
            .statuses
            .tasks(name)
            .into_iter()
            .find(|(id, _)| *id == task)
            .map(|(_, s)| format!("http://{}/", s.worker_id));
        match (owner, &self.group) {
            (Some(url), Some(_)) => Err(HerderError::Forward(Some(url))),
            (None, Some(group)) => Err(HerderError::Forward(group.leader_url.clone())),
            (_, None) => Err(HerderError::NotFound(format!(
                "Task {name}-{task} is not running"
            ))),
        }
    }

    /// PATCH/DELETE `/connectors/{c}/offsets` on the leader, for a STOPPED connector.
    pub(super) async fn alter_offsets(
        &mut self,
        name: &str,
        offsets: Option<Vec<serde_json::Value>>,
        auto_stop: bool,
    ) -> Result<String, HerderError> {
        self.require_leader()?;
        if auto_stop && self.configs.snapshot().target_state(name) != TargetState::Stopped {
            return Err(HerderError::BadRequest(format!(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
            )));
        }
        if let Err(e) = self.offsets.log().read_to_end().await {
            warn!(error = %e, "Could not read the offsets topic to its end.");
        }
        self.core.alter_offsets(name, offsets, false).await
    }
}
