//! Which connector files the command line names: each file as given, and the connector files
//! directly inside each directory given.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// The extensions a file in a connector directory must have to be read (case-insensitive).
pub const EXTENSIONS: [&str; 3] = ["properties", "json", "toml"];

/// One `CONNECTOR_FILE` argument.
#[derive(Debug, Clone)]
enum Source {
    /// A file, read whatever its name.
    File {
        /// As given.
        path: PathBuf,
        /// Absolute (not canonical: a symbolic link stays one), to match watch events.
        absolute: PathBuf,
        /// Where a symbolic link leads (at start), so that an edit of its target is seen too.
        target: Option<PathBuf>,
    },
    /// A directory: its connector files ([`is_connector_file_name`]), not its subdirectories.
    Dir {
        /// As given.
        path: PathBuf,
        /// Absolute, to match watch events.
        absolute: PathBuf,
    },
}

/// The `CONNECTOR_FILE` arguments, each known as a file or a directory (decided once, at start).
#[derive(Debug, Clone)]
pub struct Sources {
    sources: Vec<Source>,
}

impl Sources {
    /// Classifies the arguments: an existing directory is a directory, anything else a file
    /// (a missing one is reported when it is read).
    pub fn new(args: &[PathBuf]) -> Self {
        let sources = args
            .iter()
            .map(|path| {
                let absolute = std::path::absolute(path).unwrap_or_else(|_| path.clone());
                if path.is_dir() {
                    Source::Dir {
                        path: path.clone(),
                        absolute,
                    }
                } else {
                    let target = std::fs::canonicalize(path).ok().filter(|t| *t != absolute);
                    Source::File {
                        path: path.clone(),
                        absolute,
                        target,
                    }
                }
            })
            .collect();
        Self { sources }
    }

    /// The connector files now: every file argument (present or not, in order), then the
    /// connector files of each directory (sorted by name) that were not listed already.
    ///
    /// A directory that no longer exists lists nothing.
    ///
    /// # Errors
    /// Every directory that cannot be read, with the reason.
    pub fn list(&self) -> Result<Vec<PathBuf>, Vec<String>> {
        let absolute = |f: &PathBuf| std::path::absolute(f).unwrap_or_else(|_| f.clone());
        // A file given twice stays twice (the duplicate-name check names it); a directory's
        // file that is also given, or reached through a second directory argument, is once.
        let mut files: Vec<PathBuf> = self
            .sources
            .iter()
            .filter_map(|s| match s {
                Source::File { path, .. } => Some(path.clone()),
                Source::Dir { .. } => None,
            })
            .collect();
        let mut seen: std::collections::HashSet<PathBuf> = files.iter().map(absolute).collect();
        let mut problems = Vec::new();
        for source in &self.sources {
            if let Source::Dir { path, .. } = source {
                match list_dir(path) {
                    Ok(found) => {
                        files.extend(found.into_iter().filter(|f| seen.insert(absolute(f))))
                    }
                    Err(e) => problems.push(format!(
                        "Cannot read connector directory {}: {e}",
                        path.display()
                    )),
                }
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(files)
    }

    /// Per directory argument: the directory as given, how many connector files it holds, and
    /// the names of its other files, which are not read (editors' leftovers, hidden names and
    /// names ending `~` or `#`, are left out).
    pub fn directory_contents(&self) -> Vec<(PathBuf, usize, Vec<String>)> {
        let mut out = Vec::new();
        for source in &self.sources {
            let Source::Dir { path, .. } = source else {
                continue;
            };
            let Ok(entries) = std::fs::read_dir(path) else {
                continue;
            };
            let mut found = 0;
            let mut other = Vec::new();
            for entry in entries.flatten() {
                let name = entry.file_name();
                if !std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
                    continue;
                }
                if is_connector_file_name(&name) {
                    found += 1;
                    continue;
                }
                let name = name.to_string_lossy().into_owned();
                if !(name.starts_with('.') || name.ends_with('~') || name.ends_with('#')) {
                    other.push(name);
                }
            }
            other.sort();
            out.push((path.clone(), found, other));
        }
        out
    }

    /// The directories to watch (absolute, each once): each directory argument and the parent
    /// of each file argument (and of its target, when it is a symbolic link). Watching directories rather than files sees an editor's
    /// rename-over-the-original save, which replaces the file's inode.
    pub fn watched_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let mut add = |dir: Option<&Path>| {
            if let Some(dir) = dir {
                if !dirs.iter().any(|d| d == dir) {
                    dirs.push(dir.to_owned());
                }
            }
        };
        for source in &self.sources {
            match source {
                Source::Dir { absolute, .. } => add(Some(absolute)),
                Source::File {
                    absolute, target, ..
                } => {
                    add(absolute.parent());
                    add(target.as_deref().and_then(Path::parent));
                }
            }
        }
        dirs
    }

    /// Whether a change at `path` (absolute, as a watch event names it) may change a connector
    /// file: a file argument or its link's target, a connector file in a directory argument, a watched directory
    /// itself, or a name starting with `..` in a watched directory (Kubernetes swaps a mounted
    /// ConfigMap's files through a `..data` link).
    pub fn is_relevant(&self, path: &Path) -> bool {
        let parent = path.parent();
        let name = path.file_name();
        self.sources.iter().any(|source| match source {
            Source::File {
                absolute, target, ..
            } => {
                absolute == path
                    || target.as_deref() == Some(path)
                    || absolute.parent() == Some(path)
                    || (absolute.parent() == parent && name.is_some_and(kubernetes_link))
            }
            Source::Dir { absolute, .. } => {
                absolute == path
                    || (Some(absolute.as_path()) == parent
                        && name.is_some_and(|n| is_connector_file_name(n) || kubernetes_link(n)))
            }
        })
    }
}

/// `..data`, `..2024_01_01_00_00_00.123`: the links and directories of a Kubernetes volume.
fn kubernetes_link(name: &OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b"..")
}

/// Whether a directory entry named `name` is read as a connector file: it ends with
/// `.properties`, `.json` or `.toml` (any case) and does not start with a dot. Editors' backup,
/// swap and lock files (`a.properties~`, `.a.properties.swp`, `#a.properties#`,
/// `.#a.properties`) and temporary files (`a.properties.tmp`) are therefore not read.
pub fn is_connector_file_name(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    if name.starts_with('.') {
        return false;
    }
    match name.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty() && EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e))
        }
        None => false,
    }
}

/// The connector files directly in `dir`, sorted; a missing directory has none. Entries that
/// are not regular files (or links to one) are skipped.
fn list_dir(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        if !is_connector_file_name(&entry.file_name()) {
            continue;
        }
        let path = entry.path();
        // Follows links; a dangling link or a vanished entry is not a file.
        if std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connector_file_names() {
        for ok in [
            "a.properties",
            "b.json",
            "c.toml",
            "D.PROPERTIES",
            "x.y.json",
        ] {
            assert!(is_connector_file_name(OsStr::new(ok)), "{ok}");
        }
        for no in [
            "a.properties~",
            ".a.properties.swp",
            "#a.properties#",
            ".#a.properties",
            ".hidden.json",
            "a.properties.tmp",
            "4913",
            "README",
            ".properties",
            "..data",
            "notes.txt",
        ] {
            assert!(!is_connector_file_name(OsStr::new(no)), "{no}");
        }
    }

    #[test]
    fn lists_files_as_given_then_directory_files_sorted_once() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("conf.d");
        std::fs::create_dir(&conf).unwrap();
        for name in [
            "b.json",
            "a.properties",
            "a.properties~",
            ".a.properties.swp",
            "x.txt",
        ] {
            std::fs::write(conf.join(name), "name=x\n").unwrap();
        }
        std::fs::create_dir(conf.join("sub.toml")).unwrap();
        let single = dir.path().join("single.properties");
        let sources = Sources::new(&[
            single.clone(),
            conf.clone(),
            conf.join("b.json"),
            single.clone(),
        ]);
        // A file given twice stays twice (for the duplicate check); b.json is read once.
        assert_eq!(
            sources.list().unwrap(),
            [
                single.clone(),
                conf.join("b.json"),
                single.clone(),
                conf.join("a.properties")
            ]
        );
        assert_eq!(
            sources.watched_dirs(),
            [dir.path().to_owned(), conf.clone()]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_file_is_watched_where_it_leads_too() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        let conf = dir.path().join("conf");
        std::fs::create_dir(&real).unwrap();
        std::fs::create_dir(&conf).unwrap();
        std::fs::write(real.join("a.properties"), "name=a\n").unwrap();
        std::os::unix::fs::symlink(real.join("a.properties"), conf.join("a.properties")).unwrap();
        let sources = Sources::new(&[conf.join("a.properties")]);
        let real = std::fs::canonicalize(&real).unwrap();
        assert_eq!(sources.watched_dirs(), [conf.clone(), real.clone()]);
        assert!(sources.is_relevant(&real.join("a.properties")));
        assert!(!sources.is_relevant(&real.join("b.properties")));
    }

    #[test]
    fn a_vanished_directory_lists_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("conf.d");
        std::fs::create_dir(&conf).unwrap();
        let sources = Sources::new(std::slice::from_ref(&conf));
        std::fs::remove_dir(&conf).unwrap();
        assert!(sources.list().unwrap().is_empty());
    }

    #[test]
    fn relevant_paths() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("conf.d");
        std::fs::create_dir(&conf).unwrap();
        let single = dir.path().join("single.properties");
        let sources = Sources::new(&[single.clone(), conf.clone()]);
        assert!(sources.is_relevant(&single));
        assert!(sources.is_relevant(&conf.join("new.json")));
        assert!(sources.is_relevant(&conf.join("..data")));
        assert!(sources.is_relevant(&dir.path().join("..data")));
        assert!(sources.is_relevant(&conf));
        assert!(sources.is_relevant(dir.path()));
        // Output files, temp files and swap files next to the connector files are not.
        assert!(!sources.is_relevant(&dir.path().join("out.txt")));
        assert!(!sources.is_relevant(&dir.path().join("other.properties")));
        assert!(!sources.is_relevant(&conf.join(".new.json.swp")));
        assert!(!sources.is_relevant(&conf.join("new.json.tmp")));
        assert!(!sources.is_relevant(&conf.join("sub/a.json")));
    }
}
