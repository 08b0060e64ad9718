//! The herder (control plane): owns connector configurations, target states and status, and
//! drives the worker. One actor task owns the state; REST and the CLI talk to it through a
//! cloneable [`HerderHandle`] with oneshot replies, so changes are serialized without locks.

pub mod core;
mod dispatch;
pub mod distributed;
pub mod entities;
mod error;
pub mod exactly_once_preflight;
mod handle;
pub mod offsets;
#[cfg(test)]
mod reconfigure_tests;
pub mod spec;
pub mod standalone;
mod topic_tracking;
pub mod validate;

use connect_api::ConfigMap;
use tokio::sync::oneshot;

pub use crate::storage::TargetState;
pub use entities::{
    ConnectorInfo, ConnectorStateInfo, ConnectorType, StateInfo, TaskId, TaskStateInfo,
};
pub use error::{Cause, HerderError};
pub use handle::HerderHandle;

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
