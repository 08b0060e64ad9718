//! The records of Kafka Connect's three internal topics (distributed mode) and the pure state
//! they build, byte-compatible with Apache Kafka Connect's `KafkaConfigBackingStore`,
//! `KafkaStatusBackingStore` and `OffsetStorageWriter`.
//!
//! Nothing here does I/O: [`config_records`], [`status_records`] and [`offset_records`] turn
//! records into key/value bytes and back, [`config_state`] and [`status_records::StatusState`]
//! apply decoded records to in-memory state with Kafka Connect's rules. Values are written as
//! the worker's internal converter writes them: `JsonConverter` with `schemas.enable=false`
//! (see [`internal_converter`]).

pub mod config_records;
pub mod config_state;
pub mod offset_records;
pub mod status_records;

mod json;

pub use config_records::{ConfigProps, ConfigRecord, SessionKey};
pub use config_state::{ConfigChange, ConfigState, RestartRequest};
pub use json::internal_converter;
pub use status_records::{ComponentState, Status, StatusRecord, StatusState, TopicStatus};

/// Why a record of an internal topic could not be read or written. Every variant names the
/// record's key (or, for offsets, the connector), so the caller can log it and discard the
/// record as Kafka Connect does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// The value is not JSON the internal converter can read. Kafka Connect skips such a
    /// config record without counting it in the config topic's offset.
    #[error("Failed to convert the value of record {key} to Kafka Connect format: {reason}")]
    Conversion {
        /// The record's key.
        key: String,
        /// The converter's message.
        reason: String,
    },
    /// The key does not have the form its prefix announces (e.g. `task-x` without a task id).
    #[error("Discarding record with invalid key {key}: {reason}")]
    Key {
        /// The record's key.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The value is JSON but not in the format of its record kind.
    #[error("Ignoring record {key} because its value is in the wrong format: {reason}")]
    Value {
        /// The record's key.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A source partition or offset that Kafka Connect refuses to store or return; `message`
    /// is Kafka's own (`Offsets may only contain primitive types as values, ...`).
    #[error("{message}")]
    Offset {
        /// The connector whose offset it is.
        connector: String,
        /// Kafka Connect's message.
        message: String,
    },
}

impl RecordError {
    pub(crate) fn key(key: &str, reason: impl Into<String>) -> Self {
        Self::Key {
            key: key.to_owned(),
            reason: reason.into(),
        }
    }

    pub(crate) fn value(key: &str, reason: impl Into<String>) -> Self {
        Self::Value {
            key: key.to_owned(),
            reason: reason.into(),
        }
    }
}
