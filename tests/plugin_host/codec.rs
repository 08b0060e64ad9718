//! The record codec across languages: connect-rs's `plugin_host::codec` and the Java host's
//! `io.connectrs.host.wire.codec` encode the same cases to the same bytes, and each decodes the
//! other's bytes to the expected objects (Java compares with Connect's `equals`, and re-encodes).
//! The Java half is `plugin-host/src/test/java/.../CodecVectors.java`, compiled here with javac:
//! the codec against connect-api + kafka-clients only, the test class with Kafka Connect's jars
//! (its JsonConverter is the oracle of the stored offsets' JSON).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use connect_api::{
    logical, ConnectRecord, Headers, OffsetMap, Schema, SchemaBuilder, SchemaRef, SchemaType,
    SinkRecord, SourceOffset, SourceRecord, Struct, TimestampType, Value,
};
use connect_rs::plugin_host::codec::{Decoder, Encoder, Reader, SinkRecordMeta, MAX_INTERNED};
use serde_json::json;

use crate::support::kafka_connect::{jars, java_tool, run_tool};
use crate::support::Workdir;

const SOURCE: u8 = 1;
const SINK: u8 = 2;
const SCHEMA_AND_VALUE: u8 = 3;
const OFFSET_MAP: u8 = 4;

/// One case, in the order of `CodecVectors.cases()`.
#[derive(Debug, Clone, PartialEq)]
enum Case {
    Source(SourceRecord),
    Sink(SinkRecord, SinkRecordMeta),
    SchemaAndValue(Option<SchemaRef>, Value),
    Offset(Option<OffsetMap>),
}

fn req(t: SchemaType) -> SchemaRef {
    Schema::required(t)
}

fn opt(t: SchemaType) -> SchemaRef {
    Schema::optional(t)
}

fn obj(v: serde_json::Value) -> OffsetMap {
    match v {
        serde_json::Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn s(v: &str) -> Value {
    Value::from(v)
}

fn put(mut st: Struct, kv: &[(&str, Value)]) -> Value {
    for (k, v) in kv {
        st = st.put(k, v.clone()).unwrap();
    }
    Value::Struct(st)
}

struct Schemas {
    verifiable: SchemaRef,
    row: SchemaRef,
    source: SchemaRef,
    envelope: SchemaRef,
    key: SchemaRef,
    inner: SchemaRef,
    all: SchemaRef,
}

fn schemas() -> Schemas {
    let verifiable = SchemaBuilder::struct_()
        .field("name", req(SchemaType::String))
        .field("task", req(SchemaType::Int32))
        .field("topic", req(SchemaType::String))
        .field("time_ms", req(SchemaType::Int64))
        .field("seqno", req(SchemaType::Int64))
        .build();
    let row = SchemaBuilder::struct_()
        .name("dbserver1.inventory.customers.Value")
        .optional()
        .field("id", req(SchemaType::Int32))
        .field("first_name", req(SchemaType::String))
        .field("email", opt(SchemaType::String))
        .field(
            "balance",
            logical::decimal(2)
                .optional()
                .parameter("connect.decimal.precision", "10")
                .build(),
        )
        .field("created", logical::timestamp().optional().build())
        .field("birth", logical::date().optional().build())
        .field(
            "tags",
            SchemaBuilder::array(req(SchemaType::String))
                .optional()
                .build(),
        )
        .build();
    let source = SchemaBuilder::struct_()
        .name("io.debezium.connector.postgresql.Source")
        .field("version", req(SchemaType::String))
        .field("connector", req(SchemaType::String))
        .field("name", req(SchemaType::String))
        .field("ts_ms", req(SchemaType::Int64))
        .field(
            "snapshot",
            SchemaBuilder::new(SchemaType::String)
                .optional()
                .name("io.debezium.data.Enum")
                .version(1)
                .parameter("allowed", "true,last,false,incremental")
                .default_value(s("false"))
                .build(),
        )
        .field("db", req(SchemaType::String))
        .field("lsn", opt(SchemaType::Int64))
        .build();
    let envelope = SchemaBuilder::struct_()
        .name("dbserver1.inventory.customers.Envelope")
        .version(2)
        .field("before", row.clone())
        .field("after", row.clone())
        .field("source", source.clone())
        .field("op", req(SchemaType::String))
        .field("ts_ms", opt(SchemaType::Int64))
        .build();
    let key = SchemaBuilder::struct_()
        .name("dbserver1.inventory.customers.Key")
        .field("id", req(SchemaType::Int32))
        .build();
    let inner = SchemaBuilder::struct_()
        .name("inner")
        .field("x", req(SchemaType::Int16))
        .build();
    let all = SchemaBuilder::struct_()
        .name("com.example.All")
        .version(3)
        .doc("every type")
        .parameter("p1", "v1")
        .parameter("a0", "v0")
        .field("i8", req(SchemaType::Int8))
        .field("i16", req(SchemaType::Int16))
        .field("i32", req(SchemaType::Int32))
        .field("i64", req(SchemaType::Int64))
        .field("f32", req(SchemaType::Float32))
        .field("f64", req(SchemaType::Float64))
        .field("bool", req(SchemaType::Boolean))
        .field("str", req(SchemaType::String))
        .field("bytes", req(SchemaType::Bytes))
        .field("dec", logical::decimal(3).build())
        .field("date", logical::date().build())
        .field("time", logical::time().build())
        .field("ts", logical::timestamp().build())
        .field("inner", inner.clone())
        .field("structs", SchemaBuilder::array(inner.clone()).build())
        .field(
            "smap",
            SchemaBuilder::map(req(SchemaType::String), req(SchemaType::Int32)).build(),
        )
        .field(
            "imap",
            SchemaBuilder::map(req(SchemaType::Int32), opt(SchemaType::String))
                .optional()
                .build(),
        )
        .field("opt", opt(SchemaType::Float64))
        .field(
            "withdefault",
            SchemaBuilder::new(SchemaType::String)
                .default_value(s("dflt"))
                .build(),
        )
        .field(
            "intdefault",
            SchemaBuilder::new(SchemaType::Int32)
                .optional()
                .default_value(Value::Int32(7))
                .doc("seven")
                .build(),
        )
        .field(
            "dates",
            SchemaBuilder::array(logical::date().build())
                .optional()
                .default_value(Value::Array(vec![Value::Int32(3)]))
                .build(),
        )
        .field(
            "decdefault",
            logical::decimal(1)
                .optional()
                .default_value(Value::Bytes(vec![25]))
                .build(),
        )
        .build();
    Schemas {
        verifiable,
        row,
        source,
        envelope,
        key,
        inner,
        all,
    }
}

fn connect_record(topic: &str) -> ConnectRecord {
    ConnectRecord {
        topic: topic.to_owned(),
        ..ConnectRecord::default()
    }
}

fn verifiable(sc: &Schemas, seqno: i64, complete: bool) -> SourceRecord {
    let (value_schema, value) = if complete {
        (
            sc.verifiable.clone(),
            put(
                Struct::new(sc.verifiable.clone()),
                &[
                    ("name", s("verifiable")),
                    ("task", Value::Int32(0)),
                    ("topic", s("test")),
                    ("time_ms", Value::Int64(1_700_000_000_000 + seqno)),
                    ("seqno", Value::Int64(seqno)),
                ],
            ),
        )
    } else {
        (req(SchemaType::Int64), Value::Int64(seqno))
    };
    SourceRecord {
        source_partition: Arc::new(obj(json!({"id": 0}))),
        source_offset: Some(SourceOffset::Map(obj(json!({"seqno": seqno})))),
        record: ConnectRecord {
            key_schema: Some(req(SchemaType::Int32)),
            key: Value::Int32(0),
            value_schema: Some(value_schema),
            value,
            ..connect_record("test")
        },
    }
}

fn envelope_value(sc: &Schemas, update: bool) -> Value {
    let row = |email: Value, balance: Value, created: Value, birth: Value, tags: Value| {
        put(
            Struct::new(sc.row.clone()),
            &[
                ("id", Value::Int32(1)),
                ("first_name", s("Anne")),
                ("email", email),
                ("balance", balance),
                ("created", created),
                ("birth", birth),
                ("tags", tags),
            ],
        )
    };
    let anne = row(
        Value::Null,
        Value::Bytes(vec![0x01, 0xe2, 0x3a]),
        Value::Int64(1_700_000_000_123),
        Value::Int32(19000),
        Value::Array(vec![s("a"), s("b")]),
    );
    let anne2 = row(
        s("anne@x.org"),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
    );
    let source = |lsn: i64, snapshot: Value| {
        put(
            Struct::new(sc.source.clone()),
            &[
                ("version", s("3.6.1.Final")),
                ("connector", s("postgresql")),
                ("name", s("dbserver1")),
                ("ts_ms", Value::Int64(1_700_000_000_000)),
                ("snapshot", snapshot),
                ("db", s("inventory")),
                ("lsn", Value::Int64(lsn)),
            ],
        )
    };
    put(
        Struct::new(sc.envelope.clone()),
        &[
            ("before", if update { anne.clone() } else { Value::Null }),
            ("after", if update { anne2 } else { anne }),
            (
                "source",
                if update {
                    source(2345, s("false"))
                } else {
                    source(1234, Value::Null)
                },
            ),
            ("op", s(if update { "u" } else { "c" })),
            ("ts_ms", Value::Int64(1_700_000_000_456)),
        ],
    )
}

fn key_value(sc: &Schemas) -> Value {
    put(Struct::new(sc.key.clone()), &[("id", Value::Int32(1))])
}

fn debezium(sc: &Schemas, update: bool) -> SourceRecord {
    let offset = if update {
        json!({"lsn": 2345, "txId": 556, "ts_usec": 1_700_000_000_000_000i64, "last_snapshot_record": false})
    } else {
        json!({"lsn": 1234, "txId": 555, "ts_usec": 1_700_000_000_000_000i64})
    };
    SourceRecord {
        source_partition: Arc::new(obj(json!({"server": "dbserver1"}))),
        source_offset: Some(SourceOffset::Map(obj(offset))),
        record: ConnectRecord {
            key_schema: Some(sc.key.clone()),
            key: key_value(sc),
            value_schema: Some(sc.envelope.clone()),
            value: envelope_value(sc, update),
            timestamp: Some(1_700_000_000_789),
            ..connect_record("dbserver1.inventory.customers")
        },
    }
}

fn all_types(sc: &Schemas) -> SourceRecord {
    let inner = |x: i16| put(Struct::new(sc.inner.clone()), &[("x", Value::Int16(x))]);
    let value = put(
        Struct::new(sc.all.clone()),
        &[
            ("i8", Value::Int8(-8)),
            ("i16", Value::Int16(-1600)),
            ("i32", Value::Int32(-2_000_000)),
            ("i64", Value::Int64(-9_000_000_000_000)),
            ("f32", Value::Float32(1.25)),
            ("f64", Value::Float64(-2.5e-3)),
            ("bool", Value::Boolean(true)),
            ("str", s("h\u{e9}llo \u{2713}")),
            ("bytes", Value::Bytes(vec![0, 1, 2, 255])),
            ("dec", Value::Bytes(vec![0xcf, 0xc7])),
            ("date", Value::Int32(19000)),
            ("time", Value::Int32(3_723_004)),
            ("ts", Value::Int64(1_700_000_000_123)),
            ("inner", inner(5)),
            ("structs", Value::Array(vec![inner(1), inner(2)])),
            (
                "smap",
                Value::Map(vec![(s("a"), Value::Int32(1)), (s("b"), Value::Int32(2))]),
            ),
            (
                "imap",
                Value::Map(vec![
                    (Value::Int32(1), s("one")),
                    (Value::Int32(2), Value::Null),
                ]),
            ),
            ("decdefault", Value::Bytes(vec![1])),
        ],
    );
    let mut headers = Headers::new();
    headers.add("h-str", Some(req(SchemaType::String)), s("first"));
    headers.add("h-int", Some(req(SchemaType::Int32)), Value::Int32(42));
    headers.add(
        "h-dec",
        Some(logical::decimal(1).build()),
        Value::Bytes(vec![15]),
    );
    headers.add(
        "h-list",
        None,
        Value::Array(vec![Value::Int64(1), Value::Int64(2)]),
    );
    headers.add("h-null", None, Value::Null);
    headers.add("h-str", Some(req(SchemaType::String)), s("second"));
    SourceRecord {
        source_partition: Arc::new(obj(json!({"file": "/data/in.txt"}))),
        source_offset: Some(SourceOffset::Map(obj(json!({"position": 1234})))),
        record: ConnectRecord {
            kafka_partition: Some(5),
            value_schema: Some(sc.all.clone()),
            value,
            timestamp: Some(1_700_000_000_999),
            headers,
            ..connect_record("all-types")
        },
    }
}

fn sink(
    record: ConnectRecord,
    kafka_offset: i64,
    timestamp_type: TimestampType,
    original: (&str, i32, i64),
    record_ref: u32,
) -> Case {
    Case::Sink(
        SinkRecord {
            record,
            kafka_offset,
            timestamp_type,
        },
        SinkRecordMeta {
            original_topic: original.0.to_owned(),
            original_partition: Some(original.1),
            original_offset: original.2,
            record_ref,
        },
    )
}

/// The cases of `CodecVectors.cases()`, in its order.
fn cases(sc: &Schemas) -> Vec<Case> {
    let mut c = vec![
        Case::Source(with_partition(verifiable(sc, 0, true), json!({"id": 0}))),
        Case::Source(with_partition(verifiable(sc, 1, false), json!({"id": 0}))),
        Case::Source(debezium(sc, false)),
        Case::Source(debezium(sc, true)),
        Case::Source(all_types(sc)),
        Case::Source(SourceRecord {
            source_partition: Arc::new(obj(json!({"server": "dbserver1"}))),
            source_offset: None,
            record: ConnectRecord {
                key_schema: Some(req(SchemaType::String)),
                key: s("k1"),
                ..connect_record("dbserver1.inventory.customers")
            },
        }),
        Case::Source(SourceRecord {
            source_partition: Arc::new(obj(json!({"id": 1}))),
            source_offset: Some(SourceOffset::Map(obj(json!({"seqno": 1})))),
            record: ConnectRecord {
                value: Value::Map(vec![
                    (s("name"), s("verifiable")),
                    (s("task"), Value::Int32(1)),
                    (s("seqno"), Value::Int64(5)),
                    (s("f"), Value::Float32(1.5)),
                    (
                        s("nested"),
                        Value::Map(vec![(
                            s("a"),
                            Value::Array(vec![Value::Int64(1), Value::Int64(2)]),
                        )]),
                    ),
                    (s("bytes"), Value::Bytes(vec![1, 2])),
                    (s("s"), Value::Int16(3)),
                    (s("b"), Value::Int8(-1)),
                    (s("n"), Value::Null),
                    (s("t"), Value::Boolean(true)),
                ]),
                ..connect_record("schemaless")
            },
        }),
        sink(
            ConnectRecord {
                kafka_partition: Some(2),
                key_schema: Some(sc.key.clone()),
                key: key_value(sc),
                value_schema: Some(sc.envelope.clone()),
                value: envelope_value(sc, false),
                timestamp: Some(1_700_000_000_000),
                ..connect_record("customers")
            },
            100,
            TimestampType::CreateTime,
            ("orig-topic", 2, 99),
            0,
        ),
        sink(
            ConnectRecord {
                kafka_partition: Some(0),
                value_schema: Some(req(SchemaType::String)),
                value: s("v"),
                headers: Headers(vec![connect_api::Header {
                    key: "h".into(),
                    schema: Some(req(SchemaType::String)),
                    value: s("x"),
                }]),
                ..connect_record("all-types")
            },
            101,
            TimestampType::NoTimestampType,
            ("all-types", 0, 101),
            1,
        ),
        sink(
            ConnectRecord {
                kafka_partition: Some(1),
                key: Value::Bytes(vec![9]),
                value: Value::Array(vec![s("a"), Value::Int64(1)]),
                timestamp: Some(5),
                ..connect_record("t3")
            },
            7,
            TimestampType::LogAppendTime,
            ("t3", 1, 7),
            u32::MAX,
        ),
        Case::SchemaAndValue(
            Some(logical::decimal(3).optional().build()),
            Value::Bytes(vec![0xcf, 0xc7]),
        ),
        Case::SchemaAndValue(None, s("plain")),
        Case::SchemaAndValue(Some(opt(SchemaType::String)), Value::Null),
        Case::Offset(Some(obj(json!({
            "seqno": 7, "done": true, "name": "x", "ratio": 0.25, "list": [1, "a"], "obj": {"k": null}
        })))),
        Case::Offset(None),
    ];
    for i in 0..MAX_INTERNED + 8 {
        c.push(Case::SchemaAndValue(
            Some(
                SchemaBuilder::new(SchemaType::Int32)
                    .name(format!("s{i}"))
                    .build(),
            ),
            Value::Int32(i as i32),
        ));
    }
    c.push(Case::Source(debezium(sc, true)));
    c
}

fn with_partition(mut r: SourceRecord, p: serde_json::Value) -> SourceRecord {
    r.source_partition = Arc::new(obj(p));
    r
}

fn encode(cases: &[Case]) -> Vec<u8> {
    let mut enc = Encoder::new();
    let mut out = Vec::new();
    for c in cases {
        match c {
            Case::Source(r) => {
                out.push(SOURCE);
                enc.source_record(r, &mut out).unwrap();
            }
            Case::Sink(r, meta) => {
                out.push(SINK);
                enc.sink_record(r, meta, &mut out).unwrap();
            }
            Case::SchemaAndValue(schema, value) => {
                out.push(SCHEMA_AND_VALUE);
                enc.schema_and_value(schema.as_ref(), value, &mut out)
                    .unwrap();
            }
            Case::Offset(map) => {
                out.push(OFFSET_MAP);
                enc.offset_map(map.as_ref(), &mut out).unwrap();
            }
        }
    }
    out
}

fn decode_one(dec: &mut Decoder, r: &mut Reader<'_>) -> Case {
    match r.u8("a case kind").unwrap() {
        SOURCE => Case::Source(dec.source_record(r).unwrap()),
        SINK => {
            let (rec, meta) = dec.sink_record(r).unwrap();
            Case::Sink(rec, meta)
        }
        SCHEMA_AND_VALUE => {
            let (schema, value) = dec.schema_and_value(r).unwrap();
            Case::SchemaAndValue(schema, value)
        }
        OFFSET_MAP => Case::Offset(dec.offset_map(r).unwrap()),
        kind => panic!("case kind {kind} at byte {}", r.position() - 1),
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "first difference at byte {i} (lengths {}, {}): rust {:02x?}, java {:02x?}",
            a.len(),
            b.len(),
            &a[i.saturating_sub(8)..(i + 8).min(a.len())],
            &b[i.saturating_sub(8)..(i + 8).min(b.len())]
        ),
        None => format!("lengths {} and {}", a.len(), b.len()),
    }
}

/// The jar of `prefix` (e.g. `connect-api-`) in Kafka Connect's libs folder.
fn jar(libs: &Path, prefix: &str) -> PathBuf {
    std::fs::read_dir(libs)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", libs.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".jar"))
        })
        .unwrap_or_else(|| panic!("no {prefix}*.jar in {}", libs.display()))
}

/// `.java` files under `dir`, recursively.
fn java_sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(java_sources(&path));
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Private javac helper (tests/support/java.rs is not on this branch): compiles `sources` with
/// `classpath` into `out`; fails the test with javac's output.
fn javac(sources: &[PathBuf], classpath: &str, out: &Path) {
    std::fs::create_dir_all(out).unwrap();
    run_tool(
        "javac",
        Command::new(java_tool("javac"))
            .args([
                "--release",
                "17",
                "-Xlint:all",
                "-Werror",
                "-cp",
                classpath,
                "-d",
            ])
            .arg(out)
            .args(sources),
    );
}

#[test]
fn plugin_host_codec_vectors_are_byte_identical_in_rust_and_java() {
    let work = Workdir::new();
    let libs = jars().libs;
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let codec_dir = repo.join("plugin-host/src/main/java/io/connectrs/host/wire/codec");
    let main_classes = work.path("main");
    // The codec compiles against connect-api and kafka-clients alone.
    let api_cp = format!(
        "{}:{}",
        jar(&libs, "connect-api-").display(),
        jar(&libs, "kafka-clients-").display()
    );
    javac(&java_sources(&codec_dir), &api_cp, &main_classes);
    let test_classes = work.path("test");
    let libs_cp = format!("{}/*", libs.display());
    javac(
        &[repo.join("plugin-host/src/test/java/io/connectrs/host/wire/codec/CodecVectors.java")],
        &format!("{libs_cp}:{}", main_classes.display()),
        &test_classes,
    );

    let sc = schemas();
    let cases = cases(&sc);
    let rust = encode(&cases);
    let dir = work.path("vectors");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rust.bin"), &rust).unwrap();
    let out = run_tool(
        "CodecVectors (java)",
        Command::new(java_tool("java"))
            .arg("-cp")
            .arg(format!(
                "{libs_cp}:{}:{}",
                main_classes.display(),
                test_classes.display()
            ))
            .arg("io.connectrs.host.wire.codec.CodecVectors")
            .arg(&dir),
    );
    assert!(
        out.contains("cases decoded, compared and re-encoded"),
        "{out}"
    );

    // Java decoded Rust's bytes and encoded its objects again to the same bytes.
    let reencoded = std::fs::read(dir.join("java-reencoded.bin")).unwrap();
    assert!(
        reencoded == rust,
        "Java re-encoded rust.bin differently: {}",
        first_difference(&rust, &reencoded)
    );
    // Java's own objects encode to Rust's bytes.
    let java = std::fs::read(dir.join("java.bin")).unwrap();
    assert!(
        java == rust,
        "java.bin differs from rust.bin: {}",
        first_difference(&rust, &java)
    );
    // And Rust decodes them to the expected values.
    let mut dec = Decoder::new();
    let mut r = Reader::new(&java);
    for (i, want) in cases.iter().enumerate() {
        let got = decode_one(&mut dec, &mut r);
        assert_eq!(&got, want, "case {i}");
    }
    assert!(r.is_empty());

    // Offsets with Java types JSON does not keep: connect-rs stores what JsonConverter writes.
    let json_bin = std::fs::read(dir.join("json.bin")).unwrap();
    let expected = std::fs::read_to_string(dir.join("json-expected.txt")).unwrap();
    let mut lines = expected.lines();
    let mut dec = Decoder::new();
    let mut r = Reader::new(&json_bin);
    for (seqno, complete) in [(42, true), (43, false)] {
        let Case::Source(got) = decode_one(&mut dec, &mut r) else {
            panic!("not a source record")
        };
        // VerifiableSourceTask's partition is Map.of("id", Integer): stored as {"id":0}.
        assert_eq!(got, verifiable(&sc, seqno, complete));
        assert_eq!(
            serde_json::to_string(&*got.source_partition).unwrap(),
            lines.next().unwrap()
        );
        let offset = got.source_offset.unwrap().into_map();
        assert_eq!(
            serde_json::to_string(&offset).unwrap(),
            lines.next().unwrap()
        );
    }
    let Case::Offset(Some(mixed)) = decode_one(&mut dec, &mut r) else {
        panic!("not an offset map")
    };
    assert_eq!(
        serde_json::to_string(&mixed).unwrap(),
        lines.next().unwrap()
    );
    assert!(r.is_empty());
}
