//! Why a herder request failed, with the HTTP status REST gives it.

use std::sync::Arc;

use super::distributed;

/// The cause of a failure, shared so that a [`HerderError`] stays cheap to clone; two causes
/// are equal when their messages are.
#[derive(Debug, Clone)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    /// `error` as a cause.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Arc::new(error))
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for Cause {}

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
    /// 500: an operation failed for a cause that is kept: `<context>: <cause>`.
    #[error("{context}: {cause}")]
    Failed {
        /// What was being done, e.g. `Could not write to the config topic`.
        context: &'static str,
        /// Why it failed.
        #[source]
        cause: Cause,
    },
    /// 500: an unexpected failure, answered with its cause's message (the cause is kept).
    #[error("{0}")]
    Unexpected(#[source] Cause),
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
    /// A 500 for `cause`, answered with its message.
    pub fn unexpected(cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Unexpected(Cause::new(cause))
    }

    /// A 500 for `cause`, with what was being done.
    pub fn failed(
        context: &'static str,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::Failed {
            context,
            cause: Cause::new(cause),
        }
    }

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

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn a_failure_keeps_its_cause_and_message() {
        let e = HerderError::failed(
            "Could not write to the config topic",
            std::io::Error::other("broker down"),
        );
        assert_eq!(
            e.to_string(),
            "Could not write to the config topic: broker down"
        );
        assert_eq!(
            e.source().map(ToString::to_string).as_deref(),
            Some("broker down")
        );
        assert_eq!(e.clone(), e);
    }
}
