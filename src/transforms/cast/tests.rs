use super::*;
use connect_api::{logical, Schema};
use num_bigint::BigInt;

fn configured(plugin: &TransformationPlugin, spec: &str) -> Result<Box<dyn Transformation>> {
    configured_with(plugin, &[("spec", spec)])
}

fn configured_with(
    plugin: &TransformationPlugin,
    pairs: &[(&str, &str)],
) -> Result<Box<dyn Transformation>> {
    let mut t = (plugin.new)();
    let props = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    t.configure(&props).map(|()| t)
}

fn apply_value(
    t: &mut Box<dyn Transformation>,
    schema: Option<SchemaRef>,
    value: Value,
) -> Result<(Option<SchemaRef>, Value)> {
    let record = ConnectRecord {
        value_schema: schema,
        value,
        ..ConnectRecord::default()
    };
    let out = t.apply(record, &RecordContext::source())?.unwrap();
    Ok((out.value_schema, out.value))
}

fn decimal_bytes(unscaled: i64) -> Value {
    Value::Bytes(BigInt::from(unscaled).to_signed_bytes_be())
}

#[test]
fn whole_value_casts_without_schema() {
    let ok = |v: Value| -> std::result::Result<Value, &'static str> { Ok(v) };
    let cases: Vec<(&str, Value, std::result::Result<Value, &str>)> = vec![
        ("int8", Value::Int32(300), ok(Value::Int8(44))),
        ("int16", Value::Int64(70_000), ok(Value::Int16(4464))),
        ("int32", "42".into(), ok(Value::Int32(42))),
        ("int32", "+7".into(), ok(Value::Int32(7))),
        ("int64", Value::Float64(-2.7), ok(Value::Int64(-2))),
        ("int32", Value::Float64(1e20), ok(Value::Int32(i32::MAX))),
        ("int8", Value::Float32(300.0), ok(Value::Int8(44))),
        ("float32", "1.5f".into(), ok(Value::Float32(1.5))),
        ("float64", " 2e3 ".into(), ok(Value::Float64(2000.0))),
        (
            "float64",
            "-Infinity".into(),
            ok(Value::Float64(f64::NEG_INFINITY)),
        ),
        ("float64", Value::Boolean(true), ok(Value::Float64(1.0))),
        ("boolean", "TRUE".into(), ok(Value::Boolean(true))),
        ("boolean", "yes".into(), ok(Value::Boolean(false))),
        ("boolean", Value::Float64(0.5), ok(Value::Boolean(false))),
        ("boolean", Value::Int8(-1), ok(Value::Boolean(true))),
        ("string", Value::Bytes(vec![1, 2, 3]), ok("AQID".into())),
        ("string", Value::Float64(1e10), ok("1.0E10".into())),
        ("string", Value::Float32(0.1), ok("0.1".into())),
        ("STRING", Value::Boolean(false), ok("false".into())),
        ("string", Value::Int16(-5), ok("-5".into())),
        (
            "int32",
            "abc".into(),
            Err("Value (abc) was out of range for requested data type"),
        ),
        (
            "int8",
            "128".into(),
            Err("Value (128) was out of range for requested data type"),
        ),
        (
            "float64",
            "1.5x".into(),
            Err("Value (1.5x) was out of range for requested data type"),
        ),
        (
            "int32",
            Value::Bytes(vec![1]),
            Err("Unexpected type in Cast transformation: class [B"),
        ),
        (
            "int32",
            Value::Map(vec![]),
            Err(
                "Cast transformation does not support casting from MAP; supported types are \
                 [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]",
            ),
        ),
        (
            "string",
            Value::Array(vec![]),
            Err(
                "Cast transformation does not support casting from ARRAY; supported types are \
                 [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]",
            ),
        ),
    ];
    for (spec, input, expected) in cases {
        let mut t = configured(&VALUE_PLUGIN, spec).unwrap();
        let got = apply_value(&mut t, None, input.clone());
        match (got, expected) {
            (Ok((schema, v)), Ok(e)) => {
                assert!(schema.is_none());
                assert_eq!(v, e, "{spec} {input:?}");
            }
            (Err(err), Err(e)) => assert_eq!(err.to_string(), e, "{spec} {input:?}"),
            (got, e) => panic!("{spec} {input:?}: got {got:?}, expected {e:?}"),
        }
    }
}

#[test]
fn whole_value_casts_with_schema_keep_name_and_optionality() {
    let ts = logical::timestamp().optional().build();
    let date = logical::date().build();
    let time = logical::time().build();
    let dec = logical::decimal(2).build();
    let cases: Vec<(&str, SchemaRef, Value, SchemaType, Value)> = vec![
        (
            "string",
            ts.clone(),
            Value::Int64(86_401_000),
            SchemaType::String,
            "1970-01-02T00:00:01.000Z".into(),
        ),
        (
            "int64",
            ts.clone(),
            Value::Int64(5),
            SchemaType::Int64,
            Value::Int64(5),
        ),
        (
            "int32",
            date.clone(),
            Value::Int32(18_131),
            SchemaType::Int32,
            Value::Int32(18_131),
        ),
        (
            "string",
            date,
            Value::Int32(18_131),
            SchemaType::String,
            "2019-08-23".into(),
        ),
        (
            "string",
            time,
            Value::Int32(3_723_004),
            SchemaType::String,
            "01:02:03.004Z".into(),
        ),
        (
            "string",
            dec.clone(),
            decimal_bytes(12_345),
            SchemaType::String,
            "123.45".into(),
        ),
        (
            "int32",
            dec.clone(),
            decimal_bytes(-12_399),
            SchemaType::Int32,
            Value::Int32(-123),
        ),
        (
            "float64",
            dec.clone(),
            decimal_bytes(12_345),
            SchemaType::Float64,
            Value::Float64(123.45),
        ),
        (
            "boolean",
            dec,
            decimal_bytes(50),
            SchemaType::Boolean,
            Value::Boolean(false),
        ),
        (
            "int16",
            Schema::required(SchemaType::String),
            "-12".into(),
            SchemaType::Int16,
            Value::Int16(-12),
        ),
    ];
    for (spec, schema, input, out_type, expected) in cases {
        let mut t = configured(&VALUE_PLUGIN, spec).unwrap();
        let (out_schema, v) = apply_value(&mut t, Some(schema.clone()), input).unwrap();
        let out_schema = out_schema.unwrap();
        assert_eq!(v, expected, "{spec} {:?}", schema.name);
        assert_eq!(out_schema.schema_type, out_type);
        assert_eq!(
            out_schema.name, schema.name,
            "copySchemaBasics keeps the name"
        );
        assert_eq!(out_schema.optional, schema.optional);
    }
}

fn record_schema() -> SchemaRef {
    SchemaBuilder::struct_()
        .name("rec")
        .field(
            "a",
            SchemaBuilder::new(SchemaType::Int32)
                .optional()
                .default_value(Value::Int32(5))
                .build(),
        )
        .field("b", Schema::required(SchemaType::String))
        .field("c", Schema::optional(SchemaType::Bytes))
        .field("d", Schema::optional(SchemaType::Float64))
        .build()
}

#[test]
fn struct_fields_are_cast_and_others_kept() {
    let schema = record_schema();
    for (replace, a) in [("true", Value::from("5")), ("false", Value::Null)] {
        let mut t = configured_with(
            &VALUE_PLUGIN,
            &[
                ("spec", "a:string, b:int64, c:string, zz:int8"),
                ("replace.null.with.default", replace),
            ],
        )
        .unwrap();
        let value = Struct::new(schema.clone())
            .put("b", "7")
            .unwrap()
            .put("c", vec![0xffu8])
            .unwrap()
            .put("d", 1.5)
            .unwrap();
        let (out_schema, out) =
            apply_value(&mut t, Some(schema.clone()), Value::Struct(value)).unwrap();
        let out_schema = out_schema.unwrap();
        assert_eq!(out_schema.name.as_deref(), Some("rec"));
        let a_schema = &out_schema.field("a").unwrap().schema;
        assert_eq!(a_schema.schema_type, SchemaType::String);
        assert!(a_schema.optional);
        assert_eq!(a_schema.default, Some(Value::from("5")));
        assert_eq!(
            out_schema.field("b").unwrap().schema,
            Schema::required(SchemaType::Int64)
        );
        assert_eq!(
            out_schema.field("d").unwrap().schema,
            schema.field("d").unwrap().schema
        );
        let Value::Struct(s) = out else {
            panic!("not a struct")
        };
        assert_eq!(
            s.values(),
            &[a, Value::Int64(7), "/w==".into(), Value::Float64(1.5)],
            "replace.null.with.default={replace}"
        );
    }
}

#[test]
fn struct_errors_match_kafka() {
    let schema = record_schema();
    let mut t = configured(&VALUE_PLUGIN, "b:int32").unwrap();
    let e = apply_value(
        &mut t,
        Some(schema.clone()),
        Value::Struct(Struct::new(schema.clone())),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Invalid value: null used for required field: \"b\", schema type: INT32"
    );
    let e = apply_value(&mut t, Some(schema.clone()), "x".into()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Only Struct objects supported for [cast types], found: java.lang.String"
    );
    let e = apply_value(&mut t, None, "x".into()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Only Map objects supported in absence of schema for [cast types], found: java.lang.String"
    );
}

#[test]
fn schemaless_map_fields_are_cast_and_missing_ones_added_as_null() {
    let mut t = configured(&KEY_PLUGIN, "a:boolean,z:int8").unwrap();
    let record = ConnectRecord {
        key: Value::Map(vec![
            ("a".into(), Value::Int32(1)),
            ("b".into(), "x".into()),
        ]),
        ..ConnectRecord::default()
    };
    let out = t.apply(record, &RecordContext::source()).unwrap().unwrap();
    assert_eq!(
        out.key,
        Value::Map(vec![
            ("a".into(), Value::Boolean(true)),
            ("b".into(), "x".into()),
            ("z".into(), Value::Null),
        ])
    );
}

#[test]
fn null_values_pass_unchanged() {
    let mut t = configured(&VALUE_PLUGIN, "int8").unwrap();
    let schema = Schema::optional(SchemaType::String);
    let (s, v) = apply_value(&mut t, Some(schema.clone()), Value::Null).unwrap();
    assert_eq!((s, v), (Some(schema), Value::Null));
}

#[test]
fn spec_errors_match_kafka() {
    let cases = [
        ("", "Must specify at least one field to cast."),
        (
            "a:foo",
            "Invalid value java.lang.IllegalArgumentException: No enum constant \
             org.apache.kafka.connect.data.Schema.Type.FOO for configuration Invalid type \
             found in casting spec: foo",
        ),
        ("a:", "Schema.Type.A for configuration Invalid type found in casting spec: a"),
        ("::", "Index 1 out of bounds for length 0"),
        (
            "a:bytes",
            "Cast transformation does not support casting to BYTES; supported types are \
             [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]",
        ),
        (
            "a:b:c,d:int8",
            "Invalid value [a:b:c, d:int8] for configuration renames: Invalid rename mapping: a:b:c",
        ),
        (
            "int8,a:int16",
            "Cast transformations that specify a type to cast the entire value to may only \
             specify a single cast in their spec",
        ),
    ];
    for (spec, message) in cases {
        let e = configured(&VALUE_PLUGIN, spec).err().unwrap().to_string();
        assert!(e.ends_with(message), "{spec}: {e}");
    }
    let e = configured_with(&VALUE_PLUGIN, &[])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("Missing required configuration \"spec\""), "{e}");
    let e = configured_with(
        &VALUE_PLUGIN,
        &[("spec", "a:foo"), ("replace.null.with.default", "maybe")],
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("Invalid type found in casting spec: foo"),
        "spec is checked first: {e}"
    );
}
