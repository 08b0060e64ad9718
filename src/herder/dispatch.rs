//! The one place where herder requests are answered (Kafka Connect's `Herder` interface, with
//! [`HerderCore`] as its `AbstractHerder`): [`dispatch`] matches every [`Request`] once and
//! calls the operation of [`Herder`], which the standalone and the distributed herder
//! implement. What both answer alike is the trait's default, on the core; each mode overrides
//! what depends on where configurations are stored and where work runs.
//!
//! The actors' other event sources (connector events, config records, group events, ticks)
//! stay in each mode's own loop.

use std::time::Duration;

use async_trait::async_trait;
use connect_api::ConfigMap;
use tokio::sync::oneshot;

use super::core::HerderCore;
use super::{
    ConnectorInfo, ConnectorStateInfo, FenceOrigin, HerderError, InternalSignature, Request,
    TargetState, TaskId,
};
use crate::worker::StopReport;

/// The operations of a herder, one per [`Request`]; the defaults answer from the
/// [`HerderCore`] (what this worker knows and runs).
#[async_trait]
pub(crate) trait Herder: Send {
    /// The shared state and actions.
    fn core(&self) -> &HerderCore;

    /// The shared state and actions, to change.
    fn core_mut(&mut self) -> &mut HerderCore;

    /// Creates or (with `allow_replace`) updates connector `name`, a new one in `initial`
    /// state; returns whether it was created.
    async fn put_connector_config(
        &mut self,
        name: String,
        config: ConfigMap,
        allow_replace: bool,
        initial: TargetState,
    ) -> Result<(bool, ConnectorInfo), HerderError>;

    /// Removes connector `name`.
    async fn delete_connector(&mut self, name: &str) -> Result<(), HerderError>;

    /// Sets connector `name`'s target state.
    async fn set_target_state(
        &mut self,
        name: &str,
        target: TargetState,
    ) -> Result<(), HerderError>;

    /// Task configurations sent by another worker (internal `POST /connectors/{c}/tasks`).
    async fn put_task_configs(
        &mut self,
        name: &str,
        configs: Vec<ConfigMap>,
        signature: Option<InternalSignature>,
    ) -> Result<(), HerderError>;

    /// A round of zombie fencing; `reply` is answered now or when the round ends.
    async fn fence_zombies(
        &mut self,
        name: String,
        origin: FenceOrigin,
        reply: oneshot::Sender<Result<(), HerderError>>,
    );

    /// Whether an exactly-once source task started with `generation` may run.
    async fn verify_task_generation(
        &mut self,
        name: &str,
        task: u32,
        generation: u32,
    ) -> Result<(), HerderError>;

    /// Sets a logger level on every worker of the cluster; `reply` is answered when done.
    async fn set_cluster_logger_level(
        &mut self,
        namespace: String,
        level: String,
        reply: oneshot::Sender<Result<(), HerderError>>,
    );

    /// How long until every task here has been idle for `d`.
    fn idle_left(&self, d: Duration) -> Option<Duration>;

    /// Stops everything this herder runs; the actor ends afterwards.
    async fn shutdown(self) -> StopReport
    where
        Self: Sized;

    /// Names of all connectors, sorted.
    fn connector_names(&self) -> Vec<String> {
        self.core().connector_names()
    }

    /// A connector's configuration and tasks.
    fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        self.core().info(name)
    }

    /// A connector's configuration, secrets masked.
    fn connector_config(&self, name: &str) -> Result<ConfigMap, HerderError> {
        let core = self.core();
        core.entry(name).map(|e| core.masked_config(e))
    }

    /// A connector's configuration as submitted.
    fn connector_config_unmasked(&self, name: &str) -> Result<ConfigMap, HerderError> {
        self.core().entry(name).map(|e| e.config.clone())
    }

    /// A connector's and its tasks' states.
    fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        self.core().status(name)
    }

    /// A connector's task configurations.
    fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        self.core().task_configs(name)
    }

    /// Restarts a connector (and its tasks, or only failed instances).
    async fn restart_connector(
        &mut self,
        name: &str,
        include_tasks: bool,
        only_failed: bool,
    ) -> Result<Option<ConnectorStateInfo>, HerderError> {
        self.core_mut()
            .restart(name, include_tasks, only_failed)
            .await
    }

    /// Restarts one task.
    async fn restart_task(&mut self, name: &str, task: u32) -> Result<(), HerderError> {
        self.core_mut().restart_task(name, task).await
    }

    /// A connector's offsets.
    async fn connector_offsets(&mut self, name: &str) -> Result<serde_json::Value, HerderError> {
        self.core_mut().offsets(name).await
    }

    /// Alters (`Some`) or resets (`None`) a connector's offsets.
    async fn alter_connector_offsets(
        &mut self,
        name: &str,
        offsets: Option<Vec<serde_json::Value>>,
        auto_stop: bool,
    ) -> Result<String, HerderError> {
        self.core_mut()
            .alter_offsets(name, offsets, auto_stop)
            .await
    }

    /// The topics a connector has used (KIP-558, from the mode's status store); with
    /// `reset`, forgets them.
    async fn connector_topics(
        &mut self,
        name: &str,
        reset: bool,
    ) -> Result<Vec<String>, HerderError>;

    /// Sets the worker's connector and task metrics from what runs here.
    fn refresh_metrics(&mut self) {
        self.core().refresh_metrics();
    }
}

/// Answers the replies held for connector starts that have ended (or were abandoned) with
/// each connector's info now; the actors call it before they wait for their next event.
pub(crate) fn answer_ended_starts<H: Herder>(herder: &mut H) {
    for (name, waiters) in herder.core_mut().take_ended_waiters() {
        let info = herder.connector_info(&name).ok();
        for waiter in waiters {
            waiter(info.clone());
        }
    }
}

/// Answers `request` with `herder`'s operation; `None` when it was a shutdown (the herder
/// stopped, the actor ends).
pub(crate) async fn dispatch<H: Herder>(mut herder: H, request: Request) -> Option<H> {
    match request {
        Request::Connectors(reply) => {
            let _ = reply.send(herder.connector_names());
        }
        Request::Info(name, reply) => {
            let _ = reply.send(herder.connector_info(&name));
        }
        Request::Config(name, reply) => {
            let _ = reply.send(herder.connector_config(&name));
        }
        Request::RawConfig(name, reply) => {
            let _ = reply.send(herder.connector_config_unmasked(&name));
        }
        Request::Status(name, reply) => {
            let _ = reply.send(herder.connector_status(&name));
        }
        Request::TaskConfigs(name, reply) => {
            let _ = reply.send(herder.task_configs(&name));
        }
        Request::PutConfig {
            name,
            config,
            allow_replace,
            initial,
            reply,
        } => {
            let result = herder
                .put_connector_config(name.clone(), config, allow_replace, initial)
                .await;
            // Answered once the start it began ends (with the connector's tasks then), as
            // Kafka Connect's standalone herder answers from the start's callback; other
            // requests are answered meanwhile.
            herder.core_mut().reply_when_started(
                &name,
                Box::new(move |now| {
                    let result = result.map(|(created, info)| (created, now.unwrap_or(info)));
                    let _ = reply.send(result);
                }),
            );
        }
        Request::Delete(name, reply) => {
            let _ = reply.send(herder.delete_connector(&name).await);
        }
        Request::SetTarget(name, target, reply) => {
            let result = herder.set_target_state(&name, target).await;
            herder.core_mut().reply_when_started(
                &name,
                Box::new(move |_| {
                    let _ = reply.send(result);
                }),
            );
        }
        Request::Restart {
            name,
            include_tasks,
            only_failed,
            reply,
        } => {
            let result = herder
                .restart_connector(&name, include_tasks, only_failed)
                .await;
            herder.core_mut().reply_when_started(
                &name,
                Box::new(move |_| {
                    let _ = reply.send(result);
                }),
            );
        }
        Request::Offsets(name, reply) => {
            let _ = reply.send(herder.connector_offsets(&name).await);
        }
        Request::AlterOffsets {
            name,
            offsets,
            auto_stop,
            reply,
        } => {
            let result = herder
                .alter_connector_offsets(&name, offsets, auto_stop)
                .await;
            let _ = reply.send(result);
        }
        Request::RestartTask(name, task, reply) => {
            let _ = reply.send(herder.restart_task(&name, task).await);
        }
        Request::Topics(name, reset, reply) => {
            let _ = reply.send(herder.connector_topics(&name, reset).await);
        }
        Request::PutTaskConfigs {
            name,
            configs,
            signature,
            reply,
        } => {
            let _ = reply.send(herder.put_task_configs(&name, configs, signature).await);
        }
        Request::FenceZombies {
            name,
            origin,
            reply,
        } => herder.fence_zombies(name, origin, reply).await,
        Request::VerifyTaskGeneration {
            name,
            task,
            generation,
            reply,
        } => {
            let result = herder.verify_task_generation(&name, task, generation).await;
            let _ = reply.send(result);
        }
        Request::SetClusterLoggerLevel {
            namespace,
            level,
            reply,
        } => {
            herder
                .set_cluster_logger_level(namespace, level, reply)
                .await
        }
        Request::IdleLeft(d, reply) => {
            let _ = reply.send(herder.idle_left(d));
        }
        Request::RefreshMetrics(reply) => {
            herder.refresh_metrics();
            let _ = reply.send(());
        }
        Request::Shutdown(reply) => {
            let _ = reply.send(herder.shutdown().await);
            return None;
        }
    }
    Some(herder)
}
