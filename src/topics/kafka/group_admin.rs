//! Reading and altering a consumer group's committed offsets (sink connectors' offsets over
//! REST, KIP-875), with a short-lived consumer of the group that joins nothing.

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, DefaultConsumerContext};
use rdkafka::producer::{BaseProducer, Producer};
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use rdkafka::types::RDKafkaErrorCode;

use connect_api::ConfigMap;

use super::client_config;
use super::refusal::{QuietWatchedContext, RefusalWatch};
use crate::topics::{PartitionOffsets, TopicError, TopicPartition};

/// How long one admin request may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long one metadata request of [`cluster_id`] waits before looking for a refusal.
const REFUSAL_CHECK: Duration = Duration::from_millis(500);
/// The shortest time [`cluster_id`] serves its client's queued events between two requests.
const DRAIN: Duration = Duration::from_millis(100);
/// The topic whose metadata request brings the cluster id (see [`cluster_id`]).
const CLUSTER_ID_TOPIC: &str = "__consumer_offsets";

/// A consumer of `group` on the admin settings `admin` (`bootstrap.servers` and the worker's
/// client security settings).
fn group_client(
    admin: &ConfigMap,
    group: &str,
) -> Result<BaseConsumer<DefaultConsumerContext>, TopicError> {
    let mut props = admin.clone();
    props.insert("group.id".to_owned(), group.to_owned());
    props.insert("enable.auto.commit".to_owned(), "false".to_owned());
    client_config::create(
        client_config::layered(&[&props])?,
        DefaultConsumerContext,
        "group admin client",
    )
}

fn failed(what: &str) -> impl Fn(rdkafka::error::KafkaError) -> TopicError + '_ {
    move |e| TopicError::Other(format!("Could not {what}: {e}"))
}

/// The cluster id of the Kafka cluster of `admin`, as Kafka Connect reads it at start-up,
/// waiting up to `timeout` for a broker to answer.
///
/// # Errors
/// [`TopicError::Refused`] as soon as the cluster refuses the client's credentials or TLS
/// handshake (as the Java admin client's `AuthenticationException`), else an error when Kafka
/// cannot be reached in time.
pub fn cluster_id(admin: &ConfigMap, timeout: Duration) -> Result<String, TopicError> {
    let config = client_config::layered(&[admin])?;
    let watch = RefusalWatch::for_config(&config);
    // A producer's poll hands librdkafka's errors, with their reasons, to the context (a
    // consumer's poll returns them without the reason); it sends nothing.
    let client: BaseProducer<QuietWatchedContext> = client_config::create(
        config,
        QuietWatchedContext(watch.clone()),
        "cluster id client",
    )?;
    let bootstrap = admin.get("bootstrap.servers").map_or("", String::as_str);
    // librdkafka's wait for the id (rd_kafka_clusterid) sends no request: it waits for
    // metadata the client fetches by itself, and its first connection is sometimes only made by
    // a periodic timer: 0.1-1.1 s of start-up before any task ran (bench/kafka-side-by-side.sh).
    // A metadata request for one topic connects at once and brings the id (Metadata v2+);
    // `__consumer_offsets` is never auto-created by a metadata request, and its absence is fine.
    // It is asked in short waits, so that a refusal ends the wait at once.
    let started = std::time::Instant::now();
    loop {
        let asked = std::time::Instant::now();
        let left = timeout.saturating_sub(started.elapsed());
        let wait = left.min(REFUSAL_CHECK);
        match client.client().fetch_metadata(Some(CLUSTER_ID_TOPIC), wait) {
            Ok(_) => break,
            Err(e) => {
                // librdkafka queues its errors and log lines for the client's poll (one event
                // per call without a wait): serve them all for the rest of this wait, at least
                // 100 ms (a refused TCP connection fails at once: no busy loop either).
                client.poll(wait.saturating_sub(asked.elapsed()).max(DRAIN));
                if let Some(refusal) = watch.refusal() {
                    return Err(TopicError::Refused(refusal));
                }
                if left <= wait {
                    return Err(TopicError::Other(format!(
                        "No cluster id from Kafka at {bootstrap}: {e}"
                    )));
                }
            }
        }
    }
    client
        .client()
        .fetch_cluster_id(timeout.saturating_sub(started.elapsed()).max(TIMEOUT))
        .ok_or_else(|| TopicError::Other(format!("No cluster id from Kafka at {bootstrap}")))
}

/// Whether `topic` exists, from the metadata of every topic (a metadata request naming the
/// topic could create it on a broker with `auto.create.topics.enable`).
///
/// # Errors
/// When Kafka cannot be reached.
pub fn topic_exists(admin: &ConfigMap, topic: &str) -> Result<bool, TopicError> {
    let client = group_client(admin, "connect-rs-topic-lookup")?;
    let metadata = client
        .fetch_metadata(None, TIMEOUT)
        .map_err(failed("read the topics"))?;
    Ok(metadata
        .topics()
        .iter()
        .any(|t| t.name() == topic && t.error().is_none()))
}

/// Every committed offset of `group`: its committed offsets in all partitions of all topics
/// (librdkafka has no `ListConsumerGroupOffsets` without partitions; a topic deleted since is
/// not listed).
///
/// # Errors
/// When Kafka cannot be reached.
pub fn group_offsets(admin: &ConfigMap, group: &str) -> Result<PartitionOffsets, TopicError> {
    let client = group_client(admin, group)?;
    let metadata = client
        .fetch_metadata(None, TIMEOUT)
        .map_err(failed("read the topics"))?;
    let mut tpl = TopicPartitionList::new();
    for topic in metadata.topics() {
        if topic.error().is_none() {
            for p in topic.partitions() {
                tpl.add_partition(topic.name(), p.id());
            }
        }
    }
    if tpl.count() == 0 {
        return Ok(PartitionOffsets::new());
    }
    let committed = client
        .committed_offsets(tpl, TIMEOUT)
        .map_err(failed("read the group's offsets"))?;
    Ok(committed
        .elements()
        .iter()
        .filter_map(|e| match e.offset() {
            Offset::Offset(o) => Some((
                TopicPartition {
                    topic: e.topic().to_owned(),
                    partition: e.partition(),
                },
                o,
            )),
            _ => None,
        })
        .collect())
}

/// Commits `Some` offsets, and the partition's earliest offset for `None` (which is where a
/// group without an offset starts, with `auto.offset.reset=earliest`).
///
/// # Errors
/// When Kafka cannot be reached or refuses the commit (e.g. the group has active members).
pub fn alter_group_offsets(
    admin: &ConfigMap,
    group: &str,
    changes: &[(TopicPartition, Option<i64>)],
) -> Result<(), TopicError> {
    let client = group_client(admin, group)?;
    let mut tpl = TopicPartitionList::new();
    for (tp, offset) in changes {
        let offset = match offset {
            Some(o) => *o,
            None => {
                client
                    .fetch_watermarks(&tp.topic, tp.partition, TIMEOUT)
                    .map_err(failed("read a partition's earliest offset"))?
                    .0
            }
        };
        tpl.add_partition_offset(&tp.topic, tp.partition, Offset::Offset(offset))
            .map_err(failed("build the offsets"))?;
    }
    client
        .commit(&tpl, CommitMode::Sync)
        .map_err(failed("commit the group's offsets"))
}

/// Deletes `group` (Kafka's `DeleteGroups`), as Kafka Connect resets a sink connector's
/// offsets; a group Kafka does not know is no error.
///
/// # Errors
/// When Kafka cannot be reached or refuses (e.g. the group still has active members).
pub fn delete_group(admin: &ConfigMap, group: &str) -> Result<(), TopicError> {
    let admin: AdminClient<DefaultClientContext> = client_config::create(
        client_config::layered(&[admin])?,
        DefaultClientContext,
        "group admin client",
    )?;
    let opts = AdminOptions::new().request_timeout(Some(TIMEOUT));
    let results = futures::executor::block_on(admin.delete_groups(&[group], &opts))
        .map_err(failed("delete the consumer group"))?;
    for result in results {
        match result {
            Ok(_) | Err((_, RDKafkaErrorCode::GroupIdNotFound)) => {}
            Err((name, code)) => {
                return Err(TopicError::Other(format!(
                    "Could not delete consumer group {name}: {code}"
                )))
            }
        }
    }
    Ok(())
}
