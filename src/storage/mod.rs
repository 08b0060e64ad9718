//! Stores that back the herder and the worker. Standalone keeps source offsets in a JSON file
//! ([`offsets_file`]); distributed mode keeps them in the offsets topic ([`topic_offsets`], on a
//! [`topic_log`]).

pub mod configs_file;
pub mod internal;
pub mod journaled_offsets;
pub mod offsets_file;
pub mod target_state;
pub mod topic_log;
pub mod topic_offsets;
pub mod topic_status;
pub mod transactional_offsets;

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use connect_api::OffsetMap;

pub use journaled_offsets::JournaledOffsetStore;
pub use offsets_file::FileOffsetStore;
pub use target_state::TargetState;
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
