//! `Values.convertToString`: a value's string form.

use std::sync::Arc;

use base64::Engine as _;
use num_bigint::BigInt;

use super::decimal::decimal_scale;
use crate::java_fmt::{self, MILLIS_PER_DAY};
use crate::{logical, Schema, SchemaRef, SchemaType, Value};

/// Renders a value as `Values.convertToString(schema, value)` does; `None` for null.
///
/// Top-level strings are written raw; strings inside containers are double-quoted with `\` and
/// `"` escaped; bytes are base64; numbers use Java's `toString`; maps are `{k:v,…}`, structs
/// `{"field":v,…}` (field defaults applied), lists `[a,b]`; logical values (given their schema)
/// are rendered as `BigDecimal.toString()` or as ISO-8601 dates in UTC.
pub fn convert_to_string(schema: Option<&SchemaRef>, value: &Value) -> Option<String> {
    if value.is_null() {
        return None;
    }
    let mut out = String::new();
    append(&mut out, schema.map(Arc::as_ref), value, false);
    Some(out)
}

fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
}

fn append(out: &mut String, schema: Option<&Schema>, value: &Value, embedded: bool) {
    if let Some(s) = schema {
        match (s.name.as_deref(), s.schema_type, value) {
            (Some(logical::DECIMAL), SchemaType::Bytes, Value::Bytes(b)) => {
                if let Ok(scale) = decimal_scale(s) {
                    let unscaled = BigInt::from_signed_bytes_be(b);
                    out.push_str(&java_fmt::big_decimal_string(&unscaled, scale));
                    return;
                }
            }
            (Some(logical::DATE), SchemaType::Int32, Value::Int32(d)) => {
                out.push_str(&java_fmt::format_date_millis(
                    i64::from(*d) * MILLIS_PER_DAY,
                ));
                return;
            }
            (Some(logical::TIME), SchemaType::Int32, Value::Int32(t)) => {
                out.push_str(&java_fmt::format_date_millis(i64::from(*t)));
                return;
            }
            (Some(logical::TIMESTAMP), SchemaType::Int64, Value::Int64(t)) => {
                out.push_str(&java_fmt::format_date_millis(*t));
                return;
            }
            _ => {}
        }
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int8(v) => out.push_str(&v.to_string()),
        Value::Int16(v) => out.push_str(&v.to_string()),
        Value::Int32(v) => out.push_str(&v.to_string()),
        Value::Int64(v) => out.push_str(&v.to_string()),
        Value::Float32(v) => java_fmt::push_f32(out, *v),
        Value::Float64(v) => java_fmt::push_f64(out, *v),
        Value::String(s) => {
            if embedded {
                out.push('"');
                escape_into(out, s);
                out.push('"');
            } else {
                out.push_str(s);
            }
        }
        Value::Bytes(b) => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(b);
            if embedded {
                out.push('"');
                out.push_str(&encoded);
                out.push('"');
            } else {
                out.push_str(&encoded);
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, item_schema, item, true);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let key_schema = schema.and_then(|s| s.key_schema.as_deref());
            let value_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, key_schema, k, true);
                out.push(':');
                append(out, value_schema, v, true);
            }
            out.push('}');
        }
        Value::Struct(st) => {
            out.push('{');
            for (i, (f, v)) in st.schema().fields.iter().zip(st.values()).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('"');
                escape_into(out, &f.name);
                out.push('"');
                out.push(':');
                // Struct.get applies the field's default.
                let v = match (v, &f.schema.default) {
                    (Value::Null, Some(d)) => d,
                    _ => v,
                };
                append(out, Some(&f.schema), v, true);
            }
            out.push('}');
        }
    }
}
