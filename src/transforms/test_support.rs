//! Helpers for the transforms' unit tests.

use connect_api::{
    ConfigMap, ConnectError, ConnectRecord, RecordContext, SchemaRef, Transformation,
    TransformationPlugin, Value,
};

/// A plugin instance configured with `props`.
pub fn configured(
    plugin: &TransformationPlugin,
    props: &[(&str, &str)],
) -> Result<Box<dyn Transformation>, ConnectError> {
    let mut t = (plugin.new)();
    let map: ConfigMap = props
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    t.configure(&map).map(|()| t)
}

/// The message of a configure error (Kafka's `ConfigException.getMessage()`).
pub fn config_error(plugin: &TransformationPlugin, props: &[(&str, &str)]) -> String {
    match configured(plugin, props) {
        Err(ConnectError::Config { message, .. }) => message,
        Err(other) => panic!("not a config error: {other}"),
        Ok(_) => panic!("configured without error: {props:?}"),
    }
}

/// A record with the given key and value sides.
pub fn record(
    key_schema: Option<SchemaRef>,
    key: Value,
    value_schema: Option<SchemaRef>,
    value: Value,
) -> ConnectRecord {
    ConnectRecord {
        topic: "test".into(),
        kafka_partition: Some(0),
        key_schema,
        key,
        value_schema,
        value,
        timestamp: Some(1_234_567_890),
        ..ConnectRecord::default()
    }
}

/// Applies a transform configured with `props` to `rec` as a source record.
pub fn apply(
    plugin: &TransformationPlugin,
    props: &[(&str, &str)],
    rec: ConnectRecord,
) -> Result<ConnectRecord, ConnectError> {
    let mut t = configured(plugin, props)?;
    t.apply(rec, &RecordContext::source())
        .map(|r| r.expect("record kept"))
}

/// A schemaless map with string keys.
pub fn smap(entries: &[(&str, Value)]) -> Value {
    Value::Map(
        entries
            .iter()
            .map(|(k, v)| (Value::from(*k), v.clone()))
            .collect(),
    )
}

/// A struct of `schema` with the given values in field order.
pub fn strct(schema: &SchemaRef, values: Vec<Value>) -> Value {
    Value::Struct(connect_api::Struct::from_values(schema.clone(), values).expect("struct"))
}
