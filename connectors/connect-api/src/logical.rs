//! Logical types: Decimal, Date, Time and Timestamp, with their raw representations.

use crate::schema::{SchemaBuilder, SchemaRef, SchemaType};

/// Schema name of the Decimal logical type (BYTES, unscaled big-endian two's complement).
pub const DECIMAL: &str = "org.apache.kafka.connect.data.Decimal";
/// Schema name of the Date logical type (INT32 days since the epoch).
pub const DATE: &str = "org.apache.kafka.connect.data.Date";
/// Schema name of the Time logical type (INT32 milliseconds since midnight).
pub const TIME: &str = "org.apache.kafka.connect.data.Time";
/// Schema name of the Timestamp logical type (INT64 milliseconds since the epoch).
pub const TIMESTAMP: &str = "org.apache.kafka.connect.data.Timestamp";
/// The Decimal parameter that holds the scale.
pub const DECIMAL_SCALE: &str = "scale";

/// A Decimal schema builder with the given scale.
pub fn decimal(scale: i32) -> SchemaBuilder {
    SchemaBuilder::new(SchemaType::Bytes)
        .name(DECIMAL)
        .version(1)
        .parameter(DECIMAL_SCALE, scale.to_string())
}

/// A Date schema builder.
pub fn date() -> SchemaBuilder {
    SchemaBuilder::new(SchemaType::Int32).name(DATE).version(1)
}

/// A Time schema builder.
pub fn time() -> SchemaBuilder {
    SchemaBuilder::new(SchemaType::Int32).name(TIME).version(1)
}

/// A Timestamp schema builder.
pub fn timestamp() -> SchemaBuilder {
    SchemaBuilder::new(SchemaType::Int64)
        .name(TIMESTAMP)
        .version(1)
}

/// The scale of a Decimal schema, if the schema is one and its parameter is valid.
pub fn decimal_scale(schema: &SchemaRef) -> Option<i32> {
    if schema.name.as_deref() != Some(DECIMAL) {
        return None;
    }
    schema.parameter(DECIMAL_SCALE)?.parse().ok()
}
