//! Topics in a real Kafka cluster (rdkafka with a bundled librdkafka), used when the worker
//! file sets `bootstrap.servers`.
//!
//! Client settings follow Kafka Connect: the worker's `producer.*` / `consumer.*` settings, then
//! the connector's `producer.override.*` / `consumer.override.*`, over forced defaults. Source
//! producers use acks=all, an infinite delivery timeout and the murmur2 partitioner like Kafka
//! Connect's, but go through the idempotent producer with up to 5 requests in flight (order kept
//! by idempotence) instead of one request in flight; tasks without overrides share one
//! ([`shared_clients`]). Sink tasks are consumer group members on tokio
//! ([`group_consumer`], `connect-consumer`), not librdkafka clients.

pub mod client_config;
pub mod group_admin;
pub mod group_consumer;
pub mod internal;
pub mod member_security;
pub mod producer;
pub mod refusal;
pub mod security;
pub mod shared_clients;
pub mod tls_probe;
pub mod transactional_producer;

use std::sync::Arc;

use connect_api::ConfigMap;

pub use group_consumer::GroupConsumer;
pub use producer::KafkaProducer;

use super::{
    ClientSpec, PartitionOffsets, TopicBackend, TopicConsumer, TopicError, TopicPartition,
    TopicProducer, TransactionalProducer,
};

/// Hands out Kafka producers and consumers configured from the worker file.
#[derive(Debug, Clone)]
pub struct KafkaBackend {
    bootstrap_servers: String,
    producer_props: ConfigMap,
    consumer_props: ConfigMap,
    /// `bootstrap.servers`, the worker's top-level client security settings, then `admin.*`.
    admin_props: ConfigMap,
    /// `bootstrap.servers` and the worker's top-level client settings: the clients of the
    /// internal topics (as Kafka Connect's, which take the worker's top-level settings).
    internal_props: ConfigMap,
    /// The clients the worker's tasks share.
    shared: Arc<shared_clients::SharedClients>,
}

impl KafkaBackend {
    /// A backend for `bootstrap_servers` with the worker's `producer.*`, `consumer.*` and
    /// `admin.*` settings (prefixes removed) and its top-level settings (`worker_props`), of
    /// which the admin clients take the client security ones (`security.protocol`, `sasl.*`,
    /// `ssl.*`), as Kafka Connect's admin clients inherit the worker's settings.
    ///
    /// # Errors
    /// A client setting librdkafka cannot be given, naming its worker key.
    pub fn new(
        bootstrap_servers: &[String],
        worker_props: &ConfigMap,
        producer_props: ConfigMap,
        consumer_props: ConfigMap,
        admin_overrides: &ConfigMap,
    ) -> Result<Self, TopicError> {
        let bootstrap_servers = bootstrap_servers.join(",");
        let mut admin_props: ConfigMap = worker_props
            .iter()
            .filter(|(k, _)| is_client_security_key(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        client_config::check("", &admin_props)?;
        client_config::check("producer.", &producer_props)?;
        client_config::check("consumer.", &consumer_props)?;
        client_config::check("admin.", admin_overrides)?;
        let mut internal_props = admin_props.clone();
        internal_props.extend(
            worker_props
                .iter()
                .filter(|(k, _)| internal::TOP_LEVEL_CLIENT_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        internal_props.insert("bootstrap.servers".to_owned(), bootstrap_servers.clone());
        admin_props.extend(admin_overrides.clone());
        admin_props.insert("bootstrap.servers".to_owned(), bootstrap_servers.clone());
        Ok(Self {
            bootstrap_servers,
            producer_props,
            consumer_props,
            admin_props,
            internal_props,
            shared: Arc::default(),
        })
    }

    /// The `bootstrap.servers` list, comma-separated.
    pub fn bootstrap_servers(&self) -> &str {
        &self.bootstrap_servers
    }

    /// The cluster's id from the broker's metadata, waiting up to `timeout` for a broker to
    /// answer (blocking I/O).
    ///
    /// # Errors
    /// When Kafka cannot be reached in time.
    pub fn cluster_id(&self, timeout: std::time::Duration) -> Result<String, TopicError> {
        group_admin::cluster_id(&self.admin_props, timeout)
    }

    /// Whether `topic` exists, without creating it (blocking I/O).
    ///
    /// # Errors
    /// When Kafka cannot be reached.
    pub fn topic_exists(&self, topic: &str) -> Result<bool, TopicError> {
        group_admin::topic_exists(&self.admin_props, topic)
    }
}

impl TopicBackend for KafkaBackend {
    fn producer(&self, spec: &ClientSpec) -> Result<Arc<dyn TopicProducer>, TopicError> {
        Ok(Arc::new(KafkaProducer::sharing(
            &self.bootstrap_servers,
            &self.producer_props,
            &self.admin_props,
            spec,
            &self.shared,
        )?))
    }

    fn transactional_producer(
        &self,
        spec: &ClientSpec,
        transactional_id: &str,
    ) -> Result<Arc<dyn TransactionalProducer>, TopicError> {
        let producer = KafkaProducer::transactional(
            &self.bootstrap_servers,
            &self.producer_props,
            &self.admin_props,
            spec,
            transactional_id,
        )?;
        Ok(Arc::new(
            transactional_producer::TransactionalKafkaProducer::new(
                producer,
                transactional_id.to_owned(),
            ),
        ))
    }

    fn consumer(
        &self,
        spec: &ClientSpec,
        group: &str,
        _member: usize,
        _members: usize,
    ) -> Result<Box<dyn TopicConsumer>, TopicError> {
        // Kafka's group coordinator assigns the partitions among the members.
        Ok(Box::new(group_consumer::GroupConsumer::new(
            &self.bootstrap_servers,
            &self.consumer_props,
            spec,
            group,
        )?))
    }

    fn group_offsets(&self, group: &str) -> Result<PartitionOffsets, TopicError> {
        group_admin::group_offsets(&self.admin_props, group)
    }

    fn alter_group_offsets(
        &self,
        group: &str,
        changes: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), TopicError> {
        group_admin::alter_group_offsets(&self.admin_props, group, changes)
    }

    fn delete_group(&self, group: &str) -> Result<(), TopicError> {
        group_admin::delete_group(&self.admin_props, group)
    }
}

/// Whether a top-level worker key is a Kafka client security setting (the REST server's
/// `ssl.client.auth` is not).
fn is_client_security_key(key: &str) -> bool {
    (key == "security.protocol" || key.starts_with("sasl.") || key.starts_with("ssl."))
        && key != "ssl.client.auth"
}
