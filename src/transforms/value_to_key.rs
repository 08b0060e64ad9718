//! `org.apache.kafka.connect.transforms.ValueToKey`: replaces the key with a struct (or map) of
//! the listed fields of the value.

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, SchemaBuilder, SchemaRef, Struct, Transformation, TransformationPlugin,
    Validator, Value,
};

use crate::transforms::config::parse;
use crate::transforms::util::{
    check_list, empty_list_error, field_value, map_get, map_put, replace_null_with_default_key,
    require_map, require_struct, struct_with_fields, SchemaCache,
};

const PURPOSE: &str = "copying fields from value to key";

/// The ValueToKey transform.
#[derive(Debug)]
pub struct ValueToKey {
    fields: Vec<String>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl Default for ValueToKey {
    fn default() -> Self {
        Self {
            fields: Vec::new(),
            replace_null_with_default: true,
            cache: SchemaCache::default(),
        }
    }
}

impl ValueToKey {
    fn key_schema(&self, value_schema: &SchemaRef) -> Result<SchemaRef> {
        let mut fields = Vec::with_capacity(self.fields.len());
        for name in &self.fields {
            let field = value_schema
                .field(name)
                .ok_or_else(|| ConnectError::data(format!("Field does not exist: {name}")))?;
            fields.push((name.clone(), field.schema.clone()));
        }
        struct_with_fields(SchemaBuilder::struct_(), fields)
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::new(
                "fields",
                ConfigType::List,
                Def::Required,
                Importance::High,
                "Field names on the record value to extract as the record key.",
            )
            .validator(Validator::NonEmptyList),
        )
        .define(replace_null_with_default_key())
}

impl Transformation for ValueToKey {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props).map_err(empty_list_error)?;
        check_list("fields", values.list("fields"), false)?;
        self.fields = values.list("fields").to_vec();
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
        self.cache = SchemaCache::default();
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        match &record.value_schema {
            None => {
                let value = require_map(&record.value, PURPOSE)?;
                let mut key = Vec::with_capacity(self.fields.len());
                for name in &self.fields {
                    map_put(&mut key, name, map_get(value, name).clone());
                }
                record.key_schema = None;
                record.key = Value::Map(key);
            }
            Some(_) => {
                let value = require_struct(&record.value, record.value_schema.as_ref(), PURPOSE)?;
                let mut cache = std::mem::take(&mut self.cache);
                let key_schema = cache.get_or_build(value.schema(), |s| self.key_schema(s));
                self.cache = cache;
                let key_schema = key_schema?;
                let values = self
                    .fields
                    .iter()
                    .map(|name| {
                        value.schema().field(name).map_or(Value::Null, |f| {
                            field_value(value, f, self.replace_null_with_default)
                        })
                    })
                    .collect();
                let key = Struct::from_values(key_schema.clone(), values)?;
                record.value_schema = Some(value.schema().clone());
                record.key_schema = Some(key_schema);
                record.key = Value::Struct(key);
            }
        }
        Ok(Some(record))
    }
}

/// The plugin descriptor.
pub const PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.ValueToKey",
    config_def,
    new: || Box::<ValueToKey>::default(),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transforms::test_support::{apply, config_error, record, smap, strct};
    use connect_api::{Schema, SchemaType};

    #[test]
    fn configure_errors() {
        assert_eq!(
            config_error(&PLUGIN, &[]),
            "Missing required configuration \"fields\" which has no default value."
        );
        assert_eq!(
            config_error(&PLUGIN, &[("fields", "")]),
            "Configuration 'fields' must not be empty. Valid values include: any non-empty value"
        );
    }

    #[test]
    fn schemaless_key_from_value_fields() {
        let value = smap(&[
            ("a", Value::Int32(1)),
            ("b", Value::Int32(2)),
            ("c", Value::Int32(3)),
        ]);
        let out = apply(
            &PLUGIN,
            &[("fields", "c,a,missing")],
            record(
                Some(Schema::required(SchemaType::String)),
                "k".into(),
                None,
                value.clone(),
            ),
        )
        .unwrap();
        assert_eq!(out.key_schema, None);
        assert_eq!(
            out.key,
            smap(&[
                ("c", Value::Int32(3)),
                ("a", Value::Int32(1)),
                ("missing", Value::Null)
            ])
        );
        assert_eq!(out.value, value);
    }

    #[test]
    fn with_schema_key_struct_from_value_field_schemas() {
        let value_schema = SchemaBuilder::struct_()
            .field("a", Schema::required(SchemaType::Int32))
            .field("b", Schema::optional(SchemaType::String))
            .field(
                "c",
                SchemaBuilder::new(SchemaType::Int64)
                    .optional()
                    .default_value(Value::Int64(9))
                    .build(),
            )
            .build();
        let value = strct(
            &value_schema,
            vec![Value::Int32(1), "x".into(), Value::Null],
        );
        for (replace, c) in [("true", Value::Int64(9)), ("false", Value::Null)] {
            let out = apply(
                &PLUGIN,
                &[("fields", "c,a"), ("replace.null.with.default", replace)],
                record(None, Value::Null, Some(value_schema.clone()), value.clone()),
            )
            .unwrap();
            let ks = out.key_schema.unwrap();
            assert_eq!(ks.name, None);
            let names: Vec<_> = ks.fields.iter().map(|f| f.name.as_str()).collect();
            assert_eq!(names, ["c", "a"]);
            assert_eq!(ks.fields[0].schema, value_schema.fields[2].schema);
            let Value::Struct(k) = out.key else {
                panic!("struct")
            };
            assert_eq!(k.values(), &[c, Value::Int32(1)]);
            assert_eq!(out.value, value);
        }
    }

    #[test]
    fn apply_errors() {
        let schema = SchemaBuilder::struct_()
            .field("a", Schema::required(SchemaType::Int32))
            .build();
        let cases = [
            (
                None,
                Value::Null,
                "Only Map objects supported in absence of schema for [copying fields from value \
                 to key], found: null",
            ),
            (
                Some(schema.clone()),
                Value::Null,
                "Only Struct objects supported for [copying fields from value to key], found: \
                 null",
            ),
            (
                Some(schema.clone()),
                strct(&schema, vec![Value::Int32(1)]),
                "Field does not exist: nope",
            ),
        ];
        for (schema, value, want) in cases {
            let err = apply(
                &PLUGIN,
                &[("fields", "a,nope")],
                record(None, Value::Null, schema, value),
            )
            .unwrap_err();
            assert_eq!(err.to_string(), want);
        }
    }
}
