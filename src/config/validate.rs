//! Shared validation steps: parsing a `RawConfig` against a `ConfigDef` with located problems,
//! checking keys whose names are only known at run time, and warning about unknown keys.

use std::collections::HashSet;

use connect_api::config_def::parse_value;
use connect_api::{ConfigDef, ConfigIssue, ConfigType, ConfigValue, ConfigValues};

use super::error::{ConfigProblem, ConfigWarning};
use super::raw::RawConfig;

/// Key prefixes that are never "unknown": they are passed on to clients, converters,
/// transforms, predicates, config providers, the REST server or topic creation.
pub const KNOWN_PREFIXES: &[&str] = &[
    "producer.",
    "consumer.",
    "admin.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "transforms.",
    "predicates.",
    "config.providers.",
    "listeners.https.",
    "admin.listeners.https.",
    "topic.creation.",
    "producer.override.",
    "consumer.override.",
    "admin.override.",
    "offset.storage.",
    "config.storage.",
    "status.storage.",
    "ssl.",
    "sasl.",
];

/// Whether `key` starts with one of [`KNOWN_PREFIXES`].
pub fn has_known_prefix(key: &str) -> bool {
    KNOWN_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// Parses `raw` with `def`; problems are located through `raw`.
pub(crate) fn parse_def(
    raw: &RawConfig,
    def: &ConfigDef,
) -> (Option<ConfigValues>, Vec<ConfigProblem>) {
    match def.parse(&raw.to_map()) {
        Ok(values) => (Some(values), Vec::new()),
        Err(issues) => (
            None,
            issues
                .into_iter()
                .map(|i| ConfigProblem::from_issue(raw, i))
                .collect(),
        ),
    }
}

/// Checks a key whose name is built at run time (`transforms.<alias>.type`), which a
/// `ConfigDef` cannot hold (its names are `&'static str`). Same messages as `ConfigDef`.
pub(crate) fn check_dynamic(
    raw: &RawConfig,
    key: &str,
    config_type: ConfigType,
    required: bool,
    problems: &mut Vec<ConfigProblem>,
) -> Option<ConfigValue> {
    match raw.get(key) {
        Some(value) => match parse_value(key, config_type, value) {
            Ok(v) => Some(v),
            Err(issue) => {
                problems.push(ConfigProblem::from_issue(raw, issue));
                None
            }
        },
        None => {
            if required {
                problems.push(ConfigProblem::from_issue(
                    raw,
                    ConfigIssue::new(
                        key,
                        format!(
                            "Missing required configuration \"{key}\" which has no default value."
                        ),
                    ),
                ));
            }
            None
        }
    }
}

/// `Invalid value <v> for configuration <k>: <reason>` located at `key`.
pub(crate) fn invalid(raw: &RawConfig, key: &str, value: &str, reason: &str) -> ConfigProblem {
    ConfigProblem::for_key(
        raw.origin_or_source(key),
        key,
        format!("Invalid value {value} for configuration {key}: {reason}"),
    )
}

/// A message of a plugin's own `ConfigDef` or `configure` about its key `key`, rewritten to
/// name the full key under `prefix` (`spec` → `transforms.cast.spec`, `schemas.enable` →
/// `value.converter.schemas.enable`), as Kafka Connect's enriched definitions do.
pub fn with_full_key(message: &str, key: &str, prefix: &str) -> String {
    let full = format!("{prefix}{key}");
    message
        .replace(
            &format!("for configuration {key}:"),
            &format!("for configuration {full}:"),
        )
        .replace(&format!("\"{key}\""), &format!("\"{full}\""))
}

/// The key and message of an error of the converter configured by `class_key`
/// (`value.converter`): a converter setting's error is about `<class_key>.<setting>`, in the
/// converter's own words with the full key; any other error is about `class_key` itself.
pub fn converter_error(class_key: &str, error: &connect_api::ConnectError) -> (String, String) {
    match error {
        connect_api::ConnectError::Config { key, message } if !key.is_empty() => {
            let prefix = format!("{class_key}.");
            (
                format!("{prefix}{key}"),
                with_full_key(message, key, &prefix),
            )
        }
        other => (class_key.to_owned(), other.to_string()),
    }
}

/// Unknown keys of one source that get a "Did you mean" (the ones [`log_warnings`] shows, with
/// a margin): a suggestion costs an edit distance to every defined key, and a wrong file of
/// hundreds of thousands of keys must load in time linear in its size, with a small factor.
///
/// [`log_warnings`]: super::log_warnings
pub(crate) const MAX_SUGGESTED: usize = 2 * super::error::MAX_LOGGED_WARNINGS;

/// One warning per key of `raw` that `def` does not define, that has no known prefix and
/// that `special` does not explain; `special` may return its own message for a key. The
/// first [`MAX_SUGGESTED`] unknown keys get a "Did you mean" where one is close.
pub(crate) fn unknown_key_warnings(
    raw: &RawConfig,
    def: &ConfigDef,
    special: impl Fn(&str) -> Option<String>,
) -> Vec<ConfigWarning> {
    let defined: HashSet<&str> = def.keys().iter().map(|k| k.name).collect();
    let mut warnings = Vec::new();
    let mut unknown = 0usize;
    for (key, entry) in raw.iter() {
        let message = if let Some(m) = special(key) {
            m
        } else if defined.contains(key) || has_known_prefix(key) {
            continue;
        } else {
            unknown += 1;
            let hint = if unknown <= MAX_SUGGESTED {
                suggestion(key, def)
            } else {
                String::new()
            };
            format!("The configuration '{key}' was supplied but isn't a known config.{hint}")
        };
        warnings.push(ConfigWarning {
            origin: entry.origin.clone(),
            key: key.to_owned(),
            message,
        });
    }
    warnings
}

/// ` Did you mean 'x'?` for an unknown `key`: a defined key, or the key with a misspelled
/// known prefix corrected (`value.convertor.schemas.enable` → `value.converter.schemas.enable`).
fn suggestion(key: &str, def: &ConfigDef) -> String {
    let direct = crate::suggest::did_you_mean(key, def.keys().iter().map(|k| k.name));
    if !direct.is_empty() {
        return direct;
    }
    // Short prefixes (`ssl.`, `sasl.`) are one edit away from too many unrelated words.
    for prefix in KNOWN_PREFIXES.iter().filter(|p| p.len() >= 8) {
        let segments = prefix.matches('.').count();
        let Some((cut, _)) = key.match_indices('.').nth(segments - 1) else {
            continue;
        };
        let (head, rest) = key.split_at(cut + 1);
        if rest.is_empty() {
            continue;
        }
        if crate::suggest::closest(head, [*prefix]).is_some() {
            return format!(" Did you mean '{prefix}{rest}'?");
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::{config_def::Default, ConfigKey, Importance};

    #[test]
    fn unknown_keys_are_warned_with_their_line() {
        let mut raw = RawConfig::new("w.properties");
        raw.insert("known", "1", Some(1));
        raw.insert("consumer.max.poll.records", "5", Some(2));
        raw.insert("rest.port", "8083", Some(3));
        let def = ConfigDef::new().define(ConfigKey::new(
            "known",
            ConfigType::Int,
            Default::Null,
            Importance::Low,
            "",
        ));
        let w = unknown_key_warnings(&raw, &def, |_| None);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].key, "rest.port");
        assert_eq!(w[0].origin.line, Some(3));
        assert_eq!(
            w[0].message,
            "The configuration 'rest.port' was supplied but isn't a known config."
        );
    }

    #[test]
    fn misspelled_keys_and_prefixes_get_a_suggestion() {
        let mut raw = RawConfig::new("w.properties");
        raw.insert("knwon", "1", Some(1));
        raw.insert("value.convertor.schemas.enable", "false", Some(2));
        let def = ConfigDef::new().define(ConfigKey::new(
            "known",
            ConfigType::Int,
            Default::Null,
            Importance::Low,
            "",
        ));
        let w = unknown_key_warnings(&raw, &def, |_| None);
        assert!(
            w[0].message.ends_with(" Did you mean 'known'?"),
            "{}",
            w[0].message
        );
        assert!(
            w[1].message
                .ends_with(" Did you mean 'value.converter.schemas.enable'?"),
            "{}",
            w[1].message
        );
    }

    #[test]
    fn only_the_first_unknown_keys_get_a_suggestion() {
        let mut raw = RawConfig::new("w.properties");
        for i in 0..MAX_SUGGESTED + 2 {
            raw.insert(format!("knwon{i}"), "1", Some(i + 1));
        }
        let def = ConfigDef::new().define(ConfigKey::new(
            "known1",
            ConfigType::Int,
            Default::Null,
            Importance::Low,
            "",
        ));
        let w = unknown_key_warnings(&raw, &def, |_| None);
        assert_eq!(w.len(), MAX_SUGGESTED + 2);
        assert!(w[..MAX_SUGGESTED]
            .iter()
            .all(|w| w.message.ends_with(" Did you mean 'known1'?")));
        assert!(w[MAX_SUGGESTED..]
            .iter()
            .all(|w| w.message.ends_with("isn't a known config.")));
    }

    #[test]
    fn dynamic_keys_use_config_def_messages() {
        let mut raw = RawConfig::new("c.properties");
        raw.insert("transforms.a.negate", "maybe", Some(7));
        let mut problems = Vec::new();
        check_dynamic(
            &raw,
            "transforms.a.type",
            ConfigType::Class,
            true,
            &mut problems,
        );
        check_dynamic(
            &raw,
            "transforms.a.negate",
            ConfigType::Boolean,
            false,
            &mut problems,
        );
        assert_eq!(
            problems[0].message,
            "Missing required configuration \"transforms.a.type\" which has no default value."
        );
        assert_eq!(problems[0].origin.line, None);
        assert_eq!(problems[1].origin.line, Some(7));
        assert!(problems[1]
            .message
            .ends_with("Expected value to be either true or false"));
    }
}
