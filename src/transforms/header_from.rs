//! `org.apache.kafka.connect.transforms.HeaderFrom$Key` / `$Value`: copies or moves the fields
//! listed in `fields` into the headers listed in `headers` (same order, same length).

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, SchemaBuilder, SchemaRef, Struct, Transformation, TransformationPlugin,
    Validator, Value,
};

use crate::transforms::config::{one_of_exact, parse_checked};
use crate::transforms::util::{
    check_required, copy_schema_basics, field_value, require_map, require_struct, SchemaCache, Side,
};

/// The HeaderFrom transform, for the key or the value.
#[derive(Debug)]
pub struct HeaderFrom {
    side: Side,
    fields: Vec<String>,
    headers: Vec<String>,
    moving: bool,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl HeaderFrom {
    fn new(side: Side) -> Self {
        Self {
            side,
            fields: Vec::new(),
            headers: Vec::new(),
            moving: false,
            replace_null_with_default: true,
            cache: SchemaCache::default(),
        }
    }

    fn purpose(&self) -> &'static str {
        if self.moving {
            "header move"
        } else {
            "header copy"
        }
    }

    fn move_schema(fields: &[String], schema: &SchemaRef) -> SchemaRef {
        let mut builder = copy_schema_basics(schema, SchemaBuilder::struct_());
        for field in &schema.fields {
            if !fields.contains(&field.name) {
                builder = builder.field(field.name.clone(), field.schema.clone());
            }
        }
        builder.build()
    }

    fn apply_schemaless(&self, record: &mut ConnectRecord, value: Value) -> Result<Value> {
        let entries = require_map(&value, self.purpose())?;
        let mut updated = entries.to_vec();
        for (field, header) in self.fields.iter().zip(&self.headers) {
            let found = entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(field))
                .map_or(Value::Null, |(_, v)| v.clone());
            if self.moving {
                updated.retain(|(k, _)| k.as_str() != Some(field));
            }
            record.headers.add(header.clone(), None, found);
        }
        Ok(Value::Map(updated))
    }

    fn apply_with_schema(
        &mut self,
        record: &mut ConnectRecord,
        schema: SchemaRef,
        value: Value,
    ) -> Result<(SchemaRef, Value)> {
        let s = require_struct(&value, Some(&schema), self.purpose())?;
        let mut headers = Vec::with_capacity(self.fields.len());
        for (name, header) in self.fields.iter().zip(&self.headers) {
            let field_value = s.schema().field(name).map_or(Value::Null, |f| {
                field_value(s, f, self.replace_null_with_default).clone()
            });
            let field_schema = schema.field(name).ok_or_else(|| {
                ConnectError::Other(
                    "Cannot invoke \"org.apache.kafka.connect.data.Field.schema()\" because the \
                     return value of \"org.apache.kafka.connect.data.Schema.field(String)\" is null"
                        .to_owned(),
                )
            })?;
            headers.push((header.clone(), field_schema.schema.clone(), field_value));
        }
        let (schema, value) = if self.moving {
            let fields = &self.fields;
            let updated = self
                .cache
                .get_or_build(&schema, |s| Ok(Self::move_schema(fields, s)))?;
            let mut values = Vec::with_capacity(updated.fields.len());
            for field in &updated.fields {
                let v = s.schema().field(&field.name).map_or(Value::Null, |f| {
                    field_value(s, f, self.replace_null_with_default).clone()
                });
                check_required(field, &v)?;
                values.push(v);
            }
            let updated_value = Struct::from_values(updated.clone(), values)?;
            (updated, Value::Struct(updated_value))
        } else {
            (schema, value)
        };
        for (key, schema, v) in headers {
            record.headers.add(key, Some(schema), v);
        }
        Ok((schema, value))
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "fields",
            ConfigType::List,
            Def::Required,
            Importance::High,
            "Field names in the record whose values are to be copied or moved to headers.",
        ))
        .define(ConfigKey::new(
            "headers",
            ConfigType::List,
            Def::Required,
            Importance::High,
            "Header names, in the same order as the field names listed in the fields \
                 configuration property.",
        ))
        .define(
            ConfigKey::new(
                "operation",
                ConfigType::String,
                Def::Required,
                Importance::High,
                "Either <code>move</code> if the fields are to be moved to the headers (removed \
                 from the key/value), or <code>copy</code> if the fields are to be copied to the \
                 headers (retained in the key/value).",
            )
            .validator(Validator::OneOf(&["move", "copy"])),
        )
        .define(ConfigKey::new(
            "replace.null.with.default",
            ConfigType::Boolean,
            Def::Value("true"),
            Importance::Medium,
            "Whether to replace fields that have a default value and that are null to the \
             default value. When set to true, the default value is used, otherwise null is used.",
        ))
}

impl Transformation for HeaderFrom {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse_checked(&config_def(), props, |key, raw| match key {
            "operation" => one_of_exact(key, raw, &["move", "copy"]),
            // Kafka's NonEmptyListValidator, which prints the parsed (empty) list.
            "fields" | "headers" if raw.trim().is_empty() => Some(format!(
                "Invalid value [] for configuration {key}: Empty list"
            )),
            _ => None,
        })?;
        self.fields = values.list("fields").to_vec();
        self.headers = values.list("headers").to_vec();
        if self.fields.len() != self.headers.len() {
            return Err(ConnectError::config(
                "headers",
                "'fields' config must have the same number of elements as 'headers' config.",
            ));
        }
        self.moving = values.string("operation") == Some("move");
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
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
                let updated = self.apply_schemaless(&mut record, value)?;
                self.side.set(&mut record, None, updated);
            }
            Some(schema) => {
                let (schema, updated) = self.apply_with_schema(&mut record, schema, value)?;
                self.side.set(&mut record, Some(schema), updated);
            }
        }
        Ok(Some(record))
    }
}

/// The plugin descriptor of `HeaderFrom$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.HeaderFrom$Key",
    config_def,
    new: || Box::new(HeaderFrom::new(Side::Key)),
};

/// The plugin descriptor of `HeaderFrom$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.HeaderFrom$Value",
    config_def,
    new: || Box::new(HeaderFrom::new(Side::Value)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::{Schema, SchemaType};

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

    fn struct_schema() -> SchemaRef {
        SchemaBuilder::struct_()
            .name("rec")
            .field("a", Schema::required(SchemaType::Int32))
            .field(
                "b",
                SchemaBuilder::new(SchemaType::String)
                    .optional()
                    .default_value("dflt".into())
                    .build(),
            )
            .field("c", Schema::optional(SchemaType::Boolean))
            .optional()
            .build()
    }

    fn struct_value(schema: &SchemaRef) -> Value {
        Value::Struct(
            Struct::new(schema.clone())
                .put("a", 1)
                .unwrap()
                .put("c", true)
                .unwrap(),
        )
    }

    fn headers(r: &ConnectRecord) -> Vec<(String, Option<SchemaType>, Value)> {
        r.headers
            .iter()
            .map(|h| {
                (
                    h.key.clone(),
                    h.schema.as_ref().map(|s| s.schema_type),
                    h.value.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn with_schema_copies_or_moves_fields_into_headers() {
        let schema = struct_schema();
        // (operation, replace.null.with.default, expected remaining fields, expected b header)
        let cases = [
            ("copy", "true", vec!["a", "b", "c"], Value::from("dflt")),
            ("move", "true", vec!["c"], Value::from("dflt")),
            ("move", "false", vec!["c"], Value::Null),
        ];
        for (op, replace, remaining, b_header) in cases {
            let mut t = configured(
                &VALUE_PLUGIN,
                &[
                    ("fields", "a,b"),
                    ("headers", "ha,hb"),
                    ("operation", op),
                    ("replace.null.with.default", replace),
                ],
            )
            .unwrap();
            let mut record = ConnectRecord {
                value_schema: Some(schema.clone()),
                value: struct_value(&schema),
                ..ConnectRecord::default()
            };
            record.headers.add("ha", None, Value::Null);
            let out = t.apply(record, &RecordContext::source()).unwrap().unwrap();
            let out_schema = out.value_schema.clone().unwrap();
            let names: Vec<_> = out_schema.fields.iter().map(|f| f.name.as_str()).collect();
            assert_eq!(names, remaining, "{op}");
            assert_eq!(out_schema.name.as_deref(), Some("rec"));
            // Kafka's moved schema keeps name/version/doc but not optionality.
            assert_eq!(out_schema.optional, op == "copy");
            let Value::Struct(s) = &out.value else {
                panic!("not a struct")
            };
            assert_eq!(s.get("c"), Some(&Value::Boolean(true)));
            assert_eq!(
                headers(&out),
                vec![
                    ("ha".to_owned(), None, Value::Null),
                    ("ha".to_owned(), Some(SchemaType::Int32), Value::Int32(1)),
                    ("hb".to_owned(), Some(SchemaType::String), b_header),
                ],
                "{op} {replace}"
            );
        }
    }

    #[test]
    fn schemaless_copies_or_moves_map_entries() {
        for (op, remaining) in [("copy", 3), ("move", 1)] {
            let mut t = configured(
                &KEY_PLUGIN,
                &[("fields", "a,zz"), ("headers", "ha,hz"), ("operation", op)],
            )
            .unwrap();
            let record = ConnectRecord {
                key: Value::Map(vec![
                    ("a".into(), Value::Int64(5)),
                    ("b".into(), "x".into()),
                    ("zz".into(), Value::Null),
                ]),
                ..ConnectRecord::default()
            };
            let out = t.apply(record, &RecordContext::source()).unwrap().unwrap();
            let Value::Map(m) = &out.key else {
                panic!("not a map")
            };
            assert_eq!(m.len(), remaining, "{op}");
            assert_eq!(
                headers(&out),
                vec![
                    ("ha".to_owned(), None, Value::Int64(5)),
                    ("hz".to_owned(), None, Value::Null),
                ]
            );
        }
    }

    #[test]
    fn data_errors_match_kafka() {
        let schema = struct_schema();
        let cases = [
            (
                "move",
                None,
                Value::Null,
                "Only Map objects supported in absence of schema for [header move], found: null",
            ),
            (
                "copy",
                None,
                Value::from("s"),
                "Only Map objects supported in absence of schema for [header copy], found: java.lang.String",
            ),
            (
                "copy",
                Some(schema.clone()),
                Value::Null,
                "Only Struct objects supported for [header copy], found: null",
            ),
        ];
        for (op, schema, value, message) in cases {
            let mut t = configured(
                &VALUE_PLUGIN,
                &[("fields", "a"), ("headers", "h"), ("operation", op)],
            )
            .unwrap();
            let record = ConnectRecord {
                value_schema: schema,
                value,
                ..ConnectRecord::default()
            };
            let e = t.apply(record, &RecordContext::source()).unwrap_err();
            assert_eq!(e.to_string(), message);
        }
    }

    #[test]
    fn configuration_errors_match_kafka() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (
                &[("headers", "h"), ("operation", "copy")],
                "Missing required configuration \"fields\" which has no default value.",
            ),
            (
                &[("fields", "a"), ("headers", "h"), ("operation", "Move")],
                "Invalid value Move for configuration operation: String must be one of: move, copy",
            ),
            (
                &[("fields", "a,b"), ("headers", "h"), ("operation", "copy")],
                "'fields' config must have the same number of elements as 'headers' config.",
            ),
            (
                &[("fields", "a"), ("headers", ""), ("operation", "copy")],
                "Invalid value [] for configuration headers: Empty list",
            ),
        ];
        for (props, message) in cases {
            let e = configured(&VALUE_PLUGIN, props).err().unwrap().to_string();
            assert!(e.contains(message), "{e} / {message}");
        }
    }
}
