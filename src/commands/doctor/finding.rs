//! A finding of `doctor`: how grave, which check, the file, line and key it concerns, what is
//! wrong and what to do.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// How grave a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The worker would refuse the configuration, or data would be lost.
    Error,
    /// It works, but probably not as meant.
    Warning,
    /// A check could not be made (e.g. Kafka unreachable); does not change the exit code.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Note => "note",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// How grave.
    pub severity: Severity,
    /// The check that found it (e.g. `tasks-max`), stable for scripts.
    pub check: &'static str,
    /// The file concerned.
    pub file: PathBuf,
    /// The line of the key, when the file has it.
    pub line: Option<usize>,
    /// The key concerned, when there is one.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub action: String,
}

impl Finding {
    /// A finding of `check` about `file`, with no line or key yet.
    pub fn new(
        severity: Severity,
        check: &'static str,
        file: &Path,
        message: impl Into<String>,
        action: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            check,
            file: file.to_owned(),
            line: None,
            key: None,
            message: message.into(),
            action: action.into(),
        }
    }

    /// The finding about `key`, read at `line`.
    pub fn at(mut self, key: impl Into<String>, line: Option<usize>) -> Self {
        self.key = Some(key.into());
        self.line = line;
        self
    }

    /// `FILE[:LINE]: SEVERITY: [KEY: ]MESSAGE`, then `  fix: ACTION` when there is one.
    pub fn text(&self) -> String {
        let mut out = super::super::validate::place(&self.file, self.line);
        out.push_str(": ");
        out.push_str(self.severity.as_str());
        out.push_str(": ");
        if let Some(key) = &self.key {
            out.push_str(key);
            out.push_str(": ");
        }
        out.push_str(&self.message);
        out.push('\n');
        if !self.action.is_empty() {
            out.push_str("  fix: ");
            out.push_str(&self.action);
            out.push('\n');
        }
        out
    }

    /// `{"severity", "check", "file", "line", "key", "message", "action"}` (`line` and `key`
    /// null when unknown).
    pub fn json(&self) -> Value {
        json!({
            "severity": self.severity.as_str(),
            "check": self.check,
            "file": self.file.display().to_string(),
            "line": self.line,
            "key": self.key,
            "message": self.message,
            "action": self.action,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_names_file_line_severity_key_and_action() {
        let f = Finding::new(
            Severity::Warning,
            "tasks-max",
            Path::new("c.properties"),
            "m",
            "a",
        )
        .at("tasks.max", Some(3));
        assert_eq!(
            f.text(),
            "c.properties:3: warning: tasks.max: m\n  fix: a\n"
        );
        let n = Finding::new(Severity::Note, "x", Path::new("w"), "m", "");
        assert_eq!(n.text(), "w: note: m\n");
    }
}
