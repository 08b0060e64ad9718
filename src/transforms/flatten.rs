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
        self.delimiter = values.string("delimiter").unwrap_or(".").to_owned();
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
                let original = require_struct(&value, Some(&schema), PURPOSE)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transforms::test_support::{apply, record, smap, strct, Props};

    #[test]
    fn schemaless_nested_maps() {
        let input = smap(&[
            (
                "A",
                smap(&[("B", smap(&[("int8", Value::Int8(8))])), ("s", "x".into())]),
            ),
            ("array", Value::Array(vec![smap(&[("k", Value::Int32(1))])])),
            ("null", Value::Null),
            ("bytes", Value::Bytes(vec![1])),
        ]);
        let cases: &[(Props, Value)] = &[
            (
                &[],
                smap(&[
                    ("A.B.int8", Value::Int8(8)),
                    ("A.s", "x".into()),
                    ("array", Value::Array(vec![smap(&[("k", Value::Int32(1))])])),
                    ("null", Value::Null),
                    ("bytes", Value::Bytes(vec![1])),
                ]),
            ),
            (
                &[("delimiter", "#")],
                smap(&[
                    ("A#B#int8", Value::Int8(8)),
                    ("A#s", "x".into()),
                    ("array", Value::Array(vec![smap(&[("k", Value::Int32(1))])])),
                    ("null", Value::Null),
                    ("bytes", Value::Bytes(vec![1])),
                ]),
            ),
        ];
        for (props, want) in cases {
            let out = apply(
                &KEY_PLUGIN,
                props,
                record(None, input.clone(), None, Value::Null),
            )
            .unwrap();
            assert_eq!(out.key, *want, "{props:?}");
        }
        let err = apply(
            &KEY_PLUGIN,
            &[],
            record(None, Value::Int32(1), None, Value::Null),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Only Map objects supported in absence of schema for [flattening], found: \
             java.lang.Integer"
        );
        // Null passes through.
        let rec = record(None, Value::Null, None, Value::Null);
        assert_eq!(apply(&KEY_PLUGIN, &[], rec.clone()).unwrap(), rec);
    }

    #[test]
    fn with_schema_flattens_and_propagates_optionality_and_defaults() {
        let leaf_default = SchemaBuilder::new(SchemaType::Int32)
            .default_value(Value::Int32(1))
            .build();
        let inner_plain = SchemaBuilder::struct_()
            .field("x", Schema::required(SchemaType::Int32))
            .field("y", Schema::required(SchemaType::String))
            .build();
        let inner_default = SchemaBuilder::struct_()
            .optional()
            .default_value(strct(&inner_plain, vec![Value::Int32(7), "dy".into()]))
            .field("x", Schema::required(SchemaType::Int32))
            .field("y", Schema::required(SchemaType::String))
            .build();
        let optional_parent = SchemaBuilder::struct_()
            .optional()
            .field("z", Schema::required(SchemaType::Boolean))
            .field("d", leaf_default.clone())
            .build();
        let array = SchemaBuilder::array(Schema::required(SchemaType::Int32))
            .name("arr")
            .build();
        let schema = SchemaBuilder::struct_()
            .name("top")
            .version(2)
            .field("a", inner_plain.clone())
            .field("b", inner_default.clone())
            .field("c", optional_parent.clone())
            .field("arr", array.clone())
            .build();
        let value = strct(
            &schema,
            vec![
                strct(&inner_plain, vec![Value::Int32(1), "s".into()]),
                Value::Null,
                strct(&optional_parent, vec![Value::Boolean(true), Value::Null]),
                Value::Array(vec![Value::Int32(3)]),
            ],
        );
        for (props, sep) in [(&[][..], "."), (&[("delimiter", "_")][..], "_")] {
            let out = apply(
                &VALUE_PLUGIN,
                props,
                record(None, Value::Null, Some(schema.clone()), value.clone()),
            )
            .unwrap();
            let s = out.value_schema.unwrap();
            assert_eq!(
                (s.name.as_deref(), s.version, s.optional),
                (Some("top"), Some(2), false)
            );
            let names: Vec<_> = s.fields.iter().map(|f| f.name.clone()).collect();
            let n = |a: &str, b: &str| format!("{a}{sep}{b}");
            assert_eq!(
                names,
                [
                    n("a", "x"),
                    n("a", "y"),
                    n("b", "x"),
                    n("b", "y"),
                    n("c", "z"),
                    n("c", "d"),
                    "arr".into()
                ]
            );
            assert_eq!(s.fields[0].schema, Schema::required(SchemaType::Int32));
            let b_x = &s.fields[2].schema;
            assert!(b_x.optional);
            assert_eq!(b_x.default, Some(Value::Int32(7)));
            assert_eq!(s.fields[3].schema.default, Some("dy".into()));
            assert!(s.fields[4].schema.optional);
            assert_eq!(s.fields[4].schema.default, None);
            assert!(s.fields[5].schema.optional);
            assert_eq!(s.fields[5].schema.default, Some(Value::Int32(1)));
            assert_eq!(s.fields[6].schema, array);
            let Value::Struct(v) = out.value else {
                panic!("struct")
            };
            // A null nested struct leaves its leaves null (Kafka reads it without its default);
            // a null leaf takes its own default.
            assert_eq!(
                v.values(),
                &[
                    Value::Int32(1),
                    "s".into(),
                    Value::Null,
                    Value::Null,
                    Value::Boolean(true),
                    Value::Int32(1),
                    Value::Array(vec![Value::Int32(3)]),
                ]
            );
        }
    }

    #[test]
    fn with_schema_errors() {
        let map = SchemaBuilder::map(
            Schema::required(SchemaType::String),
            Schema::required(SchemaType::String),
        )
        .build();
        let inner = SchemaBuilder::struct_().field("B", map).build();
        let schema = SchemaBuilder::struct_().field("A", inner.clone()).build();
        let value = strct(&schema, vec![strct(&inner, vec![Value::Map(vec![])])]);
        let err = apply(
            &VALUE_PLUGIN,
            &[],
            record(None, Value::Null, Some(schema), value),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Flatten transformation does not support MAP for record with schemas (for field A.B)."
        );
        let err = apply(
            &VALUE_PLUGIN,
            &[],
            record(
                None,
                Value::Null,
                Some(Schema::required(SchemaType::String)),
                "x".into(),
            ),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Only Struct objects supported for [flattening], found: java.lang.String"
        );
        let inner = SchemaBuilder::struct_()
            .field("b", Schema::required(SchemaType::Int32))
            .build();
        let schema = SchemaBuilder::struct_()
            .field("a", inner.clone())
            .field("a.b", Schema::required(SchemaType::Int32))
            .build();
        let value = strct(
            &schema,
            vec![strct(&inner, vec![Value::Int32(1)]), Value::Int32(2)],
        );
        let err = apply(
            &VALUE_PLUGIN,
            &[],
            record(None, Value::Null, Some(schema), value),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Cannot create field because of field name duplication a.b"
        );
    }
}
