//! `ConfigError` (every problem of a configuration at once, each with file, line and key) and
//! `ConfigWarning` (non-fatal remarks such as unknown keys, logged by the caller).

use std::fmt::{self, Write as _};
use std::io;
use std::path::{Path, PathBuf};

use connect_api::ConfigIssue;

use super::origin::Origin;
use super::raw::RawConfig;

/// One problem in a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// File and (when known) line. A missing key has no line.
    pub origin: Origin,
    /// The key concerned, when the problem is about one key (a malformed line has none).
    pub key: Option<String>,
    /// The message, in Kafka's words where Kafka has one, e.g.
    /// `Invalid value abc for configuration tasks.max: Not a number of type INT`.
    pub message: String,
}

impl ConfigProblem {
    /// A problem about `key` at `origin`.
    pub fn for_key(origin: Origin, key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            origin,
            key: Some(key.into()),
            message: message.into(),
        }
    }

    /// A problem about a place in a file rather than a key (e.g. a syntax error).
    pub fn at(origin: Origin, message: impl Into<String>) -> Self {
        Self {
            origin,
            key: None,
            message: message.into(),
        }
    }

    /// A `ConfigDef` issue located through `raw` (a missing key gets the file, no line).
    pub fn from_issue(raw: &RawConfig, issue: ConfigIssue) -> Self {
        let origin = raw.origin_or_source(&issue.key);
        Self {
            origin,
            key: Some(issue.key),
            message: issue.message,
        }
    }
}

impl fmt::Display for ConfigProblem {
    /// `line 4: tasks.max: <message>`; the `line N: ` and `key: ` parts only when known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.origin.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(key) = &self.key {
            write!(f, "{key}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// A non-fatal remark about a configuration (unknown key, ignored key, duplicate key).
///
/// Kafka Connect only logs such things; so does connect-rs: see [`log_warnings`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConfigWarning {
    /// Where the key was read.
    pub origin: Origin,
    /// The key concerned.
    pub key: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    /// `file:line: key: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.origin, self.key, self.message)
    }
}

/// Warnings logged per call at most; the rest are counted in one last line (a wrong file
/// given as a configuration should not bury the error under hundreds of lines).
pub(crate) const MAX_LOGGED_WARNINGS: usize = 10;

/// Logs the warnings at WARN level through `tracing`, with `file`, `line` and `key` fields;
/// after [`MAX_LOGGED_WARNINGS`] one line says how many more there are.
pub fn log_warnings(warnings: &[ConfigWarning]) {
    for w in warnings.iter().take(MAX_LOGGED_WARNINGS) {
        tracing::warn!(
            file = %w.origin.file.display(),
            line = w.origin.line,
            key = %w.key,
            "{w}"
        );
    }
    if let Some(next) = warnings.get(MAX_LOGGED_WARNINGS) {
        tracing::warn!(
            "... and {} more warnings about {} (is it the right file?)",
            warnings.len() - MAX_LOGGED_WARNINGS,
            next.origin.file.display()
        );
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("Cannot read configuration file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// The configuration has one or more problems; all of them are listed.
    #[error("{}", format_problems(problems))]
    Invalid {
        /// Every problem found, in no particular order (display sorts them by file and line).
        problems: Vec<ConfigProblem>,
        /// Warnings gathered before the failure (unknown keys often explain a missing one).
        warnings: Vec<ConfigWarning>,
    },
}

impl ConfigError {
    /// An `Invalid` error with these problems and no warnings.
    pub fn invalid(problems: Vec<ConfigProblem>) -> Self {
        Self::Invalid {
            problems,
            warnings: Vec::new(),
        }
    }

    /// An `Invalid` error with a single problem.
    pub fn single(problem: ConfigProblem) -> Self {
        Self::invalid(vec![problem])
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            path: path.to_owned(),
            source,
        }
    }

    /// The problems (empty for an I/O error).
    pub fn problems(&self) -> &[ConfigProblem] {
        match self {
            Self::Io { .. } => &[],
            Self::Invalid { problems, .. } => problems,
        }
    }

    /// The warnings gathered before the failure (empty for an I/O error).
    pub fn warnings(&self) -> &[ConfigWarning] {
        match self {
            Self::Io { .. } => &[],
            Self::Invalid { warnings, .. } => warnings,
        }
    }
}

/// Renders problems grouped by file (in order of first appearance), each group sorted by line
/// with line-less problems (missing keys) last:
///
/// ```text
/// Invalid configuration in examples/file-source.properties:
///   line 4: tasks.max: Invalid value abc for configuration tasks.max: Not a number of type INT
///   connector.class: Missing required configuration "connector.class" which has no default value.
/// ```
pub fn format_problems(problems: &[ConfigProblem]) -> String {
    let mut files: Vec<&Path> = Vec::new();
    for p in problems {
        if !files.contains(&p.origin.file.as_path()) {
            files.push(&p.origin.file);
        }
    }
    let mut out = String::new();
    for (i, file) in files.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(out, "Invalid configuration in {}:", file.display());
        let mut group: Vec<&ConfigProblem> = problems
            .iter()
            .filter(|p| p.origin.file.as_path() == *file)
            .collect();
        group.sort_by_key(|p| (p.origin.line.is_none(), p.origin.line));
        for p in group {
            let _ = write!(out, "\n  {p}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_groups_and_sorts() {
        let file = "examples/file-source.properties";
        let err = ConfigError::invalid(vec![
            ConfigProblem::for_key(
                Origin::file(file),
                "connector.class",
                "Missing required configuration \"connector.class\" which has no default value.",
            ),
            ConfigProblem::for_key(
                Origin::new(file, Some(4)),
                "tasks.max",
                "Invalid value abc for configuration tasks.max: Not a number of type INT",
            ),
            ConfigProblem::at(Origin::new(file, Some(2)), "Malformed \\uxxxx encoding."),
        ]);
        assert_eq!(
            err.to_string(),
            "Invalid configuration in examples/file-source.properties:\n  \
             line 2: Malformed \\uxxxx encoding.\n  \
             line 4: tasks.max: Invalid value abc for configuration tasks.max: Not a number of type INT\n  \
             connector.class: Missing required configuration \"connector.class\" which has no default value."
        );
    }

    #[test]
    fn several_files_get_several_headers() {
        let err = ConfigError::invalid(vec![
            ConfigProblem::at(Origin::new("a", Some(1)), "x"),
            ConfigProblem::at(Origin::new("b", None), "y"),
        ]);
        assert_eq!(
            err.to_string(),
            "Invalid configuration in a:\n  line 1: x\nInvalid configuration in b:\n  y"
        );
    }

    #[test]
    fn io_error_names_path_and_reason() {
        let err = ConfigError::io(
            Path::new("/nope/w.properties"),
            io::Error::from(io::ErrorKind::NotFound),
        );
        assert!(err
            .to_string()
            .starts_with("Cannot read configuration file /nope/w.properties: "));
        assert!(err.problems().is_empty());
    }
}
