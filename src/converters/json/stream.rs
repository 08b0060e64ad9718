//! The streaming reader behind `JsonConverter::deserialize`: it goes from the bytes straight to
//! connect `Value`s, without building the JSON tree of `node::parse` first.
//!
//! It drives the same tokenizer as the tree reader (`node::Parser`), so it accepts exactly the
//! same text, and it reproduces the tree reader's conversions for the ordinary cases: an
//! envelope with one `schema` and one `payload` member in either order (the payload is read
//! directly when the schema came first, otherwise its span is skipped and read afterwards),
//! values that match their schema's JSON shape, schemaless values. Anything else (any error,
//! a duplicate struct field, an object where an array is expected, …) gives up with
//! [`Fallback`], and the tree reader then reads the record and words any error, so results and
//! error messages stay exactly those of the tree reader.

use std::collections::HashMap;

use connect_api::{ConnectError, SchemaAndValue, SchemaRef, SchemaType, Struct, Value};

use super::node::{decimal_f32, decimal_f64, Node, ParseError, Parser};
use super::scalar::scalar_value;
use super::{logical_of, put_map_entry, JsonConverter};

/// The streaming reader gave up; the tree reader decides.
#[derive(Debug)]
pub(super) struct Fallback;

impl From<ParseError> for Fallback {
    fn from(_: ParseError) -> Self {
        Fallback
    }
}

impl From<ConnectError> for Fallback {
    fn from(_: ConnectError) -> Self {
        Fallback
    }
}

type Fast<T> = std::result::Result<T, Fallback>;

/// Objects with more keys than this find duplicates through a hash index.
const LINEAR_KEYS: usize = 16;

/// Where each distinct key of an object being read sits among its entries (Jackson's
/// `ObjectNode` keeps a repeated key's first position and last value).
#[derive(Default)]
struct KeyIndex {
    hashed: Option<HashMap<String, usize>>,
}

impl KeyIndex {
    /// The position of `key` among `entries`, or `None` after noting it at `entries.len()`.
    fn find(&mut self, entries: &[(Value, Value)], key: &str) -> Option<usize> {
        if entries.len() < LINEAR_KEYS && self.hashed.is_none() {
            return entries
                .iter()
                .position(|(k, _)| matches!(k, Value::String(s) if s == key));
        }
        let index = self.hashed.get_or_insert_with(|| {
            entries
                .iter()
                .enumerate()
                .filter_map(|(i, (k, _))| match k {
                    Value::String(s) => Some((s.clone(), i)),
                    _ => None,
                })
                .collect()
        });
        match index.get(key) {
            Some(&at) => Some(at),
            None => {
                index.insert(key.to_owned(), entries.len());
                None
            }
        }
    }
}

/// Reads the members of an object (opening brace at the current position, depth already
/// checked) with `member` called at each value.
fn object_members<'a>(
    p: &mut Parser<'a, '_>,
    mut member: impl FnMut(&mut Parser<'a, '_>, std::borrow::Cow<'a, str>) -> Fast<()>,
) -> Fast<()> {
    p.pos += 1;
    p.skip_ws();
    if p.eat(b'}') {
        return Ok(());
    }
    loop {
        p.skip_ws();
        if p.peek() != Some(b'"') {
            return Err(Fallback);
        }
        let key = p.string_cow()?;
        p.skip_ws();
        if !p.eat(b':') {
            return Err(Fallback);
        }
        p.skip_ws();
        member(p, key)?;
        p.skip_ws();
        if p.eat(b'}') {
            return Ok(());
        }
        if !p.eat(b',') {
            return Err(Fallback);
        }
    }
}

/// Reads the items of an array (opening bracket at the current position, depth already
/// checked) with `item` called at each.
fn array_items<'a>(
    p: &mut Parser<'a, '_>,
    mut item: impl FnMut(&mut Parser<'a, '_>) -> Fast<()>,
) -> Fast<()> {
    p.pos += 1;
    p.skip_ws();
    if p.eat(b']') {
        return Ok(());
    }
    loop {
        p.skip_ws();
        item(p)?;
        p.skip_ws();
        if p.eat(b']') {
            return Ok(());
        }
        if !p.eat(b',') {
            return Err(Fallback);
        }
    }
}

impl JsonConverter {
    /// Reads a whole record, or gives up.
    pub(super) fn read_streaming(&self, data: &[u8]) -> Fast<SchemaAndValue> {
        let mut p = Parser::at(data, 0);
        p.skip_bom_and_ws();
        if self.config.schemas_enable {
            return self.read_envelope(&mut p);
        }
        let Some(first) = p.peek() else {
            return Ok(SchemaAndValue::default());
        };
        let value = self.read_schemaless(&mut p, 0)?;
        // Jackson wants white space (or the end) after a root-level number.
        if first == b'-' || first.is_ascii_digit() {
            if let Some(c) = p.peek() {
                if !matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                    return Err(Fallback);
                }
            }
        }
        Ok(SchemaAndValue {
            schema: None,
            value,
        })
    }

    /// Reads `{"schema":…,"payload":…}` in either member order.
    fn read_envelope(&self, p: &mut Parser<'_, '_>) -> Fast<SchemaAndValue> {
        if p.peek() != Some(b'{') {
            return Err(Fallback);
        }
        let mut schema: Option<Option<SchemaRef>> = None;
        let mut parsed_schema: Option<(Vec<u8>, SchemaRef)> = None;
        let mut payload: Option<Value> = None;
        let mut deferred: Option<usize> = None;
        object_members(p, |p, key| {
            match key.as_ref() {
                "schema" if schema.is_none() => {
                    if let Some((len, s)) = self.last_schema_at(p.rest()) {
                        // The same text as the last schema read, which was a complete, valid
                        // object at this same depth: the tokenizer would read it the same way.
                        p.pos += len;
                        schema = Some(Some(s));
                    } else {
                        let start = p.pos;
                        p.skip_value(1)?;
                        let raw = p.slice(start, p.pos);
                        schema = Some(self.schema_for(raw, &mut parsed_schema)?);
                    }
                }
                "payload" if payload.is_none() && deferred.is_none() => match &schema {
                    Some(s) => payload = Some(self.read_value(p, s.as_ref(), 1)?),
                    None => {
                        deferred = Some(p.pos);
                        p.skip_value(1)?;
                    }
                },
                _ => return Err(Fallback),
            }
            Ok(())
        })?;
        let Some(schema) = schema else {
            return Err(Fallback);
        };
        let value = match (payload, deferred) {
            (Some(v), _) => v,
            (None, Some(at)) => {
                let mut q = Parser::at(p.slice(0, p.pos), at);
                self.read_value(&mut q, schema.as_ref(), 1)?
            }
            (None, None) => return Err(Fallback),
        };
        if let Some((raw, s)) = parsed_schema {
            if let Ok(mut c) = self.to_cache.lock() {
                c.put(raw, s);
            }
        }
        Ok(SchemaAndValue { schema, value })
    }

    /// The last schema read and the length of its JSON text, when `rest` starts with that text.
    fn last_schema_at(&self, rest: &[u8]) -> Option<(usize, SchemaRef)> {
        let cache = self.to_cache.lock().ok()?;
        let (text, schema) = cache.last.as_ref()?;
        rest.starts_with(text).then(|| (text.len(), schema.clone()))
    }

    /// The schema whose JSON text is `raw`: from the cache, or read (then noted in `parsed` for
    /// the cache once the whole record has been read).
    fn schema_for(
        &self,
        raw: &[u8],
        parsed: &mut Option<(Vec<u8>, SchemaRef)>,
    ) -> Fast<Option<SchemaRef>> {
        if raw == b"null" {
            return Ok(None);
        }
        if let Some(s) = self.to_cache.lock().ok().and_then(|mut c| c.get(raw)) {
            return Ok(Some(s));
        }
        let node = super::node::parse(raw, None)?.ok_or(Fallback)?;
        let s = self.as_connect_schema(&node, 1)?.ok_or(Fallback)?;
        *parsed = Some((raw.to_vec(), s.clone()));
        Ok(Some(s))
    }

    /// Reads one value against `schema` (Kafka's `convertToConnect`); `depth` as for
    /// `Parser::value`.
    fn read_value(
        &self,
        p: &mut Parser<'_, '_>,
        schema: Option<&SchemaRef>,
        depth: usize,
    ) -> Fast<Value> {
        let Some(schema) = schema else {
            return self.read_schemaless(p, depth);
        };
        match p.peek() {
            Some(b'n') => {
                p.value(depth)?;
                return Ok(self.to_value(Some(schema), None)?);
            }
            Some(b'{' | b'[') => {}
            Some(b'"') if logical_of(schema).is_none() => {
                let text = p.string_cow()?.into_owned();
                return scalar(schema.schema_type, Node::Str(text));
            }
            Some(b'-' | b'0'..=b'9') if logical_of(schema).is_none() => {
                // Floats straight from the text, without the exact decimal node.
                let t = p.number_token()?;
                return match (t.is_decimal, schema.schema_type) {
                    (true, SchemaType::Float64) => Ok(Value::Float64(decimal_f64(t.text))),
                    (true, SchemaType::Float32) => Ok(Value::Float32(decimal_f32(t.text))),
                    _ => scalar(schema.schema_type, p.number_node(&t)?),
                };
            }
            _ => {
                let node = p.value(depth)?;
                if let Some(l) = logical_of(schema) {
                    return Ok(self.to_logical(schema, l, &node)?);
                }
                return scalar(schema.schema_type, node);
            }
        }
        if logical_of(schema).is_some() {
            return Err(Fallback);
        }
        p.check_depth(depth + 1)?;
        let opens_object = p.peek() == Some(b'{');
        match schema.schema_type {
            SchemaType::Array if !opens_object => {
                let item_schema = schema.value_schema.as_ref();
                let mut items = Vec::new();
                array_items(p, |p| {
                    items.push(self.read_value(p, item_schema, depth + 1)?);
                    Ok(())
                })?;
                Ok(Value::Array(items))
            }
            SchemaType::Map => {
                let key_schema = schema.key_schema.as_ref();
                let value_schema = schema.value_schema.as_ref();
                let string_keys = key_schema.is_none_or(|k| k.schema_type == SchemaType::String);
                match (string_keys, opens_object) {
                    (true, true) => self.read_string_keyed(p, value_schema, depth + 1),
                    (false, false) => self.read_tuples(p, key_schema, value_schema, depth + 1),
                    _ => Err(Fallback),
                }
            }
            SchemaType::Struct if opens_object => {
                let fields = &schema.fields;
                let mut values: Vec<Option<Value>> = fields.iter().map(|_| None).collect();
                let mut next = 0;
                object_members(p, |p, key| {
                    let at = if fields.get(next).is_some_and(|f| f.name == key) {
                        Some(next)
                    } else {
                        fields.iter().position(|f| f.name == key)
                    };
                    match at {
                        Some(i) => {
                            if values[i].is_some() {
                                return Err(Fallback);
                            }
                            values[i] =
                                Some(self.read_value(p, Some(&fields[i].schema), depth + 1)?);
                            next = i + 1;
                        }
                        None => p.skip_value(depth + 1)?,
                    }
                    Ok(())
                })?;
                let values = fields
                    .iter()
                    .zip(values)
                    .map(|(f, v)| match v {
                        Some(v) => Ok(v),
                        None => self.to_value(Some(&f.schema), None),
                    })
                    .collect::<connect_api::Result<Vec<_>>>()?;
                Ok(Value::Struct(Struct::from_values(schema.clone(), values)?))
            }
            _ => Err(Fallback),
        }
    }

    /// A map with string keys, written as a JSON object.
    fn read_string_keyed(
        &self,
        p: &mut Parser<'_, '_>,
        value_schema: Option<&SchemaRef>,
        depth: usize,
    ) -> Fast<Value> {
        let mut entries: Vec<(Value, Value)> = Vec::new();
        let mut index = KeyIndex::default();
        object_members(p, |p, key| {
            let v = self.read_value(p, value_schema, depth)?;
            match index.find(&entries, &key) {
                Some(at) => entries[at].1 = v,
                None => entries.push((Value::String(key.into_owned()), v)),
            }
            Ok(())
        })?;
        Ok(Value::Map(entries))
    }

    /// A map with other keys, written as a JSON array of `[key, value]` arrays.
    fn read_tuples(
        &self,
        p: &mut Parser<'_, '_>,
        key_schema: Option<&SchemaRef>,
        value_schema: Option<&SchemaRef>,
        depth: usize,
    ) -> Fast<Value> {
        let mut entries: Vec<(Value, Value)> = Vec::new();
        // Kafka collects the pairs in a HashMap: a repeated key keeps its last value.
        let mut seen: HashMap<String, usize> = HashMap::new();
        array_items(p, |p| {
            if p.peek() != Some(b'[') {
                return Err(Fallback);
            }
            p.check_depth(depth + 1)?;
            p.pos += 1;
            p.skip_ws();
            let k = self.read_value(p, key_schema, depth + 1)?;
            p.skip_ws();
            if !p.eat(b',') {
                return Err(Fallback);
            }
            p.skip_ws();
            let v = self.read_value(p, value_schema, depth + 1)?;
            p.skip_ws();
            if !p.eat(b']') {
                return Err(Fallback);
            }
            put_map_entry(&mut entries, &mut seen, k, v);
            Ok(())
        })?;
        Ok(Value::Map(entries))
    }

    /// Reads a value without a schema: integers as INT64, other numbers as FLOAT64, objects as
    /// maps with string keys.
    fn read_schemaless(&self, p: &mut Parser<'_, '_>, depth: usize) -> Fast<Value> {
        match p.peek() {
            Some(b'{') => {
                p.check_depth(depth + 1)?;
                let mut entries: Vec<(Value, Value)> = Vec::new();
                let mut index = KeyIndex::default();
                object_members(p, |p, key| {
                    let v = self.read_schemaless(p, depth + 1)?;
                    match index.find(&entries, &key) {
                        Some(at) => entries[at].1 = v,
                        None => entries.push((Value::String(key.into_owned()), v)),
                    }
                    Ok(())
                })?;
                Ok(Value::Map(entries))
            }
            Some(b'[') => {
                p.check_depth(depth + 1)?;
                let mut items = Vec::new();
                array_items(p, |p| {
                    items.push(self.read_schemaless(p, depth + 1)?);
                    Ok(())
                })?;
                Ok(Value::Array(items))
            }
            Some(b'"') => Ok(Value::String(p.string_cow()?.into_owned())),
            Some(b'-' | b'0'..=b'9') => {
                let t = p.number_token()?;
                Ok(if t.is_decimal {
                    Value::Float64(decimal_f64(t.text))
                } else {
                    Value::Int64(p.number_node(&t)?.long_value())
                })
            }
            _ => Ok(match p.value(depth)? {
                Node::Null => Value::Null,
                Node::Bool(b) => Value::Boolean(b),
                n @ (Node::Int(_) | Node::Long(_) | Node::BigInt(_)) => {
                    Value::Int64(n.long_value())
                }
                n @ Node::Decimal(_) => Value::Float64(n.double_value()),
                Node::Str(s) => Value::String(s),
                Node::Array(_) | Node::Object(_) => return Err(Fallback),
            }),
        }
    }
}

/// A non-null scalar read against a primitive schema ([`scalar_value`]); a container schema or
/// invalid base64 falls back to the tree reader (Jackson's empty iteration, or Kafka's error).
fn scalar(t: SchemaType, node: Node) -> Fast<Value> {
    scalar_value(t, std::borrow::Cow::Owned(node)).ok_or(Fallback)
}
