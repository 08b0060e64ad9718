//! The converter differential's corpus, generated deterministically (fixed seed): random
//! schema/value pairs for `fromConnectData`, fixed edge cases, and raw inputs (valid, odd and
//! malformed) for `toConnectData`. Each case is one JSON object; see `JsonConverterOracle.java`
//! for the description format.

use serde_json::{json, Value as Json};

use super::model::hex;
use crate::support::rng::Rng;

/// The seed of the corpus; change it only on purpose (the report names cases by index).
const SEED: u64 = 0x6b61_666b_6163_6f6e;
/// Random schema/value pairs, each run under one schemas-enabled and one schemaless config.
const RANDOM_PAIRS: usize = 500;
/// Random schemaless JSON documents for `toConnectData`.
const RANDOM_DOCS: usize = 200;

/// A converter configuration: label, properties, is-key.
struct Cfg {
    label: &'static str,
    props: &'static [(&'static str, &'static str)],
    key: bool,
}

const CONFIGS: &[Cfg] = &[
    Cfg {
        label: "env",
        props: &[("schemas.enable", "true")],
        key: false,
    },
    Cfg {
        label: "env-numeric",
        props: &[("schemas.enable", "true"), ("decimal.format", "NUMERIC")],
        key: false,
    },
    Cfg {
        label: "env-keepnull",
        props: &[
            ("schemas.enable", "true"),
            ("replace.null.with.default", "false"),
        ],
        key: false,
    },
    Cfg {
        label: "env-key",
        props: &[("schemas.enable", "true"), ("decimal.format", "numeric")],
        key: true,
    },
    Cfg {
        label: "plain",
        props: &[("schemas.enable", "false")],
        key: false,
    },
    Cfg {
        label: "plain-numeric",
        props: &[("schemas.enable", "false"), ("decimal.format", "NUMERIC")],
        key: false,
    },
    Cfg {
        label: "plain-keepnull",
        props: &[
            ("schemas.enable", "false"),
            ("replace.null.with.default", "false"),
        ],
        key: false,
    },
    Cfg {
        label: "plain-key",
        props: &[("schemas.enable", "false")],
        key: true,
    },
];

const ENV: &[usize] = &[0, 1, 2, 3];
const PLAIN: &[usize] = &[4, 5, 6, 7];

struct Corpus {
    cases: Vec<Json>,
}

impl Corpus {
    fn push(&mut self, name: &str, cfg: usize, mut body: Json) {
        let c = &CONFIGS[cfg];
        let props: serde_json::Map<String, Json> = c
            .props
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect();
        body["id"] = json!(format!("{:04}-{}-{name}", self.cases.len(), c.label));
        body["cfg"] = Json::Object(props);
        body["key"] = json!(c.key);
        self.cases.push(body);
    }
    fn from(&mut self, name: &str, cfg: usize, schema: &Json, value: &Json) {
        self.push(
            name,
            cfg,
            json!({"op": "from", "schema": schema, "value": value}),
        );
    }
    fn to(&mut self, name: &str, cfg: usize, data: Option<&[u8]>) {
        self.push(name, cfg, json!({"op": "to", "data": data.map(hex)}));
    }
    fn raw_in(&mut self, name: &str, cfgs: &[usize], data: &[u8]) {
        for &c in cfgs {
            self.to(name, c, Some(data));
        }
    }
}

// ---- values and strings ----

/// Code points by class: C0 controls, DEL, JSON-special ASCII, Latin-1 incl. C1 controls,
/// other BMP (incl. line/paragraph separators, BOM, private use, U+FFFF) and supplementary.
fn gen_char(r: &mut Rng) -> char {
    let cp = match r.below(8) {
        0 | 1 => u32::from(r.pick(b"aZ0 ~_")),
        2 => r.range(0, 0x1f) as u32,
        3 => r.pick(&[
            0x7f,
            '"' as u32,
            '\\' as u32,
            '/' as u32,
            '\'' as u32,
            '<' as u32,
            '&' as u32,
        ]),
        4 => r.range(0x80, 0xff) as u32,
        5 => {
            if r.chance(50) {
                r.pick(&[
                    0x100, 0x7ff, 0x800, 0x2028, 0x2029, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0xe000,
                    0xd7ff, 0x4e2d,
                ])
            } else {
                r.range(0x100, 0xd7ff) as u32
            }
        }
        _ => {
            if r.chance(50) {
                r.pick(&[0x10000, 0x1f600, 0x1d11e, 0x10ffff, 0xe0001, 0x1f9d1])
            } else {
                r.range(0x10000, 0x10ffff) as u32
            }
        }
    };
    char::from_u32(cp).unwrap_or('?')
}

fn gen_string(r: &mut Rng) -> String {
    let n = r.pick(&[0, 1, 2, 3, 5, 8, 12]);
    (0..n).map(|_| gen_char(r)).collect()
}

const F64_SPECIAL: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    1e7,
    9_999_999.0,
    1e-3,
    9.99e-4,
    1e21,
    1e22,
    1e-7,
    123_456_789.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    f64::from_bits(0x000f_ffff_ffff_ffff), // the largest subnormal
    1.7976931348623157e308,
    9_007_199_254_740_993.0,
    std::f64::consts::PI,
    2e23,
    1e23,
];

const F32_SPECIAL: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    0.1,
    1e7,
    1e-3,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    f32::MIN_POSITIVE,
    1e-45,
    16_777_217.0,
    3.4e38,
    1.1754942e-38,
];

fn gen_f64(r: &mut Rng) -> f64 {
    match r.below(4) {
        0 => r.pick(F64_SPECIAL),
        1 => f64::from_bits(r.next()),
        2 => (r.range(-1_000_000, 1_000_000) as f64) / 1000.0,
        _ => (r.range(1, 999) as f64) * 10f64.powi(r.range(-30, 30) as i32),
    }
}

fn gen_f32(r: &mut Rng) -> f32 {
    match r.below(4) {
        0 => r.pick(F32_SPECIAL),
        1 => f32::from_bits(r.next() as u32),
        2 => (r.range(-100_000, 100_000) as f32) / 100.0,
        _ => (r.range(1, 999) as f32) * 10f32.powi(r.range(-20, 20) as i32),
    }
}

fn f64_desc(x: f64) -> Json {
    let bits = if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits()
    };
    json!({"f64": format!("{bits:016x}")})
}

fn f32_desc(x: f32) -> Json {
    let bits = if x.is_nan() { 0x7fc0_0000 } else { x.to_bits() };
    json!({"f32": format!("{bits:08x}")})
}

fn gen_bytes(r: &mut Rng) -> Json {
    let n = r.pick(&[0, 1, 2, 3, 4, 7, 16]);
    let b: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
    json!({"bytes": hex(&b)})
}

fn gen_unscaled(r: &mut Rng) -> String {
    match r.below(3) {
        0 => r
            .pick(&[
                "0",
                "1",
                "-1",
                "127",
                "128",
                "-128",
                "-129",
                "255",
                "256",
                "-32768",
                "99999999999999999999",
                "-170141183460469231731687303715884105728",
            ])
            .to_owned(),
        1 => r.range(-1_000_000, 1_000_000).to_string(),
        _ => {
            let n = r.range(1, 40);
            let mut s: String = if r.chance(40) {
                "-".into()
            } else {
                String::new()
            };
            s.push(char::from(b'1' + r.below(9) as u8));
            for _ in 1..n {
                s.push(char::from(b'0' + r.below(10) as u8));
            }
            s
        }
    }
}

// ---- schemas ----

fn prim(t: &str) -> Json {
    json!({ "t": t })
}

fn decimal_schema(scale: i64) -> Json {
    json!({"t": "bytes", "n": "org.apache.kafka.connect.data.Decimal", "v": 1,
           "p": [["scale", scale.to_string()]]})
}

fn logical(n: &str, t: &str) -> Json {
    json!({"t": t, "n": format!("org.apache.kafka.connect.data.{n}"), "v": 1})
}

const PRIMS: &[&str] = &[
    "int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string", "bytes",
];

fn gen_leaf_schema(r: &mut Rng) -> Json {
    match r.below(13) {
        i @ 0..=8 => prim(PRIMS[i as usize]),
        9 => decimal_schema(r.pick(&[-3, -1, 0, 0, 1, 2, 2, 5, 10, 18])),
        10 => logical("Date", "int32"),
        11 => logical("Time", "int32"),
        _ => logical("Timestamp", "int64"),
    }
}

fn field_name(r: &mut Rng, i: usize) -> String {
    match r.below(6) {
        0 => gen_string(r) + &format!("#{i}"),
        _ => format!("f{i}"),
    }
}

fn gen_schema(r: &mut Rng, depth: u32) -> Json {
    let kind = if depth >= 3 { 0 } else { r.below(10) };
    let mut s = match kind {
        0..=4 => gen_leaf_schema(r),
        5 => json!({"t": "array", "items": gen_schema(r, depth + 1)}),
        6 => {
            let mut keys = prim("string");
            if r.chance(20) {
                keys["o"] = json!(true);
            }
            json!({"t": "map", "keys": keys, "vals": gen_schema(r, depth + 1)})
        }
        7 => {
            json!({"t": "map", "keys": gen_schema(r, depth + 1), "vals": gen_schema(r, depth + 1)})
        }
        _ => {
            let n = r.range(0, 5) as usize;
            let fields: Vec<Json> = (0..n)
                .map(|i| json!([field_name(r, i), gen_schema(r, depth + 1)]))
                .collect();
            json!({"t": "struct", "f": fields})
        }
    };
    let is_logical = s.get("n").is_some();
    if r.chance(30) {
        s["o"] = json!(true);
    }
    if !is_logical {
        if r.chance(15) {
            s["n"] = json!(if r.chance(50) {
                format!("com.example.N{}", r.below(100))
            } else {
                gen_string(r)
            });
        }
        if r.chance(10) {
            s["v"] = json!(r.pick(&[0, 1, 7, -1, i64::from(i32::MAX)]));
        }
        if r.chance(10) {
            // Kafka's SchemaBuilder never keeps an empty parameter map.
            let n = r.range(1, 3);
            let p: Vec<Json> = (0..n)
                .map(|i| json!([format!("k{i}{}", gen_string(r)), gen_string(r)]))
                .collect();
            s["p"] = json!(p);
        }
    } else if r.chance(10) {
        let mut p = s.get("p").cloned().unwrap_or_else(|| json!([]));
        if let Some(a) = p.as_array_mut() {
            a.push(json!(["connect.decimal.precision", "20"]));
        }
        s["p"] = p;
    }
    if r.chance(10) {
        s["d"] = json!(gen_string(r));
    }
    if s["t"] != "struct" && r.chance(15) {
        // A default must be valid for Java's SchemaBuilder: never null, no structs inside.
        if !contains_struct(&s) {
            let def = gen_value(r, &s, true, true);
            if !def.is_null() {
                s["def"] = def;
            }
        }
    }
    s
}

fn contains_struct(s: &Json) -> bool {
    s["t"] == "struct"
        || ["items", "keys", "vals"]
            .iter()
            .any(|k| s.get(*k).is_some_and(contains_struct))
}

/// A value for `schema`; `strict` (inside a struct or a default) keeps nulls to optional
/// schemas, as Java's `Struct.put` validates them.
fn gen_value(r: &mut Rng, s: &Json, strict: bool, non_null: bool) -> Json {
    let optional = s["o"] == json!(true);
    let has_default = s.get("def").is_some();
    if !non_null && ((optional && r.chance(15)) || (!strict && has_default && r.chance(25))) {
        return Json::Null;
    }
    let name = s["n"].as_str().unwrap_or("");
    match (s["t"].as_str().unwrap_or(""), name) {
        ("bytes", "org.apache.kafka.connect.data.Decimal") => {
            let scale: i64 = s["p"][0][1].as_str().unwrap_or("0").parse().unwrap_or(0);
            json!({"dec": [gen_unscaled(r), scale]})
        }
        ("int32", "org.apache.kafka.connect.data.Date") => {
            json!({"date": r.range(-200_000, 200_000) * 86_400_000})
        }
        ("int32", "org.apache.kafka.connect.data.Time") => {
            let x = r.range(0, 86_399_999);
            json!({"date": r.pick(&[0, 1, 86_399_999, x])})
        }
        ("int64", "org.apache.kafka.connect.data.Timestamp") => {
            let x = r.range(-10_000_000_000_000, 10_000_000_000_000);
            json!({"date": r.pick(&[0, -1, 1_700_000_000_123, -62_135_596_800_000, 253_402_300_799_999, x])})
        }
        ("int8", _) => {
            let x = r.range(-128, 127);
            json!({"i8": r.pick(&[0, 1, -1, 127, -128, x])})
        }
        ("int16", _) => {
            let x = r.range(-32768, 32767);
            json!({"i16": r.pick(&[0, -1, 32767, -32768, x])})
        }
        ("int32", _) => {
            let (x, y) = (r.range(-1_000_000, 1_000_000), i64::from(r.next() as i32));
            json!({"i32": r.pick(&[0, -1, i64::from(i32::MAX), i64::from(i32::MIN), x, y])})
        }
        ("int64", _) => {
            let x = r.next() as i64;
            json!({"i64": r.pick(&[0, -1, i64::MAX, i64::MIN, 1 << 53, (1 << 53) + 1, x])})
        }
        ("float32", _) => f32_desc(gen_f32(r)),
        ("float64", _) => f64_desc(gen_f64(r)),
        ("boolean", _) => json!({"bool": r.chance(50)}),
        ("string", _) => json!({"str": gen_string(r)}),
        ("bytes", _) => gen_bytes(r),
        ("array", _) => {
            let n = r.range(0, 4);
            let items: Vec<Json> = (0..n)
                .map(|_| gen_value(r, &s["items"], strict, false))
                .collect();
            json!({ "arr": items })
        }
        ("map", _) => {
            let n = r.range(0, 4);
            let mut seen = Vec::new();
            let mut entries = Vec::new();
            for _ in 0..n {
                let k = gen_value(r, &s["keys"], strict, false);
                if seen.contains(&k) {
                    continue;
                }
                seen.push(k.clone());
                entries.push(json!([k, gen_value(r, &s["vals"], strict, false)]));
            }
            json!({ "map": entries })
        }
        ("struct", _) => {
            let fields = s["f"].as_array().cloned().unwrap_or_default();
            let values: Vec<Json> = fields
                .iter()
                .map(|f| gen_value(r, &f[1], true, false))
                .collect();
            json!({ "st": values })
        }
        (t, _) => panic!("corpus: no generator for {t}"),
    }
}

/// A value without a schema (the Java class decides the JSON type).
fn gen_schemaless(r: &mut Rng, depth: u32) -> Json {
    match r.below(if depth >= 3 { 9 } else { 12 }) {
        0 => Json::Null,
        1 => json!({"bool": r.chance(50)}),
        2 => json!({"i8": r.range(-128, 127)}),
        3 => json!({"i16": r.range(-32768, 32767)}),
        4 => json!({"i32": r.next() as i32}),
        5 => json!({"i64": r.next() as i64}),
        6 => f32_desc(gen_f32(r)),
        7 => f64_desc(gen_f64(r)),
        8 => {
            if r.chance(50) {
                json!({"str": gen_string(r)})
            } else {
                gen_bytes(r)
            }
        }
        9 => {
            let n = r.range(0, 4);
            json!({"arr": (0..n).map(|_| gen_schemaless(r, depth + 1)).collect::<Vec<_>>()})
        }
        _ => {
            let n = r.range(0, 4);
            let string_keys = r.chance(70);
            let mut seen = Vec::new();
            let mut entries = Vec::new();
            for i in 0..n {
                let k = if string_keys {
                    json!({"str": format!("{}{i}", gen_string(r))})
                } else {
                    gen_schemaless(r, 3)
                };
                if seen.contains(&k) || k.is_null() {
                    continue;
                }
                seen.push(k.clone());
                entries.push(json!([k, gen_schemaless(r, depth + 1)]));
            }
            json!({ "map": entries })
        }
    }
}

// ---- fixed cases ----

fn fixed_from_cases(c: &mut Corpus) {
    let s_opt = json!({"t": "string", "o": true});
    let s_req = json!({"t": "string"});
    let s_def = json!({"t": "string", "def": {"str": "dflt"}});
    let s_opt_def = json!({"t": "string", "o": true, "def": {"str": "dflt"}});
    for cfg in 0..CONFIGS.len() {
        c.from("tombstone", cfg, &Json::Null, &Json::Null);
        c.from("null-optional", cfg, &s_opt, &Json::Null);
        c.from("null-required", cfg, &s_req, &Json::Null);
        c.from("null-required-default", cfg, &s_def, &Json::Null);
        c.from("null-optional-default", cfg, &s_opt_def, &Json::Null);
        let st = json!({"t": "struct", "f": [["a", s_opt], ["b", s_opt_def], ["c", s_def],
                        ["d", {"t": "int32", "o": true, "def": {"i32": 7}}]]});
        c.from(
            "struct-null-fields",
            cfg,
            &st,
            &json!({"st": [null, null, null, null]}),
        );
        c.from(
            "struct-set-fields",
            cfg,
            &st,
            &json!({"st": [{"str": "x"}, {"str": "y"}, {"str": "z"}, {"i32": 1}]}),
        );
        let arr = json!({"t": "array", "items": s_def});
        c.from(
            "array-null-items-default",
            cfg,
            &arr,
            &json!({"arr": [null, {"str": "v"}]}),
        );
        let map = json!({"t": "map", "keys": {"t": "string", "o": true, "def": {"str": "K"}}, "vals": s_opt});
        c.from(
            "map-null-key-default",
            cfg,
            &map,
            &json!({"map": [[null, {"str": "v"}]]}),
        );
        let map = json!({"t": "map", "keys": s_opt, "vals": s_opt});
        c.from(
            "map-null-key-optional",
            cfg,
            &map,
            &json!({"map": [[null, null], [{"str": "null"}, {"str": "w"}]]}),
        );
        c.from(
            "mismatch-int-str",
            cfg,
            &prim("int32"),
            &json!({"str": "1"}),
        );
        c.from("mismatch-str-int", cfg, &prim("string"), &json!({"i32": 1}));
        c.from(
            "mismatch-int64-int32",
            cfg,
            &prim("int64"),
            &json!({"i32": 1}),
        );
        c.from(
            "mismatch-bytes-str",
            cfg,
            &prim("bytes"),
            &json!({"str": "x"}),
        );
        c.from(
            "mismatch-map-array",
            cfg,
            &json!({"t": "map", "keys": s_req, "vals": s_req}),
            &json!({"arr": []}),
        );
        let time = logical("Time", "int32");
        c.from("time-over-day", cfg, &time, &json!({"date": 86_400_000}));
        c.from("time-negative", cfg, &time, &json!({"date": -1}));
        c.from("schemaless-nested", cfg, &Json::Null, &json!({"arr": [{"map": [[{"i32": 1}, {"str": "a"}]]}, {"map": [[{"str": "k"}, null]]}]}));
        c.from(
            "schemaless-mixed-keys",
            cfg,
            &Json::Null,
            &json!({"map": [[{"str": "a"}, {"i8": 1}], [{"i64": 2}, {"bool": true}]]}),
        );
        // Every class of character, one string each.
        for (name, s) in [
            (
                "c0",
                "\u{0}\u{1}\u{7}\u{8}\t\n\u{b}\u{c}\r\u{e}\u{1b}\u{1f}",
            ),
            ("del", "\u{7f}"),
            ("specials", "\"\\/'<>&"),
            ("latin1-c1", "\u{80}\u{85}\u{9f}\u{a0}é\u{ff}"),
            (
                "bmp",
                "\u{100}中\u{2028}\u{2029}\u{feff}\u{fffd}\u{fffe}\u{ffff}\u{e000}",
            ),
            ("astral", "😀𝄞\u{10000}\u{10ffff}\u{e0001}"),
            ("mixed", "a😀\u{0}é\u{2028}\"\\𝄞z"),
        ] {
            c.from(&format!("chars-{name}"), cfg, &s_req, &json!({"str": s}));
            let meta = json!({"t": "int8", "n": s, "d": s, "p": [[s, s]]});
            c.from(&format!("chars-meta-{name}"), cfg, &meta, &json!({"i8": 1}));
            let st = json!({"t": "struct", "f": [[s, s_req]]});
            c.from(
                &format!("chars-field-{name}"),
                cfg,
                &st,
                &json!({"st": [{"str": s}]}),
            );
            let m = json!({"t": "map", "keys": s_req, "vals": s_req});
            c.from(
                &format!("chars-key-{name}"),
                cfg,
                &m,
                &json!({"map": [[{"str": s}, {"str": s}]]}),
            );
        }
        for &x in F64_SPECIAL {
            c.from("f64", cfg, &prim("float64"), &f64_desc(x));
            c.from("f64-schemaless", cfg, &Json::Null, &f64_desc(x));
        }
        for &x in F32_SPECIAL {
            c.from("f32", cfg, &prim("float32"), &f32_desc(x));
        }
    }
    // Decimals: unscaled values × scales, both formats, positive and negative.
    for (i, unscaled) in [
        "0",
        "1",
        "-1",
        "127",
        "128",
        "-128",
        "-129",
        "255",
        "-256",
        "12345",
        "-12345",
        "100000000000000000000",
        "-99999999999999999999999999999999999999",
    ]
    .iter()
    .enumerate()
    {
        for scale in [-3, -1, 0, 1, 2, 5, 10, 20] {
            for cfg in [0, 1, 5] {
                c.from(
                    &format!("decimal-{i}-s{scale}"),
                    cfg,
                    &decimal_schema(scale),
                    &json!({"dec": [unscaled, scale]}),
                );
            }
        }
    }
    let dd = json!({"t": "bytes", "n": "org.apache.kafka.connect.data.Decimal", "v": 1,
                    "p": [["scale", "2"]], "def": {"dec": ["-1234", 2]}});
    for cfg in [0, 1, 2] {
        c.from("decimal-default", cfg, &dd, &Json::Null);
    }
}

/// Raw inputs for `toConnectData`: (name, bytes, under which configs).
fn fixed_to_cases(c: &mut Corpus) {
    let all: Vec<usize> = (0..CONFIGS.len()).collect();
    for &cfg in &all {
        c.to("null-bytes", cfg, None);
    }
    let plain_docs: &[(&str, &[u8])] = &[
        ("empty", b""),
        ("space", b"   "),
        ("null", b"null"),
        ("null-ws", b" \n\tnull\r\n"),
        ("true", b"true"),
        ("int", b"42"),
        ("neg-zero", b"-0"),
        ("neg-zero-float", b"-0.0"),
        ("long", b"9223372036854775807"),
        ("long-min", b"-9223372036854775808"),
        ("bigint", b"9223372036854775808"),
        ("bigint-neg", b"-123456789012345678901234567890"),
        ("float", b"1.5"),
        ("float-exp", b"1e2"),
        ("float-exp-neg", b"1E-7"),
        ("float-long", b"0.1000000000000000055511151231257827"),
        ("float-huge", b"1e400"),
        ("float-tiny", b"1e-400"),
        ("float-max", b"1.7976931348623157E308"),
        ("float-pi", b"3.141592653589793238462643383279"),
        ("leading-zero", b"007"),
        ("leading-zero-float", b"00.5"),
        ("plus", b"+1"),
        ("dot-start", b".5"),
        ("dot-end", b"1."),
        ("exp-empty", b"1e"),
        ("minus", b"-"),
        ("nan-literal", b"NaN"),
        ("inf-literal", b"Infinity"),
        ("str", b"\"abc\""),
        (
            "str-escapes",
            b"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u00e9\\u00E9\"",
        ),
        (
            "str-surrogates-escaped",
            b"\"\\ud83d\\ude00\\uD834\\uDD1E\"",
        ),
        ("str-lone-high", b"\"a\\ud800b\""),
        ("str-lone-low", b"\"\\udc00\""),
        ("str-reversed-pair", b"\"\\ude00\\ud83d\""),
        ("str-raw-astral", "\"😀\"".as_bytes()),
        ("str-raw-control", b"\"a\x01b\""),
        ("str-raw-tab", b"\"a\tb\""),
        ("str-raw-del", b"\"a\x7fb\""),
        ("str-bad-escape", b"\"\\x\""),
        ("str-short-unicode", b"\"\\u12\""),
        ("str-unterminated", b"\"abc"),
        ("utf8-invalid", b"\"\xff\""),
        ("utf8-overlong", b"\"\xc0\xaf\""),
        ("utf8-truncated", b"\"\xe4\xb8\""),
        ("utf8-surrogate-encoded", b"\"\xed\xa0\x80\""),
        ("bom", b"\xef\xbb\xbf{\"a\":1}"),
        ("object", b"{\"b\":1,\"a\":[true,null,2.5,\"x\"]}"),
        ("object-dup-key", b"{\"a\":1,\"a\":2}"),
        ("object-ws", b" { \"a\" : [ 1 , 2 ] } "),
        ("object-unquoted-key", b"{a:1}"),
        ("object-single-quotes", b"{'a':1}"),
        ("object-trailing-comma", b"{\"a\":1,}"),
        ("array-trailing-comma", b"[1,]"),
        ("comment", b"/* c */ 1"),
        ("line-comment", b"// c\n1"),
        ("trailing-garbage", b"{} x"),
        ("two-values", b"1 2"),
        ("unclosed", b"[1,2"),
        ("deep-ok", &deep(900)),
        ("deep-too-deep", &deep(1100)),
        ("nul-byte", b"\x00"),
        ("envelope-shaped", b"{\"schema\":null,\"payload\":1}"),
    ];
    for (name, data) in plain_docs {
        c.raw_in(&format!("doc-{name}"), &[4, 6], data);
        c.raw_in(&format!("doc-{name}"), &[0], data);
    }
    // Envelopes: (name, schema JSON, payload JSON).
    let envelopes: &[(&str, &str, &str)] = &[
        ("null-schema", "null", "{\"a\":[1,2.5]}"),
        ("int8-overflow", r#"{"type":"int8"}"#, "300"),
        ("int16-from-float", r#"{"type":"int16"}"#, "1.9"),
        ("int32-from-string", r#"{"type":"int32"}"#, "\"7\""),
        ("int32-from-long", r#"{"type":"int32"}"#, "4294967297"),
        ("int64-from-bigint", r#"{"type":"int64"}"#, "18446744073709551617"),
        ("int64-from-exp", r#"{"type":"int64"}"#, "1e3"),
        ("float-from-int", r#"{"type":"float"}"#, "16777217"),
        ("float-from-nan-string", r#"{"type":"float"}"#, "\"NaN\""),
        ("double-from-string", r#"{"type":"double"}"#, "\"Infinity\""),
        ("double-from-bigint", r#"{"type":"double"}"#, "123456789012345678901234567890"),
        ("bool-from-string", r#"{"type":"boolean"}"#, "\"true\""),
        ("bool-from-int", r#"{"type":"boolean"}"#, "1"),
        ("string-from-int", r#"{"type":"string"}"#, "1"),
        ("string-opt-from-int", r#"{"type":"string","optional":true}"#, "1"),
        ("bytes-ok", r#"{"type":"bytes"}"#, "\"AAEC/w==\""),
        ("bytes-no-padding", r#"{"type":"bytes"}"#, "\"AAEC/w\""),
        ("bytes-urlsafe", r#"{"type":"bytes"}"#, "\"-_8=\""),
        ("bytes-with-newline", r#"{"type":"bytes"}"#, "\"AAEC\\n/w==\""),
        ("bytes-with-space", r#"{"type":"bytes"}"#, "\"AAEC /w==\""),
        ("bytes-invalid", r#"{"type":"bytes"}"#, "\"!!\""),
        ("bytes-empty", r#"{"type":"bytes"}"#, "\"\""),
        ("bytes-from-int", r#"{"type":"bytes"}"#, "5"),
        ("required-null", r#"{"type":"string"}"#, "null"),
        ("optional-null", r#"{"type":"string","optional":true}"#, "null"),
        ("default-null", r#"{"type":"string","default":"d"}"#, "null"),
        ("default-wrong-type", r#"{"type":"int32","default":"x"}"#, "1"),
        ("default-null-literal", r#"{"type":"int32","default":null}"#, "null"),
        ("optional-string-true", r#"{"type":"string","optional":"true"}"#, "null"),
        ("version-string", r#"{"type":"string","version":"1"}"#, "\"a\""),
        ("version-float", r#"{"type":"string","version":1.5}"#, "\"a\""),
        ("version-long", r#"{"type":"string","version":4294967297}"#, "\"a\""),
        ("name-int", r#"{"type":"string","name":5}"#, "\"a\""),
        ("doc-int", r#"{"type":"string","doc":5}"#, "\"a\""),
        ("params-int", r#"{"type":"string","parameters":{"a":1}}"#, "\"a\""),
        ("params-array", r#"{"type":"string","parameters":[1]}"#, "\"a\""),
        ("params-empty", r#"{"type":"string","parameters":{}}"#, "\"a\""),
        ("unknown-type", r#"{"type":"uuid"}"#, "1"),
        ("type-missing", r#"{"optional":true}"#, "1"),
        ("type-int", r#"{"type":1}"#, "1"),
        ("schema-array", "[]", "1"),
        ("schema-string", "\"int32\"", "1"),
        ("extra-schema-keys", r#"{"type":"int32","foo":[1],"field":"x"}"#, "1"),
        ("array-no-items", r#"{"type":"array"}"#, "[]"),
        ("array-null-items", r#"{"type":"array","items":null}"#, "[]"),
        ("array-from-object", r#"{"type":"array","items":{"type":"int32"}}"#, "{\"a\":1,\"b\":2}"),
        ("array-from-scalar", r#"{"type":"array","items":{"type":"int32"}}"#, "5"),
        ("array-null-elem", r#"{"type":"array","items":{"type":"int32"}}"#, "[1,null]"),
        ("array-null-elem-opt", r#"{"type":"array","items":{"type":"int32","optional":true}}"#, "[1,null]"),
        ("map-no-keys", r#"{"type":"map","values":{"type":"int32"}}"#, "{}"),
        ("map-null-keys", r#"{"type":"map","keys":null,"values":{"type":"int32"}}"#, "{}"),
        ("map-object", r#"{"type":"map","keys":{"type":"string"},"values":{"type":"int32"}}"#, "{\"z\":1,\"a\":2,\"m\":3}"),
        ("map-object-dup", r#"{"type":"map","keys":{"type":"string"},"values":{"type":"int32"}}"#, "{\"a\":1,\"a\":2}"),
        ("map-object-from-array", r#"{"type":"map","keys":{"type":"string"},"values":{"type":"int32"}}"#, "[[\"a\",1]]"),
        ("map-pairs", r#"{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}}"#, "[[3,\"c\"],[1,\"a\"],[2,\"b\"]]"),
        ("map-pairs-from-object", r#"{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}}"#, "{\"1\":\"a\"}"),
        ("map-pairs-bad-entry", r#"{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}}"#, "[5]"),
        ("map-pairs-short", r#"{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}}"#, "[[1]]"),
        ("map-pairs-long", r#"{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}}"#, "[[1,\"a\",2]]"),
        ("map-pairs-dup", r#"{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}}"#, "[[1,\"a\"],[1,\"b\"]]"),
        ("struct-ok", r#"{"type":"struct","fields":[{"type":"int32","field":"a"},{"type":"string","optional":true,"field":"b"}]}"#, "{\"b\":\"x\",\"a\":1,\"c\":3}"),
        ("struct-missing-required", r#"{"type":"struct","fields":[{"type":"int32","field":"a"}]}"#, "{}"),
        ("struct-missing-default", r#"{"type":"struct","fields":[{"type":"int32","default":5,"field":"a"}]}"#, "{}"),
        ("struct-from-array", r#"{"type":"struct","fields":[]}"#, "[]"),
        ("struct-no-fields", r#"{"type":"struct"}"#, "{}"),
        ("struct-fields-object", r#"{"type":"struct","fields":{}}"#, "{}"),
        ("struct-field-no-name", r#"{"type":"struct","fields":[{"type":"int32"}]}"#, "{}"),
        ("struct-field-empty-name", r#"{"type":"struct","fields":[{"type":"int32","field":""}]}"#, "{\"\":1}"),
        ("struct-field-dup", r#"{"type":"struct","fields":[{"type":"int32","field":"a"},{"type":"int32","field":"a"}]}"#, "{\"a\":1}"),
        ("struct-default", r#"{"type":"struct","fields":[{"type":"int32","field":"a"}],"default":{"a":3}}"#, "null"),
        ("decimal-base64", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}}"#, "\"AOI=\""),
        ("decimal-base64-empty", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "\"\""),
        ("decimal-base64-padded", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "\"AAAB\""),
        ("decimal-number", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "12.3"),
        ("decimal-number-int", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "12"),
        ("decimal-number-exp", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "1.5E3"),
        ("decimal-number-round", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "12.345"),
        ("decimal-number-neg-scale", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"-2"}}"#, "12300"),
        ("decimal-bool", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "true"),
        ("decimal-no-scale", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal"}"#, "\"AQ==\""),
        ("decimal-bad-scale", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"x"}}"#, "\"AQ==\""),
        ("decimal-on-int32", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}"#, "5"),
        ("decimal-default", r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"1"},"default":"AQ=="}"#, "null"),
        ("date", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1}"#, "19000"),
        ("date-negative", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Date"}"#, "-719528"),
        ("date-float", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Date"}"#, "1.5"),
        ("date-string", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Date"}"#, "\"2020-01-01\""),
        ("date-long", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Date"}"#, "4294967296"),
        ("date-on-int64", r#"{"type":"int64","name":"org.apache.kafka.connect.data.Date"}"#, "1"),
        ("time", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1}"#, "3600000"),
        ("time-max", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Time"}"#, "86400000"),
        ("time-over", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Time"}"#, "86400001"),
        ("time-negative", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Time"}"#, "-1"),
        ("timestamp", r#"{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1}"#, "1700000000123"),
        ("timestamp-int", r#"{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"}"#, "5"),
        ("timestamp-float", r#"{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"}"#, "5.0"),
        ("timestamp-bigint", r#"{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"}"#, "18446744073709551616"),
        ("timestamp-on-int32", r#"{"type":"int32","name":"org.apache.kafka.connect.data.Timestamp"}"#, "5"),
        ("astral-schema-meta", "{\"type\":\"string\",\"name\":\"\\ud83d\\ude00😀\",\"doc\":\"\\u0000\",\"parameters\":{\"\\u2028\":\"\\/\"}}", "\"\\ud83d\\ude00\""),
    ];
    for (name, schema, payload) in envelopes {
        let doc = format!("{{\"schema\":{schema},\"payload\":{payload}}}");
        c.raw_in(&format!("env-{name}"), &[0, 1, 2], doc.as_bytes());
    }
    let raw_envelopes: &[(&str, &str)] = &[
        ("missing-payload", r#"{"schema":{"type":"int32"}}"#),
        ("missing-schema", r#"{"payload":1}"#),
        (
            "extra-field",
            r#"{"schema":{"type":"int32"},"payload":1,"x":2}"#,
        ),
        ("reversed", r#"{"payload":1,"schema":{"type":"int32"}}"#),
        (
            "dup-payload",
            r#"{"schema":{"type":"int32"},"payload":1,"payload":2}"#,
        ),
        (
            "dup-schema",
            r#"{"schema":{"type":"string"},"schema":{"type":"int32"},"payload":1}"#,
        ),
        ("array", r#"[{"type":"int32"},1]"#),
        ("scalar", "1"),
        (
            "ws",
            " {\n \"schema\" : { \"type\" : \"int32\" } ,\n \"payload\" : 1 }\n",
        ),
        ("null-both", r#"{"schema":null,"payload":null}"#),
    ];
    for (name, doc) in raw_envelopes {
        c.raw_in(&format!("raw-{name}"), &[0, 2], doc.as_bytes());
    }
}

fn deep(n: usize) -> Vec<u8> {
    let mut v = vec![b'['; n];
    v.extend(std::iter::repeat_n(b']', n));
    v
}

/// A random JSON number's text (to test number parsing and re-serialization).
fn gen_number_text(r: &mut Rng) -> String {
    let mut s = String::new();
    if r.chance(30) {
        s.push('-');
    }
    let int_digits = r.range(1, 25);
    s.push(char::from(b'1' + r.below(9) as u8));
    for _ in 1..int_digits {
        s.push(char::from(b'0' + r.below(10) as u8));
    }
    if r.chance(50) {
        s.push('.');
        for _ in 0..r.range(1, 20) {
            s.push(char::from(b'0' + r.below(10) as u8));
        }
    }
    if r.chance(40) {
        s.push(r.pick(&['e', 'E']));
        if r.chance(50) {
            s.push(r.pick(&['-', '+']));
        }
        s.push_str(&r.range(0, 330).to_string());
    }
    s
}

/// A random JSON document (schemaless reading), with odd number texts and white space.
fn gen_doc(r: &mut Rng, depth: u32, out: &mut String) {
    match r.below(if depth >= 3 { 5 } else { 7 }) {
        0 => out.push_str(r.pick(&["null", "true", "false"])),
        1 | 2 => out.push_str(&gen_number_text(r)),
        3 => out.push_str(&r.range(-1000, 1000).to_string()),
        4 => out.push_str(&serde_json::to_string(&gen_string(r)).unwrap_or_default()),
        5 => {
            out.push('[');
            for i in 0..r.range(0, 4) {
                if i > 0 {
                    out.push_str(r.pick(&[",", " , ", ",\n"]));
                }
                gen_doc(r, depth + 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..r.range(0, 4) {
                if i > 0 {
                    out.push(',');
                }
                let k = format!("{}{i}", gen_string(r));
                out.push_str(&serde_json::to_string(&k).unwrap_or_default());
                out.push_str(r.pick(&[":", " : "]));
                gen_doc(r, depth + 1, out);
            }
            out.push('}');
        }
    }
}

/// The whole corpus, in a fixed order.
pub fn generate() -> Vec<Json> {
    let mut c = Corpus { cases: Vec::new() };
    let mut r = Rng(SEED);
    fixed_from_cases(&mut c);
    fixed_to_cases(&mut c);
    for i in 0..RANDOM_PAIRS {
        let schema = gen_schema(&mut r, 0);
        let value = gen_value(&mut r, &schema, false, false);
        let env = r.pick(ENV);
        c.from(&format!("random-{i}"), env, &schema, &value);
        let plain = r.pick(PLAIN);
        c.from(&format!("random-{i}"), plain, &schema, &value);
    }
    for i in 0..RANDOM_PAIRS / 5 {
        let value = gen_schemaless(&mut r, 0);
        let cfg = r.pick(&[0, 4, 6]);
        c.from(&format!("random-schemaless-{i}"), cfg, &Json::Null, &value);
    }
    for i in 0..RANDOM_DOCS {
        let mut doc = String::new();
        gen_doc(&mut r, 0, &mut doc);
        let cfg = r.pick(PLAIN);
        c.to(&format!("random-doc-{i}"), cfg, Some(doc.as_bytes()));
    }
    c.cases
}
