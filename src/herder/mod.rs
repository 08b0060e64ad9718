//! The herder (control plane): owns connector configurations, target states and status, and
//! drives the worker. One actor task owns the state; REST and the CLI talk to it through a
//! cloneable [`HerderHandle`] with oneshot replies, so changes are serialized without locks.

pub mod core;
mod dispatch;
pub mod distributed;
pub mod entities;
pub mod exactly_once_preflight;
pub mod offsets;
#[cfg(test)]
mod reconfigure_tests;
pub mod spec;
pub mod standalone;
pub mod transform_spec;

use std::sync::Arc;

use connect_api::ConfigMap;
use tokio::sync::{mpsc, oneshot};

pub use crate::storage::TargetState;
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
    /// 503: this worker cannot serve the request yet (e.g. it has not read the session key).
    #[error("{0}")]
    Unavailable(String),
    /// This request must be served by another worker: the leader (writes: create, update,
    /// PATCH, delete, pause/resume/stop, restart a connector, alter/reset offsets, task
    /// configurations) or the worker that runs a task (restarting it). `Some(url)`: that
    /// worker's REST URL as it advertises it (e.g. `http://127.0.0.1:8083/`); `None`: no
    /// leader is known (a rebalance is in progress). REST forwards the request (Kafka Connect's
    /// `RequestTargetException`: `NotLeaderException`, `NotAssignedException`) with the
    /// distributed herder's [`client`](distributed::client).
    #[error("{}", match .0 {
        Some(url) => format!("This request must be served by the worker at {url}"),
        None => "This request must be served by the leader, which is not known yet".to_owned(),
    })]
    Forward(Option<String>),
}

impl HerderError {
    /// Kafka Connect's 409 when a request raced a configuration change
    /// (`RebalanceNeededException`): the caller may retry.
    pub fn rebalance_needed() -> Self {
        Self::Conflict(
            "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)"
                .to_owned(),
        )
    }
}

impl From<distributed::request_signature::Rejection> for HerderError {
    /// Kafka Connect's status for each refusal: 400, 403 (invalid signature) or 503 (no
    /// session key yet).
    fn from(rejection: distributed::request_signature::Rejection) -> Self {
        let message = rejection.to_string();
        match rejection.status() {
            403 => Self::Forbidden(message),
            503 => Self::Unavailable(message),
            _ => Self::BadRequest(message),
        }
    }
}

/// The signature of an internal request (KIP-507) as received: the two header values and the
/// exact body bytes they sign (Kafka Connect's `InternalRequestSignature`). REST passes `None`
/// when either header is absent, as Kafka Connect does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalSignature {
    /// The value of `X-Connect-Request-Signature-Algorithm` (a Java MAC name, `HmacSHA256`).
    pub algorithm: String,
    /// The value of `X-Connect-Authorization` (the base64 MAC of `body`).
    pub signature: String,
    /// The request body exactly as received.
    pub body: Vec<u8>,
}

impl InternalSignature {
    /// Checks `signature` (`None`: the request was not signed) against the session `key` (`None`:
    /// not read yet) and the accepted algorithms (`inter.worker.verification.algorithms`), with
    /// [`request_signature::verify`](distributed::request_signature::verify).
    ///
    /// # Errors
    /// The refusal, as a [`HerderError`] with Kafka Connect's status (400, 403 or 503).
    pub fn check(
        signature: Option<&Self>,
        key: Option<&distributed::request_signature::SigningKey>,
        accepted: &[String],
    ) -> Result<(), HerderError> {
        let (algorithm, mac, body) = match signature {
            Some(s) => (
                Some(s.algorithm.as_str()),
                Some(s.signature.as_str()),
                &s.body[..],
            ),
            None => (None, None, &[][..]),
        };
        distributed::request_signature::verify(algorithm, mac, body, key, accepted)
            .map_err(HerderError::from)
    }
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
    /// `POST /connectors/{name}/tasks` (internal, Kafka Connect's `putTaskConfigs`): a follower
    /// whose connector planned new task configurations sends them to the leader.
    ///
    /// The standalone herder refuses it (500 `Kafka Connect in standalone mode does not
    /// support externally setting task configurations.`). The distributed herder:
    /// 1. when the cluster signs its requests, check the signature with
    ///    [`InternalSignature::check`]`(signature.as_ref(), current session key,
    ///    inter.worker.verification.algorithms)` (which calls
    ///    [`request_signature::verify`](distributed::request_signature::verify)) and answer a
    ///    refusal as it is (400/403/503 with Kafka Connect's message; `None`:
    ///    `Internal request missing required signature`, 400);
    /// 2. when this worker is not the leader: `Err(HerderError::Forward(leader_url))` (REST then
    ///    forwards the request, signature headers included, to the leader);
    /// 3. an unknown connector: `NotFound("Connector <name> not found")`;
    /// 4. otherwise write the task configurations to the config topic (then the commit record)
    ///    and answer `Ok(())` (REST 204).
    PutTaskConfigs {
        name: String,
        configs: Vec<ConfigMap>,
        /// `None` when either signature header is absent.
        signature: Option<InternalSignature>,
        reply: oneshot::Sender<Result<(), HerderError>>,
    },
    /// A round of zombie fencing for an exactly-once source connector (KIP-618; Kafka
    /// Connect's `fenceZombieSourceTasks`): the leader fences the transactional ids of the
    /// connector's previous task generation when needed and writes its task-count record.
    /// Standalone: refused (500 `Kafka Connect in standalone mode does not support exactly-once
    /// source connectors.`).
    FenceZombies {
        name: String,
        /// Who asks: another worker (internal `PUT /connectors/{c}/fence`) or a task here.
        origin: FenceOrigin,
        reply: oneshot::Sender<Result<(), HerderError>>,
    },
    /// An exactly-once source task claimed its transactional id: checks that its task
    /// configuration generation is still the current one and that it is still assigned here.
    VerifyTaskGeneration {
        name: String,
        task: u32,
        generation: u32,
        reply: oneshot::Sender<Result<(), HerderError>>,
    },
    /// `PUT /admin/loggers/{namespace}?scope=cluster` (KIP-976; Kafka Connect's
    /// `setClusterLoggerLevel`), with a level REST has checked, as the request spelled it.
    /// Standalone: this worker is the whole cluster, the level is set here (as worker scope).
    /// Distributed: any worker (no forwarding) writes `logger-cluster-<namespace>` to the config
    /// topic, and every worker applies it when it reads it back.
    SetClusterLoggerLevel {
        namespace: String,
        level: String,
        reply: oneshot::Sender<Result<(), HerderError>>,
    },
    /// How long until every task has been idle for the duration (`None`: one is busy, or the
    /// distributed herder has not settled).
    IdleLeft(
        std::time::Duration,
        oneshot::Sender<Option<std::time::Duration>>,
    ),
    /// Sets the worker-wide metrics (counts, states) from what runs on this worker, before
    /// `GET /metrics` encodes them.
    RefreshMetrics(oneshot::Sender<()>),
    Shutdown(oneshot::Sender<crate::worker::StopReport>),
}

/// Who asks for a round of zombie fencing.
#[derive(Debug, Clone)]
pub enum FenceOrigin {
    /// Another worker, through the internal REST endpoint, with the request's signature
    /// (`None` when a signature header is absent); a follower answers `Forward`.
    Rest(Option<InternalSignature>),
    /// An exactly-once source task of this worker; a follower sends the request to the leader.
    Task,
}

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
