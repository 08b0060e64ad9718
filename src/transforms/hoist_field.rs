//! `org.apache.kafka.connect.transforms.HoistField$Key` / `$Value`: wraps the whole key or
//! value in a struct (with a schema) or map (schemaless) of one field.

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, SchemaBuilder, SchemaRef, Struct, Transformation, TransformationPlugin,
    Value,
};

use crate::transforms::config::parse;
use crate::transforms::util::{SchemaCache, Side};

/// The HoistField transform.
#[derive(Debug)]
pub struct HoistField {
    side: Side,
    field: String,
    cache: SchemaCache,
}

impl HoistField {
    fn new(side: Side) -> Self {
        Self {
            side,
            field: String::new(),
            cache: SchemaCache::default(),
        }
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new().define(ConfigKey::new(
        "field",
        ConfigType::String,
        Def::Required,
        Importance::Medium,
        "Field name for the single field that will be created in the resulting Struct or Map.",
    ))
}

impl Transformation for HoistField {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        self.field = values.string("field").unwrap_or_default().to_owned();
        self.cache = SchemaCache::default();
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        let (schema, value) = self.side.take(&mut record);
        match schema {
            None => {
                let map = vec![(Value::String(self.field.clone()), value)];
                self.side.set(&mut record, None, Value::Map(map));
            }
            Some(schema) => {
                let field = self.field.clone();
                let updated: SchemaRef = self.cache.get_or_build(&schema, |s| {
                    Ok(SchemaBuilder::struct_()
                        .field(field.clone(), s.clone())
                        .build())
                })?;
                // Kafka's Struct.put refuses null for a required schema.
                if value.is_null() && !schema.optional {
                    return Err(ConnectError::data(format!(
                        "Invalid value: null used for required field: \"{field}\", schema type: {}",
                        schema.schema_type.name()
                    )));
                }
                let s = Struct::from_values(updated.clone(), vec![value])?;
                self.side.set(&mut record, Some(updated), Value::Struct(s));
            }
        }
        Ok(Some(record))
    }
}

/// `HoistField$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.HoistField$Key",
    config_def,
    new: || Box::new(HoistField::new(Side::Key)),
};

/// `HoistField$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.HoistField$Value",
    config_def,
    new: || Box::new(HoistField::new(Side::Value)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transforms::test_support::{apply, config_error, record, smap};
    use connect_api::{Schema, SchemaType};

    #[test]
    fn field_is_required() {
        assert_eq!(
            config_error(&KEY_PLUGIN, &[]),
            "Missing required configuration \"field\" which has no default value."
        );
    }

    #[test]
    fn schemaless_wraps_in_a_map() {
        for v in [Value::Int32(42), Value::Null, smap(&[("a", "b".into())])] {
            let out = apply(
                &KEY_PLUGIN,
                &[("field", "magic")],
                record(None, v.clone(), None, Value::Null),
            )
            .unwrap();
            assert_eq!(out.key, smap(&[("magic", v)]));
            assert_eq!(out.key_schema, None);
        }
    }

    #[test]
    fn with_schema_wraps_in_a_struct() {
        let cases = [
            (Schema::required(SchemaType::Int32), Value::Int32(42)),
            (Schema::optional(SchemaType::String), Value::Null),
        ];
        for (schema, v) in cases {
            let out = apply(
                &VALUE_PLUGIN,
                &[("field", "magic")],
                record(None, Value::Null, Some(schema.clone()), v.clone()),
            )
            .unwrap();
            let s = out.value_schema.unwrap();
            assert_eq!(s, SchemaBuilder::struct_().field("magic", schema).build());
            let Value::Struct(st) = out.value else {
                panic!("struct")
            };
            assert_eq!(st.values(), &[v]);
        }
        let err = apply(
            &VALUE_PLUGIN,
            &[("field", "magic")],
            record(
                None,
                Value::Null,
                Some(Schema::required(SchemaType::Int64)),
                Value::Null,
            ),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid value: null used for required field: \"magic\", schema type: INT64"
        );
    }
}
