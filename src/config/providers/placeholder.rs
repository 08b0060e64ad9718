//! Finding `${provider:[path:]key}` placeholders in a configuration value, with Kafka's
//! `ConfigTransformer.DEFAULT_PATTERN`: `\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}`. The provider is
//! everything up to the first `:`, the path (optional) up to the second, the key the rest up to
//! the first `}`; `${a}` (no `:`) is no placeholder at all.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// Kafka's placeholder pattern (the `regex` crate prefers the same matches as Java's
/// backtracking engine for it: lazy groups, the optional path group tried first).
static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}").expect("the placeholder pattern is valid")
});

/// One placeholder found in a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder<'a> {
    /// The whole placeholder, e.g. `${file:/etc/secrets.properties:db.password}`.
    pub text: &'a str,
    /// The provider's name (`file`).
    pub provider: &'a str,
    /// The path (`/etc/secrets.properties`); empty when the placeholder has none (`${env:HOME}`).
    pub path: &'a str,
    /// The key (`db.password`).
    pub key: &'a str,
    /// Where the placeholder is in the value (byte range).
    pub range: Range<usize>,
}

/// The placeholders in `value`, left to right.
pub fn placeholders(value: &str) -> impl Iterator<Item = Placeholder<'_>> {
    PATTERN.captures_iter(value).filter_map(|c| {
        let whole = c.get(0)?;
        Some(Placeholder {
            text: whole.as_str(),
            provider: c.get(1).map_or("", |m| m.as_str()),
            path: c.get(3).map_or("", |m| m.as_str()),
            key: c.get(4).map_or("", |m| m.as_str()),
            range: whole.range(),
        })
    })
}

/// Whether `value` holds at least one placeholder.
pub fn has_placeholder(value: &str) -> bool {
    PATTERN.is_match(value)
}

/// Whether `value` is nothing but placeholders (and white space around them), so that showing
/// it reveals no literal text: the test for showing a secret key's value as it was written.
pub fn only_placeholders(value: &str) -> bool {
    has_placeholder(value) && PATTERN.replace_all(value, "").trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(value: &str) -> Vec<(&str, &str, &str)> {
        placeholders(value)
            .map(|p| (p.provider, p.path, p.key))
            .collect()
    }

    #[test]
    fn provider_path_and_key() {
        assert_eq!(
            parts("${file:/etc/app/secrets.properties:db.password}"),
            [("file", "/etc/app/secrets.properties", "db.password")]
        );
        assert_eq!(parts("${env:HOME}"), [("env", "", "HOME")]);
        assert_eq!(
            parts("${dir:/run/secrets:token}"),
            [("dir", "/run/secrets", "token")]
        );
    }

    #[test]
    fn edge_cases_match_kafkas_pattern() {
        // Without a path: `${a:b}` is provider a, key b.
        assert_eq!(parts("${a:b}"), [("a", "", "b")]);
        // More colons: the path ends at the second one, the key takes the rest.
        assert_eq!(parts("${a:b:c:d}"), [("a", "b", "c:d")]);
        // Empty parts are allowed by the pattern.
        assert_eq!(parts("${:x}"), [("", "", "x")]);
        assert_eq!(parts("${p::k}"), [("p", "", "k")]);
        // No colon: not a placeholder (TimestampRouter's `${topic}` is left alone).
        assert!(parts("${topic}-${timestamp}").is_empty());
        assert!(!has_placeholder("${topic}"));
        // The first `}` ends it; the text before a later placeholder is skipped.
        assert_eq!(parts("${a}${b:c}"), [("b", "", "c")]);
        assert_eq!(parts("${x${b:c}"), [("x${b", "", "c")]);
        assert!(parts("${a:b").is_empty());
    }

    #[test]
    fn several_placeholders_and_text_around_them() {
        let value = "jdbc:${env:DB_HOST}:5432/${file:/p:db}?x=1";
        let found: Vec<_> = placeholders(value).collect();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].text, "${env:DB_HOST}");
        assert_eq!(&value[found[0].range.clone()], "${env:DB_HOST}");
        assert_eq!(found[1].text, "${file:/p:db}");
        assert_eq!(found[1].key, "db");
    }

    #[test]
    fn only_placeholders_tells_literal_text_apart() {
        assert!(only_placeholders("${file:/p:k}"));
        assert!(only_placeholders(" ${env:A}${env:B} "));
        assert!(!only_placeholders("secret${env:A}"));
        assert!(!only_placeholders("plain"));
        assert!(!only_placeholders(""));
    }
}
