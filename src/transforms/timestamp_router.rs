//! `org.apache.kafka.connect.transforms.TimestampRouter`: the topic becomes `topic.format` with
//! `${topic}` and `${timestamp}` (the record timestamp as `timestamp.format`, in UTC) replaced.

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, Transformation, TransformationPlugin,
};

use crate::transforms::config::parse;
use crate::transforms::date_format::{PatternError, SimpleDateFormat, SUPPORTED_LETTERS};

/// The TimestampRouter transform.
#[derive(Debug)]
pub struct TimestampRouter {
    topic_format: String,
    /// Java builds the formatter on first use, so an invalid pattern fails records, not
    /// `configure`.
    format: std::result::Result<SimpleDateFormat, String>,
}

impl Default for TimestampRouter {
    fn default() -> Self {
        Self {
            topic_format: String::new(),
            format: Err("not configured".to_owned()),
        }
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "topic.format",
            ConfigType::String,
            Def::Value("${topic}-${timestamp}"),
            Importance::High,
            "Format string which can contain <code>${topic}</code> and <code>${timestamp}</code> \
             as placeholders for the topic and timestamp, respectively.",
        ))
        .define(ConfigKey::new(
            "timestamp.format",
            ConfigType::String,
            Def::Value("yyyyMMdd"),
            Importance::High,
            "Format string for the timestamp that is compatible with \
             <code>java.text.SimpleDateFormat</code>.",
        ))
}

/// Java's `Schema.toString()` (`Schema{name:TYPE}`), or `null`.
fn schema_text(schema: Option<&connect_api::SchemaRef>) -> String {
    match schema {
        None => "null".to_owned(),
        Some(s) => match &s.name {
            Some(name) => format!("Schema{{{name}:{}}}", s.schema_type.name()),
            None => format!("Schema{{{}}}", s.schema_type.name()),
        },
    }
}

/// An approximation of Java's `toString()` of a value (exact for null, strings and numbers).
fn value_text(value: &connect_api::Value) -> String {
    use connect_api::Value as V;
    match value {
        V::Null => "null".to_owned(),
        V::String(s) => s.clone(),
        V::Boolean(b) => b.to_string(),
        V::Int8(x) => x.to_string(),
        V::Int16(x) => x.to_string(),
        V::Int32(x) => x.to_string(),
        V::Int64(x) => x.to_string(),
        other => connect_api::values::convert_to_string(None, other).unwrap_or_default(),
    }
}

/// The shape of Java's `SourceRecord`/`SinkRecord.toString()`, for the missing-timestamp
/// message (a source record's partition and offset are not known to transforms here).
fn describe(record: &ConnectRecord, ctx: &RecordContext) -> String {
    let partition = record
        .kafka_partition
        .map_or_else(|| "null".to_owned(), |p| p.to_string());
    let head = match ctx.kafka_offset {
        Some(offset) => format!(
            "SinkRecord{{kafkaOffset={offset}, timestampType={:?}}}",
            ctx.timestamp_type
        ),
        None => "SourceRecord{sourcePartition=null, sourceOffset=null}".to_owned(),
    };
    let headers: Vec<String> = record
        .headers
        .iter()
        .map(|h| {
            format!(
                "ConnectHeader(key={}, value={}, schema={})",
                h.key,
                value_text(&h.value),
                schema_text(h.schema.as_ref())
            )
        })
        .collect();
    let headers = if headers.is_empty() {
        String::new()
    } else {
        format!("[{}]", headers.join(", "))
    };
    format!(
        "{head} ConnectRecord{{topic='{}', kafkaPartition={partition}, key={}, keySchema={}, \
         value={}, valueSchema={}, timestamp=null, headers=ConnectHeaders(headers={headers})}}",
        record.topic,
        value_text(&record.key),
        schema_text(record.key_schema.as_ref()),
        value_text(&record.value),
        schema_text(record.value_schema.as_ref()),
    )
}

impl Transformation for TimestampRouter {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        self.topic_format = values.string("topic.format").unwrap_or_default().to_owned();
        let pattern = values.string("timestamp.format").unwrap_or_default();
        self.format = match SimpleDateFormat::new(pattern) {
            Ok(f) => Ok(f),
            Err(PatternError::Invalid(message)) => Err(message),
            Err(PatternError::Unsupported(c)) => {
                return Err(ConnectError::config(
                    "timestamp.format",
                    format!(
                        "Invalid value {pattern} for configuration timestamp.format: pattern \
                         letter '{c}' is not supported by connect-rs (supported: {SUPPORTED_LETTERS})"
                    ),
                ))
            }
        };
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        let Some(timestamp) = record.timestamp else {
            return Err(ConnectError::data(format!(
                "Timestamp missing on record: {}",
                describe(&record, ctx)
            )));
        };
        let format = self
            .format
            .as_ref()
            .map_err(|m| ConnectError::Other(m.clone()))?;
        let formatted = format.format(timestamp);
        record.topic = self
            .topic_format
            .replace("${topic}", &record.topic)
            .replace("${timestamp}", &formatted);
        Ok(Some(record))
    }
}

/// The plugin descriptor.
pub const PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.TimestampRouter",
    config_def,
    new: || Box::<TimestampRouter>::default(),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(pairs: &[(&str, &str)]) -> Result<Box<dyn Transformation>> {
        let mut t = (PLUGIN.new)();
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        t.configure(&props).map(|()| t)
    }

    fn route(t: &mut Box<dyn Transformation>, timestamp: Option<i64>) -> Result<String> {
        let record = ConnectRecord {
            topic: "orders".into(),
            timestamp,
            ..ConnectRecord::default()
        };
        Ok(t.apply(record, &RecordContext::source())?.unwrap().topic)
    }

    #[test]
    fn routes_by_timestamp() {
        // 2019-08-23T04:05:06.007Z
        let ts = Some(1_566_533_106_007);
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[], "orders-20190823"),
            (
                &[("timestamp.format", "yyyy-MM-dd'T'HH")],
                "orders-2019-08-23T04",
            ),
            (
                &[("topic.format", "${timestamp}_${topic}_${topic}")],
                "20190823_orders_orders",
            ),
            (&[("topic.format", "fixed")], "fixed"),
        ];
        for (props, expected) in cases {
            let mut t = configured(props).unwrap();
            assert_eq!(route(&mut t, ts).unwrap(), *expected, "{props:?}");
        }
    }

    #[test]
    fn errors_match_kafka() {
        let mut t = configured(&[]).unwrap();
        let e = route(&mut t, None).unwrap_err().to_string();
        assert_eq!(
            e,
            "Timestamp missing on record: SourceRecord{sourcePartition=null, sourceOffset=null} \
             ConnectRecord{topic='orders', kafkaPartition=null, key=null, keySchema=null, \
             value=null, valueSchema=null, timestamp=null, headers=ConnectHeaders(headers=)}"
        );
        // Java builds the SimpleDateFormat lazily: a bad pattern fails each record.
        let mut t = configured(&[("timestamp.format", "yyyy-qq")]).unwrap();
        let e = route(&mut t, Some(0)).unwrap_err().to_string();
        assert_eq!(e, "Illegal pattern character 'q'");
        let e = configured(&[("timestamp.format", "YYYY-ww")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("timestamp.format"), "{e}");
        assert!(e.contains("'Y' is not supported"), "{e}");
    }
}
