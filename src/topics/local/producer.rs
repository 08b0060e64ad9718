//! The producer of the embedded log: routes records to partitions (explicit, murmur2 of the
//! key, or one partition per batch for null keys, rotating), encodes them with their offsets
//! and queues them to the writer.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;

use super::log::{Log, Topic};
use super::partition::Partition;
use super::partitioner::partition_for_key;
use super::segment::{self, FRAME_HEADER, MAX_BODY};
use super::writer::{Chunk, Command};
use crate::topics::{
    Delivery, PositionedDelivery, ProducerRecord, RecordPosition, SourceOffsets, TopicError,
    TopicProducer,
};

/// Appends records to a [`LocalLog`](super::LocalLog); cheap to share (all state lives in the log).
#[derive(Debug, Clone)]
pub struct LocalProducer {
    log: Arc<Log>,
}

/// The records of one batch going to one partition.
struct Route {
    partition: Arc<Partition>,
    records: Vec<usize>,
    bytes: usize,
}

impl LocalProducer {
    /// A producer for `log`.
    pub(crate) fn new(log: Arc<Log>) -> Self {
        Self { log }
    }

    /// Queues `records` (and the source `offsets` they complete, for the commit journal).
    async fn send(
        &self,
        records: Vec<ProducerRecord>,
        offsets: Option<SourceOffsets>,
    ) -> Result<Delivery, TopicError> {
        let durable = self.send_positioned(records, offsets, false).await?;
        Ok(Box::pin(async move { durable.await.map(|_| ()) }))
    }

    /// As [`Self::send`]; the delivery tells where each record went when `positions`.
    async fn send_positioned(
        &self,
        records: Vec<ProducerRecord>,
        offsets: Option<SourceOffsets>,
        positions: bool,
    ) -> Result<PositionedDelivery, TopicError> {
        let log = &self.log;
        if records.is_empty() && offsets.is_none() {
            return Ok(Box::pin(async { Ok(Vec::new()) }));
        }
        if offsets.is_some() && !log.options.exactly_once_source {
            return Err(TopicError::Other(format!(
                "the embedded log {} has no commit journal (embedded.log.exactly.once.source=false)",
                log.dir.display()
            )));
        }
        if log.read_only {
            return Err(TopicError::Unavailable(format!(
                "the embedded log {} is opened read-only",
                log.dir.display()
            )));
        }
        if let Some(reason) = log
            .poisoned
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            return Err(TopicError::Unavailable(format!(
                "the embedded log {} failed: {reason}",
                log.dir.display()
            )));
        }
        let (routes, total) = route(log, &records)?;
        let permits = total.clamp(
            1,
            log.options.max_in_flight_bytes.clamp(1, u32::MAX as usize),
        ) as u32;
        let permit = log
            .in_flight
            .clone()
            .acquire_many_owned(permits)
            .await
            .map_err(|_| {
                TopicError::Unavailable(format!("the embedded log {} is closed", log.dir.display()))
            })?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let mut written = if positions {
            vec![
                RecordPosition {
                    partition: 0,
                    offset: -1,
                    timestamp: -1,
                };
                records.len()
            ]
        } else {
            Vec::new()
        };
        let (done, durable) = tokio::sync::oneshot::channel();
        {
            let queue = log.enqueue.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(tx) = queue.as_ref() else {
                return Err(TopicError::Unavailable(format!(
                    "the embedded log {} is closed",
                    log.dir.display()
                )));
            };
            let chunks = routes
                .into_iter()
                .map(|route| {
                    let first = route.partition.reserved.load(Ordering::Relaxed);
                    let mut bytes = Vec::with_capacity(route.bytes);
                    for (offset, &i) in (first..).zip(&route.records) {
                        let r = &records[i];
                        let timestamp = r.timestamp.unwrap_or(now);
                        if let Some(at) = written.get_mut(i) {
                            *at = RecordPosition {
                                partition: route.partition.partition,
                                offset,
                                timestamp,
                            };
                        }
                        segment::encode(
                            &mut bytes,
                            offset,
                            timestamp,
                            r.key.as_deref(),
                            r.value.as_deref(),
                            &r.headers,
                        );
                    }
                    let count = route.records.len() as i64;
                    route
                        .partition
                        .reserved
                        .store(first + count, Ordering::Relaxed);
                    Chunk {
                        partition: route.partition,
                        first,
                        count,
                        bytes,
                    }
                })
                .collect();
            tx.send(Command::Write {
                chunks,
                offsets,
                done,
                permit,
            })
            .map_err(|_| {
                TopicError::Unavailable(format!("the writer of {} has stopped", log.dir.display()))
            })?;
        }
        Ok(Box::pin(async move {
            durable.await.unwrap_or_else(|_| {
                Err(TopicError::Unavailable(
                    "the embedded log writer stopped before the batch was durable".to_string(),
                ))
            })?;
            Ok(written)
        }))
    }
}

/// Groups the records of a batch by partition (creating topics as needed); also returns the
/// encoded size of the whole batch.
fn route(log: &Log, records: &[ProducerRecord]) -> Result<(Vec<Route>, usize), TopicError> {
    let mut routes: Vec<Route> = Vec::new();
    let mut by_partition: HashMap<(usize, i32), usize> = HashMap::new();
    let mut null_key_partition: HashMap<usize, i32> = HashMap::new();
    // The previous record's lookups: a batch's records mostly share topic and partition, so
    // most records skip the maps.
    let mut last_null: Option<(usize, i32)> = None;
    let mut last_route: Option<((usize, i32), usize)> = None;
    let mut topic = None;
    let mut total = 0;
    for (i, r) in records.iter().enumerate() {
        let t = match &topic {
            Some(t) if Arc::<Topic>::as_ref(t).name == r.topic => t,
            _ => topic.insert(log.ensure_topic(&r.topic)?),
        };
        let id = Arc::as_ptr(t) as usize;
        let n = t.partitions.len() as i32;
        let p = match (r.partition, &r.key) {
            (Some(p), _) if (0..n).contains(&p) => p,
            (Some(p), _) => {
                return Err(TopicError::Other(format!(
                    "topic {} has no partition {p} (it has {n})",
                    r.topic
                )));
            }
            (None, Some(key)) => partition_for_key(key, n as u32),
            (None, None) => match last_null {
                Some((last, p)) if last == id => p,
                _ => {
                    let p = *null_key_partition.entry(id).or_insert_with(|| {
                        (t.round_robin.fetch_add(1, Ordering::Relaxed) % n as u32) as i32
                    });
                    last_null = Some((id, p));
                    p
                }
            },
        };
        let size = segment::encoded_len(r.key.as_deref(), r.value.as_deref(), &r.headers);
        if size - FRAME_HEADER > MAX_BODY {
            return Err(TopicError::Other(format!(
                "a record of {size} bytes for topic {} exceeds the limit of {MAX_BODY} bytes",
                r.topic
            )));
        }
        total += size;
        let k = match last_route {
            Some((key, k)) if key == (id, p) => k,
            _ => {
                let k = *by_partition.entry((id, p)).or_insert_with(|| {
                    routes.push(Route {
                        partition: t.partitions[p as usize].clone(),
                        records: Vec::new(),
                        bytes: 0,
                    });
                    routes.len() - 1
                });
                last_route = Some(((id, p), k));
                k
            }
        };
        routes[k].records.push(i);
        routes[k].bytes += size;
    }
    Ok((routes, total))
}

impl TopicProducer for LocalProducer {
    fn send_batch(
        &self,
        records: Vec<ProducerRecord>,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
        Box::pin(self.send(records, None))
    }

    /// `embedded.log.buffer.memory` is the bound. 8 batches stalled the embedded copy whenever
    /// one fsync took longer (other writes to the same disk; docs/performance.md).
    fn max_in_flight_batches(&self) -> usize {
        64
    }

    fn commits_source_offsets(&self) -> bool {
        self.log.options.exactly_once_source && !self.log.read_only
    }

    fn send_batch_with_offsets(
        &self,
        records: Vec<ProducerRecord>,
        offsets: SourceOffsets,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
        Box::pin(self.send(records, Some(offsets)))
    }

    fn send_batch_positioned(
        &self,
        records: Vec<ProducerRecord>,
        offsets: Option<SourceOffsets>,
    ) -> BoxFuture<'_, Result<PositionedDelivery, TopicError>> {
        Box::pin(self.send_positioned(records, offsets, true))
    }
}
