//! The worker (data plane): starts connectors, plans and runs their tasks on tokio, and stops
//! them cooperatively first, then by force after `task.shutdown.graceful.timeout.ms`.

pub mod activity;
pub mod connector_events;
mod connectors;
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
mod tasks;
pub mod throughput;
pub mod tolerance;
pub mod transform_chain;
pub mod transform_spec;
pub mod unread_partitions;
pub mod zombie_fencing;

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, ConnectError};
use tokio_util::sync::CancellationToken;
use tracing::info;

pub use activity::{Activity, TaskActivity, TaskBoard, Uncommitted};
pub use connectors::TASK_CLASS_CONFIG;
use connectors::{stop_instance, RunningConnector, StartingConnector};
pub use connectors::{StartOutcome, START_TIMEOUT_CONFIG};
pub use error::TaskError;
pub use exactly_once::{ExactlyOnceSources, TransactionBoundary};
pub use record_converters::RecordConverters;
pub use settings::{RestartPolicy, WorkerSettings};
use tasks::{stop_tasks, RunningTask};
pub use tasks::{StopReport, TaskReport, UsedTopics};

use crate::metrics::WorkerMetrics;
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
    /// Its `*.plugin.version` (KIP-891), when given: which implementation runs.
    pub version: Option<String>,
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
    pub transforms: Arc<transform_spec::TransformChainSpec>,
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

/// The worker.
pub struct Worker {
    settings: WorkerSettings,
    plugins: Arc<PluginRegistry>,
    offsets: Arc<dyn OffsetStore>,
    topics: Arc<dyn TopicBackend>,
    cancel: CancellationToken,
    connectors: Vec<RunningConnector>,
    /// Connector starts under way, each on its own task.
    starting: Vec<StartingConnector>,
    /// The id of the last start begun.
    next_start_id: u64,
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
        let events = connector_events::ConnectorEvents::with_offsets(Some(offsets.clone()));
        Self {
            settings,
            plugins,
            offsets,
            topics,
            cancel: CancellationToken::new(),
            connectors: Vec::new(),
            starting: Vec::new(),
            next_start_id: 0,
            tasks: Vec::new(),
            events,
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
        spec: impl Into<Arc<ConnectorSpec>>,
    ) -> Result<(), ConnectorStartError> {
        let spec = spec.into();
        let task_configs = self.start_connector_instance(&spec).await?;
        self.start_tasks(&spec, task_configs)
    }

    /// Starts the tasks of `spec` from `task_configs` (the planned ones, in order: task `i`
    /// runs the `i`-th), as generation 0 (standalone).
    ///
    /// # Errors
    /// When a converter cannot be created.
    pub fn start_tasks(
        &mut self,
        spec: &Arc<ConnectorSpec>,
        task_configs: Vec<ConfigMap>,
    ) -> Result<(), ConnectorStartError> {
        let members = task_configs.len();
        for (i, config) in task_configs.into_iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            self.start_task(spec, id, config, members, 0)?;
        }
        Ok(())
    }

    /// The source offset store.
    pub fn offset_store(&self) -> Arc<dyn OffsetStore> {
        self.offsets.clone()
    }

    /// Where topics live.
    pub fn topic_backend(&self) -> Arc<dyn TopicBackend> {
        self.topics.clone()
    }

    /// Stops connector `name` and its tasks (cooperatively, then by force after the graceful
    /// timeout) and forgets them.
    pub async fn stop_connector(&mut self, name: &str) -> StopReport {
        let report = self.stop_tasks(name).await;
        self.stop_connector_instance(name).await;
        report
    }

    /// How long until every task has been idle (or has ended) for `d`: `None` while one is
    /// busy or a connector's start is under way, or while a sink connector whose every task runs here (`whole`) has partitions none
    /// of its tasks reads (logged once per reason); zero when all are done.
    pub fn all_idle_left(&self, d: Duration, whole: &dyn Fn(&str) -> bool) -> Option<Duration> {
        if !self.starting.is_empty() {
            // A connector whose start is under way has tasks to come.
            return None;
        }
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

#[cfg(test)]
mod tests;
