//! The worker (data plane): starts connectors, plans and runs their tasks on tokio, and stops
//! them cooperatively first, then by force after `task.shutdown.graceful.timeout.ms`.

pub mod activity;
pub mod error;
pub mod record_converters;
pub mod settings;
pub mod sink_task;
pub mod source_task;
pub mod submitted;

use std::sync::Arc;
use std::time::Duration;

use connect_api::{
    ConfigMap, ConnectError, OffsetMap, OffsetReader, SinkTaskContext, SourceTaskContext,
};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{error, info, info_span, warn, Instrument};

pub use activity::{Activity, TaskActivity};
pub use error::TaskError;
pub use record_converters::RecordConverters;
pub use settings::WorkerSettings;

use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::storage::OffsetStore;
use crate::topics::{ClientSpec, Subscription, TopicBackend};

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
    /// The connector's properties as given.
    pub props: ConfigMap,
    /// `tasks.max`.
    pub tasks_max: usize,
    /// Key converter.
    pub key_converter: ConverterConfig,
    /// Value converter.
    pub value_converter: ConverterConfig,
    /// Header converter.
    pub header_converter: ConverterConfig,
    /// `errors.tolerance=all`.
    pub tolerate_errors: bool,
    /// What a sink reads (`topics` or `topics.regex`); unused for sources.
    pub subscription: Option<Subscription>,
    /// `producer.override.*` (prefix removed).
    pub producer_overrides: ConfigMap,
    /// `consumer.override.*` (prefix removed).
    pub consumer_overrides: ConfigMap,
    /// Sources: KIP-158 topic creation rules (when configured and the worker enables them).
    pub topic_creation: Option<Arc<crate::topics::topic_creation::TopicCreation>>,
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

struct RunningTask {
    connector: String,
    id: u32,
    config: ConfigMap,
    cancel: CancellationToken,
    activity: Arc<TaskActivity>,
    handle: JoinHandle<()>,
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
}

/// How the worker stopped.
#[derive(Debug, Default)]
pub struct StopReport {
    /// Tasks that did not stop within the graceful timeout and were aborted.
    pub forced: Vec<String>,
    /// Tasks that had failed.
    pub failed: Vec<String>,
}

/// Reads a connector's committed source offsets from the offset store.
struct StoreOffsetReader {
    connector: String,
    store: Arc<dyn OffsetStore>,
}

impl OffsetReader for StoreOffsetReader {
    fn offset(&self, partition: &OffsetMap) -> Option<OffsetMap> {
        self.store.get(&self.connector, partition)
    }
}

/// The worker.
pub struct Worker {
    settings: WorkerSettings,
    plugins: Arc<PluginRegistry>,
    offsets: Arc<dyn OffsetStore>,
    topics: Arc<dyn TopicBackend>,
    cancel: CancellationToken,
    connectors: Vec<(String, ConnectorInstance)>,
    tasks: Vec<RunningTask>,
}

impl Worker {
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
        }
    }

    fn converters(&self, spec: &ConnectorSpec) -> Result<RecordConverters, ConnectError> {
        let registry_error = |e: crate::plugins::RegistryError| ConnectError::Other(e.to_string());
        let mut key = self
            .plugins
            .converter(&spec.key_converter.class)
            .map_err(registry_error)?;
        key.configure(&spec.key_converter.props, true)?;
        let mut value = self
            .plugins
            .converter(&spec.value_converter.class)
            .map_err(registry_error)?;
        value.configure(&spec.value_converter.props, false)?;
        let mut header = self
            .plugins
            .header_converter(&spec.header_converter.class)
            .map_err(registry_error)?;
        header.configure(&spec.header_converter.props)?;
        Ok(RecordConverters { key, value, header })
    }

    /// Starts a connector, asks it for its task configurations and starts the tasks.
    ///
    /// # Errors
    /// When the connector or a converter cannot be created or started.
    pub async fn start_connector(
        &mut self,
        spec: ConnectorSpec,
    ) -> Result<(), ConnectorStartError> {
        let name = spec.name.clone();
        let fail = |source| ConnectorStartError {
            connector: name.clone(),
            source,
        };
        let span = info_span!("connector", connector = %name);
        let (instance, task_configs) = async {
            match &spec.plugin {
                ConnectorPlugin::Source(p) => {
                    let mut c = p.new_connector();
                    c.start(&spec.props).await?;
                    let configs = c.task_configs(spec.tasks_max)?;
                    Ok::<_, ConnectError>((ConnectorInstance::Source(c), configs))
                }
                ConnectorPlugin::Sink(p) => {
                    let mut c = p.new_connector();
                    c.start(&spec.props).await?;
                    let configs = c.task_configs(spec.tasks_max)?;
                    Ok((ConnectorInstance::Sink(c), configs))
                }
            }
        }
        .instrument(span.clone())
        .await
        .map_err(fail)?;
        if task_configs.len() > spec.tasks_max {
            return Err(fail(ConnectError::Other(format!(
                "The connector has generated {} tasks, which is greater than {}, the maximum number of tasks it is configured to create.",
                task_configs.len(),
                spec.tasks_max
            ))));
        }
        span.in_scope(|| info!(tasks = task_configs.len(), "Connector started."));
        self.connectors.push((name.clone(), instance));
        let members = task_configs.len();
        for (i, config) in task_configs.into_iter().enumerate() {
            let task_name = format!("{name}-{i}");
            let task_config = config.clone();
            let converters = self.converters(&spec).map_err(fail)?;
            let activity = Arc::new(TaskActivity::new(task_name.clone()));
            let cancel = self.cancel.child_token();
            let task_cancel = cancel.clone();
            let task_id = u32::try_from(i).unwrap_or(u32::MAX);
            let client = |overrides: &ConfigMap| ClientSpec {
                connector: name.clone(),
                task: task_id,
                overrides: overrides.clone(),
                topic_creation: spec.topic_creation.clone(),
            };
            let fut: std::pin::Pin<
                Box<dyn std::future::Future<Output = Result<(), TaskError>> + Send>,
            > = match &spec.plugin {
                ConnectorPlugin::Source(p) => Box::pin(
                    source_task::SourceTaskRunner {
                        connector: name.clone(),
                        task: p.new_task(),
                        config,
                        ctx: SourceTaskContext {
                            connector: name.clone(),
                            task: task_id,
                            offsets: Arc::new(StoreOffsetReader {
                                connector: name.clone(),
                                store: self.offsets.clone(),
                            }),
                            cancel,
                        },
                        converters,
                        producer: self
                            .topics
                            .producer(&client(&spec.producer_overrides))
                            .map_err(|e| fail(ConnectError::Other(e.to_string())))?,
                        offsets: self.offsets.clone(),
                        settings: self.settings.clone(),
                        activity: activity.clone(),
                        tolerate_errors: spec.tolerate_errors,
                    }
                    .run(),
                ),
                ConnectorPlugin::Sink(p) => {
                    let subscription = spec.subscription.clone().ok_or_else(|| {
                        fail(ConnectError::config(
                            "topics",
                            "Must configure one of topics or topics.regex",
                        ))
                    })?;
                    Box::pin(
                        sink_task::SinkTaskRunner {
                            task: p.new_task(),
                            config,
                            ctx: SinkTaskContext {
                                connector: name.clone(),
                                task: task_id,
                                cancel,
                            },
                            converters,
                            consumer: self
                                .topics
                                .consumer(
                                    &client(&spec.consumer_overrides),
                                    &format!("connect-{name}"),
                                    i,
                                    members,
                                )
                                .map_err(|e| fail(ConnectError::Other(e.to_string())))?,
                            subscription,
                            settings: self.settings.clone(),
                            activity: activity.clone(),
                            tolerate_errors: spec.tolerate_errors,
                        }
                        .run(),
                    )
                }
            };
            let cell = activity.clone();
            let span = info_span!("task", connector = %name, task = i);
            let handle = tokio::spawn(
                async move {
                    match fut.await {
                        Ok(()) => {
                            info!("Task stopped.");
                            cell.stopped();
                        }
                        Err(e) => {
                            error!(error = %e, "Task failed; it will not run again until restarted.");
                            cell.failed(format!("{e:#}"));
                        }
                    }
                }
                .instrument(span),
            );
            self.tasks.push(RunningTask {
                connector: name.clone(),
                id: task_id,
                config: task_config,
                cancel: task_cancel,
                activity,
                handle,
            });
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

    /// Whether `name` is running here.
    pub fn has_connector(&self, name: &str) -> bool {
        self.connectors.iter().any(|(n, _)| n == name)
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
            })
            .collect();
        reports.sort_by_key(|r| r.id);
        reports
    }

    /// Stops connector `name` and its tasks (cooperatively, then by force after the graceful
    /// timeout) and forgets them.
    pub async fn stop_connector(&mut self, name: &str) -> StopReport {
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.tasks)
            .into_iter()
            .partition(|t| t.connector == name);
        self.tasks = others;
        let report = stop_tasks(mine, self.settings.graceful_shutdown_timeout).await;
        let index = self.connectors.iter().position(|(n, _)| n == name);
        if let Some(i) = index {
            let (name, mut connector) = self.connectors.remove(i);
            stop_instance(&name, &mut connector).await;
        }
        report
    }

    /// The activity cells of every task.
    pub fn activities(&self) -> Vec<Arc<TaskActivity>> {
        self.tasks.iter().map(|t| t.activity.clone()).collect()
    }

    /// Resolves once every task has been idle (or has ended) for `d`.
    pub async fn idle_for(&self, d: Duration) {
        let activities = self.activities();
        let tick = (d / 10).clamp(Duration::from_millis(10), Duration::from_millis(100));
        loop {
            if activities.iter().all(|a| a.idle_for(d)) {
                return;
            }
            tokio::time::sleep(tick).await;
        }
    }

    /// Stops every task (cooperatively, then by force after the graceful timeout, naming the
    /// stragglers) and then every connector.
    pub async fn stop(mut self) -> StopReport {
        self.cancel.cancel();
        let tasks = std::mem::take(&mut self.tasks);
        let report = stop_tasks(tasks, self.settings.graceful_shutdown_timeout).await;
        for (name, connector) in &mut self.connectors {
            stop_instance(name, connector).await;
        }
        report
    }
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
        if task.activity.get() == Activity::Failed {
            report.failed.push(task.activity.name.clone());
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

async fn stop_instance(name: &str, connector: &mut ConnectorInstance) {
    let result = match connector {
        ConnectorInstance::Source(c) => c.stop().await,
        ConnectorInstance::Sink(c) => c.stop().await,
    };
    if let Err(e) = result {
        warn!(connector = %name, error = %e, "Connector stop failed.");
    }
}
