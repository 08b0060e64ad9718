//! `org.apache.kafka.connect.storage.SimpleHeaderConverter`, Kafka Connect's default header
//! converter: values are written as `Values.convertToString` text in UTF-8 and read back with
//! `Values.parseString` (see [`connect_api::values`]). Dates are written and read in UTC.

use connect_api::{
    ConfigMap, HeaderConverter, Result, Schema, SchemaAndValue, SchemaRef, SchemaType, Value,
};

use connect_api::values;

/// Kafka's `SimpleHeaderConverter`. Has no configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimpleHeaderConverter;

impl HeaderConverter for SimpleHeaderConverter {
    fn configure(&mut self, _props: &ConfigMap) -> Result<()> {
        Ok(())
    }

    fn from_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Ok(values::convert_to_string(schema, value).map(String::into_bytes))
    }

    fn to_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        data: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        let Some(data) = data else {
            return Ok(SchemaAndValue::default());
        };
        // `new String(bytes, UTF_8)` replaces malformed input.
        let text = String::from_utf8_lossy(data);
        match values::parse_string(&text) {
            Ok(Some((schema, value))) => Ok(SchemaAndValue {
                schema: Some(schema),
                value,
            }),
            Ok(None) => Ok(SchemaAndValue::default()),
            // Kafka logs and falls back to the raw bytes.
            Err(_) => Ok(SchemaAndValue {
                schema: Some(Schema::required(SchemaType::Bytes)),
                value: Value::Bytes(data.to_vec()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::{logical, SchemaBuilder, Struct};

    fn round_trip(schema: Option<SchemaRef>, value: Value) -> (Option<Vec<u8>>, SchemaAndValue) {
        let c = SimpleHeaderConverter;
        let bytes = c
            .from_connect_header("t", "h", schema.as_ref(), &value)
            .unwrap();
        let back = c.to_connect_header("t", "h", bytes.as_deref()).unwrap();
        (bytes, back)
    }

    #[test]
    fn null_is_null_both_ways() {
        let (bytes, back) = round_trip(Some(Schema::optional(SchemaType::String)), Value::Null);
        assert_eq!(bytes, None);
        assert_eq!(back, SchemaAndValue::default());
        let back = SimpleHeaderConverter
            .to_connect_header("t", "h", Some(b"null"))
            .unwrap();
        assert_eq!(back, SchemaAndValue::default());
    }

    #[test]
    fn primitives() {
        let cases = [
            (Value::Boolean(true), "true", SchemaType::Boolean),
            (Value::Int8(10), "10", SchemaType::Int8),
            (Value::Int16(1000), "1000", SchemaType::Int16),
            (Value::Int32(100_000), "100000", SchemaType::Int32),
            (
                Value::Int64(10_000_000_000),
                "10000000000",
                SchemaType::Int64,
            ),
            (Value::Float32(1.5), "1.5", SchemaType::Float32),
            (Value::Float64(1e300), "1.0E300", SchemaType::Float32),
            ("a string".into(), "a string", SchemaType::String),
        ];
        for (v, text, read_type) in cases {
            let (bytes, back) = round_trip(None, v.clone());
            assert_eq!(bytes.as_deref(), Some(text.as_bytes()));
            let schema = back.schema.unwrap();
            if read_type == SchemaType::Float32 && matches!(v, Value::Float64(_)) {
                // 1.0E300 does not fit a float: Kafka reads it as FLOAT64.
                assert_eq!(schema.schema_type, SchemaType::Float64);
                assert_eq!(back.value, v);
            } else {
                assert_eq!(schema.schema_type, read_type);
                assert_eq!(back.value, v);
            }
        }
    }

    #[test]
    fn containers_and_logicals() {
        let map_schema = SchemaBuilder::map(
            Schema::required(SchemaType::String),
            Schema::required(SchemaType::Int32),
        )
        .build();
        let map = Value::Map(vec![
            ("a".into(), Value::Int32(1)),
            ("b".into(), Value::Int32(2)),
        ]);
        let (bytes, back) = round_trip(Some(map_schema), map);
        assert_eq!(bytes.as_deref(), Some(&br#"{"a":1,"b":2}"#[..]));
        assert_eq!(
            back.value,
            Value::Map(vec![
                ("a".into(), Value::Int8(1)),
                ("b".into(), Value::Int8(2))
            ])
        );

        let list = Value::Array(vec!["x".into(), "y".into()]);
        let (bytes, back) = round_trip(None, list.clone());
        assert_eq!(bytes.as_deref(), Some(&br#"["x","y"]"#[..]));
        assert_eq!(back.value, list);

        let ts = logical::timestamp().build();
        let (bytes, back) = round_trip(Some(ts.clone()), Value::Int64(1_566_570_894_346));
        assert_eq!(bytes.as_deref(), Some(&b"2019-08-23T14:34:54.346Z"[..]));
        assert_eq!(back.schema, Some(ts));

        let dec = logical::decimal(2).build();
        let (bytes, back) = round_trip(Some(dec), Value::Bytes(vec![0, 0x9c]));
        assert_eq!(bytes.as_deref(), Some(&b"1.56"[..]));
        assert_eq!(back.value, Value::Float32(1.56));

        let s = SchemaBuilder::struct_()
            .field("f", Schema::required(SchemaType::String))
            .build();
        let st = Struct::new(s.clone()).put("f", "v").unwrap();
        let (bytes, back) = round_trip(Some(s), Value::Struct(st));
        assert_eq!(bytes.as_deref(), Some(&br#"{"f":"v"}"#[..]));
        assert_eq!(back.value, Value::Map(vec![("f".into(), "v".into())]));
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let back = SimpleHeaderConverter
            .to_connect_header("t", "h", Some(&[0x61, 0xff]))
            .unwrap();
        assert_eq!(back.value, Value::String("a\u{fffd}".into()));
    }
}
