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
        current = require_struct(sub, NESTED)?;
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
                    Some(require_struct(&value, PURPOSE)?)
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
