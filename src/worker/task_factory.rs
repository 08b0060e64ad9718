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
use super::error::TaskError;
use super::record_converters::RecordConverters;
use super::settings::WorkerSettings;
use super::{sink_task, source_task, ConnectorSpec};
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
    pub spec: ConnectorSpec,
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
}

impl TaskFactory {
    fn converters(&self) -> Result<RecordConverters, ConnectError> {
        let spec = &self.spec;
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

    /// Builds task `i`'s run with a new task instance, converters and client.
    ///
    /// # Errors
    /// When a converter or a topic client cannot be created.
    pub fn build(
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
            topic_creation: spec.topic_creation.clone(),
        };
        let client_error = |e: crate::topics::TopicError| ConnectError::Other(e.to_string());
        let converters = self.converters()?;
        let transforms = spec.transforms.build()?;
        Ok(match &spec.plugin {
            ConnectorPlugin::Source(p) => Box::pin(
                source_task::SourceTaskRunner {
                    connector: name.clone(),
                    task: p.new_task(),
                    config,
                    ctx: SourceTaskContext {
                        connector: name.clone(),
                        task,
                        offsets: Arc::new(StoreOffsetReader {
                            connector: name.clone(),
                            store: self.offsets.clone(),
                        }),
                        cancel,
                    },
                    converters,
                    transforms,
                    producer: self
                        .topics
                        .producer(&client(&spec.producer_overrides))
                        .map_err(client_error)?,
                    offsets: self.offsets.clone(),
                    settings: self.settings.clone(),
                    activity,
                    tolerate_errors: spec.tolerate_errors,
                }
                .run(),
            ),
            ConnectorPlugin::Sink(p) => {
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
                        tolerate_errors: spec.tolerate_errors,
                    }
                    .run(),
                )
            }
        })
    }
}

/// Runs task `i` (starting with `first`) and restarts it after retriable failures, as the
/// worker's restart policy allows.
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
        let result = run.await;
        let error = match result {
            Ok(()) => {
                info!("Task stopped: {}", activity.throughput.summary());
                activity.stopped();
                return;
            }
            Err(e) => e,
        };
        if !(policy.enabled && error.is_retriable() && attempt < policy.max_attempts)
            || cancel.is_cancelled()
        {
            error!(error = %error, before = %activity.throughput.summary(), "Task failed; it will not run again until restarted.");
            activity.failed(format!("{error:#}"));
            return;
        }
        attempt += 1;
        let delay = policy.delay(attempt);
        warn!(
            error = %error,
            attempt,
            max_attempts = policy.max_attempts,
            delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            "Task failed with a retriable error; restarting it."
        );
        activity.restarting(format!("{error:#}"));
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
