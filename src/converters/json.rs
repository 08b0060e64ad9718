//! `org.apache.kafka.connect.json.JsonConverter`: JSON with an optional `{"schema":…,"payload":…}`
//! envelope, byte-compatible with Kafka's Jackson-based implementation.
//!
//! Output is compact Jackson JSON: no white space, raw UTF-8, Jackson's escapes, Java
//! `Float/Double.toString` numbers and non-finite floats as the strings `"NaN"`, `"Infinity"`,
//! `"-Infinity"`. Schemas are written with Kafka's exact field order. Input accepts what
//! Jackson accepts with `ALLOW_LEADING_ZEROS_FOR_NUMBERS`, and values are read with Jackson's
//! lenient accessors (e.g. `1.9` read as `int32` is `1`).
//!
//! Logical types keep their raw representation (see `connect_api::logical`): a Decimal value is
//! `Value::Bytes` of the big-endian two's-complement unscaled value at the schema's scale;
//! Date/Time are `Value::Int32`, Timestamp is `Value::Int64`. Logical handling applies when the
//! schema's name is the logical name *and* its type is the logical type's base type.

mod base64_read;
mod node;
mod scalar;
mod scan;
mod stream;
mod write;

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use connect_api::{
    logical, ConfigMap, ConnectError, Converter, Field, Headers, Result, Schema, SchemaAndValue,
    SchemaRef, SchemaType, Struct, Value,
};
use indexmap::IndexMap;
use num_bigint::BigInt;

use self::node::Node;
use self::scalar::scalar_value;
use super::{java_class, parse_bool_config};
use connect_api::java_fmt;
use connect_api::values::decimal::{decimal_scale, minimal_twos_complement, rescale};

/// Config key: include schemas in the serialized form (default `true`).
pub const SCHEMAS_ENABLE_CONFIG: &str = "schemas.enable";
/// Config key: maximum number of cached schemas in each direction (default 1000).
pub const SCHEMAS_CACHE_SIZE_CONFIG: &str = "schemas.cache.size";
/// Config key: `BASE64` (default) or `NUMERIC`, case-insensitive.
pub const DECIMAL_FORMAT_CONFIG: &str = "decimal.format";
/// Config key: replace null values that have a schema default with the default (default `true`).
pub const REPLACE_NULL_WITH_DEFAULT_CONFIG: &str = "replace.null.with.default";

const ENVELOPE_ERROR: &str = "JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.";
const NULL_REQUIRED_ERROR: &str =
    "Conversion error: null value for field that is required and has no default value";
const WRITE_MAX_DEPTH: usize = 1000;

/// How Decimal values are written (`decimal.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DecimalFormat {
    /// Base64 of the unscaled value's big-endian two's-complement bytes (Kafka's default).
    #[default]
    Base64,
    /// A plain JSON number with the exact decimal value (Java `BigDecimal.toString`).
    Numeric,
}

/// The settings of a [`JsonConverter`] (Kafka's `JsonConverterConfig`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonConverterConfig {
    /// `schemas.enable`.
    pub schemas_enable: bool,
    /// `schemas.cache.size`; zero or less disables caching.
    pub schemas_cache_size: i32,
    /// `decimal.format`.
    pub decimal_format: DecimalFormat,
    /// `replace.null.with.default`.
    pub replace_null_with_default: bool,
}

impl Default for JsonConverterConfig {
    fn default() -> Self {
        Self {
            schemas_enable: true,
            schemas_cache_size: 1000,
            decimal_format: DecimalFormat::Base64,
            replace_null_with_default: true,
        }
    }
}

impl JsonConverterConfig {
    /// Parses the converter's properties, with Kafka's validation messages. Unknown keys
    /// (including `converter.type`) are ignored.
    ///
    /// # Errors
    /// A configuration error naming the bad key.
    pub fn from_props(props: &ConfigMap) -> Result<Self> {
        let mut c = Self::default();
        if let Some(v) = props.get(SCHEMAS_ENABLE_CONFIG) {
            c.schemas_enable = parse_bool_config(SCHEMAS_ENABLE_CONFIG, v)?;
        }
        if let Some(v) = props.get(REPLACE_NULL_WITH_DEFAULT_CONFIG) {
            c.replace_null_with_default = parse_bool_config(REPLACE_NULL_WITH_DEFAULT_CONFIG, v)?;
        }
        if let Some(v) = props.get(SCHEMAS_CACHE_SIZE_CONFIG) {
            c.schemas_cache_size = v.trim().parse().map_err(|_| {
                ConnectError::config(
                    SCHEMAS_CACHE_SIZE_CONFIG,
                    format!("Invalid value {v} for configuration {SCHEMAS_CACHE_SIZE_CONFIG}: Not a number of type INT"),
                )
            })?;
        }
        if let Some(v) = props.get(DECIMAL_FORMAT_CONFIG) {
            c.decimal_format = match v.trim().to_ascii_uppercase().as_str() {
                "BASE64" => DecimalFormat::Base64,
                "NUMERIC" => DecimalFormat::Numeric,
                _ => {
                    return Err(ConnectError::config(
                        DECIMAL_FORMAT_CONFIG,
                        format!("Invalid value {v} for configuration {DECIMAL_FORMAT_CONFIG}: String must be one of (case insensitive): BASE64, NUMERIC"),
                    ))
                }
            };
        }
        Ok(c)
    }
}

/// A small least-recently-used cache.
struct Lru<K, V> {
    cap: usize,
    tick: u64,
    map: HashMap<K, (V, u64)>,
}

impl<K: Hash + Eq + Clone, V: Clone> Lru<K, V> {
    fn new(cap: i32) -> Self {
        Self {
            cap: usize::try_from(cap).unwrap_or(0),
            tick: 0,
            map: HashMap::new(),
        }
    }

    fn get<Q>(&mut self, k: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(k).map(|(v, t)| {
            *t = tick;
            v.clone()
        })
    }

    fn put(&mut self, k: K, v: V) {
        if self.cap == 0 {
            return;
        }
        if self.map.len() >= self.cap && !self.map.contains_key(&k) {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.map.remove(&oldest);
            }
        }
        self.tick += 1;
        self.map.insert(k, (v, self.tick));
    }

    fn len(&self) -> usize {
        self.map.len()
    }
}

/// Schema JSON cached per schema instance; the cached `SchemaRef` keeps the pointer valid.
type FromLru = Lru<usize, (SchemaRef, Arc<[u8]>)>;

/// [`FromLru`] with the last schema written in front, found by pointer without hashing.
struct FromCache {
    lru: FromLru,
    last: Option<(SchemaRef, Arc<[u8]>)>,
}

impl FromCache {
    fn new(cap: i32) -> Self {
        Self {
            lru: Lru::new(cap),
            last: None,
        }
    }

    fn get(&mut self, schema: &SchemaRef) -> Option<Arc<[u8]>> {
        if let Some((s, json)) = &self.last {
            if Arc::ptr_eq(s, schema) {
                return Some(json.clone());
            }
        }
        let (s, json) = self.lru.get(&(Arc::as_ptr(schema) as usize))?;
        self.last = Some((s, json.clone()));
        Some(json)
    }

    fn put(&mut self, schema: &SchemaRef, json: Arc<[u8]>) {
        if self.lru.cap == 0 {
            return;
        }
        // Hits on `last` skip the LRU's clock; refresh it before anything is evicted.
        if let Some((s, _)) = self.last.take() {
            self.lru.get(&(Arc::as_ptr(&s) as usize));
        }
        let key = Arc::as_ptr(schema) as usize;
        self.lru.put(key, (schema.clone(), json.clone()));
        self.last = Some((schema.clone(), json));
    }

    fn len(&self) -> usize {
        self.lru.len()
    }
}
/// Schemas cached per exact schema JSON text, with the last one used in front: records of one
/// stream nearly always repeat their schema, and comparing its text is cheaper than hashing it.
struct ToCache {
    lru: Lru<Vec<u8>, SchemaRef>,
    last: Option<(Vec<u8>, SchemaRef)>,
}

impl ToCache {
    fn new(cap: i32) -> Self {
        Self {
            lru: Lru::new(cap),
            last: None,
        }
    }

    fn get(&mut self, raw: &[u8]) -> Option<SchemaRef> {
        if let Some((text, schema)) = &self.last {
            if text.as_slice() == raw {
                return Some(schema.clone());
            }
        }
        let schema = self.lru.get(raw)?;
        self.last = Some((raw.to_vec(), schema.clone()));
        Some(schema)
    }

    fn put(&mut self, raw: Vec<u8>, schema: SchemaRef) {
        if self.lru.cap == 0 {
            return;
        }
        // Hits on `last` skip the LRU's clock; refresh it before anything is evicted.
        if let Some((text, _)) = self.last.take() {
            self.lru.get(text.as_slice());
        }
        self.lru.put(raw.clone(), schema.clone());
        self.last = Some((raw, schema));
    }

    fn len(&self) -> usize {
        self.lru.len()
    }
}

/// Kafka's `JsonConverter` (also a header converter; headers use the same format).
pub struct JsonConverter {
    config: JsonConverterConfig,
    from_cache: Mutex<FromCache>,
    to_cache: Mutex<ToCache>,
    /// The length of the last serialized record: the next output buffer starts that large, so
    /// records of one stream are written without growing it.
    size_hint: AtomicUsize,
}

impl Default for JsonConverter {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for JsonConverter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonConverter")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A Decimal, Date, Time or Timestamp schema.
#[derive(Clone, Copy)]
enum Logical {
    Decimal,
    Date,
    Time,
    Timestamp,
}

fn logical_of(schema: &Schema) -> Option<Logical> {
    let name = schema.name.as_deref()?;
    match (name, schema.schema_type) {
        (logical::DECIMAL, SchemaType::Bytes) => Some(Logical::Decimal),
        (logical::DATE, SchemaType::Int32) => Some(Logical::Date),
        (logical::TIME, SchemaType::Int32) => Some(Logical::Time),
        (logical::TIMESTAMP, SchemaType::Int64) => Some(Logical::Timestamp),
        _ => None,
    }
}

/// Whether two schemas are equal, or equal apart from their own default value (a struct
/// default's schema cannot contain that default).
fn schemas_match(a: &SchemaRef, b: &SchemaRef) -> bool {
    if Arc::ptr_eq(a, b) || a == b {
        return true;
    }
    if a.default.is_some() || b.default.is_some() {
        let mut a2 = Schema::clone(a);
        let mut b2 = Schema::clone(b);
        a2.default = None;
        b2.default = None;
        return a2 == b2;
    }
    false
}

fn type_name_json(t: SchemaType) -> &'static str {
    match t {
        SchemaType::Boolean => "boolean",
        SchemaType::Int8 => "int8",
        SchemaType::Int16 => "int16",
        SchemaType::Int32 => "int32",
        SchemaType::Int64 => "int64",
        SchemaType::Float32 => "float",
        SchemaType::Float64 => "double",
        SchemaType::Bytes => "bytes",
        SchemaType::String => "string",
        SchemaType::Array => "array",
        SchemaType::Map => "map",
        SchemaType::Struct => "struct",
    }
}

fn serialization_error(detail: &str) -> ConnectError {
    ConnectError::data(format!(
        "Converting Kafka Connect data to byte[] failed due to serialization error: {detail}"
    ))
}

impl JsonConverter {
    /// A converter with Kafka's default settings.
    pub fn new() -> Self {
        Self::with_config(JsonConverterConfig::default())
    }

    /// A converter with the given settings.
    pub fn with_config(config: JsonConverterConfig) -> Self {
        Self {
            from_cache: Mutex::new(FromCache::new(config.schemas_cache_size)),
            to_cache: Mutex::new(ToCache::new(config.schemas_cache_size)),
            size_hint: AtomicUsize::new(128),
            config,
        }
    }

    /// The current settings.
    pub fn config(&self) -> &JsonConverterConfig {
        &self.config
    }

    /// Number of cached schema→JSON translations.
    pub fn from_connect_schema_cache_len(&self) -> usize {
        self.from_cache.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// Number of cached JSON→schema translations.
    pub fn to_connect_schema_cache_len(&self) -> usize {
        self.to_cache.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// Serializes `value` (Kafka's `fromConnectData`): `None` only when both schema and value
    /// are null; with `schemas.enable` the result is the `{"schema":…,"payload":…}` envelope.
    ///
    /// # Errors
    /// A data error when the value does not fit the schema.
    pub fn serialize(&self, schema: Option<&SchemaRef>, value: &Value) -> Result<Option<Vec<u8>>> {
        if schema.is_none() && value.is_null() {
            return Ok(None);
        }
        let hint = self.size_hint.load(Ordering::Relaxed);
        let mut out = Vec::with_capacity(hint + hint / 8 + 16);
        if self.config.schemas_enable {
            out.extend_from_slice(b"{\"schema\":");
            match schema {
                Some(s) => self.push_schema_json(&mut out, s)?,
                None => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(b",\"payload\":");
            self.write_value(&mut out, schema, value, 1)?;
            out.push(b'}');
        } else {
            self.write_value(&mut out, schema, value, 0)?;
        }
        if out.len() != hint {
            self.size_hint.store(out.len(), Ordering::Relaxed);
        }
        Ok(Some(out))
    }

    /// The JSON form of a schema (Kafka's `asJsonSchema`), cached per schema instance.
    ///
    /// # Errors
    /// A data error when the schema's default value does not fit the schema.
    pub fn schema_json(&self, schema: &SchemaRef) -> Result<Arc<[u8]>> {
        if let Ok(mut cache) = self.from_cache.lock() {
            if let Some(json) = cache.get(schema) {
                return Ok(json);
            }
        }
        let mut out = Vec::with_capacity(64);
        self.write_schema(&mut out, schema, None, 1)?;
        let json: Arc<[u8]> = out.into();
        if let Ok(mut cache) = self.from_cache.lock() {
            cache.put(schema, json.clone());
        }
        Ok(json)
    }

    /// Appends the JSON form of a schema: the last one written is copied under the cache's
    /// lock, without touching reference counts.
    fn push_schema_json(&self, out: &mut Vec<u8>, schema: &SchemaRef) -> Result<()> {
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

    fn write_schema(
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
    fn write_value(
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

    fn write_logical(
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
    fn key_text<'v>(&self, key_schema: Option<&SchemaRef>, key: &'v Value) -> Result<Cow<'v, str>> {
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

    fn write_map(
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

    /// Deserializes bytes (Kafka's `toConnectData`).
    ///
    /// # Errors
    /// A data error when the bytes are not JSON, lack the envelope while `schemas.enable` is
    /// set, or do not match the schema.
    pub fn deserialize(&self, data: Option<&[u8]>) -> Result<SchemaAndValue> {
        let Some(data) = data else {
            return Ok(SchemaAndValue::default());
        };
        match self.read_streaming(data) {
            Ok(read) => Ok(read),
            Err(stream::Fallback) => self.deserialize_tree(data),
        }
    }

    /// Deserializes bytes through a JSON tree: the reference reading, used for everything the
    /// streaming reader gives up on (and for all errors, which it words).
    fn deserialize_tree(&self, data: &[u8]) -> Result<SchemaAndValue> {
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
    fn as_connect_schema(&self, node: &Node, depth: usize) -> Result<Option<SchemaRef>> {
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
    fn to_value(&self, schema: Option<&SchemaRef>, node: Option<&Node>) -> Result<Value> {
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

    fn to_logical(&self, schema: &SchemaRef, l: Logical, node: &Node) -> Result<Value> {
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

    fn to_value_schemaless(&self, node: &Node, depth: usize) -> Result<Value> {
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
fn java_map_key(k: &Value) -> Option<String> {
    match k {
        Value::Bytes(_) => None,
        _ => Some(format!("{k:?}")),
    }
}

/// Adds `k` → `v` to a map being read, as Java's `HashMap.put`: a key equal to an earlier one
/// (`seen` maps [`java_map_key`] identities to positions) replaces that entry's value in place.
fn put_map_entry(
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
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    base64_read::decode(s)
}

impl Converter for JsonConverter {
    fn configure(&mut self, props: &ConfigMap, _is_key: bool) -> Result<()> {
        *self = Self::with_config(JsonConverterConfig::from_props(props)?);
        Ok(())
    }

    fn from_connect(
        &self,
        _topic: &str,
        _headers: &Headers,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        self.serialize(schema, value)
    }

    fn to_connect(
        &self,
        _topic: &str,
        _headers: &Headers,
        data: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        self.deserialize(data)
    }
}

#[cfg(test)]
mod tests;
