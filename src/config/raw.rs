//! `RawConfig`: the key/value pairs of one configuration source, in file order, each with the
//! place it came from. Nothing is typed or validated here.

use std::path::{Path, PathBuf};

use connect_api::ConfigMap;
use indexmap::IndexMap;

use super::error::ConfigWarning;
use super::json::InitialState;
use super::origin::Origin;

/// One raw value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    /// The value, after the format's own unescaping (no trimming, no type conversion).
    pub value: String,
    /// Where the key was read.
    pub origin: Origin,
}

/// The ordered raw key/value pairs of one source (usually one file).
///
/// A key given twice keeps its first position but takes the later value and line, like
/// `java.util.Properties` (the last duplicate wins); each override is remembered as a
/// [`ConfigWarning`] (see [`RawConfig::duplicate_warnings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawConfig {
    source: PathBuf,
    entries: IndexMap<String, RawEntry>,
    duplicates: Vec<ConfigWarning>,
    initial_state: Option<InitialState>,
}

impl RawConfig {
    /// An empty configuration read from `source`.
    pub fn new(source: impl Into<PathBuf>) -> Self {
        Self {
            source: source.into(),
            entries: IndexMap::new(),
            duplicates: Vec::new(),
            initial_state: None,
        }
    }

    /// A configuration from plain pairs without line numbers (e.g. a REST request body);
    /// `source` names it in messages (e.g. `<REST request>`).
    pub fn from_pairs<K, V>(
        source: impl Into<PathBuf>,
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        let mut raw = Self::new(source);
        for (k, v) in pairs {
            raw.insert(k, v, None);
        }
        raw
    }

    /// The source (file) this configuration was read from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Sets `key` to `value`, read at `line` of [`RawConfig::source`]. A later duplicate wins.
    pub fn insert(
        &mut self,
        key: impl Into<String>,
        value: impl Into<String>,
        line: Option<usize>,
    ) {
        let origin = Origin::new(self.source.clone(), line);
        self.insert_with_origin(key, value, origin);
    }

    /// Sets `key` to `value` with an explicit origin. A later duplicate wins.
    pub fn insert_with_origin(
        &mut self,
        key: impl Into<String>,
        value: impl Into<String>,
        origin: Origin,
    ) {
        let key = key.into();
        let entry = RawEntry {
            value: value.into(),
            origin,
        };
        if let Some(previous) = self.entries.get_mut(&key) {
            let message = match previous.origin.line {
                Some(line) => format!("Duplicate key: the value on line {line} is overridden"),
                None => "Duplicate key: the earlier value is overridden".to_owned(),
            };
            self.duplicates.push(ConfigWarning {
                origin: entry.origin.clone(),
                key: key.clone(),
                message,
            });
            *previous = entry;
        } else {
            self.entries.insert(key, entry);
        }
    }

    /// Replaces the value of `key`, keeping its position and origin (no duplicate warning);
    /// nothing happens when `key` is absent. Used when placeholders are resolved.
    pub fn set_value(&mut self, key: &str, value: impl Into<String>) {
        if let Some(entry) = self.entries.get_mut(key) {
            entry.value = value.into();
        }
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<RawEntry> {
        self.entries.shift_remove(key)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(|e| e.value.as_str())
    }

    /// The value and origin of `key`.
    pub fn entry(&self, key: &str) -> Option<&RawEntry> {
        self.entries.get(key)
    }

    /// Where `key` was read.
    pub fn origin(&self, key: &str) -> Option<&Origin> {
        self.entries.get(key).map(|e| &e.origin)
    }

    /// Where `key` was read, or the source file without a line when it is absent.
    pub fn origin_or_source(&self, key: &str) -> Origin {
        self.origin(key)
            .cloned()
            .unwrap_or_else(|| Origin::file(&self.source))
    }

    /// The line of `key`, when known.
    pub fn line(&self, key: &str) -> Option<usize> {
        self.origin(key).and_then(|o| o.line)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keys and entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawEntry)> {
        self.entries.iter().map(|(k, e)| (k.as_str(), e))
    }

    /// Keys in file order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The plain key → value map (what `ConfigDef::parse` takes).
    pub fn to_map(&self) -> ConfigMap {
        self.entries
            .iter()
            .map(|(k, e)| (k.clone(), e.value.clone()))
            .collect()
    }

    /// One warning per key that was given more than once (at the later occurrence).
    pub fn duplicate_warnings(&self) -> &[ConfigWarning] {
        &self.duplicates
    }

    /// The `initial_state` of a JSON `CreateConnectorRequest` file, if it had one.
    pub fn initial_state(&self) -> Option<InitialState> {
        self.initial_state
    }

    /// Sets the connector's requested initial state.
    pub fn set_initial_state(&mut self, state: Option<InitialState>) {
        self.initial_state = state;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_duplicate_wins_and_keeps_its_line() {
        let mut raw = RawConfig::new("w.properties");
        raw.insert("a", "1", Some(1));
        raw.insert("b", "2", Some(2));
        raw.insert("a", "3", Some(3));
        assert_eq!(raw.get("a"), Some("3"));
        assert_eq!(raw.line("a"), Some(3));
        assert_eq!(raw.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(raw.duplicate_warnings().len(), 1);
        assert_eq!(raw.duplicate_warnings()[0].key, "a");
        assert_eq!(raw.duplicate_warnings()[0].origin.line, Some(3));
        assert!(raw.duplicate_warnings()[0].message.contains("line 1"));
    }

    #[test]
    fn pairs_have_no_lines() {
        let raw = RawConfig::from_pairs("<REST request>", [("name", "x")]);
        assert_eq!(raw.origin_or_source("name"), Origin::file("<REST request>"));
        assert_eq!(raw.origin_or_source("missing").line, None);
        assert_eq!(raw.to_map().get("name").map(String::as_str), Some("x"));
    }
}
