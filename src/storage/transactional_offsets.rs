//! Source offsets written by a source task's own transactional producer (KIP-618): the store
//! hands out the offsets records (same key and value bytes as its own writes), and learns of
//! them once their transaction committed.

use async_trait::async_trait;

use super::{OffsetEntry, StorageError};
use crate::topics::ProducerRecord;

/// An offset store whose records can be written inside a producer transaction.
#[async_trait]
pub trait TransactionalOffsets: Send + Sync {
    /// The offsets records of `entries` for `connector`, to the store's topic.
    ///
    /// # Errors
    /// When an offset cannot be encoded.
    fn offset_records(
        &self,
        connector: &str,
        entries: &[OffsetEntry],
    ) -> Result<Vec<ProducerRecord>, StorageError>;
    /// Returns once every committed offsets record up to the topic's current end has been read
    /// (a task reads this before it starts, after fencing its previous generation).
    ///
    /// # Errors
    /// When the topic cannot be read.
    async fn read_to_end(&self) -> Result<(), StorageError>;
    /// Records `entries` of `connector`, whose transaction committed, as stored.
    fn committed(&self, connector: &str, entries: Vec<OffsetEntry>);
}
