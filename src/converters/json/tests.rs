//! Test vectors ported from Kafka's `JsonConverterTest` (expected strings written out in
//! Kafka's exact field order), plus a property-based round trip.

use super::*;
use connect_api::HeaderConverter;
use connect_api::{SchemaBuilder, Struct};
use num_bigint::BigInt;
use proptest::prelude::*;

fn conv(props: &[(&str, &str)]) -> JsonConverter {
    let mut c = JsonConverter::new();
    let map: ConfigMap = props
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Converter::configure(&mut c, &map, false).unwrap();
    c
}

fn write(c: &JsonConverter, schema: Option<&SchemaRef>, v: &Value) -> String {
    String::from_utf8(c.serialize(schema, v).unwrap().unwrap()).unwrap()
}

fn read(c: &JsonConverter, s: &str) -> SchemaAndValue {
    c.deserialize(Some(s.as_bytes())).unwrap()
}

fn read_err(c: &JsonConverter, s: &str) -> String {
    c.deserialize(Some(s.as_bytes())).unwrap_err().to_string()
}

fn req(t: SchemaType) -> SchemaRef {
    Schema::required(t)
}

fn opt(t: SchemaType) -> SchemaRef {
    Schema::optional(t)
}

#[test]
fn primitives_to_json_exact_bytes() {
    let c = JsonConverter::new();
    let cases: Vec<(SchemaRef, Value, &str)> = vec![
        (req(SchemaType::Boolean), Value::Boolean(true), r#"{"schema":{"type":"boolean","optional":false},"payload":true}"#),
        (req(SchemaType::Int8), Value::Int8(12), r#"{"schema":{"type":"int8","optional":false},"payload":12}"#),
        (req(SchemaType::Int16), Value::Int16(12), r#"{"schema":{"type":"int16","optional":false},"payload":12}"#),
        (req(SchemaType::Int32), Value::Int32(12), r#"{"schema":{"type":"int32","optional":false},"payload":12}"#),
        (req(SchemaType::Int64), Value::Int64(4_398_046_511_104), r#"{"schema":{"type":"int64","optional":false},"payload":4398046511104}"#),
        (req(SchemaType::Float32), Value::Float32(12.34), r#"{"schema":{"type":"float","optional":false},"payload":12.34}"#),
        (req(SchemaType::Float64), Value::Float64(12.34), r#"{"schema":{"type":"double","optional":false},"payload":12.34}"#),
        (req(SchemaType::Float64), Value::Float64(1e10), r#"{"schema":{"type":"double","optional":false},"payload":1.0E10}"#),
        (req(SchemaType::Float64), Value::Float64(1.5e-5), r#"{"schema":{"type":"double","optional":false},"payload":1.5E-5}"#),
        (req(SchemaType::Float32), Value::Float32(1.0), r#"{"schema":{"type":"float","optional":false},"payload":1.0}"#),
        (req(SchemaType::Float64), Value::Float64(f64::NAN), r#"{"schema":{"type":"double","optional":false},"payload":"NaN"}"#),
        (req(SchemaType::Bytes), Value::Bytes(b"test-string".to_vec()), r#"{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}"#),
        (req(SchemaType::String), "test-string".into(), r#"{"schema":{"type":"string","optional":false},"payload":"test-string"}"#),
        (req(SchemaType::String), "é\u{1}\n\"\\/".into(), "{\"schema\":{\"type\":\"string\",\"optional\":false},\"payload\":\"é\\u0001\\n\\\"\\\\/\"}"),
    ];
    for (schema, v, want) in cases {
        assert_eq!(write(&c, Some(&schema), &v), want);
    }
}

#[test]
fn containers_to_json_exact_bytes() {
    let c = JsonConverter::new();
    let s = SchemaBuilder::array(req(SchemaType::Int32)).build();
    let v = Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)]);
    assert_eq!(
        write(&c, Some(&s), &v),
        r#"{"schema":{"type":"array","items":{"type":"int32","optional":false},"optional":false},"payload":[1,2,3]}"#
    );
    let s = SchemaBuilder::map(req(SchemaType::String), req(SchemaType::Int32)).build();
    let v = Value::Map(vec![
        ("key1".into(), Value::Int32(12)),
        ("key2".into(), Value::Int32(15)),
    ]);
    assert_eq!(
        write(&c, Some(&s), &v),
        r#"{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":{"key1":12,"key2":15}}"#
    );
    let s = SchemaBuilder::map(req(SchemaType::Int32), req(SchemaType::Int32)).build();
    let v = Value::Map(vec![
        (Value::Int32(1), Value::Int32(12)),
        (Value::Int32(2), Value::Int32(15)),
    ]);
    assert_eq!(
        write(&c, Some(&s), &v),
        r#"{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":[[1,12],[2,15]]}"#
    );
    let s = SchemaBuilder::struct_()
        .field("id", req(SchemaType::Int32))
        .build();
    let v = Value::Struct(Struct::new(s.clone()).put("id", 1).unwrap());
    assert_eq!(
        write(&c, Some(&s), &v),
        r#"{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false},"payload":{"id":1}}"#
    );
    let s = SchemaBuilder::struct_()
        .field("field1", req(SchemaType::Boolean))
        .field("field2", req(SchemaType::String))
        .field("field3", req(SchemaType::String))
        .field("field4", req(SchemaType::Boolean))
        .build();
    let st = Struct::new(s.clone())
        .put("field1", true)
        .unwrap()
        .put("field2", "string2")
        .unwrap()
        .put("field3", "string3")
        .unwrap()
        .put("field4", false)
        .unwrap();
    assert_eq!(
        write(&c, Some(&s), &Value::Struct(st)),
        r#"{"schema":{"type":"struct","fields":[{"type":"boolean","optional":false,"field":"field1"},{"type":"string","optional":false,"field":"field2"},{"type":"string","optional":false,"field":"field3"},{"type":"boolean","optional":false,"field":"field4"}],"optional":false},"payload":{"field1":true,"field2":"string2","field3":"string3","field4":false}}"#
    );
    // Nested struct: the field's own schema keys come first, `field` last.
    let inner = SchemaBuilder::struct_()
        .field("x", opt(SchemaType::Int8))
        .optional()
        .build();
    let outer = SchemaBuilder::struct_().field("in", inner.clone()).build();
    let v = Value::Struct(Struct::new(outer.clone()));
    assert_eq!(
        write(&c, Some(&outer), &v),
        r#"{"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int8","optional":true,"field":"x"}],"optional":true,"field":"in"}],"optional":false},"payload":{"in":null}}"#
    );
}

#[test]
fn schema_metadata_order() {
    let c = JsonConverter::new();
    let s = SchemaBuilder::new(SchemaType::Boolean)
        .name("bool")
        .version(3)
        .doc("the documentation")
        .parameter("foo", "bar")
        .default_value(Value::Boolean(true))
        .build();
    assert_eq!(
        write(&c, Some(&s), &Value::Boolean(true)),
        r#"{"schema":{"type":"boolean","optional":false,"name":"bool","version":3,"doc":"the documentation","parameters":{"foo":"bar"},"default":true},"payload":true}"#
    );
    let back = read(
        &c,
        r#"{ "schema": { "type": "boolean", "optional": false, "name": "bool", "version": 2, "doc": "the documentation", "parameters": { "foo": "bar" }}, "payload": true }"#,
    );
    let want = SchemaBuilder::new(SchemaType::Boolean)
        .name("bool")
        .version(2)
        .doc("the documentation")
        .parameter("foo", "bar")
        .build();
    assert_eq!(back.schema, Some(want));
    assert_eq!(back.value, Value::Boolean(true));
    let back = read(
        &c,
        r#"{ "schema": { "type": "boolean", "default": true }, "payload": null }"#,
    );
    assert_eq!(back.value, Value::Boolean(true));
    assert_eq!(back.schema.unwrap().default, Some(Value::Boolean(true)));
}

#[test]
fn logical_types_to_json() {
    let c = JsonConverter::new();
    let d = logical::decimal(2).build();
    assert_eq!(
        write(&c, Some(&d), &Value::Bytes(vec![0, 0x9c])),
        r#"{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"AJw="}"#
    );
    // Non-minimal bytes are normalised like BigInteger.toByteArray().
    assert_eq!(
        write(&c, Some(&d), &Value::Bytes(vec![0, 0, 0x9c])),
        write(&c, Some(&d), &Value::Bytes(vec![0, 0x9c]))
    );
    let n = conv(&[(DECIMAL_FORMAT_CONFIG, "numeric")]);
    assert_eq!(
        write(&n, Some(&d), &Value::Bytes(vec![0, 0x9c])),
        r#"{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":1.56}"#
    );
    let d4 = logical::decimal(4).build();
    let v = Value::Bytes(BigInt::from(15600).to_signed_bytes_be());
    assert!(write(&n, Some(&d4), &v).ends_with(r#""payload":1.5600}"#));
    let d7 = logical::decimal(7).build();
    assert!(write(&n, Some(&d7), &Value::Bytes(vec![1])).ends_with(r#""payload":1E-7}"#));
    let dm = logical::decimal(-2).build();
    assert!(write(&n, Some(&dm), &Value::Bytes(vec![123])).ends_with(r#""payload":1.23E+4}"#));

    let date = logical::date().build();
    assert_eq!(
        write(&c, Some(&date), &Value::Int32(10000)),
        r#"{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},"payload":10000}"#
    );
    let time = logical::time().build();
    assert_eq!(
        write(&c, Some(&time), &Value::Int32(14_400_000)),
        r#"{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1},"payload":14400000}"#
    );
    let ts = logical::timestamp().build();
    assert_eq!(
        write(&c, Some(&ts), &Value::Int64(4_000_000_000)),
        r#"{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},"payload":4000000000}"#
    );
    let e = c
        .serialize(Some(&time), &Value::Int32(-1))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "Kafka Connect Time type should not have any date fields set to non-zero values."
    );
    let e = c
        .serialize(Some(&d), &Value::Int32(1))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "Invalid type for Decimal, expected BigDecimal but was class java.lang.Integer"
    );
    // A Decimal default is written in the configured format.
    let dd = logical::decimal(2)
        .default_value(Value::Bytes(vec![0, 0x9c]))
        .build();
    assert!(write(&c, Some(&dd), &Value::Null).contains(r#""default":"AJw="},"payload":"AJw=""#));
}

#[test]
fn logical_types_to_connect() {
    let c = JsonConverter::new();
    let dec = r#"{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "2" } }, "payload": "AJw=" }"#;
    let back = read(&c, dec);
    assert_eq!(back.schema, Some(logical::decimal(2).build()));
    assert_eq!(back.value, Value::Bytes(vec![0, 0x9c]));
    for payload in ["1.56", "1.560", "156e-2"] {
        let msg = format!(
            r#"{{ "schema": {{ "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": {{ "scale": "2" }} }}, "payload": {payload} }}"#
        );
        assert_eq!(
            read(&c, &msg).value,
            Value::Bytes(vec![0, 0x9c]),
            "{payload}"
        );
    }
    let msg = r#"{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "17" } }, "payload": 1.23456789123456789 }"#;
    assert_eq!(
        read(&c, msg).value,
        Value::Bytes(BigInt::from(123_456_789_123_456_789i64).to_signed_bytes_be())
    );
    let msg = r#"{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "optional": true, "parameters": { "scale": "2" } }, "payload": null }"#;
    assert_eq!(read(&c, msg).value, Value::Null);
    let msg = r#"{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "default": "AJw=", "parameters": { "scale": "2" } }, "payload": null }"#;
    assert_eq!(read(&c, msg).value, Value::Bytes(vec![0, 0x9c]));
    let msg = r#"{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": { "scale": "1" } }, "payload": 1.56 }"#;
    assert!(read_err(&c, msg).contains("mismatching scale"));

    let date = r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1 }, "payload": 10000 }"#;
    let back = read(&c, date);
    assert_eq!(back.schema, Some(logical::date().build()));
    assert_eq!(back.value, Value::Int32(10000));
    let date = r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1, "default": 0 }, "payload": null }"#;
    assert_eq!(read(&c, date).value, Value::Int32(0));
    let bad = r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1 }, "payload": 1.5 }"#;
    assert_eq!(
        read_err(&c, bad),
        "Invalid type for Date, underlying representation should be integer but was NUMBER"
    );
    let time = r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1 }, "payload": 14400000 }"#;
    assert_eq!(read(&c, time).value, Value::Int32(14_400_000));
    let bad = r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1 }, "payload": "x" }"#;
    assert_eq!(
        read_err(&c, bad),
        "Invalid type for Time, underlying representation should be integer but was STRING"
    );
    let ts = r#"{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1 }, "payload": 4000000000 }"#;
    assert_eq!(read(&c, ts).value, Value::Int64(4_000_000_000));
    let ts = r#"{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1,  "optional": true, "default": 42 }, "payload": null }"#;
    assert_eq!(read(&c, ts).value, Value::Int64(42));
}

#[test]
fn primitives_to_connect() {
    let c = JsonConverter::new();
    let cases: &[(&str, Value)] = &[
        (
            r#"{ "schema": { "type": "boolean" }, "payload": true }"#,
            Value::Boolean(true),
        ),
        (
            r#"{ "schema": { "type": "boolean" }, "payload": false }"#,
            Value::Boolean(false),
        ),
        (
            r#"{ "schema": { "type": "int8" }, "payload": 12 }"#,
            Value::Int8(12),
        ),
        (
            r#"{ "schema": { "type": "int16" }, "payload": 12 }"#,
            Value::Int16(12),
        ),
        (
            r#"{ "schema": { "type": "int32" }, "payload": 12 }"#,
            Value::Int32(12),
        ),
        (
            r#"{ "schema": { "type": "int64" }, "payload": 4398046511104 }"#,
            Value::Int64(4_398_046_511_104),
        ),
        (
            r#"{ "schema": { "type": "int8" }, "payload": 0012 }"#,
            Value::Int8(12),
        ),
        (
            r#"{ "schema": { "type": "int16" }, "payload": 000123 }"#,
            Value::Int16(123),
        ),
        (
            r#"{ "schema": { "type": "int32" }, "payload": 000012345 }"#,
            Value::Int32(12345),
        ),
        (
            r#"{ "schema": { "type": "int64" }, "payload": 00000123456789 }"#,
            Value::Int64(123_456_789),
        ),
        (
            r#"{ "schema": { "type": "float" }, "payload": 12.34 }"#,
            Value::Float32(12.34),
        ),
        (
            r#"{ "schema": { "type": "double" }, "payload": 12.34 }"#,
            Value::Float64(12.34),
        ),
        (
            r#"{ "schema": { "type": "bytes" }, "payload": "dGVzdC1zdHJpbmc=" }"#,
            Value::Bytes(b"test-string".to_vec()),
        ),
        (
            r#"{ "schema": { "type": "string" }, "payload": "foo-bar-baz" }"#,
            Value::String("foo-bar-baz".into()),
        ),
        // Jackson's lenient accessors.
        (
            r#"{ "schema": { "type": "int32" }, "payload": 1.9 }"#,
            Value::Int32(1),
        ),
        (
            r#"{ "schema": { "type": "int8" }, "payload": 300 }"#,
            Value::Int8(44),
        ),
        (
            r#"{ "schema": { "type": "int32" }, "payload": "12" }"#,
            Value::Int32(0),
        ),
    ];
    for (json, want) in cases {
        assert_eq!(&read(&c, json).value, want, "{json}");
    }
    let back = read(
        &c,
        r#"{ "schema": { "type": "boolean", "optional": true }, "payload": null }"#,
    );
    assert_eq!(back.schema, Some(opt(SchemaType::Boolean)));
    assert_eq!(back.value, Value::Null);
    assert_eq!(
        read_err(&c, r#"{ "schema": { "type": "int32" }, "payload": null }"#),
        "Invalid null value for required INT32 field"
    );
}

#[test]
fn containers_to_connect() {
    let c = JsonConverter::new();
    let back = read(
        &c,
        r#"{ "schema": { "type": "array", "items": { "type" : "int32" } }, "payload": [1, 2, 3] }"#,
    );
    assert_eq!(
        back.schema,
        Some(SchemaBuilder::array(req(SchemaType::Int32)).build())
    );
    assert_eq!(
        back.value,
        Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)])
    );
    let back = read(
        &c,
        r#"{ "schema": { "type": "map", "keys": { "type" : "string" }, "values": { "type" : "int32" } }, "payload": { "key1": 12, "key2": 15} }"#,
    );
    assert_eq!(
        back.value,
        Value::Map(vec![
            ("key1".into(), Value::Int32(12)),
            ("key2".into(), Value::Int32(15))
        ])
    );
    let back = read(
        &c,
        r#"{ "schema": { "type": "map", "keys": { "type" : "int32" }, "values": { "type" : "int32" } }, "payload": [ [1, 12], [2, 15] ] }"#,
    );
    assert_eq!(
        back.value,
        Value::Map(vec![
            (Value::Int32(1), Value::Int32(12)),
            (Value::Int32(2), Value::Int32(15))
        ])
    );
    let back = read(
        &c,
        r#"{ "schema": { "type": "struct", "fields": [{ "field": "field1", "type": "boolean" }, { "field": "field2", "type": "string" }] }, "payload": { "field1": true, "field2": "string" } }"#,
    );
    let s = SchemaBuilder::struct_()
        .field("field1", req(SchemaType::Boolean))
        .field("field2", req(SchemaType::String))
        .build();
    assert_eq!(back.schema.as_ref(), Some(&s));
    assert_eq!(
        back.value,
        Value::Struct(
            Struct::new(s)
                .put("field1", true)
                .unwrap()
                .put("field2", "string")
                .unwrap()
        )
    );
    let back = read(
        &c,
        r#"{ "schema": { "type": "struct", "fields": [{ "field":"optional", "type": "string", "optional": true }, {  "field": "required", "type": "string" }] }, "payload": { "required": "required" } }"#,
    );
    let Value::Struct(st) = back.value else {
        panic!()
    };
    assert_eq!(st.values(), &[Value::Null, "required".into()]);
    assert_eq!(
        read_err(
            &c,
            r#"{ "schema": { "type": "struct", "fields": [{ "field": "a", "type": "string" }] }, "payload": {} }"#
        ),
        "Invalid null value for required STRING field"
    );
    let errs: &[(&str, &str)] = &[
        (r#"{"schema":{"type":"map","keys":{"type":"string"},"values":{"type":"int32"}},"payload":[]}"#, "Maps with string fields should be encoded as JSON objects, but found ARRAY"),
        (r#"{"schema":{"type":"map","keys":{"type":"int8"},"values":{"type":"int32"}},"payload":{}}"#, "Maps with non-string fields should be encoded as JSON array of tuples, but found OBJECT"),
        (r#"{"schema":{"type":"map","keys":{"type":"int8"},"values":{"type":"int32"}},"payload":[1]}"#, "Found invalid map entry instead of array tuple: NUMBER"),
        (r#"{"schema":{"type":"map","keys":{"type":"int8"},"values":{"type":"int32"}},"payload":[[1]]}"#, "Found invalid map entry, expected length 2 but found :1"),
        (r#"{"schema":{"type":"struct","fields":[]},"payload":1}"#, "Structs should be encoded as JSON objects, but found NUMBER"),
        (r#"{"schema":{"type":"nope"},"payload":1}"#, "Unknown schema type: nope"),
        (r#"{"schema":{},"payload":1}"#, "Schema must contain 'type' field"),
        (r#"{"schema":{"type":"array"},"payload":1}"#, "Array schema did not specify the element type"),
        (r#"{"schema":{"type":"map","values":{"type":"int8"}},"payload":1}"#, "Map schema did not specify the key type"),
        (r#"{"schema":{"type":"struct"},"payload":1}"#, "Struct schema's \"fields\" argument is not an array."),
        (r#"{"schema":{"type":"struct","fields":[{"type":"int8"}]},"payload":1}"#, "Struct schema's field name not specified properly"),
        (r#"{"schema":{"type":"struct","fields":[{"type":"int8","field":"a"},{"type":"int8","field":"a"}]},"payload":1}"#, "Cannot create field because of field name duplication a"),
        (r#"{"schema":{"type":"int8","parameters":{"a":1}},"payload":1}"#, "Schema parameters must have string values."),
        (r#"{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal"},"payload":"AA=="}"#, "Invalid Decimal schema: scale parameter not found."),
    ];
    for (json, want) in errs {
        assert_eq!(&read_err(&c, json), want, "{json}");
    }
}

#[test]
fn envelope_and_null_rules() {
    let c = JsonConverter::new();
    // Both null: a tombstone; null bytes read as null.
    assert_eq!(c.serialize(None, &Value::Null).unwrap(), None);
    assert_eq!(c.deserialize(None).unwrap(), SchemaAndValue::default());
    // Optional schema with a null value: an envelope, not a tombstone.
    assert_eq!(
        write(&c, Some(&opt(SchemaType::String)), &Value::Null),
        r#"{"schema":{"type":"string","optional":true},"payload":null}"#
    );
    let e = c
        .serialize(Some(&req(SchemaType::String)), &Value::Null)
        .unwrap_err();
    assert_eq!(e.to_string(), NULL_REQUIRED_ERROR);
    assert!(matches!(e, ConnectError::Data(_)));
    assert_eq!(
        write(&c, None, &Value::Boolean(true)),
        r#"{"schema":null,"payload":true}"#
    );
    assert_eq!(
        write(
            &c,
            None,
            &Value::Array(vec![Value::Int32(1), "string".into(), Value::Boolean(true)])
        ),
        r#"{"schema":null,"payload":[1,"string",true]}"#
    );
    assert_eq!(
        write(
            &c,
            None,
            &Value::Map(vec![
                ("key1".into(), Value::Int32(12)),
                ("key2".into(), "string".into()),
                ("key3".into(), Value::Boolean(true))
            ])
        ),
        r#"{"schema":null,"payload":{"key1":12,"key2":"string","key3":true}}"#
    );
    assert_eq!(
        write(
            &c,
            None,
            &Value::Map(vec![
                ("string".into(), Value::Int32(12)),
                (Value::Int32(52), "string".into()),
                (Value::Boolean(false), Value::Boolean(true))
            ])
        ),
        r#"{"schema":null,"payload":[["string",12],[52,"string"],[false,true]]}"#
    );
    // Duplicate keys collapse like Jackson's ObjectNode: first position, last value.
    assert_eq!(
        write(
            &c,
            None,
            &Value::Map(vec![
                ("a".into(), Value::Int32(1)),
                ("b".into(), Value::Int32(2)),
                ("a".into(), Value::Int32(3))
            ])
        ),
        r#"{"schema":null,"payload":{"a":3,"b":2}}"#
    );
    for bad in [
        "{}",
        r#"{"schema":null}"#,
        r#"{"schema":null,"payload":1,"x":2}"#,
        "[]",
        "1",
        "",
    ] {
        assert_eq!(read_err(&c, bad), ENVELOPE_ERROR, "{bad}");
    }
    assert_eq!(
        read(&c, r#"{ "schema": null, "payload": null }"#),
        SchemaAndValue::default()
    );
    assert_eq!(
        read(&c, r#"{ "schema": null, "payload": 12 }"#).value,
        Value::Int64(12)
    );
    assert_eq!(
        read(&c, r#"{ "schema": null, "payload": 12.24 }"#).value,
        Value::Float64(12.24)
    );
    assert_eq!(
        read(&c, r#"{ "schema": null, "payload": [1, "2", 3] }"#).value,
        Value::Array(vec![Value::Int64(1), "2".into(), Value::Int64(3)])
    );
    assert_eq!(
        read(
            &c,
            r#"{ "schema": null, "payload": { "field1": 1, "field2": 2} }"#
        )
        .value,
        Value::Map(vec![
            ("field1".into(), Value::Int64(1)),
            ("field2".into(), Value::Int64(2))
        ])
    );
    let e = read_err(&c, "{not json");
    assert!(
        e.starts_with(
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ),
        "{e}"
    );
    let e = c
        .serialize(Some(&req(SchemaType::Float64)), &Value::Boolean(true))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Invalid type for FLOAT64: class java.lang.Boolean"
    );
    let e = c
        .serialize(
            None,
            &Value::Struct(Struct::new(SchemaBuilder::struct_().build())),
        )
        .unwrap_err();
    assert_eq!(e.to_string(), "Mismatching schema.");
    let other = SchemaBuilder::struct_()
        .field("a", opt(SchemaType::Int8))
        .build();
    let e = c
        .serialize(
            Some(&SchemaBuilder::struct_().build()),
            &Value::Struct(Struct::new(other)),
        )
        .unwrap_err();
    assert_eq!(e.to_string(), "Mismatching schema.");
    let e = c
        .serialize(Some(&req(SchemaType::Bytes)), &"x".into())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Invalid type for bytes type: class java.lang.String"
    );
}

#[test]
fn schemas_disabled() {
    let c = conv(&[(SCHEMAS_ENABLE_CONFIG, "false")]);
    assert_eq!(write(&c, None, &Value::Boolean(true)), "true");
    assert_eq!(
        write(&c, Some(&req(SchemaType::Int32)), &Value::Int32(5)),
        "5"
    );
    assert_eq!(c.serialize(None, &Value::Null).unwrap(), None);
    assert_eq!(
        write(&c, Some(&opt(SchemaType::Int32)), &Value::Null),
        "null"
    );
    assert_eq!(
        read(&c, "true"),
        SchemaAndValue {
            schema: None,
            value: Value::Boolean(true)
        }
    );
    assert_eq!(read(&c, ""), SchemaAndValue::default());
    assert_eq!(
        read(&c, r#"{ "a": "", "b": null}"#).value,
        Value::Map(vec![("a".into(), "".into()), ("b".into(), Value::Null)])
    );
    assert_eq!(
        read(&c, r#"{"schema":1,"payload":2}"#).value,
        Value::Map(vec![
            ("schema".into(), Value::Int64(1)),
            ("payload".into(), Value::Int64(2))
        ])
    );
    assert_eq!(read(&c, "1e2").value, Value::Float64(100.0));
    assert_eq!(
        read(&c, "99999999999999999999").value,
        Value::Int64(7_766_279_631_452_241_919)
    );
}

#[test]
fn replace_null_with_default() {
    let s = SchemaBuilder::new(SchemaType::String)
        .optional()
        .default_value("default".into())
        .build();
    let on = JsonConverter::new();
    let off = conv(&[(REPLACE_NULL_WITH_DEFAULT_CONFIG, "false")]);
    assert_eq!(
        write(&on, Some(&s), &Value::Null),
        r#"{"schema":{"type":"string","optional":true,"default":"default"},"payload":"default"}"#
    );
    assert_eq!(
        write(&off, Some(&s), &Value::Null),
        r#"{"schema":{"type":"string","optional":true,"default":"default"},"payload":null}"#
    );
    let json = r#"{"schema":{"type":"string","optional":true,"default":"default"},"payload":null}"#;
    assert_eq!(read(&on, json).value, "default".into());
    assert_eq!(read(&off, json).value, Value::Null);

    let st = SchemaBuilder::struct_().field("field1", s.clone()).build();
    assert_eq!(
        write(&on, Some(&st), &Value::Struct(Struct::new(st.clone()))),
        r#"{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"default","field":"field1"}],"optional":false},"payload":{"field1":"default"}}"#
    );
    assert_eq!(
        write(&off, Some(&st), &Value::Struct(Struct::new(st.clone()))),
        r#"{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"default","field":"field1"}],"optional":false},"payload":{"field1":null}}"#
    );
    let json = r#"{"schema":{"type":"struct","fields":[{"field":"field1","type":"string","optional":true,"default":"default"}],"optional":false},"payload":{"field1":null}}"#;
    assert_eq!(
        read(&on, json).value,
        Value::Struct(Struct::new(st.clone()).put("field1", "default").unwrap())
    );
    assert_eq!(read(&off, json).value, Value::Struct(Struct::new(st)));
}

#[test]
fn config_validation() {
    let mut c = JsonConverter::new();
    let bad: ConfigMap = [(DECIMAL_FORMAT_CONFIG.to_owned(), "HEX".to_owned())].into();
    let e = Converter::configure(&mut c, &bad, false).unwrap_err();
    assert!(matches!(e, ConnectError::Config { ref key, .. } if key == DECIMAL_FORMAT_CONFIG));
    let bad: ConfigMap = [(SCHEMAS_ENABLE_CONFIG.to_owned(), "maybe".to_owned())].into();
    assert!(Converter::configure(&mut c, &bad, false).is_err());
    let bad: ConfigMap = [(SCHEMAS_CACHE_SIZE_CONFIG.to_owned(), "x".to_owned())].into();
    assert!(Converter::configure(&mut c, &bad, false).is_err());
    let ok: ConfigMap = [
        (DECIMAL_FORMAT_CONFIG.to_owned(), "Numeric".to_owned()),
        (SCHEMAS_CACHE_SIZE_CONFIG.to_owned(), "5".to_owned()),
        ("converter.type".to_owned(), "value".to_owned()),
    ]
    .into();
    Converter::configure(&mut c, &ok, false).unwrap();
    assert_eq!(c.config().decimal_format, DecimalFormat::Numeric);
    assert_eq!(c.config().schemas_cache_size, 5);
    HeaderConverter::configure(&mut c, &ConfigMap::new()).unwrap();
    assert_eq!(c.config(), &JsonConverterConfig::default());
}

#[test]
fn schema_caches() {
    let c = conv(&[(SCHEMAS_CACHE_SIZE_CONFIG, "2")]);
    let s = SchemaBuilder::struct_()
        .field("a", req(SchemaType::Int8))
        .build();
    let v = Value::Struct(Struct::new(s.clone()).put("a", 1i8).unwrap());
    let a = write(&c, Some(&s), &v);
    let b = write(&c, Some(&s), &v);
    assert_eq!(a, b);
    assert_eq!(c.from_connect_schema_cache_len(), 1);
    for t in [SchemaType::Int16, SchemaType::Int32, SchemaType::Int64] {
        write(&c, Some(&opt(t)), &Value::Null);
    }
    assert_eq!(c.from_connect_schema_cache_len(), 2);
    let json = r#"{ "schema": { "type": "boolean" }, "payload": true }"#;
    let x = read(&c, json);
    let y = read(&c, json);
    assert!(Arc::ptr_eq(
        x.schema.as_ref().unwrap(),
        y.schema.as_ref().unwrap()
    ));
    assert_eq!(c.to_connect_schema_cache_len(), 1);
    read(
        &c,
        r#"{ "schema": { "type": "boolean", "optional": true }, "payload": true }"#,
    );
    read(
        &c,
        r#"{ "schema": { "type": "boolean", "optional": false }, "payload": true }"#,
    );
    assert_eq!(c.to_connect_schema_cache_len(), 2);
    let none = conv(&[(SCHEMAS_CACHE_SIZE_CONFIG, "0")]);
    read(&none, json);
    assert_eq!(none.to_connect_schema_cache_len(), 0);
}

#[test]
fn header_converter_delegates() {
    let c = JsonConverter::new();
    let out = c
        .from_connect_header(
            "t",
            "headerName",
            Some(&req(SchemaType::String)),
            &"test-string".into(),
        )
        .unwrap()
        .unwrap();
    assert_eq!(
        out,
        br#"{"schema":{"type":"string","optional":false},"payload":"test-string"}"#
    );
    let back = c
        .to_connect_header(
            "t",
            "headerName",
            Some(br#"{ "schema": { "type": "string" }, "payload": "foo-bar-baz" }"#),
        )
        .unwrap();
    assert_eq!(back.value, "foo-bar-baz".into());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let c = conv(&[(SCHEMAS_ENABLE_CONFIG, "false")]);
    let deep = "[".repeat(5000);
    assert!(c.deserialize(Some(deep.as_bytes())).is_err());
    let mut v = Value::Null;
    for _ in 0..1100 {
        v = Value::Array(vec![v]);
    }
    assert!(c.serialize(None, &v).is_err());
}

// ---- property-based round trip ----

fn arb_leaf_schema() -> impl Strategy<Value = SchemaRef> {
    let primitive = prop_oneof![
        Just(SchemaType::Boolean),
        Just(SchemaType::Int8),
        Just(SchemaType::Int16),
        Just(SchemaType::Int32),
        Just(SchemaType::Int64),
        Just(SchemaType::Float32),
        Just(SchemaType::Float64),
        Just(SchemaType::String),
        Just(SchemaType::Bytes),
    ];
    let plain = (
        primitive,
        any::<bool>(),
        proptest::option::of("[a-z.]{1,8}"),
        proptest::option::of(any::<i32>()),
        proptest::option::of(".{0,6}"),
        proptest::option::of(proptest::collection::btree_map(
            "[a-z]{1,4}",
            ".{0,4}",
            1..3,
        )),
    )
        .prop_map(|(t, optional, name, version, doc, params)| {
            let mut s = Schema::of(t, optional);
            s.name = name;
            s.version = version;
            s.doc = doc;
            s.parameters = params.map(|p| p.into_iter().collect());
            Arc::new(s)
        });
    let logical_schema = (
        prop_oneof![
            (-5i32..12).prop_map(logical::decimal),
            Just(logical::date()),
            Just(logical::time()),
            Just(logical::timestamp()),
        ],
        any::<bool>(),
    )
        .prop_map(|(b, optional)| {
            if optional {
                b.optional().build()
            } else {
                b.build()
            }
        });
    prop_oneof![4 => plain, 1 => logical_schema]
}

fn arb_schema() -> impl Strategy<Value = SchemaRef> {
    arb_leaf_schema().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (inner.clone(), any::<bool>()).prop_map(|(items, o)| {
                let b = SchemaBuilder::array(items);
                if o {
                    b.optional().build()
                } else {
                    b.build()
                }
            }),
            (inner.clone(), any::<bool>()).prop_map(|(values, o)| {
                let b = SchemaBuilder::map(req(SchemaType::String), values);
                if o {
                    b.optional().build()
                } else {
                    b.build()
                }
            }),
            (
                prop_oneof![
                    Just(SchemaType::Int32),
                    Just(SchemaType::Boolean),
                    Just(SchemaType::Int64)
                ],
                inner.clone()
            )
                .prop_map(|(k, values)| SchemaBuilder::map(req(k), values).build()),
            (
                proptest::collection::btree_map("[a-z]{1,6}", inner, 0..4),
                any::<bool>()
            )
                .prop_map(|(fields, o)| {
                    let mut b = SchemaBuilder::struct_();
                    for (name, s) in fields {
                        b = b.field(name, s);
                    }
                    if o {
                        b.optional().build()
                    } else {
                        b.build()
                    }
                }),
        ]
    })
}

// Finite and never -0.0: Kafka reads floats as BigDecimal, so -0.0 comes back as 0.0.
fn finite_f32() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("finite", |f| f.is_finite() && *f != 0.0 || f.to_bits() == 0)
}

fn finite_f64() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |f| f.is_finite() && *f != 0.0 || f.to_bits() == 0)
}

fn arb_value(schema: &SchemaRef) -> BoxedStrategy<Value> {
    let base: BoxedStrategy<Value> = match (logical_of(schema), schema.schema_type) {
        (Some(Logical::Decimal), _) => any::<i64>()
            .prop_map(|v| Value::Bytes(BigInt::from(v).to_signed_bytes_be()))
            .boxed(),
        (Some(Logical::Date), _) => any::<i32>().prop_map(Value::Int32).boxed(),
        (Some(Logical::Time), _) => (0..=86_400_000i32).prop_map(Value::Int32).boxed(),
        (Some(Logical::Timestamp), _) => any::<i64>().prop_map(Value::Int64).boxed(),
        (None, SchemaType::Boolean) => any::<bool>().prop_map(Value::Boolean).boxed(),
        (None, SchemaType::Int8) => any::<i8>().prop_map(Value::Int8).boxed(),
        (None, SchemaType::Int16) => any::<i16>().prop_map(Value::Int16).boxed(),
        (None, SchemaType::Int32) => any::<i32>().prop_map(Value::Int32).boxed(),
        (None, SchemaType::Int64) => any::<i64>().prop_map(Value::Int64).boxed(),
        (None, SchemaType::Float32) => finite_f32().prop_map(Value::Float32).boxed(),
        (None, SchemaType::Float64) => finite_f64().prop_map(Value::Float64).boxed(),
        (None, SchemaType::String) => ".{0,8}".prop_map(Value::String).boxed(),
        (None, SchemaType::Bytes) => proptest::collection::vec(any::<u8>(), 0..8)
            .prop_map(Value::Bytes)
            .boxed(),
        (None, SchemaType::Array) => {
            let items = schema.value_schema.clone().unwrap();
            proptest::collection::vec(arb_value(&items), 0..4)
                .prop_map(Value::Array)
                .boxed()
        }
        (None, SchemaType::Map) => {
            let ks = schema.key_schema.clone().unwrap();
            let vs = schema.value_schema.clone().unwrap();
            if ks.schema_type == SchemaType::String {
                proptest::collection::btree_map(".{0,5}", arb_value(&vs), 0..4)
                    .prop_map(|m| {
                        Value::Map(m.into_iter().map(|(k, v)| (Value::String(k), v)).collect())
                    })
                    .boxed()
            } else {
                // Distinct keys: a repeated key is read back once, with its last value.
                proptest::collection::vec((arb_value(&ks), arb_value(&vs)), 0..4)
                    .prop_map(|mut entries| {
                        let mut seen = Vec::new();
                        entries.retain(|(k, _)| {
                            let d = format!("{k:?}");
                            let fresh = matches!(k, Value::Bytes(_)) || !seen.contains(&d);
                            seen.push(d);
                            fresh
                        });
                        Value::Map(entries)
                    })
                    .boxed()
            }
        }
        (None, SchemaType::Struct) => {
            let s = schema.clone();
            let fields: Vec<BoxedStrategy<Value>> =
                schema.fields.iter().map(|f| arb_value(&f.schema)).collect();
            fields
                .prop_map(move |vals| Value::Struct(Struct::from_values(s.clone(), vals).unwrap()))
                .boxed()
        }
    };
    if schema.optional {
        prop_oneof![1 => Just(Value::Null), 4 => base].boxed()
    } else {
        base
    }
}

fn arb_schema_and_value() -> impl Strategy<Value = (SchemaRef, Value)> {
    arb_schema().prop_flat_map(|s| {
        let v = arb_value(&s);
        (Just(s), v)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn round_trip_with_schemas(
        (schema, value) in arb_schema_and_value(),
        numeric in any::<bool>(),
    ) {
        let c = if numeric { conv(&[(DECIMAL_FORMAT_CONFIG, "NUMERIC")]) } else { JsonConverter::new() };
        let bytes = c.serialize(Some(&schema), &value).unwrap();
        let back = c.deserialize(bytes.as_deref()).unwrap();
        prop_assert_eq!(back.schema.as_ref(), Some(&schema));
        prop_assert_eq!(&back.value, &value);
        // Writing again gives the same bytes.
        let again = c.serialize(back.schema.as_ref(), &back.value).unwrap();
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = JsonConverter::new().deserialize(Some(&data));
        let _ = conv(&[(SCHEMAS_ENABLE_CONFIG, "false")]).deserialize(Some(&data));
    }

    #[test]
    fn arbitrary_json_text_never_panics(s in r#"[\[\]{}":,0-9a-z.eE+\- ]{0,40}"#) {
        let _ = JsonConverter::new().deserialize(Some(s.as_bytes()));
        let _ = conv(&[(SCHEMAS_ENABLE_CONFIG, "false")]).deserialize(Some(s.as_bytes()));
        let _ = connect_api::values::parse_string(&s);
    }
}

mod stream;
