//! Building librdkafka client configurations from Kafka Connect (Java client) settings.
//!
//! Most Java client keys are librdkafka keys too. Keys that only the Java client has (e.g.
//! serializers, `max.block.ms`) are dropped with a warning, once, instead of failing the client.

use connect_api::ConfigMap;
use rdkafka::config::{ClientConfig, FromClientConfigAndContext};
use rdkafka::error::KafkaError;
use rdkafka::ClientContext;
use tracing::warn;

use super::security;
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

/// Layers `layers` (later wins) into a client configuration, with the Java client's security
/// settings translated for librdkafka ([`security::translate`]).
///
/// # Errors
/// A security setting librdkafka cannot be given, naming its key.
pub fn layered(layers: &[&ConfigMap]) -> Result<ClientConfig, TopicError> {
    let mut merged = ConfigMap::new();
    for layer in layers {
        for (k, v) in layer.iter() {
            if JAVA_ONLY.contains(&k.as_str()) {
                warn!(key = %k, "Ignoring a Java-client-only setting that librdkafka does not have.");
                continue;
            }
            merged.insert(k.clone(), v.clone());
        }
    }
    security::translate(&mut merged).map_err(|e| TopicError::Other(e.to_string()))?;
    let mut config = ClientConfig::new();
    for (k, v) in merged {
        config.set(k, v);
    }
    Ok(config)
}

/// Checks that the client settings under `prefix` (e.g. `producer.`) of a worker file can be
/// given to librdkafka, naming the full key when not.
///
/// # Errors
/// The first setting that cannot be translated.
pub fn check(prefix: &str, props: &ConfigMap) -> Result<(), TopicError> {
    let mut copy = props.clone();
    security::translate(&mut copy).map_err(|e| {
        TopicError::Other(
            security::SecurityConfigError {
                key: format!("{prefix}{}", e.key),
                reason: e.reason,
            }
            .to_string(),
        )
    })
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
