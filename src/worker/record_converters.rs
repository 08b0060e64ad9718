//! The key, value and header converters of one task, and the conversions between connect
//! records and topic records.

use connect_api::{
    ConnectError, ConnectRecord, Converter, HeaderConverter, Headers, SinkRecord, SourceRecord,
    TimestampType,
};

use crate::topics::{ConsumedRecord, ProducerRecord};

/// The converters of one task.
pub struct RecordConverters {
    /// Converts keys.
    pub key: Box<dyn Converter>,
    /// Converts values.
    pub value: Box<dyn Converter>,
    /// Converts header values.
    pub header: Box<dyn HeaderConverter>,
}

impl RecordConverters {
    /// Converts a source record for the topic (headers, then key, then value, as Kafka
    /// Connect does).
    ///
    /// # Errors
    /// The converter's error.
    pub fn to_topic(&self, record: &ConnectRecord) -> Result<ProducerRecord, ConnectError> {
        let topic = record.topic.as_str();
        let mut headers = Vec::with_capacity(record.headers.0.len());
        for h in record.headers.iter() {
            let bytes =
                self.header
                    .from_connect_header(topic, &h.key, h.schema.as_ref(), &h.value)?;
            headers.push((h.key.clone(), bytes));
        }
        let key = self.key.from_connect(
            topic,
            &record.headers,
            record.key_schema.as_ref(),
            &record.key,
        )?;
        let value = self.value.from_connect(
            topic,
            &record.headers,
            record.value_schema.as_ref(),
            &record.value,
        )?;
        Ok(ProducerRecord {
            topic: record.topic.clone(),
            partition: record.kafka_partition,
            key,
            value,
            timestamp: record.timestamp,
            headers,
        })
    }

    /// Converts a consumed topic record for a sink task (key, then value, then headers).
    ///
    /// # Errors
    /// The converter's error.
    pub fn from_topic(&self, record: &ConsumedRecord) -> Result<SinkRecord, ConnectError> {
        let topic = record.topic.as_str();
        let empty = Headers::new();
        let key = self.key.to_connect(topic, &empty, record.key.as_deref())?;
        let value = self
            .value
            .to_connect(topic, &empty, record.value.as_deref())?;
        let mut headers = Headers::new();
        for (k, v) in &record.headers {
            let sv = self.header.to_connect_header(topic, k, v.as_deref())?;
            headers.add(k.clone(), sv.schema, sv.value);
        }
        Ok(SinkRecord {
            record: ConnectRecord {
                topic: record.topic.clone(),
                kafka_partition: Some(record.partition),
                key_schema: key.schema,
                key: key.value,
                value_schema: value.schema,
                value: value.value,
                timestamp: Some(record.timestamp),
                headers,
            },
            kafka_offset: record.offset,
            timestamp_type: TimestampType::CreateTime,
        })
    }
}

/// Splits a source record into its offset bookkeeping and its connect record.
pub fn split(record: SourceRecord) -> (crate::storage::OffsetEntry, ConnectRecord) {
    (
        (record.source_partition, record.source_offset),
        record.record,
    )
}
