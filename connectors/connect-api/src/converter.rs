//! Converters: between connect data and the bytes stored in topics.

use crate::error::Result;
use crate::headers::Headers;
use crate::schema::SchemaRef;
use crate::value::Value;
use crate::ConfigMap;

/// A schema and a value, as converters read them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchemaAndValue {
    /// The schema, if the format carries or implies one.
    pub schema: Option<SchemaRef>,
    /// The value.
    pub value: Value,
}

/// Converts record keys or values (Kafka Connect's `Converter`). Pure: no I/O.
pub trait Converter: Send + Sync {
    /// Configures the converter with its properties (prefix already stripped); `is_key` tells
    /// whether it converts keys.
    ///
    /// # Errors
    /// A configuration error naming the bad key.
    fn configure(&mut self, props: &ConfigMap, is_key: bool) -> Result<()>;

    /// Serializes a value; `None` is a null payload (tombstone).
    #[allow(clippy::wrong_self_convention)]
    ///
    /// # Errors
    /// A data error when the value does not fit the schema or the format.
    fn from_connect(
        &self,
        topic: &str,
        headers: &Headers,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>>;

    /// Whether `value`'s serialized form is its own bytes, as they are (a UTF-8 string for
    /// `StringConverter`, bytes for `ByteArrayConverter`): then [`Converter::from_connect`]
    /// would succeed with a copy of them, and a caller that owns the value may take them with
    /// [`Value::into_raw_bytes`] instead. `false` (the default) when unsure.
    fn serializes_as_is(&self, _schema: Option<&SchemaRef>, _value: &Value) -> bool {
        false
    }

    /// Deserializes a payload.
    ///
    /// # Errors
    /// A data error when the bytes are not in the converter's format.
    fn to_connect(
        &self,
        topic: &str,
        headers: &Headers,
        data: Option<&[u8]>,
    ) -> Result<SchemaAndValue>;
}

/// Converts header values (Kafka Connect's `HeaderConverter`). Pure: no I/O.
pub trait HeaderConverter: Send + Sync {
    /// Configures the converter.
    ///
    /// # Errors
    /// A configuration error naming the bad key.
    fn configure(&mut self, props: &ConfigMap) -> Result<()>;

    /// Serializes one header value.
    #[allow(clippy::wrong_self_convention)]
    ///
    /// # Errors
    /// A data error when the value cannot be represented.
    fn from_connect_header(
        &self,
        topic: &str,
        key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>>;

    /// Deserializes one header value.
    ///
    /// # Errors
    /// A data error when the bytes cannot be read.
    fn to_connect_header(
        &self,
        topic: &str,
        key: &str,
        data: Option<&[u8]>,
    ) -> Result<SchemaAndValue>;
}
