//! Offsets-topic records: Kafka's exact key and value bytes (`["connector",{partition}]`
//! through the schemaless internal converter), round trips, and Kafka's refusals.

use serde_json::json;

use super::*;

fn map(v: Json) -> OffsetMap {
    match v {
        Json::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).expect("utf-8")
}

#[test]
fn keys_and_values_are_kafkas_bytes_and_read_back() {
    let cases = [
        (
            "file-src",
            Some(json!({"filename": "/data/in.txt"})),
            r#"["file-src",{"filename":"/data/in.txt"}]"#,
            Some(json!({"position": 1234})),
            Some(r#"{"position":1234}"#),
        ),
        (
            "c",
            None,
            r#"["c",null]"#,
            Some(json!({"f": 1.5, "big": 1e10, "neg": -7, "b": true, "n": null, "s": "é\"x"})),
            Some(r#"{"f":1.5,"big":1.0E10,"neg":-7,"b":true,"n":null,"s":"é\"x"}"#),
        ),
        (
            "multi",
            Some(json!({"z": 1, "a": "2", "m": 3.25})),
            r#"["multi",{"z":1,"a":"2","m":3.25}]"#,
            None,
            None,
        ),
        (
            "empty",
            Some(json!({})),
            r#"["empty",{}]"#,
            Some(json!({})),
            Some("{}"),
        ),
    ];
    for (connector, partition, key, offset, value) in cases {
        let partition = partition.map(map);
        let offset = offset.map(map);
        let k = encode_key(connector, partition.as_ref()).expect("key");
        assert_eq!(text(&k), key);
        let v = encode_value(connector, offset.as_ref()).expect("value");
        assert_eq!(v.as_deref().map(text), value, "{key}");
        assert_eq!(
            decode_key(&k).expect("decode key"),
            (connector.to_owned(), partition)
        );
        let back = decode_value(connector, v.as_deref()).expect("decode value");
        // Numbers come back as Kafka reads them: integers as longs, decimals as doubles.
        assert_eq!(back, offset, "{key}");
    }
}

#[test]
fn non_primitive_values_are_refused_with_kafkas_message() {
    let nested = map(json!({"ok": 1, "list": [1, 2]}));
    let err = encode_value("c", Some(&nested)).expect_err("nested");
    assert_eq!(
        err.to_string(),
        "Offsets may only contain primitive types as values, but field list contains ARRAY"
    );
    assert!(matches!(&err, RecordError::Offset { connector, .. } if connector == "c"));
    let err = encode_key("c", Some(&map(json!({"p": {"x": 1}})))).expect_err("nested partition");
    assert_eq!(
        err.to_string(),
        "Offsets may only contain primitive types as values, but field p contains MAP"
    );
    let err = encode_value("c", Some(&map(json!({"u": u64::MAX})))).expect_err("u64");
    assert!(
        err.to_string()
            .ends_with("field u contains class java.math.BigInteger"),
        "{err}"
    );

    // The reader refuses what the writer refuses, and values that are not objects.
    let err = decode_value("c", Some(br#"{"a":{"b":1}}"#)).expect_err("nested read");
    assert!(err.to_string().contains("field a contains MAP"), "{err}");
    let err = decode_value("c", Some(b"[1]")).expect_err("array");
    assert_eq!(err.to_string(), "Offsets must be specified as a Map");
    assert!(matches!(
        decode_value("c", Some(b"{x")),
        Err(RecordError::Conversion { .. })
    ));
    assert_eq!(decode_value("c", Some(b"null")), Ok(None));
    assert_eq!(decode_value("c", None), Ok(None));
}

#[test]
fn malformed_keys_are_typed_errors_naming_the_key() {
    for key in [
        &br#"{"a":1}"#[..],
        br#"["c"]"#,
        br#"["c",{},1]"#,
        br#"[1,{}]"#,
        br#"["c",[1]]"#,
        br#"["c","p"]"#,
        b"[oops",
    ] {
        let err = decode_key(key).expect_err(text(key));
        match &err {
            RecordError::Key { key: k, .. } | RecordError::Conversion { key: k, .. } => {
                assert_eq!(k.as_bytes(), key);
            }
            other => panic!("{other}"),
        }
    }
}
