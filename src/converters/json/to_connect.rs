//! Reading: JSON to Connect schemas and values through a JSON tree (Kafka's `asConnectSchema`
//! and `convertToConnect`), the reference reading behind the streaming reader.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use connect_api::java_fmt;
use connect_api::values::decimal::{decimal_scale, minimal_twos_complement, rescale};
use connect_api::{
    ConnectError, Field, Result, Schema, SchemaAndValue, SchemaRef, SchemaType, Struct, Value,
};
use indexmap::IndexMap;

use super::node::{self, Node};
use super::scalar::scalar_value;
use super::{base64_read, logical_of, JsonConverter, Logical, ENVELOPE_ERROR};

impl JsonConverter {
    /// Deserializes bytes through a JSON tree: the reference reading, used for everything the
    /// streaming reader gives up on (and for all errors, which it words).
    pub(super) fn deserialize_tree(&self, data: &[u8]) -> Result<SchemaAndValue> {
        let mut spans = Vec::new();
        let parsed = node::parse(
            data,
            if self.config.schemas_enable {
                Some(&mut spans)
            } else {
                None
            },
        )
        .map_err(|e| {
            ConnectError::data(format!(
                "Converting byte[] to Kafka Connect data failed due to serialization error: {}",
                e.0
            ))
        })?;
        if !self.config.schemas_enable {
            let value = match &parsed {
                None => Value::Null,
                Some(n) => self.to_value(None, Some(n))?,
            };
            return Ok(SchemaAndValue {
                schema: None,
                value,
            });
        }
        let Some(Node::Object(mut env)) = parsed else {
            return Err(ConnectError::data(ENVELOPE_ERROR));
        };
        if env.len() != 2 || !env.contains_key("schema") || !env.contains_key("payload") {
            return Err(ConnectError::data(ENVELOPE_ERROR));
        }
        let payload = env.swap_remove("payload").unwrap_or(Node::Null);
        let schema_node = env.swap_remove("schema").unwrap_or(Node::Null);
        let schema = if schema_node == Node::Null {
            None
        } else {
            let raw = spans
                .iter()
                .rev()
                .find(|(k, _, _)| k == "schema")
                .map(|(_, a, b)| &data[*a..*b]);
            let cached = raw.and_then(|r| self.to_cache.lock().ok()?.get(r));
            match cached {
                Some(s) => Some(s),
                None => {
                    let s = self.as_connect_schema(&schema_node, 1)?;
                    if let (Some(r), Some(s)) = (raw, &s) {
                        if let Ok(mut c) = self.to_cache.lock() {
                            c.put(r.to_vec(), s.clone());
                        }
                    }
                    s
                }
            }
        };
        let value = self.to_value(schema.as_ref(), Some(&payload))?;
        Ok(SchemaAndValue { schema, value })
    }

    /// Reads a schema from its JSON form (Kafka's `asConnectSchema`); JSON null is no schema.
    pub(super) fn as_connect_schema(&self, node: &Node, depth: usize) -> Result<Option<SchemaRef>> {
        if *node == Node::Null {
            return Ok(None);
        }
        if depth > node::MAX_DEPTH {
            return Err(ConnectError::data(
                "Schema nesting depth exceeds the maximum allowed (1000)",
            ));
        }
        let obj = match node {
            Node::Object(o) => Some(o),
            _ => None,
        };
        let get = |k: &str| obj.and_then(|o| o.get(k));
        let Some(Node::Str(type_name)) = get("type") else {
            return Err(ConnectError::data("Schema must contain 'type' field"));
        };
        let schema_type = match type_name.as_str() {
            "boolean" => SchemaType::Boolean,
            "int8" => SchemaType::Int8,
            "int16" => SchemaType::Int16,
            "int32" => SchemaType::Int32,
            "int64" => SchemaType::Int64,
            "float" => SchemaType::Float32,
            "double" => SchemaType::Float64,
            "bytes" => SchemaType::Bytes,
            "string" => SchemaType::String,
            "array" => SchemaType::Array,
            "map" => SchemaType::Map,
            "struct" => SchemaType::Struct,
            other => return Err(ConnectError::data(format!("Unknown schema type: {other}"))),
        };
        let mut schema = Schema::of(schema_type, false);
        match schema_type {
            SchemaType::Array => {
                let items = match get("items") {
                    None | Some(Node::Null) => {
                        return Err(ConnectError::data(
                            "Array schema did not specify the element type",
                        ))
                    }
                    Some(n) => n,
                };
                schema.value_schema = Some(
                    self.as_connect_schema(items, depth + 1)?
                        .ok_or_else(|| ConnectError::data("valueSchema cannot be null."))?,
                );
            }
            SchemaType::Map => {
                let keys = get("keys")
                    .ok_or_else(|| ConnectError::data("Map schema did not specify the key type"))?;
                let values = get("values").ok_or_else(|| {
                    ConnectError::data("Map schema did not specify the value type")
                })?;
                let k = self.as_connect_schema(keys, depth + 1)?;
                let v = self.as_connect_schema(values, depth + 1)?;
                schema.key_schema =
                    Some(k.ok_or_else(|| ConnectError::data("keySchema cannot be null."))?);
                schema.value_schema =
                    Some(v.ok_or_else(|| ConnectError::data("valueSchema cannot be null."))?);
            }
            SchemaType::Struct => {
                let Some(Node::Array(fields)) = get("fields") else {
                    return Err(ConnectError::data(
                        "Struct schema's \"fields\" argument is not an array.",
                    ));
                };
                for f in fields {
                    let name = match f {
                        Node::Object(o) => match o.get("field") {
                            Some(Node::Str(n)) => Some(n),
                            _ => None,
                        },
                        _ => None,
                    }
                    .ok_or_else(|| {
                        ConnectError::data("Struct schema's field name not specified properly")
                    })?;
                    let fs = self.as_connect_schema(f, depth + 1)?.ok_or_else(|| {
                        ConnectError::data(format!("fieldSchema for field {name} cannot be null."))
                    })?;
                    if name.is_empty() {
                        return Err(ConnectError::data("fieldName cannot be null."));
                    }
                    if schema.fields.iter().any(|x| &x.name == name) {
                        return Err(ConnectError::data(format!(
                            "Cannot create field because of field name duplication {name}"
                        )));
                    }
                    let index = schema.fields.len();
                    schema.fields.push(Field {
                        name: name.clone(),
                        index,
                        schema: fs,
                    });
                }
            }
            _ => {}
        }
        schema.optional = matches!(get("optional"), Some(Node::Bool(true)));
        if let Some(Node::Str(n)) = get("name") {
            schema.name = Some(n.clone());
        }
        if let Some(v) = get("version").filter(|v| v.is_integral()) {
            schema.version = Some(v.int_value());
        }
        if let Some(Node::Str(d)) = get("doc") {
            schema.doc = Some(d.clone());
        }
        if let Some(Node::Object(params)) = get("parameters") {
            let mut p = IndexMap::with_capacity(params.len());
            for (k, v) in params {
                let Node::Str(v) = v else {
                    return Err(ConnectError::data(
                        "Schema parameters must have string values.",
                    ));
                };
                p.insert(k.clone(), v.clone());
            }
            if !p.is_empty() {
                schema.parameters = Some(p);
            }
        }
        if let Some(d) = get("default") {
            // Kafka builds a struct default against the schema under construction, which its
            // `SchemaBuilder` then refuses ("Invalid default value"), so does this.
            if schema_type == SchemaType::Struct && *d != Node::Null {
                return Err(ConnectError::data("Invalid default value"));
            }
            let without_default = Arc::new(schema.clone());
            let v = self.to_value(Some(&without_default), Some(d))?;
            if !v.is_null() {
                schema.default = Some(v);
            }
        }
        Ok(Some(Arc::new(schema)))
    }

    /// Reads a value (Kafka's `convertToConnect`); `node` is `None` for a missing struct field.
    pub(super) fn to_value(
        &self,
        schema: Option<&SchemaRef>,
        node: Option<&Node>,
    ) -> Result<Value> {
        let Some(schema) = schema else {
            return self.to_value_schemaless(node.unwrap_or(&Node::Null), 0);
        };
        let node = match node {
            None | Some(Node::Null) => {
                if let (Some(d), true) = (&schema.default, self.config.replace_null_with_default) {
                    return Ok(d.clone());
                }
                if schema.optional {
                    return Ok(Value::Null);
                }
                return Err(ConnectError::data(format!(
                    "Invalid null value for required {} field",
                    schema.schema_type.name()
                )));
            }
            Some(n) => n,
        };
        if let Some(l) = logical_of(schema) {
            return self.to_logical(schema, l, node);
        }
        Ok(match schema.schema_type {
            SchemaType::Array => {
                let item_schema = schema.value_schema.as_ref();
                let items: Vec<Value> = match node {
                    Node::Array(items) => items
                        .iter()
                        .map(|n| self.to_value(item_schema, Some(n)))
                        .collect::<Result<_>>()?,
                    // Jackson iterates an object's values; scalars have no elements.
                    Node::Object(o) => o
                        .values()
                        .map(|n| self.to_value(item_schema, Some(n)))
                        .collect::<Result<_>>()?,
                    _ => Vec::new(),
                };
                Value::Array(items)
            }
            SchemaType::Map => {
                let key_schema = schema.key_schema.as_ref();
                let value_schema = schema.value_schema.as_ref();
                if key_schema.is_none_or(|k| k.schema_type == SchemaType::String) {
                    let Node::Object(o) = node else {
                        return Err(ConnectError::data(format!(
                            "Maps with string fields should be encoded as JSON objects, but found {}",
                            node.node_type()
                        )));
                    };
                    let mut entries = Vec::with_capacity(o.len());
                    for (k, v) in o {
                        entries.push((
                            Value::String(k.clone()),
                            self.to_value(value_schema, Some(v))?,
                        ));
                    }
                    Value::Map(entries)
                } else {
                    let Node::Array(items) = node else {
                        return Err(ConnectError::data(format!(
                            "Maps with non-string fields should be encoded as JSON array of tuples, but found {}",
                            node.node_type()
                        )));
                    };
                    let mut entries: Vec<(Value, Value)> = Vec::with_capacity(items.len());
                    // Kafka collects the pairs in a HashMap: a repeated key keeps its last value.
                    let mut seen: HashMap<String, usize> = HashMap::new();
                    for entry in items {
                        let Node::Array(pair) = entry else {
                            return Err(ConnectError::data(format!(
                                "Found invalid map entry instead of array tuple: {}",
                                entry.node_type()
                            )));
                        };
                        if pair.len() != 2 {
                            return Err(ConnectError::data(format!(
                                "Found invalid map entry, expected length 2 but found :{}",
                                pair.len()
                            )));
                        }
                        let k = self.to_value(key_schema, Some(&pair[0]))?;
                        let v = self.to_value(value_schema, Some(&pair[1]))?;
                        put_map_entry(&mut entries, &mut seen, k, v);
                    }
                    Value::Map(entries)
                }
            }
            SchemaType::Struct => {
                let Node::Object(o) = node else {
                    return Err(ConnectError::data(format!(
                        "Structs should be encoded as JSON objects, but found {}",
                        node.node_type()
                    )));
                };
                let values = schema
                    .fields
                    .iter()
                    .map(|f| self.to_value(Some(&f.schema), o.get(&f.name)))
                    .collect::<Result<Vec<_>>>()?;
                Value::Struct(Struct::from_values(schema.clone(), values)?)
            }
            // Jackson's accessors on a node of another kind yield 0 / false / null; Kafka
            // returns that null as is, even for a required schema.
            t => scalar_value(t, Cow::Borrowed(node))
                .ok_or_else(|| ConnectError::data("Invalid bytes field"))?,
        })
    }

    pub(super) fn to_logical(&self, schema: &SchemaRef, l: Logical, node: &Node) -> Result<Value> {
        match l {
            Logical::Decimal => {
                let scale = decimal_scale(schema)?;
                if let Some((unscaled, json_scale)) = node.decimal_value() {
                    let unscaled = rescale(unscaled, json_scale, scale)?;
                    return Ok(Value::Bytes(unscaled.to_signed_bytes_be()));
                }
                if let Node::Str(s) = node {
                    let bytes = decode_base64(s)
                        .filter(|b| !b.is_empty())
                        .ok_or_else(|| ConnectError::data("Invalid bytes for Decimal field"))?;
                    return Ok(Value::Bytes(minimal_twos_complement(&bytes).into_owned()));
                }
                Err(ConnectError::data(format!(
                    "Invalid type for Decimal, underlying representation should be numeric or bytes but was {}",
                    node.node_type()
                )))
            }
            Logical::Date => match node {
                Node::Int(d) => Ok(Value::Int32(*d)),
                _ => Err(ConnectError::data(format!(
                    "Invalid type for Date, underlying representation should be integer but was {}",
                    node.node_type()
                ))),
            },
            Logical::Time => match node {
                Node::Int(t) => {
                    if *t < 0 || i64::from(*t) > java_fmt::MILLIS_PER_DAY {
                        return Err(ConnectError::data(
                            "Time values must use number of milliseconds greater than 0 and less than 86400000",
                        ));
                    }
                    Ok(Value::Int32(*t))
                }
                _ => Err(ConnectError::data(format!(
                    "Invalid type for Time, underlying representation should be integer but was {}",
                    node.node_type()
                ))),
            },
            Logical::Timestamp => {
                if node.is_integral() {
                    Ok(Value::Int64(node.long_value()))
                } else {
                    Err(ConnectError::data(format!(
                        "Invalid type for Timestamp, underlying representation should be integral but was {}",
                        node.node_type()
                    )))
                }
            }
        }
    }

    pub(super) fn to_value_schemaless(&self, node: &Node, depth: usize) -> Result<Value> {
        if depth > node::MAX_DEPTH {
            return Err(ConnectError::data(
                "Document nesting depth exceeds the maximum allowed (1000)",
            ));
        }
        Ok(match node {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Boolean(*b),
            Node::Int(_) | Node::Long(_) | Node::BigInt(_) => Value::Int64(node.long_value()),
            Node::Decimal(_) => Value::Float64(node.double_value()),
            Node::Str(s) => Value::String(s.clone()),
            Node::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|n| self.to_value_schemaless(n, depth + 1))
                    .collect::<Result<_>>()?,
            ),
            Node::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, v)| {
                        Ok((
                            Value::String(k.clone()),
                            self.to_value_schemaless(v, depth + 1)?,
                        ))
                    })
                    .collect::<Result<_>>()?,
            ),
        })
    }
}

/// An identity for `k` under Java's `equals` as a `HashMap` key, or `None` for keys Java
/// compares by identity (`byte[]`). `Value`'s debug form tells NaN from NaN equal and `-0.0` from
/// `0.0` apart, as `Float.equals` / `Double.equals` do.
pub(super) fn java_map_key(k: &Value) -> Option<String> {
    match k {
        Value::Bytes(_) => None,
        _ => Some(format!("{k:?}")),
    }
}

/// Adds `k` → `v` to a map being read, as Java's `HashMap.put`: a key equal to an earlier one
/// (`seen` maps [`java_map_key`] identities to positions) replaces that entry's value in place.
pub(super) fn put_map_entry(
    entries: &mut Vec<(Value, Value)>,
    seen: &mut HashMap<String, usize>,
    k: Value,
    v: Value,
) {
    match java_map_key(&k).and_then(|id| match seen.get(&id) {
        Some(&at) => Some(at),
        None => {
            seen.insert(id, entries.len());
            None
        }
    }) {
        Some(at) => entries[at].1 = v,
        None => entries.push((k, v)),
    }
}

/// Jackson's base64 reading of a text node (MIME-no-linefeeds variant, padding required).
pub(super) fn decode_base64(s: &str) -> Option<Vec<u8>> {
    base64_read::decode(s)
}
