//! The key, value and header converters of one task, and the conversions between connect
//! records and topic records.

use connect_api::{
    ConnectError, ConnectRecord, Converter, HeaderConverter, Headers, SinkRecord, SourceRecord,
    TimestampType,
};

use crate::topics::{ConsumedRecord, ProducerRecord};

/// Converted headers, key and value (`None`: the value is moved as it is).
type Converted = (
    Vec<(String, Option<Vec<u8>>)>,
    Option<Vec<u8>>,
    Option<Option<Vec<u8>>>,
);

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
    /// Connect does); a value whose serialized form is its own bytes
    /// ([`Converter::serializes_as_is`]) is moved, not copied. At the first converter error the
    /// record is given back unchanged, for the caller to convert again under its error handler.
    ///
    /// # Errors
    /// The record itself (boxed: failures are rare), when a converter failed.
    pub fn into_topic(
        &self,
        mut record: ConnectRecord,
    ) -> Result<ProducerRecord, Box<ConnectRecord>> {
        let Ok((headers, key, value)) = self.convert(&record) else {
            return Err(Box::new(record));
        };
        let value = match value {
            Some(value) => value,
            None => std::mem::take(&mut record.value).into_raw_bytes(),
        };
        Ok(ProducerRecord {
            topic: record.topic,
            partition: record.kafka_partition,
            key,
            value,
            timestamp: record.timestamp,
            headers,
        })
    }

    /// The converted headers, key and value of `record`; the value is `None` when it is to be
    /// moved as it is.
    fn convert(&self, record: &ConnectRecord) -> Result<Converted, ConnectError> {
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
        let schema = record.value_schema.as_ref();
        let value = if self.value.serializes_as_is(schema, &record.value) {
            None
        } else {
            Some(
                self.value
                    .from_connect(topic, &record.headers, schema, &record.value)?,
            )
        };
        Ok((headers, key, value))
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
pub fn split(record: SourceRecord) -> (super::record_offset::RecordOffset, ConnectRecord) {
    (
        (record.source_partition, record.source_offset),
        record.record,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::converters::number::IntegerConverter;
    use crate::converters::simple_header::SimpleHeaderConverter;
    use crate::converters::string::StringConverter;
    use connect_api::Value;

    fn converters(value: Box<dyn Converter>) -> RecordConverters {
        RecordConverters {
            key: Box::new(StringConverter::new()),
            value,
            header: Box::new(SimpleHeaderConverter),
        }
    }

    fn record(value: Value) -> ConnectRecord {
        let mut headers = Headers::new();
        headers.add("h", None, Value::Int32(7));
        ConnectRecord {
            topic: "t".into(),
            kafka_partition: Some(1),
            key: Value::String("k".into()),
            value,
            timestamp: Some(42),
            headers,
            ..ConnectRecord::default()
        }
    }

    #[test]
    fn a_record_converts_headers_key_and_value() {
        let c = converters(Box::new(StringConverter::new()));
        let text = String::from("v");
        let at = text.as_ptr();
        let out = c.into_topic(record(Value::String(text))).unwrap();
        assert_eq!(out.topic, "t");
        assert_eq!(out.partition, Some(1));
        assert_eq!(out.key.as_deref(), Some(&b"k"[..]));
        assert_eq!(out.value.as_deref(), Some(&b"v"[..]));
        assert_eq!(
            out.value.as_ref().map(Vec::as_ptr),
            Some(at),
            "moved, not copied"
        );
        assert_eq!(out.timestamp, Some(42));
        assert_eq!(out.headers, vec![("h".to_owned(), Some(b"7".to_vec()))]);
        let out = c.into_topic(record(Value::Int64(5))).unwrap();
        assert_eq!(
            out.value.as_deref(),
            Some(&b"5"[..]),
            "through the converter"
        );
    }

    #[test]
    fn a_consumed_record_converts_for_put() {
        let c = converters(Box::new(StringConverter::new()));
        let consumed = ConsumedRecord {
            topic: "t".into(),
            partition: 2,
            offset: 41,
            timestamp: 7,
            key: Some(b"k".to_vec()),
            value: Some(b"v".to_vec()),
            headers: vec![("h".into(), Some(b"x".to_vec()))],
        };
        let rec = c.from_topic(&consumed).unwrap();
        assert_eq!(rec.kafka_offset, 41);
        assert_eq!(rec.timestamp_type, TimestampType::CreateTime);
        assert_eq!(rec.record.topic, "t");
        assert_eq!(rec.record.kafka_partition, Some(2));
        assert_eq!(rec.record.timestamp, Some(7));
        assert_eq!(rec.record.key, Value::String("k".into()));
        assert_eq!(rec.record.value, Value::String("v".into()));
        let h = rec.record.headers.iter().next().unwrap();
        assert_eq!(
            (h.key.as_str(), &h.value),
            ("h", &Value::String("x".into()))
        );
        let c = converters(Box::new(IntegerConverter::default()));
        assert!(c.from_topic(&consumed).is_err(), "b\"v\" is no INT32");
    }

    #[test]
    fn a_failed_conversion_gives_the_record_back_unchanged() {
        let c = converters(Box::new(IntegerConverter::default()));
        let input = record(Value::String("forty-two".into()));
        let back = c.into_topic(input.clone()).unwrap_err();
        assert_eq!(*back, input);
    }
}
