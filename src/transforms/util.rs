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

/// [`require_map`] on an owned value: its entries, moved out (no copy), or Kafka's error.
///
/// # Errors
/// A data error when the value is not a map.
pub fn into_map(value: Value, purpose: &str) -> Result<Vec<(Value, Value)>, ConnectError> {
    match value {
        Value::Map(entries) => Ok(entries),
        other => require_map(&other, purpose).map(<[_]>::to_vec),
    }
}

/// A struct value, or Kafka's error:
/// `Only Struct objects supported for [<purpose>], found: <class>`, where the class is the one
/// Kafka Connect would hold for a value of `schema` (a logical Date/Time/Timestamp is a
/// `java.util.Date`, a Decimal a `java.math.BigDecimal`).
///
/// # Errors
/// A data error when the value is not a struct.
pub fn require_struct<'a>(
    value: &'a Value,
    schema: Option<&SchemaRef>,
    purpose: &str,
) -> Result<&'a connect_api::Struct, ConnectError> {
    match value {
        Value::Struct(s) => Ok(s),
        other => Err(ConnectError::data(format!(
            "Only Struct objects supported for [{purpose}], found: {}",
            java_class_of(other, schema)
        ))),
    }
}

/// The Java class of `value` when its schema is `schema`: logical types have their own classes.
pub fn java_class_of(value: &Value, schema: Option<&SchemaRef>) -> &'static str {
    use connect_api::logical::{DATE, DECIMAL, TIME, TIMESTAMP};
    match schema.and_then(|s| s.name.as_deref()) {
        Some(DATE | TIME | TIMESTAMP) if !value.is_null() => "java.util.Date",
        Some(DECIMAL) if !value.is_null() => "java.math.BigDecimal",
        _ => java_class_name(value),
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

/// A struct field's value as Kafka's `Struct.get(field)` (null replaced by the field schema's
/// default) or, when `replace_null_with_default` is false, `Struct.getWithoutDefault`.
pub fn field_value(
    value: &connect_api::Struct,
    field: &connect_api::Field,
    replace_null_with_default: bool,
) -> Value {
    match value.values().get(field.index) {
        Some(Value::Null) | None if replace_null_with_default => {
            field.schema.default.clone().unwrap_or(Value::Null)
        }
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// Appends struct fields to `builder`, failing like Kafka's `SchemaBuilder.field` on an empty
/// name (`fieldName cannot be null.`) or a repeated one (`Cannot create field because of field
/// name duplication <name>`).
///
/// # Errors
/// A data error for the first repeated name.
pub fn struct_with_fields(
    builder: SchemaBuilder,
    fields: impl IntoIterator<Item = (String, SchemaRef)>,
) -> Result<SchemaRef, ConnectError> {
    let mut seen = std::collections::HashSet::new();
    let mut b = builder;
    for (name, schema) in fields {
        if name.is_empty() {
            return Err(ConnectError::data("fieldName cannot be null."));
        }
        if !seen.insert(name.clone()) {
            return Err(ConnectError::data(format!(
                "Cannot create field because of field name duplication {name}"
            )));
        }
        b = b.field(name, schema);
    }
    Ok(b.build())
}

/// Kafka's `replace.null.with.default` key (BOOLEAN, default true), shared by the transforms
/// that copy struct fields.
pub fn replace_null_with_default_key() -> connect_api::ConfigKey {
    connect_api::ConfigKey::new(
        "replace.null.with.default",
        connect_api::ConfigType::Boolean,
        connect_api::config_def::Default::Value("true"),
        connect_api::Importance::Medium,
        "Whether to replace fields that have a default value and that are null to the default \
         value. When set to true, the default value is used, otherwise null is used.",
    )
}

/// Kafka's per-transform cache of rebuilt schemas keyed by input schema (LRU, 16 entries).
#[derive(Debug, Default)]
pub struct SchemaCache {
    entries: Vec<(SchemaRef, SchemaRef)>,
}

impl SchemaCache {
    /// The cached rebuild of `schema`, or `build(schema)` (then cached).
    ///
    /// # Errors
    /// Whatever `build` returns.
    pub fn get_or_build(
        &mut self,
        schema: &SchemaRef,
        build: impl FnOnce(&SchemaRef) -> Result<SchemaRef, ConnectError>,
    ) -> Result<SchemaRef, ConnectError> {
        if let Some(i) = self
            .entries
            .iter()
            .position(|(k, _)| std::sync::Arc::ptr_eq(k, schema) || **k == **schema)
        {
            let entry = self.entries.remove(i);
            let built = entry.1.clone();
            self.entries.insert(0, entry);
            return Ok(built);
        }
        let built = build(schema)?;
        self.entries.insert(0, (schema.clone(), built.clone()));
        self.entries.truncate(16);
        Ok(built)
    }
}

/// Kafka's `Struct.put` check that a required field gets a value:
/// `Invalid value: null used for required field: "<name>", schema type: <TYPE>`.
///
/// # Errors
/// A data error when `value` is null and the field is required.
pub fn check_required(field: &connect_api::Field, value: &Value) -> Result<(), ConnectError> {
    if value.is_null() && !field.schema.optional {
        return Err(ConnectError::data(format!(
            "Invalid value: null used for required field: \"{}\", schema type: {}",
            field.name,
            field.schema.schema_type.name()
        )));
    }
    Ok(())
}

/// Puts `key` into a schemaless map like Java's `Map.put`: replaces the value in place when the
/// key is there, appends otherwise.
pub fn map_put(
    entries: &mut Vec<(Value, Value)>,
    key: impl AsRef<str> + Into<String>,
    value: Value,
) {
    match entries
        .iter_mut()
        .find(|(k, _)| k.as_str() == Some(key.as_ref()))
    {
        Some(entry) => entry.1 = value,
        None => entries.push((Value::String(key.into()), value)),
    }
}

/// The value under `key` in a schemaless map (null when absent), like Java's `Map.get`.
pub fn map_get<'a>(entries: &'a [(Value, Value)], key: &str) -> &'a Value {
    entries
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map_or(&Value::Null, |(_, v)| v)
}

/// Kafka 4.3's check of a LIST key, with its messages (`Configuration 'fields' must not be
/// empty. ...`). Repeated entries are accepted, as Kafka 4.3.1 accepts them (checked by the
/// transform differential).
///
/// # Errors
/// A configuration error for an empty list (when not allowed) or an empty entry.
pub fn check_list(name: &str, values: &[String], empty_allowed: bool) -> Result<(), ConnectError> {
    let fail = |m: String| Err(ConnectError::config(name, m));
    if !empty_allowed && values.is_empty() {
        return fail(format!(
            "Configuration '{name}' must not be empty. Valid values include: any non-empty value"
        ));
    }
    if values.iter().any(String::is_empty) {
        return fail(format!("Configuration '{name}' values must not be empty."));
    }
    Ok(())
}

/// Maps the parse error of an empty required LIST key to Kafka's `ValidList` message.
pub fn empty_list_error(e: ConnectError) -> ConnectError {
    match e {
        ConnectError::Config { key, message } if message.ends_with(": Empty list") => {
            ConnectError::config(
                key.clone(),
                format!(
                    "Configuration '{key}' must not be empty. Valid values include: any \
                     non-empty value"
                ),
            )
        }
        other => other,
    }
}
