//! Reading partitions from their leaders: one Fetch per leader broker, sent concurrently, and
//! ListOffsets for where a partition without a committed offset starts.

use std::collections::BTreeMap;
use std::time::Duration;

use connect_membership::connection::Connection;
use connect_membership::MembershipError;
use kafka_protocol::messages::fetch_request::{FetchPartition, FetchRequest, FetchTopic};
use kafka_protocol::messages::list_offsets_request::{
    ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic,
};
use kafka_protocol::messages::{BrokerId, TopicName};
use kafka_protocol::protocol::StrBytes;

use crate::batch::{self, AbortedTransaction, FetchedRecord};
use crate::brokers::{Brokers, Metadata, Partition};
use crate::config::ConsumerConfig;

/// What a fetch found for one partition.
#[derive(Debug, Clone)]
pub enum Fetched {
    /// Records (maybe none) and where the partition ends.
    Records {
        /// The records from the fetched offset on.
        records: Vec<FetchedRecord>,
        /// The offset after the last whole batch (`None`: nothing whole came).
        next_offset: Option<i64>,
        /// The high watermark.
        high_watermark: i64,
        /// The last stable offset (`read_committed` reads up to it).
        last_stable_offset: i64,
    },
    /// The fetched offset is not in the log (deleted by retention, or beyond its end).
    OutOfRange,
    /// Leadership moved or the partition is not known yet: refresh the metadata, then retry.
    Stale(String),
    /// Any other failure.
    Failed(String),
}

/// Error codes after which the metadata is refreshed and the fetch retried.
const STALE_CODES: &[i16] = &[3, 5, 6, 9, 56, 74, 75];
/// OFFSET_OUT_OF_RANGE
const OFFSET_OUT_OF_RANGE: i16 = 1;

/// Fetches `wanted` (partition, offset) from their leaders, waiting up to `max_wait` for data.
/// The answer says, per partition, what came (from the offset it was asked for).
pub async fn fetch(
    brokers: &mut Brokers,
    metadata: &Metadata,
    wanted: &[(Partition, i64)],
    config: &ConsumerConfig,
    max_wait: Duration,
) -> Vec<(Partition, i64, Fetched)> {
    let mut out = Vec::new();
    let mut by_leader: BTreeMap<i32, Vec<(Partition, i64)>> = BTreeMap::new();
    for (tp, offset) in wanted {
        match metadata.leader(tp) {
            Some(l) => by_leader.entry(l).or_default().push((tp.clone(), *offset)),
            None => out.push((
                tp.clone(),
                *offset,
                Fetched::Stale(format!("no leader known for {}-{}", tp.0, tp.1)),
            )),
        }
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (leader, parts) in by_leader {
        let conn = match brokers.connection(leader).await {
            Ok(_) => brokers
                .take_connection(leader)
                .ok_or_else(|| Fetched::Stale(format!("no connection to broker {leader}"))),
            Err(e) => Err(failure(&e)),
        };
        match conn {
            Ok(conn) => {
                let config = config.clone();
                tasks.spawn(async move {
                    let mut conn = conn;
                    let result = fetch_from(&mut conn, &parts, &config, max_wait).await;
                    (leader, conn, parts, result)
                });
            }
            Err(e) => out.extend(parts.into_iter().map(|(tp, o)| (tp, o, e.clone()))),
        }
    }
    while let Some(joined) = tasks.join_next().await {
        let Ok((leader, conn, parts, result)) = joined else {
            continue;
        };
        match result {
            Ok(fetched) => {
                brokers.put_connection(leader, conn);
                out.extend(fetched);
            }
            Err(e) => out.extend(parts.into_iter().map(|(tp, o)| (tp, o, failure(&e)))),
        }
    }
    out
}

/// A failed request: a refused login or TLS handshake is for good, anything else is retried
/// after a metadata refresh.
fn failure(e: &MembershipError) -> Fetched {
    match e {
        MembershipError::Auth(reason) => {
            Fetched::Failed(format!("Kafka refused the connection: {reason}"))
        }
        e => Fetched::Stale(e.to_string()),
    }
}

async fn fetch_from(
    conn: &mut Connection,
    parts: &[(Partition, i64)],
    config: &ConsumerConfig,
    max_wait: Duration,
) -> Result<Vec<(Partition, i64, Fetched)>, MembershipError> {
    // v13 and later name topics by id only.
    let version = conn.version::<FetchRequest>("Fetch", 12)?;
    let mut topics: BTreeMap<&str, Vec<FetchPartition>> = BTreeMap::new();
    for ((topic, partition), offset) in parts {
        topics.entry(topic).or_default().push(
            FetchPartition::default()
                .with_partition(*partition)
                .with_current_leader_epoch(-1)
                .with_fetch_offset(*offset)
                .with_last_fetched_epoch(-1)
                .with_log_start_offset(-1)
                .with_partition_max_bytes(config.max_partition_fetch_bytes),
        );
    }
    let request = FetchRequest::default()
        .with_replica_id(BrokerId(-1))
        .with_max_wait_ms(i32::try_from(max_wait.as_millis()).unwrap_or(i32::MAX))
        .with_min_bytes(config.fetch_min_bytes)
        .with_max_bytes(config.fetch_max_bytes)
        .with_isolation_level(i8::from(config.read_committed))
        .with_session_id(0)
        .with_session_epoch(-1)
        .with_topics(
            topics
                .into_iter()
                .map(|(t, p)| {
                    FetchTopic::default()
                        .with_topic(TopicName(StrBytes::from_string(t.to_owned())))
                        .with_partitions(p)
                })
                .collect(),
        );
    let response = conn
        .send(&request, version, max_wait + config.request_timeout)
        .await?;
    if response.error_code != 0 {
        return Err(MembershipError::kafka("Fetch", response.error_code));
    }
    let asked: BTreeMap<&Partition, i64> = parts.iter().map(|(tp, o)| (tp, *o)).collect();
    let mut out = Vec::new();
    for t in response.responses {
        let topic = t.topic.0.to_string();
        for p in t.partitions {
            let tp = (topic.clone(), p.partition_index);
            let Some(&offset) = asked.get(&tp) else {
                continue;
            };
            let fetched = match p.error_code {
                0 => {
                    let aborted: Option<Vec<AbortedTransaction>> =
                        config.read_committed.then(|| {
                            p.aborted_transactions
                                .unwrap_or_default()
                                .iter()
                                .map(|a| AbortedTransaction {
                                    producer_id: a.producer_id.0,
                                    first_offset: a.first_offset,
                                })
                                .collect()
                        });
                    match batch::decode(p.records.unwrap_or_default(), offset, aborted.as_deref()) {
                        Ok(d) => Fetched::Records {
                            records: d.records,
                            next_offset: d.next_offset,
                            high_watermark: p.high_watermark,
                            last_stable_offset: p.last_stable_offset,
                        },
                        Err(e) => Fetched::Failed(format!("{} in partition {}-{}", e, tp.0, tp.1)),
                    }
                }
                OFFSET_OUT_OF_RANGE => Fetched::OutOfRange,
                code if STALE_CODES.contains(&code) => {
                    Fetched::Stale(MembershipError::kafka("Fetch", code).to_string())
                }
                code => Fetched::Failed(MembershipError::kafka("Fetch", code).to_string()),
            };
            out.push((tp, offset, fetched));
        }
    }
    Ok(out)
}

/// The offset each of `partitions` has at `timestamp` (-2: its first, -1: its end), asked of
/// their leaders.
///
/// # Errors
/// When a leader is unknown or does not answer.
pub async fn list_offsets(
    brokers: &mut Brokers,
    metadata: &Metadata,
    partitions: &[Partition],
    timestamp: i64,
    config: &ConsumerConfig,
) -> Result<BTreeMap<Partition, i64>, MembershipError> {
    let mut by_leader: BTreeMap<i32, BTreeMap<String, Vec<i32>>> = BTreeMap::new();
    for tp in partitions {
        let leader = metadata.leader(tp).ok_or_else(|| {
            MembershipError::NoBroker(format!("no leader known for {}-{}", tp.0, tp.1))
        })?;
        by_leader
            .entry(leader)
            .or_default()
            .entry(tp.0.clone())
            .or_default()
            .push(tp.1);
    }
    let mut out = BTreeMap::new();
    for (leader, topics) in by_leader {
        let request = ListOffsetsRequest::default()
            .with_replica_id(BrokerId(-1))
            .with_isolation_level(i8::from(config.read_committed))
            .with_topics(
                topics
                    .into_iter()
                    .map(|(t, ps)| {
                        ListOffsetsTopic::default()
                            .with_name(TopicName(StrBytes::from_string(t)))
                            .with_partitions(
                                ps.into_iter()
                                    .map(|p| {
                                        ListOffsetsPartition::default()
                                            .with_partition_index(p)
                                            .with_current_leader_epoch(-1)
                                            .with_timestamp(timestamp)
                                    })
                                    .collect(),
                            )
                    })
                    .collect(),
            );
        let conn = brokers.connection(leader).await?;
        let version = conn.version::<ListOffsetsRequest>("ListOffsets", 7)?;
        let response = match conn.send(&request, version, config.request_timeout).await {
            Ok(r) => r,
            Err(e) => {
                brokers.drop_connection(leader);
                return Err(e);
            }
        };
        for t in response.topics {
            for p in t.partitions {
                if p.error_code != 0 {
                    return Err(MembershipError::kafka("ListOffsets", p.error_code));
                }
                out.insert((t.name.0.to_string(), p.partition_index), p.offset);
            }
        }
    }
    Ok(out)
}
