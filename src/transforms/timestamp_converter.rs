//! `org.apache.kafka.connect.transforms.TimestampConverter$Key` / `$Value`: converts a
//! timestamp (the whole key/value or one top-level field) between a formatted string, Unix time
//! (`unix.precision`), and the Connect Date, Time and Timestamp logical types, in UTC.
//!
//! Without a schema, Date/Time/Timestamp results are their raw representations (INT32 days,
//! INT32 milliseconds of the day, INT64 milliseconds): connect-rs values carry no Java `Date`.

use connect_api::config_def::Default as Def;
use connect_api::{
    logical, ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, Schema, SchemaBuilder, SchemaRef, SchemaType, Struct, Transformation,
    TransformationPlugin, Validator, Value,
};

use crate::transforms::config::{one_of_exact, parse_checked};
use crate::transforms::date_format::{PatternError, SimpleDateFormat, SUPPORTED_LETTERS};
use crate::transforms::util::{
    check_required, copy_schema_basics, field_value, java_class_name, require_map, require_struct,
    SchemaCache, Side,
};
use connect_api::java_fmt::MILLIS_PER_DAY;

const PURPOSE: &str = "converting timestamp formats";
const TYPES: [&str; 5] = ["string", "unix", "Date", "Time", "Timestamp"];
const PRECISIONS: [&str; 4] = ["nanoseconds", "microseconds", "milliseconds", "seconds"];

/// A timestamp representation (`target.type`, or the input's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Unix,
    Date,
    Time,
    Timestamp,
}

impl Kind {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "string" => Self::String,
            "unix" => Self::Unix,
            "Date" => Self::Date,
            "Time" => Self::Time,
            "Timestamp" => Self::Timestamp,
            _ => return None,
        })
    }

    fn schema(self, optional: bool) -> SchemaRef {
        let builder = match self {
            Self::String => SchemaBuilder::new(SchemaType::String),
            Self::Unix => SchemaBuilder::new(SchemaType::Int64),
            Self::Date => logical::date(),
            Self::Time => logical::time(),
            Self::Timestamp => logical::timestamp(),
        };
        if optional {
            builder.optional().build()
        } else {
            builder.build()
        }
    }

    /// Kafka's `timestampTypeFromSchema`.
    fn of_schema(schema: &Schema) -> Result<Self> {
        match (schema.name.as_deref(), schema.schema_type) {
            (Some(logical::TIMESTAMP), _) => Ok(Self::Timestamp),
            (Some(logical::DATE), _) => Ok(Self::Date),
            (Some(logical::TIME), _) => Ok(Self::Time),
            (_, SchemaType::String) => Ok(Self::String),
            (_, SchemaType::Int64) => Ok(Self::Unix),
            (name, t) => Err(ConnectError::Other(format!(
                "Schema Schema{{{}{}}} does not correspond to a known timestamp type format",
                name.map(|n| format!("{n}:")).unwrap_or_default(),
                t.name()
            ))),
        }
    }

    /// Kafka's `inferTimestampType` for schemaless values.
    fn of_value(value: &Value) -> Result<Self> {
        match value {
            Value::Int64(_) => Ok(Self::Unix),
            Value::String(_) => Ok(Self::String),
            other => Err(ConnectError::data(format!(
                "TimestampConverter does not support class {} objects as timestamps",
                java_class_name(other)
            ))),
        }
    }
}

/// `unix.precision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Precision {
    Seconds,
    Millis,
    Micros,
    Nanos,
}

/// The TimestampConverter transform, for the key or the value.
#[derive(Debug)]
pub struct TimestampConverter {
    side: Side,
    field: String,
    target: Kind,
    format: Option<SimpleDateFormat>,
    precision: Precision,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

fn class_of(value: &Value) -> String {
    format!("class {}", java_class_name(value))
}

impl TimestampConverter {
    fn new(side: Side) -> Self {
        Self {
            side,
            field: String::new(),
            target: Kind::Timestamp,
            format: None,
            precision: Precision::Millis,
            replace_null_with_default: true,
            cache: SchemaCache::default(),
        }
    }

    /// Epoch milliseconds of a timestamp of `kind` (Kafka's `toRaw`).
    fn to_raw(&self, kind: Kind, value: &Value) -> Result<i64> {
        let expected = |what: &str| {
            ConnectError::data(format!("Expected {what}, but found {}", class_of(value)))
        };
        match (kind, value) {
            (Kind::String, Value::String(s)) => {
                let format = self.format.as_ref().ok_or_else(|| {
                    ConnectError::Other(
                        "Cannot invoke \"java.text.SimpleDateFormat.parse(String)\" because \
                         \"config.format\" is null"
                            .to_owned(),
                    )
                })?;
                format.parse(s).ok_or_else(|| {
                    ConnectError::data(format!(
                        "Could not parse timestamp: value ({s}) does not match pattern ({})",
                        format.pattern()
                    ))
                })
            }
            (Kind::String, _) => Err(expected("string timestamp to be a String")),
            (Kind::Unix, Value::Int64(x)) => Ok(match self.precision {
                Precision::Seconds => x.saturating_mul(1000),
                Precision::Millis => *x,
                Precision::Micros => x / 1000,
                Precision::Nanos => x / 1_000_000,
            }),
            (Kind::Unix, _) => Err(expected("Unix timestamp to be a Long")),
            (Kind::Date, Value::Int32(days)) => Ok(i64::from(*days) * MILLIS_PER_DAY),
            (Kind::Date, _) => Err(expected("Date to be a java.util.Date")),
            (Kind::Time, Value::Int32(ms)) => Ok(i64::from(*ms)),
            (Kind::Time, _) => Err(expected("Time to be a java.util.Date")),
            (Kind::Timestamp, Value::Int64(ms)) => Ok(*ms),
            (Kind::Timestamp, _) => Err(expected("Timestamp to be a java.util.Date")),
        }
    }

    /// The target representation of epoch milliseconds (Kafka's `toType`).
    fn to_type(&self, millis: i64) -> Value {
        match self.target {
            Kind::String => Value::String(
                self.format
                    .as_ref()
                    .map(|f| f.format(millis))
                    .unwrap_or_default(),
            ),
            Kind::Unix => Value::Int64(match self.precision {
                Precision::Seconds => millis / 1000,
                Precision::Millis => millis,
                Precision::Micros => millis.saturating_mul(1000),
                Precision::Nanos => millis.saturating_mul(1_000_000),
            }),
            Kind::Date => Value::Int32(millis.div_euclid(MILLIS_PER_DAY) as i32),
            Kind::Time => Value::Int32(millis.rem_euclid(MILLIS_PER_DAY) as i32),
            Kind::Timestamp => Value::Int64(millis),
        }
    }

    /// Kafka's `convertTimestamp`: `kind` None infers it from the value.
    fn convert(&self, value: &Value, kind: Option<Kind>) -> Result<Value> {
        if value.is_null() {
            return Ok(Value::Null);
        }
        let kind = match kind {
            Some(k) => k,
            None => Kind::of_value(value)?,
        };
        Ok(self.to_type(self.to_raw(kind, value)?))
    }

    fn convert_struct(&self, value: &Struct, updated: &SchemaRef) -> Result<Struct> {
        let mut values = Vec::with_capacity(value.schema().fields.len());
        for field in &value.schema().fields {
            let v = field_value(value, field, self.replace_null_with_default);
            let v = if field.name == self.field {
                self.convert(&v, Some(Kind::of_schema(&field.schema)?))?
            } else {
                v.clone()
            };
            if let Some(out) = updated.field(&field.name) {
                check_required(out, &v)?;
            }
            values.push(v);
        }
        Struct::from_values(updated.clone(), values)
    }

    fn build_schema(&self, schema: &SchemaRef) -> Result<SchemaRef> {
        if schema.schema_type != SchemaType::Struct {
            return Err(ConnectError::data("Cannot list fields on non-struct type"));
        }
        let mut builder = copy_schema_basics(schema, SchemaBuilder::struct_());
        for field in &schema.fields {
            let field_schema = if field.name == self.field {
                self.target.schema(field.schema.optional)
            } else {
                field.schema.clone()
            };
            builder = builder.field(field.name.clone(), field_schema);
        }
        if schema.optional {
            builder = builder.optional();
        }
        if let Some(Value::Struct(default)) = &schema.default {
            let without_default = builder.clone().build();
            let converted = self.convert_struct(default, &without_default)?;
            builder = builder.default_value(Value::Struct(converted));
        }
        Ok(builder.build())
    }

    fn apply_with_schema(&mut self, schema: SchemaRef, value: Value) -> Result<(SchemaRef, Value)> {
        if self.field.is_empty() {
            let kind = Kind::of_schema(&schema)?;
            let updated = self.target.schema(schema.optional);
            return Ok((updated, self.convert(&value, Some(kind))?));
        }
        if !value.is_null() {
            require_struct(&value, Some(&schema), PURPOSE)?;
        }
        let updated = {
            let mut cache = std::mem::take(&mut self.cache);
            let r = cache.get_or_build(&schema, |s| self.build_schema(s));
            self.cache = cache;
            r?
        };
        match &value {
            Value::Struct(s) => {
                let converted = self.convert_struct(s, &updated)?;
                Ok((updated, Value::Struct(converted)))
            }
            _ => Ok((updated, Value::Null)),
        }
    }

    fn apply_schemaless(&self, value: Value) -> Result<Value> {
        if value.is_null() || self.field.is_empty() {
            return self.convert(&value, None);
        }
        let entries = require_map(&value, PURPOSE)?;
        let mut updated = entries.to_vec();
        let pos = updated
            .iter()
            .position(|(k, _)| k.as_str() == Some(&self.field));
        let converted = self.convert(pos.map_or(&Value::Null, |i| &updated[i].1), None)?;
        match pos {
            Some(i) => updated[i].1 = converted,
            None => updated.push((Value::String(self.field.clone()), converted)),
        }
        Ok(Value::Map(updated))
    }
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "field",
            ConfigType::String,
            Def::Value(""),
            Importance::High,
            "The field containing the timestamp, or empty if the entire value is a timestamp",
        ))
        .define(
            ConfigKey::new(
                "target.type",
                ConfigType::String,
                Def::Required,
                Importance::High,
                "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
            )
            .validator(Validator::OneOf(&TYPES)),
        )
        .define(ConfigKey::new(
            "format",
            ConfigType::String,
            Def::Value(""),
            Importance::Medium,
            "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output \
             when type=string or used to parse the input if the input is a string.",
        ))
        .define(
            ConfigKey::new(
                "unix.precision",
                ConfigType::String,
                Def::Value("milliseconds"),
                Importance::Low,
                "The desired Unix precision for the timestamp: seconds, milliseconds, \
                 microseconds, or nanoseconds. Used to generate the output when type=unix or \
                 used to parse the input if the input is a Long.Note: This SMT will cause \
                 precision loss during conversions from, and to, values with sub-millisecond \
                 components.",
            )
            .validator(Validator::OneOf(&PRECISIONS)),
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

impl Transformation for TimestampConverter {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse_checked(&config_def(), props, |key, raw| match key {
            "target.type" => one_of_exact(key, raw, &TYPES),
            "unix.precision" => one_of_exact(key, raw, &PRECISIONS),
            _ => None,
        })?;
        self.field = values.string("field").unwrap_or_default().to_owned();
        let target = values.string("target.type").unwrap_or_default();
        self.target = Kind::from_name(target).ok_or_else(|| {
            ConnectError::config("target.type", format!("unknown target.type {target}"))
        })?;
        self.precision = match values.string("unix.precision") {
            Some("seconds") => Precision::Seconds,
            Some("microseconds") => Precision::Micros,
            Some("nanoseconds") => Precision::Nanos,
            _ => Precision::Millis,
        };
        self.replace_null_with_default =
            values.boolean("replace.null.with.default").unwrap_or(true);
        let pattern = values.string("format").unwrap_or_default();
        if self.target == Kind::String && pattern.trim().is_empty() {
            return Err(ConnectError::config(
                "format",
                "TimestampConverter requires format option to be specified when using string \
                 timestamps",
            ));
        }
        self.format = if pattern.trim().is_empty() {
            None
        } else {
            Some(SimpleDateFormat::new(pattern).map_err(|e| match e {
                PatternError::Invalid(m) => ConnectError::config(
                    "format",
                    format!(
                        "Invalid value java.lang.IllegalArgumentException: {m} for configuration \
                         TimestampConverter requires a SimpleDateFormat-compatible pattern for \
                         string timestamps: {pattern}"
                    ),
                ),
                PatternError::Unsupported(c) => ConnectError::config(
                    "format",
                    format!(
                        "Invalid value {pattern} for configuration format: pattern letter '{c}' \
                         is not supported by connect-rs (supported: {SUPPORTED_LETTERS})"
                    ),
                ),
            })?)
        };
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        let (schema, value) = self.side.take(&mut record);
        let (schema, value) = match schema {
            None => (None, self.apply_schemaless(value)?),
            Some(schema) => {
                let (s, v) = self.apply_with_schema(schema, value)?;
                (Some(s), v)
            }
        };
        self.side.set(&mut record, schema, value);
        Ok(Some(record))
    }
}

/// The plugin descriptor of `TimestampConverter$Key`.
pub const KEY_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.TimestampConverter$Key",
    config_def,
    new: || Box::new(TimestampConverter::new(Side::Key)),
};

/// The plugin descriptor of `TimestampConverter$Value`.
pub const VALUE_PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.TimestampConverter$Value",
    config_def,
    new: || Box::new(TimestampConverter::new(Side::Value)),
};

#[cfg(test)]
mod tests;
