//! `org.apache.kafka.connect.transforms.InsertField$Key` / `$Value`: adds fields holding the
//! record's topic, partition, offset (sink records only), timestamp or a static string.

use connect_api::config_def::Default as Def;
use connect_api::{
    logical, ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, Schema, SchemaBuilder, SchemaRef, SchemaType, Struct, Transformation,
    TransformationPlugin, Value,
};

use crate::transforms::config::parse;
use crate::transforms::util::{
    copy_schema_basics, field_value, into_map, map_put, replace_null_with_default_key,
    require_struct, sink_record_required, struct_with_fields, SchemaCache, Side,
};

const PURPOSE: &str = "field insertion";

/// A field to insert: its name and whether its schema is optional.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Spec {
    name: String,
    optional: bool,
}

impl Spec {
    /// `name!` is required, `name?` and `name` optional.
    fn parse(spec: Option<&str>) -> Option<Self> {
        let spec = spec?;
        Some(if let Some(name) = spec.strip_suffix('?') {
            Self {
                name: name.to_owned(),
                optional: true,
            }
        } else if let Some(name) = spec.strip_suffix('!') {
            Self {
                name: name.to_owned(),
                optional: false,
            }
        } else {
            Self {
                name: spec.to_owned(),
                optional: true,
            }
        })
    }
}

/// The InsertField transform.
#[derive(Debug)]
pub struct InsertField {
    side: Side,
    topic: Option<Spec>,
    partition: Option<Spec>,
    offset: Option<Spec>,
    timestamp: Option<Spec>,
    static_field: Option<Spec>,
    static_value: Option<String>,
    replace_null_with_default: bool,
    cache: SchemaCache,
    /// The insertions of the current record (kept to reuse its allocation).
    scratch: Vec<(String, Value)>,
}

impl InsertField {
    fn new(side: Side) -> Self {
        Self {
            side,
            topic: None,
            partition: None,
            offset: None,
            timestamp: None,
            static_field: None,
            static_value: None,
            replace_null_with_default: true,
            cache: SchemaCache::default(),
            scratch: Vec::new(),
        }
    }

    /// The values to insert, in Kafka's order, for the fields the record has data for.
    fn insertions(
        &self,
        record: &ConnectRecord,
        ctx: &RecordContext,
        out: &mut Vec<(String, Value)>,
    ) -> Result<()> {
        if let Some(spec) = &self.topic {
            out.push((spec.name.clone(), Value::String(record.topic.clone())));
        }
        if let (Some(spec), Some(p)) = (&self.partition, record.kafka_partition) {
            out.push((spec.name.clone(), Value::Int32(p)));
        }
        if let Some(spec) = &self.offset {
            let offset = ctx
                .kafka_offset
                .ok_or_else(|| sink_record_required(PURPOSE))?;
            out.push((spec.name.clone(), Value::Int64(offset)));
        }
        if let (Some(spec), Some(ts)) = (&self.timestamp, record.timestamp) {
            out.push((spec.name.clone(), Value::Int64(ts)));
        }
        if let (Some(spec), Some(v)) = (&self.static_field, &self.static_value) {
            out.push((spec.name.clone(), Value::String(v.clone())));
        }
        Ok(())
    }

    fn updated_schema(&self, schema: &SchemaRef) -> Result<SchemaRef> {
        let mut fields: Vec<(String, SchemaRef)> = schema
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.schema.clone()))
            .collect();
        let plain = |spec: &Spec, t: SchemaType| {
            let schema = if spec.optional {
                Schema::optional(t)
            } else {
                Schema::required(t)
            };
            (spec.name.clone(), schema)
        };
        if let Some(spec) = &self.topic {
            fields.push(plain(spec, SchemaType::String));
        }
        if let Some(spec) = &self.partition {
            fields.push(plain(spec, SchemaType::Int32));
        }
        if let Some(spec) = &self.offset {
            fields.push(plain(spec, SchemaType::Int64));
        }
        if let Some(spec) = &self.timestamp {
            let b = logical::timestamp();
            let b = if spec.optional { b.optional() } else { b };
            fields.push((spec.name.clone(), b.build()));
        }
        if let Some(spec) = &self.static_field {
            fields.push(plain(spec, SchemaType::String));
        }
        struct_with_fields(copy_schema_basics(schema, SchemaBuilder::struct_()), fields)
    }
}

fn config_def() -> ConfigDef {
    let field = |name: &'static str, doc: &'static str| {
        ConfigKey::new(name, ConfigType::String, Def::Null, Importance::Medium, doc)
    };
    ConfigDef::new()
        .define(field(
            "topic.field",
            "Field name for Kafka topic. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).",
        ))
        .define(field(
            "partition.field",
            "Field name for Kafka partition. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).",
        ))
        .define(field(
            "offset.field",
            "Field name for Kafka offset - only applicable to sink connectors.<br/>Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).",
        ))
        .define(field(
            "timestamp.field",
            "Field name for record timestamp. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).",
        ))
        .define(field(
            "static.field",
            "Field name for static data field. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).",
        ))
        .define(field(
            "static.value",
            "Static field value, if field name configured.",
        ))
        .define(replace_null_with_default_key())
}

impl Transformation for InsertField {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        self.topic = Spec::parse(values.string("topic.field"));
        self.partition = Spec::parse(values.string("partition.field"));
        self.offset = Spec::parse(values.string("offset.field"));
        self.timestamp = Spec::parse(values.string("timestamp.field"));
        self.static_field = Spec::parse(values.string("static.field"));
        self.static_value = values.string("static.value").map(str::to_owned);
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
        if self.topic.is_none()
            && self.partition.is_none()
            && self.offset.is_none()
            && self.timestamp.is_none()
            && self.static_field.is_none()
        {
            return Err(ConnectError::config("", "No field insertion configured"));
        }
        if let (Some(spec), None) = (&self.static_field, &self.static_value) {
            return Err(ConnectError::config(
                "static.value",
                format!(
                    "Invalid value null for configuration static.value: No value specified for \
                     static field: {}",
                    spec.name
                ),
            ));
        }
        self.cache = SchemaCache::default();
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        Ok(self.apply_in_place(&mut record, ctx)?.then_some(record))
    }

    fn apply_in_place(&mut self, record: &mut ConnectRecord, ctx: &RecordContext) -> Result<bool> {
        if self.side.value(record).is_null() {
            return Ok(true);
        }
        let mut insertions = std::mem::take(&mut self.scratch);
        insertions.clear();
        let computed = self.insertions(record, ctx, &mut insertions);
        let (schema, value) = self.side.take(record);
        match schema {
            None => {
                let mut entries = into_map(value, PURPOSE)?;
                computed?;
                entries.reserve(insertions.len());
                for (name, v) in insertions.drain(..) {
                    map_put(&mut entries, name, v);
                }
                self.side.set(record, None, Value::Map(entries));
            }
            Some(schema) => {
                let original = require_struct(&value, Some(&schema), PURPOSE)?;
                let mut cache = std::mem::take(&mut self.cache);
                let updated = cache.get_or_build(original.schema(), |s| self.updated_schema(s));
                self.cache = cache;
                let updated = updated?;
                computed?;
                let mut values: Vec<Value> = original
                    .schema()
                    .fields
                    .iter()
                    .map(|f| field_value(original, f, self.replace_null_with_default))
                    .collect();
                values.resize(updated.fields.len(), Value::Null);
                for (name, v) in insertions.drain(..) {
                    if let Some(f) = updated.field(&name) {
                        values[f.index] = v;
                    }
                }
                let s = Struct::from_values(updated.clone(), values)?;
                self.side.set(record, Some(updated), Value::Struct(s));
            }
        }
        self.scratch = insertions;
        Ok(true)
    }
}

/// `InsertField$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.InsertField$Key",
    config_def,
    new: || Box::new(InsertField::new(Side::Key)),
};

/// `InsertField$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.InsertField$Value",
    config_def,
    new: || Box::new(InsertField::new(Side::Value)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transforms::test_support::{
        apply, config_error, configured, record, smap, strct, Props,
    };

    #[test]
    fn configure_errors_are_kafkas() {
        let cases: &[(Props, &str)] = &[
            (&[], "No field insertion configured"),
            (&[("static.value", "x")], "No field insertion configured"),
            (
                &[("static.field", "s")],
                "Invalid value null for configuration static.value: No value specified for \
                 static field: s",
            ),
            (
                &[("topic.field", "t"), ("replace.null.with.default", "maybe")],
                "Invalid value maybe for configuration replace.null.with.default: Expected value \
                 to be either true or false",
            ),
        ];
        for (props, want) in cases {
            assert_eq!(config_error(&VALUE_PLUGIN, props), *want, "{props:?}");
        }
    }

    #[test]
    fn schemaless_inserts_record_metadata() {
        let props = [
            ("topic.field", "topic_field!"),
            ("partition.field", "partition_field"),
            ("timestamp.field", "timestamp_field?"),
            ("static.field", "instance_id"),
            ("static.value", "my-instance-id"),
        ];
        let rec = record(
            None,
            Value::Null,
            None,
            smap(&[("magic", Value::Int64(42))]),
        );
        let out = apply(&VALUE_PLUGIN, &props, rec).unwrap();
        assert_eq!(
            out.value,
            smap(&[
                ("magic", Value::Int64(42)),
                ("topic_field", "test".into()),
                ("partition_field", Value::Int32(0)),
                ("timestamp_field", Value::Int64(1_234_567_890)),
                ("instance_id", "my-instance-id".into()),
            ])
        );
        assert_eq!(out.value_schema, None);
    }

    #[test]
    fn schemaless_replaces_an_existing_key_and_skips_missing_metadata() {
        let mut rec = record(None, Value::Null, None, smap(&[("t", "old".into())]));
        rec.kafka_partition = None;
        rec.timestamp = None;
        let props = [
            ("topic.field", "t"),
            ("partition.field", "p"),
            ("timestamp.field", "ts"),
        ];
        let out = apply(&VALUE_PLUGIN, &props, rec).unwrap();
        assert_eq!(out.value, smap(&[("t", "test".into())]));
    }

    #[test]
    fn with_schema_appends_fields_with_kafkas_schemas() {
        let schema = SchemaBuilder::struct_()
            .name("name")
            .version(1)
            .doc("doc")
            .field("magic", Schema::optional(SchemaType::Int64))
            .build();
        let value = strct(&schema, vec![Value::Int64(42)]);
        let props = [
            ("topic.field", "topic_field!"),
            ("partition.field", "partition_field"),
            ("timestamp.field", "timestamp_field?"),
            ("static.field", "instance_id"),
            ("static.value", "my-instance-id"),
        ];
        let out = apply(
            &VALUE_PLUGIN,
            &props,
            record(None, Value::Null, Some(schema), value),
        )
        .unwrap();
        let s = out.value_schema.clone().unwrap();
        assert_eq!(s.name.as_deref(), Some("name"));
        assert_eq!(s.version, Some(1));
        assert_eq!(s.doc.as_deref(), Some("doc"));
        assert!(!s.optional);
        let names: Vec<_> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "magic",
                "topic_field",
                "partition_field",
                "timestamp_field",
                "instance_id"
            ]
        );
        assert_eq!(s.fields[1].schema, Schema::required(SchemaType::String));
        assert_eq!(s.fields[2].schema, Schema::optional(SchemaType::Int32));
        assert_eq!(s.fields[3].schema, logical::timestamp().optional().build());
        assert_eq!(s.fields[4].schema, Schema::optional(SchemaType::String));
        let Value::Struct(v) = out.value else {
            panic!("struct")
        };
        assert_eq!(
            v.values(),
            &[
                Value::Int64(42),
                "test".into(),
                Value::Int32(0),
                Value::Int64(1_234_567_890),
                "my-instance-id".into()
            ]
        );
    }

    #[test]
    fn offset_needs_a_sink_record() {
        let props = [("offset.field", "off!")];
        let want = "Only SinkRecord supported for [field insertion], found: \
                    org.apache.kafka.connect.source.SourceRecord";
        let schema = SchemaBuilder::struct_().build();
        for (schema, value) in [
            (None, smap(&[])),
            (Some(schema.clone()), strct(&schema, vec![])),
        ] {
            let rec = record(None, Value::Null, schema.clone(), value.clone());
            let err = apply(&VALUE_PLUGIN, &props, rec).unwrap_err();
            assert_eq!(err.to_string(), want);
            let mut t = configured(&VALUE_PLUGIN, &props).unwrap();
            let rec = record(None, Value::Null, schema, value);
            let ctx = RecordContext::sink(77, connect_api::TimestampType::CreateTime);
            let out = t.apply(rec, &ctx).unwrap().unwrap();
            match out.value {
                Value::Map(m) => assert_eq!(m, vec![("off".into(), Value::Int64(77))]),
                Value::Struct(s) => {
                    assert_eq!(s.values(), &[Value::Int64(77)]);
                    assert_eq!(
                        s.schema().fields[0].schema,
                        Schema::required(SchemaType::Int64)
                    );
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn apply_errors_and_passthrough() {
        let props = [("topic.field", "t")];
        // Null operating value: unchanged.
        let rec = record(None, "k".into(), None, Value::Null);
        assert_eq!(apply(&VALUE_PLUGIN, &props, rec.clone()).unwrap(), rec);
        let cases = [
            (
                None,
                Value::from("x"),
                "Only Map objects supported in absence of schema for [field insertion], found: \
                 java.lang.String",
            ),
            (
                Some(Schema::required(SchemaType::String)),
                Value::from("x"),
                "Only Struct objects supported for [field insertion], found: java.lang.String",
            ),
        ];
        for (schema, value, want) in cases {
            let err = apply(
                &VALUE_PLUGIN,
                &props,
                record(None, Value::Null, schema, value),
            )
            .unwrap_err();
            assert_eq!(err.to_string(), want);
        }
        let schema = SchemaBuilder::struct_()
            .field("t", Schema::required(SchemaType::String))
            .build();
        let value = strct(&schema, vec!["x".into()]);
        let err = apply(
            &VALUE_PLUGIN,
            &props,
            record(None, Value::Null, Some(schema), value),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Cannot create field because of field name duplication t"
        );
    }

    #[test]
    fn key_side_and_null_defaults() {
        let schema = SchemaBuilder::struct_()
            .field(
                "a",
                SchemaBuilder::new(SchemaType::Int32)
                    .optional()
                    .default_value(Value::Int32(7))
                    .build(),
            )
            .build();
        for (replace, want) in [("true", Value::Int32(7)), ("false", Value::Null)] {
            let rec = record(
                Some(schema.clone()),
                strct(&schema, vec![Value::Null]),
                None,
                "v".into(),
            );
            let props = [("topic.field", "t"), ("replace.null.with.default", replace)];
            let out = apply(&KEY_PLUGIN, &props, rec).unwrap();
            assert_eq!(out.value, Value::from("v"));
            let Value::Struct(k) = out.key else {
                panic!("struct key")
            };
            assert_eq!(k.values(), &[want, "test".into()]);
        }
    }
}
