//! Records: what source tasks produce and sink tasks receive.

use std::sync::Arc;

use crate::headers::Headers;
use crate::schema::SchemaRef;
use crate::source_offset::SourceOffset;
use crate::value::Value;

/// A source partition or source offset: a JSON object of primitive values.
pub type OffsetMap = serde_json::Map<String, serde_json::Value>;

/// The part of a record that converters and transforms see.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConnectRecord {
    /// Topic name.
    pub topic: String,
    /// Topic partition, if chosen by the connector.
    pub kafka_partition: Option<i32>,
    /// Key schema.
    pub key_schema: Option<SchemaRef>,
    /// Key.
    pub key: Value,
    /// Value schema.
    pub value_schema: Option<SchemaRef>,
    /// Value.
    pub value: Value,
    /// Timestamp in milliseconds since the epoch.
    pub timestamp: Option<i64>,
    /// Headers.
    pub headers: Headers,
}

/// A record produced by a source task, with the source system's partition and offset.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceRecord {
    /// Logical partition of the source system, e.g. `{"filename": "/data/in.txt"}`. Shared
    /// between the records of one partition.
    pub source_partition: Arc<OffsetMap>,
    /// Position in that partition after this record, e.g. `{"position": 1234}`; `None` when the
    /// source does not track offsets.
    pub source_offset: Option<SourceOffset>,
    /// The record itself.
    pub record: ConnectRecord,
}

/// How a sink record's timestamp was set (Kafka's `TimestampType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimestampType {
    /// No timestamp.
    #[default]
    NoTimestampType,
    /// Set by the producer.
    CreateTime,
    /// Set by the broker.
    LogAppendTime,
}

/// A record consumed from a topic and handed to a sink task.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkRecord {
    /// The record itself (topic and partition as consumed, unless a transform changed them).
    pub record: ConnectRecord,
    /// Offset in the topic partition.
    pub kafka_offset: i64,
    /// Timestamp type.
    pub timestamp_type: TimestampType,
}
