//! Why a task stopped with an error.

use connect_api::ConnectError;

use super::zombie_fencing::FencingRefused;
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
    /// A stage failed on a record and `errors.tolerance` did not allow skipping it.
    #[error("Tolerance exceeded in error handler: stage {stage} with class '{class_name}' failed for {record}: {source}")]
    Tolerance {
        /// Kafka's stage name (`VALUE_CONVERTER`, `TRANSFORMATION`, ...).
        stage: &'static str,
        /// The Java class executing the stage.
        class_name: String,
        /// The record: `topic 't' partition 0 offset 42`, or a source record's topic and source
        /// partition and offset.
        record: String,
        /// The stage's error.
        #[source]
        source: ConnectError,
    },
    /// The dead letter queue did not take a record.
    #[error("Could not produce message to dead letter queue: {0}")]
    DeadLetterQueue(#[source] TopicError),
    /// The topic layer failed.
    #[error("Topic access failed: {0}")]
    Topic(#[from] TopicError),
    /// The herder refused an exactly-once source task's start: its zombie fencing
    /// (`Zombie fencing`, retriable) or its generation check (`Exactly-once task start`).
    #[error("{stage} failed: {source}")]
    Fencing {
        /// Which check.
        stage: &'static str,
        /// Whether a restart may succeed.
        retriable: bool,
        /// The herder's refusal.
        #[source]
        source: FencingRefused,
    },
    /// Offsets could not be stored.
    #[error("Offset storage failed: {0}")]
    Storage(#[from] StorageError),
}

impl TaskError {
    /// Whether the failure is transient (a restart may succeed).
    pub fn is_retriable(&self) -> bool {
        match self {
            Self::Connect { source, .. } | Self::Tolerance { source, .. } => source.is_retriable(),
            Self::Topic(e) | Self::DeadLetterQueue(e) => e.is_retriable(),
            Self::Fencing { retriable, .. } => *retriable,
            Self::Storage(_) => false,
        }
    }

    /// A connect error at `stage`.
    pub fn at(stage: &'static str) -> impl FnOnce(ConnectError) -> Self {
        move |source| Self::Connect { stage, source }
    }
}
