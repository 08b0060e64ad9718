//! `org.apache.kafka.connect.converters.ByteArrayConverter`: passes bytes through unchanged.

use connect_api::{
    ConfigMap, ConnectError, Converter, Headers, Result, Schema, SchemaAndValue, SchemaRef,
    SchemaType, Value,
};

use super::java_class;

/// Kafka's `ByteArrayConverter` (also a header converter). Has no configuration.
#[derive(Debug, Clone)]
pub struct ByteArrayConverter {
    schema: SchemaRef,
}

impl Default for ByteArrayConverter {
    fn default() -> Self {
        Self {
            schema: Schema::optional(SchemaType::Bytes),
        }
    }
}

impl ByteArrayConverter {
    /// A new converter.
    pub fn new() -> Self {
        Self::default()
    }

    fn write(schema: Option<&SchemaRef>, value: &Value) -> Result<Option<Vec<u8>>> {
        if let Some(s) = schema {
            if s.schema_type != SchemaType::Bytes {
                return Err(ConnectError::data(format!(
                    "Invalid schema type for ByteArrayConverter: {}",
                    s.schema_type.name()
                )));
            }
        }
        match value {
            Value::Null => Ok(None),
            Value::Bytes(b) => Ok(Some(b.clone())),
            v => Err(ConnectError::data(format!(
                "ByteArrayConverter is not compatible with objects of type {}",
                java_class(v)
            ))),
        }
    }

    fn read(&self, data: Option<&[u8]>) -> SchemaAndValue {
        SchemaAndValue {
            schema: Some(self.schema.clone()),
            value: data.map_or(Value::Null, |d| Value::Bytes(d.to_vec())),
        }
    }
}

impl Converter for ByteArrayConverter {
    fn configure(&mut self, _props: &ConfigMap, _is_key: bool) -> Result<()> {
        Ok(())
    }

    fn from_connect(
        &self,
        _topic: &str,
        _headers: &Headers,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Self::write(schema, value)
    }

    fn serializes_as_is(&self, schema: Option<&SchemaRef>, value: &Value) -> bool {
        matches!(value, Value::Bytes(_))
            && schema.is_none_or(|s| s.schema_type == SchemaType::Bytes)
    }

    fn to_connect(
        &self,
        _topic: &str,
        _headers: &Headers,
        data: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        Ok(self.read(data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::HeaderConverter;

    #[test]
    fn bytes_of_a_bytes_schema_or_none_serialize_as_is() {
        let c = ByteArrayConverter::new();
        let h = Headers::new();
        let bytes = Value::Bytes(vec![0, 255]);
        let schema = Schema::optional(SchemaType::Bytes);
        for s in [None, Some(&schema)] {
            assert!(c.serializes_as_is(s, &bytes));
            assert_eq!(
                c.from_connect("t", &h, s, &bytes).unwrap(),
                bytes.clone().into_raw_bytes()
            );
        }
        let string = Schema::optional(SchemaType::String);
        assert!(!c.serializes_as_is(Some(&string), &bytes), "refused");
        assert!(!c.serializes_as_is(None, &Value::String("x".into())));
        assert!(!c.serializes_as_is(None, &Value::Null));
    }

    #[test]
    fn passes_bytes_through() {
        let c = ByteArrayConverter::new();
        let h = Headers::new();
        let bytes = c
            .from_connect(
                "t",
                &h,
                Some(&Schema::required(SchemaType::Bytes)),
                &Value::Bytes(vec![1, 2]),
            )
            .unwrap();
        assert_eq!(bytes, Some(vec![1, 2]));
        assert_eq!(c.from_connect("t", &h, None, &Value::Null).unwrap(), None);
        let back = c.to_connect("t", &h, Some(&[1, 2])).unwrap();
        assert_eq!(back.schema, Some(Schema::optional(SchemaType::Bytes)));
        assert_eq!(back.value, Value::Bytes(vec![1, 2]));
        let back = c.to_connect("t", &h, None).unwrap();
        assert_eq!(back.schema, Some(Schema::optional(SchemaType::Bytes)));
        assert_eq!(back.value, Value::Null);
    }

    #[test]
    fn rejects_other_schemas_and_values() {
        let c = ByteArrayConverter::new();
        let h = Headers::new();
        let e = c
            .from_connect(
                "t",
                &h,
                Some(&Schema::required(SchemaType::Int32)),
                &Value::Int32(1),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid schema type for ByteArrayConverter: INT32"
        );
        let e = c.from_connect("t", &h, None, &"x".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ByteArrayConverter is not compatible with objects of type class java.lang.String"
        );
        let e = c
            .from_connect_header("t", "k", None, &Value::Int8(1))
            .unwrap_err();
        assert!(matches!(e, ConnectError::Data(_)));
    }
}
