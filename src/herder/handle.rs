//! [`HerderHandle`]: the cloneable front of the herder actor, one method per request, each
//! sent with a oneshot reply.

use std::sync::Arc;

use connect_api::ConfigMap;
use tokio::sync::{mpsc, oneshot};

use super::{
    distributed, ConnectorInfo, ConnectorStateInfo, FenceOrigin, HerderError, InternalSignature,
    Request, TargetState, TaskId, TaskStateInfo,
};

/// A cloneable handle to the herder actor.
#[derive(Clone)]
pub struct HerderHandle {
    tx: mpsc::Sender<Request>,
    worker_id: String,
    /// Distributed: writes cluster-wide logger levels without the herder's loop.
    cluster_loggers: Option<Arc<distributed::cluster_loggers::ClusterLoggerWriter>>,
}

fn gone() -> HerderError {
    HerderError::Internal("The worker is shutting down".to_owned())
}

impl HerderHandle {
    pub(crate) fn new(tx: mpsc::Sender<Request>, worker_id: String) -> Self {
        Self {
            tx,
            worker_id,
            cluster_loggers: None,
        }
    }

    /// This handle with `writer` writing cluster-wide logger levels (distributed mode).
    pub(crate) fn with_cluster_loggers(
        mut self,
        writer: Arc<distributed::cluster_loggers::ClusterLoggerWriter>,
    ) -> Self {
        self.cluster_loggers = Some(writer);
        self
    }

    /// Whether the herder has stopped (requests are then answered with an error).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// `host:port` of this worker, as Kafka Connect's `worker_id`.
    pub fn worker_id(&self) -> &str {
        &self.worker_id
    }

    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> Request) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        self.tx.send(make(tx)).await.ok()?;
        rx.await.ok()
    }

    /// Names of all connectors, sorted.
    pub async fn connectors(&self) -> Vec<String> {
        self.ask(Request::Connectors).await.unwrap_or_default()
    }

    /// A connector's configuration and tasks.
    ///
    /// # Errors
    /// NotFound (`Connector <c> not found`).
    pub async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        self.ask(|r| Request::Info(name.to_owned(), r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// A connector's configuration as submitted, PASSWORD-type values shown as `[hidden]`.
    ///
    /// # Errors
    /// NotFound (`Connector <c> not found`).
    pub async fn connector_config(&self, name: &str) -> Result<ConfigMap, HerderError> {
        self.ask(|r| Request::Config(name.to_owned(), r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// A connector's configuration as submitted, secrets included (for PATCH, which merges
    /// onto it).
    ///
    /// # Errors
    /// NotFound (`Connector <c> not found`).
    pub async fn connector_config_unmasked(&self, name: &str) -> Result<ConfigMap, HerderError> {
        self.ask(|r| Request::RawConfig(name.to_owned(), r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// A connector's and its tasks' states.
    ///
    /// # Errors
    /// NotFound (`No status found for connector <c>`).
    pub async fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        self.ask(|r| Request::Status(name.to_owned(), r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// A connector's task configurations.
    ///
    /// # Errors
    /// NotFound (`Connector <c> not found`).
    pub async fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        self.ask(|r| Request::TaskConfigs(name.to_owned(), r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// One task's state.
    ///
    /// # Errors
    /// NotFound (`No status found for task <c>-<t>`).
    pub async fn task_status(&self, name: &str, task: u32) -> Result<TaskStateInfo, HerderError> {
        let status = self.connector_status(name).await.map_err(|_| {
            HerderError::NotFound(format!("No status found for task {name}-{task}"))
        })?;
        status
            .tasks
            .into_iter()
            .find(|t| t.id == task)
            .ok_or_else(|| HerderError::NotFound(format!("No status found for task {name}-{task}")))
    }

    /// Creates (or, with `allow_replace`, updates) a connector; returns whether it was created.
    ///
    /// # Errors
    /// Conflict (`Connector <c> already exists`), BadRequest (invalid configuration, with
    /// every problem), Internal (the connector failed to start).
    pub async fn put_connector_config(
        &self,
        name: &str,
        config: ConfigMap,
        allow_replace: bool,
    ) -> Result<(bool, ConnectorInfo), HerderError> {
        self.ask(|reply| Request::PutConfig {
            name: name.to_owned(),
            config,
            allow_replace,
            initial: TargetState::Started,
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
    }

    /// Creates a connector in `initial` state (KIP-980's `initial_state`): a PAUSED or STOPPED
    /// connector is validated and stored but not started until resumed.
    ///
    /// # Errors
    /// As [`HerderHandle::put_connector_config`].
    pub async fn create_connector(
        &self,
        name: &str,
        config: ConfigMap,
        initial: TargetState,
    ) -> Result<ConnectorInfo, HerderError> {
        self.ask(|reply| Request::PutConfig {
            name: name.to_owned(),
            config,
            allow_replace: false,
            initial,
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
        .map(|(_, info)| info)
    }

    /// Stops and removes a connector.
    ///
    /// # Errors
    /// NotFound (`Connector <c> not found`).
    pub async fn delete_connector(&self, name: &str) -> Result<(), HerderError> {
        self.ask(|r| Request::Delete(name.to_owned(), r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// Sets a connector's target state (pause, resume, stop).
    ///
    /// # Errors
    /// NotFound (`Unknown connector <c>`).
    pub async fn set_target_state(
        &self,
        name: &str,
        target: TargetState,
    ) -> Result<(), HerderError> {
        self.ask(|r| Request::SetTarget(name.to_owned(), target, r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// Restarts a connector (and, with `include_tasks`, its tasks; with `only_failed`, only
    /// failed instances). Returns the state with the restarted instances as `RESTARTING` when
    /// either flag is set (REST 202), `None` otherwise (REST 204).
    ///
    /// # Errors
    /// NotFound (`Unknown connector: <c>`).
    pub async fn restart_connector(
        &self,
        name: &str,
        include_tasks: bool,
        only_failed: bool,
    ) -> Result<Option<ConnectorStateInfo>, HerderError> {
        self.ask(|reply| Request::Restart {
            name: name.to_owned(),
            include_tasks,
            only_failed,
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
    }

    /// Restarts one task; it resumes from the last committed offsets.
    ///
    /// # Errors
    /// NotFound (`Unknown connector: <c>` / `Task <c>-<t> not found`).
    pub async fn restart_task(&self, name: &str, task: u32) -> Result<(), HerderError> {
        self.ask(|r| Request::RestartTask(name.to_owned(), task, r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// A connector's offsets, `{"offsets": [{"partition": {..}, "offset": {..}}]}` (KIP-875).
    ///
    /// # Errors
    /// NotFound (`Connector <c> not found`), Internal when they cannot be read.
    pub async fn connector_offsets(&self, name: &str) -> Result<serde_json::Value, HerderError> {
        self.ask(|r| Request::Offsets(name.to_owned(), r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// Alters (`Some(list)`) or resets (`None`) a stopped connector's offsets; with `auto_stop`
    /// a running connector is stopped, altered and restarted. Returns the message of the REST
    /// response.
    ///
    /// # Errors
    /// NotFound, BadRequest (not stopped, empty or malformed list), Internal.
    pub async fn alter_connector_offsets(
        &self,
        name: &str,
        offsets: Option<Vec<serde_json::Value>>,
        auto_stop: bool,
    ) -> Result<String, HerderError> {
        self.ask(|reply| Request::AlterOffsets {
            name: name.to_owned(),
            offsets,
            auto_stop,
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
    }

    /// The topics connector `name` has used (KIP-558); with `reset`, forgets them.
    ///
    /// # Errors
    /// Forbidden when `topic.tracking.enable` (or, for a reset, `topic.tracking.allow.reset`)
    /// is false.
    pub async fn connector_topics(
        &self,
        name: &str,
        reset: bool,
    ) -> Result<Vec<String>, HerderError> {
        self.ask(|r| Request::Topics(name.to_owned(), reset, r))
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// Writes task configurations received from another worker (internal `POST
    /// /connectors/{name}/tasks`, Kafka Connect's `putTaskConfigs`), after the distributed
    /// herder checked `signature` against the session key.
    ///
    /// # Errors
    /// Standalone: Internal (`Kafka Connect in standalone mode does not support externally
    /// setting task configurations.`). Distributed: the signature's refusal, `Forward` when
    /// this worker is not the leader, NotFound for an unknown connector.
    pub async fn put_task_configs(
        &self,
        name: &str,
        configs: Vec<ConfigMap>,
        signature: Option<InternalSignature>,
    ) -> Result<(), HerderError> {
        self.ask(|reply| Request::PutTaskConfigs {
            name: name.to_owned(),
            configs,
            signature,
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
    }

    /// A round of zombie fencing for source connector `name` (internal `PUT
    /// /connectors/{name}/fence`, or a task of this worker before it claims its transactional
    /// id).
    ///
    /// # Errors
    /// Standalone: Internal. Distributed: the signature's refusal, `Forward` when this worker
    /// is not the leader (REST origin), NotFound for an unknown connector, BadRequest for a
    /// sink connector, Conflict when new task configurations were written meanwhile, Internal
    /// when the fencing failed.
    pub async fn fence_zombies(&self, name: &str, origin: FenceOrigin) -> Result<(), HerderError> {
        self.ask(|reply| Request::FenceZombies {
            name: name.to_owned(),
            origin,
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
    }

    /// Whether task `task` of `name`, started with task configuration generation
    /// `generation`, may run: the generation is still current and the task still assigned
    /// here.
    ///
    /// # Errors
    /// Internal, saying which of the two does not hold.
    pub async fn verify_task_generation(
        &self,
        name: &str,
        task: u32,
        generation: u32,
    ) -> Result<(), HerderError> {
        self.ask(|reply| Request::VerifyTaskGeneration {
            name: name.to_owned(),
            task,
            generation,
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
    }

    /// Sets the level of logger `namespace` (and the loggers below it) on every worker of the
    /// cluster (KIP-976); `level` is a valid level name, written as given.
    ///
    /// # Errors
    /// Distributed: Internal when the record cannot be written to the config topic within 30 s
    /// (Kafka Connect's `Error writing logger level to Kafka`).
    pub async fn set_cluster_logger_level(
        &self,
        namespace: &str,
        level: &str,
    ) -> Result<(), HerderError> {
        if let Some(writer) = &self.cluster_loggers {
            return writer.write(namespace, level).await;
        }
        self.ask(|reply| Request::SetClusterLoggerLevel {
            namespace: namespace.to_owned(),
            level: level.to_owned(),
            reply,
        })
        .await
        .unwrap_or_else(|| Err(gone()))
    }

    /// How long until every task has been idle (or has ended) for `d`: `None` while one is
    /// busy, zero when all have (or the herder is gone).
    pub async fn idle_left(&self, d: std::time::Duration) -> Option<std::time::Duration> {
        self.ask(|r| Request::IdleLeft(d, r))
            .await
            .unwrap_or(Some(std::time::Duration::ZERO))
    }

    /// Sets the worker's connector and task counts and states in its metrics; `false` when the
    /// herder is gone.
    pub async fn refresh_metrics(&self) -> bool {
        self.ask(Request::RefreshMetrics).await.is_some()
    }

    /// Stops every connector and the actor; returns how the tasks stopped.
    pub async fn shutdown(&self) -> crate::worker::StopReport {
        self.ask(Request::Shutdown).await.unwrap_or_default()
    }
}
