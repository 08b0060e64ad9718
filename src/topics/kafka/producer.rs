//! The producer of a source task.

use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use rdkafka::client::DefaultClientContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};

use super::client_config;
use crate::topics::{ClientSpec, Delivery, ProducerRecord, TopicError, TopicProducer};

/// Pause before retrying a record when librdkafka's local queue is full.
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(2);

/// A Kafka producer with Kafka Connect's delivery guarantees.
pub struct KafkaProducer {
    producer: FutureProducer,
}

impl std::fmt::Debug for KafkaProducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KafkaProducer").finish_non_exhaustive()
    }
}

impl KafkaProducer {
    /// A producer for `spec`'s task: forced defaults, then the worker's `producer.*`
    /// (`worker_props`), then the connector's `producer.override.*`.
    ///
    /// # Errors
    /// When librdkafka rejects the configuration.
    pub fn new(
        bootstrap: &str,
        worker_props: &connect_api::ConfigMap,
        spec: &ClientSpec,
    ) -> Result<Self, TopicError> {
        let mut forced = connect_api::ConfigMap::new();
        for (k, v) in [
            ("bootstrap.servers", bootstrap.to_owned()),
            (
                "client.id",
                format!("connector-producer-{}-{}", spec.connector, spec.task),
            ),
            ("acks", "all".to_owned()),
            // Kafka Connect: delivery.timeout.ms = Integer.MAX_VALUE; librdkafka: 0 = infinite.
            ("message.timeout.ms", "0".to_owned()),
            ("enable.idempotence", "true".to_owned()),
            ("max.in.flight.requests.per.connection", "5".to_owned()),
            // Java's partitioner for keyed records, so keys land where Kafka Connect puts them.
            ("partitioner", "murmur2_random".to_owned()),
            // Bound the local queue: back-pressure instead of memory.
            ("queue.buffering.max.kbytes", "32768".to_owned()),
        ] {
            forced.insert(k.to_owned(), v);
        }
        let mut layers = vec![&forced, worker_props, &spec.overrides];
        let mut translated = connect_api::ConfigMap::new();
        // Java's delivery.timeout.ms maps to librdkafka's message.timeout.ms.
        for layer in [worker_props, &spec.overrides] {
            if let Some(v) = layer.get("delivery.timeout.ms") {
                translated.insert("message.timeout.ms".to_owned(), v.clone());
            }
        }
        layers.push(&translated);
        let config = client_config::layered(&layers);
        let producer = client_config::create(config, DefaultClientContext, "producer")?;
        Ok(Self { producer })
    }
}

fn to_rdkafka_error(e: &KafkaError) -> TopicError {
    TopicError::Other(format!("Kafka rejected a record: {e}"))
}

impl TopicProducer for KafkaProducer {
    fn send_batch(
        &self,
        records: Vec<ProducerRecord>,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
        async move {
            let mut deliveries = Vec::with_capacity(records.len());
            for r in &records {
                loop {
                    let mut fr: FutureRecord<'_, [u8], [u8]> = FutureRecord::to(&r.topic);
                    if let Some(k) = &r.key {
                        fr = fr.key(k.as_slice());
                    }
                    if let Some(v) = &r.value {
                        fr = fr.payload(v.as_slice());
                    }
                    if let Some(p) = r.partition {
                        fr = fr.partition(p);
                    }
                    if let Some(ts) = r.timestamp {
                        fr = fr.timestamp(ts);
                    }
                    if !r.headers.is_empty() {
                        let mut headers = OwnedHeaders::new_with_capacity(r.headers.len());
                        for (key, value) in &r.headers {
                            headers = headers.insert(Header {
                                key,
                                value: value.as_deref(),
                            });
                        }
                        fr = fr.headers(headers);
                    }
                    match self.producer.send_result(fr) {
                        Ok(d) => {
                            deliveries.push(d);
                            break;
                        }
                        Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), _)) => {
                            tokio::time::sleep(QUEUE_FULL_BACKOFF).await;
                        }
                        Err((e, _)) => return Err(to_rdkafka_error(&e)),
                    }
                }
            }
            let delivery: Delivery = async move {
                for d in deliveries {
                    match d.await {
                        Ok(Ok(_)) => {}
                        Ok(Err((e, _))) => return Err(to_rdkafka_error(&e)),
                        Err(_) => {
                            return Err(TopicError::Unavailable(
                                "the Kafka producer was closed before a record was delivered"
                                    .to_owned(),
                            ))
                        }
                    }
                }
                Ok(())
            }
            .boxed();
            Ok(delivery)
        }
        .boxed()
    }
}
