//! What a topic backend offers for the worker's internal topics (configs, offsets, status):
//! creating a topic with given settings, describing one (partition count, `cleanup.policy`),
//! reading all partitions of a topic without a consumer group, and a producer for them. The
//! Kafka Connect rules on top (compaction forced and verified, one partition for the configs
//! topic) live in `storage::topic_log`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::{ConsumedRecord, TopicError, TopicProducer};

/// A topic to create: its name, partitions, replication factor and topic configs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTopicSpec {
    /// Topic name.
    pub name: String,
    /// Partition count; `-1` lets the cluster (or the embedded log) choose its default.
    pub partitions: i32,
    /// Replication factor; `-1` lets the cluster choose (the embedded log ignores it).
    pub replication_factor: i16,
    /// Topic configs, e.g. `cleanup.policy=compact`.
    pub configs: BTreeMap<String, String>,
}

/// What is known of an existing topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicDescription {
    /// Number of partitions.
    pub partitions: usize,
    /// The topic's `cleanup.policy` as the cluster reports it; `None` when it cannot be read
    /// (e.g. not authorized), which Kafka Connect accepts with a log line.
    pub cleanup_policy: Option<String>,
}

/// Reads every partition of one topic from its beginning, without a consumer group.
#[async_trait]
pub trait LogReader: Send {
    /// The partitions read, by number.
    fn partitions(&self) -> Vec<i32>;
    /// The end offset (offset of the next record to be written) of every partition now.
    async fn end_offsets(&mut self) -> Result<BTreeMap<i32, i64>, TopicError>;
    /// The next records, in offset order per partition, waiting up to `timeout` when none is
    /// available (a zero timeout never waits).
    async fn poll(&mut self, timeout: Duration) -> Result<Vec<ConsumedRecord>, TopicError>;
    /// Per partition, an offset such that every record before it has been returned by `poll`
    /// or is returned by the calls of `poll` with a zero timeout made until one returns nothing.
    fn positions(&self) -> BTreeMap<i32, i64>;
}

/// A backend that can hold the worker's internal topics.
#[async_trait]
pub trait InternalTopicBackend: Send + Sync {
    /// Creates `topic` unless it exists; returns whether it was created.
    async fn create_topic_if_absent(&self, topic: &NewTopicSpec) -> Result<bool, TopicError>;
    /// Describes topic `name`; `None` when it does not exist.
    async fn describe_topic(&self, name: &str) -> Result<Option<TopicDescription>, TopicError>;
    /// A reader of every partition of the existing topic `name`, from the beginning.
    async fn log_reader(&self, name: &str) -> Result<Box<dyn LogReader>, TopicError>;
    /// A producer for internal topics (durable acknowledgements, records of one partition kept
    /// in order; keyed records partitioned by murmur2 of the key), with client id `client_id`.
    fn log_producer(&self, client_id: &str) -> Result<Arc<dyn TopicProducer>, TopicError>;
}
