//! Statuses in a cluster: each worker writes to the status topic the states of the connectors
//! and tasks it runs when they change (and UNASSIGNED when they leave it, tombstones when a
//! connector is deleted), and answers `/connectors/{c}/status` from everyone's records, so
//! every worker gives the same answer.

use std::collections::BTreeMap;

use tracing::debug;

use super::herder::DistributedHerder;
use crate::herder::{ConnectorStateInfo, HerderError, StateInfo, TargetState, TaskStateInfo};
use crate::storage::internal::{ComponentState, Status, StatusRecord};
use crate::storage::StatusStore;
use crate::worker::{Activity, TaskReport};

/// A status key: the connector, and the task id for a task.
type Key = (String, Option<u32>);

/// What a worker last wrote: state and trace per key.
pub type Published = BTreeMap<Key, (ComponentState, Option<String>)>;

fn record(key: &Key, status: Option<Status>) -> StatusRecord {
    match key.1 {
        None => StatusRecord::Connector {
            connector: key.0.clone(),
            status,
        },
        Some(task) => StatusRecord::Task {
            connector: key.0.clone(),
            task,
            status,
        },
    }
}

/// An UNASSIGNED status written by `worker_id`.
fn unassigned(worker_id: &str, generation: i32) -> Status {
    Status {
        state: ComponentState::Unassigned,
        trace: None,
        worker_id: worker_id.to_owned(),
        generation,
        version: None,
    }
}

/// Writes UNASSIGNED for everything in `published` (a worker stopping) and forgets it.
pub async fn unassign_all(
    statuses: &dyn StatusStore,
    published: &mut Published,
    worker_id: &str,
    generation: i32,
) {
    for key in std::mem::take(published).into_keys() {
        let status = unassigned(worker_id, generation);
        statuses.put_safe(record(&key, Some(status))).await;
    }
}

impl DistributedHerder {
    /// The current states of what is assigned here.
    fn local_states(&self) -> Published {
        let mut now = Published::new();
        for name in &self.assignment.connectors {
            let Some(entry) = self.core.connectors.get(name) else {
                continue;
            };
            let state = match (entry.target, &entry.failure) {
                (TargetState::Paused, _) => (ComponentState::Paused, None),
                (TargetState::Stopped, _) => (ComponentState::Stopped, None),
                (TargetState::Started, Some(f)) => (ComponentState::Failed, Some(f.clone())),
                // Its start is under way here.
                (TargetState::Started, None) if self.core.worker.is_starting(name) => {
                    (ComponentState::Unassigned, None)
                }
                (TargetState::Started, None) => (ComponentState::Running, None),
            };
            now.insert((name.clone(), None), state);
        }
        // Each connector's configured tasks and task reports, looked up once per tick.
        let mut tasks: BTreeMap<&str, (Vec<u32>, Vec<TaskReport>)> = BTreeMap::new();
        for task in &self.assignment.tasks {
            let name = &task.connector;
            let Ok(id) = u32::try_from(task.task) else {
                continue;
            };
            let (configured, reports) = tasks.entry(name.as_str()).or_insert_with(|| {
                (
                    self.configs.snapshot().tasks(name),
                    self.core.worker.task_reports(name),
                )
            });
            if !configured.contains(&id) {
                continue;
            }
            let key = (name.clone(), Some(id));
            let state = match self.configs.snapshot().target_state(name) {
                TargetState::Stopped => continue,
                TargetState::Paused => (ComponentState::Paused, None),
                TargetState::Started => {
                    if let Some(failure) = self.task_failures.get(&(name.clone(), id)) {
                        (ComponentState::Failed, Some(failure.clone()))
                    } else {
                        let report = reports.iter().find(|t| t.id == id);
                        match report.map(|t| (t.activity, t.error.clone())) {
                            Some((Activity::Busy | Activity::Idle(_), _)) => {
                                (ComponentState::Running, None)
                            }
                            Some((Activity::Failed, error)) => (ComponentState::Failed, error),
                            Some((Activity::Restarting, error)) => {
                                (ComponentState::Restarting, error)
                            }
                            Some((Activity::Stopped, _)) | None => continue,
                        }
                    }
                }
            };
            now.insert(key, state);
        }
        now
    }

    /// Sets the worker-wide metrics from what runs on this worker (the connectors and tasks
    /// assigned here, in their current states) and the coordinator's assignment counts.
    pub(super) fn refresh_metrics(&self) {
        let mut by_connector: BTreeMap<String, crate::metrics::ConnectorSnapshot> = BTreeMap::new();
        for ((name, task), (state, _)) in self.local_states() {
            let snapshot = by_connector
                .entry(name)
                .or_insert_with_key(|name| self.core.metrics_snapshot(name, None, Vec::new()));
            match task {
                None => snapshot.state = Some(state.name().to_owned()),
                Some(id) => snapshot.tasks.push((id, state.name().to_owned())),
            }
        }
        let connectors = by_connector.into_values().collect();
        let metrics = self.core.worker.metrics();
        metrics.refresh(&crate::metrics::WorkerSnapshot { connectors });
        if let Some(rebalance) = metrics.rebalance() {
            rebalance.assigned(
                self.assignment.connectors.len(),
                self.assignment.tasks.len(),
            );
        }
    }

    /// Writes the statuses that changed since the last call.
    pub(super) async fn publish_statuses(&mut self) {
        let now = self.local_states();
        let mut writes = Vec::new();
        let mut deleted = Vec::new();
        for (key, (state, trace)) in &now {
            if self.published.get(key) != Some(&(*state, trace.clone())) {
                let status = Status {
                    state: *state,
                    trace: trace.clone(),
                    worker_id: self.core.worker_id.clone(),
                    generation: self.generation,
                    version: self
                        .core
                        .connectors
                        .get(&key.0)
                        .and_then(|e| self.core.plugin_version(e)),
                };
                writes.push((record(key, Some(status)), *state != ComponentState::Running));
            }
        }
        for key in self.published.keys() {
            if now.contains_key(key) {
                continue;
            }
            let configured = self.configs.snapshot().contains(&key.0)
                && key
                    .1
                    .is_none_or(|task| self.configs.snapshot().tasks(&key.0).contains(&task));
            if configured {
                let status = unassigned(&self.core.worker_id, self.generation);
                writes.push((record(key, Some(status)), true));
            } else {
                // Deleted (a connector, or a task its connector no longer has): Kafka
                // Connect's DESTROYED, a tombstone.
                writes.push((record(key, None), false));
                if key.1.is_none() {
                    deleted.push(key.0.clone());
                }
            }
        }
        for (record, safe) in writes {
            debug!(key = %record.key(), "Writing a status.");
            if safe {
                self.statuses.put_safe(record).await;
            } else {
                self.statuses.put(record).await;
            }
        }
        self.published = now;
        // A deleted connector's active topics go too, written by the worker that ran it (Kafka
        // Connect's workers reset them when the connector is revoked).
        if self.core.worker_config.topic_tracking_enable() {
            for name in deleted {
                self.reset_topics(&name).await;
            }
        }
    }

    /// The leader removes the statuses of connectors and tasks that are no longer configured
    /// (Kafka Connect does it after each rebalance), e.g. those a dead worker left behind.
    pub(super) async fn remove_stale_statuses(&mut self) {
        if !self.is_leader() {
            return;
        }
        let mut stale = Vec::new();
        for name in self.statuses.connectors() {
            let configured: Vec<u32> = if self.configs.snapshot().contains(&name) {
                self.configs.snapshot().tasks(&name)
            } else {
                stale.push((name.clone(), None));
                Vec::new()
            };
            for (task, _) in self.statuses.tasks(&name) {
                if !configured.contains(&task) {
                    stale.push((name.clone(), Some(task)));
                }
            }
        }
        // Tasks first, then their connector, as Kafka Connect.
        stale.sort_by_key(|(_, task)| task.is_none());
        for key in stale {
            debug!(connector = %key.0, task = ?key.1, "Removing the status of a removed connector or task.");
            self.statuses.put(record(&key, None)).await;
        }
    }

    /// `/connectors/{c}/status`, from the status topic.
    pub(super) fn status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        let not_found = || HerderError::NotFound(format!("No status found for connector {name}"));
        let entry = self.core.connectors.get(name).ok_or_else(not_found)?;
        let connector = self.statuses.connector(name).ok_or_else(not_found)?;
        let tasks = self
            .statuses
            .tasks(name)
            .into_iter()
            .map(|(id, s)| TaskStateInfo {
                id,
                state: s.state.name().to_owned(),
                worker_id: s.worker_id,
                trace: s.trace,
                version: s.version,
                // Error counters are this worker's own: a cluster's answer carries none, so
                // every worker gives the same one.
                errors: None,
            })
            .collect();
        Ok(ConnectorStateInfo {
            name: name.to_owned(),
            connector: StateInfo {
                state: connector.state.name().to_owned(),
                worker_id: connector.worker_id,
                trace: connector.trace,
                version: connector.version,
            },
            tasks,
            connector_type: entry.connector_type,
        })
    }
}
