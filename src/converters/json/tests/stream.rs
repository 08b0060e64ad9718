//! The streaming reader (`stream.rs`) against the tree reader it stands in for: same values,
//! same errors, and no giving up on ordinary records.

use super::*;

const STRUCT_AB: &str = r#"{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"},{"type":"string","optional":true,"default":"d","field":"b"}],"optional":false}"#;

/// Reads `text` with the streaming reader, which must not give up, and checks the tree reader
/// reads the same.
fn fast(c: &JsonConverter, text: &str) -> SchemaAndValue {
    let got = c
        .read_streaming(text.as_bytes())
        .unwrap_or_else(|_| panic!("streaming reader gave up on {text}"));
    assert_eq!(got, c.deserialize_tree(text.as_bytes()).unwrap(), "{text}");
    assert_eq!(got, c.deserialize(Some(text.as_bytes())).unwrap(), "{text}");
    got
}

/// Reads `text`, which the streaming reader must hand to the tree reader; returns the result.
fn handed_over(c: &JsonConverter, text: &str) -> Result<SchemaAndValue> {
    assert!(c.read_streaming(text.as_bytes()).is_err(), "{text}");
    let tree = c.deserialize_tree(text.as_bytes());
    let got = c.deserialize(Some(text.as_bytes()));
    match (&tree, &got) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
        _ => panic!("{text}: tree {tree:?}, deserialize {got:?}"),
    }
    got
}

fn err(c: &JsonConverter, text: &str) -> String {
    handed_over(c, text).unwrap_err().to_string()
}

fn struct_ab(a: i32, b: Option<&str>) -> Value {
    let schema = c_schema(STRUCT_AB);
    Value::Struct(
        Struct::from_values(
            schema,
            vec![Value::Int32(a), b.map_or(Value::Null, Value::from)],
        )
        .unwrap(),
    )
}

fn c_schema(json: &str) -> SchemaRef {
    let c = JsonConverter::new();
    c.deserialize_tree(format!(r#"{{"schema":{json},"payload":null}}"#).as_bytes())
        .map(|r| r.schema)
        .unwrap_or_else(|_| {
            // A required schema refuses a null payload; read it with a value instead.
            c.deserialize_tree(format!(r#"{{"schema":{json},"payload":{{"a":0}}}}"#).as_bytes())
                .unwrap()
                .schema
        })
        .unwrap()
}

#[test]
fn schema_before_or_after_payload() {
    let c = JsonConverter::new();
    let before = format!(r#"{{"schema":{STRUCT_AB},"payload":{{"a":7,"b":"x"}}}}"#);
    let after = format!(r#"{{"payload":{{"b":"x","a":7}},"schema":{STRUCT_AB}}}"#);
    let spaced = format!("\u{feff} \n{{ \"payload\" : {{ \"b\" : \"x\" , \"a\" : 7 }} ,\t\"schema\" : {STRUCT_AB} }}  trailing");
    for text in [&before, &after, &spaced] {
        let r = fast(&c, text);
        assert_eq!(r.value, struct_ab(7, Some("x")), "{text}");
        assert_eq!(r.schema.as_ref(), Some(&c_schema(STRUCT_AB)));
    }
    // The schema read on the first record is cached and shared by the next ones.
    let one = fast(&c, &before).schema.unwrap();
    let two = fast(&c, &after).schema.unwrap();
    assert!(Arc::ptr_eq(&one, &two));
    assert_eq!(c.to_connect_schema_cache_len(), 1);
    // Escaped envelope keys are the same keys.
    let r = fast(
        &c,
        r#"{"sch\u0065ma":{"type":"int64","optional":false},"p\u0061yload":5}"#,
    );
    assert_eq!(r.value, Value::Int64(5));
    assert_eq!(
        fast(&c, r#"{"payload":[1,2.5],"schema":null}"#).value,
        Value::Array(vec![Value::Int64(1), Value::Float64(2.5)])
    );
}

#[test]
fn struct_fields_in_any_order_unknown_and_missing() {
    let c = JsonConverter::new();
    // Unknown members are skipped whatever they hold; a missing optional field takes its default.
    let r = fast(
        &c,
        &format!(
            r#"{{"schema":{STRUCT_AB},"payload":{{"z":[1,{{"q":null,"r":"\u00e9"}}],"a":1}}}}"#
        ),
    );
    assert_eq!(r.value, struct_ab(1, Some("d")));
    // An explicit null also takes the default (replace.null.with.default=true) ...
    let r = fast(
        &c,
        &format!(r#"{{"schema":{STRUCT_AB},"payload":{{"b":null,"a":2}}}}"#),
    );
    assert_eq!(r.value, struct_ab(2, Some("d")));
    // ... or stays null without it.
    let keep = conv(&[(REPLACE_NULL_WITH_DEFAULT_CONFIG, "false")]);
    let r = fast(
        &keep,
        &format!(r#"{{"schema":{STRUCT_AB},"payload":{{"b":null,"a":2}}}}"#),
    );
    assert_eq!(r.value, struct_ab(2, None));
    // A repeated field keeps its last value (the tree reader's Jackson rule).
    let r = handed_over(
        &c,
        &format!(r#"{{"schema":{STRUCT_AB},"payload":{{"a":1,"a":3}}}}"#),
    );
    assert_eq!(r.unwrap().value, struct_ab(3, Some("d")));
}

#[test]
fn deeply_nested_values() {
    // Structs, arrays and maps nested in turn, 30 levels (written in Kafka's member order).
    let mut schema = r#"{"type":"int32","optional":false}"#.to_owned();
    let mut payload = "7".to_owned();
    for i in 0..30 {
        schema = match i % 3 {
            0 => format!(
                r#"{{"type":"struct","fields":[{{"type":"string","optional":true,"field":"f"}},{{{},"field":"x"}}],"optional":false}}"#,
                &schema[1..schema.len() - 1]
            ),
            1 => format!(r#"{{"type":"array","items":{schema},"optional":false}}"#),
            _ => format!(
                r#"{{"type":"map","keys":{{"type":"string","optional":false}},"values":{schema},"optional":false}}"#
            ),
        };
        payload = match i % 3 {
            0 => format!(r#"{{"f":"s{i}","x":{payload}}}"#),
            1 => format!("[{payload},{payload}]"),
            _ => format!(r#"{{"k{i}":{payload}}}"#),
        };
    }
    let c = JsonConverter::new();
    let text = format!(r#"{{"schema":{schema},"payload":{payload}}}"#);
    let r = fast(&c, &text);
    // Written back, the record is the same text.
    let again = c.serialize(r.schema.as_ref(), &r.value).unwrap().unwrap();
    assert_eq!(String::from_utf8(again).unwrap(), text);

    // Schemaless: 999 arrays inside the envelope is the deepest Jackson reads (1000 levels).
    let ok = format!(
        r#"{{"schema":null,"payload":{}1{}}}"#,
        "[".repeat(999),
        "]".repeat(999)
    );
    let mut v = fast(&c, &ok).value;
    let mut levels = 0;
    while let Value::Array(mut items) = v {
        levels += 1;
        v = items.pop().unwrap();
    }
    assert_eq!((levels, v), (999, Value::Int64(1)));
    let deep = format!(
        r#"{{"schema":null,"payload":{}1{}}}"#,
        "[".repeat(1000),
        "]".repeat(1000)
    );
    let e = err(&c, &deep);
    assert!(
        e.contains("Document nesting depth exceeds the maximum allowed (1000)"),
        "{e}"
    );
    let plain = conv(&[(SCHEMAS_ENABLE_CONFIG, "false")]);
    let mut v = fast(
        &plain,
        &format!(
            "{}{}",
            "{\"a\":".repeat(1000),
            "}".repeat(1000).replacen('}', "null}", 1)
        ),
    )
    .value;
    let mut levels = 0;
    while let Value::Map(mut entries) = v {
        levels += 1;
        v = entries.pop().unwrap().1;
    }
    assert_eq!((levels, v), (1000, Value::Null));
}

#[test]
fn strings_escapes_and_unicode() {
    let c = JsonConverter::new();
    let s = r#"{"type":"string","optional":false}"#;
    for (json, want) in [
        (r#""plain""#, "plain"),
        (r#""a\u00e9\n\t\r\b\f\"\\\/""#, "aé\n\t\r\u{8}\u{c}\"\\/"),
        (r#""\ud83d\ude00 é😀""#, "😀 é😀"),
        // Lone surrogates cannot be held in a Rust string.
        (r#""\ud800x\udc00""#, "\u{fffd}x\u{fffd}"),
        (r#""""#, ""),
    ] {
        let r = fast(&c, &format!(r#"{{"schema":{s},"payload":{json}}}"#));
        assert_eq!(r.value, Value::from(want), "{json}");
    }
    // Keys with escapes, in maps and schemaless objects.
    let m = r#"{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int8","optional":false},"optional":false}"#;
    let r = fast(
        &c,
        &format!(r#"{{"schema":{m},"payload":{{"\u0041":1,"é\n":2,"A":3}}}}"#),
    );
    assert_eq!(
        r.value,
        Value::Map(vec![
            ("A".into(), Value::Int8(3)),
            ("é\n".into(), Value::Int8(2))
        ])
    );
    for bad in [
        "{\"schema\":null,\"payload\":\"a\u{1}\"}",
        r#"{"schema":null,"payload":"\x"}"#,
        r#"{"schema":null,"payload":"\u12"}"#,
        r#"{"schema":null,"payload":"open"#,
        r#"{"sch\ema":null,"payload":1}"#,
    ] {
        let e = err(&c, bad);
        assert!(
            e.starts_with(
                "Converting byte[] to Kafka Connect data failed due to serialization error: "
            ),
            "{e}"
        );
    }
    let mut invalid = br#"{"schema":null,"payload":"a"#.to_vec();
    invalid.extend_from_slice(&[0xff, b'"', b'}']);
    assert!(c.read_streaming(&invalid).is_err());
    assert_eq!(
        c.deserialize(Some(&invalid)).unwrap_err().to_string(),
        c.deserialize_tree(&invalid).unwrap_err().to_string()
    );
}

#[test]
fn numbers_large_small_and_lenient() {
    let c = JsonConverter::new();
    let env = |t: &str, p: &str| {
        format!(r#"{{"schema":{{"type":"{t}","optional":false}},"payload":{p}}}"#)
    };
    for (t, p, want) in [
        ("int32", "4294967297", Value::Int32(1)),
        ("int32", "1.9", Value::Int32(1)),
        ("int32", "0012", Value::Int32(12)),
        ("int8", "300", Value::Int8(44)),
        ("int64", "18446744073709551617", Value::Int64(1)),
        ("int64", "-9223372036854775808", Value::Int64(i64::MIN)),
        ("int64", "1e100", Value::Int64(0)),
        ("double", "1e999", Value::Float64(f64::INFINITY)),
        ("double", "-0.0", Value::Float64(0.0)),
        ("double", "12", Value::Float64(12.0)),
        ("double", "99999999999999999999", Value::Float64(1e20)),
        ("float", "-0012.5e1", Value::Float32(-125.0)),
        ("boolean", "1", Value::Boolean(false)),
        ("int32", "\"5\"", Value::Int32(0)),
        ("string", "5", Value::Null),
        ("bytes", "true", Value::Null),
    ] {
        assert_eq!(fast(&c, &env(t, p)).value, want, "{t} {p}");
    }
    let plain = conv(&[(SCHEMAS_ENABLE_CONFIG, "false")]);
    assert_eq!(
        fast(&plain, "99999999999999999999 ").value,
        Value::Int64(7766279631452241919)
    );
    assert_eq!(fast(&plain, "-2.50").value, Value::Float64(-2.5));
    assert_eq!(fast(&plain, "  ").value, Value::Null);
    assert!(err(&plain, "12abc").starts_with("Converting byte[] to Kafka Connect data failed"));
}

#[test]
fn logical_types_and_bytes() {
    let dec = |scale: i32, p: &str| {
        format!(
            r#"{{"schema":{{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{{"scale":"{scale}"}}}},"payload":{p}}}"#
        )
    };
    let c = JsonConverter::new();
    // 156 at scale 2 is 1.56; base64 "AJw=" and the numeric forms read the same.
    for p in [r#""AJw=""#, "1.56", "1.560", "156e-2"] {
        assert_eq!(
            fast(&c, &dec(2, p)).value,
            Value::Bytes(vec![0, 156]),
            "{p}"
        );
    }
    assert_eq!(
        err(&c, &dec(2, "1.567")),
        "Decimal value has mismatching scale for given Decimal schema. Schema has scale 2, value has scale 3."
    );
    assert_eq!(
        err(&c, &dec(2, r#""!!""#)),
        "Invalid bytes for Decimal field"
    );
    assert_eq!(
        err(&c, &dec(2, "[1]")),
        "Invalid type for Decimal, underlying representation should be numeric or bytes but was ARRAY"
    );
    let time = |p: &str| {
        format!(
            r#"{{"schema":{{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1}},"payload":{p}}}"#
        )
    };
    assert_eq!(fast(&c, &time("1000")).value, Value::Int32(1000));
    assert_eq!(
        err(&c, &time("-1")),
        "Time values must use number of milliseconds greater than 0 and less than 86400000"
    );
    let b = r#"{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}"#;
    assert_eq!(fast(&c, b).value, Value::Bytes(b"test-string".to_vec()));
    assert_eq!(
        err(
            &c,
            r#"{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc"}"#
        ),
        "Invalid bytes field"
    );
}

#[test]
fn every_error_is_worded_by_the_tree_reader() {
    let c = JsonConverter::new();
    let i32s = r#"{"type":"int32","optional":false}"#;
    let tuples = r#"{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},"optional":false}"#;
    let strs = r#"{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":false}"#;
    for (text, want) in [
        (format!(r#"{{"schema":{i32s},"payload":null}}"#), "Invalid null value for required INT32 field".to_owned()),
        (format!(r#"{{"payload":null,"schema":{i32s}}}"#), "Invalid null value for required INT32 field".to_owned()),
        (format!(r#"{{"schema":{i32s},"payload":1,"extra":1}}"#), ENVELOPE_ERROR.to_owned()),
        (format!(r#"{{"schema":{i32s}}}"#), ENVELOPE_ERROR.to_owned()),
        (r#"{"payload":1}"#.to_owned(), ENVELOPE_ERROR.to_owned()),
        ("[1]".to_owned(), ENVELOPE_ERROR.to_owned()),
        (String::new(), ENVELOPE_ERROR.to_owned()),
        (r#"{"schema":{"type":"nope"},"payload":1}"#.to_owned(), "Unknown schema type: nope".to_owned()),
        (r#"{"schema":{},"payload":1}"#.to_owned(), "Schema must contain 'type' field".to_owned()),
        (format!(r#"{{"schema":{STRUCT_AB},"payload":[1]}}"#), "Structs should be encoded as JSON objects, but found ARRAY".to_owned()),
        (format!(r#"{{"schema":{STRUCT_AB},"payload":{{"b":"x"}}}}"#), "Invalid null value for required INT32 field".to_owned()),
        (format!(r#"{{"schema":{tuples},"payload":{{"a":1}}}}"#), "Maps with non-string fields should be encoded as JSON array of tuples, but found OBJECT".to_owned()),
        (format!(r#"{{"schema":{tuples},"payload":[[1,2,3]]}}"#), "Found invalid map entry, expected length 2 but found :3".to_owned()),
        (format!(r#"{{"schema":{tuples},"payload":[1]}}"#), "Found invalid map entry instead of array tuple: NUMBER".to_owned()),
        (format!(r#"{{"schema":{strs},"payload":[]}}"#), "Maps with string fields should be encoded as JSON objects, but found ARRAY".to_owned()),
    ] {
        assert_eq!(err(&c, &text), want, "{text}");
    }
    // A repeated envelope member is handed over: the tree reader keeps its last value.
    let text = format!(r#"{{"schema":{i32s},"payload":"x","payload":1,"schema":{i32s}}}"#);
    assert_eq!(handed_over(&c, &text).unwrap().value, Value::Int32(1));
    // A syntax error after a conversion error is the error reported, as with a tree.
    let e = err(
        &c,
        &format!(r#"{{"schema":{STRUCT_AB},"payload":{{"a":null,"b":tru}}}}"#),
    );
    assert!(e.starts_with("Converting byte[] to Kafka Connect data failed due to serialization error: Unrecognized token"), "{e}");
    // Shapes the tree reader reads leniently are handed over too.
    let arr = r#"{"type":"array","items":{"type":"int32","optional":false},"optional":false}"#;
    let r = handed_over(
        &c,
        &format!(r#"{{"schema":{arr},"payload":{{"x":1,"y":2}}}}"#),
    )
    .unwrap();
    assert_eq!(
        r.value,
        Value::Array(vec![Value::Int32(1), Value::Int32(2)])
    );
    let r = handed_over(&c, &format!(r#"{{"schema":{arr},"payload":5}}"#)).unwrap();
    assert_eq!(r.value, Value::Array(vec![]));
    // Repeated tuple keys keep the first position and the last value, streaming.
    let r = fast(
        &c,
        &format!(r#"{{"schema":{tuples},"payload":[[1,2],[3,4],[1,5]]}}"#),
    );
    assert_eq!(
        r.value,
        Value::Map(vec![
            (Value::Int32(1), Value::Int32(5)),
            (Value::Int32(3), Value::Int32(4))
        ])
    );
}

/// JSON text: nested values with white space, duplicate keys from a small set, numbers of every
/// kind and strings with escapes.
fn arb_json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        r"-?[0-9]{1,22}(\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?",
        r#""([a-c é]|\\n|\\u00e9|\\ud83d\\ude00){0,6}""#,
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5)
                .prop_map(|v| format!("[{}]", v.join(" ,"))),
            proptest::collection::vec(("[a-c]", inner), 0..5).prop_map(|v| {
                let members: Vec<String> = v
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\" : {v}"))
                    .collect();
                format!("{{ {} }}", members.join(","))
            }),
        ]
    })
}

fn arb_schema_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(r#"{"type":"int32","optional":true}"#.to_owned()),
        Just(r#"{"type":"int64","optional":false,"default":3}"#.to_owned()),
        Just(r#"{"type":"double","optional":true}"#.to_owned()),
        Just(r#"{"type":"string","optional":true}"#.to_owned()),
        Just(r#"{"type":"boolean","optional":false}"#.to_owned()),
        Just(r#"{"type":"bytes","optional":true}"#.to_owned()),
        Just(r#"{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#.to_owned()),
        Just(r#"{"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp"}"#.to_owned()),
        Just("null".to_owned()),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|s| format!(r#"{{"type":"array","items":{s},"optional":true}}"#)),
            inner.clone().prop_map(|s| format!(r#"{{"type":"map","keys":{{"type":"string","optional":false}},"values":{s},"optional":true}}"#)),
            (inner.clone(), inner.clone()).prop_map(|(k, v)| format!(r#"{{"type":"map","keys":{k},"values":{v},"optional":true}}"#)),
            proptest::collection::vec(inner, 1..4).prop_map(|fs| {
                let fields: Vec<String> = fs.iter().enumerate().map(|(i, f)| {
                    let name = ["a", "b", "c"][i];
                    if f == "null" { f.clone() } else { format!(r#"{{"field":"{name}",{}"#, &f[1..]) }
                }).collect();
                format!(r#"{{"type":"struct","fields":[{}],"optional":true}}"#, fields.join(","))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn streaming_reads_what_the_tree_reads(
        schema in arb_schema_text(),
        payload in arb_json(),
        payload_first in any::<bool>(),
        numeric in any::<bool>(),
    ) {
        let c = if numeric { conv(&[(DECIMAL_FORMAT_CONFIG, "NUMERIC")]) } else { JsonConverter::new() };
        let text = if payload_first {
            format!(r#"{{"payload":{payload},"schema":{schema}}}"#)
        } else {
            format!(r#"{{"schema":{schema},"payload":{payload}}}"#)
        };
        let tree = c.deserialize_tree(text.as_bytes());
        match c.read_streaming(text.as_bytes()) {
            Ok(got) => prop_assert_eq!(Ok(got), tree.map_err(|e| e.to_string()), "{}", text),
            Err(_) => {
                let got = c.deserialize(Some(text.as_bytes())).map_err(|e| e.to_string());
                prop_assert_eq!(got, tree.map_err(|e| e.to_string()), "{}", text);
            }
        }
        let plain = conv(&[(SCHEMAS_ENABLE_CONFIG, "false")]);
        let tree = plain.deserialize_tree(payload.as_bytes()).map_err(|e| e.to_string());
        let got = plain.read_streaming(payload.as_bytes());
        prop_assert!(got.is_ok(), "schemaless reader gave up on {}", payload);
        prop_assert_eq!(got.map_err(|_| String::new()), tree, "{}", payload);
    }

    #[test]
    fn streaming_reads_written_records_without_giving_up(
        (schema, value) in arb_schema_and_value(),
        numeric in any::<bool>(),
    ) {
        let c = if numeric { conv(&[(DECIMAL_FORMAT_CONFIG, "NUMERIC")]) } else { JsonConverter::new() };
        let bytes = c.serialize(Some(&schema), &value).unwrap().unwrap();
        let got = c.read_streaming(&bytes);
        prop_assert!(got.is_ok(), "gave up on {}", String::from_utf8_lossy(&bytes));
        prop_assert_eq!(got.unwrap(), c.deserialize_tree(&bytes).unwrap());
    }
}

#[test]
fn the_last_schema_text_is_recognised_only_whole() {
    let c = JsonConverter::new();
    let i32s = r#"{"type":"int32","optional":false}"#;
    assert_eq!(
        fast(&c, &format!(r#"{{"schema":{i32s},"payload":1}}"#)).value,
        Value::Int32(1)
    );
    // The same text again, then text that merely starts with it.
    assert_eq!(
        fast(&c, &format!(r#"{{"payload":2,"schema":{i32s}}}"#)).value,
        Value::Int32(2)
    );
    let e = err(&c, &format!(r#"{{"schema":{i32s}x,"payload":1}}"#));
    assert!(
        e.starts_with(
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ),
        "{e}"
    );
    let e = err(&c, &format!(r#"{{"schema":{i32s}"#));
    assert!(
        e.starts_with(
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ),
        "{e}"
    );
    // A longer schema sharing a prefix is read as itself.
    let longer = r#"{"type":"int32","optional":false,"name":"n"}"#;
    let r = fast(&c, &format!(r#"{{"schema":{longer},"payload":3}}"#));
    assert_eq!(r.schema.unwrap().name.as_deref(), Some("n"));
}
