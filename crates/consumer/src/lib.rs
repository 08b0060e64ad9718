//! Kafka consumer group members for sink tasks, on the worker's tokio runtime (issue 33).
//!
//! A librdkafka consumer per sink task carries its own threads, connections, metadata and
//! buffers; a worker with hundreds of sinks ran thousands of threads. Here a member is a few
//! tokio tasks and one connection per broker it talks to: it joins its group with Kafka's
//! `consumer` protocol and the range assignor (so Kafka's tools see an ordinary consumer
//! group), fetches its partitions, decodes record batches itself ([`batch`]: every codec,
//! duplicate header keys kept, `read_committed` filtering), and commits offsets with
//! metadata.

pub mod batch;
pub mod brokers;
pub mod config;
pub mod consumer;
pub mod fetcher;
pub mod group;
pub mod range;

pub use config::{ConsumerConfig, OffsetReset};
pub use consumer::{Consumer, Polled, Subscription};
