//! Reading a configuration file, choosing the format by extension.

use std::path::Path;

use super::error::{ConfigError, ConfigProblem, ConfigWarning};
use super::json::parse_json;
use super::origin::Origin;
use super::properties::parse_properties;
use super::raw::RawConfig;
use super::toml::parse_toml;

/// The formats a configuration file can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// Java `.properties` (any extension other than `.json` and `.toml`).
    Properties,
    /// JSON: a flat map or a `CreateConnectorRequest` (`.json`).
    Json,
    /// TOML with nested tables flattened to dotted keys (`.toml`).
    Toml,
}

impl FileFormat {
    /// The format for `path`, by extension (case-insensitive).
    pub fn from_path(path: &Path) -> Self {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("json") => Self::Json,
            Some("toml") => Self::Toml,
            _ => Self::Properties,
        }
    }
}

/// Reads the configuration file at `path`: `.json` as JSON, `.toml` as TOML, anything else as
/// Java properties. Like `connect-standalone`, which tries JSON before properties whatever the
/// name, a file of another extension whose first non-blank character is `{` is read as JSON
/// when it parses as JSON, and as properties otherwise.
///
/// Non-fatal remarks found while reading (duplicate keys, ignored JSON fields) are in
/// [`RawConfig::duplicate_warnings`] and are also returned by [`load_file_with_warnings`].
///
/// # Errors
/// [`ConfigError::Io`] naming the path and the OS reason when the file cannot be read;
/// [`ConfigError::Invalid`] with file and line for syntax errors.
pub fn load_file(path: &Path) -> Result<RawConfig, ConfigError> {
    load_file_with_warnings(path).map(|(raw, _)| raw)
}

/// Like [`load_file`], also returning the warnings found while reading: duplicate keys and
/// ignored fields of a JSON `CreateConnectorRequest`.
///
/// # Errors
/// As [`load_file`].
pub fn load_file_with_warnings(
    path: &Path,
) -> Result<(RawConfig, Vec<ConfigWarning>), ConfigError> {
    let bytes = std::fs::read(path).map_err(|e| ConfigError::io(path, e))?;
    parse_file_bytes(path, &bytes)
}

/// Parses `bytes` read from `path` as [`load_file_with_warnings`] would (format by `path`'s
/// extension): for callers that must know exactly which bytes a configuration came from (the
/// connector file watcher compares them with the next read).
///
/// # Errors
/// As [`load_file`], except that nothing is read.
pub fn parse_file_bytes(
    path: &Path,
    bytes: &[u8],
) -> Result<(RawConfig, Vec<ConfigWarning>), ConfigError> {
    if let Some(why) = binary_data(bytes) {
        return Err(ConfigError::single(ConfigProblem::at(
            Origin::file(path),
            format!("This is not a configuration file: it contains binary data ({why}). Check the path."),
        )));
    }
    let (raw, mut warnings) = match FileFormat::from_path(path) {
        FileFormat::Json => {
            let json = parse_json(bytes, path)?;
            (json.raw, json.warnings)
        }
        FileFormat::Toml => {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                ConfigError::io(
                    path,
                    std::io::Error::new(std::io::ErrorKind::InvalidData, e),
                )
            })?;
            (parse_toml(text, path)?, Vec::new())
        }
        FileFormat::Properties => {
            let looks_like_json = bytes
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b == b'{');
            match looks_like_json.then(|| parse_json(bytes, path)) {
                Some(Ok(json)) => (json.raw, json.warnings),
                _ => (parse_properties(bytes, path)?, Vec::new()),
            }
        }
    };
    warnings.extend(raw.duplicate_warnings().iter().cloned());
    Ok((raw, warnings))
}

/// Why `bytes` look like binary data rather than text, if they do: a NUL byte, or more than
/// one control character (other than tab, line breaks and form feed) in 20 among the first
/// 8 KiB.
fn binary_data(bytes: &[u8]) -> Option<String> {
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Some(format!("a NUL byte at offset {at}"));
    }
    let head = &bytes[..bytes.len().min(8192)];
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        .count();
    (controls * 20 > head.len()).then(|| {
        format!(
            "{controls} control characters in its first {} bytes",
            head.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(dir: &tempfile::TempDir, name: &str, content: &str) -> std::path::PathBuf {
        let path = dir.path().join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(content.as_bytes()).unwrap();
        path
    }

    #[test]
    fn format_by_extension() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(&dir, "a.properties", "name=p\n");
        let j = write(&dir, "a.JSON", "{\"name\": \"j\"}");
        let t = write(&dir, "a.toml", "name = \"t\"\n");
        let other = write(&dir, "a.conf", "name:o\n");
        assert_eq!(load_file(&p).unwrap().get("name"), Some("p"));
        assert_eq!(load_file(&j).unwrap().get("name"), Some("j"));
        assert_eq!(load_file(&t).unwrap().get("name"), Some("t"));
        assert_eq!(load_file(&other).unwrap().get("name"), Some("o"));
        assert_eq!(load_file(&t).unwrap().source(), t.as_path());
    }

    #[test]
    fn json_content_without_json_extension_is_sniffed() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            &dir,
            "c.cfg",
            "  {\"name\": \"x\", \"config\": {\"a\": \"b\"}}",
        );
        let raw = load_file(&p).unwrap();
        assert_eq!(raw.get("name"), Some("x"));
        assert_eq!(raw.get("a"), Some("b"));
        // Not JSON after all: properties, where `{` is just a key.
        let q = write(&dir, "d.cfg", "{weird=1\n");
        assert_eq!(load_file(&q).unwrap().get("{weird"), Some("1"));
    }

    #[test]
    fn unreadable_file_names_path_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.properties");
        let err = load_file(&missing).unwrap_err();
        let shown = err.to_string();
        assert!(shown.contains(&missing.display().to_string()), "{shown}");
        assert!(shown.contains("No such file or directory"), "{shown}");
        assert!(matches!(err, ConfigError::Io { .. }));
    }

    #[test]
    fn binary_garbage_is_one_short_error() {
        let dir = tempfile::tempdir().unwrap();
        let nul = dir.path().join("nul.properties");
        std::fs::write(&nul, b"name=a\nfile=\x00\x01\n").unwrap();
        let shown = load_file(&nul).unwrap_err().to_string();
        assert!(
            shown.contains("binary data (a NUL byte at offset 12)"),
            "{shown}"
        );
        let noisy = dir.path().join("noisy.json");
        std::fs::write(&noisy, b"\x01\x02\x03 abc \x1b\x1b").unwrap();
        assert!(load_file(&noisy).is_err());
        // Text with tabs, CRLF and non-ASCII is fine.
        let text = write(&dir, "t.properties", "name=\u{e9}t\u{e9}\r\nfile=\ta\n");
        assert!(load_file(&text).is_ok());
    }

    #[test]
    fn warnings_are_returned() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(&dir, "w.properties", "a=1\na=2\n");
        let (raw, warnings) = load_file_with_warnings(&p).unwrap();
        assert_eq!(raw.get("a"), Some("2"));
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].origin.line, Some(2));
    }
}
