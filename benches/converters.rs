//! Criterion micro-benchmarks of the converters on the record hot path.
//!
//! `cargo bench --bench converters`

#![allow(missing_docs)]

use connect_api::{
    ConfigMap, Converter, Headers, Schema, SchemaBuilder, SchemaType, Struct, Value,
};
use connect_rs::converters::{JsonConverter, StringConverter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn line() -> Value {
    Value::String("line-0000000042-".to_owned() + &"x".repeat(83))
}

fn converters(c: &mut Criterion) {
    let headers = Headers::new();
    let string_schema = Schema::required(SchemaType::String);
    let mut g = c.benchmark_group("convert_100_byte_line");
    g.throughput(Throughput::Elements(1));

    let string = StringConverter::new();
    g.bench_function("string_from_connect", |b| {
        let v = line();
        b.iter(|| string.from_connect("t", &headers, Some(&string_schema), &v))
    });
    let bytes = string
        .from_connect("t", &headers, Some(&string_schema), &line())
        .unwrap();
    g.bench_function("string_to_connect", |b| {
        b.iter(|| string.to_connect("t", &headers, bytes.as_deref()))
    });

    let mut json = JsonConverter::new();
    let mut props = ConfigMap::new();
    props.insert("schemas.enable".into(), "true".into());
    json.configure(&props, false).unwrap();
    g.bench_function("json_schemas_from_connect", |b| {
        let v = line();
        b.iter(|| json.from_connect("t", &headers, Some(&string_schema), &v))
    });
    let bytes = json
        .from_connect("t", &headers, Some(&string_schema), &line())
        .unwrap();
    g.bench_function("json_schemas_to_connect", |b| {
        b.iter(|| json.to_connect("t", &headers, bytes.as_deref()))
    });

    let schema = SchemaBuilder::struct_()
        .field("id", Schema::required(SchemaType::Int64))
        .field("name", Schema::optional(SchemaType::String))
        .field("score", Schema::required(SchemaType::Float64))
        .build();
    let value = Value::Struct(
        Struct::new(schema.clone())
            .put("id", 42i64)
            .and_then(|s| s.put("name", "connect-rs"))
            .and_then(|s| s.put("score", 0.5f64))
            .unwrap(),
    );
    g.bench_function("json_schemas_struct_from_connect", |b| {
        b.iter(|| json.from_connect("t", &headers, Some(&schema), &value))
    });
    let bytes = json
        .from_connect("t", &headers, Some(&schema), &value)
        .unwrap();
    g.bench_function("json_schemas_struct_to_connect", |b| {
        b.iter(|| json.to_connect("t", &headers, bytes.as_deref()))
    });
    let mut plain = JsonConverter::new();
    props.insert("schemas.enable".into(), "false".into());
    plain.configure(&props, false).unwrap();
    let bytes = plain
        .from_connect("t", &headers, Some(&schema), &value)
        .unwrap();
    g.bench_function("json_plain_map_to_connect", |b| {
        b.iter(|| plain.to_connect("t", &headers, bytes.as_deref()))
    });
    g.finish();
}

criterion_group!(benches, converters);
criterion_main!(benches);
