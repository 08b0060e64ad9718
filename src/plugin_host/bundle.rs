//! The Java side, embedded in the `connect-rs` binary: the host's jar and the Kafka jars plugins
//! expect on their parent class path. `build.rs` generates the table; only `src/main.rs`
//! includes it (so the test binaries that link the library stay small) and hands it over with
//! [`set_bundle`]. Before the first JVM starts, [`extract`] writes the files to
//! `$XDG_CACHE_HOME/connect-rs/plugin-host/<hash>/` (else `~/.cache/...`, else the temporary
//! directory), private to the user, and reuses them while they are intact.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::error::HostError;

/// The file name of the host's own jar in the bundle.
pub const HOST_JAR: &str = "connect-rs-plugin-host.jar";
/// The host's main class.
pub const MAIN_CLASS: &str = "io.connectrs.host.Main";

/// One embedded file.
#[derive(Debug)]
pub struct BundleFile {
    /// Its file name (`connect-api-4.3.1.jar`).
    pub name: &'static str,
    /// A hash of its content (hex).
    pub hash: &'static str,
    /// Its content.
    pub bytes: &'static [u8],
}

/// What the build produced.
#[derive(Debug)]
pub enum Bundle {
    /// The host was built.
    Built {
        /// A hash over every file: the extraction directory's name.
        hash: &'static str,
        /// The files (the host's jar last).
        files: &'static [BundleFile],
    },
    /// The build could not build the host.
    Missing {
        /// Why (javac, jar or Kafka's jars missing).
        reason: &'static str,
    },
}

static BUNDLE: OnceLock<&'static Bundle> = OnceLock::new();

/// Makes `bundle` the one this process runs (the binary calls it once at start; later calls are
/// ignored).
pub fn set_bundle(bundle: &'static Bundle) {
    let _ = BUNDLE.set(bundle);
}

/// The bundle given to [`set_bundle`].
///
/// # Errors
/// [`HostError::BuiltWithoutHost`] when the build had none, or none was set.
pub fn bundle() -> Result<(&'static str, &'static [BundleFile]), HostError> {
    match BUNDLE.get() {
        Some(Bundle::Built { hash, files }) => Ok((hash, files)),
        Some(Bundle::Missing { reason }) => Err(HostError::BuiltWithoutHost {
            reason: (*reason).to_owned(),
        }),
        None => Err(HostError::BuiltWithoutHost {
            reason: "no plugin host bundle was given to the library (only the connect-rs binary \
                     embeds it)"
                .to_owned(),
        }),
    }
}

/// `plugin host: bundled (Java side built from source)` or `plugin host: not built (<reason>)`,
/// for `--version`.
pub fn status_line() -> String {
    match bundle() {
        Ok(_) => "plugin host: bundled (Java side built from source)".to_owned(),
        Err(HostError::BuiltWithoutHost { reason }) => format!("plugin host: not built ({reason})"),
        Err(e) => format!("plugin host: not built ({e})"),
    }
}

/// The bundle's files on disk.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// The directory.
    pub dir: PathBuf,
    /// The Kafka jars, in bundle order.
    pub jars: Vec<PathBuf>,
    /// The host's jar.
    pub host_jar: PathBuf,
}

static CACHE_ROOT: OnceLock<PathBuf> = OnceLock::new();

/// Extracts bundles under `dir` instead of [`cache_root`]'s default (tests; first call wins).
pub fn set_cache_root(dir: PathBuf) {
    let _ = CACHE_ROOT.set(dir);
}

/// Where bundles are extracted: `$XDG_CACHE_HOME/connect-rs/plugin-host`, else
/// `$HOME/.cache/connect-rs/plugin-host`, else `<temp>/connect-rs-<uid>/plugin-host` (or the
/// directory given to [`set_cache_root`]).
pub fn cache_root() -> PathBuf {
    if let Some(dir) = CACHE_ROOT.get() {
        return dir.clone();
    }
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(xdg) = env("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return xdg.join("connect-rs/plugin-host");
    }
    if let Some(home) = env("HOME").filter(|p| p.is_absolute()) {
        return home.join(".cache/connect-rs/plugin-host");
    }
    std::env::temp_dir()
        .join(format!("connect-rs-{}", rustix::process::getuid().as_raw()))
        .join("plugin-host")
}

/// Writes the bundle's files under [`cache_root`]`/<hash>/` (directories 0700, files 0600, each
/// written to a temporary file and renamed), or reuses those there when their bytes are the
/// bundle's.
///
/// # Errors
/// No bundle, or the I/O error naming the file.
pub fn extract() -> Result<Extracted, HostError> {
    let (hash, files) = bundle()?;
    extract_to(&cache_root().join(hash), files)
}

/// [`extract`] into `dir`.
///
/// # Errors
/// The I/O error naming the file.
pub fn extract_to(dir: &Path, files: &[BundleFile]) -> Result<Extracted, HostError> {
    crate::fs_private::create_dir_all(dir)
        .map_err(HostError::io(format!("creating {}", dir.display())))?;
    check_private(dir)?;
    let mut jars = Vec::new();
    let mut host_jar = None;
    for file in files {
        let path = dir.join(file.name);
        if std::fs::read(&path).ok().as_deref() != Some(file.bytes) {
            let mut tmp = crate::fs_private::temp_file_in(dir).map_err(HostError::io(format!(
                "creating a file in {}",
                dir.display()
            )))?;
            tmp.write_all(file.bytes)
                .and_then(|()| tmp.as_file().sync_all())
                .map_err(HostError::io(format!("writing {}", path.display())))?;
            tmp.persist(&path)
                .map_err(|e| HostError::io(format!("writing {}", path.display()))(e.error))?;
        }
        if file.name == HOST_JAR {
            host_jar = Some(path);
        } else {
            jars.push(path);
        }
    }
    let host_jar = host_jar.ok_or_else(|| HostError::BuiltWithoutHost {
        reason: format!("the bundle has no {HOST_JAR}"),
    })?;
    Ok(Extracted {
        dir: dir.to_path_buf(),
        jars,
        host_jar,
    })
}

/// The directory must be the user's own and closed to others: the JVM loads code from it.
fn check_private(dir: &Path) -> Result<(), HostError> {
    use std::os::unix::fs::MetadataExt;
    let meta =
        std::fs::metadata(dir).map_err(HostError::io(format!("reading {}", dir.display())))?;
    let uid = rustix::process::getuid().as_raw();
    if meta.uid() != uid || meta.mode() & 0o022 != 0 {
        return Err(HostError::Io {
            what: format!("using {} for the plugin host's jars", dir.display()),
            source: std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "it belongs to uid {} with mode {:04o}; it must be the worker user's (uid {uid}) \
                     and not writable by others",
                    meta.uid(),
                    meta.mode() & 0o7777
                ),
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    static FILES: [BundleFile; 2] = [
        BundleFile {
            name: "a-1.jar",
            hash: "1",
            bytes: b"aaa",
        },
        BundleFile {
            name: HOST_JAR,
            hash: "2",
            bytes: b"host",
        },
    ];

    #[test]
    fn extraction_is_private_reuses_intact_files_and_repairs_changed_ones() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("x/hash");
        let e = extract_to(&dir, &FILES).unwrap();
        assert_eq!(e.jars, vec![dir.join("a-1.jar")]);
        assert_eq!(e.host_jar, dir.join(HOST_JAR));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&e.host_jar), 0o600);
        assert_eq!(std::fs::read(&e.host_jar).unwrap(), b"host");

        let before = std::fs::metadata(&e.jars[0]).unwrap().ino_and_mtime();
        std::fs::write(&e.host_jar, b"tampered").unwrap();
        extract_to(&dir, &FILES).unwrap();
        assert_eq!(std::fs::read(&e.host_jar).unwrap(), b"host", "repaired");
        assert_eq!(
            std::fs::metadata(&e.jars[0]).unwrap().ino_and_mtime(),
            before,
            "an intact file is reused, not rewritten"
        );

        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = extract_to(&dir, &FILES).unwrap_err().to_string();
        assert!(err.contains("not writable by others"), "{err}");
    }

    trait InoMtime {
        fn ino_and_mtime(&self) -> (u64, i64, i64);
    }
    impl InoMtime for std::fs::Metadata {
        fn ino_and_mtime(&self) -> (u64, i64, i64) {
            use std::os::unix::fs::MetadataExt;
            (self.ino(), self.mtime(), self.mtime_nsec())
        }
    }
}
