use num_bigint::BigInt;

use super::*;
use crate::{logical, Schema, SchemaBuilder, SchemaRef, SchemaType, Struct, Value};

fn parse(s: &str) -> Parsed {
    parse_string(s).unwrap()
}

fn parsed_type(s: &str) -> SchemaType {
    parse(s).unwrap().0.schema_type
}

fn string_of(s: &str) {
    let (schema, v) = parse(s).unwrap();
    assert_eq!(schema.schema_type, SchemaType::String, "{s}");
    assert_eq!(v, Value::String(s.to_owned()), "{s}");
}

#[test]
fn literals_and_strings() {
    assert_eq!(
        parse(""),
        Some((
            Schema::required(SchemaType::String),
            Value::String(String::new())
        ))
    );
    assert_eq!(parse("null"), None);
    assert_eq!(parse("\n \t \t\nnull\n \t \t\n"), None);
    assert_eq!(parse(" true ").unwrap().1, Value::Boolean(true));
    assert_eq!(parse("\n \t false\n").unwrap().1, Value::Boolean(false));
    for s in [
        "null=",
        "true}",
        "false]",
        "{foo: 3}",
        "{3: foo}",
        "[foo]",
        "{6:9 4:20}",
        "[0 1 2]",
        "{null: 3}",
        "[1, 2, 3,,,]",
        "[1, null]",
        "[null, 1]",
        "simple",
        "simple string",
        "  ",
        "'simple' string",
        "si\\mple",
        "three\"blind\\\"mice",
        "\u{ffff}",
        "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':",
    ] {
        string_of(s);
    }
}

#[test]
fn numbers() {
    let cases: &[(&str, Value)] = &[
        ("127", Value::Int8(127)),
        ("-128", Value::Int8(-128)),
        ("32767", Value::Int16(32767)),
        ("-32768", Value::Int16(-32768)),
        ("2147483647", Value::Int32(i32::MAX)),
        ("-2147483648", Value::Int32(i32::MIN)),
        ("9223372036854775807", Value::Int64(i64::MAX)),
        ("-9223372036854775808", Value::Int64(i64::MIN)),
        ("1.0", Value::Int8(1)),
        ("1.1", Value::Float32(1.1)),
        ("300.0", Value::Int16(300)),
        ("300.01", Value::Float32(300.01)),
        ("66000.0", Value::Int32(66000)),
        ("66000.0008", Value::Float32(66000.0008)),
        ("3.4028235E38", Value::Float32(f32::MAX)),
        ("-3.4028235E38", Value::Float32(-f32::MAX)),
        ("1.7976931348623157E308", Value::Float64(f64::MAX)),
        ("+5", Value::Int8(5)),
        ("1e2", Value::Int8(100)),
    ];
    for (s, want) in cases {
        assert_eq!(&parse(s).unwrap().1, want, "{s}");
    }
    let (schema, v) = parse("9223372036854775808").unwrap();
    assert_eq!(schema, logical::decimal(0).build());
    assert_eq!(
        v,
        Value::Bytes(BigInt::from(i64::MAX as i128 + 1).to_signed_bytes_be())
    );
    let (schema, _) = parse("-9223372036854775809").unwrap();
    assert_eq!(schema, logical::decimal(0).build());
    // Numbers only read the first token at top level, like Kafka.
    assert_eq!(parse("12,5").unwrap().1, Value::Int8(12));
    string_of("12 abc");
    string_of("0x10");
}

#[test]
fn temporals() {
    let (schema, v) = parse("2019-08-23T14:34:54.346Z").unwrap();
    assert_eq!(schema, logical::timestamp().build());
    assert_eq!(v, Value::Int64(1_566_570_894_346));
    let (schema, v) = parse("2019-08-23").unwrap();
    assert_eq!(schema, logical::date().build());
    assert_eq!(v, Value::Int32(18_131));
    let (schema, v) = parse("14:34:54.346Z").unwrap();
    assert_eq!(schema, logical::time().build());
    assert_eq!(v, Value::Int32(52_494_346));
    assert_eq!(
        parse("2019-08-23T14\\:34\\:54.346Z").unwrap().1,
        Value::Int64(1_566_570_894_346)
    );
    assert_eq!(
        parse("14\\:34\\:54.346Z").unwrap().1,
        Value::Int32(52_494_346)
    );
    let (schema, v) = parse("[2019-08-23]").unwrap();
    assert_eq!(
        schema.value_schema.as_deref(),
        Some(&*logical::date().build())
    );
    assert_eq!(v, Value::Array(vec![Value::Int32(18_131)]));
    let (schema, v) = parse("[14:34:54.346Z]").unwrap();
    assert_eq!(
        schema.value_schema.as_deref(),
        Some(&*logical::time().build())
    );
    assert_eq!(v, Value::Array(vec![Value::Int32(52_494_346)]));
    let (_, v) =
        parse("[2019-08-23T14:34:54.346Z,2019-01-23T15:12:34.567Z,   2019-04-23T19:12:34.567Z]")
            .unwrap();
    let Value::Array(items) = v else { panic!() };
    assert_eq!(items.len(), 3);
    for m in ["{\"k1\":\"14:34:54.346Z\"}", "{\"k1\":14:34:54.346Z}"] {
        let (schema, v) = parse(m).unwrap();
        assert_eq!(
            schema.key_schema.as_ref().unwrap().schema_type,
            SchemaType::String
        );
        assert_eq!(
            schema.value_schema.as_deref(),
            Some(&*logical::time().build())
        );
        assert_eq!(v, Value::Map(vec![("k1".into(), Value::Int32(52_494_346))]));
    }
    // Lenient like SimpleDateFormat: month 13 rolls over.
    assert_eq!(parse("2018-13-01").unwrap().1, Value::Int32(17_897));
    string_of("2019-08-x3");
    // SimpleDateFormat only needs a matching prefix: "2x" reads as day 2.
    assert_eq!(parse("2019-08-2x").unwrap().1, Value::Int32(18_110));
}

#[test]
fn arrays_and_maps() {
    let (schema, v) = parse("[true, false]").unwrap();
    assert_eq!(
        schema.value_schema.as_ref().unwrap().schema_type,
        SchemaType::Boolean
    );
    assert_eq!(
        v,
        Value::Array(vec![Value::Boolean(true), Value::Boolean(false)])
    );
    let (schema, v) = parse("{true: false, false: true}").unwrap();
    assert_eq!(
        schema.key_schema.as_ref().unwrap().schema_type,
        SchemaType::Boolean
    );
    assert_eq!(
        v,
        Value::Map(vec![
            (Value::Boolean(true), Value::Boolean(false)),
            (Value::Boolean(false), Value::Boolean(true))
        ])
    );
    assert_eq!(parsed_type("{}"), SchemaType::Map);
    assert_eq!(parse("[]").unwrap().1, Value::Array(vec![]));
    let (schema, v) = parse("{3: null}").unwrap();
    assert_eq!(
        schema.key_schema.as_ref().unwrap().schema_type,
        SchemaType::Int8
    );
    assert!(schema.value_schema.is_none());
    assert_eq!(v, Value::Map(vec![(Value::Int8(3), Value::Null)]));
    let (schema, v) = parse("[null]").unwrap();
    assert!(schema.value_schema.is_none());
    assert_eq!(v, Value::Array(vec![Value::Null]));
    // Mixed element types: no common schema, values as parsed.
    let (schema, v) = parse("[1, 2, 300, \"four\"]").unwrap();
    assert!(schema.value_schema.is_none());
    assert_eq!(
        v,
        Value::Array(vec![
            Value::Int8(1),
            Value::Int8(2),
            Value::Int16(300),
            "four".into()
        ])
    );
    let (schema, v) = parse("{1:1, 2:1, 300:300, 4:\"four\"}").unwrap();
    assert!(schema.value_schema.is_none());
    assert_eq!(
        schema.key_schema.as_ref().unwrap().schema_type,
        SchemaType::Int16
    );
    assert_eq!(
        v,
        Value::Map(vec![
            (Value::Int16(1), Value::Int8(1)),
            (Value::Int16(2), Value::Int8(1)),
            (Value::Int16(300), Value::Int16(300)),
            (Value::Int16(4), "four".into()),
        ])
    );
    // Numeric widening to the common type.
    let (schema, v) = parse("[1, 300, 1.5]").unwrap();
    assert_eq!(
        schema.value_schema.as_ref().unwrap().schema_type,
        SchemaType::Float32
    );
    assert_eq!(
        v,
        Value::Array(vec![
            Value::Float32(1.0),
            Value::Float32(300.0),
            Value::Float32(1.5)
        ])
    );
    assert_eq!(
        parse("[[]]")
            .unwrap()
            .0
            .value_schema
            .as_ref()
            .unwrap()
            .schema_type,
        SchemaType::Array
    );
    assert_eq!(
        parse("[{}]")
            .unwrap()
            .0
            .value_schema
            .as_ref()
            .unwrap()
            .schema_type,
        SchemaType::Map
    );
    assert_eq!(
        parse("{\"a\":{}}")
            .unwrap()
            .0
            .value_schema
            .as_ref()
            .unwrap()
            .schema_type,
        SchemaType::Map
    );
    assert_eq!(
        parse("{\"a\":[]}")
            .unwrap()
            .0
            .value_schema
            .as_ref()
            .unwrap()
            .schema_type,
        SchemaType::Array
    );
    // Embedded strings keep their escapes (Kafka does not unescape).
    assert_eq!(
        parse(r#"["a\"b"]"#).unwrap().1,
        Value::Array(vec![Value::String(r#"a\"b"#.into())])
    );
    let (schema, _) = parse("[9223372036854775808, -9223372036854775809]").unwrap();
    assert_eq!(
        schema.value_schema.as_deref(),
        Some(&*logical::decimal(0).build())
    );
}

#[test]
fn to_string_forms() {
    let s = |schema: Option<&SchemaRef>, v: &Value| convert_to_string(schema, v).unwrap();
    assert_eq!(convert_to_string(None, &Value::Null), None);
    assert_eq!(
        s(None, &"three\"blind\\\"mice".into()),
        "three\"blind\\\"mice"
    );
    assert_eq!(
        s(None, &Value::Array(vec!["three\"blind\\\"mice".into()])),
        r#"["three\"blind\\\"mice"]"#
    );
    assert_eq!(s(None, &Value::Float64(1e10)), "1.0E10");
    assert_eq!(s(None, &Value::Float32(1.5)), "1.5");
    assert_eq!(s(None, &Value::Bytes(b"test".to_vec())), "dGVzdA==");
    assert_eq!(
        s(
            None,
            &Value::Map(vec![
                ("foo".into(), "123".into()),
                ("bar".into(), Value::Null)
            ])
        ),
        r#"{"foo":"123","bar":null}"#
    );
    assert_eq!(
        s(
            None,
            &Value::Array(vec![
                Value::Int32(1),
                Value::Bytes(vec![0]),
                Value::Boolean(true)
            ])
        ),
        r#"[1,"AA==",true]"#
    );
    let schema = SchemaBuilder::struct_()
        .field("a", Schema::required(SchemaType::Int32))
        .field(
            "b",
            SchemaBuilder::new(SchemaType::String)
                .optional()
                .default_value("d".into())
                .build(),
        )
        .field("c", logical::date().build())
        .build();
    let st = Struct::new(schema.clone())
        .put("a", 5)
        .unwrap()
        .put("c", 18_131)
        .unwrap();
    assert_eq!(
        s(Some(&schema), &Value::Struct(st)),
        r#"{"a":5,"b":"d","c":2019-08-23}"#
    );
    assert_eq!(
        s(
            Some(&logical::decimal(2).build()),
            &Value::Bytes(vec![0, 0x9c])
        ),
        "1.56"
    );
    assert_eq!(
        s(Some(&logical::time().build()), &Value::Int32(52_494_346)),
        "14:34:54.346Z"
    );
    assert_eq!(
        s(
            Some(&logical::timestamp().build()),
            &Value::Int64(1_566_570_894_346)
        ),
        "2019-08-23T14:34:54.346Z"
    );
    // Epoch day 0 is below one day of millis, so Kafka formats it as a time.
    assert_eq!(
        s(Some(&logical::date().build()), &Value::Int32(0)),
        "00:00:00.000Z"
    );
}

#[test]
fn round_trips_through_strings() {
    let cases: Vec<(Option<SchemaRef>, Value)> = vec![
        (None, Value::Boolean(true)),
        (None, Value::Int8(1)),
        (None, Value::Int16(12345)),
        (None, Value::Int32(1_234_567_890)),
        (None, Value::Int64(1_234_567_890_123)),
        (None, Value::Float32(1.5)),
        (None, Value::Float64(1.25e300)),
        (None, "simple".into()),
        (
            None,
            Value::Map(vec![
                ("foo".into(), Value::Int16(12345)),
                ("bar".into(), Value::Int16(0)),
                ("baz".into(), Value::Int16(-4321)),
            ]),
        ),
        (None, Value::Array(vec!["foo".into(), "bar".into()])),
        (
            Some(logical::timestamp().build()),
            Value::Int64(1_566_570_894_346),
        ),
        (Some(logical::date().build()), Value::Int32(18_131)),
        (Some(logical::time().build()), Value::Int32(52_494_346)),
    ];
    for (schema, v) in cases {
        let s = convert_to_string(schema.as_ref(), &v).unwrap();
        let (_, back) = parse(&s).unwrap();
        assert_eq!(back, v, "{s}");
    }
}
