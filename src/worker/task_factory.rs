//! Building a task's runner from its connector's spec, and supervising it: a task that fails
//! with a retriable error is started again with exponential backoff (connect-rs's addition to
//! Kafka Connect, on by default; see [`RestartPolicy`](super::RestartPolicy)).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use connect_api::{
    ConfigMap, ConnectError, OffsetMap, OffsetReader, SinkTaskContext, SourceTaskContext,
};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use super::activity::TaskActivity;
use super::dead_letter::DeadLetterQueue;
use super::error::TaskError;
use super::record_converters::RecordConverters;
use super::settings::WorkerSettings;
use super::source_task::{AtLeastOnce, SourceTaskRunner, Transactional};
use super::tolerance::{ConverterClasses, ErrorHandler};
use super::{sink_task, ConnectorSpec};
use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::storage::OffsetStore;
use crate::topics::{ClientSpec, TopicBackend};

/// A task's run, from start to stop.
pub type TaskFuture = Pin<Box<dyn Future<Output = Result<(), TaskError>> + Send>>;

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

/// Everything needed to build the tasks of one connector, again after a failure.
pub struct TaskFactory {
    /// The connector.
    pub spec: Arc<ConnectorSpec>,
    /// Converters come from here.
    pub plugins: Arc<PluginRegistry>,
    /// Source offsets.
    pub offsets: Arc<dyn OffsetStore>,
    /// Where topics live.
    pub topics: Arc<dyn TopicBackend>,
    /// Timing and restart settings.
    pub settings: WorkerSettings,
    /// Number of tasks (sink group members).
    pub members: usize,
    /// The connector's task configuration generation the tasks were started with.
    pub generation: u32,
}

impl TaskFactory {
    fn converters(&self) -> Result<RecordConverters, ConnectError> {
        let spec = &self.spec;
        let choice_error = |e: crate::plugins::ChoiceError| ConnectError::Other(e.to_string());
        let converter = |c: &super::ConverterConfig| {
            self.plugins
                .versioned_converter(&c.class, c.version.as_deref())
                .map_err(choice_error)
        };
        let mut key = converter(&spec.key_converter)?;
        key.configure(&spec.key_converter.props, true)?;
        let mut value = converter(&spec.value_converter)?;
        value.configure(&spec.value_converter.props, false)?;
        let mut header = self
            .plugins
            .versioned_header_converter(
                &spec.header_converter.class,
                spec.header_converter.version.as_deref(),
            )
            .map_err(choice_error)?;
        header.configure(&spec.header_converter.props)?;
        Ok(RecordConverters { key, value, header })
    }

    /// The error handler of task `task`: the connector's `errors.*` policy, its dead letter
    /// queue (when configured) and the task's counters.
    fn error_handler(
        &self,
        task: u32,
        cancel: &CancellationToken,
        activity: &TaskActivity,
    ) -> Result<ErrorHandler, ConnectError> {
        let spec = &self.spec;
        let dlq = match &spec.errors.dlq {
            Some(settings) => Some(
                DeadLetterQueue::open(
                    settings.clone(),
                    self.topics.as_ref(),
                    &spec.name,
                    task,
                    &spec.producer_overrides,
                    &spec.admin_overrides,
                )
                .map_err(|e| {
                    ConnectError::Other(format!(
                        "Could not initialize dead letter queue with topic={}: {e}",
                        settings.topic
                    ))
                })?,
            ),
            None => None,
        };
        let class = |c: &super::ConverterConfig| self.plugins.converter_class_name(&c.class);
        Ok(ErrorHandler::new(
            spec.errors.clone(),
            format!("{}-{task}", spec.name),
            activity.errors.clone(),
            dlq,
            ConverterClasses {
                key: class(&spec.key_converter),
                value: class(&spec.value_converter),
                header: class(&spec.header_converter),
            },
            cancel.clone(),
        ))
    }

    /// `text` with the values config providers gave replaced by their placeholders.
    pub fn redact(&self, text: &str) -> String {
        self.spec.redactor.redact(text).into_owned()
    }

    /// Builds task `i`'s run with a new task instance, converters and client. `config` is the
    /// stored task configuration: its placeholders are resolved here, and a placeholder that
    /// cannot be resolved makes a run that fails at once (the task goes to FAILED with the
    /// reason).
    ///
    /// # Errors
    /// When a converter or a topic client cannot be created (values redacted).
    pub fn build(
        &self,
        i: usize,
        config: ConfigMap,
        cancel: CancellationToken,
        activity: Arc<TaskActivity>,
    ) -> Result<TaskFuture, ConnectError> {
        let source = format!("the configuration of task {}-{i}", self.spec.name);
        let config = match self.spec.providers.resolve_map(&config, &source) {
            Ok((config, redactor)) => {
                self.spec.redactor.absorb(&redactor);
                config
            }
            Err(problems) => {
                let reasons: Vec<String> = problems.iter().map(ToString::to_string).collect();
                let error = TaskError::Connect {
                    stage: "Resolving the task configuration",
                    source: ConnectError::Other(reasons.join("; ")),
                };
                return Ok(Box::pin(async move { Err(error) }));
            }
        };
        self.build_resolved(i, config, cancel, activity)
            .map_err(|e| self.spec.redactor.redact_error(e))
    }

    fn build_resolved(
        &self,
        i: usize,
        config: ConfigMap,
        cancel: CancellationToken,
        activity: Arc<TaskActivity>,
    ) -> Result<TaskFuture, ConnectError> {
        let spec = &self.spec;
        let name = spec.name.clone();
        let task = u32::try_from(i).unwrap_or(u32::MAX);
        let client = |overrides: &ConfigMap| ClientSpec {
            connector: name.clone(),
            task,
            overrides: overrides.clone(),
            admin_overrides: spec.admin_overrides.clone(),
            topic_creation: spec.topic_creation.clone(),
        };
        let client_error = |e: crate::topics::TopicError| ConnectError::Other(e.to_string());
        let converters = self.converters()?;
        let transforms = spec.transforms.build()?;
        let errors = self.error_handler(task, &cancel, &activity)?;
        // A source task's context, for whichever source runner the worker builds.
        let source_ctx = || SourceTaskContext {
            connector: name.clone(),
            task,
            offsets: Arc::new(StoreOffsetReader {
                connector: name.clone(),
                store: self.offsets.clone(),
            }),
            cancel: cancel.clone(),
        };
        Ok(match (&spec.plugin, &self.settings.exactly_once) {
            (ConnectorPlugin::Source(p), Some(eos)) => {
                let transactional_id = eos.transactional_id(&name, task);
                let instance = p.new_task();
                let producer = self
                    .topics
                    .transactional_producer(&client(&spec.producer_overrides), &transactional_id)
                    .map_err(client_error)?;
                Box::pin(
                    SourceTaskRunner {
                        connector: name.clone(),
                        task: instance,
                        config,
                        ctx: source_ctx(),
                        converters,
                        transforms,
                        activity,
                        errors,
                        commit: Transactional::new(
                            producer,
                            eos.offsets.clone(),
                            spec.transaction_boundary,
                            eos.fencing().map(|f| (f, self.generation)),
                        ),
                    }
                    .run(),
                )
            }
            (ConnectorPlugin::Source(p), None) => {
                let instance = p.new_task();
                let producer = self
                    .topics
                    .producer(&client(&spec.producer_overrides))
                    .map_err(client_error)?;
                Box::pin(
                    SourceTaskRunner {
                        connector: name.clone(),
                        task: instance,
                        config,
                        ctx: source_ctx(),
                        converters,
                        transforms,
                        activity,
                        errors,
                        commit: AtLeastOnce::new(
                            producer,
                            self.offsets.clone(),
                            self.settings.clone(),
                        ),
                    }
                    .run(),
                )
            }
            (ConnectorPlugin::Sink(p), _) => {
                let subscription = spec.subscription.clone().ok_or_else(|| {
                    ConnectError::config("topics", "Must configure one of topics or topics.regex")
                })?;
                let group = spec
                    .consumer_overrides
                    .get("group.id")
                    .cloned()
                    .unwrap_or_else(|| format!("connect-{name}"));
                Box::pin(
                    sink_task::SinkTaskRunner {
                        task: p.new_task(),
                        config,
                        ctx: SinkTaskContext {
                            connector: name.clone(),
                            task,
                            cancel,
                            exact_by_default: self.settings.exact_sinks_by_default,
                            commit_request: Default::default(),
                            errant_records: Default::default(),
                            consumer: Default::default(),
                        },
                        converters,
                        transforms,
                        consumer: self
                            .topics
                            .consumer(&client(&spec.consumer_overrides), &group, i, self.members)
                            .map_err(client_error)?,
                        subscription,
                        settings: self.settings.clone(),
                        activity,
                        errors,
                    }
                    .run(),
                )
            }
        })
    }
}

/// Runs task `i` (starting with `first`) and restarts it after retriable failures, as the
/// worker's restart policy allows. `task.restart.max.attempts` bounds consecutive failures: a
/// run that lasted at least `task.restart.max.backoff.ms` was healthy, and the count starts
/// again after it (a plugin host JVM that dies now and then must not leave its tasks FAILED
/// for good after the tenth time).
pub async fn supervise(
    factory: Arc<TaskFactory>,
    i: usize,
    config: ConfigMap,
    first: TaskFuture,
    cancel: CancellationToken,
    activity: Arc<TaskActivity>,
) {
    let policy = factory.settings.restart.clone();
    let mut run = first;
    let mut attempt = 0u32;
    loop {
        let run_started = std::time::Instant::now();
        let result = run.await;
        let error = match result {
            Ok(()) => {
                info!(
                    "Task stopped: {}",
                    super::throughput::task_summary(&activity)
                );
                activity.stopped();
                return;
            }
            Err(e) => e,
        };
        let shown = factory.redact(&format!("{error:#}"));
        if run_started.elapsed() >= policy.max_backoff {
            attempt = 0;
        }
        if !(policy.enabled && error.is_retriable() && attempt < policy.max_attempts)
            || cancel.is_cancelled()
        {
            error!(error = %shown, before = %super::throughput::task_summary(&activity), "Task failed; it will not run again until restarted.");
            activity.failed(shown);
            return;
        }
        attempt += 1;
        let delay = policy.delay(attempt);
        warn!(
            error = %shown,
            attempt,
            max_attempts = policy.max_attempts,
            delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            "Task failed with a retriable error; restarting it."
        );
        activity.restarting(shown);
        tokio::select! {
            () = cancel.cancelled() => {
                activity.stopped();
                return;
            }
            () = tokio::time::sleep(delay) => {}
        }
        run = match factory.build(i, config.clone(), cancel.clone(), activity.clone()) {
            Ok(f) => f,
            Err(e) => {
                error!(error = %e, "Task could not be restarted.");
                activity.failed(e.to_string());
                return;
            }
        };
        activity.busy();
    }
}
