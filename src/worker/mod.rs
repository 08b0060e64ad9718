//! The worker (data plane): starts connectors, plans and runs their tasks on tokio, and stops
//! them cooperatively first, then by force after `task.shutdown.graceful.timeout.ms`.

pub mod activity;
pub mod connector_events;
pub mod dead_letter;
pub mod error;
pub mod error_counters;
pub mod exactly_once;
pub mod record_converters;
pub mod record_offset;
pub mod record_pipeline;
pub mod settings;
pub mod sink_task;
pub mod source_task;
pub mod submitted;
pub mod task_factory;
pub mod throughput;
pub mod tolerance;
pub mod transform_chain;
pub mod unread_partitions;
pub mod zombie_fencing;

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, ConnectError};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, info_span, warn, Instrument};

pub use activity::{Activity, TaskActivity, TaskBoard, Uncommitted};
pub use error::TaskError;
pub use exactly_once::{ExactlyOnceSources, TransactionBoundary};
pub use record_converters::RecordConverters;
pub use settings::{RestartPolicy, WorkerSettings};
use task_factory::{supervise, TaskFactory};

use crate::metrics::{TaskKind, WorkerMetrics};
use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::storage::OffsetStore;
use crate::topics::{Subscription, TopicBackend};

/// A converter class and its properties (prefix removed).
#[derive(Debug, Clone)]
pub struct ConverterConfig {
    /// Class name or alias.
    pub class: String,
    /// Properties given to `configure`.
    pub props: ConfigMap,
}

/// A validated connector, ready to start.
pub struct ConnectorSpec {
    /// Connector name.
    pub name: String,
    /// Its plugin.
    pub plugin: ConnectorPlugin,
    /// The connector's properties, placeholders resolved (what the connector is given).
    pub props: ConfigMap,
    /// The connector's properties as given and stored: placeholders not resolved.
    pub raw_props: ConfigMap,
    /// The worker's config providers: they resolve task configurations when tasks start.
    pub providers: Arc<crate::config::providers::ConfigProviders>,
    /// The values the providers gave, kept out of errors, status traces and runtime logs.
    pub redactor: Arc<crate::config::providers::Redactor>,
    /// `tasks.max`.
    pub tasks_max: usize,
    /// Key converter.
    pub key_converter: ConverterConfig,
    /// Value converter.
    pub value_converter: ConverterConfig,
    /// Header converter.
    pub header_converter: ConverterConfig,
    /// The `errors.*` settings (retries, tolerance, log, dead letter queue).
    pub errors: tolerance::ErrorPolicy,
    /// The validated transforms and predicates, built anew for each task.
    pub transforms: Arc<crate::herder::transform_spec::TransformChainSpec>,
    /// What a sink reads (`topics` or `topics.regex`); unused for sources.
    pub subscription: Option<Subscription>,
    /// `producer.override.*` (prefix removed).
    pub producer_overrides: ConfigMap,
    /// `consumer.override.*` (prefix removed).
    pub consumer_overrides: ConfigMap,
    /// `admin.override.*` (prefix removed).
    pub admin_overrides: ConfigMap,
    /// Sources: KIP-158 topic creation rules (when configured and the worker enables them).
    pub topic_creation: Option<Arc<crate::topics::topic_creation::TopicCreation>>,
    /// Sources: `transaction.boundary` (used when the worker runs sources in transactions).
    pub transaction_boundary: TransactionBoundary,
}

/// A connector could not be started.
#[derive(Debug, thiserror::Error)]
#[error("Failed to start connector {connector}: {source}")]
pub struct ConnectorStartError {
    /// Connector name.
    pub connector: String,
    /// Why.
    #[source]
    pub source: ConnectError,
}

enum ConnectorInstance {
    Source(Box<dyn connect_api::SourceConnector>),
    Sink(Box<dyn connect_api::SinkConnector>),
}

/// A connector instance running on this worker, with the spec it was started from (to plan
/// its tasks again when it asks) and the token its context watches.
struct RunningConnector {
    name: String,
    instance: ConnectorInstance,
    spec: Arc<ConnectorSpec>,
    cancel: CancellationToken,
}

struct RunningTask {
    connector: String,
    id: u32,
    config: ConfigMap,
    cancel: CancellationToken,
    activity: Arc<TaskActivity>,
    handle: JoinHandle<()>,
    /// Builds the task again (restarts).
    factory: Arc<TaskFactory>,
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

/// The worker.
pub struct Worker {
    settings: WorkerSettings,
    plugins: Arc<PluginRegistry>,
    offsets: Arc<dyn OffsetStore>,
    topics: Arc<dyn TopicBackend>,
    cancel: CancellationToken,
    connectors: Vec<RunningConnector>,
    tasks: Vec<RunningTask>,
    /// Where the connectors' contexts send their requests (the herder takes the receiver).
    events: connector_events::ConnectorEvents,
    /// Topics used by tasks stopped since the herder last asked: connector → topic → the
    /// lowest id of a task that used it.
    retired_topics: std::collections::HashMap<String, UsedTopics>,
    /// The tasks' activity cells, for reports made without the worker.
    board: TaskBoard,
    /// The worker's metrics (tasks register their handles here).
    metrics: Arc<WorkerMetrics>,
    /// The last reason for not being idle that was logged (`all_idle_left`).
    unread_logged: std::sync::Mutex<Option<String>>,
}

impl Worker {
    /// Where this worker's topics live.
    pub fn topics(&self) -> Arc<dyn TopicBackend> {
        self.topics.clone()
    }

    /// A worker with no connectors.
    pub fn new(
        settings: WorkerSettings,
        plugins: Arc<PluginRegistry>,
        offsets: Arc<dyn OffsetStore>,
        topics: Arc<dyn TopicBackend>,
    ) -> Self {
        Self {
            settings,
            plugins,
            offsets,
            topics,
            cancel: CancellationToken::new(),
            connectors: Vec::new(),
            tasks: Vec::new(),
            events: connector_events::ConnectorEvents::new(),
            retired_topics: std::collections::HashMap::new(),
            board: TaskBoard::default(),
            metrics: Arc::default(),
            unread_logged: std::sync::Mutex::new(None),
        }
    }

    /// The worker reporting to `metrics` (those `GET /metrics` serves) instead of its own.
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<WorkerMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// The worker's metrics.
    pub fn metrics(&self) -> &Arc<WorkerMetrics> {
        &self.metrics
    }

    /// The tasks' activity cells (shared: it follows the tasks the worker starts and stops).
    pub fn board(&self) -> TaskBoard {
        self.board.clone()
    }

    /// Starts a connector, asks it for its task configurations and starts the tasks (the
    /// standalone path: [`Worker::start_connector_instance`], then [`Worker::start_task`] for
    /// each task).
    ///
    /// # Errors
    /// When the connector or a converter cannot be created or started.
    pub async fn start_connector(
        &mut self,
        spec: ConnectorSpec,
    ) -> Result<(), ConnectorStartError> {
        let spec = Arc::new(spec);
        let task_configs = self.start_connector_instance(&spec).await?;
        let members = task_configs.len();
        for (i, config) in task_configs.into_iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            self.start_task(&spec, id, config, members, 0)?;
        }
        Ok(())
    }

    /// Starts the connector instance of `spec` and keeps it running; returns the task
    /// configurations it plans (at most `tasks.max`), with the connector's config provider
    /// placeholders put back (Kafka's reverse transform): they are stored and shown so, and
    /// resolved again when each task starts.
    ///
    /// # Errors
    /// When the connector cannot be created or started, or plans too many tasks.
    pub async fn start_connector_instance(
        &mut self,
        spec: &Arc<ConnectorSpec>,
    ) -> Result<Vec<ConfigMap>, ConnectorStartError> {
        let startup = &self.metrics.worker().connector_startup;
        startup.attempts.inc();
        let result = self.instantiate_connector(spec).await;
        let startup = &self.metrics.worker().connector_startup;
        match &result {
            Ok(_) => startup.success.inc(),
            Err(_) => startup.failure.inc(),
        };
        result
    }

    /// [`Worker::start_connector_instance`] without the start-up counters.
    async fn instantiate_connector(
        &mut self,
        spec: &Arc<ConnectorSpec>,
    ) -> Result<Vec<ConfigMap>, ConnectorStartError> {
        let name = spec.name.clone();
        let fail = |source| ConnectorStartError {
            connector: name.clone(),
            source: spec.redactor.redact_error(source),
        };
        let span = info_span!("connector", connector = %name);
        let cancel = self.cancel.child_token();
        let ctx = self.events.context(&name, cancel.clone());
        let (instance, task_configs) = async {
            match &spec.plugin {
                ConnectorPlugin::Source(p) => {
                    let mut c = p.new_connector();
                    c.initialize(ctx);
                    c.start(&spec.props).await?;
                    let configs = c.task_configs(spec.tasks_max)?;
                    Ok::<_, ConnectError>((ConnectorInstance::Source(c), configs))
                }
                ConnectorPlugin::Sink(p) => {
                    let mut c = p.new_connector();
                    c.initialize(ctx);
                    c.start(&spec.props).await?;
                    let configs = c.task_configs(spec.tasks_max)?;
                    Ok((ConnectorInstance::Sink(c), configs))
                }
            }
        }
        .instrument(span.clone())
        .await
        .map_err(|e| {
            cancel.cancel();
            fail(e)
        })?;
        let task_configs = match finish_plan(spec, task_configs) {
            Ok(configs) => configs,
            Err(e) => {
                cancel.cancel();
                return Err(fail(e));
            }
        };
        span.in_scope(|| info!(tasks = task_configs.len(), "Connector started."));
        self.connectors.push(RunningConnector {
            name,
            instance,
            spec: spec.clone(),
            cancel,
        });
        Ok(task_configs)
    }

    /// The receiver of the running connectors' requests (reconfiguration, background
    /// failure); the herder takes it once and answers them.
    pub fn take_connector_events(
        &mut self,
    ) -> Option<tokio::sync::mpsc::UnboundedReceiver<connector_events::ConnectorEvent>> {
        self.events.take_receiver()
    }

    /// Asks connector `name`'s running instance to plan its tasks again (after it requested a
    /// reconfiguration); `None` when its instance does not run here.
    ///
    /// # Errors
    /// When the connector fails to plan, or plans more than `tasks.max` tasks.
    pub fn plan_tasks(&self, name: &str) -> Option<Result<Vec<ConfigMap>, ConnectorStartError>> {
        let running = self.connectors.iter().find(|c| c.name == name)?;
        let planned = match &running.instance {
            ConnectorInstance::Source(c) => c.task_configs(running.spec.tasks_max),
            ConnectorInstance::Sink(c) => c.task_configs(running.spec.tasks_max),
        };
        Some(
            planned
                .and_then(|p| finish_plan(&running.spec, p))
                .map_err(|source| ConnectorStartError {
                    connector: name.to_owned(),
                    source: running.spec.redactor.redact_error(source),
                }),
        )
    }

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

    /// The source offset store.
    pub fn offset_store(&self) -> Arc<dyn OffsetStore> {
        self.offsets.clone()
    }

    /// Where topics live.
    pub fn topic_backend(&self) -> Arc<dyn TopicBackend> {
        self.topics.clone()
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

    /// Stops connector `name`'s instance (not its tasks) and forgets it.
    pub async fn stop_connector_instance(&mut self, name: &str) {
        let index = self.connectors.iter().position(|c| c.name == name);
        if let Some(i) = index {
            let mut connector = self.connectors.remove(i);
            stop_instance(&mut connector).await;
        }
    }

    /// Whether connector `name`'s instance runs on this worker.
    pub fn runs_connector(&self, name: &str) -> bool {
        self.connectors.iter().any(|c| c.name == name)
    }

    /// Stops connector `name` and its tasks (cooperatively, then by force after the graceful
    /// timeout) and forgets them.
    pub async fn stop_connector(&mut self, name: &str) -> StopReport {
        let report = self.stop_tasks(name).await;
        self.stop_connector_instance(name).await;
        report
    }

    /// How long until every task has been idle (or has ended) for `d`: `None` while one is
    /// busy, or while a sink connector whose every task runs here (`whole`) has partitions none
    /// of its tasks reads (logged once per reason); zero when all are done.
    pub fn all_idle_left(&self, d: Duration, whole: &dyn Fn(&str) -> bool) -> Option<Duration> {
        let left = self.tasks.iter().try_fold(Duration::ZERO, |left, t| {
            Some(left.max(t.activity.idle_left(d)?))
        })?;
        let unread =
            unread_partitions::unread_partitions(self.tasks.iter().map(|t| &*t.activity), whole);
        let mut logged = self.unread_logged.lock().unwrap_or_else(|e| e.into_inner());
        match unread {
            None => Some(left),
            Some(unread) => {
                let text = unread.to_string();
                if matches!(unread, unread_partitions::Unread::Unassigned { .. })
                    && logged.as_deref() != Some(text.as_str())
                {
                    info!("Not idle yet: {text}.");
                    *logged = Some(text);
                }
                None
            }
        }
    }

    /// Stops every task (cooperatively, then by force after the graceful timeout, naming the
    /// stragglers) and then every connector.
    pub async fn stop(mut self) -> StopReport {
        self.cancel.cancel();
        let tasks = std::mem::take(&mut self.tasks);
        let report = stop_tasks(tasks, self.settings.graceful_shutdown_timeout).await;
        for connector in &mut self.connectors {
            stop_instance(connector).await;
        }
        report
    }
}

/// The key Kafka Connect adds to every task configuration: the task's Java class name.
pub const TASK_CLASS_CONFIG: &str = "task.class";

/// The task configurations with `task.class` set to the plugin's task class, as Kafka
/// Connect's `Worker.connectorTaskConfigs` does (unchanged when the plugin names none).
fn with_task_class(configs: Vec<ConfigMap>, task_class: Option<&str>) -> Vec<ConfigMap> {
    let Some(class) = task_class else {
        return configs;
    };
    configs
        .into_iter()
        .map(|mut c| {
            c.insert(TASK_CLASS_CONFIG.to_owned(), class.to_owned());
            c
        })
        .collect()
}

async fn stop_tasks(mut tasks: Vec<RunningTask>, graceful: Duration) -> StopReport {
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

async fn stop_instance(connector: &mut RunningConnector) {
    connector.cancel.cancel();
    let result = match &mut connector.instance {
        ConnectorInstance::Source(c) => c.stop().await,
        ConnectorInstance::Sink(c) => c.stop().await,
    };
    if let Err(e) = result {
        warn!(connector = %connector.name, error = %e, "Connector stop failed.");
    }
}

/// The task configurations a connector planned, as stored and shown: each with its task class,
/// config provider placeholders put back (Kafka's reverse transform); refused when there are
/// more than `tasks.max`.
fn finish_plan(
    spec: &ConnectorSpec,
    planned: Vec<ConfigMap>,
) -> Result<Vec<ConfigMap>, ConnectError> {
    let task_configs: Vec<ConfigMap> = with_task_class(planned, spec.plugin.desc().task_class)
        .iter()
        .map(|c| crate::config::providers::reverse_transform(&spec.raw_props, c))
        .collect();
    if task_configs.len() > spec.tasks_max {
        return Err(ConnectError::Other(format!(
            "The connector has generated {} tasks, which is greater than {}, the maximum number of tasks it is configured to create.",
            task_configs.len(),
            spec.tasks_max
        )));
    }
    Ok(task_configs)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use async_trait::async_trait;
    use std::sync::Mutex;

    use connect_api::{
        ConfigDef, OffsetMap, PluginDesc, PluginKind, Result as ConnectResult, SinkConnector,
        SinkPlugin, SinkTask, SourceConnector, SourcePlugin, SourceRecord, SourceTask,
        SourceTaskContext,
    };

    use super::*;
    use crate::storage::FileOffsetStore;
    use crate::topics::local::LocalLog;

    /// A source whose first task instance fails to start with a retriable error (its system is
    /// briefly unavailable); later ones produce one record.
    struct Flaky {
        instances: Arc<AtomicUsize>,
    }

    struct FlakyConnector;

    #[async_trait]
    impl SourceConnector for FlakyConnector {
        async fn start(&mut self, _: &ConfigMap) -> ConnectResult<()> {
            Ok(())
        }
        fn task_configs(&self, _: usize) -> ConnectResult<Vec<ConfigMap>> {
            Ok(vec![ConfigMap::new()])
        }
        async fn stop(&mut self) -> ConnectResult<()> {
            Ok(())
        }
    }

    struct FlakyTask {
        instance: usize,
        sent: bool,
    }

    #[async_trait]
    impl SourceTask for FlakyTask {
        async fn start(&mut self, _: SourceTaskContext, _: &ConfigMap) -> ConnectResult<()> {
            if self.instance == 0 {
                return Err(ConnectError::Retriable(
                    "the source is briefly unavailable".into(),
                ));
            }
            Ok(())
        }
        async fn poll(&mut self) -> ConnectResult<Vec<SourceRecord>> {
            if self.sent {
                tokio::time::sleep(Duration::from_millis(20)).await;
                return Ok(Vec::new());
            }
            self.sent = true;
            Ok(vec![SourceRecord {
                source_partition: Arc::new(OffsetMap::new()),
                source_offset: None,
                record: connect_api::ConnectRecord {
                    topic: "flaky".into(),
                    value: connect_api::Value::String("after restart".into()),
                    value_schema: Some(connect_api::Schema::required(
                        connect_api::SchemaType::String,
                    )),
                    ..Default::default()
                },
            }])
        }
        async fn stop(&mut self) -> ConnectResult<()> {
            Ok(())
        }
    }

    /// A test plugin's description.
    fn test_desc(class_name: &'static str, kind: PluginKind, task: &'static str) -> PluginDesc {
        PluginDesc {
            class_name,
            kind,
            version: "0",
            task_class: Some(task),
        }
    }

    impl SourcePlugin for Flaky {
        fn desc(&self) -> PluginDesc {
            test_desc(
                "test.FlakySourceConnector",
                PluginKind::Source,
                "test.FlakySourceTask",
            )
        }
        fn config_def(&self) -> ConfigDef {
            ConfigDef::new()
        }
        fn new_connector(&self) -> Box<dyn SourceConnector> {
            Box::new(FlakyConnector)
        }
        fn new_task(&self) -> Box<dyn SourceTask> {
            let instance = self.instances.fetch_add(1, Ordering::SeqCst);
            Box::new(FlakyTask {
                instance,
                sent: false,
            })
        }
    }

    /// A one-task connector with String converters and nothing else configured.
    fn string_spec(
        name: &str,
        plugin: ConnectorPlugin,
        subscription: Option<crate::topics::Subscription>,
    ) -> ConnectorSpec {
        let string = |class: &str| ConverterConfig {
            class: class.to_owned(),
            props: ConfigMap::new(),
        };
        ConnectorSpec {
            name: name.into(),
            plugin,
            props: ConfigMap::new(),
            raw_props: ConfigMap::new(),
            providers: Arc::default(),
            redactor: Arc::default(),
            tasks_max: 1,
            key_converter: string("StringConverter"),
            value_converter: string("StringConverter"),
            header_converter: string("SimpleHeaderConverter"),
            errors: Default::default(),
            transforms: Default::default(),
            subscription,
            producer_overrides: ConfigMap::new(),
            consumer_overrides: ConfigMap::new(),
            admin_overrides: ConfigMap::new(),
            transaction_boundary: TransactionBoundary::Poll,
            topic_creation: None,
        }
    }

    async fn run_flaky(
        enabled: bool,
    ) -> (
        Activity,
        usize,
        Option<String>,
        Vec<crate::topics::ConsumedRecord>,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let instances = Arc::new(AtomicUsize::new(0));
        let flaky: Arc<dyn SourcePlugin> = Arc::new(Flaky {
            instances: instances.clone(),
        });
        let plugins = Arc::new(PluginRegistry::new(
            vec![flaky.clone()],
            Vec::<Arc<dyn SinkPlugin>>::new(),
            crate::converters::builtin_converters(),
            Vec::new(),
            Vec::new(),
        ));
        let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
        let offsets = Arc::new(FileOffsetStore::open(&dir.path().join("offsets.json")).unwrap());
        let settings = WorkerSettings {
            restart: RestartPolicy {
                enabled,
                max_attempts: 3,
                initial_backoff: Duration::from_millis(10),
                max_backoff: Duration::from_millis(50),
            },
            ..WorkerSettings::default()
        };
        let mut worker = Worker::new(settings, plugins, offsets, log.clone());
        worker
            .start_connector(string_spec("flaky", ConnectorPlugin::Source(flaky), None))
            .await
            .unwrap();
        // Wait until the task has either produced its record or failed for good.
        let tp = crate::topics::TopicPartition {
            topic: "flaky".into(),
            partition: 0,
        };
        let mut records = Vec::new();
        for _ in 0..500 {
            let report = &worker.task_reports("flaky")[0];
            records = log.read(&tp, 0, 10).unwrap_or_default();
            if !records.is_empty() || report.activity == Activity::Failed {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let report = worker.task_reports("flaky").remove(0);
        worker.stop().await;
        log.close().await;
        (
            report.activity,
            instances.load(Ordering::SeqCst),
            report.error,
            records,
        )
    }

    #[tokio::test]
    async fn a_task_failing_with_a_retriable_error_is_restarted_and_goes_on() {
        let (activity, instances, error, records) = run_flaky(true).await;
        assert_eq!(instances, 2, "one restart");
        assert_ne!(activity, Activity::Failed);
        assert!(
            error.is_some_and(|e| e.contains("briefly unavailable")),
            "the last failure is kept for status"
        );
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].value.as_deref(), Some(&b"after restart"[..]));
    }

    #[tokio::test]
    async fn without_automatic_restarts_the_task_stays_failed() {
        let (activity, instances, error, records) = run_flaky(false).await;
        assert_eq!(activity, Activity::Failed);
        assert_eq!(instances, 1);
        assert!(error.is_some_and(|e| e.contains("briefly unavailable")));
        assert!(records.is_empty());
    }

    /// A sink whose first `put` fails with a retriable error; every put's values are kept.
    struct Refusing {
        puts: Arc<Mutex<Vec<Vec<String>>>>,
    }

    struct RefusingConnector;

    #[async_trait]
    impl SinkConnector for RefusingConnector {
        async fn start(&mut self, _: &ConfigMap) -> ConnectResult<()> {
            Ok(())
        }
        fn task_configs(&self, _: usize) -> ConnectResult<Vec<ConfigMap>> {
            Ok(vec![ConfigMap::new()])
        }
        async fn stop(&mut self) -> ConnectResult<()> {
            Ok(())
        }
    }

    struct RefusingTask {
        puts: Arc<Mutex<Vec<Vec<String>>>>,
    }

    #[async_trait]
    impl SinkTask for RefusingTask {
        async fn start(
            &mut self,
            _: connect_api::SinkTaskContext,
            _: &ConfigMap,
        ) -> ConnectResult<()> {
            Ok(())
        }
        async fn put(&mut self, records: Vec<connect_api::SinkRecord>) -> ConnectResult<()> {
            let values = records
                .iter()
                .map(|r| format!("{:?}", r.record.value))
                .collect();
            let mut puts = self.puts.lock().unwrap();
            puts.push(values);
            if puts.len() == 1 {
                return Err(ConnectError::Retriable("the target is busy".into()));
            }
            Ok(())
        }
        async fn stop(&mut self) -> ConnectResult<()> {
            Ok(())
        }
    }

    impl SinkPlugin for Refusing {
        fn desc(&self) -> PluginDesc {
            test_desc(
                "test.RefusingSinkConnector",
                PluginKind::Sink,
                "test.RefusingSinkTask",
            )
        }
        fn config_def(&self) -> ConfigDef {
            ConfigDef::new()
        }
        fn new_connector(&self) -> Box<dyn SinkConnector> {
            Box::new(RefusingConnector)
        }
        fn new_task(&self) -> Box<dyn SinkTask> {
            Box::new(RefusingTask {
                puts: self.puts.clone(),
            })
        }
    }

    #[tokio::test]
    async fn a_batch_refused_with_a_retriable_error_is_converted_and_put_again_whole() {
        let dir = tempfile::tempdir().unwrap();
        let puts = Arc::new(Mutex::new(Vec::new()));
        let refusing: Arc<dyn SinkPlugin> = Arc::new(Refusing { puts: puts.clone() });
        let plugins = Arc::new(PluginRegistry::new(
            Vec::<Arc<dyn SourcePlugin>>::new(),
            vec![refusing.clone()],
            crate::converters::builtin_converters(),
            Vec::new(),
            Vec::new(),
        ));
        let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
        let records = ["a", "b", "c"]
            .into_iter()
            .map(|v| crate::topics::ProducerRecord {
                topic: "in".into(),
                partition: Some(0),
                key: None,
                value: Some(v.as_bytes().to_vec()),
                timestamp: None,
                headers: Vec::new(),
            })
            .collect();
        let producer = log.producer(&crate::topics::ClientSpec::default()).unwrap();
        producer.send_batch(records).await.unwrap().await.unwrap();
        let offsets = Arc::new(FileOffsetStore::open(&dir.path().join("offsets.json")).unwrap());
        let mut worker = Worker::new(WorkerSettings::default(), plugins, offsets, log.clone());
        worker
            .start_connector(string_spec(
                "refusing",
                ConnectorPlugin::Sink(refusing),
                Some(crate::topics::Subscription::Topics(vec!["in".into()])),
            ))
            .await
            .unwrap();
        for _ in 0..500 {
            if puts.lock().unwrap().len() >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        worker.stop().await;
        log.close().await;
        let puts = puts.lock().unwrap().clone();
        let expected: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|v| format!("{:?}", connect_api::Value::String((*v).into())))
            .collect();
        assert!(puts.len() >= 2, "put again after the refusal: {puts:?}");
        assert_eq!(puts[0], expected);
        assert_eq!(puts[1], expected, "the same batch, converted again");
    }
}
