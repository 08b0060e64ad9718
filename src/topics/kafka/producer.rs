//! The producer of a source task.

use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{DeliveryFuture, FutureProducer, FutureRecord, Producer};

use tracing::{debug, info, warn};

use rdkafka::config::ClientConfig;

use super::client_config;
use super::refusal::{RefusalWatch, WatchedContext, CHECK_INTERVAL};
use super::shared_clients::{SharedClients, SHARED_ADMIN_CLIENT_ID, SHARED_PRODUCER_CLIENT_ID};
use crate::topics::topic_creation::TopicCreation;
use crate::topics::{
    ClientSpec, Delivery, PositionedDelivery, ProducerRecord, RecordPosition, SourceOffsets,
    TopicError, TopicProducer,
};

/// Pause before retrying a record when librdkafka's local queue is full.
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(2);

/// A Kafka producer with Kafka Connect's delivery guarantees: a task's handle on a librdkafka
/// producer of its own or one it shares with other tasks ([`SharedClients`]).
pub struct KafkaProducer {
    client: Arc<ProducerClient>,
    /// KIP-158: creates topics before the first record goes to them.
    creator: Option<TopicCreator>,
}

/// One librdkafka producer.
pub struct ProducerClient {
    producer: FutureProducer<WatchedContext>,
    /// Authentication and TLS refusals seen by the producer's connections.
    watch: RefusalWatch,
    /// Whether the producer still has to be nudged into asking for its producer id (idempotent
    /// producers only; see [`nudge_producer_id`]).
    nudge_pending: AtomicBool,
}

impl ProducerClient {
    /// A producer with `config`; `transactional` ones get their id from `init_transactions`.
    fn create(config: ClientConfig, transactional: bool) -> Result<Self, TopicError> {
        let context = WatchedContext {
            watch: RefusalWatch::for_config(&config),
        };
        let watch = context.watch.clone();
        let idempotent = !transactional
            && config
                .get("enable.idempotence")
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let producer = client_config::create(config, context, "producer")?;
        Ok(Self {
            producer,
            watch,
            nudge_pending: AtomicBool::new(idempotent),
        })
    }
}

/// Metadata requests [`nudge_producer_id`] sends at most.
const NUDGE_ATTEMPTS: usize = 8;
/// How long one of those requests may wait for a broker.
const NUDGE_TIMEOUT: Duration = Duration::from_secs(1);

/// Gets an idempotent producer its producer id without librdkafka's 500 ms retry timer.
///
/// librdkafka asks for the id (InitProducerId) when a metadata response arrives. The first
/// response comes from the bootstrap connection, which librdkafka closes right then in favour of
/// the broker it learned from it; that broker is not connected yet, so the id request finds no
/// broker and waits for a fixed 500 ms timer, and no record leaves before. Measured on the
/// harness broker (bench/kafka-side-by-side.sh, 1M lines, pre-created topic): the first record
/// reached Kafka 1.1-1.5 s after start, 0.5 s of it this timer. A metadata request answered by
/// a learned broker (not the bootstrap connection) re-runs the id request on a connected
/// broker; this sends such requests for `topic` (which the producer needs anyway) until one is.
fn nudge_producer_id(producer: &FutureProducer<WatchedContext>, topic: &str) {
    for attempt in 1..=NUDGE_ATTEMPTS {
        match producer.client().fetch_metadata(Some(topic), NUDGE_TIMEOUT) {
            // A bootstrap connection has no broker id (-1).
            Ok(metadata) if metadata.orig_broker_id() >= 0 => {
                debug!(
                    topic,
                    attempt, "Producer metadata answered by a learned broker."
                );
                return;
            }
            Ok(_) => {}
            // librdkafka's own retries take over.
            Err(e) => {
                debug!(topic, error = %e, "Producer metadata request failed.");
                return;
            }
        }
    }
}

/// Creates the topics a source task writes to, with its connector's `topic.creation.*` rules.
struct TopicCreator {
    admin: Arc<AdminClient<DefaultClientContext>>,
    rules: Arc<TopicCreation>,
    known: Mutex<HashSet<String>>,
}

impl TopicCreator {
    async fn ensure(&self, topics: &BTreeSet<&str>) -> Result<(), TopicError> {
        let new: Vec<&str> = {
            let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
            topics
                .iter()
                .copied()
                .filter(|t| !known.contains(*t))
                .collect()
        };
        if new.is_empty() {
            return Ok(());
        }
        let settings: Vec<_> = new
            .iter()
            .map(|t| (*t, self.rules.settings_for(t)))
            .collect();
        let requests: Vec<NewTopic<'_>> = settings
            .iter()
            .map(|(topic, s)| {
                let mut nt = NewTopic::new(
                    topic,
                    s.partitions,
                    TopicReplication::Fixed(s.replication_factor),
                );
                for (k, v) in &s.configs {
                    nt = nt.set(k, v);
                }
                nt
            })
            .collect();
        let results = self
            .admin
            .create_topics(&requests, &AdminOptions::new())
            .await
            .map_err(|e| TopicError::Retriable(format!("Could not create topics {new:?}: {e}")))?;
        for (result, (topic, s)) in results.into_iter().zip(&settings) {
            match result {
                Ok(_) => {
                    info!(topic, group = %s.group, partitions = s.partitions, "Created topic.")
                }
                Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((_, code)) => {
                    return Err(TopicError::Other(format!(
                        "Could not create topic {topic}: {code}"
                    )))
                }
            }
        }
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        known.extend(new.into_iter().map(str::to_owned));
        Ok(())
    }
}

impl std::fmt::Debug for KafkaProducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KafkaProducer").finish_non_exhaustive()
    }
}

impl KafkaProducer {
    /// A producer for `spec`'s task: forced defaults, then the worker's `producer.*`
    /// (`worker_props`), then the connector's `producer.override.*`; topic creation goes
    /// through an admin client on `admin_props` and the connector's `admin.override.*`.
    ///
    /// # Errors
    /// When librdkafka rejects the configuration.
    pub fn new(
        bootstrap: &str,
        worker_props: &connect_api::ConfigMap,
        admin_props: &connect_api::ConfigMap,
        spec: &ClientSpec,
    ) -> Result<Self, TopicError> {
        Self::build(bootstrap, worker_props, admin_props, spec, None, None)
    }

    /// As [`KafkaProducer::new`], on the clients of `shared` when `spec` has no overrides of
    /// its own (`producer.override.*`, `admin.override.*`): the producer with the worker's
    /// settings and `client.id` [`SHARED_PRODUCER_CLIENT_ID`], and the admin client that
    /// creates topics.
    ///
    /// # Errors
    /// When librdkafka rejects the configuration.
    pub fn sharing(
        bootstrap: &str,
        worker_props: &connect_api::ConfigMap,
        admin_props: &connect_api::ConfigMap,
        spec: &ClientSpec,
        shared: &SharedClients,
    ) -> Result<Self, TopicError> {
        Self::build(
            bootstrap,
            worker_props,
            admin_props,
            spec,
            None,
            Some(shared),
        )
    }

    /// As [`KafkaProducer::new`], with `transactional.id` = `transactional_id` over every
    /// layer (KIP-618: the worker owns the id of a task's producer). Its transactions are run
    /// through [`TransactionalKafkaProducer`](super::transactional_producer::TransactionalKafkaProducer).
    ///
    /// # Errors
    /// When librdkafka rejects the configuration.
    pub fn transactional(
        bootstrap: &str,
        worker_props: &connect_api::ConfigMap,
        admin_props: &connect_api::ConfigMap,
        spec: &ClientSpec,
        transactional_id: &str,
    ) -> Result<Self, TopicError> {
        Self::build(
            bootstrap,
            worker_props,
            admin_props,
            spec,
            Some(transactional_id),
            None,
        )
    }

    /// The librdkafka producer.
    pub(crate) fn client(&self) -> &FutureProducer<WatchedContext> {
        &self.client.producer
    }

    /// Whether `self` and `other` send through the same librdkafka producer.
    pub fn shares_client_with(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.client, &other.client)
    }

    fn build(
        bootstrap: &str,
        worker_props: &connect_api::ConfigMap,
        admin_props: &connect_api::ConfigMap,
        spec: &ClientSpec,
        transactional_id: Option<&str>,
        shared: Option<&SharedClients>,
    ) -> Result<Self, TopicError> {
        let shared_producer = shared.filter(|_| spec.overrides.is_empty());
        let shared_admin = shared.filter(|_| spec.admin_overrides.is_empty());
        let client = match shared_producer {
            Some(shared) => shared.producer.get_or_make(|| {
                let config = producer_config(
                    bootstrap,
                    SHARED_PRODUCER_CLIENT_ID.to_owned(),
                    worker_props,
                    spec,
                    None,
                )?;
                info!(
                    client_id = config.get("client.id").unwrap_or_default(),
                    "Created the producer the worker's source tasks share."
                );
                ProducerClient::create(config, false)
            })?,
            None => Arc::new(ProducerClient::create(
                producer_config(
                    bootstrap,
                    format!("connector-producer-{}-{}", spec.connector, spec.task),
                    worker_props,
                    spec,
                    transactional_id,
                )?,
                transactional_id.is_some(),
            )?),
        };
        let creator = match &spec.topic_creation {
            Some(rules) => {
                let make = |client_id: String| {
                    let mut admin_props = admin_props.clone();
                    admin_props.extend(spec.admin_overrides.clone());
                    admin_props.insert("client.id".to_owned(), client_id);
                    client_config::create(
                        client_config::layered(&[&admin_props])?,
                        DefaultClientContext,
                        "admin client",
                    )
                };
                let admin = match shared_admin {
                    Some(shared) => shared
                        .admin
                        .get_or_make(|| make(SHARED_ADMIN_CLIENT_ID.to_owned()))?,
                    None => Arc::new(make(format!(
                        "connector-adminclient-{}-{}",
                        spec.connector, spec.task
                    ))?),
                };
                Some(TopicCreator {
                    admin,
                    rules: rules.clone(),
                    known: Mutex::new(HashSet::new()),
                })
            }
            None => None,
        };
        Ok(Self { client, creator })
    }
}

/// The settings of a producer: forced defaults (`client_id` among them), then the worker's
/// `producer.*` (`worker_props`), then `spec`'s `producer.override.*`, with `transactional.id`
/// over every layer for an exactly-once task.
fn producer_config(
    bootstrap: &str,
    client_id: String,
    worker_props: &connect_api::ConfigMap,
    spec: &ClientSpec,
    transactional_id: Option<&str>,
) -> Result<ClientConfig, TopicError> {
    let mut forced = connect_api::ConfigMap::new();
    for (k, v) in [
        ("bootstrap.servers", bootstrap.to_owned()),
        ("client.id", client_id),
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
    let mut transactional = connect_api::ConfigMap::new();
    if let Some(id) = transactional_id {
        // The worker owns these settings of an exactly-once task's producer (as Kafka
        // Connect, which warns and overrides them too).
        for layer in [worker_props, &spec.overrides] {
            for (key, forced) in [("transactional.id", id), ("enable.idempotence", "true")] {
                if layer
                    .get(key)
                    .is_some_and(|v| !v.eq_ignore_ascii_case(forced))
                {
                    warn!(
                        connector = %spec.connector,
                        task = spec.task,
                        key,
                        value = forced,
                        "The producer setting is overridden for an exactly-once source task."
                    );
                }
            }
        }
        transactional.insert("transactional.id".to_owned(), id.to_owned());
        // A transactional producer is idempotent; librdkafka requires it.
        transactional.insert("enable.idempotence".to_owned(), "true".to_owned());
    }
    layers.push(&transactional);
    client_config::layered(&layers)
}

fn to_rdkafka_error(e: &KafkaError) -> TopicError {
    TopicError::Other(format!("Kafka rejected a record: {e}"))
}

impl KafkaProducer {
    /// Queues `records` with librdkafka (waiting while its queue is full): one delivery
    /// future per record.
    async fn enqueue(&self, records: &[ProducerRecord]) -> Result<Vec<DeliveryFuture>, TopicError> {
        if let Some(reason) = self.client.watch.refusal() {
            return Err(TopicError::Other(reason));
        }
        if let Some(creator) = &self.creator {
            creator
                .ensure(&records.iter().map(|r| r.topic.as_str()).collect())
                .await?;
        }
        if let Some(first) = records.first() {
            if self.client.nudge_pending.swap(false, Ordering::AcqRel) {
                let producer = self.client.producer.clone();
                let topic = first.topic.clone();
                // Blocking librdkafka calls: on their own short-lived thread.
                let spawned = std::thread::Builder::new()
                    .name("producer-id-nudge".to_owned())
                    .spawn(move || nudge_producer_id(&producer, &topic));
                if let Err(e) = spawned {
                    debug!(error = %e, "Could not start the producer id nudge.");
                }
            }
        }
        let mut deliveries = Vec::with_capacity(records.len());
        for r in records {
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
                match self.client.producer.send_result(fr) {
                    Ok(d) => {
                        deliveries.push(d);
                        break;
                    }
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), _)) => {
                        if let Some(reason) = self.client.watch.refusal() {
                            return Err(TopicError::Other(reason));
                        }
                        tokio::time::sleep(QUEUE_FULL_BACKOFF).await;
                    }
                    Err((e, _)) => return Err(to_rdkafka_error(&e)),
                }
            }
        }
        Ok(deliveries)
    }
}

/// Waits for every delivery of a batch; with `positions`, says where each record went.
fn delivered(
    deliveries: Vec<DeliveryFuture>,
    watch: RefusalWatch,
    positions: bool,
) -> PositionedDelivery {
    async move {
        let mut written = Vec::with_capacity(if positions { deliveries.len() } else { 0 });
        for mut d in deliveries {
            // Delivery never times out (as Kafka Connect's); a refused connection fails it.
            let outcome = loop {
                tokio::select! {
                    outcome = &mut d => break outcome,
                    () = tokio::time::sleep(CHECK_INTERVAL) => {
                        if let Some(reason) = watch.refusal() {
                            return Err(TopicError::Other(reason));
                        }
                    }
                }
            };
            match outcome {
                Ok(Ok(delivery)) => {
                    if positions {
                        written.push(RecordPosition {
                            partition: delivery.partition,
                            offset: delivery.offset,
                            timestamp: delivery.timestamp.to_millis().unwrap_or(-1),
                        });
                    }
                }
                Ok(Err((e, _))) => return Err(to_rdkafka_error(&e)),
                Err(_) => {
                    return Err(TopicError::Unavailable(
                        "the Kafka producer was closed before a record was delivered".to_owned(),
                    ))
                }
            }
        }
        Ok(written)
    }
    .boxed()
}

impl TopicProducer for KafkaProducer {
    fn send_batch(
        &self,
        records: Vec<ProducerRecord>,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
        async move {
            let deliveries = self.enqueue(&records).await?;
            let done = delivered(deliveries, self.client.watch.clone(), false);
            let delivery: Delivery = async move { done.await.map(|_| ()) }.boxed();
            Ok(delivery)
        }
        .boxed()
    }

    fn send_batch_positioned(
        &self,
        records: Vec<ProducerRecord>,
        offsets: Option<SourceOffsets>,
    ) -> BoxFuture<'_, Result<PositionedDelivery, TopicError>> {
        async move {
            if offsets.is_some() {
                return Err(TopicError::Other(
                    "a Kafka producer cannot commit source offsets with its records".to_owned(),
                ));
            }
            let deliveries = self.enqueue(&records).await?;
            Ok(delivered(deliveries, self.client.watch.clone(), true))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(connector: &str, overrides: &[(&str, &str)]) -> ClientSpec {
        ClientSpec {
            connector: connector.to_owned(),
            overrides: overrides
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            ..ClientSpec::default()
        }
    }

    #[test]
    fn only_tasks_with_the_workers_settings_share_a_producer() {
        // Creating a client connects nothing yet: no broker is needed.
        let none = connect_api::ConfigMap::new();
        let shared = SharedClients::default();
        let make = |s: &ClientSpec| {
            KafkaProducer::sharing("127.0.0.1:9", &none, &none, s, &shared).unwrap()
        };
        let a = make(&spec("a", &[]));
        let b = make(&spec("b", &[]));
        assert!(a.shares_client_with(&b));
        let own = make(&spec("c", &[("linger.ms", "7")]));
        assert!(!own.shares_client_with(&a));
        let eos = KafkaProducer::transactional("127.0.0.1:9", &none, &none, &spec("d", &[]), "t-0")
            .unwrap();
        assert!(!eos.shares_client_with(&a));
    }
}
