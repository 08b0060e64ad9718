//! A process-wide string interner for [`connect_api::PluginDesc`], whose fields are
//! `&'static str`: each distinct string (a Java plugin's class name or version) is leaked once,
//! however often a plugin is looked up.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// `s` as a `&'static str`, leaked the first time it is seen.
pub fn intern(s: &str) -> &'static str {
    static TABLE: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut table = TABLE
        .get_or_init(|| Mutex::new(HashSet::new()))
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(found) = table.get(s) {
        return found;
    }
    let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
    table.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_are_leaked_once() {
        let a = intern(&String::from("org.example.Connector"));
        let b = intern(&String::from("org.example.Connector"));
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "org.example.Connector");
        assert!(!std::ptr::eq(a, intern("1.0")));
    }
}
