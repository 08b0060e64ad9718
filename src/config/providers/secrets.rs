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
//! searched for: replacing every `1` or `ab` would garble messages and hide nothing. Nor are
//! numbers and booleans (`60000`, `true`): they are settings, not secrets, and replacing them
//! would break the JSON of REST answers and the samples of `/metrics`. A value shorter than 8
//! characters is replaced only as a whole word (not inside `Installed` for `all`).
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

/// Values shorter than this are replaced only where they are not part of a longer word.
const ANYWHERE_LEN: usize = 8;

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
    /// Per pattern: what replaces it, and whether it must stand as a whole word.
    replacements: Vec<(String, bool)>,
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
        if !worth_hiding(value) {
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
        match self.redact_bytes(text.as_bytes()) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            // Whole UTF-8 patterns replaced by UTF-8 text in UTF-8 text: always valid.
            Cow::Owned(bytes) => Cow::Owned(
                String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
        }
    }

    /// [`SecretSet::redact`] for bytes.
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(c) = self.compiled() else {
            return Cow::Borrowed(bytes);
        };
        let mut out: Option<Vec<u8>> = None;
        let mut at = 0;
        for m in c.matcher.find_iter(bytes) {
            let (replacement, whole_word) = &c.replacements[m.pattern().as_usize()];
            if replacement.as_bytes() == &bytes[m.range()]
                || (*whole_word && !stands_alone(bytes, m.start(), m.end()))
            {
                continue;
            }
            let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len() + 32));
            out.extend_from_slice(&bytes[at..m.start()]);
            out.extend_from_slice(replacement.as_bytes());
            at = m.end();
        }
        match out {
            None => Cow::Borrowed(bytes),
            Some(mut out) => {
                out.extend_from_slice(&bytes[at..]);
                Cow::Owned(out)
            }
        }
    }
}

/// Whether `bytes[start..end]` is not glued to a letter or digit on a side where it begins or
/// ends with one.
fn stands_alone(bytes: &[u8], start: usize, end: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric();
    let before_ok = start == 0 || !word(bytes[start]) || !word(bytes[start - 1]);
    let after_ok = end == bytes.len() || !word(bytes[end - 1]) || !word(bytes[end]);
    before_ok && after_ok
}

/// Whether `value` is worth searching for: [`MIN_REDACTED_LEN`] characters or more once
/// trimmed, and not a number, a boolean or `null`.
fn worth_hiding(value: &str) -> bool {
    let v = value.trim();
    v.len() >= MIN_REDACTED_LEN
        && v.parse::<f64>().is_err()
        && !["true", "false", "null"]
            .iter()
            .any(|w| v.eq_ignore_ascii_case(w))
}

/// The automaton over every form of `entries`: leftmost-longest, so that the longest form at
/// a place wins, and a placeholder already in a text (it may contain a value: `${env:abc}`
/// of `abc`) is a pattern of its own that stays as it is instead of being rewritten again.
fn compile(entries: &[(String, String)]) -> Option<Compiled> {
    let mut seen = HashSet::new();
    let mut patterns = Vec::new();
    let mut replacements = Vec::new();
    let mut push = |pattern: String, replacement: String, whole_word: bool| {
        if seen.insert(pattern.clone()) {
            patterns.push(pattern);
            replacements.push((replacement, whole_word));
        }
    };
    for (_, placeholder) in entries {
        for form in escapings(placeholder) {
            push(form.clone(), form, false);
        }
    }
    for (value, placeholder) in entries {
        let shown = escapings(placeholder);
        for base in bases(value) {
            let whole_word = base.len() < ANYWHERE_LEN;
            for (form, replacement) in escapings(base).into_iter().zip(shown.iter()) {
                push(form, replacement.clone(), whole_word);
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
    out.retain(|b| worth_hiding(b));
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
    fn numbers_and_booleans_are_settings_and_short_values_whole_words() {
        let s = SecretSet::new();
        for setting in ["60000", "1.5", " true\n", "NULL", "1e3"] {
            s.add(setting, "${env:N}");
        }
        assert!(s.is_empty());
        s.add("all", "${env:TOL}");
        s.add("tok-1234567", "${env:T}");
        assert_eq!(
            s.redact("Installed all, all-in, x_all; xtok-1234567y"),
            "Installed ${env:TOL}, ${env:TOL}-in, x_${env:TOL}; x${env:T}y"
        );
        let json = br#"{"offset":60000,"tolerance":"all"}"#;
        assert_eq!(
            s.redact_bytes(json).as_ref(),
            br#"{"offset":60000,"tolerance":"${env:TOL}"}"#
        );
    }

    #[test]
    fn longest_form_wins() {
        let s = SecretSet::new();
        s.add("secret", "${env:S}");
        s.add("secret-longer", "${env:L}");
        assert_eq!(s.redact("secret-longer secret"), "${env:L} ${env:S}");
    }
}
