//! `org.apache.kafka.connect.transforms.Cast$Key` / `$Value`: casts the whole key/value or some
//! top-level fields to int8..int64, float32, float64, boolean or string, with Java's narrowing
//! and parsing rules (bytes cast to base64 strings; Date/Time/Timestamp to their integer form or
//! their ISO-8601 text; Decimal as a `BigDecimal`).

use base64::Engine as _;
use connect_api::config_def::Default as Def;
use connect_api::{
    logical, ConfigDef, ConfigKey, ConfigMap, ConfigType, ConfigValue, ConnectError, ConnectRecord,
    Importance, RecordContext, Result, Schema, SchemaBuilder, SchemaRef, SchemaType, Struct,
    Transformation, TransformationPlugin, Value,
};
use num_bigint::BigInt;

use crate::transforms::config::parse_checked;
use crate::transforms::util::{
    check_required, copy_schema_basics, field_value, into_map, java_class_name, require_struct,
    SchemaCache, Side,
};
use connect_api::java_fmt;

const PURPOSE: &str = "cast types";

const INPUT_TYPES: &str = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]";
const OUTPUT_TYPES: &str = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]";

/// The Cast transform, for the key or the value.
#[derive(Debug)]
pub struct Cast {
    side: Side,
    /// Field casts in spec order (a later entry for the same field wins).
    casts: Vec<(String, SchemaType)>,
    whole: Option<SchemaType>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl Cast {
    fn new(side: Side) -> Self {
        Self {
            side,
            casts: Vec::new(),
            whole: None,
            replace_null_with_default: true,
            cache: SchemaCache::default(),
        }
    }

    fn cast_for(&self, field: &str) -> Option<SchemaType> {
        self.casts
            .iter()
            .rev()
            .find(|(f, _)| f == field)
            .map(|(_, t)| *t)
    }
}

/// Kafka's `Schema.Type.valueOf` of a spec type name.
fn schema_type(name: &str) -> Option<SchemaType> {
    use SchemaType::*;
    let t = match name.to_uppercase().as_str() {
        "INT8" => Int8,
        "INT16" => Int16,
        "INT32" => Int32,
        "INT64" => Int64,
        "FLOAT32" => Float32,
        "FLOAT64" => Float64,
        "BOOLEAN" => Boolean,
        "STRING" => String,
        "BYTES" => Bytes,
        "ARRAY" => Array,
        "MAP" => Map,
        "STRUCT" => Struct,
        _ => return None,
    };
    Some(t)
}

fn output_type(name: &str) -> std::result::Result<SchemaType, String> {
    let t = schema_type(name).ok_or_else(|| {
        format!(
            "Invalid value java.lang.IllegalArgumentException: No enum constant \
             org.apache.kafka.connect.data.Schema.Type.{} for configuration Invalid type found \
             in casting spec: {name}",
            name.to_uppercase()
        )
    })?;
    if matches!(
        t,
        SchemaType::Bytes | SchemaType::Array | SchemaType::Map | SchemaType::Struct
    ) {
        return Err(format!(
            "Cast transformation does not support casting to {}; supported types are {OUTPUT_TYPES}",
            t.name()
        ));
    }
    Ok(t)
}

/// Java's `String.split(":")`: trailing empty strings removed (an empty input stays `[""]`).
fn java_split_colon(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return vec![""];
    }
    let mut parts: Vec<&str> = s.split(':').collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

type Spec = (Vec<(String, SchemaType)>, Option<SchemaType>);

/// Parses `spec` as Kafka's `Cast.parseFieldTypes`; the error is Kafka's complete message.
fn parse_spec(mappings: &[String]) -> std::result::Result<Spec, String> {
    if mappings.is_empty() {
        return Err("Must specify at least one field to cast.".to_owned());
    }
    let mut casts = Vec::new();
    let mut whole = None;
    for mapping in mappings {
        let parts = java_split_colon(mapping);
        match parts.as_slice() {
            [] => return Err("Index 1 out of bounds for length 0".to_owned()),
            [t] => whole = Some(output_type(t.trim())?),
            [field, t] => casts.push((field.trim().to_owned(), output_type(t.trim())?)),
            _ => {
                return Err(format!(
                "Invalid value [{}] for configuration renames: Invalid rename mapping: {mapping}",
                mappings.join(", ")
            ))
            }
        }
    }
    if whole.is_some() && mappings.len() > 1 {
        return Err(
            "Cast transformations that specify a type to cast the entire value to may \
                    only specify a single cast in their spec"
                .to_owned(),
        );
    }
    Ok((casts, whole))
}

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

fn inferred_type(value: &Value) -> SchemaType {
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
fn cast_value(schema: Option<&Schema>, value: &Value, target: SchemaType) -> Result<Value> {
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

impl Cast {
    fn build_schema(&self, schema: &SchemaRef) -> Result<SchemaRef> {
        let mut builder = match self.whole {
            Some(t) => copy_schema_basics(schema, SchemaBuilder::new(t)),
            None => {
                // Kafka lists the schema's fields first (`Schema.fields()`), which fails on a
                // non-struct schema before the value is looked at.
                if schema.schema_type != connect_api::SchemaType::Struct {
                    return Err(connect_api::ConnectError::data(
                        "Cannot list fields on non-struct type",
                    ));
                }
                let mut b = copy_schema_basics(schema, SchemaBuilder::struct_());
                for field in &schema.fields {
                    let field_schema = match self.cast_for(&field.name) {
                        Some(t) => {
                            let mut fb = SchemaBuilder::new(t);
                            if field.schema.optional {
                                fb = fb.optional();
                            }
                            if let Some(d) = &field.schema.default {
                                fb = fb.default_value(cast_value(Some(&field.schema), d, t)?);
                            }
                            fb.build()
                        }
                        None => field.schema.clone(),
                    };
                    b = b.field(field.name.clone(), field_schema);
                }
                b
            }
        };
        if schema.optional {
            builder = builder.optional();
        }
        if let Some(d) = &schema.default {
            let t = self.whole.unwrap_or(SchemaType::Struct);
            builder = builder.default_value(cast_value(Some(schema), d, t)?);
        }
        Ok(builder.build())
    }

    fn apply_with_schema(&mut self, schema: SchemaRef, value: Value) -> Result<(SchemaRef, Value)> {
        let updated = {
            let mut cache = std::mem::take(&mut self.cache);
            let r = cache.get_or_build(&schema, |s| self.build_schema(s));
            self.cache = cache;
            r?
        };
        if let Some(t) = self.whole {
            let v = cast_value(Some(&schema), &value, t)?;
            return Ok((updated, v));
        }
        let s = require_struct(&value, Some(&schema), PURPOSE)?;
        let mut values = Vec::with_capacity(s.schema().fields.len());
        for field in &s.schema().fields {
            let orig = field_value(s, field, self.replace_null_with_default);
            let v = match self.cast_for(&field.name) {
                Some(t) => cast_value(Some(&field.schema), &orig, t)?,
                None => orig.clone(),
            };
            if let Some(out_field) = updated.field(&field.name) {
                check_required(out_field, &v)?;
            }
            values.push(v);
        }
        let out = Struct::from_values(updated.clone(), values)?;
        Ok((updated, Value::Struct(out)))
    }

    fn apply_schemaless(&self, value: Value) -> Result<Value> {
        if let Some(t) = self.whole {
            return cast_value(None, &value, t);
        }
        let mut updated = into_map(value, PURPOSE)?;
        for (field, t) in &self.casts {
            let pos = updated.iter().position(|(k, _)| k.as_str() == Some(field));
            let orig = pos.map_or(&Value::Null, |i| &updated[i].1);
            let v = cast_value(None, orig, *t)?;
            match pos {
                Some(i) => updated[i].1 = v,
                None => updated.push((Value::String(field.clone()), v)),
            }
        }
        Ok(Value::Map(updated))
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "spec",
            ConfigType::List,
            Def::Required,
            Importance::High,
            "List of fields and the type to cast them to of the form field1:type,field2:type to \
             cast fields of Maps or Structs. A single type to cast the entire value. Valid types \
             are int8, int16, int32, int64, float32, float64, boolean, and string. Note that \
             binary fields can only be cast to string.",
        ))
        .define(ConfigKey::new(
            "replace.null.with.default",
            ConfigType::Boolean,
            Def::Value("true"),
            Importance::Medium,
            "Whether to replace fields that have a default value and that are null to the \
             default value. When set to true, the default value is used, otherwise null is used.",
        ))
}

impl Transformation for Cast {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse_checked(&config_def(), props, |key, raw| {
            if key != "spec" {
                return None;
            }
            match connect_api::config_def::parse_value(key, ConfigType::List, raw) {
                Ok(ConfigValue::List(list)) => parse_spec(&list).err(),
                _ => None,
            }
        })?;
        let (casts, whole) =
            parse_spec(values.list("spec")).map_err(|m| ConnectError::config("spec", m))?;
        self.casts = casts;
        self.whole = whole;
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        Ok(self.apply_in_place(&mut record, ctx)?.then_some(record))
    }

    fn apply_in_place(&mut self, record: &mut ConnectRecord, _ctx: &RecordContext) -> Result<bool> {
        if self.side.value(record).is_null() {
            return Ok(true);
        }
        let (schema, value) = self.side.take(record);
        let (schema, value) = match schema {
            None => (None, self.apply_schemaless(value)?),
            Some(schema) => {
                let (s, v) = self.apply_with_schema(schema, value)?;
                (Some(s), v)
            }
        };
        self.side.set(record, schema, value);
        Ok(true)
    }
}

/// The plugin descriptor of `Cast$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.Cast$Key",
    config_def,
    new: || Box::new(Cast::new(Side::Key)),
};

/// The plugin descriptor of `Cast$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.Cast$Value",
    config_def,
    new: || Box::new(Cast::new(Side::Value)),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(plugin: &TransformationPlugin, spec: &str) -> Result<Box<dyn Transformation>> {
        configured_with(plugin, &[("spec", spec)])
    }

    fn configured_with(
        plugin: &TransformationPlugin,
        pairs: &[(&str, &str)],
    ) -> Result<Box<dyn Transformation>> {
        let mut t = (plugin.new)();
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        t.configure(&props).map(|()| t)
    }

    fn apply_value(
        t: &mut Box<dyn Transformation>,
        schema: Option<SchemaRef>,
        value: Value,
    ) -> Result<(Option<SchemaRef>, Value)> {
        let record = ConnectRecord {
            value_schema: schema,
            value,
            ..ConnectRecord::default()
        };
        let out = t.apply(record, &RecordContext::source())?.unwrap();
        Ok((out.value_schema, out.value))
    }

    fn decimal_bytes(unscaled: i64) -> Value {
        Value::Bytes(BigInt::from(unscaled).to_signed_bytes_be())
    }

    #[test]
    fn whole_value_casts_without_schema() {
        let ok = |v: Value| -> std::result::Result<Value, &'static str> { Ok(v) };
        let cases: Vec<(&str, Value, std::result::Result<Value, &str>)> =
            vec![
            ("int8", Value::Int32(300), ok(Value::Int8(44))),
            ("int16", Value::Int64(70_000), ok(Value::Int16(4464))),
            ("int32", "42".into(), ok(Value::Int32(42))),
            ("int32", "+7".into(), ok(Value::Int32(7))),
            ("int64", Value::Float64(-2.7), ok(Value::Int64(-2))),
            ("int32", Value::Float64(1e20), ok(Value::Int32(i32::MAX))),
            ("int8", Value::Float32(300.0), ok(Value::Int8(44))),
            ("float32", "1.5f".into(), ok(Value::Float32(1.5))),
            ("float64", " 2e3 ".into(), ok(Value::Float64(2000.0))),
            ("float64", "-Infinity".into(), ok(Value::Float64(f64::NEG_INFINITY))),
            ("float64", Value::Boolean(true), ok(Value::Float64(1.0))),
            ("boolean", "TRUE".into(), ok(Value::Boolean(true))),
            ("boolean", "yes".into(), ok(Value::Boolean(false))),
            ("boolean", Value::Float64(0.5), ok(Value::Boolean(false))),
            ("boolean", Value::Int8(-1), ok(Value::Boolean(true))),
            ("string", Value::Bytes(vec![1, 2, 3]), ok("AQID".into())),
            ("string", Value::Float64(1e10), ok("1.0E10".into())),
            ("string", Value::Float32(0.1), ok("0.1".into())),
            ("STRING", Value::Boolean(false), ok("false".into())),
            ("string", Value::Int16(-5), ok("-5".into())),
            (
                "int32",
                "abc".into(),
                Err("Value (abc) was out of range for requested data type"),
            ),
            (
                "int8",
                "128".into(),
                Err("Value (128) was out of range for requested data type"),
            ),
            (
                "float64",
                "1.5x".into(),
                Err("Value (1.5x) was out of range for requested data type"),
            ),
            (
                "int32",
                Value::Bytes(vec![1]),
                Err("Unexpected type in Cast transformation: class [B"),
            ),
            (
                "int32",
                Value::Map(vec![]),
                Err("Cast transformation does not support casting from MAP; supported types are \
                     [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"),
            ),
            (
                "string",
                Value::Array(vec![]),
                Err("Cast transformation does not support casting from ARRAY; supported types are \
                     [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"),
            ),
        ];
        for (spec, input, expected) in cases {
            let mut t = configured(&VALUE_PLUGIN, spec).unwrap();
            let got = apply_value(&mut t, None, input.clone());
            match (got, expected) {
                (Ok((schema, v)), Ok(e)) => {
                    assert!(schema.is_none());
                    assert_eq!(v, e, "{spec} {input:?}");
                }
                (Err(err), Err(e)) => assert_eq!(err.to_string(), e, "{spec} {input:?}"),
                (got, e) => panic!("{spec} {input:?}: got {got:?}, expected {e:?}"),
            }
        }
    }

    #[test]
    fn whole_value_casts_with_schema_keep_name_and_optionality() {
        let ts = logical::timestamp().optional().build();
        let date = logical::date().build();
        let time = logical::time().build();
        let dec = logical::decimal(2).build();
        let cases: Vec<(&str, SchemaRef, Value, SchemaType, Value)> = vec![
            (
                "string",
                ts.clone(),
                Value::Int64(86_401_000),
                SchemaType::String,
                "1970-01-02T00:00:01.000Z".into(),
            ),
            (
                "int64",
                ts.clone(),
                Value::Int64(5),
                SchemaType::Int64,
                Value::Int64(5),
            ),
            (
                "int32",
                date.clone(),
                Value::Int32(18_131),
                SchemaType::Int32,
                Value::Int32(18_131),
            ),
            (
                "string",
                date,
                Value::Int32(18_131),
                SchemaType::String,
                "2019-08-23".into(),
            ),
            (
                "string",
                time,
                Value::Int32(3_723_004),
                SchemaType::String,
                "01:02:03.004Z".into(),
            ),
            (
                "string",
                dec.clone(),
                decimal_bytes(12_345),
                SchemaType::String,
                "123.45".into(),
            ),
            (
                "int32",
                dec.clone(),
                decimal_bytes(-12_399),
                SchemaType::Int32,
                Value::Int32(-123),
            ),
            (
                "float64",
                dec.clone(),
                decimal_bytes(12_345),
                SchemaType::Float64,
                Value::Float64(123.45),
            ),
            (
                "boolean",
                dec,
                decimal_bytes(50),
                SchemaType::Boolean,
                Value::Boolean(false),
            ),
            (
                "int16",
                Schema::required(SchemaType::String),
                "-12".into(),
                SchemaType::Int16,
                Value::Int16(-12),
            ),
        ];
        for (spec, schema, input, out_type, expected) in cases {
            let mut t = configured(&VALUE_PLUGIN, spec).unwrap();
            let (out_schema, v) = apply_value(&mut t, Some(schema.clone()), input).unwrap();
            let out_schema = out_schema.unwrap();
            assert_eq!(v, expected, "{spec} {:?}", schema.name);
            assert_eq!(out_schema.schema_type, out_type);
            assert_eq!(
                out_schema.name, schema.name,
                "copySchemaBasics keeps the name"
            );
            assert_eq!(out_schema.optional, schema.optional);
        }
    }

    fn record_schema() -> SchemaRef {
        SchemaBuilder::struct_()
            .name("rec")
            .field(
                "a",
                SchemaBuilder::new(SchemaType::Int32)
                    .optional()
                    .default_value(Value::Int32(5))
                    .build(),
            )
            .field("b", Schema::required(SchemaType::String))
            .field("c", Schema::optional(SchemaType::Bytes))
            .field("d", Schema::optional(SchemaType::Float64))
            .build()
    }

    #[test]
    fn struct_fields_are_cast_and_others_kept() {
        let schema = record_schema();
        for (replace, a) in [("true", Value::from("5")), ("false", Value::Null)] {
            let mut t = configured_with(
                &VALUE_PLUGIN,
                &[
                    ("spec", "a:string, b:int64, c:string, zz:int8"),
                    ("replace.null.with.default", replace),
                ],
            )
            .unwrap();
            let value = Struct::new(schema.clone())
                .put("b", "7")
                .unwrap()
                .put("c", vec![0xffu8])
                .unwrap()
                .put("d", 1.5)
                .unwrap();
            let (out_schema, out) =
                apply_value(&mut t, Some(schema.clone()), Value::Struct(value)).unwrap();
            let out_schema = out_schema.unwrap();
            assert_eq!(out_schema.name.as_deref(), Some("rec"));
            let a_schema = &out_schema.field("a").unwrap().schema;
            assert_eq!(a_schema.schema_type, SchemaType::String);
            assert!(a_schema.optional);
            assert_eq!(a_schema.default, Some(Value::from("5")));
            assert_eq!(
                out_schema.field("b").unwrap().schema,
                Schema::required(SchemaType::Int64)
            );
            assert_eq!(
                out_schema.field("d").unwrap().schema,
                schema.field("d").unwrap().schema
            );
            let Value::Struct(s) = out else {
                panic!("not a struct")
            };
            assert_eq!(
                s.values(),
                &[a, Value::Int64(7), "/w==".into(), Value::Float64(1.5)],
                "replace.null.with.default={replace}"
            );
        }
    }

    #[test]
    fn struct_errors_match_kafka() {
        let schema = record_schema();
        let mut t = configured(&VALUE_PLUGIN, "b:int32").unwrap();
        let e = apply_value(
            &mut t,
            Some(schema.clone()),
            Value::Struct(Struct::new(schema.clone())),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid value: null used for required field: \"b\", schema type: INT32"
        );
        let e = apply_value(&mut t, Some(schema.clone()), "x".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Only Struct objects supported for [cast types], found: java.lang.String"
        );
        let e = apply_value(&mut t, None, "x".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Only Map objects supported in absence of schema for [cast types], found: java.lang.String"
        );
    }

    #[test]
    fn schemaless_map_fields_are_cast_and_missing_ones_added_as_null() {
        let mut t = configured(&KEY_PLUGIN, "a:boolean,z:int8").unwrap();
        let record = ConnectRecord {
            key: Value::Map(vec![
                ("a".into(), Value::Int32(1)),
                ("b".into(), "x".into()),
            ]),
            ..ConnectRecord::default()
        };
        let out = t.apply(record, &RecordContext::source()).unwrap().unwrap();
        assert_eq!(
            out.key,
            Value::Map(vec![
                ("a".into(), Value::Boolean(true)),
                ("b".into(), "x".into()),
                ("z".into(), Value::Null),
            ])
        );
    }

    #[test]
    fn null_values_pass_unchanged() {
        let mut t = configured(&VALUE_PLUGIN, "int8").unwrap();
        let schema = Schema::optional(SchemaType::String);
        let (s, v) = apply_value(&mut t, Some(schema.clone()), Value::Null).unwrap();
        assert_eq!((s, v), (Some(schema), Value::Null));
    }

    #[test]
    fn spec_errors_match_kafka() {
        let cases = [
            ("", "Must specify at least one field to cast."),
            (
                "a:foo",
                "Invalid value java.lang.IllegalArgumentException: No enum constant \
                 org.apache.kafka.connect.data.Schema.Type.FOO for configuration Invalid type \
                 found in casting spec: foo",
            ),
            ("a:", "Schema.Type.A for configuration Invalid type found in casting spec: a"),
            ("::", "Index 1 out of bounds for length 0"),
            (
                "a:bytes",
                "Cast transformation does not support casting to BYTES; supported types are \
                 [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]",
            ),
            (
                "a:b:c,d:int8",
                "Invalid value [a:b:c, d:int8] for configuration renames: Invalid rename mapping: a:b:c",
            ),
            (
                "int8,a:int16",
                "Cast transformations that specify a type to cast the entire value to may only \
                 specify a single cast in their spec",
            ),
        ];
        for (spec, message) in cases {
            let e = configured(&VALUE_PLUGIN, spec).err().unwrap().to_string();
            assert!(e.ends_with(message), "{spec}: {e}");
        }
        let e = configured_with(&VALUE_PLUGIN, &[])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("Missing required configuration \"spec\""), "{e}");
        let e = configured_with(
            &VALUE_PLUGIN,
            &[("spec", "a:foo"), ("replace.null.with.default", "maybe")],
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("Invalid type found in casting spec: foo"),
            "spec is checked first: {e}"
        );
    }
}
