//! Schemas: the type description of keys, values and header values.

use std::sync::Arc;

use indexmap::IndexMap;

use crate::value::Value;

/// Shared, immutable schema.
pub type SchemaRef = Arc<Schema>;

/// The type of a schema (Kafka Connect's `Schema.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaType {
    /// 8-bit signed integer.
    Int8,
    /// 16-bit signed integer.
    Int16,
    /// 32-bit signed integer.
    Int32,
    /// 64-bit signed integer.
    Int64,
    /// 32-bit IEEE 754 float.
    Float32,
    /// 64-bit IEEE 754 float.
    Float64,
    /// Boolean.
    Boolean,
    /// UTF-8 string.
    String,
    /// Byte array.
    Bytes,
    /// Ordered list of values of one schema.
    Array,
    /// Map from key schema to value schema.
    Map,
    /// Structure of named fields.
    Struct,
}

impl SchemaType {
    /// Kafka Connect's name of the type, upper case (`INT32`, `STRING`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Int8 => "INT8",
            Self::Int16 => "INT16",
            Self::Int32 => "INT32",
            Self::Int64 => "INT64",
            Self::Float32 => "FLOAT32",
            Self::Float64 => "FLOAT64",
            Self::Boolean => "BOOLEAN",
            Self::String => "STRING",
            Self::Bytes => "BYTES",
            Self::Array => "ARRAY",
            Self::Map => "MAP",
            Self::Struct => "STRUCT",
        }
    }

    /// Whether this is a primitive (non-container) type.
    pub fn is_primitive(self) -> bool {
        !matches!(self, Self::Array | Self::Map | Self::Struct)
    }
}

/// A field of a struct schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Position in the struct.
    pub index: usize,
    /// The field's schema.
    pub schema: SchemaRef,
}

/// A schema (Kafka Connect's `ConnectSchema`). Build one with [`SchemaBuilder`].
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// The type.
    pub schema_type: SchemaType,
    /// Whether null is a valid value.
    pub optional: bool,
    /// Default value, if any.
    pub default: Option<Value>,
    /// Name, e.g. a logical type such as `org.apache.kafka.connect.data.Decimal`.
    pub name: Option<String>,
    /// Version.
    pub version: Option<i32>,
    /// Documentation.
    pub doc: Option<String>,
    /// Parameters, in insertion order.
    pub parameters: Option<IndexMap<String, String>>,
    /// Fields (structs only), in declaration order.
    pub fields: Vec<Field>,
    /// Key schema (maps only).
    pub key_schema: Option<SchemaRef>,
    /// Value schema (maps) or item schema (arrays).
    pub value_schema: Option<SchemaRef>,
}

impl Schema {
    /// A bare schema of the given type.
    pub fn of(schema_type: SchemaType, optional: bool) -> Self {
        Self {
            schema_type,
            optional,
            default: None,
            name: None,
            version: None,
            doc: None,
            parameters: None,
            fields: Vec::new(),
            key_schema: None,
            value_schema: None,
        }
    }

    /// Shared required schema of a primitive type.
    pub fn required(schema_type: SchemaType) -> SchemaRef {
        Arc::new(Self::of(schema_type, false))
    }

    /// Shared optional schema of a primitive type.
    pub fn optional(schema_type: SchemaType) -> SchemaRef {
        Arc::new(Self::of(schema_type, true))
    }

    /// The field called `name`, for struct schemas.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// A parameter value.
    pub fn parameter(&self, key: &str) -> Option<&str> {
        self.parameters
            .as_ref()
            .and_then(|p| p.get(key))
            .map(String::as_str)
    }
}

/// Builder for [`Schema`] (Kafka Connect's `SchemaBuilder`).
#[derive(Debug, Clone)]
pub struct SchemaBuilder {
    schema: Schema,
}

impl SchemaBuilder {
    /// Starts a schema of the given type, required by default.
    pub fn new(schema_type: SchemaType) -> Self {
        Self {
            schema: Schema::of(schema_type, false),
        }
    }

    /// Starts a struct schema.
    pub fn struct_() -> Self {
        Self::new(SchemaType::Struct)
    }

    /// Starts an array schema with the given item schema.
    pub fn array(items: SchemaRef) -> Self {
        let mut b = Self::new(SchemaType::Array);
        b.schema.value_schema = Some(items);
        b
    }

    /// Starts a map schema.
    pub fn map(keys: SchemaRef, values: SchemaRef) -> Self {
        let mut b = Self::new(SchemaType::Map);
        b.schema.key_schema = Some(keys);
        b.schema.value_schema = Some(values);
        b
    }

    /// Makes the schema optional.
    pub fn optional(mut self) -> Self {
        self.schema.optional = true;
        self
    }

    /// Sets the name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.schema.name = Some(name.into());
        self
    }

    /// Sets the version.
    pub fn version(mut self, version: i32) -> Self {
        self.schema.version = Some(version);
        self
    }

    /// Sets the documentation.
    pub fn doc(mut self, doc: impl Into<String>) -> Self {
        self.schema.doc = Some(doc.into());
        self
    }

    /// Adds a parameter.
    pub fn parameter(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.schema
            .parameters
            .get_or_insert_with(IndexMap::new)
            .insert(key.into(), value.into());
        self
    }

    /// Sets the default value.
    pub fn default_value(mut self, value: Value) -> Self {
        self.schema.default = Some(value);
        self
    }

    /// Appends a struct field.
    pub fn field(mut self, name: impl Into<String>, schema: SchemaRef) -> Self {
        let index = self.schema.fields.len();
        self.schema.fields.push(Field {
            name: name.into(),
            index,
            schema,
        });
        self
    }

    /// Finishes the schema.
    pub fn build(self) -> SchemaRef {
        Arc::new(self.schema)
    }
}
