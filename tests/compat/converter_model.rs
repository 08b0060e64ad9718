//! The Rust side of the converter differential: builds Connect data from the corpus's neutral
//! description, runs connect-rs's JsonConverter, and dumps results in the canonical, type-tagged
//! form that `JsonConverterOracle.java` also writes (keep the two in step).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use connect_api::{
    logical, ConfigMap, Converter, Field, Headers, Schema, SchemaRef, SchemaType, Struct, Value,
};
use connect_rs::converters::JsonConverter;
use indexmap::IndexMap;
use num_bigint::BigInt;
use serde_json::Value as Json;

const TOPIC: &str = "topic";

/// Runs every case through connect-rs; one result line (id, then fields) per case, as Java does.
pub fn run_all(cases: &[Json]) -> Vec<Vec<String>> {
    let mut converters: HashMap<String, JsonConverter> = HashMap::new();
    cases
        .iter()
        .map(|c| {
            let cfg_key = format!("{}{}", c["cfg"], c["key"]);
            let conv = converters.entry(cfg_key).or_insert_with(|| {
                let mut conv = JsonConverter::default();
                let props: ConfigMap = c["cfg"]
                    .as_object()
                    .expect("cfg object")
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().expect("cfg string").to_owned()))
                    .collect();
                Converter::configure(&mut conv, &props, c["key"] == Json::Bool(true))
                    .expect("configure");
                conv
            });
            let mut fields = vec![c["id"].as_str().expect("id").to_owned()];
            run_case(conv, c, &mut fields);
            fields
        })
        .collect()
}

fn run_case(conv: &JsonConverter, c: &Json, fields: &mut Vec<String>) {
    let headers = Headers::new();
    let data = if c["op"] == "from" {
        let schema = build_schema(&c["schema"]);
        let value = build_value(&c["value"], schema.as_ref());
        match conv.from_connect(TOPIC, &headers, schema.as_ref(), &value) {
            Err(e) => {
                fields.push(format!("ERR {e}"));
                return;
            }
            Ok(data) => {
                fields.push(bytes_field(data.as_deref()));
                match data {
                    None => return,
                    Some(d) => Some(d),
                }
            }
        }
    } else {
        c["data"].as_str().map(unhex)
    };
    let sv = match conv.to_connect(TOPIC, &headers, data.as_deref()) {
        Err(e) => {
            fields.push(format!("ERR {e}"));
            return;
        }
        Ok(sv) => sv,
    };
    fields.push(dump(sv.schema.as_ref(), &sv.value));
    fields.push(
        match conv.from_connect(TOPIC, &headers, sv.schema.as_ref(), &sv.value) {
            Ok(d) => bytes_field(d.as_deref()),
            Err(e) => format!("ERR {e}"),
        },
    );
}

/// `schema = value` in the canonical form.
pub fn dump(schema: Option<&SchemaRef>, value: &Value) -> String {
    let mut b = String::new();
    dump_schema(&mut b, schema);
    b.push_str(" = ");
    dump_value(&mut b, schema, value);
    b
}

fn bytes_field(data: Option<&[u8]>) -> String {
    data.map_or_else(|| "NULL".to_owned(), |d| format!("B:{}", hex(d)))
}

// ---- building Connect data from the neutral description ----

fn schema_type(t: &str) -> SchemaType {
    match t {
        "int8" => SchemaType::Int8,
        "int16" => SchemaType::Int16,
        "int32" => SchemaType::Int32,
        "int64" => SchemaType::Int64,
        "float32" => SchemaType::Float32,
        "float64" => SchemaType::Float64,
        "boolean" => SchemaType::Boolean,
        "string" => SchemaType::String,
        "bytes" => SchemaType::Bytes,
        "array" => SchemaType::Array,
        "map" => SchemaType::Map,
        "struct" => SchemaType::Struct,
        other => panic!("corpus: unknown schema type {other}"),
    }
}

fn type_name(t: SchemaType) -> &'static str {
    match t {
        SchemaType::Int8 => "int8",
        SchemaType::Int16 => "int16",
        SchemaType::Int32 => "int32",
        SchemaType::Int64 => "int64",
        SchemaType::Float32 => "float32",
        SchemaType::Float64 => "float64",
        SchemaType::Boolean => "boolean",
        SchemaType::String => "string",
        SchemaType::Bytes => "bytes",
        SchemaType::Array => "array",
        SchemaType::Map => "map",
        SchemaType::Struct => "struct",
    }
}

fn build_schema(s: &Json) -> Option<SchemaRef> {
    if s.is_null() {
        return None;
    }
    let t = schema_type(s["t"].as_str().expect("schema t"));
    let mut schema = Schema::of(t, s["o"] == Json::Bool(true));
    match t {
        SchemaType::Array => schema.value_schema = build_schema(&s["items"]),
        SchemaType::Map => {
            schema.key_schema = build_schema(&s["keys"]);
            schema.value_schema = build_schema(&s["vals"]);
        }
        SchemaType::Struct => {
            for (index, f) in s["f"].as_array().expect("fields").iter().enumerate() {
                schema.fields.push(Field {
                    name: f[0].as_str().expect("field name").to_owned(),
                    index,
                    schema: build_schema(&f[1]).expect("field schema"),
                });
            }
        }
        _ => {}
    }
    schema.name = s["n"].as_str().map(str::to_owned);
    schema.version = s["v"].as_i64().map(|v| v as i32);
    schema.doc = s["d"].as_str().map(str::to_owned);
    if let Some(p) = s.get("p").and_then(Json::as_array) {
        let mut params = IndexMap::new();
        for kv in p {
            params.insert(
                kv[0].as_str().expect("param key").to_owned(),
                kv[1].as_str().expect("param value").to_owned(),
            );
        }
        schema.parameters = Some(params);
    }
    if !s["def"].is_null() {
        let without_default = Arc::new(schema.clone());
        schema.default = Some(build_value(&s["def"], Some(&without_default)));
    }
    Some(Arc::new(schema))
}

fn logical_name(schema: Option<&SchemaRef>) -> Option<&str> {
    schema.and_then(|s| s.name.as_deref())
}

fn build_value(v: &Json, schema: Option<&SchemaRef>) -> Value {
    let Some((tag, x)) = v.as_object().and_then(|o| o.iter().next()) else {
        return Value::Null;
    };
    let int = || x.as_i64().expect("integer");
    match tag.as_str() {
        "bool" => Value::Boolean(x.as_bool().expect("bool")),
        "i8" => Value::Int8(int() as i8),
        "i16" => Value::Int16(int() as i16),
        "i32" => Value::Int32(int() as i32),
        "i64" => Value::Int64(int()),
        "f32" => Value::Float32(f32::from_bits(
            u32::from_str_radix(x.as_str().expect("f32 bits"), 16).expect("f32 hex"),
        )),
        "f64" => Value::Float64(f64::from_bits(
            u64::from_str_radix(x.as_str().expect("f64 bits"), 16).expect("f64 hex"),
        )),
        "str" => Value::String(x.as_str().expect("str").to_owned()),
        "bytes" => Value::Bytes(unhex(x.as_str().expect("bytes hex"))),
        "dec" => {
            let unscaled: BigInt = x[0].as_str().expect("unscaled").parse().expect("bigint");
            Value::Bytes(unscaled.to_signed_bytes_be())
        }
        "date" => match logical_name(schema) {
            Some(logical::DATE) => Value::Int32((int() / 86_400_000) as i32),
            Some(logical::TIME) => Value::Int32(int() as i32),
            _ => Value::Int64(int()),
        },
        "arr" => {
            let items = schema.and_then(|s| s.value_schema.as_ref());
            Value::Array(
                x.as_array()
                    .expect("arr")
                    .iter()
                    .map(|e| build_value(e, items))
                    .collect(),
            )
        }
        "map" => {
            let keys = schema.and_then(|s| s.key_schema.as_ref());
            let vals = schema.and_then(|s| s.value_schema.as_ref());
            Value::Map(
                x.as_array()
                    .expect("map")
                    .iter()
                    .map(|e| (build_value(&e[0], keys), build_value(&e[1], vals)))
                    .collect(),
            )
        }
        "st" => {
            let schema = schema.expect("struct value needs a schema").clone();
            let values = x
                .as_array()
                .expect("st")
                .iter()
                .zip(&schema.fields)
                .map(|(e, f)| build_value(e, Some(&f.schema)))
                .collect();
            Value::Struct(Struct::from_values(schema, values).expect("struct"))
        }
        other => panic!("corpus: unknown value tag {other}"),
    }
}

// ---- the canonical dump (mirrors JsonConverterOracle.dumpSchema / dumpValue) ----

fn dump_schema(b: &mut String, s: Option<&SchemaRef>) {
    let Some(s) = s else {
        b.push('-');
        return;
    };
    b.push_str("S(");
    b.push_str(type_name(s.schema_type));
    b.push_str(if s.optional { " opt" } else { " req" });
    if let Some(n) = &s.name {
        b.push_str(" n=");
        b.push_str(&quote(n));
    }
    if let Some(v) = s.version {
        let _ = write!(b, " v={v}");
    }
    if let Some(d) = &s.doc {
        b.push_str(" d=");
        b.push_str(&quote(d));
    }
    if let Some(p) = &s.parameters {
        b.push_str(" p={");
        for (i, (k, v)) in p.iter().enumerate() {
            if i > 0 {
                b.push(',');
            }
            let _ = write!(b, "{}:{}", quote(k), quote(v));
        }
        b.push('}');
    }
    if let Some(d) = &s.default {
        b.push_str(" def=");
        dump_value(b, Some(s), d);
    }
    match s.schema_type {
        SchemaType::Array => {
            b.push_str(" items=");
            dump_schema(b, s.value_schema.as_ref());
        }
        SchemaType::Map => {
            b.push_str(" keys=");
            dump_schema(b, s.key_schema.as_ref());
            b.push_str(" vals=");
            dump_schema(b, s.value_schema.as_ref());
        }
        SchemaType::Struct => {
            b.push_str(" fields=[");
            for f in &s.fields {
                if f.index > 0 {
                    b.push(',');
                }
                b.push_str(&quote(&f.name));
                b.push(':');
                dump_schema(b, Some(&f.schema));
            }
            b.push(']');
        }
        _ => {}
    }
    b.push(')');
}

/// Java's logical value classes are chosen by schema name; connect-rs keeps the raw value.
fn dump_value(b: &mut String, schema: Option<&SchemaRef>, v: &Value) {
    let name = logical_name(schema);
    match v {
        Value::Null => b.push_str("null"),
        Value::Boolean(x) => {
            let _ = write!(b, "bool:{x}");
        }
        Value::Int8(x) => {
            let _ = write!(b, "i8:{x}");
        }
        Value::Int16(x) => {
            let _ = write!(b, "i16:{x}");
        }
        Value::Int32(x) => match name {
            Some(logical::DATE) => {
                let _ = write!(b, "date:{}", i64::from(*x) * 86_400_000);
            }
            Some(logical::TIME) => {
                let _ = write!(b, "date:{x}");
            }
            _ => {
                let _ = write!(b, "i32:{x}");
            }
        },
        Value::Int64(x) => {
            let tag = if name == Some(logical::TIMESTAMP) {
                "date"
            } else {
                "i64"
            };
            let _ = write!(b, "{tag}:{x}");
        }
        Value::Float32(x) => {
            let bits = if x.is_nan() { 0x7fc0_0000 } else { x.to_bits() };
            let _ = write!(b, "f32:{bits:x}");
        }
        Value::Float64(x) => {
            let bits = if x.is_nan() {
                0x7ff8_0000_0000_0000
            } else {
                x.to_bits()
            };
            let _ = write!(b, "f64:{bits:x}");
        }
        Value::String(s) => {
            b.push_str("str:");
            b.push_str(&quote(s));
        }
        Value::Bytes(x) => {
            if name == Some(logical::DECIMAL) {
                let scale = schema
                    .and_then(|s| s.parameter(logical::DECIMAL_SCALE))
                    .unwrap_or("?");
                let _ = write!(b, "dec:{}/{scale}", BigInt::from_signed_bytes_be(x));
            } else {
                let _ = write!(b, "bytes:{}", hex(x));
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.value_schema.as_ref());
            b.push('[');
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    b.push(',');
                }
                dump_value(b, item_schema, e);
            }
            b.push(']');
        }
        Value::Map(entries) => {
            let ks = schema.and_then(|s| s.key_schema.as_ref());
            let vs = schema.and_then(|s| s.value_schema.as_ref());
            let mut dumped: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    let mut e = String::new();
                    dump_value(&mut e, ks, k);
                    e.push_str("=>");
                    dump_value(&mut e, vs, v);
                    e
                })
                .collect();
            dumped.sort();
            let _ = write!(b, "{{{}}}", dumped.join(","));
        }
        Value::Struct(st) => {
            b.push_str("struct{");
            for (f, v) in st.schema().fields.iter().zip(st.values()) {
                if f.index > 0 {
                    b.push(',');
                }
                dump_value(b, Some(&f.schema), v);
            }
            b.push('}');
        }
    }
}

/// Printable ASCII as is (except `"` and `\`), every other UTF-16 unit as `\uXXXX`.
fn quote(s: &str) -> String {
    let mut b = String::from("\"");
    for u in s.encode_utf16() {
        if (0x20..0x7f).contains(&u) && u != u16::from(b'"') && u != u16::from(b'\\') {
            b.push(char::from(u as u8));
        } else {
            let _ = write!(b, "\\u{u:04x}");
        }
    }
    b.push('"');
    b
}

/// Lower-case hex of bytes.
pub fn hex(d: &[u8]) -> String {
    d.iter()
        .fold(String::with_capacity(d.len() * 2), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
}

/// Bytes from lower- or upper-case hex.
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}
