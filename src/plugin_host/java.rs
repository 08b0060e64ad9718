//! Finding the `java` that runs the plugin host: `plugin.host.java`, else
//! `$JAVA_HOME/bin/java`, else `java` on `PATH`; its version (from `java -version`) must be 17
//! or later.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::HostError;

/// The Java that runs the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaInfo {
    /// The executable.
    pub path: PathBuf,
    /// Its version (`17.0.15`).
    pub version: String,
    /// Its feature release (`17`).
    pub major: u32,
}

/// Where to look, as the environment gives it (kept apart so tests need not touch the
/// process's environment).
#[derive(Debug, Clone, Default)]
pub struct JavaLookup {
    /// `plugin.host.java` (empty: not set).
    pub configured: String,
    /// `$JAVA_HOME`.
    pub java_home: Option<OsString>,
    /// `$PATH`.
    pub path: Option<OsString>,
}

impl JavaLookup {
    /// `plugin.host.java` with the process's `JAVA_HOME` and `PATH`.
    pub fn from_env(configured: &str) -> Self {
        Self {
            configured: configured.to_owned(),
            java_home: std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()),
            path: std::env::var_os("PATH"),
        }
    }

    /// The executable, without running it.
    ///
    /// # Errors
    /// [`HostError::NoJava`] naming each place tried.
    pub fn locate(&self) -> Result<PathBuf, HostError> {
        let mut tried = Vec::new();
        if !self.configured.trim().is_empty() {
            let configured = Path::new(self.configured.trim());
            let found = if configured.components().count() > 1 {
                executable(configured).then(|| configured.to_path_buf())
            } else {
                self.on_path(configured.as_os_str())
            };
            return found.ok_or_else(|| HostError::NoJava {
                tried: vec![format!(
                    "plugin.host.java={} is not an executable file",
                    configured.display()
                )],
            });
        }
        tried.push("plugin.host.java is not set".to_owned());
        match &self.java_home {
            Some(home) => {
                let java = Path::new(home).join("bin/java");
                if executable(&java) {
                    return Ok(java);
                }
                tried.push(format!(
                    "JAVA_HOME={} has no executable bin/java",
                    Path::new(home).display()
                ));
            }
            None => tried.push("JAVA_HOME is not set".to_owned()),
        }
        if let Some(java) = self.on_path("java".as_ref()) {
            return Ok(java);
        }
        tried.push(format!(
            "no java on PATH ({})",
            self.path
                .as_deref()
                .map_or("PATH is not set".into(), |p| p.to_string_lossy())
        ));
        Err(HostError::NoJava { tried })
    }

    fn on_path(&self, name: &std::ffi::OsStr) -> Option<PathBuf> {
        std::env::split_paths(self.path.as_deref()?)
            .map(|d| d.join(name))
            .find(|p| executable(p))
    }

    /// The executable and its version, checked to be 17 or later.
    ///
    /// # Errors
    /// No Java, one that does not run, or one older than 17.
    pub async fn find(&self) -> Result<JavaInfo, HostError> {
        let path = self.locate()?;
        let run = tokio::process::Command::new(&path)
            .arg("-version")
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .map_err(|_| HostError::Io {
                what: format!("{} -version", path.display()),
                source: std::io::Error::new(std::io::ErrorKind::TimedOut, "no answer within 60 s"),
            })?
            .map_err(HostError::io(format!(
                "running {} -version",
                path.display()
            )))?;
        // `java -version` writes to stderr; some wrappers use stdout.
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        let first = text.lines().next().unwrap_or_default().trim().to_owned();
        match parse_version(&text) {
            Some((version, major)) if major >= 17 => Ok(JavaInfo {
                path,
                version,
                major,
            }),
            _ => Err(HostError::JavaTooOld {
                java: path,
                version: if first.is_empty() {
                    format!("a program whose -version printed nothing ({})", out.status)
                } else {
                    first
                },
            }),
        }
    }
}

fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `openjdk version "17.0.15" 2025-04-15` → (`17.0.15`, 17); `java version "1.8.0_392"` → 8.
pub fn parse_version(text: &str) -> Option<(String, u32)> {
    let line = text.lines().find(|l| l.contains(" version \""))?;
    let version = line.split('"').nth(1)?.to_owned();
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let first: u32 = parts.next()?.parse().ok()?;
    let major = if first == 1 {
        parts.next()?.parse().ok()?
    } else {
        first
    };
    Some((version, major))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_of_old_and_new_javas() {
        let v = |t: &str| parse_version(t).map(|(_, m)| m);
        assert_eq!(
            parse_version("openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime"),
            Some(("17.0.15".into(), 17))
        );
        assert_eq!(v("java version \"1.8.0_392\""), Some(8));
        assert_eq!(v("openjdk version \"21\" 2023-09-19"), Some(21));
        assert_eq!(v("openjdk version \"25-ea\" 2025"), Some(25));
        assert_eq!(
            v("Picked up JAVA_TOOL_OPTIONS: x\nopenjdk version \"11.0.2\""),
            Some(11)
        );
        assert_eq!(v("nonsense"), None);
    }

    #[test]
    fn no_java_names_every_place_tried() {
        let dir = tempfile::tempdir().unwrap();
        let lookup = JavaLookup {
            configured: String::new(),
            java_home: None,
            path: Some(dir.path().as_os_str().to_owned()),
        };
        let e = lookup.locate().unwrap_err().to_string();
        for part in [
            "plugin.host.java is not set",
            "JAVA_HOME is not set",
            "no java on PATH",
            "set JAVA_HOME, put java on PATH, or set plugin.host.java",
        ] {
            assert!(e.contains(part), "{part}: {e}");
        }
        let lookup = JavaLookup {
            configured: "/nowhere/java".into(),
            ..lookup
        };
        let e = lookup.locate().unwrap_err().to_string();
        assert!(
            e.contains("plugin.host.java=/nowhere/java is not an executable file"),
            "{e}"
        );
    }
}
