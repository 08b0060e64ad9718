//! `org.apache.kafka.connect.transforms.MaskField$Key` / `$Value`: replaces the listed fields
//! with their type's empty value (`0`, `false`, `""`, empty list or map, epoch) or with a
//! configured `replacement` converted to the field's type.

use connect_api::config_def::Default as Def;
use connect_api::{
    logical, ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, SchemaRef, Struct, Transformation, TransformationPlugin, Validator,
    Value,
};
use num_bigint::BigInt;

use crate::transforms::config::parse;
use crate::transforms::util::{
    check_list, empty_list_error, field_value, java_class_name, map_get, map_put,
    replace_null_with_default_key, require_map, require_struct, Side,
};
use connect_api::values::decimal::parse_big_decimal;

const PURPOSE: &str = "mask fields";

/// The MaskField transform.
#[derive(Debug)]
pub struct MaskField {
    side: Side,
    fields: Vec<String>,
    replacement: Option<String>,
    replace_null_with_default: bool,
}

/// What Java class Kafka Connect would hold for a value (logical types per their schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Boolean,
    Byte,
    Short,
    Integer,
    Long,
    Float,
    Double,
    String,
    /// `java.util.Date` (Date, Time, Timestamp logical types); `true` for the INT64 Timestamp.
    Date(bool),
    /// `java.math.BigDecimal` (Decimal logical type), with the schema.
    BigDecimal,
    Other,
}

fn kind(value: &Value, schema: Option<&SchemaRef>) -> Kind {
    let name = schema.and_then(|s| s.name.as_deref());
    match value {
        Value::Boolean(_) => Kind::Boolean,
        Value::Int8(_) => Kind::Byte,
        Value::Int16(_) => Kind::Short,
        Value::Int32(_) if matches!(name, Some(logical::DATE | logical::TIME)) => Kind::Date(false),
        Value::Int32(_) => Kind::Integer,
        Value::Int64(_) if name == Some(logical::TIMESTAMP) => Kind::Date(true),
        Value::Int64(_) => Kind::Long,
        Value::Float32(_) => Kind::Float,
        Value::Float64(_) => Kind::Double,
        Value::String(_) => Kind::String,
        Value::Bytes(_) if name == Some(logical::DECIMAL) => Kind::BigDecimal,
        _ => Kind::Other,
    }
}

/// `Class.toString()` of the Java class of a value: `class java.lang.Boolean`.
fn class_string(value: &Value, k: Kind) -> String {
    let name = match k {
        Kind::Date(_) => "java.util.Date",
        Kind::BigDecimal => "java.math.BigDecimal",
        _ => java_class_name(value),
    };
    format!("class {name}")
}

fn decimal_scale_of(schema: Option<&SchemaRef>) -> Option<i32> {
    schema.and_then(logical::decimal_scale)
}

/// What Kafka's Decimal conversion says about a BigDecimal of another scale.
fn mismatching_scale() -> ConnectError {
    ConnectError::data("BigDecimal has mismatching scale value for given Decimal schema")
}

/// The type's empty value (Kafka's `maskWithNullValue`).
fn mask_with_null_value(value: &Value, k: Kind, schema: Option<&SchemaRef>) -> Result<Value> {
    Ok(match (k, value) {
        (Kind::Boolean, _) => Value::Boolean(false),
        (Kind::Byte, _) => Value::Int8(0),
        (Kind::Short, _) => Value::Int16(0),
        (Kind::Integer, _) => Value::Int32(0),
        (Kind::Long, _) => Value::Int64(0),
        (Kind::Float, _) => Value::Float32(0.0),
        (Kind::Double, _) => Value::Float64(0.0),
        (Kind::String, _) => Value::String(String::new()),
        (Kind::Date(false), _) => Value::Int32(0),
        (Kind::Date(true), _) => Value::Int64(0),
        // Kafka masks with a scale-0 zero, which its converters refuse for other scales.
        (Kind::BigDecimal, _) if decimal_scale_of(schema) == Some(0) => Value::Bytes(vec![0]),
        (Kind::BigDecimal, _) => return Err(mismatching_scale()),
        (_, Value::Array(_)) => Value::Array(Vec::new()),
        (_, Value::Map(_)) => Value::Map(Vec::new()),
        _ => {
            return Err(ConnectError::data(format!(
                "Cannot mask value of type: {}",
                class_string(value, k)
            )))
        }
    })
}

/// `Values.convertToLong(null, text)`: Java `new BigDecimal(text).longValue()` (fraction
/// truncated, low 64 bits kept).
fn decimal_long_value(text: &str) -> Option<i64> {
    let (unscaled, scale, _) = parse_big_decimal(text)?;
    let integral = if scale >= 0 {
        let divisor = BigInt::from(10u8).pow(u32::try_from(scale).ok()?);
        unscaled / divisor
    } else if -scale >= 64 {
        // 10^64 is a multiple of 2^64: no low-order bits survive.
        BigInt::from(0u8)
    } else {
        unscaled * BigInt::from(10u8).pow(u32::try_from(-scale).ok()?)
    };
    let bytes = integral.to_signed_bytes_le();
    let fill = if integral.sign() == num_bigint::Sign::Minus {
        0xff
    } else {
        0
    };
    let mut low = [fill; 8];
    for (i, b) in bytes.iter().take(8).enumerate() {
        low[i] = *b;
    }
    Some(i64::from_le_bytes(low))
}

/// `Values.convertToDouble(null, text)`: Java `new BigDecimal(text).doubleValue()`.
fn decimal_double_value(text: &str) -> Option<f64> {
    let (_, _, normalized) = parse_big_decimal(text)?;
    normalized.parse().ok()
}

/// The replacement converted to the value's type (Kafka's `maskWithCustomReplacement`).
fn mask_with_replacement(
    value: &Value,
    k: Kind,
    replacement: &str,
    schema: Option<&SchemaRef>,
) -> Result<Value> {
    let not_a_number = || {
        ConnectError::data(format!(
            "Unable to convert {replacement} (class java.lang.String) to a number"
        ))
    };
    let long = || decimal_long_value(replacement).ok_or_else(not_a_number);
    let double = || decimal_double_value(replacement).ok_or_else(not_a_number);
    Ok(match k {
        Kind::Byte => Value::Int8(long()? as i8),
        Kind::Short => Value::Int16(long()? as i16),
        Kind::Integer => Value::Int32(long()? as i32),
        Kind::Long => Value::Int64(long()?),
        Kind::Float => Value::Float32(double()? as f32),
        Kind::Double => Value::Float64(double()?),
        Kind::String => Value::String(replacement.to_owned()),
        Kind::BigDecimal => {
            let (unscaled, scale, _) = parse_big_decimal(replacement).ok_or_else(|| {
                ConnectError::data(format!(
                    "Unable to convert {replacement} (class java.lang.String) to number"
                ))
            })?;
            if decimal_scale_of(schema).map(i64::from) != Some(scale) {
                return Err(mismatching_scale());
            }
            Value::Bytes(unscaled.to_signed_bytes_be())
        }
        _ => {
            return Err(ConnectError::data(format!(
                "Cannot mask value of type {} with custom replacement.",
                class_string(value, k)
            )))
        }
    })
}

impl MaskField {
    fn new(side: Side) -> Self {
        Self {
            side,
            fields: Vec::new(),
            replacement: None,
            replace_null_with_default: true,
        }
    }

    fn masked(&self, value: &Value, schema: Option<&SchemaRef>) -> Result<Value> {
        if value.is_null() {
            return Ok(Value::Null);
        }
        let k = kind(value, schema);
        match &self.replacement {
            None => mask_with_null_value(value, k, schema),
            Some(r) => mask_with_replacement(value, k, r, schema),
        }
    }

    fn is_masked(&self, name: &str) -> bool {
        self.fields.iter().any(|f| f == name)
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                "fields",
                ConfigType::List,
                Def::Required,
                Importance::High,
                "Names of fields to mask.",
            )
            .validator(Validator::NonEmptyList),
        )
        .define(
            ConfigKey::new(
                "replacement",
                ConfigType::String,
                Def::Null,
                Importance::Low,
                "Custom value replacement, that will be applied to all 'fields' values (numeric \
                 or non-empty string values only).",
            )
            .validator(Validator::NonEmptyString),
        )
        .define(replace_null_with_default_key())
}

impl Transformation for MaskField {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props).map_err(empty_list_error)?;
        check_list("fields", values.list("fields"), false)?;
        self.fields = values.list("fields").to_vec();
        self.replacement = values.string("replacement").map(str::to_owned);
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        let (schema, value) = self.side.take(&mut record);
        match schema {
            None => {
                let original = require_map(&value, PURPOSE)?;
                let mut entries = original.to_vec();
                for f in &self.fields {
                    let masked = self.masked(map_get(original, f), None)?;
                    map_put(&mut entries, f, masked);
                }
                self.side.set(&mut record, None, Value::Map(entries));
            }
            Some(schema) => {
                let original = require_struct(&value, Some(&schema), PURPOSE)?;
                let mut values = Vec::with_capacity(original.schema().fields.len());
                for field in &original.schema().fields {
                    let v = field_value(original, field, self.replace_null_with_default);
                    values.push(if self.is_masked(&field.name) {
                        self.masked(&v, Some(&field.schema))?
                    } else {
                        v
                    });
                }
                let s = Struct::from_values(original.schema().clone(), values)?;
                self.side.set(&mut record, Some(schema), Value::Struct(s));
            }
        }
        Ok(Some(record))
    }
}

/// `MaskField$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.MaskField$Key",
    config_def,
    new: || Box::new(MaskField::new(Side::Key)),
};

/// `MaskField$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.MaskField$Value",
    config_def,
    new: || Box::new(MaskField::new(Side::Value)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transforms::test_support::{apply, config_error, record, smap, strct, Props};
    use connect_api::{Schema, SchemaBuilder, SchemaType};

    #[test]
    fn configure_errors() {
        let cases: &[(Props, &str)] = &[
            (
                &[],
                "Missing required configuration \"fields\" which has no default value.",
            ),
            (
                &[("fields", "")],
                "Configuration 'fields' must not be empty. Valid values include: any non-empty value",
            ),
            (
                &[("fields", "a"), ("replacement", "")],
                "Invalid value  for configuration replacement: String must be non-empty",
            ),
        ];
        for (props, want) in cases {
            assert_eq!(config_error(&VALUE_PLUGIN, props), *want, "{props:?}");
        }
    }

    fn all_types() -> (SchemaRef, Value) {
        let schema = SchemaBuilder::struct_()
            .field("magic", Schema::required(SchemaType::Int32))
            .field("bool", Schema::required(SchemaType::Boolean))
            .field("byte", Schema::required(SchemaType::Int8))
            .field("short", Schema::required(SchemaType::Int16))
            .field("int", Schema::required(SchemaType::Int32))
            .field("long", Schema::required(SchemaType::Int64))
            .field("float", Schema::required(SchemaType::Float32))
            .field("double", Schema::required(SchemaType::Float64))
            .field("string", Schema::required(SchemaType::String))
            .field("date", logical::date().build())
            .field("timestamp", logical::timestamp().build())
            .field("decimal", logical::decimal(0).build())
            .field(
                "array",
                SchemaBuilder::array(Schema::required(SchemaType::Int32)).build(),
            )
            .field("optional", Schema::optional(SchemaType::String))
            .build();
        let value = strct(
            &schema,
            vec![
                Value::Int32(42),
                Value::Boolean(true),
                Value::Int8(42),
                Value::Int16(42),
                Value::Int32(42),
                Value::Int64(42),
                Value::Float32(42.0),
                Value::Float64(42.0),
                "blabla".into(),
                Value::Int32(17000),
                Value::Int64(1_600_000_000_000),
                Value::Bytes(vec![42]),
                Value::Array(vec![Value::Int32(1)]),
                Value::Null,
            ],
        );
        (schema, value)
    }

    #[test]
    fn with_schema_masks_with_empty_values() {
        let (schema, value) = all_types();
        let fields =
            "bool,byte,short,int,long,float,double,string,date,timestamp,decimal,array,optional";
        let out = apply(
            &VALUE_PLUGIN,
            &[("fields", fields)],
            record(None, Value::Null, Some(schema.clone()), value),
        )
        .unwrap();
        assert_eq!(out.value_schema, Some(schema));
        let Value::Struct(v) = out.value else {
            panic!("struct")
        };
        assert_eq!(
            v.values(),
            &[
                Value::Int32(42),
                Value::Boolean(false),
                Value::Int8(0),
                Value::Int16(0),
                Value::Int32(0),
                Value::Int64(0),
                Value::Float32(0.0),
                Value::Float64(0.0),
                "".into(),
                Value::Int32(0),
                Value::Int64(0),
                Value::Bytes(vec![0]),
                Value::Array(vec![]),
                Value::Null,
            ]
        );
    }

    #[test]
    fn replacements_are_converted_to_the_field_type() {
        let (schema, value) = all_types();
        let ok: &[(&str, &str, Value)] = &[
            ("byte", "300", Value::Int8(44)),
            ("short", "-12.9", Value::Int16(-12)),
            ("int", "1e3", Value::Int32(1000)),
            ("long", "123456789012", Value::Int64(123_456_789_012)),
            ("float", "1.5", Value::Float32(1.5)),
            ("double", "2.25", Value::Float64(2.25)),
            ("string", "***", "***".into()),
            ("decimal", "7", Value::Bytes(vec![7])),
            ("optional", "x", Value::Null),
        ];
        for (field, replacement, want) in ok {
            let out = apply(
                &VALUE_PLUGIN,
                &[("fields", field), ("replacement", replacement)],
                record(None, Value::Null, Some(schema.clone()), value.clone()),
            )
            .unwrap();
            let Value::Struct(v) = out.value else {
                panic!("struct")
            };
            assert_eq!(v.get(field), Some(want), "{field}");
        }
        let bad: &[(&str, &str, &str)] = &[
            (
                "int",
                "abc",
                "Unable to convert abc (class java.lang.String) to a number",
            ),
            (
                "double",
                "1,5",
                "Unable to convert 1,5 (class java.lang.String) to a number",
            ),
            (
                "bool",
                "x",
                "Cannot mask value of type class java.lang.Boolean with custom replacement.",
            ),
            (
                "date",
                "1",
                "Cannot mask value of type class java.util.Date with custom replacement.",
            ),
            (
                "array",
                "1",
                "Cannot mask value of type class java.util.ArrayList with custom replacement.",
            ),
            (
                "decimal",
                "1.5",
                "BigDecimal has mismatching scale value for given Decimal schema",
            ),
        ];
        for (field, replacement, want) in bad {
            let err = apply(
                &VALUE_PLUGIN,
                &[("fields", field), ("replacement", replacement)],
                record(None, Value::Null, Some(schema.clone()), value.clone()),
            )
            .unwrap_err();
            assert_eq!(err.to_string(), *want, "{field}");
        }
    }

    #[test]
    fn schemaless_masks_and_adds_missing_fields_as_null() {
        let input = smap(&[
            ("magic", Value::Int32(42)),
            ("int", Value::Int32(42)),
            ("string", "s".into()),
            ("map", smap(&[("a", Value::Int32(1))])),
        ]);
        let out = apply(
            &KEY_PLUGIN,
            &[("fields", "int,string,map,missing")],
            record(None, input, None, Value::Null),
        )
        .unwrap();
        assert_eq!(
            out.key,
            smap(&[
                ("magic", Value::Int32(42)),
                ("int", Value::Int32(0)),
                ("string", "".into()),
                ("map", Value::Map(vec![])),
                ("missing", Value::Null),
            ])
        );
        let err = apply(
            &VALUE_PLUGIN,
            &[("fields", "b")],
            record(
                None,
                Value::Null,
                None,
                smap(&[("b", Value::Bytes(vec![1]))]),
            ),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "Cannot mask value of type: class [B");
    }

    #[test]
    fn null_values_are_refused() {
        let cases = [
            (
                None,
                "Only Map objects supported in absence of schema for [mask fields], found: null",
            ),
            (
                Some(SchemaBuilder::struct_().optional().build()),
                "Only Struct objects supported for [mask fields], found: null",
            ),
        ];
        for (schema, want) in cases {
            let err = apply(
                &VALUE_PLUGIN,
                &[("fields", "a")],
                record(None, Value::Null, schema, Value::Null),
            )
            .unwrap_err();
            assert_eq!(err.to_string(), want);
        }
    }

    #[test]
    fn defaults_are_masked_unless_disabled() {
        let schema = SchemaBuilder::struct_()
            .field(
                "a",
                SchemaBuilder::new(SchemaType::Int32)
                    .optional()
                    .default_value(Value::Int32(5))
                    .build(),
            )
            .build();
        for (replace, want) in [("true", Value::Int32(9)), ("false", Value::Null)] {
            let rec = record(
                None,
                Value::Null,
                Some(schema.clone()),
                strct(&schema, vec![Value::Null]),
            );
            let props = [
                ("fields", "a"),
                ("replacement", "9"),
                ("replace.null.with.default", replace),
            ];
            let Value::Struct(v) = apply(&VALUE_PLUGIN, &props, rec).unwrap().value else {
                panic!("struct")
            };
            assert_eq!(v.values(), &[want]);
        }
    }

    #[test]
    fn java_long_value_truncates_and_wraps() {
        assert_eq!(decimal_long_value("-7.9"), Some(-7));
        assert_eq!(decimal_long_value("18446744073709551617"), Some(1));
        assert_eq!(decimal_long_value("1e100"), Some(0));
        assert_eq!(decimal_long_value("12e-1"), Some(1));
        assert_eq!(decimal_long_value("x"), None);
    }
}
