//! Values: the data that schemas describe.

use crate::error::{ConnectError, Result};
use crate::schema::SchemaRef;

/// A Kafka Connect value. Logical types keep their raw representation (see [`crate::logical`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// Null.
    #[default]
    Null,
    /// Boolean.
    Boolean(bool),
    /// INT8.
    Int8(i8),
    /// INT16.
    Int16(i16),
    /// INT32 (also Date and Time logical types).
    Int32(i32),
    /// INT64 (also the Timestamp logical type).
    Int64(i64),
    /// FLOAT32.
    Float32(f32),
    /// FLOAT64.
    Float64(f64),
    /// STRING.
    String(String),
    /// BYTES (also the Decimal logical type: big-endian two's-complement unscaled value).
    Bytes(Vec<u8>),
    /// ARRAY.
    Array(Vec<Value>),
    /// MAP, as ordered pairs (keys may be of any type).
    Map(Vec<(Value, Value)>),
    /// STRUCT.
    Struct(Struct),
}

impl Value {
    /// The bytes of a [`Value::String`] (UTF-8) or [`Value::Bytes`], without a copy; `None` for
    /// any other value.
    pub fn into_raw_bytes(self) -> Option<Vec<u8>> {
        match self {
            Self::String(s) => Some(s.into_bytes()),
            Self::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// Whether this is [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }

    /// The string, for [`Value::String`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    /// Kafka Connect's name of the runtime type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Boolean(_) => "Boolean",
            Self::Int8(_) => "Byte",
            Self::Int16(_) => "Short",
            Self::Int32(_) => "Integer",
            Self::Int64(_) => "Long",
            Self::Float32(_) => "Float",
            Self::Float64(_) => "Double",
            Self::String(_) => "String",
            Self::Bytes(_) => "byte[]",
            Self::Array(_) => "List",
            Self::Map(_) => "Map",
            Self::Struct(_) => "Struct",
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

/// A structured value: one value per field of its struct schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    schema: SchemaRef,
    values: Vec<Value>,
}

impl Struct {
    /// An empty struct (all fields null) of the given struct schema.
    pub fn new(schema: SchemaRef) -> Self {
        let values = vec![Value::Null; schema.fields.len()];
        Self { schema, values }
    }

    /// A struct from values in schema order.
    ///
    /// # Errors
    /// A data error when the number of values differs from the number of fields.
    pub fn from_values(schema: SchemaRef, values: Vec<Value>) -> Result<Self> {
        if values.len() != schema.fields.len() {
            return Err(ConnectError::data(format!(
                "Struct has {} fields but {} values were given",
                schema.fields.len(),
                values.len()
            )));
        }
        Ok(Self { schema, values })
    }

    /// The struct's schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Sets a field by name.
    ///
    /// # Errors
    /// A data error when the schema has no such field.
    pub fn put(mut self, field: &str, value: impl Into<Value>) -> Result<Self> {
        let index = self
            .schema
            .field(field)
            .ok_or_else(|| ConnectError::data(format!("{field} is not a valid field name")))?
            .index;
        self.values[index] = value.into();
        Ok(self)
    }

    /// A field's value by name.
    pub fn get(&self, field: &str) -> Option<&Value> {
        self.schema.field(field).map(|f| &self.values[f.index])
    }

    /// The field values in schema order.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// The field values in schema order, taken out of the struct.
    pub fn into_values(self) -> Vec<Value> {
        self.values
    }
}

macro_rules! impl_from_primitive {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Self { Self::$v(x) }
        }
    )*};
}
impl_from_primitive!(bool => Boolean, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64,
    f32 => Float32, f64 => Float64, Vec<u8> => Bytes, Struct => Struct);
