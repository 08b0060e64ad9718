use super::*;

/// A transform configuration.
type Props = &'static [(&'static str, &'static str)];

/// 2019-08-23T04:05:06.007Z
const T: i64 = 1_566_533_106_007;
/// 2019-08-23T00:00:00Z
const DAY: i64 = 1_566_518_400_000;

fn configured(
    plugin: &TransformationPlugin,
    pairs: &[(&str, &str)],
) -> Result<Box<dyn Transformation>> {
    let mut t = (plugin.new)();
    let props = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    t.configure(&props).map(|()| t)
}

fn apply(
    t: &mut Box<dyn Transformation>,
    schema: Option<SchemaRef>,
    value: Value,
) -> Result<(Option<SchemaRef>, Value)> {
    let record = ConnectRecord {
        value_schema: schema,
        value,
        ..ConnectRecord::default()
    };
    let out = t.apply(record, &RecordContext::source())?.unwrap();
    Ok((out.value_schema, out.value))
}

#[test]
fn whole_values_with_schema() {
    let ts = logical::timestamp().build();
    let cases: Vec<(Props, SchemaRef, Value, SchemaRef, Value)> = vec![
        (
            &[("target.type", "string"), ("format", "yyyy-MM-dd HH:mm:ss")],
            ts.clone(),
            Value::Int64(T),
            Schema::required(SchemaType::String),
            "2019-08-23 04:05:06".into(),
        ),
        (
            &[("target.type", "unix")],
            logical::date().build(),
            Value::Int32(18_131),
            Schema::required(SchemaType::Int64),
            Value::Int64(DAY),
        ),
        (
            &[("target.type", "unix"), ("unix.precision", "seconds")],
            logical::timestamp().optional().build(),
            Value::Int64(T),
            Schema::optional(SchemaType::Int64),
            Value::Int64(T / 1000),
        ),
        (
            &[("target.type", "unix"), ("unix.precision", "nanoseconds")],
            ts.clone(),
            Value::Int64(T),
            Schema::required(SchemaType::Int64),
            Value::Int64(T * 1_000_000),
        ),
        (
            &[("target.type", "Date")],
            ts.clone(),
            Value::Int64(T),
            logical::date().build(),
            Value::Int32(18_131),
        ),
        (
            &[("target.type", "Time")],
            ts.clone(),
            Value::Int64(T),
            logical::time().build(),
            Value::Int32(14_706_007),
        ),
        (
            &[("target.type", "Timestamp"), ("format", "yyyyMMdd")],
            Schema::required(SchemaType::String),
            "20190823".into(),
            ts.clone(),
            Value::Int64(DAY),
        ),
        (
            &[
                ("target.type", "Timestamp"),
                ("unix.precision", "microseconds"),
            ],
            Schema::required(SchemaType::Int64),
            Value::Int64(T * 1000 + 999),
            ts.clone(),
            Value::Int64(T),
        ),
        (
            &[("target.type", "Timestamp")],
            Schema::optional(SchemaType::Int64),
            Value::Null,
            logical::timestamp().optional().build(),
            Value::Null,
        ),
    ];
    for (props, schema, input, out_schema, expected) in cases {
        let mut t = configured(&VALUE_PLUGIN, props).unwrap();
        let (s, v) = apply(&mut t, Some(schema), input).unwrap();
        assert_eq!(v, expected, "{props:?}");
        assert_eq!(s, Some(out_schema), "{props:?}");
    }
}

#[test]
fn schemaless_values_and_maps() {
    let cases: Vec<(Props, Value, Value)> = vec![
        (
            &[("target.type", "string"), ("format", "yyyy-MM-dd")],
            Value::Int64(T),
            "2019-08-23".into(),
        ),
        (
            &[("target.type", "unix"), ("format", "yyyyMMdd")],
            "20190823".into(),
            Value::Int64(DAY),
        ),
        (
            &[("target.type", "Date")],
            Value::Int64(T),
            Value::Int32(18_131),
        ),
        (&[("target.type", "Timestamp")], Value::Null, Value::Null),
        (
            &[("target.type", "Date"), ("field", "ts")],
            Value::Map(vec![
                ("ts".into(), Value::Int64(T)),
                ("x".into(), Value::Int8(1)),
            ]),
            Value::Map(vec![
                ("ts".into(), Value::Int32(18_131)),
                ("x".into(), Value::Int8(1)),
            ]),
        ),
        (
            &[("target.type", "Date"), ("field", "ts")],
            Value::Map(vec![("x".into(), Value::Int8(1))]),
            Value::Map(vec![
                ("x".into(), Value::Int8(1)),
                ("ts".into(), Value::Null),
            ]),
        ),
    ];
    for (props, input, expected) in cases {
        let mut t = configured(&VALUE_PLUGIN, props).unwrap();
        let (s, v) = apply(&mut t, None, input).unwrap();
        assert!(s.is_none());
        assert_eq!(v, expected, "{props:?}");
    }
}

fn record_schema(ts_default: Option<i64>) -> SchemaRef {
    let mut ts = logical::timestamp().optional();
    if let Some(d) = ts_default {
        ts = ts.default_value(Value::Int64(d));
    }
    SchemaBuilder::struct_()
        .name("rec")
        .version(3)
        .field("id", Schema::required(SchemaType::Int32))
        .field("ts", ts.build())
        .build()
}

#[test]
fn struct_fields_with_schema() {
    let props: &[(&str, &str)] = &[
        ("target.type", "string"),
        ("format", "yyyy-MM-dd"),
        ("field", "ts"),
    ];
    for (replace, ts_value, expected) in [
        ("true", Value::Int64(T), Value::from("2019-08-23")),
        ("true", Value::Null, Value::from("1970-01-01")),
        ("false", Value::Null, Value::Null),
    ] {
        let mut all = props.to_vec();
        all.push(("replace.null.with.default", replace));
        let mut t = configured(&KEY_PLUGIN, &all).unwrap();
        let schema = record_schema(Some(0));
        let value = Struct::new(schema.clone())
            .put("id", 7)
            .unwrap()
            .put("ts", ts_value)
            .unwrap();
        let record = ConnectRecord {
            key_schema: Some(schema),
            key: Value::Struct(value),
            ..ConnectRecord::default()
        };
        let out = t.apply(record, &RecordContext::source()).unwrap().unwrap();
        let s = out.key_schema.unwrap();
        assert_eq!((s.name.as_deref(), s.version), (Some("rec"), Some(3)));
        assert_eq!(
            s.field("ts").unwrap().schema,
            Schema::optional(SchemaType::String)
        );
        let Value::Struct(v) = out.key else {
            panic!("not a struct")
        };
        assert_eq!(
            v.values(),
            &[Value::Int32(7), expected],
            "replace={replace}"
        );
    }
    // A null struct keeps its (updated) schema.
    let mut t = configured(&VALUE_PLUGIN, props).unwrap();
    let (s, v) = apply(&mut t, Some(record_schema(None)), Value::Null).unwrap();
    assert_eq!(v, Value::Null);
    assert_eq!(
        s.unwrap().field("ts").unwrap().schema.schema_type,
        SchemaType::String
    );
}

#[test]
fn data_errors_match_kafka() {
    let cases: Vec<(Props, Option<SchemaRef>, Value, &str)> = vec![
        (
            &[("target.type", "unix")],
            Some(Schema::required(SchemaType::Int32)),
            Value::Int32(1),
            "Schema Schema{INT32} does not correspond to a known timestamp type format",
        ),
        (
            &[("target.type", "unix"), ("format", "yyyyMMdd")],
            Some(Schema::required(SchemaType::String)),
            "bad".into(),
            "Could not parse timestamp: value (bad) does not match pattern (yyyyMMdd)",
        ),
        (
            &[("target.type", "unix")],
            None,
            "2019".into(),
            "Cannot invoke \"java.text.SimpleDateFormat.parse(String)\" because \"config.format\" is null",
        ),
        (
            &[("target.type", "unix")],
            None,
            Value::Int32(1),
            "TimestampConverter does not support class java.lang.Integer objects as timestamps",
        ),
        (
            &[("target.type", "unix")],
            Some(logical::timestamp().build()),
            "x".into(),
            "Expected Timestamp to be a java.util.Date, but found class java.lang.String",
        ),
        (
            &[("target.type", "unix"), ("field", "ts")],
            None,
            "x".into(),
            "Only Map objects supported in absence of schema for [converting timestamp formats], found: java.lang.String",
        ),
        (
            &[("target.type", "unix"), ("field", "ts")],
            Some(record_schema(None)),
            Value::Int64(1),
            "Only Struct objects supported for [converting timestamp formats], found: java.lang.Long",
        ),
    ];
    for (props, schema, value, message) in cases {
        let mut t = configured(&VALUE_PLUGIN, props).unwrap();
        let e = apply(&mut t, schema, value).unwrap_err();
        assert_eq!(e.to_string(), message, "{props:?}");
    }
}

#[test]
fn configuration_errors_match_kafka() {
    let cases: Vec<(&[(&str, &str)], &str)> = vec![
        (&[], "Missing required configuration \"target.type\" which has no default value."),
        (
            &[("target.type", "date")],
            "Invalid value date for configuration target.type: String must be one of: string, unix, Date, Time, Timestamp",
        ),
        (
            &[("target.type", "unix"), ("unix.precision", "SECONDS")],
            "Invalid value SECONDS for configuration unix.precision: String must be one of: nanoseconds, microseconds, milliseconds, seconds",
        ),
        (
            &[("target.type", "string")],
            "TimestampConverter requires format option to be specified when using string timestamps",
        ),
        (
            &[("target.type", "string"), ("format", "yyyy-qq")],
            "Invalid value java.lang.IllegalArgumentException: Illegal pattern character 'q' for configuration TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: yyyy-qq",
        ),
        (
            &[("target.type", "string"), ("format", "YYYY")],
            "Invalid value YYYY for configuration format: pattern letter 'Y' is not supported",
        ),
    ];
    for (props, message) in cases {
        let e = configured(&VALUE_PLUGIN, props).err().unwrap().to_string();
        assert!(e.contains(message), "{props:?}: {e}");
    }
}
