//! `FileConfigProvider`: `${file:/path/to/file.properties:key}` reads `key` from a Java
//! properties file. Parameter `allowed.paths` (KIP-993) limits the files it may read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::allowed_paths::AllowedPaths;
use super::provider::{ConfigProvider, ProviderError};
use crate::config::parse_properties;

/// Reads values from Java properties files.
#[derive(Debug, Clone, Default)]
pub struct FileConfigProvider {
    allowed: AllowedPaths,
}

impl FileConfigProvider {
    /// A provider limited to `allowed`.
    pub fn new(allowed: AllowedPaths) -> Self {
        Self { allowed }
    }
}

impl ConfigProvider for FileConfigProvider {
    fn get(
        &self,
        path: &str,
        keys: &BTreeSet<String>,
    ) -> Result<BTreeMap<String, String>, ProviderError> {
        if path.is_empty() {
            return Err(ProviderError::new(
                "no file given (the form is ${<provider>:<path>:<key>})",
            ));
        }
        let file = self.allowed.check(path).ok_or_else(|| {
            ProviderError::new(format!("the path {path} is not in allowed.paths"))
        })?;
        let bytes = std::fs::read(&file).map_err(|e| {
            ProviderError::new(format!("Could not read properties from file {path}: {e}"))
        })?;
        // Syntax problems are reported by line only: a message could quote a value.
        let raw = parse_properties(&bytes, Path::new(path)).map_err(|e| {
            let lines: Vec<String> = e
                .problems()
                .iter()
                .filter_map(|p| p.origin.line.map(|l| l.to_string()))
                .collect();
            ProviderError::new(format!(
                "Could not read properties from file {path}: syntax error on line(s) {}",
                lines.join(", ")
            ))
        })?;
        Ok(keys
            .iter()
            .filter_map(|k| raw.get(k).map(|v| (k.clone(), v.to_owned())))
            .collect())
    }

    fn missing(&self, path: &str, key: &str) -> String {
        format!("the file {path} has no key '{key}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(k: &[&str]) -> BTreeSet<String> {
        k.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn reads_keys_of_a_properties_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("db.properties");
        std::fs::write(
            &file,
            "user=admin\npassword = s3cr\\u0065t\\\n  -tail\n# c=1\n",
        )
        .unwrap();
        let p = FileConfigProvider::default();
        let got = p
            .get(file.to_str().unwrap(), &keys(&["user", "password", "c"]))
            .unwrap();
        assert_eq!(got.get("user").map(String::as_str), Some("admin"));
        assert_eq!(got.get("password").map(String::as_str), Some("s3cret-tail"));
        assert!(!got.contains_key("c"), "a comment is no key");
    }

    #[test]
    fn missing_file_and_paths_outside_allowed_paths_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.properties");
        let err = FileConfigProvider::default()
            .get(missing.to_str().unwrap(), &keys(&["a"]))
            .unwrap_err();
        assert!(err.0.starts_with(&format!(
            "Could not read properties from file {}: ",
            missing.display()
        )));
        let allowed_dir = dir.path().join("allowed");
        std::fs::create_dir(&allowed_dir).unwrap();
        let outside = dir.path().join("outside.properties");
        std::fs::write(&outside, "a=1\n").unwrap();
        let p = FileConfigProvider::new(
            AllowedPaths::parse(Some(allowed_dir.to_str().unwrap())).unwrap(),
        );
        let err = p.get(outside.to_str().unwrap(), &keys(&["a"])).unwrap_err();
        assert_eq!(
            err.0,
            format!("the path {} is not in allowed.paths", outside.display())
        );
        let sneaky = format!("{}/../outside.properties", allowed_dir.display());
        assert!(p.get(&sneaky, &keys(&["a"])).is_err());
        let inside = allowed_dir.join("in.properties");
        std::fs::write(&inside, "a=1\n").unwrap();
        assert_eq!(
            p.get(inside.to_str().unwrap(), &keys(&["a"]))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn no_path_is_an_error() {
        let err = FileConfigProvider::default()
            .get("", &keys(&["a"]))
            .unwrap_err();
        assert!(err.0.contains("no file given"), "{err}");
    }

    #[test]
    fn syntax_errors_name_lines_not_text() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bad.properties");
        std::fs::write(&file, "a=1\nb=topsecret\\uZZZZ\n").unwrap();
        let err = FileConfigProvider::default()
            .get(file.to_str().unwrap(), &keys(&["a"]))
            .unwrap_err();
        assert!(err.0.contains("line(s) 2"), "{err}");
        assert!(!err.0.contains("topsecret"), "{err}");
    }
}
