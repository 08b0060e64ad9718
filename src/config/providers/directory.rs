//! `DirectoryConfigProvider`: `${dir:/path/to/dir:name}` is the content of the regular file
//! `name` in the directory (as Kubernetes mounts secrets), read as UTF-8 and kept verbatim,
//! trailing newline included, as Kafka does. Parameter `allowed.paths` (KIP-993) limits the
//! directories it may read.

use std::collections::{BTreeMap, BTreeSet};

use super::allowed_paths::AllowedPaths;
use super::provider::{ConfigProvider, ProviderError};

/// Reads values from the files of a directory.
#[derive(Debug, Clone, Default)]
pub struct DirectoryConfigProvider {
    allowed: AllowedPaths,
}

impl DirectoryConfigProvider {
    /// A provider limited to `allowed`.
    pub fn new(allowed: AllowedPaths) -> Self {
        Self { allowed }
    }
}

impl ConfigProvider for DirectoryConfigProvider {
    fn get(
        &self,
        path: &str,
        keys: &BTreeSet<String>,
    ) -> Result<BTreeMap<String, String>, ProviderError> {
        if path.is_empty() {
            return Err(ProviderError::new(
                "no directory given (the form is ${<provider>:<directory>:<file name>})",
            ));
        }
        let dir = self.allowed.check(path).ok_or_else(|| {
            ProviderError::new(format!("the path {path} is not in allowed.paths"))
        })?;
        if !dir.is_dir() {
            return Err(ProviderError::new(format!(
                "the path {path} is not a directory"
            )));
        }
        let mut values = BTreeMap::new();
        for key in keys {
            // Only a file directly in the directory, as Kafka lists the directory's entries.
            let plain_name = !key.is_empty()
                && key != "."
                && key != ".."
                && !key.contains(std::path::is_separator);
            if !plain_name {
                continue;
            }
            let file = dir.join(key);
            if !file.is_file() {
                continue;
            }
            let bytes = std::fs::read(&file).map_err(|e| {
                ProviderError::new(format!(
                    "Could not read file {} for property {key}: {e}",
                    file.display()
                ))
            })?;
            values.insert(key.clone(), String::from_utf8_lossy(&bytes).into_owned());
        }
        Ok(values)
    }

    fn missing(&self, path: &str, key: &str) -> String {
        format!("the directory {path} has no regular file '{key}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(k: &[&str]) -> BTreeSet<String> {
        k.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn file_contents_are_the_values() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token"), "abc\n").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let got = DirectoryConfigProvider::default()
            .get(
                dir.path().to_str().unwrap(),
                &keys(&["token", "sub", "../x", "none"]),
            )
            .unwrap();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got["token"], "abc\n", "kept verbatim");
    }

    #[test]
    fn not_a_directory_and_not_allowed_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let p = DirectoryConfigProvider::default();
        let err = p.get(file.to_str().unwrap(), &keys(&["a"])).unwrap_err();
        assert_eq!(
            err.0,
            format!("the path {} is not a directory", file.display())
        );
        let allowed = dir.path().join("allowed");
        std::fs::create_dir(&allowed).unwrap();
        let p = DirectoryConfigProvider::new(
            AllowedPaths::parse(Some(allowed.to_str().unwrap())).unwrap(),
        );
        let err = p
            .get(dir.path().to_str().unwrap(), &keys(&["f"]))
            .unwrap_err();
        assert!(err.0.contains("is not in allowed.paths"), "{err}");
        std::fs::write(allowed.join("k"), "v").unwrap();
        assert_eq!(
            p.get(allowed.to_str().unwrap(), &keys(&["k"])).unwrap()["k"],
            "v"
        );
    }
}
