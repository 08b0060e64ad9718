//! Topics in a real Kafka cluster (rdkafka with a bundled librdkafka), used when the worker
//! file sets `bootstrap.servers`.
//!
//! Client settings follow Kafka Connect: the worker's `producer.*` / `consumer.*` settings, then
//! the connector's `producer.override.*` / `consumer.override.*`, over forced defaults. Source
//! producers use acks=all, an infinite delivery timeout and the murmur2 partitioner like Kafka
//! Connect's, but go through the idempotent producer with up to 5 requests in flight (order kept
//! by idempotence) instead of one request in flight.

pub mod client_config;
pub mod consumer;
pub mod group_admin;
pub mod producer;

use std::sync::Arc;

use connect_api::ConfigMap;

pub use consumer::KafkaConsumer;
pub use producer::KafkaProducer;

use super::{
    ClientSpec, PartitionOffsets, TopicBackend, TopicConsumer, TopicError, TopicPartition,
    TopicProducer,
};

/// Hands out Kafka producers and consumers configured from the worker file.
#[derive(Debug, Clone)]
pub struct KafkaBackend {
    bootstrap_servers: String,
    producer_props: ConfigMap,
    consumer_props: ConfigMap,
}

impl KafkaBackend {
    /// A backend for `bootstrap_servers` with the worker's `producer.*` and `consumer.*`
    /// settings (prefixes removed).
    pub fn new(
        bootstrap_servers: &[String],
        producer_props: ConfigMap,
        consumer_props: ConfigMap,
    ) -> Self {
        Self {
            bootstrap_servers: bootstrap_servers.join(","),
            producer_props,
            consumer_props,
        }
    }

    /// The `bootstrap.servers` list, comma-separated.
    pub fn bootstrap_servers(&self) -> &str {
        &self.bootstrap_servers
    }

    /// The cluster's id from the broker's metadata (blocking I/O).
    ///
    /// # Errors
    /// When Kafka cannot be reached.
    pub fn cluster_id(&self) -> Result<String, TopicError> {
        group_admin::cluster_id(&self.bootstrap_servers)
    }
}

impl TopicBackend for KafkaBackend {
    fn producer(&self, spec: &ClientSpec) -> Result<Arc<dyn TopicProducer>, TopicError> {
        Ok(Arc::new(KafkaProducer::new(
            &self.bootstrap_servers,
            &self.producer_props,
            spec,
        )?))
    }

    fn consumer(
        &self,
        spec: &ClientSpec,
        group: &str,
        _member: usize,
        _members: usize,
    ) -> Result<Box<dyn TopicConsumer>, TopicError> {
        // Kafka's group coordinator assigns the partitions among the members.
        Ok(Box::new(KafkaConsumer::new(
            &self.bootstrap_servers,
            &self.consumer_props,
            spec,
            group,
        )?))
    }

    fn group_offsets(&self, group: &str) -> Result<PartitionOffsets, TopicError> {
        group_admin::group_offsets(&self.bootstrap_servers, group)
    }

    fn alter_group_offsets(
        &self,
        group: &str,
        changes: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), TopicError> {
        group_admin::alter_group_offsets(&self.bootstrap_servers, group, changes)
    }

    fn delete_group(&self, group: &str) -> Result<(), TopicError> {
        group_admin::delete_group(&self.bootstrap_servers, group)
    }
}
