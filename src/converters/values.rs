//! Kafka's `org.apache.kafka.connect.data.Values` string forms, as used by
//! `SimpleHeaderConverter`: [`convert_to_string`] and [`parse_string`].
//!
//! Differences from Java, all forced by the raw data model or chosen for determinism:
//! * Dates are formatted and parsed in UTC (Java uses the JVM default time zone).
//! * Logical values are recognised by their schema (Java looks at the runtime class), so a
//!   Date/Time/Timestamp/Decimal value must come with its schema to be rendered as such.
//! * Parsed Date values are whole days and parsed Time values are milliseconds, as the raw
//!   representations require; mixed-scale decimals in one array are rescaled to the common
//!   scale (or the input is read as a plain string when that is not exact).
//! * Only ASCII digits count as digits.

use std::sync::Arc;

use base64::Engine as _;
use connect_api::{logical, Schema, SchemaBuilder, SchemaRef, SchemaType, Value};
use num_bigint::BigInt;

use super::java_fmt::{self, MILLIS_PER_DAY};
use super::json::{decimal_scale, rescale};

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

/// A parsed value with its inferred schema (`None` is Java's null `SchemaAndValue`).
pub type Parsed = Option<(SchemaRef, Value)>;

/// Parses a string as `Values.parseString` does. `None` for the literal `null`.
///
/// The empty string is a STRING; `true`/`false` are BOOLEAN; integral numbers take the smallest
/// of INT8..INT64, other finite numbers FLOAT32 or FLOAT64, anything larger a Decimal; ISO-8601
/// `yyyy-MM-dd`, `HH:mm:ss.SSS'Z'` and `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` literals are Date, Time
/// and Timestamp (UTC); `[…]` and `{k:v,…}` are arrays and maps with a common element schema
/// when there is one; everything else is the original STRING.
///
/// # Errors
/// Never in practice: Kafka's parser falls back to a string for everything it cannot read.
/// The `Err` case mirrors `SimpleHeaderConverter`'s defensive fallback.
pub fn parse_string(value: &str) -> Result<Parsed, String> {
    if value.is_empty() {
        return Ok(Some((
            Schema::required(SchemaType::String),
            Value::String(String::new()),
        )));
    }
    let mut p = ValueParser {
        t: Tokenizer::new(value),
    };
    p.parse(false)
}

/// Java `String.trim()`: strips chars <= U+0020.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

fn is_blank(s: &str) -> bool {
    java_trim(s).is_empty()
}

/// Port of `Values.Parser`: splits on unescaped `: , { } [ ] "`, keeping delimiters as tokens.
struct Tokenizer<'a> {
    original: &'a str,
    index: usize,
    next_token: Option<&'a str>,
    previous_token: Option<&'a str>,
}

impl<'a> Tokenizer<'a> {
    fn new(original: &'a str) -> Self {
        Self {
            original,
            index: 0,
            next_token: None,
            previous_token: None,
        }
    }

    fn position(&self) -> usize {
        self.index
    }

    fn mark(&self) -> usize {
        self.index - self.next_token.map_or(0, str::len)
    }

    fn rewind_to(&mut self, position: usize) {
        self.index = position;
        self.next_token = None;
        self.previous_token = None;
    }

    fn can_consume_next_token(&self) -> bool {
        self.index < self.original.len()
    }

    fn has_next(&self) -> bool {
        self.next_token.is_some() || self.can_consume_next_token()
    }

    fn next(&mut self) -> &'a str {
        let t = match self.next_token.take() {
            Some(t) => t,
            None => self.consume_next_token(),
        };
        self.previous_token = Some(t);
        t
    }

    fn next_n(&mut self, n: usize) -> Option<&'a str> {
        let current = self.mark();
        let start = self.mark();
        for _ in 0..n {
            if !self.has_next() {
                self.rewind_to(start);
                return None;
            }
            self.next();
        }
        self.original.get(current..self.position())
    }

    fn consume_next_token(&mut self) -> &'a str {
        let bytes = self.original.as_bytes();
        let mut escaped = false;
        let start = self.index;
        while self.index < bytes.len() {
            match bytes[self.index] {
                b'\\' => escaped = !escaped,
                b':' | b',' | b'{' | b'}' | b'[' | b']' | b'"' => {
                    if !escaped {
                        if start < self.index {
                            return &self.original[start..self.index];
                        }
                        self.index += 1;
                        return &self.original[start..start + 1];
                    }
                    escaped = false;
                }
                _ => escaped = false,
            }
            self.index += 1;
        }
        &self.original[start..self.index]
    }

    fn previous(&self) -> Option<&'a str> {
        self.previous_token
    }

    fn is_next(&mut self, expected: &str) -> bool {
        if self.next_token.is_none() {
            if !self.has_next() {
                return false;
            }
            self.next_token = Some(self.consume_next_token());
        }
        while self.next_token.is_some_and(is_blank) && self.can_consume_next_token() {
            self.next_token = Some(self.consume_next_token());
        }
        self.next_token.is_some_and(|t| java_trim(t) == expected)
    }

    fn can_consume(&mut self, expected: &str) -> bool {
        if self.is_next(expected) {
            self.next_token = None;
            true
        } else {
            false
        }
    }
}

/// Port of `Values.ValueParser`. `Err` is Kafka's `DataException`.
struct ValueParser<'a> {
    t: Tokenizer<'a>,
}

/// An element with its own schema (`None` for null), before alignment to a common schema.
type Elem = Option<(SchemaRef, Value)>;

impl ValueParser<'_> {
    fn can_parse_single_token_literal(&mut self, embedded: bool, literal: &str) -> bool {
        let start = self.t.mark();
        if self.t.can_consume(literal) && (embedded || !self.t.has_next()) {
            return true;
        }
        self.t.rewind_to(start);
        false
    }

    fn parse(&mut self, embedded: bool) -> Result<Parsed, String> {
        if !self.t.has_next() {
            return Ok(None);
        } else if embedded && self.t.can_consume("\"") {
            return Ok(Some(self.parse_quoted_string()));
        } else if self.can_parse_single_token_literal(embedded, "null") {
            return Ok(None);
        } else if self.can_parse_single_token_literal(embedded, "true") {
            return Ok(Some((
                Schema::required(SchemaType::Boolean),
                Value::Boolean(true),
            )));
        } else if self.can_parse_single_token_literal(embedded, "false") {
            return Ok(Some((
                Schema::required(SchemaType::Boolean),
                Value::Boolean(false),
            )));
        }
        let start = self.t.mark();
        let attempt = if self.t.can_consume("[") {
            Some(self.parse_array())
        } else if self.t.can_consume("{") {
            Some(self.parse_map())
        } else {
            None
        };
        match attempt {
            Some(Ok(v)) => return Ok(v),
            Some(Err(_)) => self.t.rewind_to(start),
            None => {}
        }
        let token = self.t.next();
        if is_blank(token) {
            Ok(Some((
                Schema::required(SchemaType::String),
                Value::String(token.to_owned()),
            )))
        } else {
            self.parse_next_token(embedded, java_trim(token))
        }
    }

    fn parse_next_token(&mut self, embedded: bool, token: &str) -> Result<Parsed, String> {
        let first = token.as_bytes().first().copied().unwrap_or(b' ');
        let first_is_digit = first.is_ascii_digit();
        if first_is_digit {
            if let Some(t) = self.parse_multiple_tokens_as_temporal(token) {
                return Ok(Some(t));
            }
        }
        if first_is_digit || first == b'+' || first == b'-' {
            if let Some(n) = parse_as_number(token) {
                return Ok(Some(n));
            }
        }
        if embedded {
            return Err("Failed to parse embedded value".into());
        }
        Ok(Some((
            Schema::required(SchemaType::String),
            Value::String(self.t.original.to_owned()),
        )))
    }

    fn parse_quoted_string(&mut self) -> (SchemaRef, Value) {
        let mut content = String::new();
        while self.t.has_next() {
            if self.t.can_consume("\"") {
                break;
            }
            content.push_str(self.t.next());
        }
        if let Some(t) = parse_as_temporal(&content) {
            return t;
        }
        (Schema::required(SchemaType::String), Value::String(content))
    }

    fn parse_multiple_tokens_as_temporal(&mut self, token: &str) -> Option<(SchemaRef, Value)> {
        let position = self.t.mark();
        if let Some(remainder) = self.t.next_n(4) {
            let joined = format!("{token}{remainder}");
            if let Some(t) = parse_as_temporal(&joined) {
                return Some(t);
            }
        }
        self.t.rewind_to(position);
        parse_as_temporal(token)
    }

    fn parse_array(&mut self) -> Result<Parsed, String> {
        let mut elems: Vec<Elem> = Vec::new();
        let mut merger = SchemaMerger::default();
        while self.t.has_next() {
            if self.t.can_consume("]") {
                let schema = match merger.common {
                    Some(common) => {
                        let values = elems
                            .iter()
                            .map(|e| convert_to(&common, e))
                            .collect::<Result<Vec<_>, _>>()?;
                        return Ok(Some((
                            SchemaBuilder::array(common).build(),
                            Value::Array(values),
                        )));
                    }
                    None => Arc::new(Schema::of(SchemaType::Array, false)),
                };
                let values = elems
                    .into_iter()
                    .map(|e| e.map_or(Value::Null, |(_, v)| v))
                    .collect();
                return Ok(Some((schema, Value::Array(values))));
            }
            if self.t.can_consume(",") {
                return Err(format!(
                    "Unable to parse an empty array element: {}",
                    self.t.original
                ));
            }
            let element = self.parse(true)?;
            merger.merge(element.as_ref());
            elems.push(element);
            let current = self.t.mark();
            if self.t.can_consume("]") {
                self.t.rewind_to(current);
            } else if !self.t.can_consume(",") {
                return Err("Array elements missing ',' delimiter".into());
            }
        }
        if self.t.previous() == Some(",") {
            return Err(format!(
                "Array is missing element after ',': {}",
                self.t.original
            ));
        }
        Err(format!(
            "Array is missing terminating ']': {}",
            self.t.original
        ))
    }

    fn parse_map(&mut self) -> Result<Parsed, String> {
        let mut entries: Vec<(Elem, Elem)> = Vec::new();
        let mut key_merger = SchemaMerger::default();
        let mut value_merger = SchemaMerger::default();
        while self.t.has_next() {
            if self.t.can_consume("}") {
                let (schema, pairs) = match (key_merger.common, value_merger.common) {
                    (Some(ks), Some(vs)) => {
                        let mut pairs = Vec::with_capacity(entries.len());
                        for (k, v) in &entries {
                            put(&mut pairs, convert_to(&ks, k)?, convert_to(&vs, v)?);
                        }
                        (SchemaBuilder::map(ks, vs).build(), pairs)
                    }
                    (Some(ks), None) => {
                        let mut pairs = Vec::with_capacity(entries.len());
                        for (k, v) in &entries {
                            let v = v.as_ref().map_or(Value::Null, |(_, v)| v.clone());
                            put(&mut pairs, convert_to(&ks, k)?, v);
                        }
                        let mut s = Schema::of(SchemaType::Map, false);
                        s.key_schema = Some(ks);
                        (Arc::new(s), pairs)
                    }
                    _ => {
                        let pairs = entries
                            .into_iter()
                            .map(|(k, v)| {
                                (
                                    k.map_or(Value::Null, |(_, v)| v),
                                    v.map_or(Value::Null, |(_, v)| v),
                                )
                            })
                            .collect();
                        (Arc::new(Schema::of(SchemaType::Map, false)), pairs)
                    }
                };
                return Ok(Some((schema, Value::Map(pairs))));
            }
            if self.t.can_consume(",") {
                return Err(format!(
                    "Unable to parse a map entry with no key or value: {}",
                    self.t.original
                ));
            }
            let key = self.parse(true)?;
            match &key {
                None | Some((_, Value::Null)) => {
                    return Err(format!(
                        "Map entry may not have a null key: {}",
                        self.t.original
                    ))
                }
                Some(_) => {
                    if !self.t.can_consume(":") {
                        return Err(format!(
                            "Map entry is missing ':' at {} in {}",
                            self.t.position(),
                            self.t.original
                        ));
                    }
                }
            }
            let value = self.parse(true)?;
            key_merger.merge(key.as_ref());
            value_merger.merge(value.as_ref());
            // LinkedHashMap.put: an equal key keeps its position and takes the new value.
            let key_value = key.as_ref().map(|(_, v)| v);
            if let Some(slot) = entries
                .iter_mut()
                .find(|(k, _)| k.as_ref().map(|(_, v)| v) == key_value)
            {
                slot.1 = value;
            } else {
                entries.push((key, value));
            }
            self.t.can_consume(",");
        }
        if self.t.previous() == Some(",") {
            return Err(format!(
                "Map is missing element after ',': {}",
                self.t.original
            ));
        }
        Err(format!(
            "Map is missing terminating '}}': {}",
            self.t.original
        ))
    }
}

/// `LinkedHashMap.put` on a pair list.
fn put(pairs: &mut Vec<(Value, Value)>, k: Value, v: Value) {
    if let Some(slot) = pairs.iter_mut().find(|(x, _)| *x == k) {
        slot.1 = v;
    } else {
        pairs.push((k, v));
    }
}

/// Port of `Values.SchemaMerger`.
#[derive(Default)]
struct SchemaMerger {
    common: Option<SchemaRef>,
    incompatible: bool,
}

impl SchemaMerger {
    fn merge(&mut self, latest: Option<&(SchemaRef, Value)>) {
        let Some((schema, _)) = latest else {
            return;
        };
        if self.incompatible {
            return;
        }
        self.common = match self.common.take() {
            None => Some(schema.clone()),
            Some(prev) => {
                let merged = merge_schemas(&prev, schema);
                self.incompatible = merged.is_none();
                merged
            }
        };
    }
}

fn is_numeric(t: SchemaType) -> bool {
    matches!(
        t,
        SchemaType::Int8
            | SchemaType::Int16
            | SchemaType::Int32
            | SchemaType::Int64
            | SchemaType::Float32
            | SchemaType::Float64
    )
}

fn numeric_rank(t: SchemaType) -> u8 {
    match t {
        SchemaType::Int8 => 0,
        SchemaType::Int16 => 1,
        SchemaType::Int32 => 2,
        SchemaType::Int64 => 3,
        SchemaType::Float32 => 4,
        _ => 5,
    }
}

/// Port of `Values.mergeSchemas`: numeric types widen; equal types keep the later schema.
fn merge_schemas(previous: &SchemaRef, new: &SchemaRef) -> Option<SchemaRef> {
    let (pt, nt) = (previous.schema_type, new.schema_type);
    if pt != nt {
        if !is_numeric(pt) || !is_numeric(nt) {
            return None;
        }
        return Some(if numeric_rank(nt) > numeric_rank(pt) {
            new.clone()
        } else {
            previous.clone()
        });
    }
    if previous.optional == new.optional {
        return Some(if previous.optional {
            previous.clone()
        } else {
            new.clone()
        });
    }
    (previous == new).then(|| previous.clone())
}

fn temporal_name(schema: &Schema) -> Option<&'static str> {
    match (schema.name.as_deref(), schema.schema_type) {
        (Some(logical::DATE), SchemaType::Int32) => Some(logical::DATE),
        (Some(logical::TIME), SchemaType::Int32) => Some(logical::TIME),
        (Some(logical::TIMESTAMP), SchemaType::Int64) => Some(logical::TIMESTAMP),
        _ => None,
    }
}

/// The epoch milliseconds of a temporal element (what its `java.util.Date` holds).
fn temporal_millis(from: &Schema, value: &Value) -> Option<i64> {
    match (temporal_name(from)?, value) {
        (logical::DATE, Value::Int32(d)) => Some(i64::from(*d) * MILLIS_PER_DAY),
        (logical::TIME, Value::Int32(t)) => Some(i64::from(*t)),
        (logical::TIMESTAMP, Value::Int64(t)) => Some(*t),
        _ => None,
    }
}

/// `Number.longValue()` of a numeric element; `Err` for temporal or non-numeric elements.
fn as_long(from: &Schema, value: &Value) -> Result<i64, String> {
    if temporal_name(from).is_some() {
        return Err(format!("Unable to convert {value:?} to a number"));
    }
    Ok(match value {
        Value::Int8(v) => i64::from(*v),
        Value::Int16(v) => i64::from(*v),
        Value::Int32(v) => i64::from(*v),
        Value::Int64(v) => *v,
        Value::Float32(v) => *v as i64,
        Value::Float64(v) => *v as i64,
        _ => return Err(format!("Unable to convert {value:?} to a number")),
    })
}

fn as_double(from: &Schema, value: &Value) -> Result<f64, String> {
    if temporal_name(from).is_some() {
        return Err(format!("Unable to convert {value:?} to a number"));
    }
    Ok(match value {
        Value::Float32(v) => f64::from(*v),
        Value::Float64(v) => *v,
        _ => as_long(from, value)? as f64,
    })
}

/// Port of `Values.convertTo(toSchema, null, value)` for parsed elements: numeric widening,
/// temporal re-interpretation; other values are kept.
fn convert_to(to: &SchemaRef, elem: &Elem) -> Result<Value, String> {
    let Some((from, value)) = elem else {
        if to.optional {
            return Ok(Value::Null);
        }
        return Err("Unable to convert a null value to a schema that requires a value".into());
    };
    let temporal = temporal_millis(from, value);
    Ok(match (to.schema_type, temporal_name(to)) {
        (SchemaType::Int32, Some(logical::DATE)) => match temporal {
            Some(ms) => Value::Int32(ms.div_euclid(MILLIS_PER_DAY) as i32),
            None => Value::Int32(as_long(from, value)? as i32),
        },
        (SchemaType::Int32, Some(logical::TIME)) => match temporal {
            Some(ms) => Value::Int32(ms as i32),
            None => {
                let n = as_long(from, value)? as i32;
                if n < 0 || i64::from(n) > MILLIS_PER_DAY {
                    return Err("Time values must use number of milliseconds greater than 0 and less than 86400000".into());
                }
                Value::Int32(n)
            }
        },
        (SchemaType::Int64, Some(logical::TIMESTAMP)) => match temporal {
            Some(ms) => Value::Int64(ms),
            None => Value::Int64(as_long(from, value)?),
        },
        (SchemaType::Int8, _) => match value {
            Value::Int8(_) => value.clone(),
            _ => Value::Int8(as_long(from, value)? as i8),
        },
        (SchemaType::Int16, _) => match value {
            Value::Int16(_) => value.clone(),
            _ => Value::Int16(as_long(from, value)? as i16),
        },
        (SchemaType::Int32, _) => match value {
            Value::Int32(_) if temporal.is_none() => value.clone(),
            _ => Value::Int32(as_long(from, value)? as i32),
        },
        (SchemaType::Int64, _) => match value {
            Value::Int64(_) if temporal.is_none() => value.clone(),
            _ => Value::Int64(as_long(from, value)?),
        },
        (SchemaType::Float32, _) => match value {
            Value::Float32(_) => value.clone(),
            _ => Value::Float32(as_double(from, value)? as f32),
        },
        (SchemaType::Float64, _) => match value {
            Value::Float64(_) => value.clone(),
            _ => Value::Float64(as_double(from, value)?),
        },
        (SchemaType::Bytes, _) if to.name.as_deref() == Some(logical::DECIMAL) => {
            let Value::Bytes(b) = value else {
                return Err(format!("Unable to convert {value:?} to a Decimal"));
            };
            let from_scale = decimal_scale(from).map_err(|e| e.to_string())?;
            let to_scale = decimal_scale(to).map_err(|e| e.to_string())?;
            let unscaled = rescale(
                BigInt::from_signed_bytes_be(b),
                i64::from(from_scale),
                to_scale,
            )
            .map_err(|e| e.to_string())?;
            Value::Bytes(unscaled.to_signed_bytes_be())
        }
        _ => value.clone(),
    })
}

/// Port of `ValueParser.parseAsNumber` (`None` is a `NumberFormatException`).
fn parse_as_number(token: &str) -> Option<(SchemaRef, Value)> {
    let (unscaled, scale, normalized) = parse_big_decimal(token)?;
    // Exact integral value within long range → smallest integer type.
    let digits = unscaled.magnitude().to_str_radix(10);
    let integral = if unscaled == BigInt::from(0) {
        Some(0i64)
    } else if scale <= 0 {
        if digits.len() as i64 - scale > 19 {
            None
        } else {
            let v = &unscaled * BigInt::from(10u32).pow((-scale) as u32);
            i64::try_from(v).ok()
        }
    } else {
        let s = scale as usize;
        if digits.len() > s && digits[digits.len() - s..].bytes().all(|b| b == b'0') {
            let v = &unscaled / BigInt::from(10u32).pow(scale as u32);
            i64::try_from(v).ok()
        } else {
            None
        }
    };
    if let Some(v) = integral {
        return Some(if let Ok(b) = i8::try_from(v) {
            (Schema::required(SchemaType::Int8), Value::Int8(b))
        } else if let Ok(s) = i16::try_from(v) {
            (Schema::required(SchemaType::Int16), Value::Int16(s))
        } else if let Ok(i) = i32::try_from(v) {
            (Schema::required(SchemaType::Int32), Value::Int32(i))
        } else {
            (Schema::required(SchemaType::Int64), Value::Int64(v))
        });
    }
    let f: f32 = normalized.parse().ok()?;
    if f.is_finite() && scale != 0 {
        return Some((Schema::required(SchemaType::Float32), Value::Float32(f)));
    }
    let d: f64 = normalized.parse().ok()?;
    if d.is_finite() && scale != 0 {
        return Some((Schema::required(SchemaType::Float64), Value::Float64(d)));
    }
    let scale = i32::try_from(scale).ok()?;
    Some((
        logical::decimal(scale).build(),
        Value::Bytes(unscaled.to_signed_bytes_be()),
    ))
}

/// Java `new BigDecimal(String)`: `[+-]digits[.digits][e[+-]digits]`. Returns the unscaled
/// value, the scale and a normalized float literal.
pub(crate) fn parse_big_decimal(s: &str) -> Option<(BigInt, i64, String)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if matches!(b.first(), Some(b'+' | b'-')) {
        negative = b[0] == b'-';
        i = 1;
    }
    let mut digits = String::new();
    let mut frac_len: i64 = 0;
    let mut seen_dot = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                digits.push(c as char);
                if seen_dot {
                    frac_len += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if digits.is_empty() {
        return None;
    }
    let mut exp: i64 = 0;
    if i < b.len() {
        if b[i] != b'e' && b[i] != b'E' {
            return None;
        }
        i += 1;
        let mut exp_neg = false;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            exp_neg = b[i] == b'-';
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        for &c in &b[i..] {
            if !c.is_ascii_digit() {
                return None;
            }
            exp = exp.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            if exp > i64::from(i32::MAX) + 1 {
                return None;
            }
        }
        if exp_neg {
            exp = -exp;
        }
        i32::try_from(exp).ok()?;
    }
    let scale = frac_len - exp;
    i32::try_from(scale).ok()?;
    let mut unscaled: BigInt = digits.parse().ok()?;
    if negative {
        unscaled = -unscaled;
    }
    let normalized = format!("{}{}e{}", if negative { "-" } else { "" }, digits, -scale);
    Some((unscaled, scale, normalized))
}

/// Port of `ValueParser.parseAsTemporal`, in UTC.
fn parse_as_temporal(token: &str) -> Option<(SchemaRef, Value)> {
    let token = token.replace("\\:", ":");
    match token.encode_utf16().count() {
        13 => {
            let ms = parse_pattern(&token, TIME_PATTERN)?;
            Some((logical::time().build(), Value::Int32(ms as i32)))
        }
        24 => {
            let ms = parse_pattern(&token, TIMESTAMP_PATTERN)?;
            Some((logical::timestamp().build(), Value::Int64(ms)))
        }
        10 => {
            let ms = parse_pattern(&token, DATE_PATTERN)?;
            Some((
                logical::date().build(),
                Value::Int32(ms.div_euclid(MILLIS_PER_DAY) as i32),
            ))
        }
        _ => None,
    }
}

/// One element of a `SimpleDateFormat` pattern.
#[derive(Clone, Copy)]
enum Pat {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Lit(u8),
}

const DATE_PATTERN: &[Pat] = &[
    Pat::Year,
    Pat::Lit(b'-'),
    Pat::Month,
    Pat::Lit(b'-'),
    Pat::Day,
];
const TIME_PATTERN: &[Pat] = &[
    Pat::Hour,
    Pat::Lit(b':'),
    Pat::Minute,
    Pat::Lit(b':'),
    Pat::Second,
    Pat::Lit(b'.'),
    Pat::Milli,
    Pat::Lit(b'Z'),
];
const TIMESTAMP_PATTERN: &[Pat] = &[
    Pat::Year,
    Pat::Lit(b'-'),
    Pat::Month,
    Pat::Lit(b'-'),
    Pat::Day,
    Pat::Lit(b'T'),
    Pat::Hour,
    Pat::Lit(b':'),
    Pat::Minute,
    Pat::Lit(b':'),
    Pat::Second,
    Pat::Lit(b'.'),
    Pat::Milli,
    Pat::Lit(b'Z'),
];

/// A lenient `SimpleDateFormat.parse` in UTC: numeric fields take all consecutive digits and
/// overflow into the next larger unit. Returns epoch milliseconds.
fn parse_pattern(s: &str, pattern: &[Pat]) -> Option<i64> {
    let b = s.as_bytes();
    let mut i = 0;
    let (mut y, mut mo, mut d, mut h, mut mi, mut sec, mut ms) =
        (1970i64, 1i64, 1i64, 0i64, 0i64, 0i64, 0i64);
    for p in pattern {
        if let Pat::Lit(c) = p {
            if b.get(i) != Some(c) {
                return None;
            }
            i += 1;
            continue;
        }
        let start = i;
        let mut v: i64 = 0;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            i += 1;
        }
        if i == start || v > i64::from(i32::MAX) {
            return None;
        }
        match p {
            Pat::Year => y = v,
            Pat::Month => mo = v,
            Pat::Day => d = v,
            Pat::Hour => h = v,
            Pat::Minute => mi = v,
            Pat::Second => sec = v,
            Pat::Milli => ms = v,
            Pat::Lit(_) => {}
        }
    }
    let days = java_fmt::days_from_civil(y, mo, d);
    days.checked_mul(MILLIS_PER_DAY)?
        .checked_add(h * 3_600_000 + mi * 60_000 + sec * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::Struct;

    fn parse(s: &str) -> Parsed {
        parse_string(s).unwrap()
    }

    fn parsed_type(s: &str) -> SchemaType {
        parse(s).unwrap().0.schema_type
    }

    fn string_of(s: &str) {
        let (schema, v) = parse(s).unwrap();
        assert_eq!(schema.schema_type, SchemaType::String, "{s}");
        assert_eq!(v, Value::String(s.to_owned()), "{s}");
    }

    #[test]
    fn literals_and_strings() {
        assert_eq!(
            parse(""),
            Some((
                Schema::required(SchemaType::String),
                Value::String(String::new())
            ))
        );
        assert_eq!(parse("null"), None);
        assert_eq!(parse("\n \t \t\nnull\n \t \t\n"), None);
        assert_eq!(parse(" true ").unwrap().1, Value::Boolean(true));
        assert_eq!(parse("\n \t false\n").unwrap().1, Value::Boolean(false));
        for s in [
            "null=",
            "true}",
            "false]",
            "{foo: 3}",
            "{3: foo}",
            "[foo]",
            "{6:9 4:20}",
            "[0 1 2]",
            "{null: 3}",
            "[1, 2, 3,,,]",
            "[1, null]",
            "[null, 1]",
            "simple",
            "simple string",
            "  ",
            "'simple' string",
            "si\\mple",
            "three\"blind\\\"mice",
            "\u{ffff}",
            "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':",
        ] {
            string_of(s);
        }
    }

    #[test]
    fn numbers() {
        let cases: &[(&str, Value)] = &[
            ("127", Value::Int8(127)),
            ("-128", Value::Int8(-128)),
            ("32767", Value::Int16(32767)),
            ("-32768", Value::Int16(-32768)),
            ("2147483647", Value::Int32(i32::MAX)),
            ("-2147483648", Value::Int32(i32::MIN)),
            ("9223372036854775807", Value::Int64(i64::MAX)),
            ("-9223372036854775808", Value::Int64(i64::MIN)),
            ("1.0", Value::Int8(1)),
            ("1.1", Value::Float32(1.1)),
            ("300.0", Value::Int16(300)),
            ("300.01", Value::Float32(300.01)),
            ("66000.0", Value::Int32(66000)),
            ("66000.0008", Value::Float32(66000.0008)),
            ("3.4028235E38", Value::Float32(f32::MAX)),
            ("-3.4028235E38", Value::Float32(-f32::MAX)),
            ("1.7976931348623157E308", Value::Float64(f64::MAX)),
            ("+5", Value::Int8(5)),
            ("1e2", Value::Int8(100)),
        ];
        for (s, want) in cases {
            assert_eq!(&parse(s).unwrap().1, want, "{s}");
        }
        let (schema, v) = parse("9223372036854775808").unwrap();
        assert_eq!(schema, logical::decimal(0).build());
        assert_eq!(
            v,
            Value::Bytes(BigInt::from(i64::MAX as i128 + 1).to_signed_bytes_be())
        );
        let (schema, _) = parse("-9223372036854775809").unwrap();
        assert_eq!(schema, logical::decimal(0).build());
        // Numbers only read the first token at top level, like Kafka.
        assert_eq!(parse("12,5").unwrap().1, Value::Int8(12));
        string_of("12 abc");
        string_of("0x10");
    }

    #[test]
    fn temporals() {
        let (schema, v) = parse("2019-08-23T14:34:54.346Z").unwrap();
        assert_eq!(schema, logical::timestamp().build());
        assert_eq!(v, Value::Int64(1_566_570_894_346));
        let (schema, v) = parse("2019-08-23").unwrap();
        assert_eq!(schema, logical::date().build());
        assert_eq!(v, Value::Int32(18_131));
        let (schema, v) = parse("14:34:54.346Z").unwrap();
        assert_eq!(schema, logical::time().build());
        assert_eq!(v, Value::Int32(52_494_346));
        assert_eq!(
            parse("2019-08-23T14\\:34\\:54.346Z").unwrap().1,
            Value::Int64(1_566_570_894_346)
        );
        assert_eq!(
            parse("14\\:34\\:54.346Z").unwrap().1,
            Value::Int32(52_494_346)
        );
        let (schema, v) = parse("[2019-08-23]").unwrap();
        assert_eq!(
            schema.value_schema.as_deref(),
            Some(&*logical::date().build())
        );
        assert_eq!(v, Value::Array(vec![Value::Int32(18_131)]));
        let (schema, v) = parse("[14:34:54.346Z]").unwrap();
        assert_eq!(
            schema.value_schema.as_deref(),
            Some(&*logical::time().build())
        );
        assert_eq!(v, Value::Array(vec![Value::Int32(52_494_346)]));
        let (_, v) = parse(
            "[2019-08-23T14:34:54.346Z,2019-01-23T15:12:34.567Z,   2019-04-23T19:12:34.567Z]",
        )
        .unwrap();
        let Value::Array(items) = v else { panic!() };
        assert_eq!(items.len(), 3);
        for m in ["{\"k1\":\"14:34:54.346Z\"}", "{\"k1\":14:34:54.346Z}"] {
            let (schema, v) = parse(m).unwrap();
            assert_eq!(
                schema.key_schema.as_ref().unwrap().schema_type,
                SchemaType::String
            );
            assert_eq!(
                schema.value_schema.as_deref(),
                Some(&*logical::time().build())
            );
            assert_eq!(v, Value::Map(vec![("k1".into(), Value::Int32(52_494_346))]));
        }
        // Lenient like SimpleDateFormat: month 13 rolls over.
        assert_eq!(parse("2018-13-01").unwrap().1, Value::Int32(17_897));
        string_of("2019-08-x3");
        // SimpleDateFormat only needs a matching prefix: "2x" reads as day 2.
        assert_eq!(parse("2019-08-2x").unwrap().1, Value::Int32(18_110));
    }

    #[test]
    fn arrays_and_maps() {
        let (schema, v) = parse("[true, false]").unwrap();
        assert_eq!(
            schema.value_schema.as_ref().unwrap().schema_type,
            SchemaType::Boolean
        );
        assert_eq!(
            v,
            Value::Array(vec![Value::Boolean(true), Value::Boolean(false)])
        );
        let (schema, v) = parse("{true: false, false: true}").unwrap();
        assert_eq!(
            schema.key_schema.as_ref().unwrap().schema_type,
            SchemaType::Boolean
        );
        assert_eq!(
            v,
            Value::Map(vec![
                (Value::Boolean(true), Value::Boolean(false)),
                (Value::Boolean(false), Value::Boolean(true))
            ])
        );
        assert_eq!(parsed_type("{}"), SchemaType::Map);
        assert_eq!(parse("[]").unwrap().1, Value::Array(vec![]));
        let (schema, v) = parse("{3: null}").unwrap();
        assert_eq!(
            schema.key_schema.as_ref().unwrap().schema_type,
            SchemaType::Int8
        );
        assert!(schema.value_schema.is_none());
        assert_eq!(v, Value::Map(vec![(Value::Int8(3), Value::Null)]));
        let (schema, v) = parse("[null]").unwrap();
        assert!(schema.value_schema.is_none());
        assert_eq!(v, Value::Array(vec![Value::Null]));
        // Mixed element types: no common schema, values as parsed.
        let (schema, v) = parse("[1, 2, 300, \"four\"]").unwrap();
        assert!(schema.value_schema.is_none());
        assert_eq!(
            v,
            Value::Array(vec![
                Value::Int8(1),
                Value::Int8(2),
                Value::Int16(300),
                "four".into()
            ])
        );
        let (schema, v) = parse("{1:1, 2:1, 300:300, 4:\"four\"}").unwrap();
        assert!(schema.value_schema.is_none());
        assert_eq!(
            schema.key_schema.as_ref().unwrap().schema_type,
            SchemaType::Int16
        );
        assert_eq!(
            v,
            Value::Map(vec![
                (Value::Int16(1), Value::Int8(1)),
                (Value::Int16(2), Value::Int8(1)),
                (Value::Int16(300), Value::Int16(300)),
                (Value::Int16(4), "four".into()),
            ])
        );
        // Numeric widening to the common type.
        let (schema, v) = parse("[1, 300, 1.5]").unwrap();
        assert_eq!(
            schema.value_schema.as_ref().unwrap().schema_type,
            SchemaType::Float32
        );
        assert_eq!(
            v,
            Value::Array(vec![
                Value::Float32(1.0),
                Value::Float32(300.0),
                Value::Float32(1.5)
            ])
        );
        assert_eq!(
            parse("[[]]")
                .unwrap()
                .0
                .value_schema
                .as_ref()
                .unwrap()
                .schema_type,
            SchemaType::Array
        );
        assert_eq!(
            parse("[{}]")
                .unwrap()
                .0
                .value_schema
                .as_ref()
                .unwrap()
                .schema_type,
            SchemaType::Map
        );
        assert_eq!(
            parse("{\"a\":{}}")
                .unwrap()
                .0
                .value_schema
                .as_ref()
                .unwrap()
                .schema_type,
            SchemaType::Map
        );
        assert_eq!(
            parse("{\"a\":[]}")
                .unwrap()
                .0
                .value_schema
                .as_ref()
                .unwrap()
                .schema_type,
            SchemaType::Array
        );
        // Embedded strings keep their escapes (Kafka does not unescape).
        assert_eq!(
            parse(r#"["a\"b"]"#).unwrap().1,
            Value::Array(vec![Value::String(r#"a\"b"#.into())])
        );
        let (schema, _) = parse("[9223372036854775808, -9223372036854775809]").unwrap();
        assert_eq!(
            schema.value_schema.as_deref(),
            Some(&*logical::decimal(0).build())
        );
    }

    #[test]
    fn to_string_forms() {
        let s = |schema: Option<&SchemaRef>, v: &Value| convert_to_string(schema, v).unwrap();
        assert_eq!(convert_to_string(None, &Value::Null), None);
        assert_eq!(
            s(None, &"three\"blind\\\"mice".into()),
            "three\"blind\\\"mice"
        );
        assert_eq!(
            s(None, &Value::Array(vec!["three\"blind\\\"mice".into()])),
            r#"["three\"blind\\\"mice"]"#
        );
        assert_eq!(s(None, &Value::Float64(1e10)), "1.0E10");
        assert_eq!(s(None, &Value::Float32(1.5)), "1.5");
        assert_eq!(s(None, &Value::Bytes(b"test".to_vec())), "dGVzdA==");
        assert_eq!(
            s(
                None,
                &Value::Map(vec![
                    ("foo".into(), "123".into()),
                    ("bar".into(), Value::Null)
                ])
            ),
            r#"{"foo":"123","bar":null}"#
        );
        assert_eq!(
            s(
                None,
                &Value::Array(vec![
                    Value::Int32(1),
                    Value::Bytes(vec![0]),
                    Value::Boolean(true)
                ])
            ),
            r#"[1,"AA==",true]"#
        );
        let schema = SchemaBuilder::struct_()
            .field("a", Schema::required(SchemaType::Int32))
            .field(
                "b",
                SchemaBuilder::new(SchemaType::String)
                    .optional()
                    .default_value("d".into())
                    .build(),
            )
            .field("c", logical::date().build())
            .build();
        let st = Struct::new(schema.clone())
            .put("a", 5)
            .unwrap()
            .put("c", 18_131)
            .unwrap();
        assert_eq!(
            s(Some(&schema), &Value::Struct(st)),
            r#"{"a":5,"b":"d","c":2019-08-23}"#
        );
        assert_eq!(
            s(
                Some(&logical::decimal(2).build()),
                &Value::Bytes(vec![0, 0x9c])
            ),
            "1.56"
        );
        assert_eq!(
            s(Some(&logical::time().build()), &Value::Int32(52_494_346)),
            "14:34:54.346Z"
        );
        assert_eq!(
            s(
                Some(&logical::timestamp().build()),
                &Value::Int64(1_566_570_894_346)
            ),
            "2019-08-23T14:34:54.346Z"
        );
        // Epoch day 0 is below one day of millis, so Kafka formats it as a time.
        assert_eq!(
            s(Some(&logical::date().build()), &Value::Int32(0)),
            "00:00:00.000Z"
        );
    }

    #[test]
    fn round_trips_through_strings() {
        let cases: Vec<(Option<SchemaRef>, Value)> = vec![
            (None, Value::Boolean(true)),
            (None, Value::Int8(1)),
            (None, Value::Int16(12345)),
            (None, Value::Int32(1_234_567_890)),
            (None, Value::Int64(1_234_567_890_123)),
            (None, Value::Float32(1.5)),
            (None, Value::Float64(1.25e300)),
            (None, "simple".into()),
            (
                None,
                Value::Map(vec![
                    ("foo".into(), Value::Int16(12345)),
                    ("bar".into(), Value::Int16(0)),
                    ("baz".into(), Value::Int16(-4321)),
                ]),
            ),
            (None, Value::Array(vec!["foo".into(), "bar".into()])),
            (
                Some(logical::timestamp().build()),
                Value::Int64(1_566_570_894_346),
            ),
            (Some(logical::date().build()), Value::Int32(18_131)),
            (Some(logical::time().build()), Value::Int32(52_494_346)),
        ];
        for (schema, v) in cases {
            let s = convert_to_string(schema.as_ref(), &v).unwrap();
            let (_, back) = parse(&s).unwrap();
            assert_eq!(back, v, "{s}");
        }
    }
}
