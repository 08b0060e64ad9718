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
mod cache;
mod from_connect;
mod node;
mod scalar;
mod scan;
mod stream;
mod to_connect;
mod write;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use connect_api::{
    logical, ConfigMap, ConnectError, Converter, Headers, Result, Schema, SchemaAndValue,
    SchemaRef, SchemaType, Value,
};

use self::cache::{FromCache, ToCache};
use self::to_connect::{decode_base64, put_map_entry};
use super::{java_class, parse_bool_config};

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
