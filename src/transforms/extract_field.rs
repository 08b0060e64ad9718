//! `org.apache.kafka.connect.transforms.ExtractField$Key` / `$Value`: replaces the key or value
//! with one of its fields. With `field.syntax.version=V2` the field is a dotted path into nested
//! structs or maps, with backticks around names that contain dots (KIP-821).

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Field, Importance,
    RecordContext, Result, SchemaRef, SchemaType, Struct, Transformation, TransformationPlugin,
    Validator, Value,
};

use crate::transforms::config::parse;
use crate::transforms::util::{
    field_value, map_get, replace_null_with_default_key, require_map, require_struct, Side,
};

const PURPOSE: &str = "field extraction";
const NESTED: &str = "nested field access";

const SYNTAX_VERSION_DOC: &str = "Defines the version of the syntax to access fields. If set to \
    `V1`, then the field paths are limited to access the elements at the root level of the struct \
    or map. If set to `V2`, the syntax will support accessing nested elements. To access nested \
    elements, dotted notation is used. If dots are already included in the field name, then \
    backtick pairs can be used to wrap field names containing dots. E.g. to access the subfield \
    `baz` from a field named \"foo.bar\" in a struct/map the following format can be used to \
    access its elements: \"`foo.bar`.baz\".";

/// Splits a V2 path into its steps: `a.b` is two steps, `` `a.b`.c `` is `a.b` then `c`; a
/// backslash before a closing backtick keeps it in the name.
///
/// # Errors
/// Kafka's message for a backtick without its pair.
fn parse_v2_path(path: &str) -> Result<Vec<String>> {
    const BACKTICK: u16 = b'`' as u16;
    const DOT: u16 = b'.' as u16;
    const BACKSLASH: u16 = b'\\' as u16;
    let p: Vec<u16> = path.encode_utf16().collect();
    let text = |from: usize, to: usize| String::from_utf16_lossy(&p[from..to]);
    let find = |c: u16, from: usize| {
        p[from.min(p.len())..]
            .iter()
            .position(|&x| x == c)
            .map(|i| i + from)
    };
    let incomplete = |at: usize| {
        ConnectError::config(
            "field",
            format!(
                "Incomplete backtick pair in path: [{path}], consider adding a backslash before \
                 backtick at position {at} to escape it"
            ),
        )
    };
    let mut steps = Vec::new();
    let mut idx = 0;
    while idx < p.len() {
        if p[idx] != BACKTICK {
            let start = idx;
            match find(DOT, idx) {
                Some(dot) => {
                    steps.push(text(start, dot));
                    idx = dot + 1;
                }
                None => {
                    steps.push(text(start, p.len()));
                    idx = p.len();
                }
            }
            continue;
        }
        let backtick_at = idx;
        idx += 1;
        let mut field = String::new();
        let mut start = idx;
        loop {
            let close = find(BACKTICK, idx).ok_or_else(|| incomplete(backtick_at))?;
            idx = close;
            let escaped = p[idx - 1] == BACKSLASH;
            if idx + 1 >= p.len() {
                if escaped {
                    return Err(incomplete(backtick_at));
                }
                field.push_str(&text(start, idx));
                steps.push(field);
                idx += 1;
                break;
            }
            if p[idx + 1] != DOT {
                idx += 1;
                continue;
            }
            if escaped {
                field.push_str(&text(start, idx - 1));
                field.push('`');
                idx += 1;
                start = idx;
                continue;
            }
            field.push_str(&text(start, idx));
            steps.push(field);
            idx += 2;
            break;
        }
    }
    // An empty path has no steps in Kafka (and fails on use); one empty name finds nothing.
    if p.last() == Some(&DOT) || steps.is_empty() {
        steps.push(String::new());
    }
    Ok(steps)
}

/// The field at `steps` in a struct schema (Kafka's `SingleFieldPath.fieldFrom`).
///
/// # Errors
/// Kafka's `Cannot look up fields on non-struct type` when a step meets a non-struct schema.
fn field_from<'a>(schema: &'a SchemaRef, steps: &[String]) -> Result<Option<&'a Field>> {
    let lookup = |s: &'a SchemaRef, name: &str| {
        if s.schema_type != SchemaType::Struct {
            return Err(ConnectError::data(
                "Cannot look up fields on non-struct type",
            ));
        }
        Ok(s.field(name))
    };
    let (last, parents) = steps.split_last().expect("a path has at least one step");
    let mut current = schema;
    for step in parents {
        match lookup(current, step)? {
            Some(f) => current = &f.schema,
            None => return Ok(None),
        }
    }
    lookup(current, last)
}

/// The value at `steps` in a struct (Kafka's `SingleFieldPath.valueFrom(Struct, boolean)`).
fn struct_value_from(value: &Struct, steps: &[String], with_default: bool) -> Result<Value> {
    let (last, parents) = steps.split_last().expect("a path has at least one step");
    let mut current = value;
    for step in parents {
        let Some(f) = current.schema().field(step) else {
            return Ok(Value::Null);
        };
        let sub = &current.values()[f.index];
        let sub = match (sub, &f.schema.default) {
            (Value::Null, Some(d)) => d,
            (v, _) => v,
        };
        if sub.is_null() {
            return Ok(Value::Null);
        }
        current = require_struct(sub, Some(&f.schema), NESTED)?;
    }
    Ok(current
        .schema()
        .field(last)
        .map_or(Value::Null, |f| field_value(current, f, with_default)))
}

/// The value at `steps` in a schemaless map (Kafka's `SingleFieldPath.valueFrom(Map)`).
fn map_value_from(value: &[(Value, Value)], steps: &[String]) -> Result<Value> {
    let (last, parents) = steps.split_last().expect("a path has at least one step");
    let mut current = value;
    for step in parents {
        let sub = map_get(current, step);
        if sub.is_null() {
            return Ok(Value::Null);
        }
        current = require_map(sub, NESTED)?;
    }
    Ok(map_get(current, last).clone())
}

/// The ExtractField transform.
#[derive(Debug)]
pub struct ExtractField {
    side: Side,
    original_path: String,
    steps: Vec<String>,
    replace_null_with_default: bool,
}

impl ExtractField {
    fn new(side: Side) -> Self {
        Self {
            side,
            original_path: String::new(),
            steps: vec![String::new()],
            replace_null_with_default: true,
        }
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "field",
            ConfigType::String,
            Def::Required,
            Importance::Medium,
            "Field name to extract.",
        ))
        .define(replace_null_with_default_key())
        .define(
            ConfigKey::new(
                "field.syntax.version",
                ConfigType::String,
                Def::Value("V1"),
                Importance::High,
                SYNTAX_VERSION_DOC,
            )
            .validator(Validator::OneOf(&["V1", "V2"])),
        )
}

impl Transformation for ExtractField {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props).map_err(|e| match e {
            // Kafka's CaseInsensitiveValidString words its message so.
            ConnectError::Config { key, message } if key == "field.syntax.version" => {
                ConnectError::config(
                    key,
                    message.replace(
                        "String must be one of:",
                        "String must be one of (case insensitive):",
                    ),
                )
            }
            other => other,
        })?;
        let path = values.string("field").unwrap_or_default().to_owned();
        let v2 = values
            .string("field.syntax.version")
            .is_some_and(|v| v.eq_ignore_ascii_case("V2"));
        self.steps = if v2 {
            parse_v2_path(&path)?
        } else {
            vec![path.clone()]
        };
        self.original_path = path;
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
                let extracted = if value.is_null() {
                    Value::Null
                } else {
                    map_value_from(require_map(&value, PURPOSE)?, &self.steps)?
                };
                self.side.set(&mut record, None, extracted);
            }
            Some(schema) => {
                let s = if value.is_null() {
                    None
                } else {
                    Some(require_struct(&value, Some(&schema), PURPOSE)?)
                };
                let field = field_from(&schema, &self.steps)?.ok_or_else(|| {
                    ConnectError::Other(format!("Unknown field: {}", self.original_path))
                })?;
                let extracted = match s {
                    None => Value::Null,
                    Some(s) => struct_value_from(s, &self.steps, self.replace_null_with_default)?,
                };
                self.side
                    .set(&mut record, Some(field.schema.clone()), extracted);
            }
        }
        Ok(Some(record))
    }
}

/// `ExtractField$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.ExtractField$Key",
    config_def,
    new: || Box::new(ExtractField::new(Side::Key)),
};

/// `ExtractField$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.ExtractField$Value",
    config_def,
    new: || Box::new(ExtractField::new(Side::Value)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transforms::test_support::{apply, config_error, record, smap, strct, Props};
    use connect_api::{Schema, SchemaBuilder};

    #[test]
    fn v2_paths_split_like_kafka() {
        let cases: &[(&str, &[&str])] = &[
            ("..", &["", "", ""]),
            ("foo..", &["foo", "", ""]),
            (".bar.", &["", "bar", ""]),
            ("..baz", &["", "", "baz"]),
            ("foobarbaz", &["foobarbaz"]),
            ("foo.bar.baz", &["foo", "bar", "baz"]),
            ("foo`bar`baz", &["foo`bar`baz"]),
            ("`foo.bar.baz`", &["foo.bar.baz"]),
            ("foo.`bar.baz`", &["foo", "bar.baz"]),
            ("`foo.bar`.baz", &["foo.bar", "baz"]),
            ("foo.`bar`.baz", &["foo", "bar", "baz"]),
            ("foo.``bar.baz`", &["foo", "`bar.baz"]),
            ("foo.`bar.baz``", &["foo", "bar.baz`"]),
            ("foo.`ba`r.baz`", &["foo", "ba`r.baz"]),
            ("foo.ba`r.baz", &["foo", "ba`r", "baz"]),
            ("foo.``bar``.baz", &["foo", "`bar`", "baz"]),
            ("``foo.bar.baz``", &["`foo.bar.baz`"]),
            (r"foo.`bar\`.baz`", &["foo", "bar`.baz"]),
            ("foo.`bar.`baz`", &["foo", "bar.`baz"]),
            (r"foo.`bar\`.`baz`", &["foo", "bar`.`baz"]),
            (r"foo.`bar\\`.\`baz`", &["foo", r"bar\`.\`baz"]),
        ];
        for (path, want) in cases {
            assert_eq!(parse_v2_path(path).unwrap(), *want, "{path}");
        }
        let errors: &[(&str, usize)] = &[
            ("`foo.bar.baz", 0),
            ("foo.`bar.baz", 4),
            ("foo.bar.`baz", 8),
            (r"foo.bar.`baz\`", 8),
        ];
        for (path, at) in errors {
            let want = format!(
                "Incomplete backtick pair in path: [{path}], consider adding a backslash before \
                 backtick at position {at} to escape it"
            );
            let props = [("field", *path), ("field.syntax.version", "v2")];
            assert_eq!(config_error(&VALUE_PLUGIN, &props), want);
            // V1 takes the name as it is.
            let props = [("field", *path)];
            assert!(crate::transforms::test_support::configured(&VALUE_PLUGIN, &props).is_ok());
        }
    }

    #[test]
    fn configure_errors() {
        assert_eq!(
            config_error(&VALUE_PLUGIN, &[]),
            "Missing required configuration \"field\" which has no default value."
        );
        assert_eq!(
            config_error(
                &VALUE_PLUGIN,
                &[("field", "a"), ("field.syntax.version", "V3")]
            ),
            "Invalid value V3 for configuration field.syntax.version: String must be one of \
             (case insensitive): V1, V2"
        );
    }

    #[test]
    fn schemaless_table() {
        let value = smap(&[
            ("magic", Value::Int32(42)),
            ("foo.bar", Value::Int32(1)),
            ("foo", smap(&[("bar", Value::Int32(2))])),
            ("s", "x".into()),
        ]);
        let cases: &[(Props, Value)] = &[
            (&[("field", "magic")], Value::Int32(42)),
            (&[("field", "nope")], Value::Null),
            (&[("field", "foo.bar")], Value::Int32(1)),
            (
                &[("field", "foo.bar"), ("field.syntax.version", "V2")],
                Value::Int32(2),
            ),
            (
                &[("field", "`foo.bar`"), ("field.syntax.version", "V2")],
                Value::Int32(1),
            ),
            (
                &[("field", "nope.bar"), ("field.syntax.version", "V2")],
                Value::Null,
            ),
        ];
        for (props, want) in cases {
            let rec = record(None, value.clone(), None, Value::Null);
            let out = apply(&KEY_PLUGIN, props, rec).unwrap();
            assert_eq!(out.key, *want, "{props:?}");
            assert_eq!(out.key_schema, None);
        }
        let props = [("field", "s.x"), ("field.syntax.version", "V2")];
        let err = apply(&KEY_PLUGIN, &props, record(None, value, None, Value::Null)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Only Map objects supported in absence of schema for [nested field access], found: \
             java.lang.String"
        );
        // Null passes through; anything else but a map is refused.
        let out = apply(
            &VALUE_PLUGIN,
            &[("field", "a")],
            record(None, Value::Null, None, Value::Null),
        )
        .unwrap();
        assert_eq!(out.value, Value::Null);
        let err = apply(
            &VALUE_PLUGIN,
            &[("field", "a")],
            record(None, Value::Null, None, Value::Int32(1)),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Only Map objects supported in absence of schema for [field extraction], found: \
             java.lang.Integer"
        );
    }

    #[test]
    fn with_schema_table() {
        let inner = SchemaBuilder::struct_()
            .optional()
            .field("bar", Schema::required(SchemaType::Int32))
            .build();
        let with_default = SchemaBuilder::new(SchemaType::Int32)
            .optional()
            .default_value(Value::Int32(5))
            .build();
        let schema = SchemaBuilder::struct_()
            .field("magic", Schema::required(SchemaType::Int32))
            .field("foo", inner.clone())
            .field("d", with_default.clone())
            .field("none", inner.clone())
            .build();
        let value = strct(
            &schema,
            vec![
                Value::Int32(42),
                strct(&inner, vec![Value::Int32(2)]),
                Value::Null,
                Value::Null,
            ],
        );
        const V2: (&str, &str) = ("field.syntax.version", "V2");
        let cases: &[(Props, SchemaRef, Value)] = &[
            (
                &[("field", "magic")],
                Schema::required(SchemaType::Int32),
                Value::Int32(42),
            ),
            (
                &[("field", "foo.bar"), V2],
                Schema::required(SchemaType::Int32),
                Value::Int32(2),
            ),
            (
                &[("field", "none.bar"), V2],
                Schema::required(SchemaType::Int32),
                Value::Null,
            ),
            (&[("field", "d")], with_default.clone(), Value::Int32(5)),
            (
                &[("field", "d"), ("replace.null.with.default", "false")],
                with_default.clone(),
                Value::Null,
            ),
        ];
        for (props, want_schema, want) in cases {
            let rec = record(None, Value::Null, Some(schema.clone()), value.clone());
            let out = apply(&VALUE_PLUGIN, props, rec).unwrap();
            assert_eq!(out.value_schema.as_ref(), Some(want_schema), "{props:?}");
            assert_eq!(out.value, *want, "{props:?}");
        }
        // A null value gives null with the field's schema.
        let rec = record(None, Value::Null, Some(schema.clone()), Value::Null);
        let out = apply(&VALUE_PLUGIN, &[("field", "foo.bar"), V2], rec).unwrap();
        assert_eq!(out.value_schema, Some(Schema::required(SchemaType::Int32)));
        assert_eq!(out.value, Value::Null);
        let errors: &[(Props, Option<SchemaRef>, Value, &str)] = &[
            (
                &[("field", "nope")],
                Some(schema.clone()),
                value.clone(),
                "Unknown field: nope",
            ),
            (
                &[("field", "foo.bar")],
                Some(schema.clone()),
                value.clone(),
                "Unknown field: foo.bar",
            ),
            (
                &[("field", "magic.x"), V2],
                Some(schema.clone()),
                value.clone(),
                "Cannot look up fields on non-struct type",
            ),
            (
                &[("field", "a")],
                Some(Schema::required(SchemaType::String)),
                "s".into(),
                "Only Struct objects supported for [field extraction], found: java.lang.String",
            ),
        ];
        for (props, schema, value, want) in errors {
            let rec = record(None, Value::Null, schema.clone(), value.clone());
            let err = apply(&VALUE_PLUGIN, props, rec).unwrap_err();
            assert_eq!(err.to_string(), *want, "{props:?}");
        }
    }
}
