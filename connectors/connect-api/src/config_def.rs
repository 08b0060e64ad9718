//! ConfigDef: configuration keys as data (type, default, validator, importance, doc, group),
//! parsed all at once so that every problem is reported together. Messages follow Kafka's
//! `ConfigDef` and `ConfigException`.

use std::collections::BTreeMap;

use crate::ConfigMap;

/// The type of a configuration value (Kafka's `ConfigDef.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigType {
    /// `true` or `false`, case-insensitive.
    Boolean,
    /// Any string.
    String,
    /// 32-bit integer.
    Int,
    /// 16-bit integer.
    Short,
    /// 64-bit integer.
    Long,
    /// 64-bit float.
    Double,
    /// Comma-separated list (entries trimmed, empty string = empty list).
    List,
    /// A class name (Java class name or connect-rs alias).
    Class,
    /// A secret: shown as `[hidden]`.
    Password,
}

impl ConfigType {
    /// Kafka's upper-case name (`INT`, `STRING`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Boolean => "BOOLEAN",
            Self::String => "STRING",
            Self::Int => "INT",
            Self::Short => "SHORT",
            Self::Long => "LONG",
            Self::Double => "DOUBLE",
            Self::List => "LIST",
            Self::Class => "CLASS",
            Self::Password => "PASSWORD",
        }
    }
}

/// How important a key is (Kafka's `ConfigDef.Importance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Importance {
    /// High.
    High,
    /// Medium.
    Medium,
    /// Low.
    Low,
}

/// The default of a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Default {
    /// No default: the key is required.
    Required,
    /// The default is null (absent).
    Null,
    /// The default, as text parsed like a supplied value.
    Value(&'static str),
}

/// A check on a parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Validator {
    /// Numeric range, inclusive.
    Range {
        /// Lower bound.
        min: Option<f64>,
        /// Upper bound.
        max: Option<f64>,
    },
    /// One of these strings, case-insensitive.
    OneOf(&'static [&'static str]),
    /// A non-empty string.
    NonEmptyString,
    /// A valid regular expression is checked by the runtime; here only non-empty.
    NonEmptyList,
}

impl Validator {
    /// At least `min`.
    pub fn at_least(min: f64) -> Self {
        Self::Range {
            min: Some(min),
            max: None,
        }
    }

    fn check(&self, value: &ConfigValue) -> Option<String> {
        match (self, value) {
            (_, ConfigValue::Null) => None,
            (Self::Range { min, max }, v) => {
                let x = v.as_f64()?;
                if let Some(min) = min {
                    if x < *min {
                        return Some(format!("Value must be at least {}", fmt_bound(*min)));
                    }
                }
                if let Some(max) = max {
                    if x > *max {
                        return Some(format!("Value must be no more than {}", fmt_bound(*max)));
                    }
                }
                None
            }
            (Self::OneOf(allowed), ConfigValue::String(s)) => {
                if allowed.iter().any(|a| a.eq_ignore_ascii_case(s)) {
                    None
                } else {
                    Some(format!("String must be one of: {}", allowed.join(", ")))
                }
            }
            (Self::NonEmptyString, ConfigValue::String(s)) if s.trim().is_empty() => {
                Some("String must be non-empty".to_owned())
            }
            (Self::NonEmptyList, ConfigValue::List(l)) if l.is_empty() => {
                Some("Empty list".to_owned())
            }
            _ => None,
        }
    }
}

fn fmt_bound(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

/// One configuration key.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigKey {
    /// Key name.
    pub name: &'static str,
    /// Type.
    pub config_type: ConfigType,
    /// Default.
    pub default: Default,
    /// Optional check.
    pub validator: Option<Validator>,
    /// Importance.
    pub importance: Importance,
    /// Documentation.
    pub doc: &'static str,
    /// Group name, if any.
    pub group: Option<&'static str>,
    /// Position within the group (Kafka's `orderInGroup`); -1 when unordered.
    pub order_in_group: i32,
    /// Display width hint.
    pub width: Width,
    /// Display name; the key name when unset.
    pub display_name: Option<&'static str>,
}

/// Kafka's `ConfigDef.Width`: how wide a UI should show a key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// `NONE` (the default).
    None,
    /// `SHORT`.
    Short,
    /// `MEDIUM`.
    Medium,
    /// `LONG`.
    Long,
}

impl Width {
    /// The upper-case name Kafka Connect's REST API reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "NONE",
            Self::Short => "SHORT",
            Self::Medium => "MEDIUM",
            Self::Long => "LONG",
        }
    }
}

impl ConfigKey {
    /// A key with the given type, default, importance and doc.
    pub fn new(
        name: &'static str,
        config_type: ConfigType,
        default: Default,
        importance: Importance,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            config_type,
            default,
            validator: None,
            importance,
            doc,
            group: None,
            order_in_group: -1,
            width: Width::None,
            display_name: None,
        }
    }

    /// Adds a validator.
    pub fn validator(mut self, validator: Validator) -> Self {
        self.validator = Some(validator);
        self
    }

    /// Sets the group.
    pub fn group(mut self, group: &'static str) -> Self {
        self.group = Some(group);
        self
    }

    /// Sets the group and the position within it (Kafka's `group` + `orderInGroup`).
    pub fn in_group(mut self, group: &'static str, order: i32) -> Self {
        self.group = Some(group);
        self.order_in_group = order;
        self
    }

    /// Sets the display width and name (Kafka's `width` + `displayName`).
    pub fn display(mut self, width: Width, display_name: &'static str) -> Self {
        self.width = width;
        self.display_name = Some(display_name);
        self
    }
}

/// A parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigValue {
    /// Absent and defaulting to null.
    Null,
    /// BOOLEAN.
    Boolean(bool),
    /// STRING or CLASS.
    String(String),
    /// INT.
    Int(i32),
    /// SHORT.
    Short(i16),
    /// LONG.
    Long(i64),
    /// DOUBLE.
    Double(f64),
    /// LIST.
    List(Vec<String>),
    /// PASSWORD (prints as `[hidden]`).
    Password(String),
}

impl ConfigValue {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Int(x) => Some(f64::from(*x)),
            Self::Short(x) => Some(f64::from(*x)),
            Self::Long(x) => Some(*x as f64),
            Self::Double(x) => Some(*x),
            _ => None,
        }
    }
}

impl std::fmt::Display for ConfigValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Null => f.write_str("null"),
            Self::Boolean(b) => write!(f, "{b}"),
            Self::String(s) => f.write_str(s),
            Self::Int(x) => write!(f, "{x}"),
            Self::Short(x) => write!(f, "{x}"),
            Self::Long(x) => write!(f, "{x}"),
            Self::Double(x) => write!(f, "{x}"),
            Self::List(l) => f.write_str(&l.join(",")),
            Self::Password(_) => f.write_str("[hidden]"),
        }
    }
}

/// A problem with one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    /// The key.
    pub key: String,
    /// The message, in Kafka's words, e.g.
    /// `Invalid value abc for configuration tasks.max: Not a number of type INT`.
    pub message: String,
}

impl ConfigIssue {
    /// An issue for `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parsed values of the keys of a [`ConfigDef`], plus the original properties.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConfigValues {
    values: BTreeMap<&'static str, ConfigValue>,
    originals: ConfigMap,
}

impl ConfigValues {
    /// The parsed value of `key` (Null when absent with a null default or unknown).
    pub fn get(&self, key: &str) -> &ConfigValue {
        self.values.get(key).unwrap_or(&ConfigValue::Null)
    }

    /// A STRING, CLASS or PASSWORD value.
    pub fn string(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            ConfigValue::String(s) | ConfigValue::Password(s) => Some(s),
            _ => None,
        }
    }

    /// An INT, SHORT or LONG value as i64.
    pub fn long(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            ConfigValue::Int(x) => Some(i64::from(*x)),
            ConfigValue::Short(x) => Some(i64::from(*x)),
            ConfigValue::Long(x) => Some(*x),
            _ => None,
        }
    }

    /// An INT value.
    pub fn int(&self, key: &str) -> Option<i32> {
        match self.get(key) {
            ConfigValue::Int(x) => Some(*x),
            _ => None,
        }
    }

    /// A BOOLEAN value.
    pub fn boolean(&self, key: &str) -> Option<bool> {
        match self.get(key) {
            ConfigValue::Boolean(b) => Some(*b),
            _ => None,
        }
    }

    /// A LIST value (empty when null).
    pub fn list(&self, key: &str) -> &[String] {
        match self.get(key) {
            ConfigValue::List(l) => l,
            _ => &[],
        }
    }

    /// The properties as given.
    pub fn originals(&self) -> &ConfigMap {
        &self.originals
    }

    /// Properties that start with `prefix`, with the prefix removed.
    pub fn originals_with_prefix(&self, prefix: &str) -> ConfigMap {
        self.originals
            .iter()
            .filter_map(|(k, v)| k.strip_prefix(prefix).map(|s| (s.to_owned(), v.clone())))
            .collect()
    }
}

/// A set of configuration keys.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConfigDef {
    keys: Vec<ConfigKey>,
}

impl ConfigDef {
    /// An empty definition.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a key (a later key with the same name replaces the earlier one).
    pub fn define(mut self, key: ConfigKey) -> Self {
        self.keys.retain(|k| k.name != key.name);
        self.keys.push(key);
        self
    }

    /// Sets the default of the key `name`, in place (no change when it is not defined).
    pub fn with_default(mut self, name: &str, default: Default) -> Self {
        if let Some(key) = self.keys.iter_mut().find(|k| k.name == name) {
            key.default = default;
        }
        self
    }

    /// Adds every key of `other` that is not defined yet.
    pub fn merge(mut self, other: &ConfigDef) -> Self {
        for key in &other.keys {
            if self.key(key.name).is_none() {
                self.keys.push(key.clone());
            }
        }
        self
    }

    /// The keys in definition order.
    pub fn keys(&self) -> &[ConfigKey] {
        &self.keys
    }

    /// The key called `name`.
    pub fn key(&self, name: &str) -> Option<&ConfigKey> {
        self.keys.iter().find(|k| k.name == name)
    }

    /// Parses and validates `props`; returns every problem at once.
    ///
    /// # Errors
    /// All issues found, one per bad key, in definition order.
    pub fn parse(&self, props: &ConfigMap) -> Result<ConfigValues, Vec<ConfigIssue>> {
        let mut values = BTreeMap::new();
        let mut issues = Vec::new();
        for key in &self.keys {
            let parsed = match (props.get(key.name), &key.default) {
                (Some(raw), _) => parse_value(key.name, key.config_type, raw),
                (None, Default::Required) => Err(ConfigIssue::new(
                    key.name,
                    format!(
                        "Missing required configuration \"{}\" which has no default value.",
                        key.name
                    ),
                )),
                (None, Default::Null) => Ok(ConfigValue::Null),
                (None, Default::Value(d)) => parse_value(key.name, key.config_type, d),
            };
            match parsed {
                Ok(value) => {
                    if let Some(reason) = key.validator.as_ref().and_then(|v| v.check(&value)) {
                        let shown = if key.config_type == ConfigType::Password {
                            "[hidden]".to_owned()
                        } else {
                            props
                                .get(key.name)
                                .cloned()
                                .unwrap_or_else(|| value.to_string())
                        };
                        issues.push(ConfigIssue::new(
                            key.name,
                            format!(
                                "Invalid value {shown} for configuration {}: {reason}",
                                key.name
                            ),
                        ));
                    }
                    values.insert(key.name, value);
                }
                Err(issue) => issues.push(issue),
            }
        }
        if issues.is_empty() {
            Ok(ConfigValues {
                values,
                originals: props.clone(),
            })
        } else {
            Err(issues)
        }
    }
}

/// Parses one raw value as `config_type`, with Kafka's error messages.
///
/// # Errors
/// An issue naming the key and the expected type.
pub fn parse_value(
    key: &str,
    config_type: ConfigType,
    raw: &str,
) -> Result<ConfigValue, ConfigIssue> {
    let trimmed = raw.trim();
    let invalid = |reason: String| {
        let shown = if config_type == ConfigType::Password {
            "[hidden]"
        } else {
            raw
        };
        ConfigIssue::new(
            key,
            format!("Invalid value {shown} for configuration {key}: {reason}"),
        )
    };
    let number = |_: std::num::ParseIntError| {
        invalid(format!("Not a number of type {}", config_type.name()))
    };
    Ok(match config_type {
        ConfigType::Boolean => {
            if trimmed.eq_ignore_ascii_case("true") {
                ConfigValue::Boolean(true)
            } else if trimmed.eq_ignore_ascii_case("false") {
                ConfigValue::Boolean(false)
            } else {
                return Err(invalid(
                    "Expected value to be either true or false".to_owned(),
                ));
            }
        }
        ConfigType::String => ConfigValue::String(trimmed.to_owned()),
        ConfigType::Class => {
            if trimmed.is_empty() {
                return Err(invalid("Class name may not be empty".to_owned()));
            }
            ConfigValue::String(trimmed.to_owned())
        }
        ConfigType::Password => ConfigValue::Password(raw.to_owned()),
        ConfigType::Int => ConfigValue::Int(trimmed.parse().map_err(number)?),
        ConfigType::Short => ConfigValue::Short(trimmed.parse().map_err(number)?),
        ConfigType::Long => ConfigValue::Long(trimmed.parse().map_err(number)?),
        ConfigType::Double => ConfigValue::Double(
            trimmed
                .parse()
                .map_err(|_| invalid("Not a number of type DOUBLE".to_owned()))?,
        ),
        ConfigType::List => ConfigValue::List(if trimmed.is_empty() {
            Vec::new()
        } else {
            trimmed.split(',').map(|s| s.trim().to_owned()).collect()
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> ConfigDef {
        ConfigDef::new()
            .define(
                ConfigKey::new(
                    "name",
                    ConfigType::String,
                    Default::Required,
                    Importance::High,
                    "",
                )
                .validator(Validator::NonEmptyString),
            )
            .define(
                ConfigKey::new(
                    "tasks.max",
                    ConfigType::Int,
                    Default::Value("1"),
                    Importance::High,
                    "",
                )
                .validator(Validator::at_least(1.0)),
            )
            .define(ConfigKey::new(
                "flag",
                ConfigType::Boolean,
                Default::Value("false"),
                Importance::Low,
                "",
            ))
            .define(ConfigKey::new(
                "secret",
                ConfigType::Password,
                Default::Null,
                Importance::Low,
                "",
            ))
            .define(ConfigKey::new(
                "topics",
                ConfigType::List,
                Default::Value(""),
                Importance::Low,
                "",
            ))
    }

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn defaults_apply_and_types_parse() {
        let v = def()
            .parse(&props(&[("name", "x"), ("topics", "a, b")]))
            .unwrap();
        assert_eq!(v.int("tasks.max"), Some(1));
        assert_eq!(v.boolean("flag"), Some(false));
        assert_eq!(v.list("topics"), ["a", "b"]);
        assert_eq!(v.get("secret"), &ConfigValue::Null);
    }

    #[test]
    fn every_problem_is_reported_at_once_in_kafka_words() {
        let issues = def()
            .parse(&props(&[("tasks.max", "abc"), ("flag", "yes")]))
            .unwrap_err();
        let messages: Vec<_> = issues.iter().map(|i| i.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Missing required configuration \"name\" which has no default value.",
                "Invalid value abc for configuration tasks.max: Not a number of type INT",
                "Invalid value yes for configuration flag: Expected value to be either true or false",
            ]
        );
    }

    #[test]
    fn validators_name_the_bound() {
        let issues = def()
            .parse(&props(&[("name", "x"), ("tasks.max", "0")]))
            .unwrap_err();
        assert_eq!(
            issues[0].message,
            "Invalid value 0 for configuration tasks.max: Value must be at least 1"
        );
    }

    #[test]
    fn passwords_never_print() {
        let v = def()
            .parse(&props(&[("name", "x"), ("secret", "s3cr3t")]))
            .unwrap();
        assert_eq!(v.get("secret").to_string(), "[hidden]");
        assert_eq!(v.string("secret"), Some("s3cr3t"));
    }
}
