//! Casting one value: the Java object Kafka's Cast sees (`Number`, `Boolean`, `String`,
//! `java.util.Date`, `BigDecimal`) and Java's narrowing, parsing and `toString` rules.

use base64::Engine as _;
use connect_api::java_fmt;
use connect_api::{logical, ConnectError, Result, Schema, SchemaType, Value};
use num_bigint::BigInt;

use super::INPUT_TYPES;
use crate::transforms::util::java_class_name;

/// A value as the Java object Kafka's Cast sees.
enum Java {
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Decimal(BigInt, i32),
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
    /// A `java.util.Date` (epoch milliseconds), only when casting a logical value to a string.
    Date(i64),
}

/// Low 64 bits of the integer part of a decimal (`BigDecimal.longValue()`).
fn decimal_long(unscaled: &BigInt, scale: i32) -> i64 {
    let ten = BigInt::from(10);
    let int_part = if scale >= 0 {
        unscaled / ten.pow(scale.unsigned_abs())
    } else {
        unscaled * ten.pow(scale.unsigned_abs())
    };
    let bytes = int_part.to_signed_bytes_le();
    let fill = if int_part.sign() == num_bigint::Sign::Minus {
        0xff
    } else {
        0
    };
    let mut low = [fill; 8];
    for (dst, src) in low.iter_mut().zip(bytes.iter()) {
        *dst = *src;
    }
    i64::from_le_bytes(low)
}

/// Java's `Float.parseFloat` / `Double.parseDouble` grammar (decimal forms, `NaN`, `Infinity`,
/// an `f`/`d` suffix, surrounding whitespace); the text Rust's parser should read.
fn java_float_text(s: &str) -> Option<String> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let (sign, body) = match t.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", t.strip_prefix('+').unwrap_or(t)),
    };
    if body == "NaN" || body == "Infinity" {
        return Some(format!("{sign}{body}"));
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits(int) || !digits(frac) {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !digits(e) {
            return None;
        }
    }
    Some(format!("{sign}{body}"))
}

fn parse_f64(s: &str) -> Option<f64> {
    java_float_text(s)?.replace("Infinity", "inf").parse().ok()
}

fn parse_f32(s: &str) -> Option<f32> {
    java_float_text(s)?.replace("Infinity", "inf").parse().ok()
}

impl Java {
    /// `Number.longValue()` / `Boolean` as 1 or 0; `None` for other types.
    fn long(&self) -> Option<i64> {
        Some(match self {
            Self::Byte(x) => i64::from(*x),
            Self::Short(x) => i64::from(*x),
            Self::Int(x) => i64::from(*x),
            Self::Long(x) => *x,
            Self::Float(x) => *x as i64,
            Self::Double(x) => *x as i64,
            Self::Decimal(u, s) => decimal_long(u, *s),
            Self::Bool(b) => i64::from(*b),
            _ => return None,
        })
    }

    /// `Number.intValue()` (floats saturate, other numbers wrap).
    fn int(&self) -> Option<i32> {
        match self {
            Self::Float(x) => Some(*x as i32),
            Self::Double(x) => Some(*x as i32),
            other => other.long().map(|l| l as i32),
        }
    }

    fn double(&self) -> Option<f64> {
        Some(match self {
            Self::Float(x) => f64::from(*x),
            Self::Double(x) => *x,
            Self::Decimal(u, s) => java_fmt::big_decimal_string(u, *s).parse().ok()?,
            Self::Long(x) => *x as f64,
            other => other.long()? as f64,
        })
    }

    fn float(&self) -> Option<f32> {
        Some(match self {
            Self::Float(x) => *x,
            Self::Double(x) => *x as f32,
            Self::Decimal(u, s) => java_fmt::big_decimal_string(u, *s).parse().ok()?,
            other => other.long()? as f32,
        })
    }

    fn java_class(&self) -> &'static str {
        match self {
            Self::Bytes(_) => "class [B",
            Self::Date(_) => "class java.util.Date",
            Self::Str(_) => "class java.lang.String",
            _ => "class java.lang.Number",
        }
    }

    fn to_java_string(&self) -> String {
        match self {
            Self::Byte(x) => itoa::Buffer::new().format(*x).to_owned(),
            Self::Short(x) => itoa::Buffer::new().format(*x).to_owned(),
            Self::Int(x) => itoa::Buffer::new().format(*x).to_owned(),
            Self::Long(x) => itoa::Buffer::new().format(*x).to_owned(),
            Self::Float(x) => java_fmt::f32_string(*x),
            Self::Double(x) => java_fmt::f64_string(*x),
            Self::Decimal(u, s) => java_fmt::big_decimal_string(u, *s),
            Self::Bool(b) => b.to_string(),
            Self::Str(s) => s.clone(),
            Self::Bytes(b) => base64::engine::general_purpose::STANDARD.encode(b),
            Self::Date(ms) => java_fmt::format_date_millis(*ms),
        }
    }
}

pub(super) fn inferred_type(value: &Value) -> SchemaType {
    match value {
        Value::Null | Value::String(_) => SchemaType::String,
        Value::Boolean(_) => SchemaType::Boolean,
        Value::Int8(_) => SchemaType::Int8,
        Value::Int16(_) => SchemaType::Int16,
        Value::Int32(_) => SchemaType::Int32,
        Value::Int64(_) => SchemaType::Int64,
        Value::Float32(_) => SchemaType::Float32,
        Value::Float64(_) => SchemaType::Float64,
        Value::Bytes(_) => SchemaType::Bytes,
        Value::Array(_) => SchemaType::Array,
        Value::Map(_) => SchemaType::Map,
        Value::Struct(_) => SchemaType::Struct,
    }
}

/// The Java object for a value of `schema` (logical Date/Time/Timestamp become a
/// `java.util.Date` only when cast to a string, as Kafka encodes them otherwise).
fn to_java(schema: Option<&Schema>, value: &Value, target: SchemaType) -> Option<Java> {
    let name = schema.and_then(|s| s.name.as_deref());
    Some(match (name, value) {
        (Some(logical::DATE), Value::Int32(d)) if target == SchemaType::String => {
            Java::Date(i64::from(*d) * java_fmt::MILLIS_PER_DAY)
        }
        (Some(logical::TIME), Value::Int32(ms)) if target == SchemaType::String => {
            Java::Date(i64::from(*ms))
        }
        (Some(logical::TIMESTAMP), Value::Int64(ms)) if target == SchemaType::String => {
            Java::Date(*ms)
        }
        (Some(logical::DECIMAL), Value::Bytes(b)) => {
            let scale = schema
                .and_then(|s| s.parameter(logical::DECIMAL_SCALE))
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            Java::Decimal(BigInt::from_signed_bytes_be(b), scale)
        }
        (_, Value::Int8(x)) => Java::Byte(*x),
        (_, Value::Int16(x)) => Java::Short(*x),
        (_, Value::Int32(x)) => Java::Int(*x),
        (_, Value::Int64(x)) => Java::Long(*x),
        (_, Value::Float32(x)) => Java::Float(*x),
        (_, Value::Float64(x)) => Java::Double(*x),
        (_, Value::Boolean(b)) => Java::Bool(*b),
        (_, Value::String(s)) => Java::Str(s.clone()),
        (_, Value::Bytes(b)) => Java::Bytes(b.clone()),
        _ => return None,
    })
}

/// Kafka's `Cast.castValueToType`.
pub(super) fn cast_value(
    schema: Option<&Schema>,
    value: &Value,
    target: SchemaType,
) -> Result<Value> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let inferred = schema.map_or_else(|| inferred_type(value), |s| s.schema_type);
    if matches!(
        inferred,
        SchemaType::Array | SchemaType::Map | SchemaType::Struct
    ) {
        return Err(ConnectError::data(format!(
            "Cast transformation does not support casting from {}; supported types are {INPUT_TYPES}",
            inferred.name()
        )));
    }
    let java = to_java(schema, value, target).ok_or_else(|| {
        ConnectError::data(format!(
            "Cast transformation was passed a value of type class {} which is not supported by \
             Connect's data API",
            java_class_name(value)
        ))
    })?;
    let unexpected = |j: &Java| {
        ConnectError::data(format!(
            "Unexpected type in Cast transformation: {}",
            j.java_class()
        ))
    };
    let out_of_range = |s: &str| {
        ConnectError::data(format!(
            "Value ({s}) was out of range for requested data type"
        ))
    };
    let cast = match (&java, target) {
        (Java::Str(s), SchemaType::Int8) => Value::Int8(s.parse().map_err(|_| out_of_range(s))?),
        (Java::Str(s), SchemaType::Int16) => Value::Int16(s.parse().map_err(|_| out_of_range(s))?),
        (Java::Str(s), SchemaType::Int32) => Value::Int32(s.parse().map_err(|_| out_of_range(s))?),
        (Java::Str(s), SchemaType::Int64) => Value::Int64(s.parse().map_err(|_| out_of_range(s))?),
        (Java::Str(s), SchemaType::Float32) => {
            Value::Float32(parse_f32(s).ok_or_else(|| out_of_range(s))?)
        }
        (Java::Str(s), SchemaType::Float64) => {
            Value::Float64(parse_f64(s).ok_or_else(|| out_of_range(s))?)
        }
        (Java::Str(s), SchemaType::Boolean) => Value::Boolean(s.eq_ignore_ascii_case("true")),
        (j, SchemaType::String) => Value::String(j.to_java_string()),
        (j, SchemaType::Int8) => Value::Int8(j.int().ok_or_else(|| unexpected(j))? as i8),
        (j, SchemaType::Int16) => Value::Int16(j.int().ok_or_else(|| unexpected(j))? as i16),
        (j, SchemaType::Int32) => Value::Int32(j.int().ok_or_else(|| unexpected(j))?),
        (j, SchemaType::Int64) => Value::Int64(j.long().ok_or_else(|| unexpected(j))?),
        (j, SchemaType::Float32) => Value::Float32(j.float().ok_or_else(|| unexpected(j))?),
        (j, SchemaType::Float64) => Value::Float64(j.double().ok_or_else(|| unexpected(j))?),
        (j, SchemaType::Boolean) => Value::Boolean(j.long().ok_or_else(|| unexpected(j))? != 0),
        (_, t) => {
            return Err(ConnectError::data(format!(
                "{} is not supported in the Cast transformation.",
                t.name()
            )))
        }
    };
    Ok(cast)
}
