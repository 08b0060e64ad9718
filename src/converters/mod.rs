//! The built-in converters: Kafka Connect's `JsonConverter`, `StringConverter`,
//! `ByteArrayConverter`, the number/boolean converters and `SimpleHeaderConverter`, with the
//! same bytes on the wire and the same error messages.
//!
//! [`builtin_converters`] lists them for the plugin registry.

/// Implements `HeaderConverter` for converters whose header conversion is their value
/// conversion, as for Kafka's converters that are also header converters.
macro_rules! header_converter_via_converter {
    ($($t:ty),* $(,)?) => {$(
        impl connect_api::HeaderConverter for $t {
            fn configure(&mut self, props: &connect_api::ConfigMap) -> connect_api::Result<()> {
                connect_api::Converter::configure(self, props, false)
            }

            fn from_connect_header(
                &self,
                topic: &str,
                _key: &str,
                schema: Option<&connect_api::SchemaRef>,
                value: &connect_api::Value,
            ) -> connect_api::Result<Option<Vec<u8>>> {
                connect_api::Converter::from_connect(self, topic, &connect_api::Headers::new(), schema, value)
            }

            fn to_connect_header(
                &self,
                topic: &str,
                _key: &str,
                data: Option<&[u8]>,
            ) -> connect_api::Result<connect_api::SchemaAndValue> {
                connect_api::Converter::to_connect(self, topic, &connect_api::Headers::new(), data)
            }
        }
    )*};
}

pub mod byte_array;
pub mod json;
pub mod number;
pub mod simple_header;
pub mod string;

use connect_api::{ConnectError, Converter, HeaderConverter, Result, Value};

pub use byte_array::ByteArrayConverter;
pub use json::{DecimalFormat, JsonConverter, JsonConverterConfig};
pub use number::{
    BooleanConverter, DoubleConverter, FloatConverter, IntegerConverter, LongConverter,
    ShortConverter,
};
pub use simple_header::SimpleHeaderConverter;
pub use string::StringConverter;

header_converter_via_converter!(
    ByteArrayConverter,
    JsonConverter,
    StringConverter,
    BooleanConverter,
    ShortConverter,
    IntegerConverter,
    LongConverter,
    FloatConverter,
    DoubleConverter,
);

/// A built-in converter class and how to make one, for the plugin registry.
#[derive(Debug, Clone, Copy)]
pub struct ConverterDesc {
    /// Kafka's fully qualified class name, e.g. `org.apache.kafka.connect.json.JsonConverter`.
    pub class_name: &'static str,
    /// Whether the class is a `Converter` (key/value converter).
    pub is_converter: bool,
    /// Whether the class is a `HeaderConverter`.
    pub is_header_converter: bool,
    /// Makes a new, unconfigured key/value converter (`Some` iff `is_converter`).
    pub new_converter: Option<fn() -> Box<dyn Converter>>,
    /// Makes a new, unconfigured header converter (`Some` iff `is_header_converter`).
    pub new_header_converter: Option<fn() -> Box<dyn HeaderConverter>>,
}

macro_rules! both {
    ($class:expr, $t:ty) => {
        ConverterDesc {
            class_name: $class,
            is_converter: true,
            is_header_converter: true,
            new_converter: Some(|| Box::new(<$t>::default())),
            new_header_converter: Some(|| Box::new(<$t>::default())),
        }
    };
}

/// Every converter compiled into this binary, in a stable order.
pub fn builtin_converters() -> Vec<ConverterDesc> {
    vec![
        both!("org.apache.kafka.connect.json.JsonConverter", JsonConverter),
        both!(
            "org.apache.kafka.connect.storage.StringConverter",
            StringConverter
        ),
        both!(
            "org.apache.kafka.connect.converters.ByteArrayConverter",
            ByteArrayConverter
        ),
        both!(
            "org.apache.kafka.connect.converters.BooleanConverter",
            BooleanConverter
        ),
        both!(
            "org.apache.kafka.connect.converters.ShortConverter",
            ShortConverter
        ),
        both!(
            "org.apache.kafka.connect.converters.IntegerConverter",
            IntegerConverter
        ),
        both!(
            "org.apache.kafka.connect.converters.LongConverter",
            LongConverter
        ),
        both!(
            "org.apache.kafka.connect.converters.FloatConverter",
            FloatConverter
        ),
        both!(
            "org.apache.kafka.connect.converters.DoubleConverter",
            DoubleConverter
        ),
        ConverterDesc {
            class_name: "org.apache.kafka.connect.storage.SimpleHeaderConverter",
            is_converter: false,
            is_header_converter: true,
            new_converter: None,
            new_header_converter: Some(|| Box::new(SimpleHeaderConverter)),
        },
    ]
}

/// `value.getClass()` as Java prints it in Kafka's error messages (`class java.lang.String`).
pub(crate) fn java_class(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Boolean(_) => "class java.lang.Boolean",
        Value::Int8(_) => "class java.lang.Byte",
        Value::Int16(_) => "class java.lang.Short",
        Value::Int32(_) => "class java.lang.Integer",
        Value::Int64(_) => "class java.lang.Long",
        Value::Float32(_) => "class java.lang.Float",
        Value::Float64(_) => "class java.lang.Double",
        Value::String(_) => "class java.lang.String",
        Value::Bytes(_) => "class [B",
        Value::Array(_) => "class java.util.ArrayList",
        Value::Map(_) => "class java.util.HashMap",
        Value::Struct(_) => "class org.apache.kafka.connect.data.Struct",
    }
}

/// Parses a BOOLEAN config value as Kafka's `ConfigDef` does (trimmed, case-insensitive).
pub(crate) fn parse_bool_config(key: &str, raw: &str) -> Result<bool> {
    let t = raw.trim();
    if t.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if t.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(ConnectError::config(
            key,
            format!("Invalid value {raw} for configuration {key}: Expected value to be either true or false"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lists_every_builtin_and_constructs_them() {
        let all = builtin_converters();
        assert_eq!(all.len(), 10);
        for d in &all {
            assert_eq!(
                d.is_converter,
                d.new_converter.is_some(),
                "{}",
                d.class_name
            );
            assert_eq!(
                d.is_header_converter,
                d.new_header_converter.is_some(),
                "{}",
                d.class_name
            );
            if let Some(new) = d.new_converter {
                let mut c = new();
                c.configure(&Default::default(), false).unwrap();
            }
            if let Some(new) = d.new_header_converter {
                let mut c = new();
                c.configure(&Default::default()).unwrap();
            }
        }
        let simple = all
            .iter()
            .find(|d| d.class_name.ends_with("SimpleHeaderConverter"))
            .unwrap();
        assert!(!simple.is_converter);
    }

    #[test]
    fn bool_configs_parse_like_config_def() {
        assert!(parse_bool_config("k", " TRUE ").unwrap());
        assert!(!parse_bool_config("k", "false").unwrap());
        let e = parse_bool_config("k", "yes").unwrap_err().to_string();
        assert!(
            e.contains("Expected value to be either true or false"),
            "{e}"
        );
    }
}
