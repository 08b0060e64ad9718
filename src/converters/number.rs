//! `org.apache.kafka.connect.converters.{Short,Integer,Long,Float,Double,Boolean}Converter`:
//! fixed-width big-endian encodings (IEEE 754 for floats, one byte for booleans).
//!
//! Serialization is strict about the value's type (Kafka casts, so an `Int32` is not accepted
//! by the `LongConverter`); only the boolean converter checks the schema, as in Kafka.

use connect_api::{
    ConfigMap, ConnectError, Converter, Headers, Result, Schema, SchemaAndValue, SchemaRef,
    SchemaType, Value,
};

use super::java_class;

macro_rules! number_converter {
    ($(#[$doc:meta])* $name:ident, $type_name:literal, $schema_type:ident, $variant:ident, $t:ty,
     $size:literal, $deser:literal, |$v:ident| $to_bytes:expr, |$b:ident| $from_bytes:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            schema: SchemaRef,
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    schema: Schema::optional(SchemaType::$schema_type),
                }
            }
        }

        impl $name {
            /// A new converter.
            pub fn new() -> Self {
                Self::default()
            }

            fn write(value: &Value) -> Result<Option<Vec<u8>>> {
                match value {
                    Value::Null => Ok(None),
                    Value::$variant($v) => {
                        let $v: $t = *$v;
                        Ok(Some($to_bytes.to_vec()))
                    }
                    other => Err(ConnectError::data(format!(
                        concat!("Failed to serialize to ", $type_name, " (was {}): "),
                        java_class(other)
                    ))),
                }
            }

            fn read(&self, data: Option<&[u8]>) -> Result<SchemaAndValue> {
                let value = match data {
                    None => Value::Null,
                    Some(d) => {
                        let $b: [u8; $size] = d.try_into().map_err(|_| {
                            ConnectError::data(concat!(
                                "Failed to deserialize ", $type_name,
                                ": Size of data received by ", $deser, " is not ",
                                stringify!($size)
                            ))
                        })?;
                        Value::$variant($from_bytes)
                    }
                };
                Ok(SchemaAndValue {
                    schema: Some(self.schema.clone()),
                    value,
                })
            }
        }

        impl Converter for $name {
            fn configure(&mut self, _props: &ConfigMap, _is_key: bool) -> Result<()> {
                Ok(())
            }

            fn from_connect(
                &self,
                _topic: &str,
                _headers: &Headers,
                _schema: Option<&SchemaRef>,
                value: &Value,
            ) -> Result<Option<Vec<u8>>> {
                Self::write(value)
            }

            fn to_connect(
                &self,
                _topic: &str,
                _headers: &Headers,
                data: Option<&[u8]>,
            ) -> Result<SchemaAndValue> {
                self.read(data)
            }
        }

            };
}

number_converter!(
    /// Kafka's `ShortConverter`: INT16 as 2 big-endian bytes; reads `OPTIONAL_INT16`.
    ShortConverter, "short", Int16, Int16, i16, 2, "ShortDeserializer",
    |v| v.to_be_bytes(), |b| i16::from_be_bytes(b)
);
number_converter!(
    /// Kafka's `IntegerConverter`: INT32 as 4 big-endian bytes; reads `OPTIONAL_INT32`.
    IntegerConverter, "integer", Int32, Int32, i32, 4, "IntegerDeserializer",
    |v| v.to_be_bytes(), |b| i32::from_be_bytes(b)
);
number_converter!(
    /// Kafka's `LongConverter`: INT64 as 8 big-endian bytes; reads `OPTIONAL_INT64`.
    LongConverter, "long", Int64, Int64, i64, 8, "LongDeserializer",
    |v| v.to_be_bytes(), |b| i64::from_be_bytes(b)
);
number_converter!(
    /// Kafka's `FloatConverter`: FLOAT32 as 4 big-endian IEEE 754 bytes (raw bits);
    /// reads `OPTIONAL_FLOAT32`.
    FloatConverter, "float", Float32, Float32, f32, 4, "Deserializer",
    |v| v.to_bits().to_be_bytes(), |b| f32::from_bits(u32::from_be_bytes(b))
);
number_converter!(
    /// Kafka's `DoubleConverter`: FLOAT64 as 8 big-endian IEEE 754 bytes (NaN canonicalised as
    /// `Double.doubleToLongBits` does); reads `OPTIONAL_FLOAT64`.
    DoubleConverter, "double", Float64, Float64, f64, 8, "Deserializer",
    |v| (if v.is_nan() { 0x7ff8_0000_0000_0000u64 } else { v.to_bits() }).to_be_bytes(),
    |b| f64::from_bits(u64::from_be_bytes(b))
);

/// Kafka's `BooleanConverter`: one byte, `0x01` true and `0x00` false; reads `OPTIONAL_BOOLEAN`.
#[derive(Debug, Clone)]
pub struct BooleanConverter {
    schema: SchemaRef,
}

impl Default for BooleanConverter {
    fn default() -> Self {
        Self {
            schema: Schema::optional(SchemaType::Boolean),
        }
    }
}

impl BooleanConverter {
    /// A new converter.
    pub fn new() -> Self {
        Self::default()
    }

    fn write(schema: Option<&SchemaRef>, value: &Value) -> Result<Option<Vec<u8>>> {
        if let Some(s) = schema {
            if s.schema_type != SchemaType::Boolean {
                return Err(ConnectError::data(format!(
                    "Invalid schema type for BooleanConverter: {}",
                    s.schema_type.name()
                )));
            }
        }
        match value {
            Value::Null => Ok(None),
            Value::Boolean(b) => Ok(Some(vec![u8::from(*b)])),
            v => Err(ConnectError::data(format!(
                "BooleanConverter is not compatible with objects of type {}",
                java_class(v)
            ))),
        }
    }

    fn read(&self, data: Option<&[u8]>) -> Result<SchemaAndValue> {
        let value = match data {
            None => Value::Null,
            Some([1]) => Value::Boolean(true),
            Some([0]) => Value::Boolean(false),
            Some([b]) => {
                return Err(ConnectError::data(format!(
                    "Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: {}",
                    *b as i8
                )))
            }
            Some(_) => {
                return Err(ConnectError::data(
                    "Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1",
                ))
            }
        };
        Ok(SchemaAndValue {
            schema: Some(self.schema.clone()),
            value,
        })
    }
}

impl Converter for BooleanConverter {
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

    fn to_connect(
        &self,
        _topic: &str,
        _headers: &Headers,
        data: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        self.read(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::HeaderConverter;

    fn rt<C: Converter + Default>(v: Value, bytes: &[u8], t: SchemaType) {
        let c = C::default();
        let h = Headers::new();
        let out = c.from_connect("t", &h, None, &v).unwrap().unwrap();
        assert_eq!(out, bytes);
        let back = c.to_connect("t", &h, Some(bytes)).unwrap();
        assert_eq!(back.schema, Some(Schema::optional(t)));
        assert_eq!(back.value, v);
        assert_eq!(c.from_connect("t", &h, None, &Value::Null).unwrap(), None);
        let null = c.to_connect("t", &h, None).unwrap();
        assert_eq!(null.schema, Some(Schema::optional(t)));
        assert_eq!(null.value, Value::Null);
    }

    #[test]
    fn big_endian_round_trips() {
        rt::<ShortConverter>(Value::Int16(0x1234), &[0x12, 0x34], SchemaType::Int16);
        rt::<ShortConverter>(Value::Int16(-1), &[0xff, 0xff], SchemaType::Int16);
        rt::<IntegerConverter>(
            Value::Int32(0x1234_5678),
            &[0x12, 0x34, 0x56, 0x78],
            SchemaType::Int32,
        );
        rt::<LongConverter>(
            Value::Int64(1),
            &[0, 0, 0, 0, 0, 0, 0, 1],
            SchemaType::Int64,
        );
        rt::<FloatConverter>(
            Value::Float32(1.0),
            &[0x3f, 0x80, 0, 0],
            SchemaType::Float32,
        );
        rt::<DoubleConverter>(
            Value::Float64(1.0),
            &[0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
            SchemaType::Float64,
        );
        rt::<BooleanConverter>(Value::Boolean(true), &[1], SchemaType::Boolean);
        rt::<BooleanConverter>(Value::Boolean(false), &[0], SchemaType::Boolean);
    }

    #[test]
    fn kafka_error_messages() {
        let h = Headers::new();
        let e = ShortConverter::new()
            .to_connect("t", &h, Some(&[1, 2, 3]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to deserialize short: Size of data received by ShortDeserializer is not 2"
        );
        let e = IntegerConverter::new()
            .to_connect("t", &h, Some(&[1]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to deserialize integer: Size of data received by IntegerDeserializer is not 4"
        );
        let e = LongConverter::new()
            .to_connect("t", &h, Some(&[]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to deserialize long: Size of data received by LongDeserializer is not 8"
        );
        let e = FloatConverter::new()
            .to_connect("t", &h, Some(&[1]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to deserialize float: Size of data received by Deserializer is not 4"
        );
        let e = DoubleConverter::new()
            .to_connect("t", &h, Some(&[1]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to deserialize double: Size of data received by Deserializer is not 8"
        );
        let e = LongConverter::new()
            .from_connect("t", &h, None, &Value::Int32(1))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to serialize to long (was class java.lang.Integer): "
        );
        let e = BooleanConverter::new()
            .to_connect("t", &h, Some(&[2]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: 2"
        );
        let e = BooleanConverter::new()
            .to_connect("t", &h, Some(&[0xff]))
            .unwrap_err();
        assert!(e.to_string().ends_with("BooleanDeserializer: -1"));
        let e = BooleanConverter::new()
            .to_connect("t", &h, Some(&[1, 1]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1"
        );
        let e = BooleanConverter::new()
            .from_connect(
                "t",
                &h,
                Some(&Schema::required(SchemaType::Int8)),
                &Value::Boolean(true),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid schema type for BooleanConverter: INT8"
        );
        let e = BooleanConverter::new()
            .from_connect("t", &h, None, &Value::Int8(1))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "BooleanConverter is not compatible with objects of type class java.lang.Byte"
        );
    }

    #[test]
    fn double_nan_is_canonical_and_float_nan_is_raw() {
        let h = Headers::new();
        let odd_nan = f64::from_bits(0x7ff0_0000_0000_0001);
        let out = DoubleConverter::new()
            .from_connect("t", &h, None, &Value::Float64(odd_nan))
            .unwrap()
            .unwrap();
        assert_eq!(out, 0x7ff8_0000_0000_0000u64.to_be_bytes());
        let odd_nan32 = f32::from_bits(0x7f80_0001);
        let out = FloatConverter::new()
            .from_connect("t", &h, None, &Value::Float32(odd_nan32))
            .unwrap()
            .unwrap();
        assert_eq!(out, 0x7f80_0001u32.to_be_bytes());
    }

    #[test]
    fn header_converters_delegate() {
        let c = IntegerConverter::new();
        let out = c
            .from_connect_header("t", "k", None, &Value::Int32(7))
            .unwrap();
        assert_eq!(out, Some(vec![0, 0, 0, 7]));
        assert_eq!(
            c.to_connect_header("t", "k", out.as_deref()).unwrap().value,
            Value::Int32(7)
        );
    }
}
