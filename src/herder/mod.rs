//! The herder (control plane): owns connector configurations, target states and status, and
//! drives the worker. One actor task owns the state; REST and the CLI talk to it through a
//! cloneable [`HerderHandle`] with oneshot replies, so changes are serialized without locks.

pub mod core;
pub mod distributed;
pub mod entities;
pub mod offsets;
pub mod spec;
pub mod standalone;
pub mod transform_spec;

use connect_api::ConfigMap;
use tokio::sync::{mpsc, oneshot};

pub use entities::{
    ConnectorInfo, ConnectorStateInfo, ConnectorType, StateInfo, TaskId, TaskStateInfo,
};

/// Why a herder request failed; maps to an HTTP status in REST.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HerderError {
    /// 404: no such connector or task.
    #[error("{0}")]
    NotFound(String),
    /// 409: the connector exists already, or a conflicting operation.
    #[error("{0}")]
    Conflict(String),
    /// 400: invalid request or configuration.
    #[error("{0}")]
    BadRequest(String),
    /// 403: the operation is disabled by the worker's configuration.
    #[error("{0}")]
    Forbidden(String),
    /// 500: anything else.
    #[error("{0}")]
    Internal(String),
    /// The request must be served by another worker (the leader, or the owner of a task):
    /// `Some` its REST URL as advertised (e.g. `http://127.0.0.1:8083/`), `None` when no leader
    /// is known (a rebalance is in progress). REST forwards it (Kafka Connect's
    /// `NotLeaderException` / `NotAssignedException`).
    #[error("This request must be served by another worker of the cluster")]
    Forward(Option<String>),
}

/// What a connector should be doing (Kafka Connect's `TargetState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetState {
    /// Running.
    Started,
    /// Tasks stopped, configuration and task list kept; resumes where it was.
    Paused,
    /// Connector and tasks stopped, task list emptied (KIP-875).
    Stopped,
}

/// A request to the herder actor.
pub(crate) enum Request {
    Connectors(oneshot::Sender<Vec<String>>),
    Info(String, oneshot::Sender<Result<ConnectorInfo, HerderError>>),
    Config(String, oneshot::Sender<Result<ConfigMap, HerderError>>),
    RawConfig(String, oneshot::Sender<Result<ConfigMap, HerderError>>),
    Status(
        String,
        oneshot::Sender<Result<ConnectorStateInfo, HerderError>>,
    ),
    TaskConfigs(
        String,
        oneshot::Sender<Result<Vec<(TaskId, ConfigMap)>, HerderError>>,
    ),
    PutConfig {
        name: String,
        config: ConfigMap,
        allow_replace: bool,
        initial: TargetState,
        reply: oneshot::Sender<Result<(bool, ConnectorInfo), HerderError>>,
    },
    Delete(String, oneshot::Sender<Result<(), HerderError>>),
    SetTarget(
        String,
        TargetState,
        oneshot::Sender<Result<(), HerderError>>,
    ),
    Restart {
        name: String,
        include_tasks: bool,
        only_failed: bool,
        reply: oneshot::Sender<Result<Option<ConnectorStateInfo>, HerderError>>,
    },
    Offsets(
        String,
        oneshot::Sender<Result<serde_json::Value, HerderError>>,
    ),
    AlterOffsets {
        name: String,
        /// `None`: reset all.
        offsets: Option<Vec<serde_json::Value>>,
        auto_stop: bool,
        reply: oneshot::Sender<Result<String, HerderError>>,
    },
    RestartTask(String, u32, oneshot::Sender<Result<(), HerderError>>),
    Topics(
        String,
        bool,
        oneshot::Sender<Result<Vec<String>, HerderError>>,
    ),
    IdleFor(std::time::Duration, oneshot::Sender<bool>),
    Shutdown(oneshot::Sender<crate::worker::StopReport>),
}

/// A cloneable handle to the herder actor.
#[derive(Clone)]
pub struct HerderHandle {
    tx: mpsc::Sender<Request>,
    worker_id: String,
}

fn gone() -> HerderError {
    HerderError::Internal("The worker is shutting down".to_owned())
}

impl HerderHandle {
    pub(crate) fn new(tx: mpsc::Sender<Request>, worker_id: String) -> Self {
        Self { tx, worker_id }
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

    /// Whether every task has been idle (or has ended) for `d`.
    pub async fn idle_for(&self, d: std::time::Duration) -> bool {
        self.ask(|r| Request::IdleFor(d, r)).await.unwrap_or(true)
    }

    /// Stops every connector and the actor; returns how the tasks stopped.
    pub async fn shutdown(&self) -> crate::worker::StopReport {
        self.ask(Request::Shutdown).await.unwrap_or_default()
    }
}
