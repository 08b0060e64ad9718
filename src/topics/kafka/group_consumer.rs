//! The consumer of a sink task: a member of the connector's group (`connect-<name>`) on the
//! worker's tokio runtime (`connect-consumer`), so a sink task costs no librdkafka client and
//! none of its threads (issue 33). Kafka's tools see an ordinary consumer group with one member
//! per task, `range`-assigned, its offsets committed with the sink's positions as metadata.
//!
//! A rebalance is a drain, as before: when the group takes the partitions back, `poll` returns
//! nothing and [`TopicConsumer::take_revocation`] hands them to the sink loop, which puts,
//! flushes and commits them before it polls again — and only that poll joins the group anew.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use connect_api::ConfigMap;
use connect_consumer::{Consumer, ConsumerConfig, OffsetReset, Polled};
use tracing::warn;

use super::member_security;
use crate::topics::{
    ClientSpec, ConsumedRecord, PartitionOffsets, Revocation, SinkPositions, SubscribedPartitions,
    Subscription, TopicConsumer, TopicError, TopicPartition,
};

/// Java consumer keys whose effect the member has (or that the worker sets itself), besides
/// the client security keys.
const READ: &[&str] = &[
    "group.id",
    "client.id",
    "bootstrap.servers",
    "session.timeout.ms",
    "heartbeat.interval.ms",
    "max.poll.interval.ms",
    "request.timeout.ms",
    "retry.backoff.ms",
    "fetch.min.bytes",
    "fetch.max.wait.ms",
    "fetch.max.bytes",
    "max.partition.fetch.bytes",
    "isolation.level",
    "auto.offset.reset",
    "allow.auto.create.topics",
    "metadata.max.age.ms",
    "max.poll.records",
];

/// `max.partition.fetch.bytes` of a sink task's member unless set (Java's default: 1 MiB).
pub const SINK_PARTITION_FETCH_BYTES: i32 = 256 * 1024;

/// The member's settings: Kafka Connect's sink defaults, then the worker's `consumer.*`
/// (`worker_props`), then the connector's `consumer.override.*`; `group` is the group.
///
/// # Errors
/// A value that is not what its key needs, naming the key.
pub fn member_config(
    bootstrap: &str,
    worker_props: &ConfigMap,
    spec: &ClientSpec,
    group: &str,
) -> Result<(ConsumerConfig, Option<usize>), TopicError> {
    let mut merged = ConfigMap::new();
    for layer in [worker_props, &spec.overrides] {
        merged.extend(layer.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let client_id = merged
        .get("client.id")
        .cloned()
        .unwrap_or_else(|| format!("connector-consumer-{}-{}", spec.connector, spec.task));
    let mut config = ConsumerConfig::new(bootstrap, group, &client_id);
    // Only committed records (as before with librdkafka): a sink reading an exactly-once
    // source's topic sees each record once and never an aborted one.
    config.read_committed = true;
    // A fetch brings at most what a few polls of the task take (the Java default, 1 MiB, is
    // about 10,000 records of 100 bytes): what a member holds is what a worker with hundreds
    // of sinks holds hundreds of times.
    config.max_partition_fetch_bytes = SINK_PARTITION_FETCH_BYTES;
    config.security = member_security::security(&merged).map_err(|e| {
        TopicError::Other(format!(
            "Invalid value for 'consumer.{}': {}",
            e.key, e.reason
        ))
    })?;
    let invalid = |key: &str, expected: &str| {
        TopicError::Other(format!(
            "Invalid value {:?} for consumer setting '{key}': expected {expected}",
            merged.get(key).map(String::as_str).unwrap_or_default()
        ))
    };
    let number = |key: &str| -> Result<Option<u64>, TopicError> {
        merged
            .get(key)
            .map(|v| {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| invalid(key, "a number"))
            })
            .transpose()
    };
    let millis = |key: &str, into: &mut Duration| -> Result<(), TopicError> {
        if let Some(ms) = number(key)? {
            *into = Duration::from_millis(ms);
        }
        Ok(())
    };
    millis("session.timeout.ms", &mut config.session_timeout)?;
    millis("heartbeat.interval.ms", &mut config.heartbeat_interval)?;
    millis("max.poll.interval.ms", &mut config.max_poll_interval)?;
    millis("request.timeout.ms", &mut config.request_timeout)?;
    millis("retry.backoff.ms", &mut config.retry_backoff)?;
    millis("fetch.max.wait.ms", &mut config.fetch_max_wait)?;
    millis("metadata.max.age.ms", &mut config.metadata_max_age)?;
    let int = |key: &str, into: &mut i32| -> Result<(), TopicError> {
        if let Some(n) = number(key)? {
            *into = i32::try_from(n).map_err(|_| invalid(key, "a 32-bit number"))?;
        }
        Ok(())
    };
    int("fetch.min.bytes", &mut config.fetch_min_bytes)?;
    int("fetch.max.bytes", &mut config.fetch_max_bytes)?;
    int(
        "max.partition.fetch.bytes",
        &mut config.max_partition_fetch_bytes,
    )?;
    if let Some(v) = merged.get("isolation.level") {
        config.read_committed = match v.trim().to_ascii_lowercase().as_str() {
            "read_committed" => true,
            "read_uncommitted" => false,
            _ => {
                return Err(invalid(
                    "isolation.level",
                    "read_committed or read_uncommitted",
                ))
            }
        };
    }
    if let Some(v) = merged.get("auto.offset.reset") {
        config.offset_reset = match v.trim().to_ascii_lowercase().as_str() {
            "earliest" => OffsetReset::Earliest,
            "latest" => OffsetReset::Latest,
            "none" => OffsetReset::None,
            _ => return Err(invalid("auto.offset.reset", "earliest, latest or none")),
        };
    }
    if let Some(v) = merged.get("allow.auto.create.topics") {
        config.allow_auto_create_topics = match v.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => return Err(invalid("allow.auto.create.topics", "true or false")),
        };
    }
    let max_poll_records =
        number("max.poll.records")?.map(|n| usize::try_from(n.max(1)).unwrap_or(usize::MAX));
    for (key, value) in &merged {
        let security =
            key == "security.protocol" || key.starts_with("ssl.") || key.starts_with("sasl.");
        if security || READ.contains(&key.as_str()) {
            continue;
        }
        let why = match key.as_str() {
            "enable.auto.commit" if value.trim().eq_ignore_ascii_case("false") => continue,
            "enable.auto.commit" => {
                "the sink commits offsets after its task flushed, never automatically"
            }
            "partition.assignment.strategy"
                if value.contains("RangeAssignor") || value.trim() == "range" =>
            {
                continue
            }
            "partition.assignment.strategy" => "the sink's group members use the range assignor",
            "group.instance.id" => "static group membership is not supported",
            _ => "the sink's consumer has no such setting",
        };
        warn!(connector = %spec.connector, task = spec.task, key = %key, "Ignoring a consumer setting: {why}.");
    }
    Ok((config, max_poll_records))
}

/// A sink task's consumer group member.
pub struct GroupConsumer {
    config: ConsumerConfig,
    max_poll_records: Option<usize>,
    /// Made at `subscribe`, inside the runtime its tasks run on.
    inner: Option<Consumer>,
    revocation: Option<Revocation>,
}

impl std::fmt::Debug for GroupConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupConsumer")
            .field("group", &self.config.group_id)
            .finish_non_exhaustive()
    }
}

impl GroupConsumer {
    /// A member of `group` with the settings of [`member_config`].
    ///
    /// # Errors
    /// A setting that cannot be used, naming its key.
    pub fn new(
        bootstrap: &str,
        worker_props: &ConfigMap,
        spec: &ClientSpec,
        group: &str,
    ) -> Result<Self, TopicError> {
        let (config, max_poll_records) = member_config(bootstrap, worker_props, spec, group)?;
        Ok(Self {
            config,
            max_poll_records,
            inner: None,
            revocation: None,
        })
    }

    fn inner(&mut self) -> Result<&mut Consumer, TopicError> {
        self.inner
            .as_mut()
            .ok_or_else(|| TopicError::Other("the sink consumer is not subscribed".to_owned()))
    }
}

fn failed(e: connect_consumer::consumer::ConsumerError) -> TopicError {
    TopicError::Other(format!("Kafka consumer failed: {e}"))
}

fn key(tp: &TopicPartition) -> (String, i32) {
    (tp.topic.clone(), tp.partition)
}

fn tp((topic, partition): (String, i32)) -> TopicPartition {
    TopicPartition { topic, partition }
}

#[async_trait]
impl TopicConsumer for GroupConsumer {
    async fn subscribe(&mut self, subscription: Subscription) -> Result<(), TopicError> {
        let inner = self
            .inner
            .get_or_insert_with(|| Consumer::new(self.config.clone()));
        let subscription = match subscription {
            Subscription::Topics(t) => connect_consumer::Subscription::Topics(t),
            // Kafka's pattern subscriptions leave internal topics out (exclude.internal.topics).
            Subscription::Pattern(p) => {
                connect_consumer::Subscription::Pattern(Arc::new(move |name: &str| {
                    !name.starts_with("__") && p.matches(name)
                }))
            }
        };
        inner.subscribe(subscription).await;
        Ok(())
    }

    async fn poll(
        &mut self,
        max: usize,
        timeout: Duration,
    ) -> Result<Vec<ConsumedRecord>, TopicError> {
        if self.revocation.is_some() {
            return Ok(Vec::new());
        }
        let max = self.max_poll_records.map_or(max, |m| m.min(max)).max(1);
        match self.inner()?.poll(max, timeout).await.map_err(failed)? {
            Polled::Records(records) => Ok(records
                .into_iter()
                .map(|((topic, partition), r)| ConsumedRecord {
                    topic,
                    partition,
                    offset: r.offset,
                    timestamp: r.timestamp,
                    key: r.key.map(|b| b.to_vec()),
                    value: r.value.map(|b| b.to_vec()),
                    headers: r
                        .headers
                        .into_iter()
                        .map(|(k, v)| (k, v.map(|b| b.to_vec())))
                        .collect(),
                })
                .collect()),
            Polled::Revoked(partitions) => {
                // The sink drains them before it polls again; that poll rejoins.
                let (done, _) = std::sync::mpsc::sync_channel(1);
                self.revocation = Some(Revocation {
                    partitions: partitions.into_iter().map(tp).collect(),
                    done,
                });
                Ok(Vec::new())
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
        let commits = offsets
            .iter()
            .map(|(p, o)| (key(p), *o, positions.get(p).cloned()))
            .collect();
        self.inner()?.commit(commits).await.map_err(|e| {
            let hint = if positions.is_empty() {
                ""
            } else {
                " (with the sink's positions as commit metadata, which the broker limits to \
                 offset.metadata.max.bytes, 4096 by default)"
            };
            TopicError::Retriable(format!("Could not commit sink offsets{hint}: {e}"))
        })
    }

    async fn committed_positions(
        &mut self,
        partitions: &[TopicPartition],
    ) -> Result<SinkPositions, TopicError> {
        let committed = self
            .inner()?
            .committed(partitions.iter().map(key).collect())
            .await
            .map_err(|e| {
                TopicError::Retriable(format!(
                    "Could not read the sink positions committed with the group's offsets: {e}"
                ))
            })?;
        Ok(committed
            .into_iter()
            .filter_map(|(p, (_, metadata))| metadata.filter(|m| !m.is_empty()).map(|m| (tp(p), m)))
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .collect())
    }

    async fn seek(&mut self, tp: &TopicPartition, offset: i64) -> Result<(), TopicError> {
        self.inner()?.seek(&key(tp), offset);
        Ok(())
    }

    fn pause(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError> {
        let keys: Vec<_> = partitions.iter().map(key).collect();
        self.inner()?.pause(&keys);
        Ok(())
    }

    fn resume(&mut self, partitions: &[TopicPartition]) -> Result<(), TopicError> {
        let keys: Vec<_> = partitions.iter().map(key).collect();
        self.inner()?.resume(&keys);
        Ok(())
    }

    fn assignment(&self) -> Vec<TopicPartition> {
        self.inner
            .as_ref()
            .map(|c| c.assignment().into_iter().map(tp).collect())
            .unwrap_or_default()
    }

    fn at_end(&self) -> bool {
        self.revocation.is_none() && self.inner.as_ref().is_some_and(Consumer::at_end)
    }

    fn subscribed_partitions(&self) -> Option<SubscribedPartitions> {
        let inner = self.inner.as_ref()?;
        inner.look_up_partitions();
        let (partitions, looked_up) = inner.subscribed_partitions()?;
        Some(SubscribedPartitions {
            partitions: partitions.into_iter().map(tp).collect(),
            looked_up,
        })
    }

    fn lag(&self) -> Option<u64> {
        self.inner.as_ref()?.lag()
    }

    fn take_revocation(&mut self) -> Option<Revocation> {
        self.revocation.take()
    }

    async fn close(&mut self) {
        if let Some(inner) = self.inner.take() {
            inner.close().await;
        }
    }
}
