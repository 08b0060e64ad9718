//! Earlier `plugin.path` scans, reused while nothing they depend on changed, so that a worker
//! restarted on an unchanged `plugin.path` discovers its Java plugins without starting a JVM
//! (`plugin.host.scan.cache`, true by default; Kafka Connect scans at every start).
//!
//! A [`ScanKey`] is everything the host's answer depends on: the [`ScanRequest`] (discovery
//! mode, locations and their URLs, `plugin.host.classpath`), the plugin host bundle's hash (a
//! connect-rs build with another Java scanner never reuses an older answer), connect-rs's
//! version, the JVM (its executable, `release` and `lib/modules` files, options and the
//! `JAVA_TOOL_OPTIONS`-style variables it reads) and, for every file the scan can read (each
//! location's tree, each URL, each class path entry, links followed), its path, size,
//! modification and change times (ns) and inode. The value is the host's answer as it came.
//!
//! [`ScanCache`] keeps one file per key under the user's cache directory
//! ([`super::bundle::cache_root`]`/scans/<hash>.json`, 0700/0600, written to a temporary file
//! and renamed), holding the whole key (a hash collision is a miss, never a wrong answer) and
//! the answer; the [`KEEP`] most recently used files are kept. Whatever goes wrong with the
//! cache (an unreadable or corrupt file, a directory others can write) is a miss logged at
//! DEBUG, never an error.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::scan::ScanRequest;

/// How many cache files are kept (the most recently used).
pub const KEEP: usize = 16;

/// The layout of [`ScanKey`] and of the cache files; changed when either changes.
const FORMAT: u32 = 1;

/// The environment variables the `java` launcher reads options from.
const JAVA_ENV: [&str; 3] = ["JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"];

/// One file the scan may read, as it is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// The path (absolute).
    pub path: String,
    /// Its size, `None` when it does not exist (a dangling link, a missing class path entry).
    pub size: Option<u64>,
    /// Its modification time, ns since the epoch.
    pub mtime_ns: i128,
    /// Its status change time, ns since the epoch (changes with every write, rename or touch,
    /// even one that restores the modification time).
    pub ctime_ns: i128,
    /// Its inode (a file replaced by another has another).
    pub ino: u64,
}

impl FileStamp {
    fn of(path: &Path, meta: Option<&std::fs::Metadata>) -> Self {
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Self {
            path: path.to_string_lossy().into_owned(),
            size: meta.map(MetadataExt::size),
            mtime_ns: meta.map_or(0, |m| ns(m.mtime(), m.mtime_nsec())),
            ctime_ns: meta.map_or(0, |m| ns(m.ctime(), m.ctime_nsec())),
            ino: meta.map_or(0, MetadataExt::ino),
        }
    }
}

/// What a scan's answer depends on; equal keys, equal answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanKey {
    /// [`FORMAT`].
    pub format: u32,
    /// connect-rs's version.
    pub connect_rs: String,
    /// The plugin host bundle's hash.
    pub bundle: String,
    /// The request the host would be sent.
    pub request: ScanRequest,
    /// The `java` executable (links resolved).
    pub java: String,
    /// `plugin.host.jvm.options`.
    pub jvm_options: Vec<String>,
    /// The `java` launcher's option variables that are set.
    pub env: BTreeMap<String, String>,
    /// The directory relative class path entries are read from.
    pub cwd: String,
    /// Every file the scan may read, sorted by path.
    pub files: Vec<FileStamp>,
}

/// The inputs of [`ScanKey::compute`].
#[derive(Debug, Clone)]
pub struct KeyInputs<'a> {
    /// The request.
    pub request: &'a ScanRequest,
    /// The plugin host bundle's hash.
    pub bundle: &'a str,
    /// The `java` executable that would run the host.
    pub java: &'a Path,
    /// `plugin.host.jvm.options`.
    pub jvm_options: &'a [String],
    /// The worker's current directory (the JVM's).
    pub cwd: &'a Path,
    /// The values of [`JAVA_ENV`] that are set.
    pub env: BTreeMap<String, String>,
}

impl<'a> KeyInputs<'a> {
    /// The inputs for `request` run by `java` with `jvm_options` in `cwd`, with the process's
    /// environment.
    pub fn from_process(
        request: &'a ScanRequest,
        bundle: &'a str,
        java: &'a Path,
        jvm_options: &'a [String],
        cwd: &'a Path,
    ) -> Self {
        let env = JAVA_ENV
            .iter()
            .filter_map(|k| {
                let v = std::env::var_os(k)?;
                Some(((*k).to_owned(), v.to_string_lossy().into_owned()))
            })
            .collect();
        Self {
            request,
            bundle,
            java,
            jvm_options,
            cwd,
            env,
        }
    }
}

impl ScanKey {
    /// The key of a scan with these inputs, the files as they are now.
    ///
    /// # Errors
    /// A file or directory whose state cannot be read (other than a missing one): such a scan
    /// is not cached.
    pub fn compute(inputs: &KeyInputs<'_>) -> io::Result<Self> {
        let mut files = Stamps::default();
        let java = std::fs::canonicalize(inputs.java)?;
        files.file(&java)?;
        if let Some(home) = java.parent().and_then(Path::parent) {
            files.file(&home.join("release"))?;
            files.file(&home.join("lib/modules"))?;
        }
        for location in &inputs.request.locations {
            files.tree(Path::new(&location.path))?;
            for url in &location.urls {
                files.tree(Path::new(url))?;
            }
        }
        for entry in &inputs.request.classpath {
            let path = inputs.cwd.join(entry);
            match path.file_name().and_then(|n| n.to_str()) {
                // The launcher's `dir/*`: the archives of `dir`.
                Some("*") => {
                    if let Some(dir) = path.parent() {
                        files.listing(dir)?;
                    }
                }
                _ => files.tree(&path)?,
            }
        }
        Ok(Self {
            format: FORMAT,
            connect_rs: env!("CARGO_PKG_VERSION").to_owned(),
            bundle: inputs.bundle.to_owned(),
            request: inputs.request.clone(),
            java: java.to_string_lossy().into_owned(),
            jvm_options: inputs.jvm_options.to_vec(),
            env: inputs.env.clone(),
            cwd: inputs.cwd.to_string_lossy().into_owned(),
            files: files.0.into_values().collect(),
        })
    }

    /// The key's file name stem: a 128-bit FNV-1a hash of the whole key, in hex.
    pub fn id(&self) -> String {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
        for b in bytes {
            h ^= u128::from(b);
            h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
        }
        format!("{h:032x}")
    }
}

/// The stamps gathered so far, by path (a file met twice counts once).
#[derive(Default)]
struct Stamps(BTreeMap<PathBuf, FileStamp>);

impl Stamps {
    /// `path` itself, links followed; a missing one is recorded as missing.
    fn file(&mut self, path: &Path) -> io::Result<Option<std::fs::Metadata>> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(annotate(path, e)),
        };
        self.0
            .insert(path.to_owned(), FileStamp::of(path, meta.as_ref()));
        Ok(meta)
    }

    /// `path` and, for a directory, every file below it (links followed, each directory once).
    fn tree(&mut self, path: &Path) -> io::Result<()> {
        let mut seen = HashSet::new();
        self.walk(path, &mut seen)
    }

    fn walk(&mut self, path: &Path, seen: &mut HashSet<PathBuf>) -> io::Result<()> {
        let Some(meta) = self.file(path)? else {
            return Ok(());
        };
        if !meta.is_dir() {
            return Ok(());
        }
        let real = std::fs::canonicalize(path).map_err(|e| annotate(path, e))?;
        if !seen.insert(real) {
            return Ok(());
        }
        for child in sorted_children(path)? {
            self.walk(&child, seen)?;
        }
        Ok(())
    }

    /// The direct children of `dir` (a `dir/*` class path entry).
    fn listing(&mut self, dir: &Path) -> io::Result<()> {
        if self.file(dir)?.is_some_and(|m| m.is_dir()) {
            for child in sorted_children(dir)? {
                self.file(&child)?;
            }
        }
        Ok(())
    }
}

fn sorted_children(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut children = std::fs::read_dir(dir)
        .and_then(|entries| {
            entries
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| annotate(dir, e))?;
    children.sort();
    Ok(children)
}

fn annotate(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// A cache file: the whole key and the host's answer.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    key: ScanKey,
    result: Value,
}

/// The cache directory.
#[derive(Debug, Clone)]
pub struct ScanCache {
    dir: PathBuf,
}

impl ScanCache {
    /// The cache in `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The user's: [`super::bundle::cache_root`]`/scans`.
    pub fn user() -> Self {
        Self::new(super::bundle::cache_root().join("scans"))
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &ScanKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.id()))
    }

    /// The answer stored for `key`, if any; every reason there is none is logged at DEBUG.
    /// A hit makes the file the most recently used.
    pub fn load(&self, key: &ScanKey) -> Option<Value> {
        let path = self.path(key);
        if let Err(e) = check_private(&self.dir) {
            tracing::debug!("plugin.path scan cache not used: {e}");
            return None;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                tracing::debug!("no cached plugin.path scan in {}: {e}", path.display());
                return None;
            }
        };
        let entry: Entry = match serde_json::from_slice(&bytes) {
            Ok(e) => e,
            Err(e) => {
                tracing::debug!(
                    "ignoring the corrupt plugin.path scan cache file {}: {e}",
                    path.display()
                );
                return None;
            }
        };
        if entry.key != *key {
            tracing::debug!(
                "the plugin.path scan cache file {} is for another scan",
                path.display()
            );
            return None;
        }
        if let Ok(f) = std::fs::File::options().write(true).open(&path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        tracing::debug!("plugin.path scan answered from {}", path.display());
        Some(entry.result)
    }

    /// Stores `result` for `key` (a temporary file renamed over the key's file), then removes
    /// all but the [`KEEP`] most recently used files.
    ///
    /// # Errors
    /// The I/O error, naming the file or directory.
    pub fn store(&self, key: &ScanKey, result: &Value) -> io::Result<()> {
        crate::fs_private::create_dir_all(&self.dir).map_err(|e| annotate(&self.dir, e))?;
        check_private(&self.dir)?;
        let path = self.path(key);
        let entry = Entry {
            key: key.clone(),
            result: result.clone(),
        };
        let bytes = serde_json::to_vec(&entry)?;
        let mut tmp =
            crate::fs_private::temp_file_in(&self.dir).map_err(|e| annotate(&self.dir, e))?;
        tmp.write_all(&bytes)
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| annotate(&path, e))?;
        tmp.persist(&path).map_err(|e| annotate(&path, e.error))?;
        self.prune();
        Ok(())
    }

    /// Removes all but the [`KEEP`] most recently used cache files.
    fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
            .collect();
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        for (_, old) in files.into_iter().skip(KEEP) {
            if let Err(e) = std::fs::remove_file(&old) {
                tracing::debug!(
                    "removing the old plugin.path scan cache file {}: {e}",
                    old.display()
                );
            }
        }
    }
}

/// The directory must be the user's and not writable by others: its answers are trusted.
fn check_private(dir: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(dir).map_err(|e| annotate(dir, e))?;
    let uid = rustix::process::getuid().as_raw();
    if meta.uid() != uid || meta.mode() & 0o022 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} belongs to uid {} with mode {:04o}; it must be the worker user's (uid {uid}) \
                 and not writable by others",
                dir.display(),
                meta.uid(),
                meta.mode() & 0o7777
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin_host::scan::{DiscoveryMode, ScanLocation};
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, SystemTime};

    struct Setup {
        root: tempfile::TempDir,
        request: ScanRequest,
    }

    impl Setup {
        /// A jar location, a class directory location and a `java`.
        fn new() -> Self {
            let root = tempfile::tempdir().unwrap();
            let p = root.path();
            for (file, bytes) in [
                ("plugins/a/x.jar", &b"jar"[..]),
                ("plugins/c/org/C.class", b"cafe"),
                ("jdk/bin/java", b"#!"),
                ("jdk/release", b"JAVA_VERSION=\"17\""),
            ] {
                std::fs::create_dir_all(p.join(file).parent().unwrap()).unwrap();
                std::fs::write(p.join(file), bytes).unwrap();
            }
            let s = |rel: &str| p.join(rel).display().to_string();
            let request = ScanRequest {
                mode: DiscoveryMode::HybridWarn,
                locations: vec![
                    ScanLocation {
                        path: s("plugins/a"),
                        urls: vec![s("plugins/a/x.jar")],
                    },
                    ScanLocation {
                        path: s("plugins/c"),
                        urls: vec![s("plugins/c")],
                    },
                ],
                classpath: vec!["cp/*".into()],
            };
            Self { root, request }
        }

        fn path(&self, rel: &str) -> PathBuf {
            self.root.path().join(rel)
        }

        fn key_with(&self, bundle: &str, options: &[String]) -> ScanKey {
            let java = self.path("jdk/bin/java");
            let inputs = KeyInputs {
                request: &self.request,
                bundle,
                java: &java,
                jvm_options: options,
                cwd: self.root.path(),
                env: BTreeMap::new(),
            };
            ScanKey::compute(&inputs).unwrap()
        }

        fn key(&self) -> ScanKey {
            self.key_with("b1", &[])
        }
    }

    fn set_mtime(path: &Path, t: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[test]
    fn the_key_is_stable_and_changes_with_every_input() {
        let s = Setup::new();
        let k = s.key();
        assert_eq!(k, s.key(), "same inputs, same key");
        assert_eq!(k.id(), s.key().id());
        assert_eq!(k.id().len(), 32);
        assert!(k
            .files
            .iter()
            .any(|f| f.path.ends_with("plugins/c/org/C.class")));
        let mut ids = vec![k.id()];
        let mut changed = |what: &str, key: ScanKey| {
            assert!(!ids.contains(&key.id()), "{what} gives a new key");
            ids.push(key.id());
        };

        let jar = s.path("plugins/a/x.jar");
        set_mtime(
            &jar,
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000),
        );
        changed("a jar's mtime", s.key());
        set_mtime(
            &jar,
            SystemTime::UNIX_EPOCH + Duration::from_nanos(1_000_000_000_000_000_001),
        );
        changed("a jar's mtime by 1 ns", s.key());
        std::fs::write(&jar, b"jar2").unwrap();
        changed("a jar's size", s.key());
        std::fs::write(s.path("plugins/c/org/D.class"), b"x").unwrap();
        changed("a file added below a class directory", s.key());
        std::fs::create_dir_all(s.path("cp")).unwrap();
        std::fs::write(s.path("cp/lib.jar"), b"x").unwrap();
        changed("a jar in a `dir/*` class path entry", s.key());
        changed("the bundle", s.key_with("b2", &[]));
        changed("the JVM options", s.key_with("b1", &["-Dx=1".to_owned()]));
        std::fs::write(s.path("jdk/release"), b"JAVA_VERSION=\"21\"").unwrap();
        changed("the Java", s.key());
        let last = s.key();
        assert_eq!(last, s.key(), "stable again once nothing changes");
    }

    #[test]
    fn a_missing_url_is_part_of_the_key_and_an_unreadable_tree_has_none() {
        let s = Setup::new();
        let before = s.key();
        std::fs::remove_file(s.path("plugins/a/x.jar")).unwrap();
        let missing = s.key();
        assert_ne!(before, missing);
        assert!(missing
            .files
            .iter()
            .any(|f| f.path.ends_with("x.jar") && f.size.is_none()));

        let org = s.path("plugins/c/org");
        std::fs::set_permissions(&org, std::fs::Permissions::from_mode(0o000)).unwrap();
        let java = s.path("jdk/bin/java");
        let inputs = KeyInputs {
            request: &s.request,
            bundle: "b1",
            java: &java,
            jvm_options: &[],
            cwd: s.root.path(),
            env: BTreeMap::new(),
        };
        let unreadable = ScanKey::compute(&inputs);
        std::fs::set_permissions(&org, std::fs::Permissions::from_mode(0o700)).unwrap();
        // root reads every directory; anyone else cannot key (and so cache) such a scan.
        if rustix::process::getuid().as_raw() != 0 {
            let e = unreadable.unwrap_err().to_string();
            assert!(e.contains(&org.display().to_string()), "{e}");
        }
    }

    #[test]
    fn answers_are_stored_privately_reloaded_bounded_and_a_corrupt_file_is_a_miss() {
        let s = Setup::new();
        let cache = ScanCache::new(s.path("cache/scans"));
        let key = s.key();
        assert_eq!(cache.load(&key), None, "nothing stored yet");
        let answer: Value = serde_json::from_str(
            r#"{"plugins":[],"errors":[{"location":"/p","class":null,"message":"m","trace":null}],"hybrid_report":null,"hybrid_message":"w"}"#,
        )
        .unwrap();
        cache.store(&key, &answer).unwrap();
        assert_eq!(cache.load(&key), Some(answer.clone()));
        let file = cache.path(&key);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(cache.dir()), 0o700);
        assert_eq!(mode(&file), 0o600);

        // Another key (even one whose file name is taken) is a miss.
        let other = s.key_with("b2", &[]);
        std::fs::copy(&file, cache.path(&other)).unwrap();
        assert_eq!(cache.load(&other), None, "a file holding another key");

        std::fs::write(&file, b"{\"key\":").unwrap();
        assert_eq!(cache.load(&key), None, "a corrupt file");
        cache.store(&key, &answer).unwrap();
        assert_eq!(cache.load(&key), Some(answer.clone()), "rewritten");

        // Bounded: the most recently used files stay.
        for i in 0..KEEP + 3 {
            let k = s.key_with(&format!("n{i}"), &[]);
            cache.store(&k, &answer).unwrap();
        }
        let files = std::fs::read_dir(cache.dir()).unwrap().count();
        assert_eq!(files, KEEP);
        let newest = s.key_with(&format!("n{}", KEEP + 2), &[]);
        assert!(cache.load(&newest).is_some());

        // A directory others can write is not trusted.
        std::fs::set_permissions(cache.dir(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(cache.load(&newest), None);
        assert!(cache.store(&newest, &answer).is_err());
    }
}
