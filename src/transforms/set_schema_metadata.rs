//! `org.apache.kafka.connect.transforms.SetSchemaMetadata$Key` / `$Value`: sets the name and/or
//! version of the key or value schema (struct values are rebuilt on the new schema).

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, Schema, SchemaType, Struct, Transformation, TransformationPlugin, Value,
};

use crate::transforms::config::parse;
use crate::transforms::util::{field_value, replace_null_with_default_key, require_schema, Side};

/// The SetSchemaMetadata transform.
#[derive(Debug)]
pub struct SetSchemaMetadata {
    side: Side,
    name: Option<String>,
    version: Option<i32>,
    replace_null_with_default: bool,
}

impl SetSchemaMetadata {
    fn new(side: Side) -> Self {
        Self {
            side,
            name: None,
            version: None,
            replace_null_with_default: true,
        }
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "schema.name",
            ConfigType::String,
            Def::Null,
            Importance::High,
            "Schema name to set.",
        ))
        .define(ConfigKey::new(
            "schema.version",
            ConfigType::Int,
            Def::Null,
            Importance::High,
            "Schema version to set.",
        ))
        .define(replace_null_with_default_key())
}

impl Transformation for SetSchemaMetadata {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        self.name = values.string("schema.name").map(str::to_owned);
        self.version = values.int("schema.version");
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
        if self.name.is_none() && self.version.is_none() {
            return Err(ConnectError::config(
                "",
                "Neither schema name nor version configured",
            ));
        }
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        if self.side.value(&record).is_null() && self.side.schema(&record).is_none() {
            return Ok(Some(record));
        }
        let schema = require_schema(self.side.schema(&record), "updating schema metadata")?;
        // Kafka copies the schema's field list unconditionally, which only structs have.
        if schema.schema_type != SchemaType::Struct {
            return Err(ConnectError::data("Cannot list fields on non-struct type"));
        }
        let updated = std::sync::Arc::new(Schema {
            name: self.name.clone().or_else(|| schema.name.clone()),
            version: self.version.or(schema.version),
            ..Schema::clone(schema)
        });
        let (_, value) = self.side.take(&mut record);
        let value = match value {
            Value::Struct(s) => {
                let values = updated
                    .fields
                    .iter()
                    .map(|f| {
                        s.schema().field(&f.name).map_or(Value::Null, |of| {
                            field_value(&s, of, self.replace_null_with_default)
                        })
                    })
                    .collect();
                Value::Struct(Struct::from_values(updated.clone(), values)?)
            }
            other => other,
        };
        self.side.set(&mut record, Some(updated), value);
        Ok(Some(record))
    }
}

/// `SetSchemaMetadata$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.SetSchemaMetadata$Key",
    config_def,
    new: || Box::new(SetSchemaMetadata::new(Side::Key)),
};

/// `SetSchemaMetadata$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value",
    config_def,
    new: || Box::new(SetSchemaMetadata::new(Side::Value)),
};
