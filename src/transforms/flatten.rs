//! `org.apache.kafka.connect.transforms.Flatten$Key` / `$Value`: lifts the fields of nested
//! structs (with a schema) or maps (schemaless) to the top level as `parent<delimiter>child`.

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, Schema, SchemaBuilder, SchemaRef, SchemaType, Struct, Transformation,
    TransformationPlugin, Value,
};

use crate::transforms::config::parse;
use crate::transforms::util::{
    copy_schema_basics, java_class_name, map_put, require_map, require_struct, struct_with_fields,
    SchemaCache, Side,
};

const PURPOSE: &str = "flattening";

/// The Flatten transform.
#[derive(Debug)]
pub struct Flatten {
    side: Side,
    delimiter: String,
    cache: SchemaCache,
}

impl Flatten {
    fn new(side: Side) -> Self {
        Self {
            side,
            delimiter: ".".to_owned(),
            cache: SchemaCache::default(),
        }
    }

    fn name(&self, prefix: &str, name: &str) -> String {
        if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}{}{name}", self.delimiter)
        }
    }

    fn unsupported_with_schema(t: SchemaType, name: &str) -> ConnectError {
        ConnectError::data(format!(
            "Flatten transformation does not support {} for record with schemas (for field {name}).",
            t.name()
        ))
    }

    fn flatten_map(
        &self,
        entries: &[(Value, Value)],
        prefix: &str,
        out: &mut Vec<(Value, Value)>,
    ) -> Result<()> {
        for (k, v) in entries {
            let Some(key) = k.as_str() else {
                return Err(ConnectError::data(format!(
                    "Only String keys supported for [{PURPOSE}], found: {}",
                    java_class_name(k)
                )));
            };
            let name = self.name(prefix, key);
            match v {
                Value::Map(nested) => self.flatten_map(nested, &name, out)?,
                Value::Struct(_) => {
                    return Err(ConnectError::data(format!(
                        "Flatten transformation does not support class {} for record without \
                         schemas (for field {name}).",
                        java_class_name(v)
                    )))
                }
                other => map_put(out, &name, other.clone()),
            }
        }
        Ok(())
    }

    /// Adds the flattened fields of struct schema `schema` to `out`: a field is optional when
    /// any ancestor is, and takes its own default or else the one its ancestors' defaults give.
    fn flatten_schema(
        &self,
        schema: &SchemaRef,
        prefix: &str,
        optional: bool,
        default_from_parent: Option<&Value>,
        out: &mut Vec<(String, SchemaRef)>,
    ) -> Result<()> {
        for field in &schema.fields {
            let name = self.name(prefix, &field.name);
            let fs = &field.schema;
            let field_optional = optional || fs.optional;
            let default = match (&fs.default, default_from_parent) {
                (Some(d), _) => Some(d.clone()),
                (None, Some(Value::Struct(parent))) => {
                    Some(crate::transforms::util::field_value(parent, field, true))
                        .filter(|v| !v.is_null())
                }
                (None, _) => None,
            };
            match fs.schema_type {
                SchemaType::Struct => {
                    self.flatten_schema(fs, &name, field_optional, default.as_ref(), out)?
                }
                SchemaType::Map => {
                    return Err(Self::unsupported_with_schema(SchemaType::Map, &name))
                }
                _ => {
                    let mut b = copy_schema_basics(fs, SchemaBuilder::new(fs.schema_type));
                    if fs.schema_type == SchemaType::Array {
                        b = match &fs.value_schema {
                            Some(items) => {
                                copy_schema_basics(fs, SchemaBuilder::array(items.clone()))
                            }
                            None => b,
                        };
                    }
                    if field_optional {
                        b = b.optional();
                    }
                    if let Some(d) = default {
                        b = b.default_value(d);
                    }
                    out.push((name, b.build()));
                }
            }
        }
        Ok(())
    }

    fn updated_schema(&self, schema: &SchemaRef) -> Result<SchemaRef> {
        if schema.schema_type != SchemaType::Struct {
            return Err(ConnectError::data("Cannot list fields on non-struct type"));
        }
        let mut fields = Vec::new();
        self.flatten_schema(
            schema,
            "",
            schema.optional,
            schema.default.as_ref(),
            &mut fields,
        )?;
        struct_with_fields(copy_schema_basics(schema, SchemaBuilder::struct_()), fields)
    }

    /// Copies the leaf values of `value` into `out` (by flattened name); a null nested struct
    /// leaves its leaves null.
    fn flatten_struct(
        &self,
        value: &Struct,
        prefix: &str,
        updated: &Schema,
        out: &mut [Value],
    ) -> Result<()> {
        for field in &value.schema().fields {
            let name = self.name(prefix, &field.name);
            match field.schema.schema_type {
                // Kafka reads nested structs without their defaults (`Struct.getStruct`).
                SchemaType::Struct => {
                    if let Some(Value::Struct(nested)) = value.values().get(field.index) {
                        self.flatten_struct(nested, &name, updated, out)?;
                    }
                }
                SchemaType::Map => {
                    return Err(Self::unsupported_with_schema(SchemaType::Map, &name))
                }
                _ => {
                    let f = updated.field(&name).ok_or_else(|| {
                        ConnectError::data(format!("{name} is not a valid field name"))
                    })?;
                    out[f.index] = crate::transforms::util::field_value(value, field, true);
                }
            }
        }
        Ok(())
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new().define(ConfigKey::new(
        "delimiter",
        ConfigType::String,
        Def::Value("."),
        Importance::Medium,
        "Delimiter to insert between field names from the input record when generating field \
         names for the output record",
    ))
}

impl Transformation for Flatten {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        // Kafka keeps the value untrimmed.
        self.delimiter = props
            .get("delimiter")
            .cloned()
            .unwrap_or_else(|| values.string("delimiter").unwrap_or(".").to_owned());
        self.cache = SchemaCache::default();
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        if self.side.value(&record).is_null() {
            return Ok(Some(record));
        }
        let (schema, value) = self.side.take(&mut record);
        match schema {
            None => {
                let entries = require_map(&value, PURPOSE)?;
                let mut out = Vec::new();
                self.flatten_map(entries, "", &mut out)?;
                self.side.set(&mut record, None, Value::Map(out));
            }
            Some(schema) => {
                let original = require_struct(&value, PURPOSE)?;
                let mut cache = std::mem::take(&mut self.cache);
                let updated = cache.get_or_build(&schema, |s| self.updated_schema(s));
                self.cache = cache;
                let updated = updated?;
                let mut values = vec![Value::Null; updated.fields.len()];
                self.flatten_struct(original, "", &updated, &mut values)?;
                let s = Struct::from_values(updated.clone(), values)?;
                self.side.set(&mut record, Some(updated), Value::Struct(s));
            }
        }
        Ok(Some(record))
    }
}

/// `Flatten$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.Flatten$Key",
    config_def,
    new: || Box::new(Flatten::new(Side::Key)),
};

/// `Flatten$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.Flatten$Value",
    config_def,
    new: || Box::new(Flatten::new(Side::Value)),
};
