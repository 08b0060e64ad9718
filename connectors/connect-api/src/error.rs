//! The one error type of the plugin contract.

/// Result with [`ConnectError`].
pub type Result<T, E = ConnectError> = std::result::Result<T, E>;

/// An error raised by a connector, task, converter or transform.
///
/// [`ConnectError::is_retriable`] tells the runtime whether the operation may be tried again
/// (Kafka Connect's `RetriableException`).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A configuration value is wrong.
    #[error("Invalid value for configuration {key}: {message}")]
    Config {
        /// The configuration key.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// A record could not be converted or processed (Kafka Connect's `DataException`).
    #[error("{0}")]
    Data(String),
    /// A transient failure: the same operation may succeed later.
    #[error("{0}")]
    Retriable(String),
    /// An I/O failure, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, e.g. `Could not open file /tmp/in.txt`.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The plugin instance can no longer work (the process that ran it died, e.g. the Java
    /// plugin host), but a new instance may: the runtime neither retries the call on this
    /// instance nor tolerates it as a record's failure; it fails the instance retriably, so
    /// that a new one is started (a task's automatic restart, a connector's restart).
    #[error("{0}")]
    InstanceLost(String),
    /// Any other failure.
    #[error("{0}")]
    Other(String),
}

impl ConnectError {
    /// A data error with the given message.
    pub fn data(message: impl Into<String>) -> Self {
        Self::Data(message.into())
    }

    /// A configuration error for `key`.
    pub fn config(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Config {
            key: key.into(),
            message: message.into(),
        }
    }

    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }

    /// Whether trying again may succeed: the same call ([`ConnectError::Retriable`]), or a new
    /// instance ([`ConnectError::InstanceLost`]).
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Retriable(_) | Self::InstanceLost(_))
    }

    /// Whether the same call on the same instance may succeed later (Kafka Connect's
    /// `RetriableException`): the runtime retries it in place.
    pub fn is_retriable_in_place(&self) -> bool {
        matches!(self, Self::Retriable(_))
    }

    /// Whether the instance that failed is gone ([`ConnectError::InstanceLost`]).
    pub fn is_instance_lost(&self) -> bool {
        matches!(self, Self::InstanceLost(_))
    }
}
