//! The connector instances running on this worker: starting one (on its own task, bounded by
//! `connector.start.timeout.ms`, so that a start that hangs never holds the herder) and asking
//! it for its task configurations (as stored and shown: each with its task class, config provider placeholders
//! put back), planning again when it asks, and stopping it.

use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConfigMap, ConnectError};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, info_span, warn, Instrument};

use super::{connector_events, ConnectorSpec, ConnectorStartError, Worker};
use crate::plugins::ConnectorPlugin;

/// A running connector instance.
pub(super) enum ConnectorInstance {
    Source(Box<dyn connect_api::SourceConnector>),
    Sink(Box<dyn connect_api::SinkConnector>),
}

/// A connector instance running on this worker, with the spec it was started from (to plan
/// its tasks again when it asks) and the token its context watches.
pub(super) struct RunningConnector {
    pub(super) name: String,
    pub(super) instance: ConnectorInstance,
    pub(super) spec: Arc<ConnectorSpec>,
    pub(super) cancel: CancellationToken,
}

/// How long a connector instance that is abandoned (its start timed out or was cancelled, or
/// it started after it was no longer wanted) gets to stop, in the background: Kafka Connect's
/// `Worker.CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_MS`.
const ABANDONED_STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// A connector start under way on its own tokio task.
pub(super) struct StartingConnector {
    name: String,
    /// Which start of `name` this is (a later one replaces it).
    id: u64,
    /// Cancels the start (and the context of the instance it makes).
    cancel: CancellationToken,
}

/// What a connector start made: the started instance and the task configurations it planned.
type Started = (ConnectorInstance, Vec<ConfigMap>);

/// A started connector's spec and the task configurations it planned.
pub type StartedPlan = (Arc<ConnectorSpec>, Vec<ConfigMap>);

/// The end of a connector start begun with [`Worker::begin_connector_start`], to hand back to
/// [`Worker::finish_connector_start`] on the herder's task.
pub struct StartOutcome {
    name: String,
    id: u64,
    spec: Arc<ConnectorSpec>,
    cancel: CancellationToken,
    result: Result<Started, ConnectError>,
}

impl StartOutcome {
    /// The connector's name.
    pub fn connector(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Debug for StartOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartOutcome")
            .field("name", &self.name)
            .field("id", &self.id)
            .field("started", &self.result.is_ok())
            .finish()
    }
}

/// A start spawned by [`Worker::spawn_start`].
struct PendingStart {
    name: String,
    id: u64,
    spec: Arc<ConnectorSpec>,
    cancel: CancellationToken,
    handle: JoinHandle<Result<Started, ConnectError>>,
}

impl PendingStart {
    /// Waits for the start to end (a panic in the connector's start is a failure).
    async fn wait(self) -> StartOutcome {
        let result = match self.handle.await {
            Ok(result) => result,
            Err(e) => Err(ConnectError::Other(format!(
                "The connector's start did not complete: {e}"
            ))),
        };
        StartOutcome {
            name: self.name,
            id: self.id,
            spec: self.spec,
            cancel: self.cancel,
            result,
        }
    }
}

impl ConnectorInstance {
    async fn start(&mut self, props: &ConfigMap) -> Result<(), ConnectError> {
        match self {
            Self::Source(c) => c.start(props).await,
            Self::Sink(c) => c.start(props).await,
        }
    }

    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>, ConnectError> {
        match self {
            Self::Source(c) => c.task_configs(max_tasks),
            Self::Sink(c) => c.task_configs(max_tasks),
        }
    }

    async fn stop(&mut self) -> Result<(), ConnectError> {
        match self {
            Self::Source(c) => c.stop().await,
            Self::Sink(c) => c.stop().await,
        }
    }
}

/// Stops an instance nobody wants any more on its own task, for at most
/// [`ABANDONED_STOP_TIMEOUT`].
fn stop_abandoned(name: String, mut instance: ConnectorInstance) {
    tokio::spawn(async move {
        match tokio::time::timeout(ABANDONED_STOP_TIMEOUT, instance.stop()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => warn!(connector = %name, error = %e, "Connector stop failed."),
            Err(_) => warn!(
                connector = %name,
                "The connector did not stop within {} ms; it is left behind.",
                ABANDONED_STOP_TIMEOUT.as_millis()
            ),
        }
    });
}

/// Creates, initializes and starts the instance of `spec`, for at most `timeout`
/// (`connector.start.timeout.ms`) and until `cancel` fires, then asks it for its tasks.
async fn run_start(
    spec: &ConnectorSpec,
    ctx: connect_api::ConnectorContext,
    cancel: &CancellationToken,
    timeout: Duration,
) -> Result<Started, ConnectError> {
    let mut instance = match &spec.plugin {
        ConnectorPlugin::Source(p) => {
            let mut c = p.new_connector();
            c.initialize(ctx);
            ConnectorInstance::Source(c)
        }
        ConnectorPlugin::Sink(p) => {
            let mut c = p.new_connector();
            c.initialize(ctx);
            ConnectorInstance::Sink(c)
        }
    };
    let ended = tokio::select! {
        ended = tokio::time::timeout(timeout, instance.start(&spec.props)) => ended.ok(),
        () = cancel.cancelled() => None,
    };
    match ended {
        Some(started) => started?,
        None => {
            let why = if cancel.is_cancelled() {
                "The connector was stopped before its start completed".to_owned()
            } else {
                format!(
                    "The connector did not start within {} ms ({START_TIMEOUT_CONFIG}); it was stopped",
                    timeout.as_millis()
                )
            };
            cancel.cancel();
            stop_abandoned(spec.name.clone(), instance);
            return Err(ConnectError::Other(why));
        }
    }
    let configs = instance.task_configs(spec.tasks_max)?;
    Ok((instance, configs))
}

/// The worker key bounding a connector's start (connect-rs).
pub const START_TIMEOUT_CONFIG: &str = "connector.start.timeout.ms";

impl Worker {
    /// Starts the connector instance of `spec` and keeps it running; returns the task
    /// configurations it plans (at most `tasks.max`), with the connector's config provider
    /// placeholders put back (Kafka's reverse transform): they are stored and shown so, and
    /// resolved again when each task starts. The start runs on its own task, bounded by
    /// `connector.start.timeout.ms`.
    ///
    /// # Errors
    /// When the connector cannot be created or started (in time), or plans too many tasks.
    pub async fn start_connector_instance(
        &mut self,
        spec: &Arc<ConnectorSpec>,
    ) -> Result<Vec<ConfigMap>, ConnectorStartError> {
        let outcome = self.spawn_start(spec).wait().await;
        match self.finish_connector_start(outcome) {
            Some(result) => result.map(|(_, configs)| configs),
            None => Err(ConnectorStartError {
                connector: spec.name.clone(),
                source: ConnectError::Other(
                    "The connector was stopped before its start completed".to_owned(),
                ),
            }),
        }
    }

    /// Begins starting the connector instance of `spec` on its own task and returns at once
    /// (Kafka Connect's `Worker.startConnector` on its executor): the end arrives as
    /// [`ConnectorEvent::Started`](connector_events::ConnectorEvent::Started) on the channel of
    /// [`Worker::take_connector_events`], for [`Worker::finish_connector_start`]. A start that
    /// takes longer than `connector.start.timeout.ms` ends as a failure; stopping the connector
    /// meanwhile abandons it. A start of the same connector under way is abandoned.
    pub fn begin_connector_start(&mut self, spec: &Arc<ConnectorSpec>) {
        let pending = self.spawn_start(spec);
        let events = self.events.sender();
        tokio::spawn(async move {
            let outcome = pending.wait().await;
            let _ = events.send(connector_events::ConnectorEvent::Started(outcome));
        });
    }

    /// Spawns the start of `spec`'s instance (abandoning one under way for the same name).
    fn spawn_start(&mut self, spec: &Arc<ConnectorSpec>) -> PendingStart {
        self.metrics.worker().connector_startup.attempts.inc();
        self.abandon_start(&spec.name);
        self.next_start_id += 1;
        let id = self.next_start_id;
        let cancel = self.cancel.child_token();
        let ctx = self.events.context(&spec.name, cancel.clone());
        self.starting.push(StartingConnector {
            name: spec.name.clone(),
            id,
            cancel: cancel.clone(),
        });
        let timeout = self.settings.connector_start_timeout;
        let span = info_span!("connector", connector = %spec.name);
        let handle = {
            let (spec, cancel) = (spec.clone(), cancel.clone());
            tokio::spawn(
                async move { run_start(&spec, ctx, &cancel, timeout).await }.instrument(span),
            )
        };
        PendingStart {
            name: spec.name.clone(),
            id,
            spec: spec.clone(),
            cancel,
            handle,
        }
    }

    /// Cancels connector `name`'s start under way, if any; its outcome will be ignored.
    fn abandon_start(&mut self, name: &str) {
        self.starting.retain(|s| {
            let this = s.name == name;
            if this {
                s.cancel.cancel();
            }
            !this
        });
    }

    /// Whether connector `name`'s start is under way on this worker.
    pub fn is_starting(&self, name: &str) -> bool {
        self.starting.iter().any(|s| s.name == name)
    }

    /// Takes the end of a start begun with [`Worker::begin_connector_start`]: a started
    /// instance is kept running, and its spec and the task configurations it planned (as
    /// [`Worker::start_connector_instance`] gives them) are returned. `None` when the start was
    /// abandoned meanwhile (the connector was stopped, or started again): an instance it made
    /// is stopped in the background.
    ///
    /// # Errors
    /// When the connector failed to start (or in time), or plans too many tasks.
    pub fn finish_connector_start(
        &mut self,
        outcome: StartOutcome,
    ) -> Option<Result<StartedPlan, ConnectorStartError>> {
        let StartOutcome {
            name,
            id,
            spec,
            cancel,
            result,
        } = outcome;
        let Some(i) = self
            .starting
            .iter()
            .position(|s| s.name == name && s.id == id)
        else {
            if let Ok((instance, _)) = result {
                cancel.cancel();
                stop_abandoned(name, instance);
            }
            return None;
        };
        self.starting.remove(i);
        let startup = &self.metrics.worker().connector_startup;
        let result = result.and_then(|(instance, planned)| {
            finish_plan(&spec, planned).map(|configs| (instance, configs))
        });
        match result {
            Ok((instance, task_configs)) => {
                startup.success.inc();
                info_span!("connector", connector = %name)
                    .in_scope(|| info!(tasks = task_configs.len(), "Connector started."));
                self.connectors.push(RunningConnector {
                    name,
                    instance,
                    spec: spec.clone(),
                    cancel,
                });
                Some(Ok((spec, task_configs)))
            }
            Err(e) => {
                startup.failure.inc();
                cancel.cancel();
                Some(Err(ConnectorStartError {
                    connector: name,
                    source: spec.redactor.redact_error(e),
                }))
            }
        }
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
        let planned = running.instance.task_configs(running.spec.tasks_max);
        Some(
            planned
                .and_then(|p| finish_plan(&running.spec, p))
                .map_err(|source| ConnectorStartError {
                    connector: name.to_owned(),
                    source: running.spec.redactor.redact_error(source),
                }),
        )
    }

    /// Stops connector `name`'s instance (not its tasks) and forgets it; a start of it under
    /// way is abandoned (the instance is stopped in the background, not waited for).
    pub async fn stop_connector_instance(&mut self, name: &str) {
        self.abandon_start(name);
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

/// Stops a running instance, waiting at most [`ABANDONED_STOP_TIMEOUT`] (Kafka Connect's
/// `Worker.awaitStopConnector`, which then gives up on the connector as unresponsive).
pub(super) async fn stop_instance(connector: &mut RunningConnector) {
    connector.cancel.cancel();
    match tokio::time::timeout(ABANDONED_STOP_TIMEOUT, connector.instance.stop()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => warn!(connector = %connector.name, error = %e, "Connector stop failed."),
        Err(_) => warn!(
            connector = %connector.name,
            "The connector did not stop within {} ms and has become unresponsive; it is left behind.",
            ABANDONED_STOP_TIMEOUT.as_millis()
        ),
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
