//! The `spec` setting: `field:type` pairs or one type for the whole key/value, parsed as
//! Kafka's `Cast.parseFieldTypes` with its messages.

use connect_api::SchemaType;

use super::OUTPUT_TYPES;

/// Kafka's `Schema.Type.valueOf` of a spec type name.
fn schema_type(name: &str) -> Option<SchemaType> {
    use SchemaType::*;
    let t = match name.to_uppercase().as_str() {
        "INT8" => Int8,
        "INT16" => Int16,
        "INT32" => Int32,
        "INT64" => Int64,
        "FLOAT32" => Float32,
        "FLOAT64" => Float64,
        "BOOLEAN" => Boolean,
        "STRING" => String,
        "BYTES" => Bytes,
        "ARRAY" => Array,
        "MAP" => Map,
        "STRUCT" => Struct,
        _ => return None,
    };
    Some(t)
}

fn output_type(name: &str) -> std::result::Result<SchemaType, String> {
    let t = schema_type(name).ok_or_else(|| {
        format!(
            "Invalid value java.lang.IllegalArgumentException: No enum constant \
             org.apache.kafka.connect.data.Schema.Type.{} for configuration Invalid type found \
             in casting spec: {name}",
            name.to_uppercase()
        )
    })?;
    if matches!(
        t,
        SchemaType::Bytes | SchemaType::Array | SchemaType::Map | SchemaType::Struct
    ) {
        return Err(format!(
            "Cast transformation does not support casting to {}; supported types are {OUTPUT_TYPES}",
            t.name()
        ));
    }
    Ok(t)
}

/// Java's `String.split(":")`: trailing empty strings removed (an empty input stays `[""]`).
fn java_split_colon(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return vec![""];
    }
    let mut parts: Vec<&str> = s.split(':').collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

type Spec = (Vec<(String, SchemaType)>, Option<SchemaType>);

/// Parses `spec` as Kafka's `Cast.parseFieldTypes`; the error is Kafka's complete message.
pub(super) fn parse_spec(mappings: &[String]) -> std::result::Result<Spec, String> {
    if mappings.is_empty() {
        return Err("Must specify at least one field to cast.".to_owned());
    }
    let mut casts = Vec::new();
    let mut whole = None;
    for mapping in mappings {
        let parts = java_split_colon(mapping);
        match parts.as_slice() {
            [] => return Err("Index 1 out of bounds for length 0".to_owned()),
            [t] => whole = Some(output_type(t.trim())?),
            [field, t] => casts.push((field.trim().to_owned(), output_type(t.trim())?)),
            _ => {
                return Err(format!(
                "Invalid value [{}] for configuration renames: Invalid rename mapping: {mapping}",
                mappings.join(", ")
            ))
            }
        }
    }
    if whole.is_some() && mappings.len() > 1 {
        return Err(
            "Cast transformations that specify a type to cast the entire value to may \
                    only specify a single cast in their spec"
                .to_owned(),
        );
    }
    Ok((casts, whole))
}
