//! `org.apache.kafka.connect.transforms.Cast$Key` / `$Value`: casts the whole key/value or some
//! top-level fields to int8..int64, float32, float64, boolean or string, with Java's narrowing
//! and parsing rules (bytes cast to base64 strings; Date/Time/Timestamp to their integer form or
//! their ISO-8601 text; Decimal as a `BigDecimal`).

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConfigValue, ConnectError, ConnectRecord,
    Importance, RecordContext, Result, SchemaBuilder, SchemaRef, SchemaType, Struct,
    Transformation, TransformationPlugin, Value,
};

mod spec;
mod value;

use self::spec::parse_spec;
use self::value::cast_value;
use crate::transforms::config::parse_checked;
use crate::transforms::util::{
    check_required, copy_schema_basics, field_value, into_map, require_struct, SchemaCache, Side,
};

const PURPOSE: &str = "cast types";

const INPUT_TYPES: &str = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]";
const OUTPUT_TYPES: &str = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]";

/// The Cast transform, for the key or the value.
#[derive(Debug)]
pub struct Cast {
    side: Side,
    /// Field casts in spec order (a later entry for the same field wins).
    casts: Vec<(String, SchemaType)>,
    whole: Option<SchemaType>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl Cast {
    fn new(side: Side) -> Self {
        Self {
            side,
            casts: Vec::new(),
            whole: None,
            replace_null_with_default: true,
            cache: SchemaCache::default(),
        }
    }

    fn cast_for(&self, field: &str) -> Option<SchemaType> {
        self.casts
            .iter()
            .rev()
            .find(|(f, _)| f == field)
            .map(|(_, t)| *t)
    }
}

impl Cast {
    fn build_schema(&self, schema: &SchemaRef) -> Result<SchemaRef> {
        let mut builder = match self.whole {
            Some(t) => copy_schema_basics(schema, SchemaBuilder::new(t)),
            None => {
                // Kafka lists the schema's fields first (`Schema.fields()`), which fails on a
                // non-struct schema before the value is looked at.
                if schema.schema_type != connect_api::SchemaType::Struct {
                    return Err(connect_api::ConnectError::data(
                        "Cannot list fields on non-struct type",
                    ));
                }
                let mut b = copy_schema_basics(schema, SchemaBuilder::struct_());
                for field in &schema.fields {
                    let field_schema = match self.cast_for(&field.name) {
                        Some(t) => {
                            let mut fb = SchemaBuilder::new(t);
                            if field.schema.optional {
                                fb = fb.optional();
                            }
                            if let Some(d) = &field.schema.default {
                                fb = fb.default_value(cast_value(Some(&field.schema), d, t)?);
                            }
                            fb.build()
                        }
                        None => field.schema.clone(),
                    };
                    b = b.field(field.name.clone(), field_schema);
                }
                b
            }
        };
        if schema.optional {
            builder = builder.optional();
        }
        if let Some(d) = &schema.default {
            let t = self.whole.unwrap_or(SchemaType::Struct);
            builder = builder.default_value(cast_value(Some(schema), d, t)?);
        }
        Ok(builder.build())
    }

    fn apply_with_schema(&mut self, schema: SchemaRef, value: Value) -> Result<(SchemaRef, Value)> {
        let updated = {
            let mut cache = std::mem::take(&mut self.cache);
            let r = cache.get_or_build(&schema, |s| self.build_schema(s));
            self.cache = cache;
            r?
        };
        if let Some(t) = self.whole {
            let v = cast_value(Some(&schema), &value, t)?;
            return Ok((updated, v));
        }
        let s = require_struct(&value, Some(&schema), PURPOSE)?;
        let mut values = Vec::with_capacity(s.schema().fields.len());
        for field in &s.schema().fields {
            let orig = field_value(s, field, self.replace_null_with_default);
            let v = match self.cast_for(&field.name) {
                Some(t) => cast_value(Some(&field.schema), &orig, t)?,
                None => orig.clone(),
            };
            if let Some(out_field) = updated.field(&field.name) {
                check_required(out_field, &v)?;
            }
            values.push(v);
        }
        let out = Struct::from_values(updated.clone(), values)?;
        Ok((updated, Value::Struct(out)))
    }

    fn apply_schemaless(&self, value: Value) -> Result<Value> {
        if let Some(t) = self.whole {
            return cast_value(None, &value, t);
        }
        let mut updated = into_map(value, PURPOSE)?;
        for (field, t) in &self.casts {
            let pos = updated.iter().position(|(k, _)| k.as_str() == Some(field));
            let orig = pos.map_or(&Value::Null, |i| &updated[i].1);
            let v = cast_value(None, orig, *t)?;
            match pos {
                Some(i) => updated[i].1 = v,
                None => updated.push((Value::String(field.clone()), v)),
            }
        }
        Ok(Value::Map(updated))
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "spec",
            ConfigType::List,
            Def::Required,
            Importance::High,
            "List of fields and the type to cast them to of the form field1:type,field2:type to \
             cast fields of Maps or Structs. A single type to cast the entire value. Valid types \
             are int8, int16, int32, int64, float32, float64, boolean, and string. Note that \
             binary fields can only be cast to string.",
        ))
        .define(ConfigKey::new(
            "replace.null.with.default",
            ConfigType::Boolean,
            Def::Value("true"),
            Importance::Medium,
            "Whether to replace fields that have a default value and that are null to the \
             default value. When set to true, the default value is used, otherwise null is used.",
        ))
}

impl Transformation for Cast {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse_checked(&config_def(), props, |key, raw| {
            if key != "spec" {
                return None;
            }
            match connect_api::config_def::parse_value(key, ConfigType::List, raw) {
                Ok(ConfigValue::List(list)) => parse_spec(&list).err(),
                _ => None,
            }
        })?;
        let (casts, whole) =
            parse_spec(values.list("spec")).map_err(|m| ConnectError::config("spec", m))?;
        self.casts = casts;
        self.whole = whole;
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        Ok(self.apply_in_place(&mut record, ctx)?.then_some(record))
    }

    fn apply_in_place(&mut self, record: &mut ConnectRecord, _ctx: &RecordContext) -> Result<bool> {
        if self.side.value(record).is_null() {
            return Ok(true);
        }
        let (schema, value) = self.side.take(record);
        let (schema, value) = match schema {
            None => (None, self.apply_schemaless(value)?),
            Some(schema) => {
                let (s, v) = self.apply_with_schema(schema, value)?;
                (Some(s), v)
            }
        };
        self.side.set(record, schema, value);
        Ok(true)
    }
}

/// The plugin descriptor of `Cast$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.Cast$Key",
    config_def,
    new: || Box::new(Cast::new(Side::Key)),
};

/// The plugin descriptor of `Cast$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.Cast$Value",
    config_def,
    new: || Box::new(Cast::new(Side::Value)),
};

#[cfg(test)]
mod tests;
