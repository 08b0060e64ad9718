//! The consumer of the embedded log: static assignment within a group, durable reads, and
//! polls that wake as soon as new records are durable.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;
use tokio::time::Instant;

use super::log::Log;
use super::partition::Partition;
use super::reader::Cursor;
use crate::topics::{
    ConsumedRecord, PartitionOffsets, SinkPositions, SubscribedPartitions, Subscription,
    TopicConsumer, TopicError, TopicPartition, TopicPattern,
};

/// What the consumer subscribed to.
enum Subscribed {
    Topics(Vec<String>),
    Pattern(TopicPattern),
}

/// One assigned partition and the read position in it.
struct Assigned {
    tp: TopicPartition,
    partition: Arc<Partition>,
    cursor: Cursor,
    /// Not read until resumed (the sink task paused it).
    paused: bool,
}

/// A member of a consumer group of a [`LocalLog`](super::LocalLog). Assignment is static: of all partitions of
/// the subscribed topics sorted by (topic, partition), the k-th goes to member `k % members`;
/// with a pattern, topics created later are assigned at the next poll.
pub struct LocalConsumer {
    log: Arc<Log>,
    group: String,
    member: usize,
    members: usize,
    subscribed: Option<Subscribed>,
    assigned: Vec<Assigned>,
    /// Every partition of the subscribed topics at the last assignment.
    all: Vec<TopicPartition>,
    /// The log's topic generation the assignment was computed at.
    generation: u64,
    changes: watch::Receiver<u64>,
    /// Which assigned partition a poll reads first (rotates for fairness).
    first: usize,
}

impl LocalConsumer {
    /// Member `member` of `members` (0-based; a member number ≥ `members` gets nothing) of
    /// consumer group `group` of `log`.
    pub(crate) fn new(log: Arc<Log>, group: &str, member: usize, members: usize) -> Self {
        let changes = log.subscribe_changes();
        Self {
            log,
            group: group.to_string(),
            member,
            members: members.max(1),
            subscribed: None,
            assigned: Vec::new(),
            all: Vec::new(),
            generation: 0,
            changes,
            first: 0,
        }
    }

    /// The consumer group.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The next offset this consumer will read in `tp`, if assigned.
    pub fn position(&self, tp: &TopicPartition) -> Option<i64> {
        self.assigned
            .iter()
            .find(|a| &a.tp == tp)
            .map(|a| a.cursor.next_offset())
    }

    /// Pauses or resumes the assigned ones of `partitions`.
    fn set_paused(&mut self, partitions: &[TopicPartition], paused: bool) {
        for a in &mut self.assigned {
            if partitions.contains(&a.tp) {
                a.paused = paused;
            }
        }
    }

    /// Recomputes the assignment, keeping the positions of partitions still assigned.
    fn assign(&mut self) -> Result<(), TopicError> {
        let Some(subscribed) = &self.subscribed else {
            return Ok(());
        };
        // Read before listing: a topic created meanwhile makes the next poll look again.
        let generation = self.log.topics_generation();
        let mut topics = Vec::new();
        match subscribed {
            Subscribed::Topics(names) => {
                for name in names {
                    topics.push(self.log.ensure_topic(name)?);
                }
            }
            Subscribed::Pattern(pattern) => {
                for name in self.log.topic_names().iter().filter(|n| pattern.matches(n)) {
                    topics.extend(self.log.topic(name));
                }
            }
        }
        topics.sort_by(|a, b| a.name.cmp(&b.name));
        topics.dedup_by(|a, b| a.name == b.name);
        let committed = self.log.committed(&self.group)?;
        let mut previous = std::mem::take(&mut self.assigned);
        self.all.clear();
        let all = topics.iter().flat_map(|t| t.partitions.iter());
        for (k, partition) in all.enumerate() {
            let tp = TopicPartition {
                topic: partition.topic.clone(),
                partition: partition.partition,
            };
            self.all.push(tp.clone());
            if k % self.members != self.member {
                continue;
            }
            if let Some(i) = previous.iter().position(|a| a.tp == tp) {
                self.assigned.push(previous.swap_remove(i));
                continue;
            }
            let (start, end) = (partition.start(), partition.end());
            let next = match committed.get(&tp) {
                None => start,
                Some(&offset) if (start..=end).contains(&offset) => offset,
                // Records were lost (the log is shorter than what was consumed): resume at the
                // end rather than deliver the whole partition again.
                Some(&offset) if offset > end => {
                    tracing::warn!(
                        group = %self.group, topic = %tp.topic, partition = tp.partition, committed = offset,
                        end, missing = offset - end,
                        "committed offset beyond the end of the log ({} offsets missing); resuming at the end",
                        offset - end
                    );
                    end
                }
                Some(&offset) => {
                    tracing::warn!(
                        group = %self.group, topic = %tp.topic, partition = tp.partition, committed = offset,
                        start, end, "committed offset before the start of the log; reading from the earliest offset"
                    );
                    start
                }
            };
            self.assigned.push(Assigned {
                tp,
                partition: partition.clone(),
                cursor: Cursor::new(next),
                paused: false,
            });
        }
        self.generation = generation;
        Ok(())
    }

    /// Reads what is durable now, up to `max` records, starting with a rotating partition.
    fn read_available(&mut self, max: usize) -> Result<Vec<ConsumedRecord>, TopicError> {
        let mut out = Vec::new();
        let n = self.assigned.len();
        if n == 0 || max == 0 {
            return Ok(out);
        }
        // Room for what is durable now (up to `max`) at once, not by doubling (each growth
        // moves every record read so far).
        let available: i64 = self
            .assigned
            .iter()
            .filter(|a| !a.paused)
            .map(|a| (a.partition.end() - a.cursor.next_offset()).max(0))
            .sum();
        out.reserve(usize::try_from(available).unwrap_or(max).min(max));
        let max_bytes = self.log.options.max_poll_bytes.max(1);
        let mut bytes = 0;
        for i in 0..n {
            let remaining = max - out.len();
            if remaining == 0 || bytes >= max_bytes {
                break;
            }
            let a = &mut self.assigned[(self.first + i) % n];
            if a.paused {
                continue;
            }
            if self.log.is_read_only() {
                a.partition.refresh()?;
            }
            bytes += a
                .cursor
                .read(&a.partition, remaining, max_bytes - bytes, &mut out)?;
        }
        self.first = (self.first + 1) % n;
        Ok(out)
    }
}

#[async_trait]
impl TopicConsumer for LocalConsumer {
    async fn subscribe(&mut self, subscription: Subscription) -> Result<(), TopicError> {
        self.subscribed = Some(match subscription {
            Subscription::Topics(names) => Subscribed::Topics(names),
            Subscription::Pattern(pattern) => Subscribed::Pattern(pattern),
        });
        self.assigned.clear();
        self.assign()
    }

    async fn poll(
        &mut self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, TopicError> {
        let Some(subscribed) = &self.subscribed else {
            return Err(TopicError::Other("poll before subscribe".to_string()));
        };
        let pattern = matches!(subscribed, Subscribed::Pattern(_));
        let deadline = Instant::now() + timeout;
        loop {
            // Mark the current state seen before looking, so no later change is missed.
            self.changes.borrow_and_update();
            if pattern && self.log.is_read_only() {
                self.log.refresh_topics()?;
            }
            if pattern && self.log.topics_generation() != self.generation {
                self.assign()?;
            }
            let records = self.read_available(max)?;
            if !records.is_empty() || max == 0 {
                return Ok(records);
            }
            match tokio::time::timeout_at(deadline, self.changes.changed()).await {
                Ok(Ok(())) => continue,
                Ok(Err(_)) => {
                    tokio::time::sleep_until(deadline).await;
                    return Ok(Vec::new());
                }
                Err(_) => return Ok(Vec::new()),
            }
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
        let log = self.log.clone();
        let group = self.group.clone();
        let offsets = offsets.clone();
        let positions = positions.clone();
        tokio::task::spawn_blocking(move || log.commit_blocking(&group, &offsets, &positions))
            .await
            .map_err(|e| {
                TopicError::Other(format!(
                    "the offset commit of group {} failed: {e}",
                    self.group
                ))
            })?
    }

    async fn committed_positions(
        &mut self,
        partitions: &[TopicPartition],
    ) -> Result<SinkPositions, TopicError> {
        let mut positions = self.log.committed_positions(&self.group)?;
        positions.retain(|tp, _| partitions.contains(tp));
        Ok(positions)
    }

    async fn seek(&mut self, tp: &TopicPartition, offset: i64) -> Result<(), TopicError> {
        let group = self.group.clone();
        let Some(a) = self.assigned.iter_mut().find(|a| &a.tp == tp) else {
            return Err(TopicError::Other(format!(
                "cannot move group {group} to offset {offset} of {}-{}: the partition is not \
                 assigned to this member",
                tp.topic, tp.partition
            )));
        };
        let (start, end) = (a.partition.start(), a.partition.end());
        // As Kafka with auto.offset.reset=earliest before the start; past the end, the end
        // (the embedded log's rule for committed offsets beyond it).
        let next = offset.clamp(start, end.max(start));
        if next != offset {
            tracing::warn!(
                group = %group, topic = %tp.topic, partition = tp.partition, offset, start, end,
                "the offset asked for is outside the partition; reading from {next}"
            );
        }
        a.cursor = Cursor::new(next);
        Ok(())
    }

    fn pause(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError> {
        self.set_paused(partitions, true);
        Ok(())
    }

    fn resume(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError> {
        self.set_paused(partitions, false);
        Ok(())
    }

    fn assignment(&self) -> Vec<TopicPartition> {
        self.assigned.iter().map(|a| a.tp.clone()).collect()
    }

    fn at_end(&self) -> bool {
        self.assigned
            .iter()
            .all(|a| a.cursor.next_offset() >= a.partition.end())
    }

    fn subscribed_partitions(&self) -> Option<SubscribedPartitions> {
        // The assignment follows the log's topics at every poll: always current.
        self.subscribed.as_ref().map(|_| SubscribedPartitions {
            partitions: self.all.clone(),
            looked_up: std::time::Instant::now(),
        })
    }

    fn lag(&self) -> Option<u64> {
        let behind: i64 = self
            .assigned
            .iter()
            .map(|a| (a.partition.end() - a.cursor.next_offset()).max(0))
            .sum();
        u64::try_from(behind).ok()
    }
}
