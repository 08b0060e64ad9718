//! `Values.parseString`: a string's value and inferred schema.

use std::sync::Arc;

use crate::{Schema, SchemaBuilder, SchemaRef, SchemaType, Value};

use super::infer::{convert_to, Elem, SchemaMerger};
use super::literal::{parse_as_number, parse_as_temporal};
use super::tokenizer::{is_blank, java_trim, Tokenizer};

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

/// Port of `Values.ValueParser`. `Err` is Kafka's `DataException`.
struct ValueParser<'a> {
    t: Tokenizer<'a>,
}

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
