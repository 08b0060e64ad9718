//! Producers that write in transactions (KIP-618 exactly-once sources): records of a source
//! task and its offsets records become visible to `read_committed` readers together, or not at
//! all.

use futures::future::BoxFuture;

use super::{TopicError, TopicProducer};

/// A producer with one transactional id; every record sent between [`begin`] and [`commit`]
/// is committed or aborted as one.
///
/// [`begin`]: TransactionalProducer::begin
/// [`commit`]: TransactionalProducer::commit
pub trait TransactionalProducer: TopicProducer {
    /// Registers the transactional id with the cluster. Fences every older producer with the
    /// same id (its open transaction is aborted and its later writes refused), so a task's
    /// previous generation (a zombie) can no longer write. Call once, before anything else.
    fn init(&self) -> BoxFuture<'_, Result<(), TopicError>>;
    /// Starts a transaction.
    ///
    /// # Errors
    /// When the producer cannot start one (fenced, or a transaction is open).
    fn begin(&self) -> Result<(), TopicError>;
    /// Sends what is queued and commits the open transaction. An error that is not retriable
    /// leaves the transaction to be aborted (or the producer fenced).
    fn commit(&self) -> BoxFuture<'_, Result<(), TopicError>>;
    /// Aborts the open transaction; its records are never seen by `read_committed` readers.
    fn abort(&self) -> BoxFuture<'_, Result<(), TopicError>>;
}
