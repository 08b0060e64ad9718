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
