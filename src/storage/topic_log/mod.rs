//! Kafka Connect's `KafkaBasedLog` over a [`TopicBackend`](crate::topics::TopicBackend): one
//! internal topic (configs, offsets or status), created if absent with `cleanup.policy=compact`
//! and verified when it exists ([`internal_topic`]), read from the beginning on every partition
//! without a consumer group, then tailed in the background, each record handed to a handler
//! ([`log`]); written through a producer with durable acknowledgements.
//!
//! Records are raw key/value bytes: the record formats live elsewhere.

pub mod error;
pub mod internal_topic;
pub mod log;

pub use error::TopicLogError;
pub use internal_topic::{ensure_internal_topic, InternalTopicKind, InternalTopicSpec};
pub use log::{channel_handler, Ack, LogRecord, RecordHandler, TopicLog};

#[cfg(test)]
mod tests;
