//! The connector instances running on this worker: starting one and asking it for its task
//! configurations (as stored and shown: each with its task class, config provider placeholders
//! put back), planning again when it asks, and stopping it.

use std::sync::Arc;

use connect_api::{ConfigMap, ConnectError};
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

impl Worker {
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

pub(super) async fn stop_instance(connector: &mut RunningConnector) {
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
