//! Tests against the harness's real Kafka broker: data through Kafka, security, exactly-once, dead letter queues.
//! One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod consumer_moves;
mod dead_letter_queue;
mod exactly_once_kafka;
mod exactly_once_sink;
mod kafka_file;
mod kafka_harness;
mod kafka_security;
mod kafka_topic_log;
mod many_connectors;
mod native_consumer;
mod shared_producer;
