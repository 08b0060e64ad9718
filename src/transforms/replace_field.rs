//! `org.apache.kafka.connect.transforms.ReplaceField$Key` / `$Value`: drops fields (`exclude`,
//! `include`) and renames the ones kept (`renames`, `old:new` pairs).

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, SchemaBuilder, SchemaRef, Struct, Transformation, TransformationPlugin,
    Value,
};

use crate::transforms::config::parse;
use crate::transforms::name_lookup::NameMap;
use crate::transforms::util::{
    check_list, copy_schema_basics, field_value, into_map, replace_null_with_default_key,
    require_struct, struct_with_fields, SchemaCache, Side,
};

const PURPOSE: &str = "field replacement";

/// The ReplaceField transform.
#[derive(Debug)]
pub struct ReplaceField {
    side: Side,
    exclude: NameMap<()>,
    include: NameMap<()>,
    renames: NameMap<String>,
    reverse_renames: NameMap<String>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl ReplaceField {
    fn new(side: Side) -> Self {
        Self {
            side,
            exclude: NameMap::default(),
            include: NameMap::default(),
            renames: NameMap::default(),
            reverse_renames: NameMap::default(),
            replace_null_with_default: true,
            cache: SchemaCache::default(),
        }
    }

    /// Whether a field is kept: not excluded, and included when `include` is set.
    fn keep(&self, name: &str) -> bool {
        !self.exclude.contains(name) && (self.include.is_empty() || self.include.contains(name))
    }

    fn renamed<'a>(&'a self, name: &'a str) -> &'a str {
        self.renames.get(name).map_or(name, String::as_str)
    }

    fn reverse_renamed<'a>(&'a self, name: &'a str) -> &'a str {
        self.reverse_renames.get(name).map_or(name, String::as_str)
    }

    fn updated_schema(&self, schema: &SchemaRef) -> Result<SchemaRef> {
        let fields = schema
            .fields
            .iter()
            .filter(|f| self.keep(&f.name))
            .map(|f| (self.renamed(&f.name).to_owned(), f.schema.clone()));
        struct_with_fields(copy_schema_basics(schema, SchemaBuilder::struct_()), fields)
    }
}

/// Java's `String.split(":")`: trailing empty parts are dropped.
fn java_split_colon(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split(':').collect();
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.len() == 1 && parts[0].is_empty() && !s.is_empty() {
        parts.clear();
    }
    parts
}

/// Parses `old:new` pairs, with Kafka's message for a bad one.
fn parse_renames(mappings: &[String]) -> Result<NameMap<String>> {
    let mut out = Vec::new();
    for mapping in mappings {
        match java_split_colon(mapping).as_slice() {
            [old, new] => out.push(((*old).to_owned(), (*new).to_owned())),
            _ => {
                return Err(ConnectError::config(
                    "renames",
                    format!(
                        "Invalid value [{}] for configuration renames: Invalid rename mapping: \
                         {mapping}",
                        mappings.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(out.into_iter().collect())
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "exclude",
            ConfigType::List,
            Def::Value(""),
            Importance::Medium,
            "Fields to exclude. This takes precedence over the fields to include.",
        ))
        .define(ConfigKey::new(
            "include",
            ConfigType::List,
            Def::Value(""),
            Importance::Medium,
            "Fields to include. If specified, only these fields will be used.",
        ))
        .define(ConfigKey::new(
            "renames",
            ConfigType::List,
            Def::Value(""),
            Importance::Medium,
            "Field rename mappings.",
        ))
        .define(replace_null_with_default_key())
}

impl Transformation for ReplaceField {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        check_list("exclude", values.list("exclude"), true)?;
        check_list("include", values.list("include"), true)?;
        self.exclude = values.list("exclude").iter().cloned().collect();
        self.include = values.list("include").iter().cloned().collect();
        self.renames = parse_renames(values.list("renames"))?;
        self.reverse_renames = self
            .renames
            .iter()
            .map(|(k, v)| (v.clone(), k.clone()))
            .collect();
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
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

    fn apply_in_place(&mut self, record: &mut ConnectRecord, _ctx: &RecordContext) -> Result<bool> {
        if self.side.value(record).is_null() {
            return Ok(true);
        }
        let (schema, value) = self.side.take(record);
        match schema {
            None => {
                // Rewritten in place: kept entries move to the front (renamed where asked; a
                // later key wins a collision at the earlier key's position).
                let mut entries = into_map(value, PURPOSE)?;
                let mut kept = 0;
                for i in 0..entries.len() {
                    let Some(name) = entries[i].0.as_str() else {
                        return Err(ConnectError::data(format!(
                            "Only String keys supported for [{PURPOSE}], found: {}",
                            crate::transforms::util::java_class_name(&entries[i].0)
                        )));
                    };
                    if !self.keep(name) {
                        continue;
                    }
                    if let Some(new_name) = self.renames.get(name) {
                        // The key's own buffer is reused (mostly without reallocating).
                        if let Value::String(key) = &mut entries[i].0 {
                            key.clear();
                            key.push_str(new_name);
                        }
                    }
                    let key = entries[i].0.as_str();
                    match entries[..kept].iter().position(|(k, _)| k.as_str() == key) {
                        Some(earlier) => entries[earlier].1 = std::mem::take(&mut entries[i].1),
                        None => {
                            entries.swap(kept, i);
                            kept += 1;
                        }
                    }
                }
                entries.truncate(kept);
                let updated = entries;
                self.side.set(record, None, Value::Map(updated));
            }
            Some(schema) => {
                let original = require_struct(&value, Some(&schema), PURPOSE)?;
                let mut cache = std::mem::take(&mut self.cache);
                let updated = cache.get_or_build(original.schema(), |s| self.updated_schema(s));
                self.cache = cache;
                let updated = updated?;
                let mut values = Vec::with_capacity(updated.fields.len());
                for f in &updated.fields {
                    let name = self.reverse_renamed(&f.name);
                    let of = original.schema().field(name).ok_or_else(|| {
                        ConnectError::data(format!("{name} is not a valid field name"))
                    })?;
                    values.push(field_value(original, of, self.replace_null_with_default));
                }
                let s = Struct::from_values(updated.clone(), values)?;
                self.side.set(record, Some(updated), Value::Struct(s));
            }
        }
        Ok(true)
    }
}

/// `ReplaceField$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.ReplaceField$Key",
    config_def,
    new: || Box::new(ReplaceField::new(Side::Key)),
};

/// `ReplaceField$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.ReplaceField$Value",
    config_def,
    new: || Box::new(ReplaceField::new(Side::Value)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transforms::test_support::{apply, config_error, record, smap, strct, Props};
    use connect_api::{Schema, SchemaType};

    #[test]
    fn bad_rename_mappings_are_refused() {
        let cases = [
            (
                "foo",
                "Invalid value [foo] for configuration renames: Invalid rename mapping: foo",
            ),
            (
                "a:b,c:d:e",
                "Invalid value [a:b, c:d:e] for configuration renames: Invalid rename mapping: \
                 c:d:e",
            ),
            (
                "a:",
                "Invalid value [a:] for configuration renames: Invalid rename mapping: a:",
            ),
            (
                ":",
                "Invalid value [:] for configuration renames: Invalid rename mapping: :",
            ),
        ];
        for (renames, want) in cases {
            assert_eq!(config_error(&VALUE_PLUGIN, &[("renames", renames)]), want);
        }
        // Kafka 4.3.1 accepts repeated entries.
        assert!(apply(
            &VALUE_PLUGIN,
            &[("exclude", "a,b,a")],
            record(None, Value::Null, None, smap(&[("a", Value::Int32(1))]))
        )
        .is_ok());
        // Java's split drops trailing empty parts: `a:b:` is the pair a -> b.
        let rec = record(None, Value::Null, None, smap(&[("a", Value::Int32(1))]));
        let out = apply(&VALUE_PLUGIN, &[("renames", "a:b:")], rec).unwrap();
        assert_eq!(out.value, smap(&[("b", Value::Int32(1))]));
    }

    #[test]
    fn schemaless_table() {
        let input = smap(&[
            ("dont", "whatever".into()),
            ("abc", Value::Int32(42)),
            ("foo", Value::Boolean(true)),
            ("etc", "etc".into()),
        ]);
        let cases: &[(Props, Value)] = &[
            (&[], input.clone()),
            (
                &[("exclude", "dont"), ("renames", "abc:xyz,foo:bar")],
                smap(&[
                    ("xyz", Value::Int32(42)),
                    ("bar", Value::Boolean(true)),
                    ("etc", "etc".into()),
                ]),
            ),
            (
                &[("include", "abc,foo,dont"), ("exclude", "dont")],
                smap(&[("abc", Value::Int32(42)), ("foo", Value::Boolean(true))]),
            ),
        ];
        for (props, want) in cases {
            let rec = record(None, Value::Null, None, input.clone());
            assert_eq!(
                apply(&VALUE_PLUGIN, props, rec).unwrap().value,
                *want,
                "{props:?}"
            );
        }
    }

    #[test]
    fn with_schema_keeps_field_order_and_schemas() {
        let schema = SchemaBuilder::struct_()
            .name("n")
            .version(3)
            .field("dont", Schema::required(SchemaType::String))
            .field("abc", Schema::required(SchemaType::Int32))
            .field("foo", Schema::optional(SchemaType::Boolean))
            .field("etc", Schema::required(SchemaType::String))
            .build();
        let value = strct(
            &schema,
            vec![
                "whatever".into(),
                Value::Int32(42),
                Value::Boolean(true),
                "etc".into(),
            ],
        );
        let props = [
            ("include", "abc,foo,etc"),
            ("exclude", "etc"),
            ("renames", "abc:xyz,foo:bar"),
        ];
        let out = apply(
            &KEY_PLUGIN,
            &props,
            record(Some(schema), value, None, Value::Null),
        )
        .unwrap();
        let s = out.key_schema.unwrap();
        assert_eq!((s.name.as_deref(), s.version), (Some("n"), Some(3)));
        let names: Vec<_> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["xyz", "bar"]);
        assert_eq!(s.fields[1].schema, Schema::optional(SchemaType::Boolean));
        let Value::Struct(k) = out.key else {
            panic!("struct")
        };
        assert_eq!(k.values(), &[Value::Int32(42), Value::Boolean(true)]);
    }

    #[test]
    fn errors_nulls_and_defaults() {
        // Null operating value: unchanged.
        let rec = record(None, Value::Null, None, Value::Null);
        assert_eq!(apply(&VALUE_PLUGIN, &[], rec.clone()).unwrap(), rec);
        let err = apply(
            &VALUE_PLUGIN,
            &[],
            record(None, Value::Null, None, Value::Int32(1)),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Only Map objects supported in absence of schema for [field replacement], found: \
             java.lang.Integer"
        );
        let schema = SchemaBuilder::struct_()
            .field("a", Schema::required(SchemaType::Int32))
            .field("b", Schema::required(SchemaType::Int32))
            .build();
        let value = strct(&schema, vec![Value::Int32(1), Value::Int32(2)]);
        let err = apply(
            &VALUE_PLUGIN,
            &[("renames", "a:b")],
            record(None, Value::Null, Some(schema), value),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Cannot create field because of field name duplication b"
        );
        let schema = SchemaBuilder::struct_()
            .field(
                "a",
                SchemaBuilder::new(SchemaType::Int32)
                    .optional()
                    .default_value(Value::Int32(5))
                    .build(),
            )
            .build();
        for (replace, want) in [("true", Value::Int32(5)), ("false", Value::Null)] {
            let rec = record(
                None,
                Value::Null,
                Some(schema.clone()),
                strct(&schema, vec![Value::Null]),
            );
            let out = apply(
                &VALUE_PLUGIN,
                &[("replace.null.with.default", replace)],
                rec,
            )
            .unwrap();
            let Value::Struct(v) = out.value else {
                panic!("struct")
            };
            assert_eq!(v.values(), &[want]);
        }
    }
}
