//! TOML configuration files. Nested tables are flattened to dotted keys, so
//! `[transforms.x] type = "..."` is `transforms.x.type`, and values are stringified:
//! integers in decimal, floats and datetimes as written, booleans `true`/`false`, arrays of
//! scalars comma-joined (`topics = ["a", "b"]` → `a,b`). Arrays of tables and nested arrays
//! are rejected. Every key gets its line from the parser's spans.
//!
//! A key that is both a value and a prefix (`key.converter` and `key.converter.schemas.enable`)
//! cannot be written with bare dotted keys in TOML; quote one of them:
//! `"key.converter.schemas.enable" = false`.

use std::path::Path;

use ::toml::de::{DeTable, DeValue};
use ::toml::Spanned;

use super::error::{ConfigError, ConfigProblem};
use super::origin::Origin;
use super::raw::RawConfig;

/// Parses the text of a TOML file read from `file`.
///
/// # Errors
/// A syntax error (with its line), or every unsupported value (with key and line).
pub fn parse_toml(text: &str, file: &Path) -> Result<RawConfig, ConfigError> {
    let lines = LineIndex::new(text);
    let table = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| lines.line(s.start));
        ConfigError::single(ConfigProblem::at(
            Origin::new(file, line),
            format!("Invalid TOML: {}", e.message().trim_end()),
        ))
    })?;
    let mut raw = RawConfig::new(file);
    let mut problems = Vec::new();
    flatten(table.get_ref(), "", &lines, &mut raw, &mut problems);
    if problems.is_empty() {
        Ok(raw)
    } else {
        Err(ConfigError::invalid(problems))
    }
}

fn flatten(
    table: &DeTable<'_>,
    prefix: &str,
    lines: &LineIndex,
    raw: &mut RawConfig,
    problems: &mut Vec<ConfigProblem>,
) {
    // The table is ordered by key; restore file order from the spans.
    let mut entries: Vec<(&Spanned<_>, &Spanned<DeValue<'_>>)> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (key, value) in entries {
        let name = format!("{prefix}{}", key.get_ref());
        let line = Some(lines.line(key.span().start));
        match value.get_ref() {
            DeValue::Table(inner) => {
                flatten(inner, &format!("{name}."), lines, raw, problems);
            }
            DeValue::Array(items) => {
                let mut parts = Vec::with_capacity(items.len());
                let mut ok = true;
                for item in items.iter() {
                    match scalar(item.get_ref()) {
                        Some(s) => parts.push(s),
                        None => ok = false,
                    }
                }
                if ok {
                    raw.insert(name, parts.join(","), line);
                } else {
                    problems.push(ConfigProblem::for_key(
                        Origin::new(raw.source(), line),
                        name,
                        "Arrays may only hold strings, numbers or booleans (no tables or nested arrays)",
                    ));
                }
            }
            other => {
                if let Some(s) = scalar(other) {
                    raw.insert(name, s, line);
                }
            }
        }
    }
}

fn scalar(value: &DeValue<'_>) -> Option<String> {
    Some(match value {
        DeValue::String(s) => s.to_string(),
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
            .map(|n| n.to_string())
            .unwrap_or_else(|_| i.to_string()),
        DeValue::Float(f) => f.as_str().to_owned(),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Datetime(d) => d.to_string(),
        DeValue::Array(_) | DeValue::Table(_) => return None,
    })
}

/// Byte offset → 1-based line.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { starts }
    }

    fn line(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RawConfig, ConfigError> {
        parse_toml(text, Path::new("c.toml"))
    }

    fn pairs(raw: &RawConfig) -> Vec<(String, String, Option<usize>)> {
        raw.iter()
            .map(|(k, e)| (k.to_owned(), e.value.clone(), e.origin.line))
            .collect()
    }

    fn p(k: &str, v: &str, line: usize) -> (String, String, Option<usize>) {
        (k.to_owned(), v.to_owned(), Some(line))
    }

    #[test]
    fn nesting_is_flattened_with_lines() {
        let raw = parse(
            "name = \"sink\"\n\
             tasks.max = 2\n\
             \"key.converter\" = \"org.apache.kafka.connect.storage.StringConverter\"\n\
             topics = [\"a\", \"b\"]\n\
             ratio = 0.5\n\
             enabled = true\n\
             hex = 0x1F\n\
             \n\
             [transforms.route]\n\
             type = \"org.apache.kafka.connect.transforms.RegexRouter\"\n\
             regex = \"(.*)\"\n",
        )
        .unwrap();
        assert_eq!(
            pairs(&raw),
            [
                p("name", "sink", 1),
                p("tasks.max", "2", 2),
                p(
                    "key.converter",
                    "org.apache.kafka.connect.storage.StringConverter",
                    3
                ),
                p("topics", "a,b", 4),
                p("ratio", "0.5", 5),
                p("enabled", "true", 6),
                p("hex", "31", 7),
                p(
                    "transforms.route.type",
                    "org.apache.kafka.connect.transforms.RegexRouter",
                    10
                ),
                p("transforms.route.regex", "(.*)", 11),
            ]
        );
    }

    #[test]
    fn inline_tables_and_dates() {
        let raw =
            parse("transforms = \"t\"\n[errors]\nlog = { enable = true }\nwhen = 1979-05-27\n")
                .unwrap();
        assert_eq!(raw.get("errors.log.enable"), Some("true"));
        assert_eq!(raw.get("errors.when"), Some("1979-05-27"));
        assert_eq!(raw.line("errors.log.enable"), Some(3));
    }

    #[test]
    fn syntax_error_has_line() {
        let err = parse("a = 1\nb = \n").unwrap_err();
        assert_eq!(err.problems()[0].origin.line, Some(2));
        assert!(err.problems()[0].message.starts_with("Invalid TOML"));
    }

    #[test]
    fn arrays_of_tables_are_rejected() {
        let err = parse("ok = 1\n[[x]]\na = 1\n").unwrap_err();
        assert_eq!(err.problems()[0].key.as_deref(), Some("x"));
        let err = parse("y = [[1], [2]]\n").unwrap_err();
        assert_eq!(err.problems()[0].origin.line, Some(1));
    }
}
