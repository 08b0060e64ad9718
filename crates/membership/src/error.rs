//! Errors of group membership.

use std::time::Duration;

/// Why a request to Kafka, or the membership as a whole, failed.
#[derive(Debug, thiserror::Error)]
pub enum MembershipError {
    /// A socket operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done (with the broker address).
        context: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A request got no response in time.
    #[error("{0} timed out after {1:?}")]
    Timeout(String, Duration),
    /// A message could not be encoded or decoded.
    #[error("Kafka protocol: {0}")]
    Codec(String),
    /// The broker answered with an error code.
    #[error("{api} failed: {error} (error code {code})")]
    Kafka {
        /// The request.
        api: &'static str,
        /// The error code.
        code: i16,
        /// Its name.
        error: String,
    },
    /// The broker does not support a request at a version this client speaks.
    #[error("the broker does not support {0} at a version this client speaks")]
    Unsupported(&'static str),
    /// The Connect sub-protocol bytes were invalid.
    #[error(transparent)]
    Protocol(#[from] crate::protocol::ProtocolError),
    /// No bootstrap server could be reached.
    #[error("no bootstrap server reachable ({0})")]
    NoBroker(String),
    /// TLS or SASL authentication with the broker failed (never names the password).
    #[error("authentication with the broker failed: {0}")]
    Auth(String),
    /// The configuration is unusable.
    #[error("invalid group membership config: {0}")]
    Config(String),
}

impl MembershipError {
    /// The Kafka error of `api` for `code`.
    pub fn kafka(api: &'static str, code: i16) -> Self {
        let error = kafka_protocol::ResponseError::try_from_code(code)
            .map(|e| e.to_string())
            .unwrap_or_else(|| "none".into());
        Self::Kafka { api, code, error }
    }

    /// The Kafka error code, if this is a broker's error.
    pub fn code(&self) -> Option<i16> {
        match self {
            Self::Kafka { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// Kafka error codes the membership reacts to.
pub mod codes {
    /// COORDINATOR_LOAD_IN_PROGRESS
    pub const COORDINATOR_LOAD_IN_PROGRESS: i16 = 14;
    /// COORDINATOR_NOT_AVAILABLE
    pub const COORDINATOR_NOT_AVAILABLE: i16 = 15;
    /// NOT_COORDINATOR
    pub const NOT_COORDINATOR: i16 = 16;
    /// ILLEGAL_GENERATION
    pub const ILLEGAL_GENERATION: i16 = 22;
    /// UNKNOWN_MEMBER_ID
    pub const UNKNOWN_MEMBER_ID: i16 = 25;
    /// REBALANCE_IN_PROGRESS
    pub const REBALANCE_IN_PROGRESS: i16 = 27;
    /// MEMBER_ID_REQUIRED
    pub const MEMBER_ID_REQUIRED: i16 = 79;
}
