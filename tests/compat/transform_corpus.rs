//! The transform differential's corpus, generated deterministically (fixed seed): for every
//! built-in transform and predicate, configurations (valid ones, random combinations and known
//! configuration errors) applied to records with and without schemas, with nulls, nested
//! structs and maps, logical types, headers, sink (offset) and source (no offset) records.
//! Each case is one JSON object; see `TransformOracle.java` for the format. Keys and values are
//! JsonConverter envelopes (`{"schema":…,"payload":…}`) written here by hand, so the corpus does
//! not depend on either side's converter.

use base64::Engine as _;
use serde_json::{json, Map, Value as Json};

use crate::support::rng::Rng;

/// The seed of the corpus; change it only on purpose (the report names cases by number).
const SEED: u64 = 0x736d_745f_6469_6666;
/// Cases per transform or predicate class.
const CASES_PER_CLASS: usize = 140;

const T: &str = "org.apache.kafka.connect.transforms.";
const P: &str = "org.apache.kafka.connect.transforms.predicates.";

const DECIMAL: &str = "org.apache.kafka.connect.data.Decimal";
const DATE: &str = "org.apache.kafka.connect.data.Date";
const TIME: &str = "org.apache.kafka.connect.data.Time";
const TIMESTAMP: &str = "org.apache.kafka.connect.data.Timestamp";

const TOPICS: &[&str] = &[
    "orders",
    "orders-eu",
    "users.v1",
    "a",
    "logs_2024",
    "x-y-z",
    "Orders",
];

// ---- schemas and payloads in JsonConverter's envelope form ----

fn prim(t: &str, optional: bool) -> Json {
    json!({"type": t, "optional": optional})
}

fn logical(t: &str, name: &str, optional: bool) -> Json {
    json!({"type": t, "optional": optional, "name": name, "version": 1})
}

fn decimal(scale: u32, optional: bool) -> Json {
    json!({"type": "bytes", "optional": optional, "name": DECIMAL, "version": 1,
           "parameters": {"scale": scale.to_string()}})
}

fn field(name: &str, mut schema: Json) -> Json {
    schema["field"] = json!(name);
    schema
}

fn struct_schema(fields: Vec<Json>, optional: bool, name: Option<&str>) -> Json {
    let mut s = json!({"type": "struct", "fields": fields, "optional": optional});
    if let Some(n) = name {
        s["name"] = json!(n);
    }
    s
}

fn env(schema: Json, payload: Json) -> Json {
    json!({"schema": schema, "payload": payload})
}

fn b64(bytes: &[u8]) -> Json {
    json!(base64::engine::general_purpose::STANDARD.encode(bytes))
}

fn decimal_payload(unscaled: i64) -> Json {
    let bytes = num_bigint::BigInt::from(unscaled).to_signed_bytes_be();
    b64(&bytes)
}

/// A field of the "rich" record: its name, schema and a generator of non-null payloads.
struct Spec {
    name: &'static str,
    schema: fn() -> Json,
    gen: fn(&mut Rng) -> Json,
    /// Whether it is always present (the schema keeps it, the payload is never null).
    always: bool,
}

fn gen_name(r: &mut Rng) -> Json {
    json!(r.pick(&["alice", "Bob", "", "zoë", "1234", "with space", "a,b"]))
}

fn gen_inner(r: &mut Rng) -> Json {
    let deep = if r.chance(25) {
        Json::Null
    } else if r.chance(25) {
        json!({"z": null})
    } else {
        json!({"z": r.chance(50)})
    };
    let y = if r.chance(20) {
        Json::Null
    } else {
        gen_name(r)
    };
    json!({"x": r.range(-1000, 1000), "y": y, "deep": deep})
}

fn inner_schema() -> Json {
    struct_schema(
        vec![
            field("x", prim("int32", false)),
            field("y", prim("string", true)),
            field(
                "deep",
                struct_schema(vec![field("z", prim("boolean", true))], true, None),
            ),
        ],
        true,
        Some("com.example.Inner"),
    )
}

const SPECS: &[Spec] = &[
    Spec {
        name: "id",
        schema: || prim("int64", false),
        gen: |r| json!(r.range(-5, 1_000_000)),
        always: true,
    },
    Spec {
        name: "name",
        schema: || prim("string", true),
        gen: gen_name,
        always: false,
    },
    Spec {
        name: "age",
        schema: || prim("int32", true),
        gen: |r| json!(r.range(-5, 130)),
        always: false,
    },
    Spec {
        name: "score",
        schema: || prim("double", true),
        gen: |r| json!(r.pick(&[0.5, -1.25, 100.0, 3.25, 1e10, 0.0, 99.75])),
        always: false,
    },
    Spec {
        name: "active",
        schema: || prim("boolean", true),
        gen: |r| json!(r.chance(50)),
        always: false,
    },
    Spec {
        name: "small",
        schema: || prim("int8", true),
        gen: |r| json!(r.range(-128, 127)),
        always: false,
    },
    Spec {
        name: "mid",
        schema: || prim("int16", true),
        gen: |r| json!(r.range(-32768, 32767)),
        always: false,
    },
    Spec {
        name: "ratio",
        schema: || prim("float", true),
        gen: |r| json!(r.pick(&[0.5, 1.5, -2.25, 0.0, 1024.0])),
        always: false,
    },
    Spec {
        name: "data",
        schema: || prim("bytes", true),
        gen: |r| {
            let n = r.below(6) as usize;
            let bytes: Vec<u8> = (0..n).map(|_| r.below(256) as u8).collect();
            b64(&bytes)
        },
        always: false,
    },
    Spec {
        name: "amount",
        schema: || decimal(2, true),
        gen: |r| decimal_payload(r.range(-100_000, 100_000)),
        always: false,
    },
    Spec {
        name: "day",
        schema: || logical("int32", DATE, true),
        gen: |r| json!(r.range(-400, 30_000)),
        always: false,
    },
    Spec {
        name: "t",
        schema: || logical("int32", TIME, true),
        gen: |r| json!(r.range(0, 86_399_999)),
        always: false,
    },
    Spec {
        name: "ts",
        schema: || logical("int64", TIMESTAMP, true),
        gen: gen_millis,
        always: false,
    },
    Spec {
        name: "epoch",
        schema: || prim("int64", true),
        gen: gen_millis,
        always: false,
    },
    Spec {
        name: "when",
        schema: || prim("string", true),
        gen: |r| {
            json!(r.pick(&[
                "2024-01-31 12:34:56",
                "1999-12-31 23:59:59",
                "2024-02-29 00:00:00",
                "1970-01-01 00:00:00",
                "not a date",
                "2024-01-31",
            ]))
        },
        always: false,
    },
    Spec {
        name: "num_str",
        schema: || prim("string", true),
        gen: |r| json!(r.pick(&["123", "-7", "abc", "1.5", "true", "0", "99999999999", " 5"])),
        always: false,
    },
    Spec {
        name: "tags",
        schema: || json!({"type": "array", "items": prim("string", false), "optional": true}),
        gen: |r| {
            let n = r.below(4);
            json!((0..n).map(|i| format!("t{i}")).collect::<Vec<_>>())
        },
        always: false,
    },
    Spec {
        name: "attrs",
        schema: || {
            json!({"type": "map", "keys": prim("string", false), "values": prim("int32", true),
                   "optional": true})
        },
        gen: |r| {
            let mut m = Map::new();
            for i in 0..r.below(3) {
                m.insert(format!("k{i}"), json!(r.range(0, 9)));
            }
            Json::Object(m)
        },
        always: false,
    },
    Spec {
        name: "inner",
        schema: inner_schema,
        gen: gen_inner,
        always: false,
    },
    Spec {
        name: "dflt",
        schema: || json!({"type": "int32", "optional": true, "default": 42}),
        gen: |r| json!(r.range(0, 9)),
        always: false,
    },
    Spec {
        name: "a.b",
        schema: || prim("string", true),
        gen: gen_name,
        always: false,
    },
];

fn gen_millis(r: &mut Rng) -> Json {
    json!(r.pick(&[
        1_706_704_496_000_i64,
        1_706_704_496_789,
        0,
        -1,
        951_782_400_000,
        -86_400_000,
        1_709_164_800_123,
        253_402_300_799_999,
        1_000,
    ]))
}

/// Every field name the rich record can have, plus a few it never has.
pub const FIELD_NAMES: &[&str] = &[
    "id", "name", "age", "score", "active", "small", "mid", "ratio", "data", "amount", "day", "t",
    "ts", "epoch", "when", "num_str", "tags", "attrs", "inner", "dflt", "a.b", "missing",
];

/// The shapes a record's key or value can take.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    /// A struct with a random subset of [`SPECS`].
    Struct,
    /// The same data, schemaless (a JSON object read as a map).
    Map,
    /// A primitive with a schema.
    Prim,
    /// A primitive without schema.
    PrimNoSchema,
    /// No bytes at all (null schema, null value).
    Null,
    /// An optional struct schema with a null payload.
    NullWithSchema,
}

fn rich(r: &mut Rng, with_schema: bool) -> Json {
    let mut fields = Vec::new();
    let mut payload = Map::new();
    for s in SPECS {
        if !s.always && !r.chance(70) {
            continue;
        }
        fields.push(field(s.name, (s.schema)()));
        let v = if !s.always && r.chance(15) {
            Json::Null
        } else {
            (s.gen)(r)
        };
        payload.insert(s.name.to_owned(), v);
    }
    if with_schema {
        let name = if r.chance(50) {
            Some("com.example.Record")
        } else {
            None
        };
        let mut schema = struct_schema(fields, r.chance(30), name);
        if r.chance(20) {
            schema["version"] = json!(r.range(1, 5));
            schema["doc"] = json!("a record");
        }
        env(schema, Json::Object(payload))
    } else {
        // Schemaless: Decimal bytes stay base64 strings, logical types plain numbers.
        env(Json::Null, Json::Object(payload))
    }
}

fn primitive(r: &mut Rng, with_schema: bool) -> Json {
    let (schema, payload) = match r.below(9) {
        0 => (prim("int32", false), json!(r.range(-100, 100))),
        1 => (prim("int64", r.chance(50)), gen_millis(r)),
        2 => (
            prim("string", false),
            json!(r.pick(&["42", "hello", "true", "2024-01-31 12:34:56", "-3.5", ""])),
        ),
        3 => (logical("int64", TIMESTAMP, false), gen_millis(r)),
        4 => (prim("boolean", false), json!(r.chance(50))),
        5 => (prim("double", false), json!(r.pick(&[1.5, -0.25, 12345.0]))),
        6 => (prim("bytes", true), b64(b"\x00\xffab")),
        7 => (logical("int32", DATE, false), json!(r.range(0, 20_000))),
        _ => (decimal(3, false), decimal_payload(r.range(-9999, 9999))),
    };
    env(if with_schema { schema } else { Json::Null }, payload)
}

fn shape_value(r: &mut Rng, shape: Shape) -> Json {
    match shape {
        Shape::Struct => rich(r, true),
        Shape::Map => rich(r, false),
        Shape::Prim => primitive(r, true),
        Shape::PrimNoSchema => {
            let mut e = primitive(r, false);
            if e["payload"].is_string() && r.chance(30) {
                e["payload"] = json!(r.range(-5, 5));
            }
            e
        }
        Shape::Null => Json::Null,
        Shape::NullWithSchema => env(
            struct_schema(vec![field("id", prim("int64", false))], true, None),
            Json::Null,
        ),
    }
}

/// A small key for the side a transform does not operate on.
fn plain_key(r: &mut Rng) -> Json {
    match r.below(6) {
        0 => Json::Null,
        1 => env(prim("string", false), json!(r.pick(&["k1", "k2", ""]))),
        2 => env(prim("int64", true), json!(r.range(0, 99))),
        3 => env(
            struct_schema(
                vec![
                    field("id", prim("int64", false)),
                    field("region", prim("string", true)),
                ],
                false,
                Some("com.example.Key"),
            ),
            json!({"id": r.range(0, 99), "region": r.pick(&["eu", "us"])}),
        ),
        4 => env(Json::Null, json!({"id": r.range(0, 99)})),
        _ => env(Json::Null, json!("plain")),
    }
}

fn header(r: &mut Rng) -> Json {
    match r.below(7) {
        0 => json!(["h1", env(prim("string", false), json!("v1"))]),
        1 => json!(["h2", env(prim("int32", false), json!(r.range(0, 9)))]),
        2 => json!(["h1", env(Json::Null, json!("again"))]),
        3 => json!([
            "hs",
            env(
                struct_schema(vec![field("a", prim("int32", false))], false, None),
                json!({"a": 1})
            )
        ]),
        4 => json!(["hn", null]),
        5 => json!(["hb", env(prim("boolean", false), json!(true))]),
        _ => json!(["ts", env(logical("int64", TIMESTAMP, false), gen_millis(r))]),
    }
}

/// Which side the transform under test reads (the rich data goes there).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Key,
    Value,
    Both,
}

fn pick_shape(r: &mut Rng) -> Shape {
    let n = r.below(100);
    match n {
        0..=39 => Shape::Struct,
        40..=69 => Shape::Map,
        70..=79 => Shape::Prim,
        80..=86 => Shape::PrimNoSchema,
        87..=93 => Shape::Null,
        _ => Shape::NullWithSchema,
    }
}

fn record(r: &mut Rng, side: Side) -> Json {
    let (first, second) = (pick_shape(r), pick_shape(r));
    let (key, value) = match side {
        Side::Key => {
            let key = shape_value(r, first);
            (key, shape_value(r, second))
        }
        Side::Value | Side::Both => {
            let key = plain_key(r);
            (key, shape_value(r, first))
        }
    };
    let headers: Vec<Json> = (0..r.below(4)).map(|_| header(r)).collect();
    let sink = r.chance(60);
    let partition = if sink || r.chance(50) {
        json!(r.range(0, 11))
    } else {
        Json::Null
    };
    let timestamp = if r.chance(80) {
        gen_millis(r)
    } else {
        Json::Null
    };
    json!({
        "topic": r.pick(TOPICS),
        "partition": partition,
        "offset": if sink { json!(r.range(0, 1_000_000)) } else { Json::Null },
        "timestamp": timestamp,
        "key": key,
        "value": value,
        "headers": headers,
    })
}

// ---- configurations ----

fn cfg(pairs: &[(&str, &str)]) -> Json {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert((*k).to_owned(), json!(v));
    }
    Json::Object(m)
}

fn some_fields(r: &mut Rng, n: u64) -> String {
    let k = 1 + r.below(n);
    (0..k)
        .map(|_| r.pick(FIELD_NAMES).to_owned())
        .collect::<Vec<_>>()
        .join(",")
}

fn rnwd(r: &mut Rng, m: &mut Json) {
    if r.chance(30) {
        m["replace.null.with.default"] = json!(r.pick(&["true", "false"]));
    }
}

fn insert_field(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[("static.field", "src")]),
            cfg(&[("topic.field", "")]),
            cfg(&[("replace.null.with.default", "maybe"), ("topic.field", "t")]),
        ]);
    }
    let mut m = json!({});
    let opts: &[(&str, &[&str])] = &[
        ("topic.field", &["topic", "topic!", "topic?", "name"]),
        ("partition.field", &["part", "part!", "part?"]),
        ("offset.field", &["off", "off!", "off?"]),
        ("timestamp.field", &["time", "time!", "time?"]),
    ];
    for (k, vs) in opts {
        if r.chance(45) {
            m[*k] = json!(r.pick(vs));
        }
    }
    if r.chance(40) || m.as_object().is_some_and(Map::is_empty) {
        m["static.field"] = json!(r.pick(&["src", "src!", "origin?"]));
        m["static.value"] = json!(r.pick(&["connect", "", "42"]));
    }
    rnwd(r, &mut m);
    m
}

fn replace_field(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[
            cfg(&[("renames", "name:full:name")]),
            cfg(&[("renames", "name")]),
            cfg(&[("renames", ":x")]),
        ]);
    }
    let mut m = json!({});
    if r.chance(50) {
        m["exclude"] = json!(some_fields(r, 3));
    }
    if r.chance(40) {
        m["include"] = json!(some_fields(r, 4));
    }
    if r.chance(50) {
        m["renames"] = json!(r.pick(&[
            "name:full_name",
            "name:full_name,age:years",
            "inner:nested,missing:gone",
            "id:name",
            "",
        ]));
    }
    rnwd(r, &mut m);
    m
}

fn mask_field(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[("fields", "")]),
            cfg(&[("fields", "name"), ("replacement", "")]),
        ]);
    }
    let mut m = json!({"fields": some_fields(r, 4)});
    if r.chance(50) {
        m["replacement"] = json!(r.pick(&["***", "0", "12.5", "true", "-3", "abc"]));
    }
    rnwd(r, &mut m);
    m
}

fn value_to_key(r: &mut Rng) -> Json {
    if r.chance(6) {
        return r.pick(&[cfg(&[]), cfg(&[("fields", "")])]);
    }
    let mut m = json!({"fields": r.pick(&["id", "id,name", "inner", "name,id,amount", "missing", "ts,day"])});
    if r.chance(30) {
        m["fields"] = json!(some_fields(r, 3));
    }
    rnwd(r, &mut m);
    m
}

fn extract_field(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[("field", "x"), ("field.syntax.version", "V3")]),
            cfg(&[("field", "")]),
        ]);
    }
    let v2 = r.chance(45);
    let field = if v2 {
        r.pick(&[
            "inner.x",
            "inner.deep.z",
            "inner.deep",
            "`a.b`",
            "a.b",
            "inner.missing",
            "name",
            "inner..x",
            "`inner`.x",
            "id.x",
        ])
    } else {
        r.pick(FIELD_NAMES)
    };
    let mut m = json!({"field": field});
    if v2 {
        m["field.syntax.version"] = json!(r.pick(&["V2", "v2"]));
    } else if r.chance(20) {
        m["field.syntax.version"] = json!("V1");
    }
    rnwd(r, &mut m);
    m
}

fn hoist_field(r: &mut Rng) -> Json {
    if r.chance(6) {
        return cfg(&[]);
    }
    json!({"field": r.pick(&["wrapped", "id", "a.b"])})
}

fn cast(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[("spec", "")]),
            cfg(&[("spec", "age:int128")]),
            cfg(&[("spec", "int32,age:int64")]),
            cfg(&[("spec", "age")]),
            cfg(&[("spec", "age:bytes")]),
        ]);
    }
    let types = [
        "int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string", "INT64",
        "String",
    ];
    let spec = if r.chance(25) {
        r.pick(&types).to_owned()
    } else {
        let n = 1 + r.below(3);
        (0..n)
            .map(|_| {
                let f = r.pick(&[
                    "age", "score", "active", "small", "mid", "ratio", "data", "amount", "day",
                    "t", "ts", "epoch", "num_str", "name", "missing", "id", "inner", "tags",
                ]);
                format!("{f}:{}", r.pick(&types))
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut m = json!({"spec": spec});
    rnwd(r, &mut m);
    m
}

fn timestamp_converter(r: &mut Rng) -> Json {
    if r.chance(10) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[("target.type", "date")]),
            cfg(&[("target.type", "string")]),
            cfg(&[("target.type", "unix"), ("unix.precision", "hours")]),
            cfg(&[
                ("target.type", "string"),
                ("format", "yyyy-MM-dd HH:mm:ss'"),
            ]),
        ]);
    }
    let mut m = json!({"target.type": r.pick(&["string", "unix", "Date", "Time", "Timestamp"])});
    if r.chance(75) {
        m["field"] = json!(r.pick(&["ts", "epoch", "when", "day", "t", "name", "missing", "id"]));
    }
    if m["target.type"] == "string" || r.chance(50) {
        m["format"] = json!(r.pick(&[
            "yyyy-MM-dd HH:mm:ss",
            "yyyy-MM-dd",
            "yyyyMMdd'T'HHmmss.SSS",
            "HH:mm",
            "dd/MM/yy",
        ]));
    }
    if r.chance(40) {
        m["unix.precision"] =
            json!(r.pick(&["milliseconds", "seconds", "microseconds", "nanoseconds"]));
    }
    rnwd(r, &mut m);
    m
}

fn timestamp_router(r: &mut Rng) -> Json {
    let mut m = json!({});
    if r.chance(60) {
        m["topic.format"] = json!(r.pick(&[
            "${topic}-${timestamp}",
            "${timestamp}",
            "x_${topic}",
            "${topic}${topic}",
            "plain"
        ]));
    }
    if r.chance(60) {
        m["timestamp.format"] = json!(r.pick(&[
            "yyyyMMdd",
            "yyyy-MM-dd'T'HH",
            "yyyy.MM",
            "HHmmss.SSS",
            "EEE"
        ]));
    }
    m
}

fn regex_router(r: &mut Rng) -> Json {
    if r.chance(10) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[("regex", "(")]),
            cfg(&[("regex", "orders")]),
            cfg(&[("regex", "(.*)"), ("replacement", "$2")]),
        ]);
    }
    let (re, rep) = r.pick(&[
        ("(.*)-eu", "$1"),
        ("orders", "ord"),
        ("(\\w+)\\.v(\\d)", "$1_v$2"),
        (".*", "all"),
        ("(.*)", "prefix-$1"),
        ("[a-z]+", "letters"),
        ("o(.*)", "O$1\\$"),
        ("(?<name>.*)_2024", "${name}"),
    ]);
    cfg(&[("regex", re), ("replacement", rep)])
}

fn flatten(r: &mut Rng) -> Json {
    if r.chance(50) {
        json!({})
    } else {
        json!({"delimiter": r.pick(&[".", "_", "", "::"])})
    }
}

fn set_schema_metadata(r: &mut Rng) -> Json {
    if r.chance(10) {
        return r.pick(&[cfg(&[]), cfg(&[("schema.version", "abc")])]);
    }
    let mut m = json!({});
    if r.chance(70) {
        m["schema.name"] = json!(r.pick(&["com.example.Renamed", "", "x"]));
    }
    if r.chance(50) || m.as_object().is_some_and(Map::is_empty) {
        m["schema.version"] = json!(r.pick(&["3", "0", "-1"]));
    }
    rnwd(r, &mut m);
    m
}

fn insert_header(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[("header", "h")]),
            cfg(&[("value.literal", "x")]),
        ]);
    }
    cfg(&[
        ("header", r.pick(&["added", "h1", ""])),
        (
            "value.literal",
            r.pick(&[
                "42",
                "true",
                "hello",
                "[1,2,3]",
                "{\"a\":1}",
                "",
                "3.5",
                "99999999999",
                "2024-01-31",
                "null",
                "{\"a\":1,\"b\":\"x\"}",
                "[1,\"a\"]",
            ]),
        ),
    ])
}

fn drop_headers(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[cfg(&[]), cfg(&[("headers", "")])]);
    }
    cfg(&[(
        "headers",
        r.pick(&["h1", "h1,h2", "missing", "hn,hs,hb", "ts"]),
    )])
}

fn header_from(r: &mut Rng) -> Json {
    if r.chance(10) {
        return r.pick(&[
            cfg(&[]),
            cfg(&[
                ("fields", "name"),
                ("headers", "a,b"),
                ("operation", "copy"),
            ]),
            cfg(&[("fields", "name"), ("headers", "a"), ("operation", "swap")]),
            cfg(&[("fields", "name"), ("headers", "a")]),
        ]);
    }
    let (f, h) = r.pick(&[
        ("name", "hname"),
        ("name,age", "hn,ha"),
        ("inner", "inner"),
        ("id,id", "x,y"),
        ("missing", "m"),
        ("ts,amount,day", "a,b,c"),
        ("tags,attrs", "h1,h1"),
    ]);
    let mut m = cfg(&[
        ("fields", f),
        ("headers", h),
        ("operation", r.pick(&["copy", "move", "MOVE"])),
    ]);
    rnwd(r, &mut m);
    m
}

fn topic_name_matches(r: &mut Rng) -> Json {
    cfg(&[(
        "pattern",
        r.pick(&[
            "orders.*",
            ".*-eu",
            "a",
            "[",
            "",
            "users\\.v\\d",
            "(?i)orders",
            "x-y",
            ".*",
        ]),
    )])
}

fn has_header_key(r: &mut Rng) -> Json {
    if r.chance(8) {
        return r.pick(&[cfg(&[]), cfg(&[("name", "")])]);
    }
    cfg(&[("name", r.pick(&["h1", "h2", "missing", "hn", "ts"]))])
}

/// Makes one random configuration of a class.
type ConfigGen = fn(&mut Rng) -> Json;

/// One plugin class of the corpus.
struct Class {
    name: String,
    predicate: bool,
    side: Side,
    config: ConfigGen,
}

fn classes() -> Vec<Class> {
    let mut out = Vec::new();
    let keyed: &[(&str, ConfigGen)] = &[
        ("Cast", cast),
        ("ExtractField", extract_field),
        ("Flatten", flatten),
        ("HeaderFrom", header_from),
        ("HoistField", hoist_field),
        ("InsertField", insert_field),
        ("MaskField", mask_field),
        ("ReplaceField", replace_field),
        ("SetSchemaMetadata", set_schema_metadata),
        ("TimestampConverter", timestamp_converter),
    ];
    for (name, config) in keyed {
        for (suffix, side) in [("$Key", Side::Key), ("$Value", Side::Value)] {
            out.push(Class {
                name: format!("{T}{name}{suffix}"),
                predicate: false,
                side,
                config: *config,
            });
        }
    }
    let single: &[(&str, Side, ConfigGen)] = &[
        ("DropHeaders", Side::Both, drop_headers),
        ("Filter", Side::Both, |_| json!({})),
        ("InsertHeader", Side::Both, insert_header),
        ("RegexRouter", Side::Both, regex_router),
        ("TimestampRouter", Side::Both, timestamp_router),
        ("ValueToKey", Side::Value, value_to_key),
    ];
    for (name, side, config) in single {
        out.push(Class {
            name: format!("{T}{name}"),
            predicate: false,
            side: *side,
            config: *config,
        });
    }
    let predicates: &[(&str, ConfigGen)] = &[
        ("HasHeaderKey", has_header_key),
        ("RecordIsTombstone", |_| json!({})),
        ("TopicNameMatches", topic_name_matches),
    ];
    for (name, config) in predicates {
        out.push(Class {
            name: format!("{P}{name}"),
            predicate: true,
            side: Side::Both,
            config: *config,
        });
    }
    out
}

/// Every class name of the corpus (for the report's per-class counts).
pub fn class_names() -> Vec<String> {
    classes().into_iter().map(|c| c.name).collect()
}

/// The corpus: [`CASES_PER_CLASS`] cases for every class, in class order.
pub fn generate() -> Vec<Json> {
    let mut r = Rng(SEED);
    let mut cases = Vec::new();
    for class in classes() {
        let short = class
            .name
            .rsplit('.')
            .next()
            .unwrap_or(&class.name)
            .to_owned();
        for i in 0..CASES_PER_CLASS {
            let config = (class.config)(&mut r);
            let record = record(&mut r, class.side);
            cases.push(json!({
                "id": format!("{short}#{i}"),
                "kind": if class.predicate { "predicate" } else { "transform" },
                "class": class.name,
                "config": config,
                "record": record,
            }));
        }
    }
    cases
}
