//! The group membership settings of a distributed worker on Kafka, read from its worker file:
//! `group.id`, the timeouts (`session.timeout.ms`, `heartbeat.interval.ms`,
//! `rebalance.timeout.ms`, `scheduled.rebalance.max.delay.ms`, `request.timeout.ms`,
//! `retry.backoff.ms`), `connect.protocol`, and the worker's top-level client security
//! settings (`security.protocol`, `ssl.*`, `sasl.*`), which Kafka Connect's group client
//! shares with its other clients.

use std::time::Duration;

use connect_membership::protocol::ConnectProtocol;
use connect_membership::MemberConfig;

use crate::config::WorkerConfig;
use crate::topics::kafka::member_security::security;
use crate::topics::kafka::security::SecurityConfigError;

/// A membership setting that cannot be used, naming its key.
#[derive(Debug, thiserror::Error)]
#[error("Invalid value for '{key}': {reason}")]
pub struct MemberConfigError {
    /// The worker key.
    pub key: String,
    /// Why.
    pub reason: String,
}

impl From<SecurityConfigError> for MemberConfigError {
    fn from(e: SecurityConfigError) -> Self {
        Self {
            key: e.key,
            reason: e.reason,
        }
    }
}

fn error(key: &str, reason: impl Into<String>) -> MemberConfigError {
    MemberConfigError {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

fn millis(worker: &WorkerConfig, key: &str, default: u64) -> Duration {
    let ms = worker
        .values()
        .long(key)
        .and_then(|v| u64::try_from(v).ok())
        .unwrap_or(default);
    Duration::from_millis(ms)
}

/// The membership of `worker` in its group, advertising `url` (this worker's REST URL).
///
/// # Errors
/// A security setting the group client cannot use, or a missing `bootstrap.servers`.
pub fn member_config(worker: &WorkerConfig, url: &str) -> Result<MemberConfig, MemberConfigError> {
    let bootstrap = worker
        .bootstrap_servers()
        .ok_or_else(|| {
            error(
                "bootstrap.servers",
                "a worker cluster needs a Kafka cluster",
            )
        })?
        .join(",");
    let group = worker.group_id().unwrap_or("connect-cluster");
    let mut config = MemberConfig::new(&bootstrap, group, url);
    // Kafka Connect's client ids: `client.id`, or `connect-<n>` when it is empty.
    config.client_id = worker
        .values()
        .string("client.id")
        .filter(|id| !id.is_empty())
        .map_or_else(|| "connect-1".to_owned(), str::to_owned);
    if let Some(protocol) = worker.values().string("connect.protocol") {
        config.protocol = ConnectProtocol::from_config(protocol).ok_or_else(|| {
            error(
                "connect.protocol",
                "expected eager, compatible or sessioned",
            )
        })?;
    }
    config.session_timeout = millis(worker, "session.timeout.ms", 10_000);
    config.heartbeat_interval = millis(worker, "heartbeat.interval.ms", 3_000);
    config.rebalance_timeout = millis(worker, "rebalance.timeout.ms", 60_000);
    config.scheduled_rebalance_max_delay = millis(worker, "scheduled.rebalance.max.delay.ms", 0);
    config.request_timeout = millis(worker, "request.timeout.ms", 40_000);
    config.retry_backoff = millis(worker, "retry.backoff.ms", 100);
    config.security = security(worker.originals())?;
    Ok(config)
}
