//! Round trips (proptest), fixed byte vectors, interning, resets and errors.

use std::sync::Arc;

use connect_api::{
    logical, ConnectRecord, Headers, OffsetMap, Schema, SchemaBuilder, SchemaRef, SchemaType,
    SinkRecord, SourceOffset, SourceRecord, Struct, TimestampType, Value,
};
use proptest::prelude::*;
use serde_json::json;

use super::*;

fn obj(v: serde_json::Value) -> OffsetMap {
    match v {
        serde_json::Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn record(
    topic: &str,
    key: (Option<SchemaRef>, Value),
    value: (Option<SchemaRef>, Value),
) -> ConnectRecord {
    ConnectRecord {
        topic: topic.to_owned(),
        kafka_partition: None,
        key_schema: key.0,
        key: key.1,
        value_schema: value.0,
        value: value.1,
        timestamp: None,
        headers: Headers::new(),
    }
}

#[test]
fn a_source_record_has_the_documented_bytes() {
    let mut rec = record(
        "t",
        (Some(Schema::required(SchemaType::Int32)), Value::Int32(7)),
        (None, Value::from("v")),
    );
    rec.timestamp = Some(1);
    let source = SourceRecord {
        source_partition: Arc::new(obj(json!({"id": 1}))),
        source_offset: Some(SourceOffset::Position {
            field: "pos",
            value: 2,
        }),
        record: rec,
    };
    let mut out = Vec::new();
    Encoder::new().source_record(&source, &mut out).unwrap();
    #[rustfmt::skip]
    let expected = [
        0x01, 0x01, 0x02, 0x00,                               // SCHEMA_DEF 1: INT32, no flags
        0x02, 0x01, 0x0c, 0x01, 0x09, 0x02, b'i', b'd', 0x04, 0x02, // PARTITION_DEF 1: {"id": 1L}
        0x10, 0x01, b't', 0x00,                               // SOURCE_RECORD "t", no partition
        0x01, 0x03, 0x0e,                                     // key: schema 1, INT32 7
        0x00, 0x09, 0x01, b'v',                               // value: schemaless STRING "v"
        0x01, 0x02, 0x00,                                     // timestamp 1, no headers
        0x01, 0x0c, 0x01, 0x09, 0x03, b'p', b'o', b's', 0x04, 0x04, // partition 1, {"pos": 2L}
    ];
    assert_eq!(out, expected);
    let decoded = Decoder::new()
        .source_record(&mut Reader::new(&out))
        .unwrap();
    let mut want = source.clone();
    want.source_offset = Some(SourceOffset::Map(obj(json!({"pos": 2}))));
    assert_eq!(decoded, want);
}

#[test]
fn a_decimal_has_its_logical_name_version_scale_and_raw_bytes() {
    let schema = logical::decimal(2).optional().build();
    let mut out = Vec::new();
    Encoder::new()
        .schema_and_value(Some(&schema), &Value::Bytes(vec![0x30, 0x39]), &mut out)
        .unwrap();
    let mut expected = vec![0x01, 0x01, 0x08, 0x2d, 37];
    expected.extend_from_slice(logical::DECIMAL.as_bytes());
    expected.extend_from_slice(&[0x02, 0x01, 0x05]);
    expected.extend_from_slice(b"scale");
    expected.extend_from_slice(&[0x01, b'2', 0x12, 0x01, 0x0a, 0x02, 0x30, 0x39]);
    assert_eq!(out, expected);
    let (s, v) = Decoder::new()
        .schema_and_value(&mut Reader::new(&out))
        .unwrap();
    assert_eq!(s.as_deref(), Some(&*schema));
    assert_eq!(v, Value::Bytes(vec![0x30, 0x39]));
}

#[test]
fn equal_schemas_in_different_arcs_share_one_definition_per_connection() {
    let build = || {
        SchemaBuilder::struct_()
            .name("row")
            .field("a", Schema::optional(SchemaType::String))
            .build()
    };
    let mut enc = Encoder::new();
    let mut dec = Decoder::new();
    let mut first = Vec::new();
    let mut second = Vec::new();
    let value = |s: SchemaRef| Value::Struct(Struct::new(s));
    let (a, b) = (build(), build());
    enc.schema_and_value(Some(&a), &value(a.clone()), &mut first)
        .unwrap();
    enc.schema_and_value(Some(&b), &value(b.clone()), &mut second)
        .unwrap();
    // The second item refers to schema 2 (the struct; 1 is its field) without a definition.
    assert_eq!(second, [0x12, 0x02, 0x0d, 0x02, 0x00]);
    let (s1, _) = dec.schema_and_value(&mut Reader::new(&first)).unwrap();
    let (s2, v2) = dec.schema_and_value(&mut Reader::new(&second)).unwrap();
    let s1 = s1.unwrap();
    assert!(Arc::ptr_eq(&s1, &s2.unwrap()), "one Arc per id");
    let Value::Struct(st) = v2 else { panic!() };
    assert!(Arc::ptr_eq(&s1, st.schema()));
}

#[test]
fn schemas_differing_only_in_parameter_order_get_two_ids() {
    let p = |a: &str, b: &str| {
        SchemaBuilder::new(SchemaType::String)
            .parameter(a, "1")
            .parameter(b, "2")
            .build()
    };
    let mut enc = Encoder::new();
    let mut out = Vec::new();
    enc.schema_and_value(Some(&p("x", "y")), &Value::Null, &mut out)
        .unwrap();
    enc.schema_and_value(Some(&p("y", "x")), &Value::Null, &mut out)
        .unwrap();
    let mut dec = Decoder::new();
    let mut r = Reader::new(&out);
    let (a, _) = dec.schema_and_value(&mut r).unwrap();
    let (b, _) = dec.schema_and_value(&mut r).unwrap();
    let keys = |s: Option<SchemaRef>| {
        s.unwrap()
            .parameters
            .clone()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(a), ["x", "y"]);
    assert_eq!(keys(b), ["y", "x"]);
}

#[test]
fn a_table_over_the_limit_is_reset_before_the_next_item_and_ids_are_not_reused() {
    let mut enc = Encoder::new();
    let mut out = Vec::new();
    let schemas: Vec<SchemaRef> = (0..=MAX_INTERNED + 1)
        .map(|i| {
            SchemaBuilder::new(SchemaType::Int32)
                .name(format!("s{i}"))
                .build()
        })
        .collect();
    let mut starts = Vec::new();
    for s in &schemas {
        starts.push(out.len());
        enc.schema_and_value(Some(s), &Value::Int32(1), &mut out)
            .unwrap();
    }
    // Item 8193 (index 8192) finds 8192 entries: no reset; item 8194 finds 8193: reset first.
    assert_eq!(out[starts[MAX_INTERNED]], item::SCHEMA_DEF);
    assert_eq!(out[starts[MAX_INTERNED + 1]], item::RESET);
    let mut dec = Decoder::new();
    let mut r = Reader::new(&out);
    for s in &schemas {
        let (got, v) = dec.schema_and_value(&mut r).unwrap();
        assert_eq!(got.as_deref(), Some(&**s));
        assert_eq!(v, Value::Int32(1));
    }
    // The first schema after the reset has id 8194, not 1.
    let tail = &out[starts[MAX_INTERNED + 1] + 1..];
    let mut r = Reader::new(&tail[1..]);
    assert_eq!(r.u32("id").unwrap(), MAX_INTERNED as u32 + 2);
    // An id from before the reset is unknown now.
    let stale = [item::SCHEMA_AND_VALUE, 0x01, 0x00];
    let err = dec.schema_and_value(&mut Reader::new(&stale)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown schema id 1 at byte 1; defined ids are 8194..8195 (a definition must come before its first use)"
    );
}

#[test]
fn a_failed_item_leaves_the_output_and_tables_as_they_were() {
    let schema = SchemaBuilder::struct_()
        .field("x", Schema::required(SchemaType::Int64))
        .build();
    let bad = SourceRecord {
        source_partition: Arc::new(obj(json!({"p": 1}))),
        source_offset: Some(SourceOffset::Position {
            field: "pos",
            value: u64::MAX,
        }),
        record: record(
            "t",
            (None, Value::Null),
            (
                Some(schema.clone()),
                Value::Struct(Struct::new(schema.clone())),
            ),
        ),
    };
    let mut enc = Encoder::new();
    let mut out = vec![0xaa];
    let err = enc.source_record(&bad, &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "source offset key 'pos': 18446744073709551615 does not fit a Java long (Kafka Connect reads stored integers as longs)"
    );
    assert_eq!(out, [0xaa]);
    let mut good = bad.clone();
    good.source_offset = Some(SourceOffset::Map(obj(json!({"pos": 3}))));
    enc.source_record(&good, &mut out).unwrap();
    let got = Decoder::new()
        .source_record(&mut Reader::new(&out[1..]))
        .unwrap();
    assert_eq!(got, good);
}

#[test]
fn partitions_and_offsets_become_the_json_kafka_connect_stores() {
    let typed = Value::Map(vec![
        (Value::from("i8"), Value::Int8(-1)),
        (Value::from("i32"), Value::Int32(7)),
        (Value::from("f32"), Value::Float32(0.1)),
        (Value::from("f64"), Value::Float64(2.5)),
        (Value::from("bytes"), Value::Bytes(vec![1, 2, 3])),
        (
            Value::from("intkeys"),
            Value::Map(vec![(Value::Int32(1), Value::from("a"))]),
        ),
        (
            Value::from("list"),
            Value::Array(vec![Value::Boolean(true), Value::Null]),
        ),
    ]);
    let map = offset_value_to_json("source offset", typed).unwrap();
    assert_eq!(
        serde_json::to_string(&map).unwrap(),
        r#"{"i8":-1,"i32":7,"f32":0.1,"f64":2.5,"bytes":"AQID","intkeys":[[1,"a"]],"list":[true,null]}"#
    );
    let back = json_to_offset_value("source offset", &serde_json::Value::Object(map)).unwrap();
    let Value::Map(pairs) = back else { panic!() };
    assert_eq!(pairs[1], (Value::from("i32"), Value::Int64(7)));
    assert_eq!(pairs[2], (Value::from("f32"), Value::Float64(0.1)));

    let nan = Value::Map(vec![(
        Value::from("a"),
        Value::Map(vec![(Value::from("b"), Value::Float64(f64::NAN))]),
    )]);
    assert_eq!(
        offset_value_to_json("source partition", nan).unwrap_err().to_string(),
        "source partition key 'a.b': NaN cannot be stored in Kafka Connect's offsets (JSON has no NaN or infinity)"
    );
    let s = Value::Map(vec![(
        Value::from("s"),
        Value::Struct(Struct::new(SchemaBuilder::struct_().name("n").build())),
    )]);
    assert_eq!(
        offset_value_to_json("source offset", s).unwrap_err().to_string(),
        "source offset key 's': a Struct (schema n) cannot be stored in Kafka Connect's offsets, which are schemaless JSON"
    );
}

#[test]
fn malformed_input_names_what_was_expected() {
    let cases: Vec<(&[u8], &str)> = vec![
        (&[], "truncated input at byte 0: expected an item tag, but only 0 of 1 byte(s) remain"),
        (&[0x7f], "unknown item tag 0x7f at byte 0; expected 0x01 (SCHEMA_DEF), 0x02 (PARTITION_DEF), 0x03 (RESET), 0x10 (SOURCE_RECORD), 0x11 (SINK_RECORD), 0x12 (SCHEMA_AND_VALUE), 0x13 (OFFSET_MAP)"),
        (&[0x10], "unknown item tag 0x10 at byte 0; expected 0x12 (SCHEMA_AND_VALUE)"),
        (&[0x12, 0x05, 0x00], "unknown schema id 5 at byte 1; defined ids are 1..1 (a definition must come before its first use)"),
        (&[0x12, 0x00, 0x2a], "unknown value tag 0x2a at byte 2; expected 0 (NULL) .. 13 (STRUCT)"),
        (&[0x12, 0x00, 0x09, 0x05, b'a'], "truncated input at byte 3: expected a STRING value, but only 1 of 5 byte(s) remain"),
        (&[0x01, 0x02, 0x02, 0x00], "schema definition at byte 1 has id 2, expected the next id 1"),
        (&[0x01, 0x01, 0x0c, 0x00], "unknown schema type tag 0x0c at byte 2; expected 0 (INT8) .. 11 (STRUCT)"),
        (&[0x01, 0x01, 0x09, 0x00, 0x00], "invalid schema definition at byte 4: an array's item schema id is 0; expected the id of a defined schema"),
        (&[0x01, 0x01, 0x02, 0x40], "invalid schema definition at byte 3: unknown flag bits 0x40; expected a combination of 0x01 (optional), 0x02 (default), 0x04 (name), 0x08 (version), 0x10 (doc), 0x20 (parameters)"),
        (&[0x12, 0x00, 0x09, 0x01, 0xff], "a STRING value at byte 3 is not valid UTF-8"),
    ];
    for (input, message) in cases {
        let err = Decoder::new()
            .schema_and_value(&mut Reader::new(input))
            .unwrap_err();
        assert_eq!(err.to_string(), message, "input {input:02x?}");
        assert!(err.is_malformed_input());
    }
    let mut deep = vec![0x12, 0x00];
    deep.extend(std::iter::repeat_n([0x0b, 0x01], MAX_DEPTH + 2).flatten());
    let err = Decoder::new()
        .schema_and_value(&mut Reader::new(&deep))
        .unwrap_err();
    assert_eq!(err.to_string(), "values nested deeper than 256 levels");
}

#[test]
fn a_sink_record_carries_its_offset_timestamp_type_origin_and_ref() {
    let rec = SinkRecord {
        record: ConnectRecord {
            kafka_partition: Some(3),
            timestamp: Some(-5),
            ..record(
                "after-smt",
                (None, Value::Null),
                (None, Value::Bytes(vec![9])),
            )
        },
        kafka_offset: 42,
        timestamp_type: TimestampType::LogAppendTime,
    };
    let meta = SinkRecordMeta {
        original_topic: "orig".into(),
        original_partition: Some(1),
        original_offset: 41,
        record_ref: 7,
    };
    let mut out = Vec::new();
    Encoder::new().sink_record(&rec, &meta, &mut out).unwrap();
    let (got, got_meta) = Decoder::new().sink_record(&mut Reader::new(&out)).unwrap();
    assert_eq!(got, rec);
    assert_eq!(got_meta, meta);
    assert_eq!(SinkRecordMeta::of(&rec, 7).original_topic, "after-smt");
}

// ---- property tests ----

fn arb_name() -> impl Strategy<Value = Option<String>> {
    proptest::option::of("[a-z.]{1,8}")
}

fn leaf_schema() -> impl Strategy<Value = SchemaRef> {
    let primitive = prop_oneof![
        Just(SchemaType::Int8),
        Just(SchemaType::Int16),
        Just(SchemaType::Int32),
        Just(SchemaType::Int64),
        Just(SchemaType::Float32),
        Just(SchemaType::Float64),
        Just(SchemaType::Boolean),
        Just(SchemaType::String),
        Just(SchemaType::Bytes),
    ];
    let plain = (
        primitive,
        any::<bool>(),
        arb_name(),
        proptest::option::of(any::<i32>()),
        proptest::option::of(".{0,6}"),
        proptest::option::of(proptest::collection::vec(("[a-z]{1,4}", ".{0,4}"), 0..3)),
    )
        .prop_map(|(t, optional, name, version, doc, params)| {
            let mut s = Schema::of(t, optional);
            s.name = name;
            s.version = version;
            s.doc = doc;
            s.parameters = params.map(|p| p.into_iter().collect());
            Arc::new(s)
        });
    let logical = prop_oneof![
        (0i32..10).prop_map(|s| logical::decimal(s).build()),
        Just(logical::date().optional().build()),
        Just(logical::time().build()),
        Just(logical::timestamp().optional().build()),
    ];
    prop_oneof![4 => plain, 1 => logical]
}

fn arb_schema() -> impl Strategy<Value = SchemaRef> {
    leaf_schema().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (inner.clone(), any::<bool>()).prop_map(|(items, opt)| {
                let b = SchemaBuilder::array(items);
                if opt { b.optional() } else { b }.build()
            }),
            (inner.clone(), inner.clone()).prop_map(|(k, v)| SchemaBuilder::map(k, v).build()),
            (
                proptest::collection::vec(inner, 0..4),
                arb_name(),
                any::<bool>()
            )
                .prop_map(|(fields, name, opt)| {
                    let mut b = SchemaBuilder::struct_();
                    if let Some(n) = name {
                        b = b.name(n);
                    }
                    if opt {
                        b = b.optional();
                    }
                    for (i, f) in fields.into_iter().enumerate() {
                        b = b.field(format!("f{i}"), f);
                    }
                    b.build()
                }),
        ]
    })
}

fn arb_value(schema: &SchemaRef) -> BoxedStrategy<Value> {
    let v: BoxedStrategy<Value> = match schema.schema_type {
        SchemaType::Int8 => any::<i8>().prop_map(Value::Int8).boxed(),
        SchemaType::Int16 => any::<i16>().prop_map(Value::Int16).boxed(),
        SchemaType::Int32 => any::<i32>().prop_map(Value::Int32).boxed(),
        SchemaType::Int64 => any::<i64>().prop_map(Value::Int64).boxed(),
        SchemaType::Float32 => any::<f32>().prop_map(Value::Float32).boxed(),
        SchemaType::Float64 => any::<f64>().prop_map(Value::Float64).boxed(),
        SchemaType::Boolean => any::<bool>().prop_map(Value::Boolean).boxed(),
        SchemaType::String => ".{0,12}".prop_map(Value::String).boxed(),
        SchemaType::Bytes => proptest::collection::vec(any::<u8>(), 0..12)
            .prop_map(Value::Bytes)
            .boxed(),
        SchemaType::Array => {
            proptest::collection::vec(arb_value(schema.value_schema.as_ref().unwrap()), 0..4)
                .prop_map(Value::Array)
                .boxed()
        }
        SchemaType::Map => proptest::collection::vec(
            (
                arb_value(schema.key_schema.as_ref().unwrap()),
                arb_value(schema.value_schema.as_ref().unwrap()),
            ),
            0..3,
        )
        .prop_map(Value::Map)
        .boxed(),
        SchemaType::Struct => {
            let s = schema.clone();
            schema
                .fields
                .iter()
                .map(|f| arb_value(&f.schema))
                .collect::<Vec<_>>()
                .prop_map(move |values| {
                    Value::Struct(Struct::from_values(s.clone(), values).unwrap())
                })
                .boxed()
        }
    };
    if schema.optional {
        prop_oneof![1 => Just(Value::Null), 4 => v].boxed()
    } else {
        v
    }
}

fn with_default(schema: SchemaRef) -> BoxedStrategy<SchemaRef> {
    if !schema.schema_type.is_primitive() {
        return Just(schema).boxed();
    }
    (proptest::option::of(arb_value(&schema)), Just(schema))
        .prop_map(|(default, s)| {
            let mut s = (*s).clone();
            s.default = default;
            Arc::new(s)
        })
        .boxed()
}

fn schema_and_value() -> impl Strategy<Value = (Option<SchemaRef>, Value)> {
    prop_oneof![
        arb_schema()
            .prop_flat_map(with_default)
            .prop_flat_map(|s| (Just(Some(s.clone())), arb_value(&s))),
        // Schemaless: any value of any schema, sent without it.
        arb_schema().prop_flat_map(|s| (Just(None), arb_value(&s))),
    ]
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1e9f64..1e9).prop_map(serde_json::Value::from),
        ".{0,6}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::Array),
            proptest::collection::vec(("[a-z]{1,4}", inner), 0..3)
                .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn arb_offset_map() -> impl Strategy<Value = OffsetMap> {
    proptest::collection::vec(("[a-z]{1,5}", arb_json()), 0..4)
        .prop_map(|kv| kv.into_iter().collect())
}

fn arb_connect_record() -> impl Strategy<Value = ConnectRecord> {
    (
        "[a-z]{1,6}",
        proptest::option::of(any::<i32>()),
        schema_and_value(),
        schema_and_value(),
        proptest::option::of(any::<i64>()),
        proptest::collection::vec(("[a-z]{0,4}", schema_and_value()), 0..3),
    )
        .prop_map(|(topic, kafka_partition, key, value, timestamp, headers)| {
            let mut h = Headers::new();
            for (k, (s, v)) in headers {
                h.add(k, s, v);
            }
            ConnectRecord {
                topic,
                kafka_partition,
                key_schema: key.0,
                key: key.1,
                value_schema: value.0,
                value: value.1,
                timestamp,
                headers: h,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn source_records_round_trip_on_one_connection(
        records in proptest::collection::vec(
            (arb_connect_record(), 0usize..3, proptest::option::of(arb_offset_map())),
            1..6,
        ),
        partitions in proptest::collection::vec(arb_offset_map(), 3),
    ) {
        let partitions: Vec<Arc<OffsetMap>> = partitions.into_iter().map(Arc::new).collect();
        let records: Vec<SourceRecord> = records
            .into_iter()
            .map(|(record, p, offset)| SourceRecord {
                source_partition: partitions[p].clone(),
                source_offset: offset.map(SourceOffset::Map),
                record,
            })
            .collect();
        let mut enc = Encoder::new();
        let mut out = Vec::new();
        for r in &records {
            enc.source_record(r, &mut out).unwrap();
        }
        let mut dec = Decoder::new();
        let mut reader = Reader::new(&out);
        let mut again = Encoder::new();
        let mut out2 = Vec::new();
        for r in &records {
            let got = dec.source_record(&mut reader).unwrap();
            // Debug text: NaN equals NaN there; the bytes below compare the bits.
            prop_assert_eq!(format!("{got:?}"), format!("{r:?}"));
            again.source_record(&got, &mut out2).unwrap();
        }
        prop_assert!(reader.is_empty());
        prop_assert_eq!(out, out2);
    }

    #[test]
    fn sink_records_round_trip(
        records in proptest::collection::vec(
            (arb_connect_record(), any::<i64>(), 0u8..3, "[a-z]{0,5}", any::<u32>()),
            1..5,
        ),
    ) {
        let mut enc = Encoder::new();
        let mut out = Vec::new();
        let mut want = Vec::new();
        for (record, kafka_offset, tt, original, record_ref) in records {
            let rec = SinkRecord {
                record,
                kafka_offset,
                timestamp_type: match tt {
                    0 => TimestampType::NoTimestampType,
                    1 => TimestampType::CreateTime,
                    _ => TimestampType::LogAppendTime,
                },
            };
            let meta = SinkRecordMeta {
                original_topic: original,
                original_partition: rec.record.kafka_partition,
                original_offset: kafka_offset.wrapping_sub(1),
                record_ref,
            };
            enc.sink_record(&rec, &meta, &mut out).unwrap();
            want.push((rec, meta));
        }
        let mut dec = Decoder::new();
        let mut reader = Reader::new(&out);
        for w in &want {
            let got = dec.sink_record(&mut reader).unwrap();
            prop_assert_eq!(format!("{got:?}"), format!("{w:?}"));
        }
        prop_assert!(reader.is_empty());
    }

    #[test]
    fn truncated_or_corrupted_input_is_an_error_never_a_panic(
        (schema, value) in schema_and_value(),
        cut in any::<prop::sample::Index>(),
        flip in any::<(prop::sample::Index, u8)>(),
    ) {
        let mut out = Vec::new();
        Encoder::new().schema_and_value(schema.as_ref(), &value, &mut out).unwrap();
        let n = cut.index(out.len());
        prop_assert!(Decoder::new().schema_and_value(&mut Reader::new(&out[..n])).is_err());
        let mut bad = out.clone();
        let i = flip.0.index(bad.len());
        bad[i] ^= flip.1;
        let _ = Decoder::new().schema_and_value(&mut Reader::new(&bad));
    }
}

#[test]
fn a_null_source_partition_reads_as_the_empty_map_and_an_undefined_one_is_an_error() {
    let record = |partition_id: u8| {
        vec![
            item::SOURCE_RECORD,
            0x01,
            b't',
            0x00,
            0x00,
            0x00,
            0x00,
            0x00,
            0x00,
            0x00,
            partition_id,
            0x00,
        ]
    };
    let got = Decoder::new()
        .source_record(&mut Reader::new(&record(0)))
        .unwrap();
    assert!(got.source_partition.is_empty());
    assert_eq!(got.source_offset, None);
    assert_eq!(got.record, record_of("t"));
    let err = Decoder::new()
        .source_record(&mut Reader::new(&record(3)))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown source partition id 3 at byte 10; defined ids are 1..1 (a definition must come before its first use)"
    );
}

fn record_of(topic: &str) -> ConnectRecord {
    ConnectRecord {
        topic: topic.to_owned(),
        ..ConnectRecord::default()
    }
}
