//! [`TopicLog`]: reads one internal topic to its end and keeps tailing it, handing every record
//! to a handler; writes records with durable acknowledgements.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tracing::warn;

use super::{ensure_internal_topic, InternalTopicSpec, TopicLogError};
use crate::topics::internal_topic::{InternalTopicBackend, LogReader};
use crate::topics::{ConsumedRecord, ProducerRecord, TopicError, TopicProducer};

/// Longest wait of one read of the tailing task.
const POLL: Duration = Duration::from_millis(500);
/// Pause after a failed read before the next one.
const RETRY_BACKOFF: Duration = Duration::from_millis(500);

/// A record of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    /// Partition.
    pub partition: i32,
    /// Offset in the partition.
    pub offset: i64,
    /// Key bytes.
    pub key: Option<Vec<u8>>,
    /// Value bytes; `None` is a tombstone.
    pub value: Option<Vec<u8>>,
}

/// Receives every record of the log, in offset order per partition, on the log's task.
pub type RecordHandler = Box<dyn FnMut(LogRecord) + Send>;

/// A handler that forwards records to a channel, and its receiver. Once
/// [`TopicLog::read_to_end`] returns, every record up to the end it observed is in the channel.
pub fn channel_handler() -> (RecordHandler, mpsc::UnboundedReceiver<LogRecord>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (
        Box::new(move |record| {
            let _ = tx.send(record);
        }),
        rx,
    )
}

/// Resolves once the records sent are durable (embedded log: fsynced; Kafka: acks=all).
pub type Ack = BoxFuture<'static, Result<(), TopicLogError>>;

enum Request {
    ReadToEnd(oneshot::Sender<Result<(), TopicLogError>>),
}

/// One internal topic, read from the beginning of every partition and tailed (Kafka Connect's
/// `KafkaBasedLog`).
pub struct TopicLog {
    topic: String,
    partitions: usize,
    producer: Arc<dyn TopicProducer>,
    requests: mpsc::UnboundedSender<Request>,
    /// Batches sent and not yet acknowledged.
    in_flight: watch::Sender<usize>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for TopicLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicLog")
            .field("topic", &self.topic)
            .field("partitions", &self.partitions)
            .finish_non_exhaustive()
    }
}

impl TopicLog {
    /// Ensures the topic of `spec` ([`ensure_internal_topic`]), starts reading all its
    /// partitions from the beginning and returns once everything up to the current end has
    /// been handed to `handler`; the log then keeps tailing in the background. `client_id`
    /// names the producer.
    ///
    /// # Errors
    /// The topic's checks fail, or the backend fails.
    pub async fn open(
        backend: &dyn InternalTopicBackend,
        spec: &InternalTopicSpec,
        client_id: &str,
        handler: RecordHandler,
    ) -> Result<Self, TopicLogError> {
        ensure_internal_topic(backend, spec).await?;
        let reader = backend.log_reader(&spec.name).await?;
        let producer = backend.log_producer(client_id)?;
        let partitions = reader.partitions().len();
        let (requests, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(tail(reader, rx, handler, spec.name.clone()));
        let log = Self {
            topic: spec.name.clone(),
            partitions,
            producer,
            requests,
            in_flight: watch::channel(0).0,
            task: Mutex::new(Some(task)),
        };
        log.read_to_end().await?;
        Ok(log)
    }

    /// The topic.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Its number of partitions.
    pub fn partition_count(&self) -> usize {
        self.partitions
    }

    /// Returns once every record up to the end offsets observed now has been handed to the
    /// handler.
    ///
    /// # Errors
    /// The end offsets cannot be read, or the log is stopped.
    pub async fn read_to_end(&self) -> Result<(), TopicLogError> {
        let (tx, rx) = oneshot::channel();
        self.requests
            .send(Request::ReadToEnd(tx))
            .map_err(|_| self.stopped())?;
        rx.await.map_err(|_| self.stopped())?
    }

    /// Sends one record; see [`Self::send_all`].
    ///
    /// # Errors
    /// As [`Self::send_all`].
    pub async fn send(&self, key: Vec<u8>, value: Option<Vec<u8>>) -> Result<Ack, TopicLogError> {
        self.send_all(vec![(key, value)]).await
    }

    /// Queues records (key, value or `None` for a tombstone), partitioned by murmur2 of the key;
    /// records sent later come after them in their partition. The returned [`Ack`] resolves
    /// once all are durable; it need not be awaited for the records to be written.
    ///
    /// # Errors
    /// The producer refuses the records.
    pub async fn send_all(
        &self,
        records: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    ) -> Result<Ack, TopicLogError> {
        let records = records
            .into_iter()
            .map(|(key, value)| ProducerRecord {
                topic: self.topic.clone(),
                key: Some(key),
                value,
                ..ProducerRecord::default()
            })
            .collect();
        let delivery = self.producer.send_batch(records).await?;
        self.in_flight.send_modify(|n| *n += 1);
        let in_flight = self.in_flight.clone();
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            let outcome = delivery.await;
            in_flight.send_modify(|n| *n = n.saturating_sub(1));
            let _ = tx.send(outcome);
        });
        let topic = self.topic.clone();
        Ok(async move {
            match rx.await {
                Ok(outcome) => outcome.map_err(TopicLogError::from),
                Err(_) => Err(TopicLogError::Stopped(topic)),
            }
        }
        .boxed())
    }

    /// Waits until every record sent so far is acknowledged (or failed).
    pub async fn flush(&self) {
        let mut rx = self.in_flight.subscribe();
        let _ = rx.wait_for(|n| *n == 0).await;
    }

    /// Flushes, then stops tailing; later reads fail with [`TopicLogError::Stopped`].
    pub async fn stop(&self) {
        self.flush().await;
        let task = self.task.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(task) = task {
            task.abort();
            let _ = task.await;
        }
    }

    fn stopped(&self) -> TopicLogError {
        TopicLogError::Stopped(self.topic.clone())
    }
}

impl Drop for TopicLog {
    fn drop(&mut self) {
        if let Some(task) = self.task.lock().unwrap_or_else(|e| e.into_inner()).take() {
            task.abort();
        }
    }
}

/// A read to end waiting for these end offsets.
type Pending = (
    BTreeMap<i32, i64>,
    oneshot::Sender<Result<(), TopicLogError>>,
);

/// The tailing task: reads and hands over records, answers reads to end.
async fn tail(
    mut reader: Box<dyn LogReader>,
    mut requests: mpsc::UnboundedReceiver<Request>,
    mut handler: RecordHandler,
    topic: String,
) {
    let mut pending: Vec<Pending> = Vec::new();
    let mut deliver = |records: Vec<ConsumedRecord>| {
        for r in records {
            handler(LogRecord {
                partition: r.partition,
                offset: r.offset,
                key: r.key,
                value: r.value,
            });
        }
    };
    loop {
        let failure = tokio::select! {
            request = requests.recv() => match request {
                None => return,
                Some(Request::ReadToEnd(tx)) => match reader.end_offsets().await {
                    Ok(ends) => {
                        pending.push((ends, tx));
                        None
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.into()));
                        None
                    }
                },
            },
            records = reader.poll(POLL) => match records {
                Ok(records) => {
                    deliver(records);
                    None
                }
                Err(e) => Some(e),
            },
        };
        let failure = match failure {
            None if !pending.is_empty() => {
                // Positions first: every record before them is handed over by the catch-up.
                let positions = reader.positions();
                match catch_up(reader.as_mut(), &mut deliver).await {
                    Ok(()) => Ok(positions),
                    Err(e) => Err(Some(e)),
                }
            }
            None => Err(None),
            Some(e) => Err(Some(e)),
        };
        match failure {
            Err(None) => {}
            Ok(positions) => {
                let (reached, waiting): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut pending)
                    .into_iter()
                    .partition(|(ends, _)| {
                        ends.iter()
                            .all(|(p, end)| positions.get(p).is_some_and(|at| at >= end))
                    });
                pending = waiting;
                for (_, tx) in reached {
                    let _ = tx.send(Ok(()));
                }
            }
            Err(Some(e)) => {
                let unavailable = matches!(e, TopicError::Unavailable(_));
                warn!(topic = %topic, error = %e, "Error while reading an internal topic.");
                for (_, tx) in pending.drain(..) {
                    let _ = tx.send(Err(TopicLogError::Topic(TopicError::Other(e.to_string()))));
                }
                if unavailable {
                    return;
                }
                tokio::time::sleep(RETRY_BACKOFF).await;
            }
        }
    }
}

/// Hands over every record before the reader's positions (read without waiting).
async fn catch_up(
    reader: &mut dyn LogReader,
    deliver: &mut impl FnMut(Vec<ConsumedRecord>),
) -> Result<(), TopicError> {
    loop {
        let records = reader.poll(Duration::ZERO).await?;
        if records.is_empty() {
            return Ok(());
        }
        deliver(records);
    }
}
