//! KIP-875 offsets of a connector, in Kafka Connect's JSON shapes: source partitions and offsets
//! as stored, sink offsets as `{"kafka_topic", "kafka_partition"}` → `{"kafka_offset"}`.

use std::sync::Arc;

use connect_api::{OffsetMap, SourceOffsetChange};
use serde_json::{json, Value};

use super::HerderError;
use crate::storage::OffsetEntry;
use crate::topics::{PartitionOffsets, TopicPartition};

/// `{"offsets": [...]}` of a source connector's stored offsets.
pub fn source_offsets(stored: Vec<(OffsetMap, OffsetMap)>) -> Value {
    let list: Vec<Value> = stored
        .into_iter()
        .map(|(p, o)| json!({"partition": p, "offset": o}))
        .collect();
    json!({ "offsets": list })
}

/// `{"offsets": [...]}` of a sink connector's group offsets.
pub fn sink_offsets(offsets: &PartitionOffsets) -> Value {
    let list: Vec<Value> = offsets
        .iter()
        .map(|(tp, o)| {
            json!({
                "partition": {"kafka_topic": tp.topic, "kafka_partition": tp.partition},
                "offset": {"kafka_offset": o}
            })
        })
        .collect();
    json!({ "offsets": list })
}

fn bad(message: impl Into<String>) -> HerderError {
    HerderError::BadRequest(message.into())
}

/// A JSON object of a request.
type JsonObject = serde_json::Map<String, Value>;

const NO_PARTITION: &str = "Each entry must have a \"partition\" object";

/// An entry's partition (`None`: null or absent) and offset (`None`: null or absent).
fn split(entry: &Value) -> Result<(Option<&JsonObject>, Option<&JsonObject>), HerderError> {
    let partition = match entry.get("partition") {
        None | Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => return Err(bad(NO_PARTITION)),
    };
    let offset = match entry.get("offset") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(o),
        Some(_) => return Err(bad("An \"offset\" must be an object or null")),
    };
    Ok((partition, offset))
}

/// Source offsets from a request, as the connector's `alter_offsets` checks them (a null
/// partition included: the connector may name it; see [`source_entries`]).
///
/// # Errors
/// BadRequest naming what is wrong.
pub fn parse_source(entries: &[Value]) -> Result<Vec<SourceOffsetChange>, HerderError> {
    entries
        .iter()
        .map(|entry| {
            let (partition, offset) = split(entry)?;
            Ok((partition.cloned(), offset.cloned()))
        })
        .collect()
}

/// The entries to store for `changes` the connector accepted.
///
/// # Errors
/// BadRequest when a partition is null: offsets are stored by partition.
pub fn source_entries(changes: Vec<SourceOffsetChange>) -> Result<Vec<OffsetEntry>, HerderError> {
    changes
        .into_iter()
        .map(|(partition, offset)| {
            let partition = partition.ok_or_else(|| bad(NO_PARTITION))?;
            Ok((Arc::new(partition), offset))
        })
        .collect()
}

/// The answer to an offsets alteration (`altered`) or reset: Kafka Connect's, which says
/// whether the connector altered what it keeps outside the runtime (`handled`).
pub fn altered_message(altered: bool, handled: bool) -> String {
    let what = if altered { "altered" } else { "reset" };
    if handled {
        format!("The offsets for this connector have been {what} successfully")
    } else {
        format!(
            "The Connect framework-managed offsets for this connector have been {what} \
             successfully. However, if this connector manages offsets externally, they will \
             need to be manually {what} in the system that the connector uses."
        )
    }
}

fn number(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Sink offsets from a request: partition `kafka_topic` + `kafka_partition`, offset
/// `kafka_offset` (numbers or numeric strings) or null.
///
/// # Errors
/// BadRequest naming what is wrong.
pub fn parse_sink(entries: &[Value]) -> Result<Vec<(TopicPartition, Option<i64>)>, HerderError> {
    entries
        .iter()
        .map(|entry| {
            let (partition, offset) = split(entry)?;
            let partition = partition.ok_or_else(|| bad(NO_PARTITION))?;
            let topic = partition
                .get("kafka_topic")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("Partition must contain the key \"kafka_topic\""))?;
            let p = number(partition.get("kafka_partition"))
                .and_then(|p| i32::try_from(p).ok())
                .ok_or_else(|| bad("Partition must contain the key \"kafka_partition\" with an integer value"))?;
            let o = match offset {
                None => None,
                Some(o) => Some(
                    number(o.get("kafka_offset"))
                        .filter(|o| *o >= 0)
                        .ok_or_else(|| bad("Offset must contain the key \"kafka_offset\" with a non-negative integer value"))?,
                ),
            };
            Ok((
                TopicPartition {
                    topic: topic.to_owned(),
                    partition: p,
                },
                o,
            ))
        })
        .collect()
}
