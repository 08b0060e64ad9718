//! Internal topics in Kafka: an admin client creates and describes them, a consumer without a
//! group reads all their partitions on a polling thread, and an idempotent acks=all producer
//! writes them. Every client takes the worker's top-level client settings (security included),
//! as Kafka Connect's internal-topic clients take the worker's.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::message::{Headers, Message};
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use super::refusal::WatchedContext;
use super::{client_config, KafkaBackend, KafkaProducer};
use crate::topics::internal_topic::{
    InternalTopicBackend, LogReader, NewTopicSpec, TopicDescription,
};
use crate::topics::{ClientSpec, ConsumedRecord, TopicError, TopicProducer};

/// Top-level worker keys (besides the security ones) that the internal-topic clients take.
pub(crate) const TOP_LEVEL_CLIENT_KEYS: &[&str] = &[
    "client.dns.lookup",
    "connections.max.idle.ms",
    "metadata.max.age.ms",
    "reconnect.backoff.max.ms",
    "reconnect.backoff.ms",
    "request.timeout.ms",
    "retry.backoff.ms",
    "socket.connection.setup.timeout.ms",
];

/// How long one metadata or watermark request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest wait of one librdkafka poll on the polling thread.
const POLL_SLICE: Duration = Duration::from_millis(100);
/// Records per batch handed over, at most.
const BATCH: usize = 1000;
/// Pause before asking again for a topic that is not ready.
const RETRY_BACKOFF: Duration = Duration::from_millis(200);

impl ConsumerContext for WatchedContext {}

impl KafkaBackend {
    fn internal_admin(&self) -> Result<AdminClient<DefaultClientContext>, TopicError> {
        let mut props = self.internal_props.clone();
        props
            .entry("client.id".to_owned())
            .or_insert_with(|| "connect-rs-internal-topics-admin".to_owned());
        client_config::create(
            client_config::layered(&[&props])?,
            DefaultClientContext,
            "admin client",
        )
    }
}

fn blocking_failed(e: tokio::task::JoinError) -> TopicError {
    TopicError::Other(format!("a Kafka metadata request failed: {e}"))
}

#[async_trait]
impl InternalTopicBackend for KafkaBackend {
    async fn create_topic_if_absent(&self, topic: &NewTopicSpec) -> Result<bool, TopicError> {
        let admin = self.internal_admin()?;
        let mut request = NewTopic::new(
            &topic.name,
            topic.partitions,
            TopicReplication::Fixed(i32::from(topic.replication_factor)),
        );
        for (k, v) in &topic.configs {
            request = request.set(k, v);
        }
        let results = admin
            .create_topics([&request], &AdminOptions::new())
            .await
            .map_err(|e| {
                TopicError::Retriable(format!(
                    "Unable to create topic '{}' on brokers at {}: {e}",
                    topic.name, self.bootstrap_servers
                ))
            })?;
        match results.into_iter().next() {
            Some(Ok(_)) => {
                info!(topic = %topic.name, partitions = topic.partitions, "Created topic.");
                Ok(true)
            }
            Some(Err((_, RDKafkaErrorCode::TopicAlreadyExists))) => Ok(false),
            Some(Err((_, code))) => Err(TopicError::Other(format!(
                "Unable to create topic '{}' on brokers at {}: {code}",
                topic.name, self.bootstrap_servers
            ))),
            None => Err(TopicError::Other(format!(
                "No answer from brokers at {} to the creation of topic '{}'",
                self.bootstrap_servers, topic.name
            ))),
        }
    }

    async fn describe_topic(&self, name: &str) -> Result<Option<TopicDescription>, TopicError> {
        let admin = self.internal_admin()?;
        let results = admin
            .describe_configs([&ResourceSpecifier::Topic(name)], &AdminOptions::new())
            .await
            .map_err(|e| {
                TopicError::Retriable(format!(
                    "Error while attempting to describe topic config for topic '{name}' on brokers at {}: {e}",
                    self.bootstrap_servers
                ))
            })?;
        let cleanup_policy = match results.into_iter().next() {
            Some(Ok(resource)) => resource.get("cleanup.policy").and_then(|e| e.value.clone()),
            Some(Err(RDKafkaErrorCode::UnknownTopicOrPartition)) => return Ok(None),
            Some(Err(code)) => {
                warn!(topic = name, error = %code, "Unable to describe the topic's configs; its cleanup.policy is not verified.");
                None
            }
            None => None,
        };
        let topic = name.to_owned();
        let partitions = tokio::task::spawn_blocking(move || {
            let metadata = admin
                .inner()
                .fetch_metadata(Some(&topic), REQUEST_TIMEOUT)
                .map_err(|e| {
                    TopicError::Retriable(format!("Could not describe topic '{topic}': {e}"))
                })?;
            Ok::<_, TopicError>(
                metadata
                    .topics()
                    .iter()
                    .find(|t| t.name() == topic && t.error().is_none())
                    .map(|t| t.partitions().len()),
            )
        })
        .await
        .map_err(blocking_failed)??;
        Ok(partitions.map(|partitions| TopicDescription {
            partitions,
            cleanup_policy,
        }))
    }

    async fn log_reader(&self, name: &str) -> Result<Box<dyn LogReader>, TopicError> {
        let mut props = self.internal_props.clone();
        props
            .entry("client.id".to_owned())
            .or_insert_with(|| format!("connect-rs-internal-{name}"));
        props.insert("enable.auto.commit".to_owned(), "false".to_owned());
        // Internal topics are read as committed (KIP-618): an exactly-once source task's
        // offsets count once its transaction committed, never when it was aborted.
        props.insert("isolation.level".to_owned(), "read_committed".to_owned());
        // librdkafka cannot assign partitions without a group id; it is never joined (no
        // subscribe) nor committed to.
        props.insert("group.id".to_owned(), format!("connect-rs-internal-{name}"));
        let config = client_config::layered(&[&props])?;
        let context = WatchedContext {
            watch: super::refusal::RefusalWatch::for_config(&config),
        };
        let watch = context.watch.clone();
        let consumer: BaseConsumer<WatchedContext> =
            client_config::create(config, context, "consumer")?;
        let consumer = Arc::new(consumer);
        let topic = name.to_owned();
        let c = consumer.clone();
        let starts = tokio::task::spawn_blocking(move || {
            // A topic created a moment ago may not have its partitions or leaders known yet.
            let deadline = std::time::Instant::now() + REQUEST_TIMEOUT;
            loop {
                match start_offsets(&c, &topic) {
                    Ok(starts) => break Ok(starts),
                    Err(e) if std::time::Instant::now() < deadline => {
                        debug!(topic = %topic, error = %e, "Internal topic not ready; retrying.");
                        std::thread::sleep(RETRY_BACKOFF);
                    }
                    Err(e) => break Err(e),
                }
            }
            .and_then(|starts| {
                let mut tpl = TopicPartitionList::new();
                for p in starts.keys() {
                    tpl.add_partition_offset(&topic, *p, Offset::Beginning)
                        .map_err(|e| {
                            TopicError::Other(format!("Could not assign '{topic}': {e}"))
                        })?;
                }
                c.assign(&tpl)
                    .map_err(|e| TopicError::Other(format!("Could not assign '{topic}': {e}")))?;
                Ok(starts)
            })
        })
        .await
        .map_err(blocking_failed)??;
        let positions = Arc::new(Mutex::new(starts));
        let stopping = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel(16);
        let thread = PollingThread {
            consumer: consumer.clone(),
            positions: positions.clone(),
            stopping: stopping.clone(),
            tx,
        };
        std::thread::Builder::new()
            .name(format!("internal-{name}"))
            .spawn(move || thread.run())
            .map_err(|e| TopicError::Other(format!("cannot start a consumer thread: {e}")))?;
        Ok(Box::new(KafkaLogReader {
            topic: name.to_owned(),
            consumer,
            positions,
            stopping,
            rx,
            watch,
        }))
    }

    fn log_producer(&self, client_id: &str) -> Result<Arc<dyn TopicProducer>, TopicError> {
        let mut spec = ClientSpec::default();
        spec.overrides
            .insert("client.id".to_owned(), client_id.to_owned());
        Ok(Arc::new(KafkaProducer::new(
            &self.bootstrap_servers,
            &self.internal_props,
            &self.internal_props,
            &spec,
        )?))
    }
}

/// The partitions of `topic` with their first offsets (blocking).
fn start_offsets(
    consumer: &BaseConsumer<WatchedContext>,
    topic: &str,
) -> Result<BTreeMap<i32, i64>, TopicError> {
    let metadata = consumer
        .fetch_metadata(Some(topic), REQUEST_TIMEOUT)
        .map_err(|e| TopicError::Retriable(format!("Could not describe topic '{topic}': {e}")))?;
    let partitions: Vec<i32> = metadata
        .topics()
        .iter()
        .filter(|t| t.name() == topic && t.error().is_none())
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect();
    if partitions.is_empty() {
        return Err(TopicError::Retriable(format!(
            "Topic '{topic}' has no partitions"
        )));
    }
    let mut starts = BTreeMap::new();
    for p in partitions {
        let (low, _) = consumer
            .fetch_watermarks(topic, p, REQUEST_TIMEOUT)
            .map_err(|e| {
                TopicError::Retriable(format!(
                    "Could not read the offsets of topic '{topic}' partition {p}: {e}"
                ))
            })?;
        starts.insert(p, low);
    }
    Ok(starts)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Polls the assigned consumer and hands batches over; keeps the positions up to date.
struct PollingThread {
    consumer: Arc<BaseConsumer<WatchedContext>>,
    positions: Arc<Mutex<BTreeMap<i32, i64>>>,
    stopping: Arc<AtomicBool>,
    tx: mpsc::Sender<Vec<ConsumedRecord>>,
}

impl PollingThread {
    fn run(self) {
        while !self.stopping.load(Ordering::Acquire) {
            let mut batch = Vec::new();
            let mut wait = POLL_SLICE;
            while batch.len() < BATCH {
                match self.consumer.poll(wait) {
                    Some(Ok(m)) => {
                        let headers = m
                            .headers()
                            .map(|h| {
                                h.iter()
                                    .map(|x| (x.key.to_owned(), x.value.map(<[u8]>::to_vec)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        batch.push(ConsumedRecord {
                            topic: m.topic().to_owned(),
                            partition: m.partition(),
                            offset: m.offset(),
                            timestamp: m.timestamp().to_millis().unwrap_or(-1),
                            key: m.key().map(<[u8]>::to_vec),
                            value: m.payload().map(<[u8]>::to_vec),
                            headers,
                        });
                        wait = Duration::ZERO;
                    }
                    Some(Err(e)) => {
                        warn!(error = %e, "Error while reading an internal topic; retrying.");
                        break;
                    }
                    None => break,
                }
            }
            if batch.is_empty() {
                // Nothing is in flight: the consumer's positions are what was handed over.
                if let Ok(tpl) = self.consumer.position() {
                    let mut positions = lock(&self.positions);
                    for e in tpl.elements() {
                        if let Offset::Offset(n) = e.offset() {
                            let p = positions.entry(e.partition()).or_insert(n);
                            *p = (*p).max(n);
                        }
                    }
                }
                continue;
            }
            let last: Vec<(i32, i64)> = batch.iter().map(|r| (r.partition, r.offset)).collect();
            if self.tx.blocking_send(batch).is_err() {
                return;
            }
            let mut positions = lock(&self.positions);
            for (partition, offset) in last {
                let p = positions.entry(partition).or_insert(offset + 1);
                *p = (*p).max(offset + 1);
            }
        }
    }
}

/// Reads every partition of one Kafka topic from the beginning, without a group.
struct KafkaLogReader {
    topic: String,
    consumer: Arc<BaseConsumer<WatchedContext>>,
    positions: Arc<Mutex<BTreeMap<i32, i64>>>,
    stopping: Arc<AtomicBool>,
    rx: mpsc::Receiver<Vec<ConsumedRecord>>,
    watch: super::refusal::RefusalWatch,
}

impl Drop for KafkaLogReader {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Release);
    }
}

#[async_trait]
impl LogReader for KafkaLogReader {
    fn partitions(&self) -> Vec<i32> {
        lock(&self.positions).keys().copied().collect()
    }

    async fn end_offsets(&mut self) -> Result<BTreeMap<i32, i64>, TopicError> {
        if let Some(reason) = self.watch.refusal() {
            return Err(TopicError::Other(reason));
        }
        let consumer = self.consumer.clone();
        let topic = self.topic.clone();
        let partitions = self.partitions();
        tokio::task::spawn_blocking(move || {
            // One ListOffsets request for every partition (timestamp -1: the latest offset),
            // not one round trip per partition: the offsets topic has 25 by default.
            let failed = |e: &dyn std::fmt::Display| {
                TopicError::Retriable(format!(
                    "Timed out while waiting to get end offsets for topic '{topic}': {e}"
                ))
            };
            let mut query = TopicPartitionList::new();
            for &p in &partitions {
                query
                    .add_partition_offset(&topic, p, Offset::End)
                    .map_err(|e| failed(&e))?;
            }
            let answer = consumer
                .offsets_for_times(query, REQUEST_TIMEOUT)
                .map_err(|e| failed(&e))?;
            let mut ends = BTreeMap::new();
            for element in answer.elements() {
                if let Some(e) = element.error().err() {
                    return Err(failed(&e));
                }
                match element.offset() {
                    Offset::Offset(end) => {
                        ends.insert(element.partition(), end);
                    }
                    other => {
                        return Err(failed(&format!(
                            "partition {} answered {other:?}",
                            element.partition()
                        )))
                    }
                }
            }
            if ends.len() != partitions.len() {
                return Err(failed(&"not every partition answered"));
            }
            Ok(ends)
        })
        .await
        .map_err(blocking_failed)?
    }

    async fn poll(&mut self, timeout: Duration) -> Result<Vec<ConsumedRecord>, TopicError> {
        if let Some(reason) = self.watch.refusal() {
            return Err(TopicError::Other(reason));
        }
        let received = if timeout.is_zero() {
            match self.rx.try_recv() {
                Ok(batch) => Some(batch),
                Err(mpsc::error::TryRecvError::Empty) => return Ok(Vec::new()),
                Err(mpsc::error::TryRecvError::Disconnected) => None,
            }
        } else {
            match tokio::time::timeout(timeout, self.rx.recv()).await {
                Ok(batch) => batch,
                Err(_) => return Ok(Vec::new()),
            }
        };
        received.ok_or_else(|| {
            TopicError::Unavailable(format!(
                "the consumer of internal topic '{}' stopped",
                self.topic
            ))
        })
    }

    fn positions(&self) -> BTreeMap<i32, i64> {
        lock(&self.positions).clone()
    }
}
