//! The consumer of a sink task: a member of the connector's group (`connect-<name>`).
//!
//! A dedicated thread polls librdkafka and hands batches to the task through a small channel.
//! When the group takes partitions away, librdkafka calls back on that thread before it lets
//! them go; the callback hands what it polled so far to the task, then a [`Revocation`], and
//! waits (bounded) until the task has put, flushed and committed them — a rebalance is a drain.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance};
use rdkafka::message::{Headers, Message};
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use rdkafka::ClientContext;
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use super::client_config;
use super::refusal::RefusalWatch;
use crate::topics::{
    ClientSpec, ConsumedRecord, PartitionOffsets, Revocation, SinkPositions, SubscribedPartitions,
    Subscription, TopicConsumer, TopicError, TopicPartition,
};

/// Longest wait of one librdkafka poll on the polling thread.
const POLL_SLICE: Duration = Duration::from_millis(100);
/// Records per batch handed to the task, at most.
const BATCH: usize = 2000;
/// A partial batch is handed over after this long.
const BATCH_LINGER: Duration = Duration::from_millis(20);
/// Batches queued between the polling thread and the task.
const QUEUE: usize = 4;
/// How long a revocation waits for the task to drain (below the default max.poll.interval.ms).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one seek may take.
const SEEK_TIMEOUT: Duration = Duration::from_secs(10);
/// How long reading the committed offsets and their metadata may take.
const COMMITTED_TIMEOUT: Duration = Duration::from_secs(30);
/// First and longest interval between two looks for subscribed topics that do not exist yet.
const TOPIC_WATCH_FIRST: Duration = Duration::from_millis(50);
const TOPIC_WATCH_MAX: Duration = Duration::from_secs(5);
/// How long one look (a metadata request) may take.
const TOPIC_WATCH_TIMEOUT: Duration = Duration::from_secs(2);
/// Shortest interval between two lookups of the subscribed topics' partitions.
const PARTITION_LOOK_MIN: Duration = Duration::from_millis(200);

enum Event {
    /// Records, and how many seeks the polling thread had made when it handed them over.
    Records(Vec<ConsumedRecord>, u64),
    Revoking(Revocation),
    Error(String),
}

struct Shared {
    events: Mutex<Option<mpsc::Sender<Event>>>,
    pending: Mutex<Vec<ConsumedRecord>>,
    assignment: Mutex<BTreeSet<TopicPartition>>,
    assigned_once: AtomicBool,
    stopping: AtomicBool,
    /// Per partition, from librdkafka's statistics: (next offset the task gets, or the
    /// committed offset before it got any; the partition's high watermark).
    progress: Mutex<std::collections::HashMap<TopicPartition, (i64, i64)>>,
    /// Every partition of the subscribed topics, as last looked up by the polling thread.
    partitions: Mutex<Option<SubscribedPartitions>>,
    /// Whether the task asked for a fresh lookup of `partitions`.
    want_partitions: AtomicBool,
    /// Seeks the task asked for, made by the polling thread before its next poll.
    seeks: Mutex<Vec<(TopicPartition, i64)>>,
    /// How many seeks the polling thread made (changed with `pending` locked).
    seeks_made: std::sync::atomic::AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn send(&self, event: Event) -> bool {
        let sender = lock(&self.events).clone();
        match sender {
            Some(tx) => tx.blocking_send(event).is_ok(),
            None => false,
        }
    }

    fn flush_pending(&self) {
        let (batch, seeks) = {
            let mut pending = lock(&self.pending);
            (
                std::mem::take(&mut *pending),
                self.seeks_made.load(Ordering::Acquire),
            )
        };
        if !batch.is_empty() {
            self.send(Event::Records(batch, seeks));
        }
    }

    /// Makes the seeks the task asked for (on the polling thread, between two polls): what
    /// was polled of those partitions before is dropped, later batches carry the new count.
    fn make_seeks(&self, consumer: &BaseConsumer<SinkContext>) {
        let seeks = std::mem::take(&mut *lock(&self.seeks));
        if seeks.is_empty() {
            return;
        }
        let mut pending = lock(&self.pending);
        for (tp, offset) in &seeks {
            pending.retain(|r| r.partition != tp.partition || r.topic != tp.topic);
            if let Err(e) = consumer.seek(
                &tp.topic,
                tp.partition,
                Offset::Offset(*offset),
                SEEK_TIMEOUT,
            ) {
                // Reading on from the old position would repeat or skip records: fail the task.
                let message = format!(
                    "could not move the consumer to offset {offset} of {}-{}: {e}",
                    tp.topic, tp.partition
                );
                drop(pending);
                self.send(Event::Error(message));
                return;
            }
        }
        let count = u64::try_from(seeks.len()).unwrap_or(u64::MAX);
        self.seeks_made.fetch_add(count, Ordering::AcqRel);
    }
}

/// librdkafka callbacks of the sink consumer.
#[derive(Clone)]
pub struct SinkContext {
    shared: Arc<Shared>,
    watch: RefusalWatch,
}

impl ClientContext for SinkContext {
    fn error(&self, error: rdkafka::error::KafkaError, reason: &str) {
        tracing::error!(target: "librdkafka", "librdkafka: {error}: {reason}");
        let first = self.watch.refusal().is_none();
        if self.watch.observe(&error, reason) && first {
            if let Some(refusal) = self.watch.refusal() {
                // Called on the polling thread; never block it on a full queue.
                if let Some(tx) = lock(&self.shared.events).clone() {
                    let _ = tx.try_send(Event::Error(refusal));
                }
            }
        }
    }

    fn stats(&self, statistics: rdkafka::Statistics) {
        let mut progress = lock(&self.shared.progress);
        for (topic, t) in statistics.topics {
            for (partition, p) in t.partitions {
                if partition < 0 || p.hi_offset < 0 {
                    continue;
                }
                let at = if p.app_offset >= 0 {
                    p.app_offset
                } else {
                    p.committed_offset
                };
                progress.insert(
                    TopicPartition {
                        topic: topic.clone(),
                        partition,
                    },
                    (at, p.hi_offset),
                );
            }
        }
    }
}

fn partitions(tpl: &TopicPartitionList) -> Vec<TopicPartition> {
    tpl.elements()
        .iter()
        .map(|e| TopicPartition {
            topic: e.topic().to_owned(),
            partition: e.partition(),
        })
        .collect()
}

fn partition_list(partitions: &[TopicPartition]) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    for tp in partitions {
        tpl.add_partition(&tp.topic, tp.partition);
    }
    tpl
}

impl ConsumerContext for SinkContext {
    fn pre_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        let Rebalance::Revoke(tpl) = rebalance else {
            return;
        };
        let revoked = partitions(tpl);
        if revoked.is_empty() || self.shared.stopping.load(Ordering::Acquire) {
            return;
        }
        // Hand over what was polled, then ask the task to drain; wait for it.
        self.shared.flush_pending();
        let (done, wait) = std::sync::mpsc::sync_channel(1);
        info!(
            partitions = revoked.len(),
            "Partitions revoked; draining them before release."
        );
        if self.shared.send(Event::Revoking(Revocation {
            partitions: revoked.clone(),
            done,
        })) && wait.recv_timeout(DRAIN_TIMEOUT).is_err()
        {
            warn!("The sink did not finish draining revoked partitions in time; releasing them.");
        }
        let mut assignment = lock(&self.shared.assignment);
        for tp in &revoked {
            assignment.remove(tp);
        }
    }

    fn post_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(tpl) = rebalance {
            let mut assignment = lock(&self.shared.assignment);
            assignment.extend(partitions(tpl));
            debug!(partitions = assignment.len(), "Partitions assigned.");
        }
        self.shared.assigned_once.store(true, Ordering::Release);
    }
}

/// A Kafka group consumer for one sink task.
pub struct KafkaConsumer {
    consumer: Arc<BaseConsumer<SinkContext>>,
    shared: Arc<Shared>,
    events: mpsc::Receiver<Event>,
    revocation: Option<Revocation>,
    thread: Option<JoinHandle<()>>,
    /// Records of the last batch beyond the `max` of the poll that got it, for the next.
    leftover: Vec<ConsumedRecord>,
    /// Seeks asked for so far.
    seeks_asked: u64,
    /// Per partition with a seek not yet seen made: the seek count from which its records
    /// are read from the new offset (earlier batches' records of it are dropped).
    seeking: std::collections::HashMap<TopicPartition, u64>,
}

/// The settings every sink consumer starts from (the worker's `consumer.*` and the connector's
/// `consumer.override.*` are layered over them).
fn forced_settings(bootstrap: &str, spec: &ClientSpec, group: &str) -> connect_api::ConfigMap {
    let mut forced = connect_api::ConfigMap::new();
    for (k, v) in [
        ("bootstrap.servers", bootstrap.to_owned()),
        ("group.id", group.to_owned()),
        (
            "client.id",
            format!("connector-consumer-{}-{}", spec.connector, spec.task),
        ),
        ("enable.auto.commit", "false".to_owned()),
        ("enable.auto.offset.store", "false".to_owned()),
        ("auto.offset.reset", "earliest".to_owned()),
        // Subscribing creates missing topics (where the broker allows it), as producing does.
        ("allow.auto.create.topics", "true".to_owned()),
        // Positions and high watermarks for `at_end`, without extra requests.
        ("statistics.interval.ms", "100".to_owned()),
        // When the prefetch queue is full, fetch again 10 ms after it drains instead of
        // librdkafka's 1000 ms: with the default, a sink that briefly fell behind stalled for
        // about a second several times per million records (bench/kafka-side-by-side.sh:
        // 1M records in 3.9-5.0 s, against 1.4-1.6 s with 10 ms).
        ("fetch.queue.backoff.ms", "10".to_owned()),
        // Prefetch at most 10,000 records per partition instead of librdkafka's 100,000: each
        // queued record costs about 250 bytes of librdkafka bookkeeping besides its bytes, so
        // a sink that fell behind held 25-40 MB (heaptrack of the 1M-record copy; peak RSS
        // median 79 -> 61 MiB, throughput unchanged, in five alternating runs).
        ("queued.min.messages", "10000".to_owned()),
        // Only committed records (librdkafka's default, said here): a sink reading an
        // exactly-once source's topic sees each record once and never an aborted one.
        // `consumer.isolation.level` / `consumer.override.isolation.level` change it.
        ("isolation.level", "read_committed".to_owned()),
    ] {
        forced.insert(k.to_owned(), v);
    }
    forced
}

impl KafkaConsumer {
    /// A consumer in `group` (unless the connector overrides `group.id`): forced defaults, then
    /// the worker's `consumer.*`, then the connector's `consumer.override.*`.
    ///
    /// # Errors
    /// When librdkafka rejects the configuration.
    pub fn new(
        bootstrap: &str,
        worker_props: &connect_api::ConfigMap,
        spec: &ClientSpec,
        group: &str,
    ) -> Result<Self, TopicError> {
        let forced = forced_settings(bootstrap, spec, group);
        let config = client_config::layered(&[&forced, worker_props, &spec.overrides])?;
        let (tx, events) = mpsc::channel(QUEUE);
        let shared = Arc::new(Shared {
            events: Mutex::new(Some(tx)),
            pending: Mutex::new(Vec::new()),
            assignment: Mutex::new(BTreeSet::new()),
            assigned_once: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            progress: Mutex::new(std::collections::HashMap::new()),
            partitions: Mutex::new(None),
            want_partitions: AtomicBool::new(false),
            seeks: Mutex::new(Vec::new()),
            seeks_made: std::sync::atomic::AtomicU64::new(0),
        });
        let watch = RefusalWatch::for_config(&config);
        let consumer: BaseConsumer<SinkContext> = client_config::create(
            config,
            SinkContext {
                shared: shared.clone(),
                watch,
            },
            "consumer",
        )?;
        Ok(Self {
            consumer: Arc::new(consumer),
            shared,
            events,
            revocation: None,
            thread: None,
            leftover: Vec::new(),
            seeks_asked: 0,
            seeking: std::collections::HashMap::new(),
        })
    }

    fn start_polling(&mut self, watched: Vec<String>, subscription: Subscription) {
        let consumer = self.consumer.clone();
        let shared = self.shared.clone();
        self.thread = Some(std::thread::spawn(move || {
            poll_loop(
                &consumer,
                &shared,
                TopicWatch::new(watched),
                PartitionLook::new(subscription),
            );
        }));
    }
}

fn convert(m: &rdkafka::message::BorrowedMessage<'_>) -> ConsumedRecord {
    let headers = m
        .headers()
        .map(|hs| {
            hs.iter()
                .map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec)))
                .collect()
        })
        .unwrap_or_default();
    ConsumedRecord {
        topic: m.topic().to_owned(),
        partition: m.partition(),
        offset: m.offset(),
        timestamp: m.timestamp().to_millis().unwrap_or(-1),
        key: m.key().map(<[u8]>::to_vec),
        value: m.payload().map(<[u8]>::to_vec),
        headers,
    }
}

/// Subscribed topics that did not exist when the group was joined. librdkafka looks at the
/// subscription again only at `topic.metadata.refresh.interval.ms` (5 minutes) or at its next
/// rejoin (about 1 s later when measured), so a sink subscribed to the topic its source is about to
/// create would wait that long for its partitions. Asking for the topics' metadata (backing off
/// from 50 ms to 5 s) puts them in the client's cache as soon as they exist, which makes the
/// consumer rejoin with them at once; once every topic was seen, the watch ends.
struct TopicWatch {
    missing: Vec<String>,
    next: Instant,
    interval: Duration,
}

impl TopicWatch {
    fn new(topics: Vec<String>) -> Self {
        Self {
            missing: topics,
            next: Instant::now() + TOPIC_WATCH_FIRST,
            interval: TOPIC_WATCH_FIRST,
        }
    }

    fn look(&mut self, consumer: &BaseConsumer<SinkContext>) {
        if self.missing.is_empty() || Instant::now() < self.next {
            return;
        }
        self.missing.retain(|topic| {
            let exists = consumer
                .fetch_metadata(Some(topic), TOPIC_WATCH_TIMEOUT)
                .is_ok_and(|md| {
                    md.topics()
                        .iter()
                        .any(|t| t.error().is_none() && !t.partitions().is_empty())
                });
            if exists {
                debug!(
                    topic,
                    "Subscribed topic exists; its metadata is in the client's cache."
                );
            }
            !exists
        });
        self.interval = (self.interval * 2).min(TOPIC_WATCH_MAX);
        self.next = Instant::now() + self.interval;
    }
}

/// Looks up every partition of the subscribed topics when the task asks for it (see
/// [`TopicConsumer::subscribed_partitions`]): a group may give partitions to members outside
/// this worker, and only the partition list tells that some are not read here.
struct PartitionLook {
    subscription: Subscription,
    last: Option<Instant>,
}

impl PartitionLook {
    fn new(subscription: Subscription) -> Self {
        Self {
            subscription,
            last: None,
        }
    }

    fn look(&mut self, consumer: &BaseConsumer<SinkContext>, shared: &Shared) {
        if !shared.want_partitions.load(Ordering::Acquire)
            || self.last.is_some_and(|t| t.elapsed() < PARTITION_LOOK_MIN)
        {
            return;
        }
        shared.want_partitions.store(false, Ordering::Release);
        let started = Instant::now();
        self.last = Some(started);
        match self.partitions(consumer) {
            Ok(partitions) => {
                *lock(&shared.partitions) = Some(SubscribedPartitions {
                    partitions,
                    looked_up: started,
                });
            }
            Err(e) => debug!(error = %e, "Could not look up the subscribed topics' partitions."),
        }
    }

    fn partitions(
        &self,
        consumer: &BaseConsumer<SinkContext>,
    ) -> Result<Vec<TopicPartition>, rdkafka::error::KafkaError> {
        let mut found = Vec::new();
        let mut add = |md: &rdkafka::metadata::Metadata, wanted: &dyn Fn(&str) -> bool| {
            for t in md.topics() {
                if t.error().is_none() && wanted(t.name()) {
                    found.extend(t.partitions().iter().map(|p| TopicPartition {
                        topic: t.name().to_owned(),
                        partition: p.id(),
                    }));
                }
            }
        };
        match &self.subscription {
            Subscription::Topics(topics) => {
                for topic in topics {
                    let md = consumer.fetch_metadata(Some(topic), TOPIC_WATCH_TIMEOUT)?;
                    add(&md, &|name| name == topic);
                }
            }
            // Kafka's pattern subscriptions leave internal topics out (exclude.internal.topics).
            Subscription::Pattern(p) => {
                let md = consumer.fetch_metadata(None, TOPIC_WATCH_TIMEOUT)?;
                add(&md, &|name| !name.starts_with("__") && p.matches(name));
            }
        }
        Ok(found)
    }
}

fn poll_loop(
    consumer: &BaseConsumer<SinkContext>,
    shared: &Shared,
    mut watch: TopicWatch,
    mut look: PartitionLook,
) {
    let mut first_pending: Option<Instant> = None;
    while !shared.stopping.load(Ordering::Acquire) {
        watch.look(consumer);
        look.look(consumer, shared);
        shared.make_seeks(consumer);
        match consumer.poll(POLL_SLICE) {
            Some(Ok(m)) => {
                let full = {
                    let mut pending = lock(&shared.pending);
                    pending.push(convert(&m));
                    pending.len() >= BATCH
                };
                first_pending.get_or_insert_with(Instant::now);
                if full {
                    shared.flush_pending();
                    first_pending = None;
                }
            }
            Some(Err(e)) => {
                // Broker outages and the like: librdkafka retries by itself.
                warn!(error = %e, "Kafka consumer error; retrying.");
                if matches!(e, rdkafka::error::KafkaError::MessageConsumptionFatal(_))
                    && !shared.send(Event::Error(e.to_string()))
                {
                    return;
                }
            }
            None => {}
        }
        if first_pending.is_some_and(|t| t.elapsed() >= BATCH_LINGER) {
            shared.flush_pending();
            first_pending = None;
        }
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, TopicError> + Send + 'static,
) -> Result<T, TopicError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| TopicError::Other(format!("Kafka consumer call failed: {e}")))?
}

#[async_trait]
impl TopicConsumer for KafkaConsumer {
    async fn subscribe(&mut self, subscription: Subscription) -> Result<(), TopicError> {
        let (topics, watched): (Vec<String>, Vec<String>) = match &subscription {
            Subscription::Topics(t) => (t.clone(), t.clone()),
            // librdkafka treats a subscription starting with ^ as a regular expression.
            Subscription::Pattern(p) => (vec![format!("^({})$", p.as_str())], Vec::new()),
        };
        let consumer = self.consumer.clone();
        blocking(move || {
            let names: Vec<&str> = topics.iter().map(String::as_str).collect();
            consumer
                .subscribe(&names)
                .map_err(|e| TopicError::Other(format!("Could not subscribe to {topics:?}: {e}")))
        })
        .await?;
        if self.thread.is_none() {
            self.start_polling(watched, subscription);
        }
        Ok(())
    }

    async fn poll(
        &mut self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, TopicError> {
        if !self.leftover.is_empty() {
            let rest = self.leftover.split_off(max.min(self.leftover.len()));
            return Ok(std::mem::replace(&mut self.leftover, rest));
        }
        if self.revocation.is_some() {
            return Ok(Vec::new());
        }
        let event = match tokio::time::timeout(timeout, self.events.recv()).await {
            Err(_) => return Ok(Vec::new()),
            Ok(None) => {
                return Err(TopicError::Unavailable(
                    "the Kafka consumer stopped".to_owned(),
                ))
            }
            Ok(Some(e)) => e,
        };
        match event {
            Event::Records(mut records, seeks) => {
                if !self.seeking.is_empty() {
                    self.seeking.retain(|_, from| *from > seeks);
                    let seeking = &self.seeking;
                    records.retain(|r| {
                        seeking.is_empty()
                            || !seeking.contains_key(&TopicPartition {
                                topic: r.topic.clone(),
                                partition: r.partition,
                            })
                    });
                }
                // Batches are at most BATCH records; a smaller `max` is honoured by splitting
                // (the rest comes first at the next poll).
                if records.len() > max {
                    self.leftover = records.split_off(max);
                }
                Ok(records)
            }
            Event::Revoking(r) => {
                self.revocation = Some(r);
                Ok(Vec::new())
            }
            Event::Error(e) => Err(TopicError::Other(format!("Kafka consumer failed: {e}"))),
        }
    }

    async fn commit(&mut self, offsets: &PartitionOffsets) -> Result<(), TopicError> {
        self.commit_at(offsets, &SinkPositions::new()).await
    }

    async fn commit_at(
        &mut self,
        offsets: &PartitionOffsets,
        positions: &SinkPositions,
    ) -> Result<(), TopicError> {
        let mut tpl = TopicPartitionList::new();
        for (tp, offset) in offsets {
            let mut elem = tpl.add_partition(&tp.topic, tp.partition);
            elem.set_offset(Offset::Offset(*offset)).map_err(|e| {
                TopicError::Other(format!("Invalid offset {offset} for {tp:?}: {e}"))
            })?;
            // Kafka stores the metadata with the offset in the same commit record.
            if let Some(position) = positions.get(tp) {
                elem.set_metadata(position);
            }
        }
        let with_positions = !positions.is_empty();
        let consumer = self.consumer.clone();
        blocking(move || {
            consumer.commit(&tpl, CommitMode::Sync).map_err(|e| {
                let hint = if with_positions {
                    " (with the sink's positions as commit metadata, which the broker limits to \
                     offset.metadata.max.bytes, 4096 by default)"
                } else {
                    ""
                };
                TopicError::Retriable(format!("Could not commit sink offsets{hint}: {e}"))
            })
        })
        .await
    }

    async fn committed_positions(
        &mut self,
        partitions: &[TopicPartition],
    ) -> Result<SinkPositions, TopicError> {
        let mut tpl = TopicPartitionList::new();
        for tp in partitions {
            tpl.add_partition(&tp.topic, tp.partition);
        }
        let consumer = self.consumer.clone();
        blocking(move || {
            let committed = consumer
                .committed_offsets(tpl, COMMITTED_TIMEOUT)
                .map_err(|e| {
                    TopicError::Retriable(format!(
                        "Could not read the sink positions committed with the group's offsets: {e}"
                    ))
                })?;
            Ok(committed
                .elements()
                .iter()
                .filter(|e| matches!(e.offset(), Offset::Offset(_)) && !e.metadata().is_empty())
                .map(|e| {
                    (
                        TopicPartition {
                            topic: e.topic().to_owned(),
                            partition: e.partition(),
                        },
                        e.metadata().to_owned(),
                    )
                })
                .collect())
        })
        .await
    }

    async fn seek(&mut self, tp: &TopicPartition, offset: i64) -> Result<(), TopicError> {
        self.leftover
            .retain(|r| r.partition != tp.partition || r.topic != tp.topic);
        self.seeks_asked += 1;
        self.seeking.insert(tp.clone(), self.seeks_asked);
        lock(&self.shared.seeks).push((tp.clone(), offset));
        Ok(())
    }

    fn pause(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError> {
        let tpl = partition_list(partitions);
        self.consumer
            .pause(&tpl)
            .map_err(|e| TopicError::Other(format!("could not pause {partitions:?}: {e}")))
    }

    fn resume(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError> {
        let tpl = partition_list(partitions);
        self.consumer
            .resume(&tpl)
            .map_err(|e| TopicError::Other(format!("could not resume {partitions:?}: {e}")))
    }

    fn assignment(&self) -> Vec<TopicPartition> {
        lock(&self.shared.assignment).iter().cloned().collect()
    }

    fn at_end(&self) -> bool {
        if !self.shared.assigned_once.load(Ordering::Acquire)
            || !self.events.is_empty()
            || !lock(&self.shared.pending).is_empty()
        {
            return false;
        }
        let progress = lock(&self.shared.progress);
        lock(&self.shared.assignment).iter().all(|tp| {
            progress
                .get(tp)
                // Nothing consumed and nothing committed: at the end only if empty.
                .is_some_and(|&(at, high)| if at < 0 { high == 0 } else { at >= high })
        })
    }

    fn subscribed_partitions(&self) -> Option<SubscribedPartitions> {
        // The polling thread looks them up again (at most every PARTITION_LOOK_MIN).
        self.shared.want_partitions.store(true, Ordering::Release);
        lock(&self.shared.partitions).clone()
    }

    fn lag(&self) -> Option<u64> {
        let progress = lock(&self.shared.progress);
        let assignment = lock(&self.shared.assignment);
        let mut behind = 0i64;
        for tp in assignment.iter() {
            // Nothing consumed and nothing committed yet: the whole partition is ahead.
            let &(at, high) = progress.get(tp)?;
            behind += (high - at.max(0)).max(0);
        }
        u64::try_from(behind).ok()
    }

    fn take_revocation(&mut self) -> Option<Revocation> {
        self.revocation.take()
    }
}

impl Drop for KafkaConsumer {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::Release);
        *lock(&self.shared.events) = None;
        self.events.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(overrides: &[(&str, &str)]) -> ClientSpec {
        ClientSpec {
            connector: "dst".to_owned(),
            task: 2,
            overrides: overrides
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            ..ClientSpec::default()
        }
    }

    fn merged(worker: &[(&str, &str)], spec: &ClientSpec) -> rdkafka::ClientConfig {
        let worker: connect_api::ConfigMap = worker
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let forced = forced_settings("k:9092", spec, "connect-dst");
        client_config::layered(&[&forced, &worker, &spec.overrides]).expect("valid settings")
    }

    #[test]
    fn the_prefetch_is_bounded_at_ten_thousand_records_and_the_fetch_retries_soon() {
        let config = merged(&[], &spec(&[]));
        assert_eq!(config.get("queued.min.messages"), Some("10000"));
        assert_eq!(config.get("fetch.queue.backoff.ms"), Some("10"));
        assert_eq!(config.get("client.id"), Some("connector-consumer-dst-2"));
        assert_eq!(config.get("enable.auto.commit"), Some("false"));
        assert_eq!(config.get("isolation.level"), Some("read_committed"));
    }

    #[test]
    fn worker_and_connector_settings_win_over_the_defaults() {
        let config = merged(
            &[("queued.min.messages", "50000")],
            &spec(&[("fetch.queue.backoff.ms", "500")]),
        );
        assert_eq!(config.get("queued.min.messages"), Some("50000"));
        assert_eq!(config.get("fetch.queue.backoff.ms"), Some("500"));
        let config = merged(
            &[("queued.min.messages", "50000")],
            &spec(&[("queued.min.messages", "20000")]),
        );
        assert_eq!(config.get("queued.min.messages"), Some("20000"));
    }
}
