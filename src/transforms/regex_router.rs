//! `org.apache.kafka.connect.transforms.RegexRouter`: when `regex` matches the whole topic, the
//! topic becomes Java's `Matcher.replaceFirst(replacement)` of it (`$1`, `${name}`, `\` escapes).

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    RecordContext, Result, Transformation, TransformationPlugin,
};
use regex::{Captures, Regex};

use crate::transforms::config::parse_checked;

/// The RegexRouter transform.
#[derive(Debug, Default)]
pub struct RegexRouter {
    /// `regex` anchored at both ends (Java's `matches()`).
    whole: Option<Regex>,
    /// `regex` as given (Java's `replaceFirst` searches for the first match).
    first: Option<Regex>,
    replacement: String,
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "regex",
            ConfigType::String,
            Def::Required,
            Importance::High,
            "Regular expression to use for matching.",
        ))
        .define(ConfigKey::new(
            "replacement",
            ConfigType::String,
            Def::Required,
            Importance::High,
            "Replacement string.",
        ))
}

fn compile(pattern: &str) -> std::result::Result<(Regex, Regex), regex::Error> {
    Ok((
        Regex::new(&format!("^(?:{pattern})$"))?,
        Regex::new(pattern)?,
    ))
}

/// Expands a Java `Matcher.appendReplacement` replacement string for one match.
fn expand(regex: &Regex, caps: &Captures<'_>, replacement: &str) -> Result<String> {
    let illegal = |m: String| ConnectError::Other(m);
    let group_count = regex.captures_len() - 1;
    let mut out = String::new();
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) => out.push(escaped),
                None => return Err(illegal("character to be escaped is missing".into())),
            },
            '$' => {
                let group = match chars.peek() {
                    None => {
                        return Err(illegal(
                            "Illegal group reference: group index is missing".into(),
                        ))
                    }
                    Some('{') => {
                        chars.next();
                        let mut name = String::new();
                        loop {
                            match chars.next() {
                                Some('}') => break,
                                Some(ch) if ch.is_ascii_alphanumeric() => name.push(ch),
                                _ => {
                                    return Err(illegal(
                                        "named capturing group is missing trailing '}'".into(),
                                    ))
                                }
                            }
                        }
                        if name.is_empty() {
                            return Err(illegal("named capturing group has 0 length name".into()));
                        }
                        if name.starts_with(|ch: char| ch.is_ascii_digit()) {
                            return Err(illegal(format!(
                                "capturing group name {{{name}}} starts with digit character"
                            )));
                        }
                        caps.name(&name)
                            .map(|m| m.as_str())
                            .or_else(|| {
                                regex
                                    .capture_names()
                                    .any(|n| n == Some(name.as_str()))
                                    .then_some("")
                            })
                            .ok_or_else(|| illegal(format!("No group with name {{{name}}}")))?
                    }
                    Some(d) if d.is_ascii_digit() => {
                        let mut number = d.to_digit(10).unwrap_or(0) as usize;
                        chars.next();
                        if number > group_count {
                            return Err(ConnectError::Other(format!("No group {number}")));
                        }
                        while let Some(next) = chars.peek().and_then(|ch| ch.to_digit(10)) {
                            let longer = number * 10 + next as usize;
                            if longer > group_count {
                                break;
                            }
                            number = longer;
                            chars.next();
                        }
                        caps.get(number).map_or("", |m| m.as_str())
                    }
                    Some(_) => return Err(illegal("Illegal group reference".into())),
                };
                out.push_str(group);
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

impl Transformation for RegexRouter {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse_checked(&config_def(), props, |key, raw| {
            let raw = raw.trim();
            match (key, compile(raw)) {
                ("regex", Err(e)) => Some(format!(
                    "Invalid value {raw} for configuration regex: Invalid regex: {e}"
                )),
                _ => None,
            }
        })?;
        let pattern = values.string("regex").unwrap_or_default();
        let (whole, first) = compile(pattern)
            .map_err(|e| ConnectError::config("regex", format!("Invalid regex: {e}")))?;
        self.whole = Some(whole);
        self.first = Some(first);
        self.replacement = values.string("replacement").unwrap_or_default().to_owned();
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        let (Some(whole), Some(first)) = (&self.whole, &self.first) else {
            return Ok(Some(record));
        };
        if !whole.is_match(&record.topic) {
            return Ok(Some(record));
        }
        if let Some(caps) = first.captures(&record.topic) {
            let m = caps.get(0).map_or(0..0, |m| m.range());
            let replaced = expand(first, &caps, &self.replacement)?;
            let topic = format!(
                "{}{replaced}{}",
                &record.topic[..m.start],
                &record.topic[m.end..]
            );
            record.topic = topic;
        }
        Ok(Some(record))
    }
}

/// The plugin descriptor.
pub const PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.RegexRouter",
    config_def,
    new: || Box::<RegexRouter>::default(),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(pairs: &[(&str, &str)]) -> Result<Box<dyn Transformation>> {
        let mut t = (PLUGIN.new)();
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        t.configure(&props).map(|()| t)
    }

    fn route(regex: &str, replacement: &str, topic: &str) -> Result<String> {
        let mut t = configured(&[("regex", regex), ("replacement", replacement)])?;
        let record = ConnectRecord {
            topic: topic.into(),
            ..ConnectRecord::default()
        };
        Ok(t.apply(record, &RecordContext::source())?.unwrap().topic)
    }

    #[test]
    fn rewrites_fully_matching_topics_like_java_replace_first() {
        let cases = [
            ("(.*)-(\\d+)", "$2-$1", "orders-7", "7-orders"),
            ("(.*)-(\\d+)", "$2-$1", "orders", "orders"),
            ("ord", "x", "orders", "orders"),
            ("(?P<t>.*)s", "${t}_topic", "orders", "order_topic"),
            ("a|ab", "X", "ab", "Xb"),
            ("(a)(b)?c", "[$2]", "ac", "[]"),
            ("(a)", "$12", "a", "a2"),
            ("(a)", "\\$1 \\\\", "a", "$1 \\"),
            ("prefix\\.(.*)", "$1", "prefix.events", "events"),
        ];
        for (regex, replacement, topic, expected) in cases {
            assert_eq!(
                route(regex, replacement, topic).unwrap(),
                expected,
                "{regex} {replacement} {topic}"
            );
        }
    }

    #[test]
    fn bad_replacements_fail_when_applied() {
        let cases = [
            ("(a)", "$2", "No group 2"),
            ("(a)", "$x", "Illegal group reference"),
            ("(a)", "x\\", "character to be escaped is missing"),
            ("(a)", "${nope}", "No group with name {nope}"),
        ];
        for (regex, replacement, message) in cases {
            let e = route(regex, replacement, "a").unwrap_err().to_string();
            assert_eq!(e, message, "{replacement}");
        }
    }

    #[test]
    fn configuration_errors_name_the_key() {
        let e = configured(&[("replacement", "x")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("\"regex\" which has no default value"), "{e}");
        let e = configured(&[("regex", "x")]).err().unwrap().to_string();
        assert!(
            e.contains("\"replacement\" which has no default value"),
            "{e}"
        );
        let e = configured(&[("regex", "("), ("replacement", "x")])
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("Invalid value ( for configuration regex: Invalid regex:"),
            "{e}"
        );
    }
}
