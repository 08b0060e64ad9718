//! Field names that a transform looks up for every field of every record: compared one by one
//! when there are a handful (faster than hashing short names), hashed when there are many.

use std::collections::HashMap;

/// Up to this many names, a lookup compares names instead of hashing them.
const LINEAR_MAX: usize = 8;

/// Names mapped to values (a set is a `NameMap<()>`).
#[derive(Debug, Clone)]
pub enum NameMap<V> {
    /// A few names, compared in order.
    Few(Vec<(String, V)>),
    /// Many names, hashed.
    Many(HashMap<String, V>),
}

impl<V> Default for NameMap<V> {
    fn default() -> Self {
        Self::Few(Vec::new())
    }
}

impl<V> NameMap<V> {
    /// The value of `name`, if it is in the map.
    pub fn get(&self, name: &str) -> Option<&V> {
        match self {
            Self::Few(entries) => entries.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            Self::Many(map) => map.get(name),
        }
    }

    /// Whether `name` is in the map.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Whether the map holds no name.
    pub fn is_empty(&self) -> bool {
        match self {
            Self::Few(entries) => entries.is_empty(),
            Self::Many(map) => map.is_empty(),
        }
    }

    /// The entries, in no particular order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&String, &V)> + '_> {
        match self {
            Self::Few(entries) => Box::new(entries.iter().map(|(k, v)| (k, v))),
            Self::Many(map) => Box::new(map.iter()),
        }
    }
}

impl<V> FromIterator<(String, V)> for NameMap<V> {
    /// A later entry for the same name replaces an earlier one, as in a `HashMap`.
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        let map: HashMap<String, V> = entries.into_iter().collect();
        if map.len() <= LINEAR_MAX {
            Self::Few(map.into_iter().collect())
        } else {
            Self::Many(map)
        }
    }
}

impl FromIterator<String> for NameMap<()> {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Self {
        names.into_iter().map(|n| (n, ())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_and_many_names_answer_alike() {
        for n in [3usize, 20] {
            let map: NameMap<usize> = (0..n).map(|i| (format!("f{i}"), i)).collect();
            assert_eq!(matches!(map, NameMap::Many(_)), n > LINEAR_MAX);
            for i in 0..n {
                assert_eq!(map.get(&format!("f{i}")), Some(&i));
            }
            assert_eq!(map.get("missing"), None);
            assert_eq!(map.iter().count(), n);
        }
    }

    #[test]
    fn a_later_entry_for_a_name_wins() {
        let map: NameMap<&str> = [("a".to_owned(), "1"), ("a".to_owned(), "2")]
            .into_iter()
            .collect();
        assert_eq!(map.get("a"), Some(&"2"));
        let set: NameMap<()> = ["x".to_owned()].into_iter().collect();
        assert!(set.contains("x") && !set.contains("y") && !set.is_empty());
    }
}
