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

    /// Whether the failed operation may be retried.
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Retriable(_))
    }
}
