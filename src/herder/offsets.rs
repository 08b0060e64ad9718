//! KIP-875 offsets of a connector, in Kafka Connect's JSON shapes: source partitions and offsets
//! as stored, sink offsets as `{"kafka_topic", "kafka_partition"}` → `{"kafka_offset"}`.

use std::sync::Arc;

use connect_api::OffsetMap;
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

fn split(entry: &Value) -> Result<(&JsonObject, Option<&JsonObject>), HerderError> {
    let partition = entry
        .get("partition")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("Each entry must have a \"partition\" object"))?;
    let offset = match entry.get("offset") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(o),
        Some(_) => return Err(bad("An \"offset\" must be an object or null")),
    };
    Ok((partition, offset))
}

/// The class whose offsets [`parse_source`] checks as its `alterOffsets` does.
pub const FILE_SOURCE_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";

/// Source offsets from a request; with `file_source`, checked as FileStreamSource's
/// `alterOffsets` does (other connectors take any partition and offset objects, as Kafka
/// Connect's default `alterOffsets`).
///
/// # Errors
/// BadRequest naming what is wrong.
pub fn parse_source(entries: &[Value], file_source: bool) -> Result<Vec<OffsetEntry>, HerderError> {
    entries
        .iter()
        .map(|entry| {
            let (partition, offset) = split(entry)?;
            if let Some(o) = offset.filter(|_| file_source) {
                if o.get("position")
                    .and_then(Value::as_i64)
                    .is_none_or(|p| p < 0)
                {
                    return Err(bad(format!(
                        "Offset {} must contain \"position\" as a non-negative integer",
                        Value::Object(o.clone())
                    )));
                }
            }
            Ok((Arc::new(partition.clone()), offset.cloned()))
        })
        .collect()
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
