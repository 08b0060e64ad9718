//! Where topic data lives: the traits the worker uses, and their implementations —
//! [`local`] (the embedded durable log, used without `bootstrap.servers`) and, later, Kafka.

pub mod internal_topic;
pub mod kafka;
pub mod local;
pub mod topic_creation;
pub mod transactional;

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
pub use connect_api::{SinkPositions, TopicPartition};
use futures::future::BoxFuture;
pub use transactional::TransactionalProducer;

/// Offsets per topic partition: the next offset to read (last processed + 1).
pub type PartitionOffsets = BTreeMap<TopicPartition, i64>;

/// A record to append to a topic.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProducerRecord {
    /// Topic name.
    pub topic: String,
    /// Partition; `None` lets the partitioner choose (murmur2 of the key, or spread when null).
    pub partition: Option<i32>,
    /// Key bytes; `None` is a null key.
    pub key: Option<Vec<u8>>,
    /// Value bytes; `None` is a null value (tombstone).
    pub value: Option<Vec<u8>>,
    /// Timestamp in epoch milliseconds; `None` lets the log use the append time.
    pub timestamp: Option<i64>,
    /// Headers, in order; a `None` value is a null header value.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// A record read from a topic.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumedRecord {
    /// Topic name.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset in the partition.
    pub offset: i64,
    /// Timestamp in epoch milliseconds.
    pub timestamp: i64,
    /// Key bytes.
    pub key: Option<Vec<u8>>,
    /// Value bytes.
    pub value: Option<Vec<u8>>,
    /// Headers, in order.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// What a sink consumer subscribes to.
#[derive(Debug, Clone)]
pub enum Subscription {
    /// These topics (created if absent).
    Topics(Vec<String>),
    /// Every topic whose whole name matches this `topics.regex`, now or later.
    Pattern(TopicPattern),
}

/// A `topics.regex`: the pattern as written (for clients with their own regex engine) and a
/// regex that matches whole topic names.
#[derive(Debug, Clone)]
pub struct TopicPattern {
    source: String,
    whole: regex::Regex,
}

impl TopicPattern {
    /// The pattern `pattern`, matched against whole topic names.
    ///
    /// # Errors
    /// When it is not a valid regular expression.
    pub fn new(pattern: &str) -> Result<Self, regex::Error> {
        Ok(Self {
            source: pattern.to_owned(),
            whole: regex::Regex::new(&format!("^(?:{pattern})$"))?,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the whole of `topic` matches.
    pub fn matches(&self, topic: &str) -> bool {
        self.whole.is_match(topic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_matches_whole_topic_names_only() {
        let p = TopicPattern::new("a|ab").unwrap();
        assert!(
            p.matches("ab"),
            "an alternative that matches the whole name counts"
        );
        assert!(p.matches("a"));
        assert!(!p.matches("abc"));
        assert!(!p.matches("xab"));
        assert_eq!(p.as_str(), "a|ab");
        assert!(Subscription::Pattern(p).matches("ab"));
        assert!(Subscription::Topics(vec!["t".into()]).matches("t"));
    }
}

/// Partitions taken away from a consumer by a group rebalance. The sink finishes what it
/// consumed from them (put, flush, commit), closes them, and then signals `done`; the
/// rebalance waits for that (bounded).
#[derive(Debug)]
pub struct Revocation {
    /// The partitions being revoked.
    pub partitions: Vec<TopicPartition>,
    /// Dropped or sent when the sink is done with them.
    pub done: std::sync::mpsc::SyncSender<()>,
}

/// Who a client is for, and the connector's client overrides.
#[derive(Debug, Clone, Default)]
pub struct ClientSpec {
    /// Connector name.
    pub connector: String,
    /// Task number.
    pub task: u32,
    /// The connector's `producer.override.*` or `consumer.override.*` settings, prefix removed.
    pub overrides: connect_api::ConfigMap,
    /// The connector's `admin.override.*` settings (prefix removed), for the admin client that
    /// creates topics.
    pub admin_overrides: connect_api::ConfigMap,
    /// Source connectors: KIP-158 topic creation rules, when configured and enabled.
    pub topic_creation: Option<std::sync::Arc<topic_creation::TopicCreation>>,
}

/// Errors of the topic layer.
#[derive(Debug, thiserror::Error)]
pub enum TopicError {
    /// An I/O failure, with the path or operation.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Data on disk is not in the expected format.
    #[error("{0}")]
    Corrupt(String),
    /// The log is used by another process or was closed.
    #[error("{0}")]
    Unavailable(String),
    /// A transient failure that may succeed when retried.
    #[error("{0}")]
    Retriable(String),
    /// The cluster refused the client for good: failed authentication or TLS handshake
    /// (librdkafka's reason, which holds no secret).
    #[error("{0}")]
    Refused(String),
    /// The data directory is not private to the worker's user (others can write it).
    #[error(transparent)]
    Unsafe(#[from] crate::fs_private::UnsafeDir),
    /// Any other failure.
    #[error("{0}")]
    Other(String),
}

impl TopicError {
    /// Whether the operation may be retried.
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Retriable(_))
    }
}

/// Resolves once every record of a batch is durable (embedded log: fsynced; Kafka: acks=all).
pub type Delivery = BoxFuture<'static, Result<(), TopicError>>;

/// Where one record of a batch was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordPosition {
    /// The partition.
    pub partition: i32,
    /// The record's offset in it.
    pub offset: i64,
    /// The record's timestamp in epoch milliseconds (`-1` when the log did not say).
    pub timestamp: i64,
}

/// As [`Delivery`], resolving to where each record of the batch was written, in the batch's
/// order.
pub type PositionedDelivery = BoxFuture<'static, Result<Vec<RecordPosition>, TopicError>>;

/// The source offsets a batch of a source task completes: per source partition, the offset of
/// its last record in the batch (`None` deletes the offset).
#[derive(Debug, Clone, PartialEq)]
pub struct SourceOffsets {
    /// The connector the offsets belong to.
    pub connector: String,
    /// (source partition, source offset) pairs, in submission order.
    pub offsets: Vec<(
        std::sync::Arc<connect_api::OffsetMap>,
        Option<connect_api::OffsetMap>,
    )>,
}

/// Appends records to topics.
pub trait TopicProducer: Send + Sync {
    /// Queues a batch; records of one partition keep their order. The returned future resolves
    /// when the whole batch is durable. May wait (back-pressure) while too much is in flight.
    fn send_batch(
        &self,
        records: Vec<ProducerRecord>,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>>;

    /// How many batches a source task may have sent and not yet seen acknowledged. Only a cap
    /// on the task's bookkeeping: what normally stops a source is the producer's own bound on
    /// bytes in flight (`send_batch` waits).
    fn max_in_flight_batches(&self) -> usize {
        8
    }

    /// Whether [`Self::send_batch_with_offsets`] makes a batch and its source offsets durable
    /// in one atomic step (the embedded log's commit journal), so a restart resumes exactly
    /// after the last durable batch.
    fn commits_source_offsets(&self) -> bool {
        false
    }

    /// As [`Self::send_batch`], with the source offsets the batch completes, made durable
    /// atomically with its records (`records` may be empty: the offsets alone are committed).
    /// Batches are committed in the order they are queued, so the offsets of a durable batch
    /// never run ahead of an earlier batch. Only when [`Self::commits_source_offsets`].
    fn send_batch_with_offsets(
        &self,
        records: Vec<ProducerRecord>,
        offsets: SourceOffsets,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
        let _ = (records, offsets);
        Box::pin(async {
            Err(TopicError::Other(
                "this producer cannot commit source offsets with its records".to_string(),
            ))
        })
    }

    /// As [`Self::send_batch`] (or [`Self::send_batch_with_offsets`] when `offsets` are
    /// given), telling where each record was written once durable: for tasks that want each
    /// record's acknowledgement (Kafka Connect's `SourceTask.commitRecord`).
    fn send_batch_positioned(
        &self,
        records: Vec<ProducerRecord>,
        offsets: Option<SourceOffsets>,
    ) -> BoxFuture<'_, Result<PositionedDelivery, TopicError>> {
        let _ = (records, offsets);
        Box::pin(async {
            Err(TopicError::Other(
                "this producer cannot tell where it wrote each record".to_string(),
            ))
        })
    }
}

/// Every partition of a consumer's subscribed topics, and when they were looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscribedPartitions {
    /// The partitions, in no particular order.
    pub partitions: Vec<TopicPartition>,
    /// When the lookup began (what it found was true at that instant or later).
    pub looked_up: std::time::Instant,
}

/// Reads topics as a member of a consumer group.
#[async_trait]
pub trait TopicConsumer: Send {
    /// Sets the subscription; starts each assigned partition at the group's committed offset,
    /// or at the beginning when there is none (`auto.offset.reset=earliest`).
    async fn subscribe(&mut self, subscription: Subscription) -> Result<(), TopicError>;
    /// Returns up to `max` records, waiting up to `timeout` when none is available.
    async fn poll(
        &mut self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, TopicError>;
    /// Commits the group's offsets (next offset to read) durably.
    async fn commit(&mut self, offsets: &PartitionOffsets) -> Result<(), TopicError>;
    /// Commits offsets together with the sink's positions (atomically: a reader sees both or
    /// neither). A partition committed without a position loses the one it had, as a Kafka
    /// commit without metadata does.
    async fn commit_at(
        &mut self,
        offsets: &PartitionOffsets,
        positions: &SinkPositions,
    ) -> Result<(), TopicError>;
    /// The sink positions committed with the offsets of `partitions` (only those that have
    /// one).
    async fn committed_positions(
        &mut self,
        partitions: &[TopicPartition],
    ) -> Result<SinkPositions, TopicError>;
    /// Reads the assigned partition `tp` next from `offset` (Kafka's `seek`, for a sink task's
    /// `SinkTaskContext.offset`): records of `tp` read ahead before the call are not returned.
    async fn seek(&mut self, tp: &TopicPartition, offset: i64) -> Result<(), TopicError>;
    /// Stops reading `partitions` until they are resumed (records already returned are the
    /// caller's to hold).
    fn pause(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError>;
    /// Reads paused `partitions` again from where they stopped.
    fn resume(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError>;
    /// The partitions assigned to this consumer now.
    fn assignment(&self) -> Vec<TopicPartition>;
    /// Whether every assigned partition has been read to its current end.
    fn at_end(&self) -> bool;
    /// Every partition of the subscribed topics, as this consumer last learned them (`None`
    /// while not known yet). The partitions a group has to read: a sink is done only when its
    /// tasks together are assigned all of them and at their ends — a partition the group gave
    /// to a member elsewhere (another process, a dead member whose session has not expired) is
    /// not read by this worker.
    fn subscribed_partitions(&self) -> Option<SubscribedPartitions>;
    /// Records between this consumer's position and the end of its assigned partitions, when
    /// known (for progress displays; Kafka: from the client's latest statistics).
    fn lag(&self) -> Option<u64> {
        None
    }
    /// A pending revocation of partitions, to drain before the next poll.
    fn take_revocation(&mut self) -> Option<Revocation> {
        None
    }
    /// Leaves the group, so its partitions move to the other members at once (the task is
    /// done with them).
    async fn close(&mut self) {}
}

/// A place where topics live: hands out producers and group consumers.
pub trait TopicBackend: Send + Sync {
    /// A producer for one source task.
    ///
    /// # Errors
    /// When the client cannot be created (e.g. an invalid setting).
    fn producer(&self, spec: &ClientSpec) -> Result<std::sync::Arc<dyn TopicProducer>, TopicError>;
    /// A transactional producer for one source task of a worker that runs sources exactly
    /// once, with `transactional.id` = `transactional_id`.
    ///
    /// # Errors
    /// When the client cannot be created; by default, because this backend has no
    /// transactions.
    fn transactional_producer(
        &self,
        spec: &ClientSpec,
        transactional_id: &str,
    ) -> Result<std::sync::Arc<dyn TransactionalProducer>, TopicError> {
        let _ = (spec, transactional_id);
        Err(TopicError::Other(
            "exactly-once source tasks need Kafka transactions (bootstrap.servers); this \
             topic backend has none"
                .to_owned(),
        ))
    }
    /// A consumer for one sink task: member `member` of `members` in `group`.
    ///
    /// # Errors
    /// When the client cannot be created (e.g. an invalid setting).
    fn consumer(
        &self,
        spec: &ClientSpec,
        group: &str,
        member: usize,
        members: usize,
    ) -> Result<Box<dyn TopicConsumer>, TopicError>;
    /// Every committed offset of `group`, in any topic (as Kafka's `listConsumerGroupOffsets`;
    /// blocking I/O).
    ///
    /// # Errors
    /// When they cannot be read.
    fn group_offsets(&self, group: &str) -> Result<PartitionOffsets, TopicError>;
    /// Sets (`Some`) or resets to the beginning (`None`) offsets of `group`, which must have no
    /// active member (blocking I/O).
    ///
    /// # Errors
    /// When they cannot be written.
    fn alter_group_offsets(
        &self,
        group: &str,
        changes: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), TopicError>;
    /// Deletes `group` with all its committed offsets, as Kafka Connect resets a sink
    /// connector's offsets; a group that does not exist is no error (blocking I/O).
    ///
    /// # Errors
    /// When it cannot be deleted (e.g. it still has active members).
    fn delete_group(&self, group: &str) -> Result<(), TopicError>;
}

impl Subscription {
    /// Whether `topic` is subscribed.
    pub fn matches(&self, topic: &str) -> bool {
        match self {
            Self::Topics(t) => t.iter().any(|x| x == topic),
            Self::Pattern(p) => p.matches(topic),
        }
    }
}
