//! Building librdkafka client configurations from Kafka Connect (Java client) settings.
//!
//! Most Java client keys are librdkafka keys too. Keys that only the Java client has (e.g.
//! serializers, `max.block.ms`) are dropped with a warning, once, instead of failing the client.

use connect_api::ConfigMap;
use rdkafka::config::{ClientConfig, FromClientConfigAndContext};
use rdkafka::error::KafkaError;
use rdkafka::ClientContext;
use tracing::warn;

use crate::topics::TopicError;

/// Java client keys librdkafka does not have, or that the runtime sets itself.
const JAVA_ONLY: &[&str] = &[
    "key.serializer",
    "value.serializer",
    "key.deserializer",
    "value.deserializer",
    "max.block.ms",
    "buffer.memory",
    "interceptor.classes",
    "partitioner.class",
    "partitioner.ignore.keys",
    "metric.reporters",
    "metrics.num.samples",
    "metrics.recording.level",
    "metrics.sample.window.ms",
    "auto.include.jmx.reporter",
    "client.dns.lookup",
    "default.api.timeout.ms",
    "exclude.internal.topics",
];

/// Layers `layers` (later wins) into a client configuration.
pub fn layered(layers: &[&ConfigMap]) -> ClientConfig {
    let mut config = ClientConfig::new();
    for layer in layers {
        for (k, v) in layer.iter() {
            if JAVA_ONLY.contains(&k.as_str()) {
                warn!(key = %k, "Ignoring a Java-client-only setting that librdkafka does not have.");
                continue;
            }
            config.set(k, v);
        }
    }
    config
}

/// Creates a client; a key librdkafka does not know is removed with a warning and creation is
/// tried again.
///
/// # Errors
/// Any other creation failure, with librdkafka's message.
pub fn create<C, T>(mut config: ClientConfig, context: C, what: &str) -> Result<T, TopicError>
where
    C: ClientContext + Clone,
    T: FromClientConfigAndContext<C>,
{
    for _ in 0..32 {
        match config.create_with_context::<C, T>(context.clone()) {
            Ok(client) => return Ok(client),
            Err(KafkaError::ClientConfig(_, message, key, _))
                if message.contains("No such configuration property") =>
            {
                warn!(key = %key, "Ignoring a setting that librdkafka does not know.");
                config.remove(&key);
            }
            Err(e) => {
                return Err(TopicError::Other(format!(
                    "Could not create the Kafka {what}: {e}"
                )))
            }
        }
    }
    Err(TopicError::Other(format!(
        "Could not create the Kafka {what}: too many unknown settings"
    )))
}
