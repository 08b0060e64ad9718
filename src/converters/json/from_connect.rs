//! Writing: Connect schemas and values to JSON (Kafka's `asJsonSchema` and `convertToJson`).

use std::borrow::Cow;
use std::sync::Arc;

use connect_api::java_fmt;
use connect_api::values::decimal::{decimal_scale, minimal_twos_complement};
use connect_api::{ConnectError, Result, SchemaRef, SchemaType, Value};
use indexmap::IndexMap;
use num_bigint::BigInt;

use super::{
    java_class, logical_of, schemas_match, serialization_error, type_name_json, write,
    DecimalFormat, JsonConverter, Logical, NULL_REQUIRED_ERROR, WRITE_MAX_DEPTH,
};

impl JsonConverter {
    /// Appends the JSON form of a schema: the last one written is copied under the cache's
    /// lock, without touching reference counts.
    pub(super) fn push_schema_json(&self, out: &mut Vec<u8>, schema: &SchemaRef) -> Result<()> {
        if let Ok(cache) = self.from_cache.lock() {
            if let Some((s, json)) = &cache.last {
                if Arc::ptr_eq(s, schema) {
                    out.extend_from_slice(json);
                    return Ok(());
                }
            }
        }
        let json = self.schema_json(schema)?;
        out.extend_from_slice(&json);
        Ok(())
    }

    pub(super) fn write_schema(
        &self,
        out: &mut Vec<u8>,
        schema: &SchemaRef,
        field: Option<&str>,
        depth: usize,
    ) -> Result<()> {
        if depth > WRITE_MAX_DEPTH {
            return Err(serialization_error(
                "Document nesting depth exceeds the maximum allowed (1000)",
            ));
        }
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(type_name_json(schema.schema_type).as_bytes());
        out.push(b'"');
        let opt_schema = |out: &mut Vec<u8>, key: &[u8], s: Option<&SchemaRef>| -> Result<()> {
            out.extend_from_slice(key);
            match s {
                Some(s) => self.write_schema(out, s, None, depth + 1),
                None => {
                    out.extend_from_slice(b"null");
                    Ok(())
                }
            }
        };
        match schema.schema_type {
            SchemaType::Array => opt_schema(out, b",\"items\":", schema.value_schema.as_ref())?,
            SchemaType::Map => {
                opt_schema(out, b",\"keys\":", schema.key_schema.as_ref())?;
                opt_schema(out, b",\"values\":", schema.value_schema.as_ref())?;
            }
            SchemaType::Struct => {
                out.extend_from_slice(b",\"fields\":[");
                for (i, f) in schema.fields.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.write_schema(out, &f.schema, Some(&f.name), depth + 2)?;
                }
                out.push(b']');
            }
            _ => {}
        }
        out.extend_from_slice(if schema.optional {
            b",\"optional\":true"
        } else {
            b",\"optional\":false"
        });
        if let Some(name) = &schema.name {
            out.extend_from_slice(b",\"name\":");
            write::push_str(out, name);
        }
        if let Some(v) = schema.version {
            out.extend_from_slice(b",\"version\":");
            write::push_int(out, i64::from(v));
        }
        if let Some(doc) = &schema.doc {
            out.extend_from_slice(b",\"doc\":");
            write::push_str(out, doc);
        }
        // Kafka's schemas never hold an empty parameter map (`SchemaBuilder` drops it).
        if let Some(params) = schema.parameters.as_ref().filter(|p| !p.is_empty()) {
            out.extend_from_slice(b",\"parameters\":{");
            for (i, (k, v)) in params.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write::push_str(out, k);
                out.push(b':');
                write::push_str(out, v);
            }
            out.push(b'}');
        }
        if let Some(default) = &schema.default {
            out.extend_from_slice(b",\"default\":");
            self.write_value(out, Some(schema), default, depth + 1)?;
        }
        if let Some(name) = field {
            out.extend_from_slice(b",\"field\":");
            write::push_str(out, name);
        }
        out.push(b'}');
        Ok(())
    }

    /// Writes one value (Kafka's `convertToJson`).
    pub(super) fn write_value(
        &self,
        out: &mut Vec<u8>,
        schema: Option<&SchemaRef>,
        value: &Value,
        depth: usize,
    ) -> Result<()> {
        if depth > WRITE_MAX_DEPTH {
            return Err(serialization_error(
                "Document nesting depth exceeds the maximum allowed (1000)",
            ));
        }
        if value.is_null() {
            let Some(s) = schema else {
                out.extend_from_slice(b"null");
                return Ok(());
            };
            if let (Some(d), true) = (&s.default, self.config.replace_null_with_default) {
                return self.write_value(out, schema, d, depth);
            }
            if s.optional {
                out.extend_from_slice(b"null");
                return Ok(());
            }
            return Err(ConnectError::data(NULL_REQUIRED_ERROR));
        }
        if let Some(s) = schema {
            if let Some(l) = logical_of(s) {
                return self.write_logical(out, s, l, value);
            }
        }
        let schema_type = match schema {
            Some(s) => s.schema_type,
            None => match value {
                Value::Null => {
                    out.extend_from_slice(b"null");
                    return Ok(());
                }
                Value::Boolean(_) => SchemaType::Boolean,
                Value::Int8(_) => SchemaType::Int8,
                Value::Int16(_) => SchemaType::Int16,
                Value::Int32(_) => SchemaType::Int32,
                Value::Int64(_) => SchemaType::Int64,
                Value::Float32(_) => SchemaType::Float32,
                Value::Float64(_) => SchemaType::Float64,
                Value::String(_) => SchemaType::String,
                Value::Bytes(_) => SchemaType::Bytes,
                Value::Array(_) => SchemaType::Array,
                Value::Map(_) => SchemaType::Map,
                Value::Struct(_) => SchemaType::Struct,
            },
        };
        match (schema_type, value) {
            (SchemaType::Int8, Value::Int8(v)) => write::push_int(out, i64::from(*v)),
            (SchemaType::Int16, Value::Int16(v)) => write::push_int(out, i64::from(*v)),
            (SchemaType::Int32, Value::Int32(v)) => write::push_int(out, i64::from(*v)),
            (SchemaType::Int64, Value::Int64(v)) => write::push_int(out, *v),
            (SchemaType::Float32, Value::Float32(v)) => write::push_f32(out, *v),
            (SchemaType::Float64, Value::Float64(v)) => write::push_f64(out, *v),
            (SchemaType::Boolean, Value::Boolean(b)) => {
                out.extend_from_slice(if *b { b"true" } else { b"false" })
            }
            (SchemaType::String, Value::String(s)) => write::push_str(out, s),
            (SchemaType::Bytes, Value::Bytes(b)) => write::push_base64(out, b),
            (SchemaType::Bytes, v) => {
                return Err(ConnectError::data(format!(
                    "Invalid type for bytes type: {}",
                    java_class(v)
                )))
            }
            (SchemaType::Array, Value::Array(items)) => {
                let item_schema = schema.and_then(|s| s.value_schema.as_ref());
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.write_value(out, item_schema, item, depth + 1)?;
                }
                out.push(b']');
            }
            (SchemaType::Map, Value::Map(entries)) => {
                self.write_map(out, schema, entries, depth)?
            }
            (SchemaType::Struct, Value::Struct(st)) => {
                let Some(s) = schema.filter(|s| schemas_match(st.schema(), s)) else {
                    return Err(ConnectError::data("Mismatching schema."));
                };
                out.push(b'{');
                for (i, (f, v)) in s.fields.iter().zip(st.values()).enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write::push_str(out, &f.name);
                    out.push(b':');
                    self.write_value(out, Some(&f.schema), v, depth + 1)?;
                }
                out.push(b'}');
            }
            (t, v) => {
                return Err(ConnectError::data(format!(
                    "Invalid type for {}: {}",
                    t.name(),
                    java_class(v)
                )))
            }
        }
        Ok(())
    }

    pub(super) fn write_logical(
        &self,
        out: &mut Vec<u8>,
        schema: &SchemaRef,
        l: Logical,
        value: &Value,
    ) -> Result<()> {
        match (l, value) {
            (Logical::Decimal, Value::Bytes(b)) => {
                let scale = decimal_scale(schema)?;
                match self.config.decimal_format {
                    DecimalFormat::Base64 => write::push_base64(out, &minimal_twos_complement(b)),
                    DecimalFormat::Numeric => {
                        let unscaled = BigInt::from_signed_bytes_be(b);
                        out.extend_from_slice(
                            java_fmt::big_decimal_string(&unscaled, scale).as_bytes(),
                        );
                    }
                }
            }
            (Logical::Decimal, v) => {
                return Err(ConnectError::data(format!(
                    "Invalid type for Decimal, expected BigDecimal but was {}",
                    java_class(v)
                )))
            }
            (Logical::Date, Value::Int32(d)) => write::push_int(out, i64::from(*d)),
            (Logical::Time, Value::Int32(t)) => {
                if *t < 0 || i64::from(*t) > java_fmt::MILLIS_PER_DAY {
                    return Err(ConnectError::data(
                        "Kafka Connect Time type should not have any date fields set to non-zero values.",
                    ));
                }
                write::push_int(out, i64::from(*t));
            }
            (Logical::Timestamp, Value::Int64(t)) => write::push_int(out, *t),
            (l, v) => {
                let name = match l {
                    Logical::Date => "Date",
                    Logical::Time => "Time",
                    _ => "Timestamp",
                };
                return Err(ConnectError::data(format!(
                    "Invalid type for {name}, expected Date but was {}",
                    java_class(v)
                )));
            }
        }
        Ok(())
    }

    /// The object key of a map entry in object mode (`mapKey.asText()`).
    pub(super) fn key_text<'v>(
        &self,
        key_schema: Option<&SchemaRef>,
        key: &'v Value,
    ) -> Result<Cow<'v, str>> {
        match (key, key_schema) {
            (Value::String(s), _) => Ok(Cow::Borrowed(s)),
            (Value::Null, Some(ks)) => {
                if let (Some(Value::String(d)), true) =
                    (&ks.default, self.config.replace_null_with_default)
                {
                    Ok(Cow::Owned(d.clone()))
                } else if ks.optional {
                    Ok(Cow::Borrowed("null"))
                } else {
                    Err(ConnectError::data(NULL_REQUIRED_ERROR))
                }
            }
            (v, _) => Err(ConnectError::data(format!(
                "Invalid type for STRING: {}",
                java_class(v)
            ))),
        }
    }

    pub(super) fn write_map(
        &self,
        out: &mut Vec<u8>,
        schema: Option<&SchemaRef>,
        entries: &[(Value, Value)],
        depth: usize,
    ) -> Result<()> {
        let key_schema = schema.and_then(|s| s.key_schema.as_ref());
        let value_schema = schema.and_then(|s| s.value_schema.as_ref());
        let object_mode = match schema {
            None => entries.iter().all(|(k, _)| matches!(k, Value::String(_))),
            Some(s) => s
                .key_schema
                .as_ref()
                .is_some_and(|k| k.schema_type == SchemaType::String),
        };
        if !object_mode {
            out.push(b'[');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.push(b'[');
                self.write_value(out, key_schema, k, depth + 2)?;
                out.push(b',');
                self.write_value(out, value_schema, v, depth + 2)?;
                out.push(b']');
            }
            out.push(b']');
            return Ok(());
        }
        let keys = entries
            .iter()
            .map(|(k, _)| self.key_text(key_schema, k))
            .collect::<Result<Vec<_>>>()?;
        let has_duplicates = if keys.len() <= 16 {
            keys.iter()
                .enumerate()
                .any(|(i, k)| keys[..i].iter().any(|o| o == k))
        } else {
            let mut seen = std::collections::HashSet::with_capacity(keys.len());
            !keys.iter().all(|k| seen.insert(k.as_ref()))
        };
        out.push(b'{');
        if has_duplicates {
            // Jackson's ObjectNode keeps the first position and the last value.
            let mut merged: IndexMap<&str, Vec<u8>> = IndexMap::new();
            for (k, (_, v)) in keys.iter().zip(entries) {
                let mut buf = Vec::new();
                self.write_value(&mut buf, value_schema, v, depth + 1)?;
                merged.insert(k.as_ref(), buf);
            }
            for (i, (k, v)) in merged.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write::push_str(out, k);
                out.push(b':');
                out.extend_from_slice(v);
            }
        } else {
            for (i, (k, (_, v))) in keys.iter().zip(entries).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write::push_str(out, k);
                out.push(b':');
                self.write_value(out, value_schema, v, depth + 1)?;
            }
        }
        out.push(b'}');
        Ok(())
    }
}
