//! The tasks running on this worker: starting one from its stored configuration under its
//! supervisor, restarting, replacing and stopping them (cooperatively, then by force after
//! `task.shutdown.graceful.timeout.ms`), their reports and the topics they used.

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, ConnectError};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, info_span, warn, Instrument};

use super::task_factory::{supervise, TaskFactory};
use super::{error_counters, Activity, ConnectorSpec, ConnectorStartError, TaskActivity, Worker};
use crate::metrics::TaskKind;
use crate::plugins::ConnectorPlugin;

/// A task running on this worker under its supervisor.
pub(super) struct RunningTask {
    pub(super) connector: String,
    pub(super) id: u32,
    pub(super) config: ConfigMap,
    pub(super) cancel: CancellationToken,
    pub(super) activity: Arc<TaskActivity>,
    pub(super) handle: JoinHandle<()>,
    /// Builds the task again (restarts).
    pub(super) factory: Arc<TaskFactory>,
}

/// What the worker knows of one task, for status reports.
#[derive(Debug, Clone)]
pub struct TaskReport {
    /// Task number.
    pub id: u32,
    /// Its configuration.
    pub config: ConfigMap,
    /// What it is doing.
    pub activity: Activity,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// Its error counters.
    pub errors: error_counters::ErrorCounts,
}

/// How the worker stopped.
#[derive(Debug, Default)]
pub struct StopReport {
    /// Tasks that did not stop within the graceful timeout and were aborted.
    pub forced: Vec<String>,
    /// Tasks that had failed.
    pub failed: Vec<String>,
    /// Tasks that moved nothing because their input never became available, with the reason
    /// (`<connector>-<task>: <reason>`).
    pub input_unavailable: Vec<String>,
}

/// Topics a connector's tasks used: topic → the lowest id of a task that used it.
pub type UsedTopics = std::collections::BTreeMap<String, u32>;

/// Adds the topics `task` used since they were last taken to `into`.
fn take_task_topics(task: &RunningTask, into: &mut UsedTopics) {
    for topic in task.activity.take_topics() {
        let first = into.entry(topic).or_insert(task.id);
        *first = (*first).min(task.id);
    }
}

pub(super) async fn stop_tasks(mut tasks: Vec<RunningTask>, graceful: Duration) -> StopReport {
    for task in &tasks {
        task.cancel.cancel();
    }
    let deadline = tokio::time::Instant::now() + graceful;
    let mut report = StopReport::default();
    for task in &mut tasks {
        if tokio::time::timeout_at(deadline, &mut task.handle)
            .await
            .is_err()
        {
            task.handle.abort();
            report.forced.push(task.activity.name.clone());
        }
        // The task is gone from this worker: so are its series.
        task.activity.metrics.unregister();
        if task.activity.get() == Activity::Failed {
            report.failed.push(task.activity.name.clone());
        }
        if let Some(reason) = task.activity.unavailable() {
            let name = &task.activity.name;
            report.input_unavailable.push(format!("{name}: {reason}"));
        }
    }
    if !report.forced.is_empty() {
        warn!(
            tasks = %report.forced.join(", "),
            "Graceful stop of tasks timed out after task.shutdown.graceful.timeout.ms; they were aborted."
        );
    }
    report
}

impl Worker {
    /// Replaces connector `name`'s tasks with new ones of `configs` (a reconfiguration in
    /// standalone mode): the old tasks stop (committing what they did), the new ones start
    /// from the committed offsets.
    ///
    /// # Errors
    /// When its instance does not run here, or a new task cannot be built.
    pub async fn replace_tasks(
        &mut self,
        name: &str,
        configs: Vec<ConfigMap>,
    ) -> Result<(), ConnectorStartError> {
        let Some(spec) = self
            .connectors
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.spec.clone())
        else {
            return Err(ConnectorStartError {
                connector: name.to_owned(),
                source: ConnectError::Other(format!("connector {name} does not run here")),
            });
        };
        self.stop_tasks(name).await;
        let members = configs.len();
        for (i, config) in configs.into_iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            self.start_task(&spec, id, config, members, 0)?;
        }
        Ok(())
    }

    /// Starts task `id` of connector `spec` with its stored configuration; `members` is the
    /// connector's task count (a sink task is member `id` of `members` in its group);
    /// `generation` is the connector's task configuration generation (an exactly-once source
    /// task checks it is still current once it claimed its transactional id). The connector
    /// instance need not run on this worker.
    ///
    /// # Errors
    /// When the task's converters or client cannot be built.
    pub fn start_task(
        &mut self,
        spec: &Arc<ConnectorSpec>,
        id: u32,
        config: ConfigMap,
        members: usize,
        generation: u32,
    ) -> Result<(), ConnectorStartError> {
        let name = spec.name.clone();
        let factory = Arc::new(TaskFactory {
            spec: spec.clone(),
            plugins: self.plugins.clone(),
            offsets: self.offsets.clone(),
            topics: self.topics.clone(),
            settings: self.settings.clone(),
            members,
            generation,
        });
        self.spawn_task(factory, &name, id, config)
            .map_err(|source| ConnectorStartError {
                connector: name.clone(),
                source: spec.redactor.redact_error(source),
            })
    }

    /// Builds task `id` from `factory` and runs it under its supervisor.
    fn spawn_task(
        &mut self,
        factory: Arc<TaskFactory>,
        name: &str,
        id: u32,
        config: ConfigMap,
    ) -> Result<(), ConnectError> {
        let i = usize::try_from(id).unwrap_or(usize::MAX);
        let kind = match factory.spec.plugin {
            ConnectorPlugin::Source(_) => TaskKind::Source,
            ConnectorPlugin::Sink(_) => TaskKind::Sink,
        };
        let metrics = self.metrics.task(name, id, kind);
        let activity = Arc::new(TaskActivity::new(format!("{name}-{id}"), metrics, kind));
        let startup = &self.metrics.worker().task_startup;
        startup.attempts.inc();
        let cancel = self.cancel.child_token();
        let first = match factory.build(i, config.clone(), cancel.clone(), activity.clone()) {
            Ok(first) => first,
            Err(e) => {
                startup.failure.inc();
                activity.metrics.unregister();
                return Err(e);
            }
        };
        startup.success.inc();
        self.board.register(&activity);
        let span = info_span!("task", connector = %name, task = i);
        let handle = tokio::spawn(
            supervise(
                factory.clone(),
                i,
                config.clone(),
                first,
                cancel.clone(),
                activity.clone(),
            )
            .instrument(span),
        );
        self.tasks.push(RunningTask {
            connector: name.to_owned(),
            id,
            config,
            cancel,
            activity,
            handle,
            factory,
        });
        Ok(())
    }

    /// Restarts one task of connector `name`: stops it (cooperatively, then by force after the
    /// graceful timeout) and starts a new instance, which resumes from the committed offsets.
    /// Returns whether the task exists.
    ///
    /// # Errors
    /// When the new instance cannot be built (its converters or client).
    pub async fn restart_task(&mut self, name: &str, id: u32) -> Result<bool, ConnectError> {
        let Some(index) = self
            .tasks
            .iter()
            .position(|t| t.connector == name && t.id == id)
        else {
            return Ok(false);
        };
        let old = self.tasks.remove(index);
        let (factory, config) = (old.factory.clone(), old.config.clone());
        self.retire_topics(&old);
        stop_tasks(vec![old], self.settings.graceful_shutdown_timeout).await;
        self.spawn_task(factory, name, id, config)?;
        info!(connector = %name, task = id, "Task restarted.");
        Ok(true)
    }

    /// Keeps the topics `task` used since they were last taken, for the next
    /// [`take_topics`](Self::take_topics) (the task is stopping).
    fn retire_topics(&mut self, task: &RunningTask) {
        let into = self
            .retired_topics
            .entry(task.connector.clone())
            .or_default();
        take_task_topics(task, into);
    }

    /// Takes the topics connector `name`'s tasks used since the last call (also those of its
    /// tasks stopped meanwhile).
    pub fn take_topics(&mut self, name: &str) -> std::collections::BTreeSet<String> {
        let mut used = self.retired_topics.remove(name).unwrap_or_default();
        for task in self.tasks.iter().filter(|t| t.connector == name) {
            take_task_topics(task, &mut used);
        }
        used.into_keys().collect()
    }

    /// Takes the topics every connector's tasks used since the last call (also those of tasks
    /// stopped meanwhile), by connector, with the lowest id of a task that used each
    /// (Kafka Connect's topic tracking, KIP-558).
    pub fn take_used_topics(&mut self) -> std::collections::BTreeMap<String, UsedTopics> {
        let mut used: std::collections::BTreeMap<String, UsedTopics> =
            self.retired_topics.drain().collect();
        for task in &self.tasks {
            take_task_topics(task, used.entry(task.connector.clone()).or_default());
        }
        used.retain(|_, topics| !topics.is_empty());
        used
    }

    /// The tasks of connector `name`, by id.
    pub fn task_reports(&self, name: &str) -> Vec<TaskReport> {
        let mut reports: Vec<_> = self
            .tasks
            .iter()
            .filter(|t| t.connector == name)
            .map(|t| TaskReport {
                id: t.id,
                config: t.config.clone(),
                activity: t.activity.get(),
                error: t.activity.error(),
                errors: t.activity.errors.snapshot(),
            })
            .collect();
        reports.sort_by_key(|r| r.id);
        reports
    }

    /// Stops the tasks of connector `name` (cooperatively, then by force after the graceful
    /// timeout) and forgets them; its connector instance keeps running.
    pub async fn stop_tasks(&mut self, name: &str) -> StopReport {
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.tasks)
            .into_iter()
            .partition(|t| t.connector == name);
        self.tasks = others;
        for task in &mine {
            self.retire_topics(task);
        }
        let names: Vec<String> = mine.iter().map(|t| t.activity.name.clone()).collect();
        let report = stop_tasks(mine, self.settings.graceful_shutdown_timeout).await;
        for task in names {
            self.board.remove(&task);
        }
        report
    }

    /// Stops task `id` of connector `name` (cooperatively, then by force after the graceful
    /// timeout) and forgets it; the connector's other tasks keep running.
    pub async fn stop_task(&mut self, name: &str, id: u32) -> StopReport {
        let Some(index) = self
            .tasks
            .iter()
            .position(|t| t.connector == name && t.id == id)
        else {
            return StopReport::default();
        };
        let task = self.tasks.remove(index);
        self.retire_topics(&task);
        let board_name = task.activity.name.clone();
        let report = stop_tasks(vec![task], self.settings.graceful_shutdown_timeout).await;
        self.board.remove(&board_name);
        report
    }
}
