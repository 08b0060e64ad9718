//! Why a task stopped with an error.

use connect_api::ConnectError;

use crate::storage::StorageError;
use crate::topics::TopicError;

/// A task failure (the task goes to FAILED).
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// The connector's task raised an error.
    #[error("{stage} failed: {source}")]
    Connect {
        /// What the worker was doing, e.g. `Task poll` or `Value conversion`.
        stage: &'static str,
        /// The error.
        #[source]
        source: ConnectError,
    },
    /// A record could not be converted; `record` says which (topic and partition/offset).
    #[error("Record conversion failed for {record}: {source}")]
    Conversion {
        /// The record: `topic 't' partition 0 offset 42`, or for a source record its topic and
        /// source partition and offset.
        record: String,
        /// The converter's error.
        #[source]
        source: ConnectError,
    },
    /// A transform failed on a record; `record` says which.
    #[error("Transformation failed for {record}: {source}")]
    Transform {
        /// The record, as for [`TaskError::Conversion`].
        record: String,
        /// The failing transform and its error.
        #[source]
        source: super::transform_chain::TransformError,
    },
    /// The topic layer failed.
    #[error("Topic access failed: {0}")]
    Topic(#[from] TopicError),
    /// Offsets could not be stored.
    #[error("Offset storage failed: {0}")]
    Storage(#[from] StorageError),
}

impl TaskError {
    /// Whether the failure is transient (a restart may succeed).
    pub fn is_retriable(&self) -> bool {
        match self {
            Self::Connect { source, .. } | Self::Conversion { source, .. } => source.is_retriable(),
            Self::Transform { source, .. } => source.source.is_retriable(),
            Self::Topic(e) => e.is_retriable(),
            Self::Storage(_) => false,
        }
    }

    /// A connect error at `stage`.
    pub fn at(stage: &'static str) -> impl FnOnce(ConnectError) -> Self {
        move |source| Self::Connect { stage, source }
    }
}
