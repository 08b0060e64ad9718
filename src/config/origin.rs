//! Where a configuration value came from: a file and, when known, a line.

use std::fmt;
use std::path::{Path, PathBuf};

/// The place a configuration key was read from.
///
/// `line` is 1-based and `None` when the format or the source cannot tell (a key that is
/// missing altogether, a map submitted over REST, a TOML value whose span is unknown).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The file (or a pseudo-path such as `<REST request>`) the value came from.
    pub file: PathBuf,
    /// The 1-based line of the key, when known.
    pub line: Option<usize>,
}

impl Origin {
    /// An origin in `file` at `line`.
    pub fn new(file: impl Into<PathBuf>, line: Option<usize>) -> Self {
        Self {
            file: file.into(),
            line,
        }
    }

    /// An origin in `file` with no line.
    pub fn file(file: impl AsRef<Path>) -> Self {
        Self::new(file.as_ref(), None)
    }
}

impl fmt::Display for Origin {
    /// `file:line`, or `file` when the line is unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.file.display()),
            None => write!(f, "{}", self.file.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_file_and_line() {
        assert_eq!(
            Origin::new("a/b.properties", Some(4)).to_string(),
            "a/b.properties:4"
        );
        assert_eq!(Origin::file("a/b.properties").to_string(), "a/b.properties");
    }
}
