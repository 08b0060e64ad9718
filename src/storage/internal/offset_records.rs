//! Records of the offsets topic (`offset.storage.topic`), as Kafka Connect's
//! `OffsetStorageWriter` writes them and `OffsetStorageReaderImpl` / `OffsetUtils` read them.
//!
//! * key: the JSON array `["<connector>",{partition}]` (`[connector,null]` for a null
//!   partition), written by the internal key converter;
//! * value: the offset's JSON object; a tombstone deletes (resets) the offset.
//!
//! Partitions and offsets may hold only primitive values (Kafka's `OffsetUtils.validateFormat`);
//! keys are looked up by their exact bytes, so a partition's field order matters.

use connect_api::{OffsetMap, Value};
use serde_json::Value as Json;

use super::json::{self, type_name};
use super::RecordError;

const NOT_A_MAP: &str = "Offsets must be specified as a Map";

/// The key bytes of `connector`'s `partition`.
///
/// # Errors
/// [`RecordError::Offset`] with Kafka's message when the partition holds a non-primitive value.
pub fn encode_key(connector: &str, partition: Option<&OffsetMap>) -> Result<Vec<u8>, RecordError> {
    let partition = match partition {
        Some(p) => to_connect(connector, p)?,
        None => Value::Null,
    };
    let key = Value::Array(vec![Value::String(connector.to_owned()), partition]);
    serialize(connector, &key).map(Option::unwrap_or_default)
}

/// The value bytes of an offset; `None` (a tombstone) for `None`, which deletes the offset.
///
/// # Errors
/// [`RecordError::Offset`] with Kafka's message when the offset holds a non-primitive value.
pub fn encode_value(
    connector: &str,
    offset: Option<&OffsetMap>,
) -> Result<Option<Vec<u8>>, RecordError> {
    match offset {
        Some(o) => serialize(connector, &to_connect(connector, o)?),
        None => Ok(None),
    }
}

/// The connector and source partition of key bytes (`None` for a `null` partition).
///
/// # Errors
/// [`RecordError::Conversion`] when the key is not JSON, [`RecordError::Key`] when it is not a
/// `[string, object|null]` array (Kafka ignores such keys).
pub fn decode_key(key: &[u8]) -> Result<(String, Option<OffsetMap>), RecordError> {
    let text = String::from_utf8_lossy(key).into_owned();
    let value = json::read(&text, Some(key))?;
    let Value::Array(items) = &value else {
        return Err(RecordError::key(
            &text,
            format!("expected a JSON array, found {}", type_name(Some(&value))),
        ));
    };
    let [name, partition] = items.as_slice() else {
        return Err(RecordError::key(
            &text,
            format!("expected 2 elements, found {}", items.len()),
        ));
    };
    let Value::String(name) = name else {
        return Err(RecordError::key(
            &text,
            format!(
                "the first element should be a string but is {}",
                type_name(Some(name))
            ),
        ));
    };
    let partition = match partition {
        Value::Null => None,
        Value::Map(_) => Some(to_offset_map(&text, partition)?),
        other => {
            return Err(RecordError::key(
                &text,
                format!(
                    "the second element should be an object but is {}",
                    type_name(Some(other))
                ),
            ))
        }
    };
    Ok((name.clone(), partition))
}

/// The offset in value bytes (`None` for a tombstone or JSON `null`), checked as Kafka's
/// reader checks it. `connector` only names the record in errors.
///
/// # Errors
/// [`RecordError::Conversion`] when the value is not JSON, [`RecordError::Offset`] with Kafka's
/// message when it is not an object of primitive values.
pub fn decode_value(
    connector: &str,
    value: Option<&[u8]>,
) -> Result<Option<OffsetMap>, RecordError> {
    let parsed = json::read(connector, value)?;
    if parsed.is_null() {
        return Ok(None);
    }
    if !matches!(parsed, Value::Map(_)) {
        return Err(offset_error(connector, NOT_A_MAP.to_owned()));
    }
    let map = to_offset_map(connector, &parsed)?;
    validate_format(connector, &map)?;
    Ok(Some(map))
}

/// Kafka's `OffsetUtils.validateFormat`: every value is null or primitive.
///
/// # Errors
/// [`RecordError::Offset`] with Kafka's message naming the first bad field.
pub fn validate_format(connector: &str, map: &OffsetMap) -> Result<(), RecordError> {
    for (k, v) in map {
        let kind = match v {
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "MAP",
            // Beyond Java's long: Kafka would see a BigInteger, which is no Connect type.
            Json::Number(n) if n.is_u64() && n.as_i64().is_none() => "class java.math.BigInteger",
            _ => continue,
        };
        return Err(offset_error(
            connector,
            format!(
                "Offsets may only contain primitive types as values, but field {k} contains {kind}"
            ),
        ));
    }
    Ok(())
}

fn offset_error(connector: &str, message: String) -> RecordError {
    RecordError::Offset {
        connector: connector.to_owned(),
        message,
    }
}

fn serialize(connector: &str, value: &Value) -> Result<Option<Vec<u8>>, RecordError> {
    json::internal_converter()
        .serialize(None, value)
        .map_err(|e| offset_error(connector, e.to_string()))
}

/// A validated partition or offset as schemaless Connect data (integers as `Long`, decimals
/// as `Double`, in the map's order).
fn to_connect(connector: &str, map: &OffsetMap) -> Result<Value, RecordError> {
    validate_format(connector, map)?;
    Ok(Value::Map(
        map.iter()
            .map(|(k, v)| {
                let v = match v {
                    Json::Null => Value::Null,
                    Json::Bool(b) => Value::Boolean(*b),
                    Json::String(s) => Value::String(s.clone()),
                    Json::Number(n) => match n.as_i64() {
                        Some(i) => Value::Int64(i),
                        None => Value::Float64(n.as_f64().unwrap_or(f64::NAN)),
                    },
                    // validate_format refused containers.
                    Json::Array(_) | Json::Object(_) => Value::Null,
                };
                (Value::String(k.clone()), v)
            })
            .collect(),
    ))
}

/// Schemaless Connect data read back as a JSON object.
fn to_offset_map(name: &str, value: &Value) -> Result<OffsetMap, RecordError> {
    match to_json(name, value)? {
        Json::Object(map) => Ok(map),
        _ => Err(offset_error(name, NOT_A_MAP.to_owned())),
    }
}

fn to_json(name: &str, value: &Value) -> Result<Json, RecordError> {
    Ok(match value {
        Value::Null => Json::Null,
        Value::Boolean(b) => Json::Bool(*b),
        Value::Int8(n) => Json::from(*n),
        Value::Int16(n) => Json::from(*n),
        Value::Int32(n) => Json::from(*n),
        Value::Int64(n) => Json::from(*n),
        Value::Float32(f) => Json::from(f64::from(*f)),
        Value::Float64(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .ok_or_else(|| offset_error(name, format!("the number {f} is out of range")))?,
        Value::String(s) => Json::String(s.clone()),
        Value::Bytes(b) => Json::Array(b.iter().map(|x| Json::from(*x)).collect()),
        Value::Array(items) => Json::Array(
            items
                .iter()
                .map(|v| to_json(name, v))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(entries) => {
            let mut map = OffsetMap::new();
            for (k, v) in entries {
                map.insert(k.as_str().unwrap_or_default().to_owned(), to_json(name, v)?);
            }
            Json::Object(map)
        }
        Value::Struct(_) => return Err(offset_error(name, NOT_A_MAP.to_owned())),
    })
}

#[cfg(test)]
#[path = "offset_records_tests.rs"]
mod tests;
