//! The internal converter and small helpers shared by the record modules: reading a
//! schemaless JSON object the way Kafka Connect's stores read `Map<String, Object>`, and Java's
//! `String.split("-")` / `Integer.parseInt` used by their key parsers.

use std::sync::OnceLock;

use connect_api::{SchemaRef, Struct, Value};

use super::RecordError;
use crate::converters::json::{JsonConverter, JsonConverterConfig};

/// The worker's internal converter: Kafka's `JsonConverter` with `schemas.enable=false` (as
/// `Worker` and `ConnectDistributed` configure it for the three internal topics).
pub fn internal_converter() -> &'static JsonConverter {
    static CONVERTER: OnceLock<JsonConverter> = OnceLock::new();
    CONVERTER.get_or_init(|| {
        JsonConverter::with_config(JsonConverterConfig {
            schemas_enable: false,
            ..JsonConverterConfig::default()
        })
    })
}

/// Serializes a struct of `schema` with `values` in field order, as
/// `converter.fromConnectData(topic, SCHEMA, struct)` does.
pub(super) fn write_struct(schema: &SchemaRef, values: Vec<Value>) -> Vec<u8> {
    // The record modules build their values from typed fields, so they always fit the schema;
    // a failure here is a bug in this module, not bad input.
    let value = Struct::from_values(schema.clone(), values)
        .expect("internal record values are built in the schema's field order");
    internal_converter()
        .serialize(Some(schema), &Value::Struct(value))
        .expect("internal record values fit their schema")
        .unwrap_or_default()
}

/// Reads a value with the internal converter; `None` and JSON `null` are both `Value::Null`
/// (Kafka Connect cannot tell them apart either).
pub(super) fn read(key: &str, bytes: Option<&[u8]>) -> Result<Value, RecordError> {
    internal_converter()
        .deserialize(bytes)
        .map(|sv| sv.value)
        .map_err(|e| RecordError::Conversion {
            key: key.to_owned(),
            reason: e.to_string(),
        })
}

/// A schemaless JSON object read by the converter (a `Map<String, Object>` in Java).
pub(super) struct Obj<'a>(&'a [(Value, Value)]);

impl<'a> Obj<'a> {
    /// The object, or `None` when `value` is not a JSON object.
    pub(super) fn of(value: &'a Value) -> Option<Self> {
        match value {
            Value::Map(entries) => Some(Self(entries)),
            _ => None,
        }
    }

    /// The field's value; a missing field and a JSON `null` are both `None` (Java's `get`).
    pub(super) fn get(&self, name: &str) -> Option<&'a Value> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k.as_str() == Some(name))
            .map(|(_, v)| v)
            .filter(|v| !v.is_null())
    }

    /// The field as a string (`instanceof String`).
    pub(super) fn str(&self, name: &str) -> Option<&'a str> {
        self.get(name).and_then(Value::as_str)
    }

    /// The field as an integer read from JSON (the converter reads every JSON integer as a
    /// Java `Long`).
    pub(super) fn long(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Some(Value::Int64(n)) => Some(*n),
            Some(Value::Int32(n)) => Some(i64::from(*n)),
            _ => None,
        }
    }

    /// The entries in their JSON order.
    pub(super) fn entries(&self) -> &'a [(Value, Value)] {
        self.0
    }
}

/// A short name of a value's JSON type, for messages.
pub(super) fn type_name(value: Option<&Value>) -> &'static str {
    match value {
        None | Some(Value::Null) => "null",
        Some(Value::Boolean(_)) => "a boolean",
        Some(Value::Int8(_) | Value::Int16(_) | Value::Int32(_) | Value::Int64(_)) => "an integer",
        Some(Value::Float32(_) | Value::Float64(_)) => "a decimal number",
        Some(Value::String(_)) => "a string",
        Some(Value::Bytes(_)) => "bytes",
        Some(Value::Array(_)) => "an array",
        Some(Value::Map(_) | Value::Struct(_)) => "an object",
    }
}

/// Java's `s.split("-")`: the pieces between dashes, without the trailing empty ones.
pub(super) fn java_split_dash(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split('-').collect();
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.len() == 1 && parts[0].is_empty() && !s.is_empty() {
        // Java drops every trailing empty string, so "---" splits to nothing.
        parts.clear();
    }
    parts
}

/// Java's `Integer.parseInt` for ASCII text: an optional sign and decimal digits in `int` range.
pub(super) fn java_parse_int(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_drops_trailing_empty_pieces_as_java_does() {
        assert_eq!(java_split_dash("task-a-1"), ["task", "a", "1"]);
        assert_eq!(java_split_dash("task-a--1"), ["task", "a", "", "1"]);
        assert_eq!(java_split_dash("task-a-1-"), ["task", "a", "1"]);
        assert_eq!(java_split_dash("task-a-1--"), ["task", "a", "1"]);
        assert_eq!(java_split_dash("-a"), ["", "a"]);
        assert!(java_split_dash("---").is_empty());
        assert_eq!(java_split_dash(""), [""]);
    }

    #[test]
    fn parse_int_follows_integer_parse_int() {
        assert_eq!(java_parse_int("7"), Some(7));
        assert_eq!(java_parse_int("+7"), Some(7));
        assert_eq!(java_parse_int("007"), Some(7));
        assert_eq!(java_parse_int("-3"), Some(-3));
        assert_eq!(java_parse_int("2147483647"), Some(i32::MAX));
        assert_eq!(java_parse_int("2147483648"), None);
        assert_eq!(java_parse_int(""), None);
        assert_eq!(java_parse_int("+"), None);
        assert_eq!(java_parse_int("1a"), None);
        assert_eq!(java_parse_int("+-1"), None);
    }
}
