//! Stores that back the herder and the worker, each a trait with one implementation per
//! mode (Kafka Connect's backing stores):
//! - [`ConfigStore`]: connector and task configurations, target states ([`TargetState`]) —
//!   in memory or the configurations file (standalone), the config topic ([`topic_configs`]);
//! - [`StatusStore`]: connector, task and topic statuses — in memory (standalone), the status
//!   topic ([`topic_status`]);
//! - [`OffsetStore`]: source offsets — a JSON file (standalone, [`offsets_file`]), the offsets
//!   topic ([`topic_offsets`]).
//!
//! The topics are read and written through a [`topic_log`].

pub mod config_store;
pub mod configs_file;
pub mod internal;
pub mod journaled_offsets;
pub mod offsets_file;
pub mod status_store;
pub mod target_state;
pub mod topic_configs;
pub mod topic_log;
pub mod topic_offsets;
pub mod topic_status;
pub mod transactional_offsets;

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use connect_api::OffsetMap;

pub use config_store::{Applied, ConfigStore, FileConfigStore, MemoryConfigStore};
pub use journaled_offsets::JournaledOffsetStore;
pub use offsets_file::FileOffsetStore;
pub use status_store::{MemoryStatusStore, StatusStore};
pub use target_state::TargetState;
pub use topic_configs::TopicConfigStore;
pub use topic_offsets::TopicOffsetStore;
pub use topic_status::TopicStatusStore;
pub use transactional_offsets::TransactionalOffsets;

/// Errors of the stores.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A state file could not be read or written.
    #[error("{context} {path}: {source}")]
    Io {
        /// What was being done.
        context: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A state file exists but is not in the expected format; it is left untouched.
    #[error("The state file {path} is corrupt ({reason}). It was left untouched; move it away to start without it, or restore a backup.")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Other users can write the directory of a state file.
    #[error(transparent)]
    Unsafe(#[from] crate::fs_private::UnsafeDir),
    /// An internal topic's log failed (its message as it is).
    #[error(transparent)]
    TopicLog(#[from] topic_log::TopicLogError),
    /// An internal topic could not be read or written.
    #[error("{context}: {reason}")]
    Topic {
        /// What was being done.
        context: String,
        /// What went wrong.
        reason: String,
    },
}

/// A source partition with its offset (`None` deletes the stored offset).
pub type OffsetEntry = (Arc<OffsetMap>, Option<OffsetMap>);

/// Source offsets per connector and source partition.
#[async_trait]
pub trait OffsetStore: Send + Sync {
    /// The stored offset of `partition` for `connector`.
    fn get(&self, connector: &str, partition: &OffsetMap) -> Option<OffsetMap>;
    /// Every stored (partition, offset) of `connector`.
    fn connector_offsets(&self, connector: &str) -> Vec<(OffsetMap, OffsetMap)>;
    /// Stores offsets; they are durable when this returns.
    async fn put(&self, connector: &str, entries: Vec<OffsetEntry>) -> Result<(), StorageError>;
    /// Stores offsets a source task's producer already committed with their records (the
    /// embedded log's commit journal): only the readable view is updated. Default: [`Self::put`].
    async fn put_committed(
        &self,
        connector: &str,
        entries: Vec<OffsetEntry>,
    ) -> Result<(), StorageError> {
        self.put(connector, entries).await
    }
}
