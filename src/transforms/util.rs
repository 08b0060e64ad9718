//! What the built-in transforms share: the record side they operate on (`$Key` / `$Value`),
//! Kafka Connect's `Requirements` checks with their messages, and schema copying.

use connect_api::{ConnectError, ConnectRecord, SchemaBuilder, SchemaRef, Value};

/// The part of the record a `$Key` or `$Value` transform operates on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The record key (`...$Key`).
    Key,
    /// The record value (`...$Value`).
    Value,
}

impl Side {
    /// The schema of this side.
    pub fn schema(self, record: &ConnectRecord) -> Option<&SchemaRef> {
        match self {
            Self::Key => record.key_schema.as_ref(),
            Self::Value => record.value_schema.as_ref(),
        }
    }

    /// The value of this side.
    pub fn value(self, record: &ConnectRecord) -> &Value {
        match self {
            Self::Key => &record.key,
            Self::Value => &record.value,
        }
    }

    /// Takes the schema and value out of the record (leaving null).
    pub fn take(self, record: &mut ConnectRecord) -> (Option<SchemaRef>, Value) {
        match self {
            Self::Key => (record.key_schema.take(), std::mem::take(&mut record.key)),
            Self::Value => (
                record.value_schema.take(),
                std::mem::take(&mut record.value),
            ),
        }
    }

    /// Sets the schema and value of this side.
    pub fn set(self, record: &mut ConnectRecord, schema: Option<SchemaRef>, value: Value) {
        match self {
            Self::Key => {
                record.key_schema = schema;
                record.key = value;
            }
            Self::Value => {
                record.value_schema = schema;
                record.value = value;
            }
        }
    }
}

/// The Java class Kafka Connect would see for a value, as `Requirements` names it in messages
/// (`java.lang.String`, `java.util.HashMap`, ...; `null` for null).
pub fn java_class_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Boolean(_) => "java.lang.Boolean",
        Value::Int8(_) => "java.lang.Byte",
        Value::Int16(_) => "java.lang.Short",
        Value::Int32(_) => "java.lang.Integer",
        Value::Int64(_) => "java.lang.Long",
        Value::Float32(_) => "java.lang.Float",
        Value::Float64(_) => "java.lang.Double",
        Value::String(_) => "java.lang.String",
        Value::Bytes(_) => "[B",
        Value::Array(_) => "java.util.ArrayList",
        Value::Map(_) => "java.util.HashMap",
        Value::Struct(_) => "org.apache.kafka.connect.data.Struct",
    }
}

/// The entries of a schemaless map value, or Kafka's error:
/// `Only Map objects supported in absence of schema for [<purpose>], found: <class>`.
///
/// # Errors
/// A data error when the value is not a map.
pub fn require_map<'a>(
    value: &'a Value,
    purpose: &str,
) -> Result<&'a [(Value, Value)], ConnectError> {
    match value {
        Value::Map(entries) => Ok(entries),
        other => Err(ConnectError::data(format!(
            "Only Map objects supported in absence of schema for [{purpose}], found: {}",
            java_class_name(other)
        ))),
    }
}

/// A struct value, or Kafka's error:
/// `Only Struct objects supported for [<purpose>], found: <class>`.
///
/// # Errors
/// A data error when the value is not a struct.
pub fn require_struct<'a>(
    value: &'a Value,
    purpose: &str,
) -> Result<&'a connect_api::Struct, ConnectError> {
    match value {
        Value::Struct(s) => Ok(s),
        other => Err(ConnectError::data(format!(
            "Only Struct objects supported for [{purpose}], found: {}",
            java_class_name(other)
        ))),
    }
}

/// The schema, or Kafka's error `Schema required for [<purpose>]`.
///
/// # Errors
/// A data error when there is no schema.
pub fn require_schema<'a>(
    schema: Option<&'a SchemaRef>,
    purpose: &str,
) -> Result<&'a SchemaRef, ConnectError> {
    schema.ok_or_else(|| ConnectError::data(format!("Schema required for [{purpose}]")))
}

/// Kafka's error for a transform that needs a consumed record:
/// `Only SinkRecord supported for [<purpose>], found: org.apache.kafka.connect.source.SourceRecord`.
pub fn sink_record_required(purpose: &str) -> ConnectError {
    ConnectError::data(format!(
        "Only SinkRecord supported for [{purpose}], found: \
         org.apache.kafka.connect.source.SourceRecord"
    ))
}

/// A builder of `schema_type` with the name, version, doc and parameters of `schema`
/// (Kafka's `SchemaUtil.copySchemaBasics`; optionality and default are not copied).
pub fn copy_schema_basics(schema: &SchemaRef, builder: SchemaBuilder) -> SchemaBuilder {
    let mut b = builder;
    if let Some(name) = &schema.name {
        b = b.name(name.clone());
    }
    if let Some(version) = schema.version {
        b = b.version(version);
    }
    if let Some(doc) = &schema.doc {
        b = b.doc(doc.clone());
    }
    if let Some(params) = &schema.parameters {
        for (k, v) in params {
            b = b.parameter(k.clone(), v.clone());
        }
    }
    b
}

/// The key of a schemaless map entry, when it is a string.
pub fn map_key(entry_key: &Value) -> Option<&str> {
    entry_key.as_str()
}
