//! The values config providers resolved, kept out of every text that leaves the worker.
//!
//! Each value a provider gives is remembered with the placeholder that stands for it, in a
//! [`SecretSet`]: the connector's own ([`super::Redactor`]) and the process-wide one
//! ([`global`]), which the edges apply to whatever they send out, wherever the text came from:
//! log lines (every level), REST answers, dead letter queue context headers and the output of
//! the command line tools. A value is found in the forms a message prints it in: as it is, with
//! surrounding whitespace trimmed (a `${dir:..}` file keeps its trailing newline, a list or a
//! name built from it does not), each of its lines, and Rust's `Debug` and JSON escapings of
//! all of these (`"a\nb"` as `a\\nb`). Values and lines shorter than 3 characters are not
//! searched for: replacing every `1` or `ab` would garble messages and hide nothing.
//!
//! One Aho-Corasick automaton finds every form in one pass over the text; when no provider
//! ever resolved a value, [`SecretSet::redact`] is a single atomic load.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};

/// Values (and lines of values) shorter than this, trimmed, are not searched for in texts.
pub const MIN_REDACTED_LEN: usize = 3;

/// Resolved values, each with the placeholder shown in its place.
#[derive(Debug, Default)]
pub struct SecretSet {
    /// (value, placeholder) in the order they were added.
    entries: Mutex<Vec<(String, String)>>,
    /// The automaton over every form of every value, rebuilt when a value is added.
    compiled: RwLock<Option<Arc<Compiled>>>,
    /// Whether any value is known (the fast path of [`SecretSet::redact`]).
    any: AtomicBool,
}

/// The automaton and, per pattern, what replaces it.
#[derive(Debug)]
struct Compiled {
    matcher: AhoCorasick,
    replacements: Vec<String>,
}

/// The process-wide set: every value any config provider resolved in this process (worker
/// file, connectors, tasks, validation), never forgotten while the process runs.
pub fn global() -> &'static SecretSet {
    static GLOBAL: SecretSet = SecretSet::new();
    &GLOBAL
}

/// `text` with every value of the [`global`] set replaced by its placeholder.
pub fn redact(text: &str) -> Cow<'_, str> {
    global().redact(text)
}

/// The same for bytes (a REST body, a header value).
pub fn redact_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    global().redact_bytes(bytes)
}

impl SecretSet {
    /// An empty set.
    pub const fn new() -> Self {
        Self {
            entries: Mutex::new(Vec::new()),
            compiled: RwLock::new(None),
            any: AtomicBool::new(false),
        }
    }

    /// Remembers that `placeholder` resolved to `value` (nothing when the value, trimmed, is
    /// shorter than [`MIN_REDACTED_LEN`], or already known).
    pub fn add(&self, value: &str, placeholder: &str) {
        if value.trim().len() < MIN_REDACTED_LEN {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.iter().any(|(v, _)| v == value) {
            return;
        }
        entries.push((value.to_owned(), placeholder.to_owned()));
        let compiled = compile(&entries);
        *self
            .compiled
            .write()
            .unwrap_or_else(PoisonError::into_inner) = compiled.map(Arc::new);
        self.any.store(true, Ordering::Release);
    }

    /// The (value, placeholder) pairs known, in the order they were added.
    pub fn entries(&self) -> Vec<(String, String)> {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether no value is known.
    pub fn is_empty(&self) -> bool {
        !self.any.load(Ordering::Acquire)
    }

    fn compiled(&self) -> Option<Arc<Compiled>> {
        if self.is_empty() {
            return None;
        }
        self.compiled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// `text` with every form of every known value replaced by its placeholder (in the same
    /// escaping); borrowed when nothing is replaced.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(c) = self.compiled() else {
            return Cow::Borrowed(text);
        };
        if !c.changes(text.as_bytes()) {
            return Cow::Borrowed(text);
        }
        Cow::Owned(c.matcher.replace_all(text, &c.replacements))
    }

    /// [`SecretSet::redact`] for bytes.
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(c) = self.compiled() else {
            return Cow::Borrowed(bytes);
        };
        if !c.changes(bytes) {
            return Cow::Borrowed(bytes);
        }
        Cow::Owned(c.matcher.replace_all_bytes(bytes, &c.replacements))
    }
}

impl Compiled {
    /// Whether replacing would change `bytes` (a placeholder alone matches itself).
    fn changes(&self, bytes: &[u8]) -> bool {
        self.matcher
            .find_iter(bytes)
            .any(|m| self.replacements[m.pattern().as_usize()].as_bytes() != &bytes[m.range()])
    }
}

/// The automaton over every form of `entries`: leftmost-longest, so that the longest form at
/// a place wins, and a placeholder already in a text (it may contain a value: `${env:abc}`
/// of `abc`) is a pattern of its own that stays as it is instead of being rewritten again.
fn compile(entries: &[(String, String)]) -> Option<Compiled> {
    let mut seen = HashSet::new();
    let mut patterns = Vec::new();
    let mut replacements = Vec::new();
    let mut push = |pattern: String, replacement: String| {
        if seen.insert(pattern.clone()) {
            patterns.push(pattern);
            replacements.push(replacement);
        }
    };
    for (_, placeholder) in entries {
        for form in escapings(placeholder) {
            push(form.clone(), form);
        }
    }
    for (value, placeholder) in entries {
        let shown = escapings(placeholder);
        for base in bases(value) {
            for (form, replacement) in escapings(base).into_iter().zip(shown.iter()) {
                push(form, replacement.clone());
            }
        }
    }
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(&patterns)
        .ok()
        .map(|matcher| Compiled {
            matcher,
            replacements,
        })
}

/// The texts of `value` to search for: the value, trimmed, and each of its lines trimmed,
/// those of [`MIN_REDACTED_LEN`] or more.
fn bases(value: &str) -> Vec<&str> {
    let mut out = vec![value, value.trim()];
    if value.trim().contains(['\n', '\r']) {
        out.extend(value.lines().map(str::trim));
    }
    out.retain(|b| b.len() >= MIN_REDACTED_LEN);
    out.dedup();
    out
}

/// `text` as written, as Rust's `Debug` prints it inside quotes, and as JSON writes it inside
/// quotes (the latter two equal `text` when it has nothing to escape).
fn escapings(text: &str) -> [String; 3] {
    let debug = format!("{text:?}");
    let json = serde_json::to_string(text).unwrap_or_else(|_| debug.clone());
    [text.to_owned(), unquote(&debug), unquote(&json)]
}

fn unquote(quoted: &str) -> String {
    quoted
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(quoted)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_value_becomes_its_placeholder() {
        let s = SecretSet::new();
        assert!(s.is_empty());
        assert!(matches!(s.redact("nothing known"), Cow::Borrowed(_)));
        s.add("line-one\nline \"two\"\n", "${dir:/run:k}");
        assert!(!s.is_empty());
        // As it is, trimmed, line by line, Debug-escaped and JSON-escaped.
        assert_eq!(
            s.redact("a line-one\nline \"two\"\n b"),
            "a ${dir:/run:k} b"
        );
        assert_eq!(s.redact("[line-one\nline \"two\"]"), "[${dir:/run:k}]");
        assert_eq!(s.redact("got 'line-one'"), "got '${dir:/run:k}'");
        assert_eq!(
            s.redact(r#"name "line-one\nline \"two\"\n" invalid"#),
            r#"name "${dir:/run:k}" invalid"#
        );
        assert_eq!(
            s.redact_bytes(br#"{"m":"x line-one\nline \"two\""}"#)
                .as_ref(),
            br#"{"m":"x ${dir:/run:k}"}"#
        );
        assert!(matches!(s.redact("unrelated"), Cow::Borrowed(_)));
    }

    #[test]
    fn short_values_are_skipped_and_placeholders_are_not_rewritten() {
        let s = SecretSet::new();
        s.add("ab\n", "${env:AB}");
        assert!(s.is_empty(), "2 characters once trimmed");
        s.add("abc", "${env:abc}");
        assert_eq!(s.redact("abc ab"), "${env:abc} ab");
        // Redacting twice changes nothing more; the placeholder holding the value stays.
        assert!(matches!(s.redact("${env:abc} ab"), Cow::Borrowed(_)));
        s.add("abc", "${env:OTHER}");
        assert_eq!(s.entries().len(), 1, "a value is known once");
    }

    #[test]
    fn longest_form_wins() {
        let s = SecretSet::new();
        s.add("secret", "${env:S}");
        s.add("secret-longer", "${env:L}");
        assert_eq!(s.redact("secret-longer secret"), "${env:L} ${env:S}");
    }
}
