//! `allowed.paths` of the file and directory providers (KIP-993, Kafka's `AllowedPaths`): a
//! comma-separated list of absolute, existing paths; a requested path is allowed when, once
//! `.` and `..` are removed lexically, it starts with one of them (whole components).

use std::path::{Component, Path, PathBuf};

/// The paths a provider may read; `None` allows every path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedPaths(Option<Vec<PathBuf>>);

impl AllowedPaths {
    /// Parses the `allowed.paths` value (`None` or empty: every path is allowed).
    ///
    /// # Errors
    /// Kafka's messages: `Path <p> is not absolute`, `Path <p> does not exist`.
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
            return Ok(Self(None));
        };
        let mut paths = Vec::new();
        for entry in value.split(',').map(str::trim) {
            let path = normalize(Path::new(entry));
            if !path.is_absolute() {
                return Err(format!("Path {} is not absolute", path.display()));
            }
            if !path.exists() {
                return Err(format!("Path {} does not exist", path.display()));
            }
            paths.push(path);
        }
        Ok(Self(Some(paths)))
    }

    /// The path to read for the requested `path`, or `None` when it is outside the allowed
    /// paths.
    pub fn check(&self, path: &str) -> Option<PathBuf> {
        match &self.0 {
            None => Some(PathBuf::from(path)),
            Some(allowed) => {
                let normalized = normalize(Path::new(path));
                allowed
                    .iter()
                    .any(|a| normalized.starts_with(a))
                    .then_some(normalized)
            }
        }
    }
}

/// `path` without `.` components and with `..` applied lexically (as Java's `Path.normalize`;
/// a `..` above the root stays at the root, a leading `..` of a relative path is kept).
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_allows_everything() {
        let all = AllowedPaths::parse(None).unwrap();
        assert_eq!(all.check("relative/x"), Some(PathBuf::from("relative/x")));
        assert_eq!(AllowedPaths::parse(Some("")).unwrap(), all);
    }

    #[test]
    fn paths_must_be_absolute_and_exist() {
        assert_eq!(
            AllowedPaths::parse(Some("relative/dir")).unwrap_err(),
            "Path relative/dir is not absolute"
        );
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        assert_eq!(
            AllowedPaths::parse(Some(missing.to_str().unwrap())).unwrap_err(),
            format!("Path {} does not exist", missing.display())
        );
    }

    #[test]
    fn requested_paths_are_normalized_before_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("secrets");
        std::fs::create_dir(&base).unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let value = format!("{}, {}", base.display(), other.display());
        let allowed = AllowedPaths::parse(Some(&value)).unwrap();
        let inside = format!("{}/./a/../db.properties", base.display());
        assert_eq!(allowed.check(&inside), Some(base.join("db.properties")));
        let escape = format!("{}/../passwd", base.display());
        assert_eq!(allowed.check(&escape), None);
        // Whole components: `secrets-old` is not inside `secrets`.
        assert_eq!(allowed.check(&format!("{}-old/x", base.display())), None);
        assert_eq!(allowed.check("db.properties"), None);
        assert!(allowed.check(&format!("{}/x", other.display())).is_some());
    }
}
