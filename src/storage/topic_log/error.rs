//! Errors of a topic log.

use crate::topics::TopicError;

/// Why a topic log cannot be opened or used.
#[derive(Debug, thiserror::Error)]
pub enum TopicLogError {
    /// The existing topic is not compacted only (Kafka Connect's `ConfigException` message).
    #[error("Topic '{topic}' supplied via the '{worker_key}' property is required to have 'cleanup.policy=compact' to guarantee consistency and durability of {purpose}, but found the topic currently has 'cleanup.policy={policy}'. Continuing would likely result in eventually losing {purpose} and problems restarting this Connect cluster in the future. Change the '{worker_key}' property in the Connect worker configurations to use a topic with 'cleanup.policy=compact'.")]
    CleanupPolicy {
        /// Topic name.
        topic: String,
        /// The worker setting that names the topic, e.g. `offset.storage.topic`.
        worker_key: &'static str,
        /// What the topic holds, e.g. `source connector offsets`.
        purpose: &'static str,
        /// The topic's policies, comma-separated.
        policy: String,
    },
    /// The configs topic has more than one partition (Kafka Connect's `ConfigException` message).
    #[error("Topic '{topic}' supplied via the '{worker_key}' property is required to have a single partition in order to guarantee consistency of connector configurations, but found {partitions} partitions.")]
    ConfigTopicPartitions {
        /// Topic name.
        topic: String,
        /// `config.storage.topic`.
        worker_key: &'static str,
        /// Partitions found.
        partitions: usize,
    },
    /// A failure of the topic backend.
    #[error(transparent)]
    Topic(#[from] TopicError),
    /// The log was stopped (or its reader failed for good).
    #[error("the log of topic '{0}' is stopped")]
    Stopped(String),
}
