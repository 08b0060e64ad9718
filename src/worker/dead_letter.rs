//! The dead letter queue reporter (Kafka Connect's `DeadLetterQueueReporter`): a record that
//! failed is written, as it came in, to `errors.deadletterqueue.topic.name` (created with one
//! partition and the configured replication factor when absent), with the `__connect.errors.*`
//! context headers when `errors.deadletterqueue.context.headers.enable` is true.
//!
//! Sinks write the consumed record's original key, value, headers and timestamp. Sources
//! (connect-rs's extension) write the source record as it left the task, before transforms,
//! converted with the task's converters, or for a part that a converter refused, as the text
//! of Kafka's `Values.convertToString`; the context headers then carry the record's topic (and
//! partition, when the task set one) and its source partition and offset as JSON
//! (`__connect.errors.source.partition`, `__connect.errors.source.offset`). Context headers
//! show the placeholder where a value a config provider resolved would appear.

use std::sync::Arc;

use connect_api::{ConfigMap, ConnectRecord, SchemaRef, Value};

use super::tolerance::{exception_class, stacktrace, DlqSettings, Failure, Origin};
use crate::topics::topic_creation::TopicCreation;
use crate::topics::{
    ClientSpec, Delivery, ProducerRecord, TopicBackend, TopicError, TopicProducer,
};

/// Prefix of the context headers.
pub const HEADER_PREFIX: &str = "__connect.errors.";
/// Header: the original topic.
pub const HEADER_ORIG_TOPIC: &str = "__connect.errors.topic";
/// Header: the original partition.
pub const HEADER_ORIG_PARTITION: &str = "__connect.errors.partition";
/// Header: the original offset.
pub const HEADER_ORIG_OFFSET: &str = "__connect.errors.offset";
/// Header: the connector name.
pub const HEADER_CONNECTOR_NAME: &str = "__connect.errors.connector.name";
/// Header: the task number.
pub const HEADER_TASK_ID: &str = "__connect.errors.task.id";
/// Header: the stage.
pub const HEADER_STAGE: &str = "__connect.errors.stage";
/// Header: the class executing the stage.
pub const HEADER_EXECUTING_CLASS: &str = "__connect.errors.class.name";
/// Header: the exception class.
pub const HEADER_EXCEPTION: &str = "__connect.errors.exception.class.name";
/// Header: the exception message.
pub const HEADER_EXCEPTION_MESSAGE: &str = "__connect.errors.exception.message";
/// Header: the stack trace.
pub const HEADER_EXCEPTION_STACK_TRACE: &str = "__connect.errors.exception.stacktrace";
/// Header (sources, connect-rs): the source partition as JSON.
pub const HEADER_SOURCE_PARTITION: &str = "__connect.errors.source.partition";
/// Header (sources, connect-rs): the source offset as JSON.
pub const HEADER_SOURCE_OFFSET: &str = "__connect.errors.source.offset";

/// One task's dead letter queue.
pub struct DeadLetterQueue {
    settings: DlqSettings,
    connector: String,
    task: u32,
    producer: Arc<dyn TopicProducer>,
}

impl DeadLetterQueue {
    /// The dead letter queue of task `task` of `connector`, writing through a producer of
    /// `topics` with the connector's producer and admin overrides; the topic is created (1 partition,
    /// the configured replication factor) on first use when absent.
    ///
    /// # Errors
    /// When the producer cannot be created.
    pub fn open(
        settings: DlqSettings,
        topics: &dyn TopicBackend,
        connector: &str,
        task: u32,
        producer_overrides: &ConfigMap,
        admin_overrides: &ConfigMap,
    ) -> Result<Self, TopicError> {
        let mut rules = ConfigMap::new();
        rules.insert("topic.creation.default.partitions".into(), "1".into());
        rules.insert(
            "topic.creation.default.replication.factor".into(),
            settings.replication_factor.to_string(),
        );
        let creation = TopicCreation::from_connector(&rules)
            .map_err(TopicError::Other)?
            .map(Arc::new);
        let producer = topics.producer(&ClientSpec {
            connector: connector.to_owned(),
            task,
            overrides: producer_overrides.clone(),
            admin_overrides: admin_overrides.clone(),
            topic_creation: creation,
        })?;
        Ok(Self::with_producer(settings, connector, task, producer))
    }

    /// A dead letter queue writing through `producer`.
    pub fn with_producer(
        settings: DlqSettings,
        connector: &str,
        task: u32,
        producer: Arc<dyn TopicProducer>,
    ) -> Self {
        Self {
            settings,
            connector: connector.to_owned(),
            task,
            producer,
        }
    }

    /// The topic.
    pub fn topic(&self) -> &str {
        &self.settings.topic
    }

    /// The record to write for `failure` of `origin`.
    pub fn record(&self, failure: &Failure, origin: &Origin<'_>) -> ProducerRecord {
        // Context headers never show a value a config provider resolved (a field name, a
        // topic, a file path from a placeholder): the placeholder stands in its place.
        let text = |s: &str| {
            Some(
                crate::config::providers::secrets::redact(s)
                    .into_owned()
                    .into_bytes(),
            )
        };
        let mut out = match origin {
            Origin::Consumed(r) => ProducerRecord {
                topic: self.settings.topic.clone(),
                partition: None,
                key: r.key.clone(),
                value: r.value.clone(),
                timestamp: Some(r.timestamp),
                headers: r.headers.clone(),
            },
            Origin::Source {
                record, converters, ..
            } => source_original(&self.settings.topic, record, converters),
        };
        if !self.settings.context_headers {
            return out;
        }
        let h = &mut out.headers;
        match origin {
            Origin::Consumed(r) => {
                h.push((HEADER_ORIG_TOPIC.into(), text(&r.topic)));
                h.push((HEADER_ORIG_PARTITION.into(), text(&r.partition.to_string())));
                h.push((HEADER_ORIG_OFFSET.into(), text(&r.offset.to_string())));
            }
            Origin::Source { record, offset, .. } => {
                h.push((HEADER_ORIG_TOPIC.into(), text(&record.topic)));
                if let Some(p) = record.kafka_partition {
                    h.push((HEADER_ORIG_PARTITION.into(), text(&p.to_string())));
                }
                let partition = serde_json::to_string(&*offset.0).unwrap_or_default();
                h.push((HEADER_SOURCE_PARTITION.into(), text(&partition)));
                if let Some(o) = &offset.1 {
                    let o = serde_json::to_string(o).unwrap_or_default();
                    h.push((HEADER_SOURCE_OFFSET.into(), text(&o)));
                }
            }
        }
        h.push((HEADER_CONNECTOR_NAME.into(), text(&self.connector)));
        h.push((HEADER_TASK_ID.into(), text(&self.task.to_string())));
        h.push((HEADER_STAGE.into(), text(failure.stage.name())));
        h.push((HEADER_EXECUTING_CLASS.into(), text(&failure.class_name)));
        h.push((
            HEADER_EXCEPTION.into(),
            text(exception_class(&failure.error)),
        ));
        h.push((
            HEADER_EXCEPTION_MESSAGE.into(),
            text(&failure.error.to_string()),
        ));
        h.push((
            HEADER_EXCEPTION_STACK_TRACE.into(),
            text(&stacktrace(
                &failure.error,
                failure.stage,
                &failure.class_name,
            )),
        ));
        out
    }

    /// Sends `record`; the returned future resolves when it is durable.
    ///
    /// # Errors
    /// When the producer refuses it.
    pub async fn send(&self, record: ProducerRecord) -> Result<Delivery, TopicError> {
        self.producer.send_batch(vec![record]).await
    }
}

/// A part converted with its converter, or as text when the converter refuses it.
fn best_effort(
    converted: Result<Option<Vec<u8>>, connect_api::ConnectError>,
    schema: Option<&SchemaRef>,
    value: &Value,
) -> Option<Vec<u8>> {
    converted.unwrap_or_else(|_| {
        connect_api::values::convert_to_string(schema, value).map(String::into_bytes)
    })
}

/// A source record as it left the task, converted as well as possible, addressed to `dlq`.
fn source_original(
    dlq: &str,
    record: &ConnectRecord,
    converters: &super::record_converters::RecordConverters,
) -> ProducerRecord {
    let topic = record.topic.as_str();
    let headers = record
        .headers
        .iter()
        .map(|h| {
            let bytes = best_effort(
                converters
                    .header
                    .from_connect_header(topic, &h.key, h.schema.as_ref(), &h.value),
                h.schema.as_ref(),
                &h.value,
            );
            (h.key.clone(), bytes)
        })
        .collect();
    let key = best_effort(
        converters.key.from_connect(
            topic,
            &record.headers,
            record.key_schema.as_ref(),
            &record.key,
        ),
        record.key_schema.as_ref(),
        &record.key,
    );
    let value = best_effort(
        converters.value.from_connect(
            topic,
            &record.headers,
            record.value_schema.as_ref(),
            &record.value,
        ),
        record.value_schema.as_ref(),
        &record.value,
    );
    ProducerRecord {
        topic: dlq.to_owned(),
        partition: None,
        key,
        value,
        timestamp: record.timestamp,
        headers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::PluginRegistry;
    use crate::worker::record_converters::RecordConverters;
    use crate::worker::tolerance::Stage;
    use connect_api::{ConnectError, Schema, SchemaType};
    use futures::future::BoxFuture;

    struct NoProducer;
    impl TopicProducer for NoProducer {
        fn send_batch(
            &self,
            _: Vec<ProducerRecord>,
        ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
            Box::pin(async { Err(TopicError::Other("unused".into())) })
        }
    }

    fn header<'a>(r: &'a ProducerRecord, key: &str) -> Option<&'a str> {
        r.headers
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
            .and_then(|v| std::str::from_utf8(v).ok())
    }

    #[test]
    fn a_source_record_is_written_as_well_as_its_converters_allow_with_its_position() {
        let plugins = PluginRegistry::builtin();
        let converters = RecordConverters {
            key: plugins.converter("StringConverter").unwrap(),
            // Refuses a STRING value: the value is written as text instead.
            value: plugins.converter("ByteArrayConverter").unwrap(),
            header: plugins.header_converter("SimpleHeaderConverter").unwrap(),
        };
        let record = ConnectRecord {
            topic: "lines".into(),
            key: Value::String("k".into()),
            key_schema: Some(Schema::required(SchemaType::String)),
            value: Value::String("x17".into()),
            value_schema: Some(Schema::required(SchemaType::String)),
            timestamp: Some(42),
            ..ConnectRecord::default()
        };
        let mut partition = connect_api::OffsetMap::new();
        partition.insert("filename".into(), serde_json::json!("in.txt"));
        // The form FileStreamSource gives its records: written as the map it stands for.
        let offset = connect_api::SourceOffset::Position {
            field: "position",
            value: 12,
        };
        let entry = (Arc::new(partition), Some(offset));
        let dlq = DeadLetterQueue::with_producer(
            DlqSettings {
                topic: "dlq".into(),
                replication_factor: 1,
                context_headers: true,
            },
            "src",
            3,
            Arc::new(NoProducer),
        );
        let failure = Failure {
            stage: Stage::Transformation,
            class_name: "org.apache.kafka.connect.transforms.Cast$Value".into(),
            error: ConnectError::data("not a number"),
        };
        let out = dlq.record(
            &failure,
            &Origin::Source {
                record: &record,
                offset: &entry,
                converters: &converters,
            },
        );
        assert_eq!(out.topic, "dlq");
        assert_eq!(out.key.as_deref(), Some(&b"k"[..]));
        assert_eq!(out.value.as_deref(), Some(&b"x17"[..]));
        assert_eq!(out.timestamp, Some(42));
        assert_eq!(header(&out, HEADER_ORIG_TOPIC), Some("lines"));
        assert_eq!(header(&out, HEADER_ORIG_PARTITION), None);
        assert_eq!(
            header(&out, HEADER_SOURCE_PARTITION),
            Some(r#"{"filename":"in.txt"}"#)
        );
        assert_eq!(
            header(&out, HEADER_SOURCE_OFFSET),
            Some(r#"{"position":12}"#)
        );
        assert_eq!(header(&out, HEADER_STAGE), Some("TRANSFORMATION"));
        assert_eq!(header(&out, HEADER_TASK_ID), Some("3"));
        assert_eq!(
            header(&out, HEADER_EXCEPTION),
            Some("org.apache.kafka.connect.errors.DataException")
        );
        assert_eq!(header(&out, HEADER_EXCEPTION_MESSAGE), Some("not a number"));
    }
}
