//! Values (tag + payload), and source partitions/offsets between typed values and the JSON
//! that Kafka Connect's offset storage holds.

use base64::Engine;
use connect_api::{OffsetMap, Schema, SchemaRef, SchemaType, Struct, Value};
use serde_json::Value as Json;

use super::error::CodecError;
use super::primitive::{put_bytes, put_i32, put_i64, put_str, put_u32, put_uvarint, Reader};
use super::schema::{intern_schema, read_schema_id, Interner, Table};
use super::MAX_DEPTH;

/// Value tag: null.
pub(super) const T_NULL: u8 = 0;
/// Value tag: INT8 (one byte).
pub(super) const T_INT8: u8 = 1;
/// Value tag: INT16 (zig-zag varint).
pub(super) const T_INT16: u8 = 2;
/// Value tag: INT32 (zig-zag varint).
pub(super) const T_INT32: u8 = 3;
/// Value tag: INT64 (zig-zag varint).
pub(super) const T_INT64: u8 = 4;
/// Value tag: FLOAT32 (4 bytes LE).
pub(super) const T_FLOAT32: u8 = 5;
/// Value tag: FLOAT64 (8 bytes LE).
pub(super) const T_FLOAT64: u8 = 6;
/// Value tag: false.
pub(super) const T_FALSE: u8 = 7;
/// Value tag: true.
pub(super) const T_TRUE: u8 = 8;
/// Value tag: STRING.
pub(super) const T_STRING: u8 = 9;
/// Value tag: BYTES.
pub(super) const T_BYTES: u8 = 10;
/// Value tag: ARRAY.
pub(super) const T_ARRAY: u8 = 11;
/// Value tag: MAP.
pub(super) const T_MAP: u8 = 12;
/// Value tag: STRUCT.
pub(super) const T_STRUCT: u8 = 13;

const VALUE_TAGS: &str = "0 (NULL) .. 13 (STRUCT)";

fn too_deep() -> CodecError {
    CodecError::TooDeep {
        what: "values",
        max: MAX_DEPTH,
    }
}

/// Writes `value` to `out`; the schemas of its structs are defined in `defs` when new.
pub(super) fn write_value(
    schemas: &mut Interner<Schema>,
    value: &Value,
    out: &mut Vec<u8>,
    defs: &mut Vec<u8>,
    depth: usize,
) -> Result<(), CodecError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    match value {
        Value::Null => out.push(T_NULL),
        Value::Boolean(b) => out.push(if *b { T_TRUE } else { T_FALSE }),
        Value::Int8(v) => {
            out.push(T_INT8);
            out.push(*v as u8);
        }
        Value::Int16(v) => {
            out.push(T_INT16);
            put_i32(out, i32::from(*v));
        }
        Value::Int32(v) => {
            out.push(T_INT32);
            put_i32(out, *v);
        }
        Value::Int64(v) => {
            out.push(T_INT64);
            put_i64(out, *v);
        }
        Value::Float32(v) => {
            out.push(T_FLOAT32);
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        Value::Float64(v) => {
            out.push(T_FLOAT64);
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        Value::String(s) => {
            out.push(T_STRING);
            put_str(out, s);
        }
        Value::Bytes(b) => {
            out.push(T_BYTES);
            put_bytes(out, b);
        }
        Value::Array(items) => {
            out.push(T_ARRAY);
            put_uvarint(out, items.len() as u64);
            for item in items {
                write_value(schemas, item, out, defs, depth + 1)?;
            }
        }
        Value::Map(pairs) => {
            out.push(T_MAP);
            put_uvarint(out, pairs.len() as u64);
            for (k, v) in pairs {
                write_value(schemas, k, out, defs, depth + 1)?;
                write_value(schemas, v, out, defs, depth + 1)?;
            }
        }
        Value::Struct(s) => {
            let id = intern_schema(schemas, s.schema(), defs, depth + 1)?;
            out.push(T_STRUCT);
            put_u32(out, id);
            for v in s.values() {
                write_value(schemas, v, out, defs, depth + 1)?;
            }
        }
    }
    Ok(())
}

/// Reads a value.
pub(super) fn read_value(
    schemas: &Table<SchemaRef>,
    r: &mut Reader<'_>,
    depth: usize,
) -> Result<Value, CodecError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let offset = r.position();
    Ok(match r.u8("a value tag")? {
        T_NULL => Value::Null,
        T_FALSE => Value::Boolean(false),
        T_TRUE => Value::Boolean(true),
        T_INT8 => Value::Int8(r.u8("an INT8 value")? as i8),
        T_INT16 => {
            let v = r.i32("an INT16 value")?;
            Value::Int16(i16::try_from(v).map_err(|_| CodecError::BadVarint {
                expected: "an INT16 value",
                offset: offset + 1,
            })?)
        }
        T_INT32 => Value::Int32(r.i32("an INT32 value")?),
        T_INT64 => Value::Int64(r.i64("an INT64 value")?),
        T_FLOAT32 => {
            let b = r.take(4, "a FLOAT32 value")?;
            Value::Float32(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
        T_FLOAT64 => {
            let b = r.take(8, "a FLOAT64 value")?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            Value::Float64(f64::from_le_bytes(a))
        }
        T_STRING => Value::String(r.str("a STRING value")?.to_owned()),
        T_BYTES => Value::Bytes(r.bytes("a BYTES value")?.to_vec()),
        T_ARRAY => {
            let n = r.len("the number of ARRAY items")?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(read_value(schemas, r, depth + 1)?);
            }
            Value::Array(items)
        }
        T_MAP => {
            let n = r.len("the number of MAP entries")?;
            let mut pairs = Vec::with_capacity(n);
            for _ in 0..n {
                let k = read_value(schemas, r, depth + 1)?;
                let v = read_value(schemas, r, depth + 1)?;
                pairs.push((k, v));
            }
            Value::Map(pairs)
        }
        T_STRUCT => {
            let id_offset = r.position();
            let schema = read_schema_id(schemas, r, "a STRUCT value's schema id")?.ok_or(
                CodecError::BadSchema {
                    offset: id_offset,
                    message: "a STRUCT value has schema id 0; expected the id of a STRUCT schema"
                        .to_owned(),
                },
            )?;
            if schema.schema_type != SchemaType::Struct {
                return Err(CodecError::BadSchema {
                    offset: id_offset,
                    message: format!(
                        "a STRUCT value refers to a {} schema; expected a STRUCT schema",
                        schema.schema_type.name()
                    ),
                });
            }
            let mut values = Vec::with_capacity(schema.fields.len());
            for _ in 0..schema.fields.len() {
                values.push(read_value(schemas, r, depth + 1)?);
            }
            let s = Struct::from_values(schema, values).map_err(|e| CodecError::BadSchema {
                offset: id_offset,
                message: e.to_string(),
            })?;
            Value::Struct(s)
        }
        tag => {
            return Err(CodecError::UnknownTag {
                kind: "value",
                tag,
                offset,
                expected: VALUE_TAGS,
            })
        }
    })
}

/// Where in a partition/offset a conversion failed, built while unwinding.
#[derive(Debug)]
pub(super) struct PathError {
    path: Vec<String>,
    message: String,
}

impl PathError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            path: Vec::new(),
            message: message.into(),
        }
    }

    /// An error at key `segment`.
    pub(super) fn new_at(segment: &str, message: impl Into<String>) -> Self {
        Self::new(message).at(segment.to_owned())
    }

    fn at(mut self, segment: String) -> Self {
        self.path.push(segment);
        self
    }

    /// The error for `what` (`source partition`, `source offset`).
    pub(super) fn into_codec(self, what: &str) -> CodecError {
        let what = if self.path.is_empty() {
            what.to_owned()
        } else {
            let mut path: Vec<String> = self.path;
            path.reverse();
            format!("{what} key '{}'", path.join("."))
        };
        CodecError::Offset {
            what,
            message: self.message,
        }
    }
}

/// A typed value as Kafka Connect's schemaless JsonConverter writes it.
fn to_json(value: Value) -> Result<Json, PathError> {
    Ok(match value {
        Value::Null => Json::Null,
        Value::Boolean(b) => Json::Bool(b),
        Value::Int8(v) => Json::from(v),
        Value::Int16(v) => Json::from(v),
        Value::Int32(v) => Json::from(v),
        Value::Int64(v) => Json::from(v),
        Value::Float32(v) => {
            // Jackson writes a FloatNode with Float.toString: the shortest decimal that reads
            // back as this f32 (e.g. 0.1, not 0.10000000149011612).
            let shortest: f64 = v
                .to_string()
                .parse()
                .map_err(|_| PathError::new(format!("FLOAT32 {v} is not a JSON number")))?;
            finite(shortest)?
        }
        Value::Float64(v) => finite(v)?,
        Value::String(s) => Json::String(s),
        Value::Bytes(b) => Json::String(base64::engine::general_purpose::STANDARD.encode(b)),
        Value::Array(items) => Json::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| to_json(v).map_err(|e| e.at(format!("[{i}]"))))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(pairs) => {
            if pairs.iter().all(|(k, _)| matches!(k, Value::String(_))) {
                let mut map = OffsetMap::with_capacity(pairs.len());
                for (k, v) in pairs {
                    if let Value::String(k) = k {
                        let v = to_json(v).map_err(|e| e.at(k.clone()))?;
                        map.insert(k, v);
                    }
                }
                Json::Object(map)
            } else {
                // JsonConverter: a map with a non-string key is an array of [key, value] pairs.
                let mut entries = Vec::with_capacity(pairs.len());
                for (i, (k, v)) in pairs.into_iter().enumerate() {
                    let k = to_json(k).map_err(|e| e.at(format!("[{i}].key")))?;
                    let v = to_json(v).map_err(|e| e.at(format!("[{i}].value")))?;
                    entries.push(Json::Array(vec![k, v]));
                }
                Json::Array(entries)
            }
        }
        Value::Struct(s) => {
            return Err(PathError::new(format!(
                "a Struct (schema {}) cannot be stored in Kafka Connect's offsets, which are schemaless JSON",
                s.schema().name.as_deref().unwrap_or("without name")
            )))
        }
    })
}

fn finite(v: f64) -> Result<Json, PathError> {
    serde_json::Number::from_f64(v)
        .map(Json::Number)
        .ok_or_else(|| {
            PathError::new(format!(
                "{v} cannot be stored in Kafka Connect's offsets (JSON has no NaN or infinity)"
            ))
        })
}

/// A decoded source partition or offset value as the JSON Kafka Connect stores: `what` names it
/// in errors (`source partition`, `source offset`).
///
/// # Errors
/// [`CodecError::Offset`] for a Struct, a non-finite float, or a top level that is not a map
/// with string keys.
pub fn offset_value_to_json(what: &str, value: Value) -> Result<OffsetMap, CodecError> {
    let Value::Map(pairs) = value else {
        return Err(CodecError::Offset {
            what: what.to_owned(),
            message: format!("expected a map with string keys, got {}", value.type_name()),
        });
    };
    let mut map = OffsetMap::with_capacity(pairs.len());
    for (k, v) in pairs {
        let Value::String(k) = k else {
            return Err(CodecError::Offset {
                what: what.to_owned(),
                message: format!("expected string keys, got a {} key", k.type_name()),
            });
        };
        let v = to_json(v).map_err(|e| e.at(k.clone()).into_codec(what))?;
        map.insert(k, v);
    }
    Ok(map)
}

/// Writes stored JSON as a typed value: integers as INT64 and fractions as FLOAT64, as Kafka
/// Connect's JsonConverter reads offsets back.
pub(super) fn write_json(out: &mut Vec<u8>, json: &Json) -> Result<(), PathError> {
    match json {
        Json::Null => out.push(T_NULL),
        Json::Bool(b) => out.push(if *b { T_TRUE } else { T_FALSE }),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push(T_INT64);
                put_i64(out, i);
            } else if n.is_u64() {
                return Err(PathError::new(format!(
                    "{n} does not fit a Java long (Kafka Connect reads stored integers as longs)"
                )));
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                out.push(T_FLOAT64);
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
        }
        Json::String(s) => {
            out.push(T_STRING);
            put_str(out, s);
        }
        Json::Array(items) => {
            out.push(T_ARRAY);
            put_uvarint(out, items.len() as u64);
            for (i, item) in items.iter().enumerate() {
                write_json(out, item).map_err(|e| e.at(format!("[{i}]")))?;
            }
        }
        Json::Object(map) => write_json_map(out, map)?,
    }
    Ok(())
}

/// Writes a JSON object as a MAP with STRING keys.
pub(super) fn write_json_map(out: &mut Vec<u8>, map: &OffsetMap) -> Result<(), PathError> {
    out.push(T_MAP);
    put_uvarint(out, map.len() as u64);
    for (k, v) in map {
        out.push(T_STRING);
        put_str(out, k);
        write_json(out, v).map_err(|e| e.at(k.clone()))?;
    }
    Ok(())
}

/// Stored JSON as the typed value Java receives (integers as INT64, fractions as FLOAT64).
///
/// # Errors
/// [`CodecError::Offset`] for an integer beyond a Java `long`.
pub fn json_to_offset_value(what: &str, json: &Json) -> Result<Value, CodecError> {
    let mut bytes = Vec::new();
    write_json(&mut bytes, json).map_err(|e| e.into_codec(what))?;
    let table = Table::new("schema");
    read_value(&table, &mut Reader::new(&bytes), 0)
}
