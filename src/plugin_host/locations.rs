//! `plugin.path` → plugin locations, as Kafka Connect computes them
//! (`PluginUtils.pluginLocations(pluginPath, failFast = false)` and `PluginUtils.pluginUrls`).
//!
//! Each *location* becomes one isolated class loader in the plugin host; its *URLs* are the
//! archives (or the class directory) that loader reads. The functions are pure file-system
//! walks: nothing is logged here; every problem Kafka would log is returned as a
//! [`LocationProblem`] (with Kafka's text as its `Display`) so the worker log, `doctor` and error
//! messages can show it.
//!
//! Kafka's rules, in order:
//! - the value is trimmed and split on `\s*,\s*`; an empty element means the current directory
//!   (WARN "Plugin path element is empty, evaluating to {}."); each element is made absolute;
//! - a missing element is ERROR "Could not get listing for plugin path: {}. Ignoring." and is
//!   skipped (the worker goes on);
//! - a directory element contributes each direct child that is a directory (following links), a
//!   `.jar`/`.zip` (any case) or a `.class` file, in directory-listing order; an archive element
//!   is one location; anything else is ignored silently;
//! - a location's URLs: an archive → itself (`SINGLE_JAR`); a directory → every archive below it
//!   (links followed, dangling links skipped with a WARN, cycles cut by a visited set), sorted; a
//!   tree of only `.class` files → the directory itself (`CLASS_HIERARCHY`); both archives and
//!   classes → the archives only, with Kafka's WARN;
//! - a location whose listing fails (e.g. a `.class` file child) is ERROR "Could not get listing
//!   for plugin path: {}. Ignoring." and yields no loader.

use std::collections::HashSet;
use std::fmt;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How a location's URLs were found (Kafka's `PluginSource.Type`, without `CLASSPATH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum LocationKind {
    /// The location is one archive (an "uber-jar").
    SingleJar,
    /// A directory whose archives (at any depth) are the URLs.
    MultiJar,
    /// A directory of `.class` files (no archive below it): the directory itself is the URL.
    ClassHierarchy,
}

/// One plugin location: one isolated class loader over `urls`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginLocation {
    /// The location as Kafka names it (the `plugin.path` child, absolute, not canonicalised).
    pub path: PathBuf,
    /// How the URLs were found.
    pub kind: LocationKind,
    /// The archives (or the class directory) the location's loader reads.
    pub urls: Vec<PathBuf>,
}

/// How serious a [`LocationProblem`] is: the level Kafka logs it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Kafka logs it at WARN.
    Warn,
    /// Kafka logs it at ERROR (the element or location is ignored).
    Error,
}

/// Something Kafka Connect would log while reading `plugin.path`; never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocationProblem {
    /// An empty `plugin.path` element (e.g. `a,,b`), taken as the current directory.
    EmptyElement {
        /// The directory it evaluates to.
        evaluates_to: PathBuf,
    },
    /// A `plugin.path` element that does not exist or cannot be listed; it is ignored.
    UnreadableElement {
        /// The element as written in `plugin.path`.
        element: String,
        /// Why (the I/O error, or "not found: PATH").
        reason: String,
    },
    /// A location whose tree cannot be listed (for example a `.class` file directly in a
    /// `plugin.path` directory); it gets no loader.
    UnreadableLocation {
        /// The location.
        location: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// A symbolic link below a location that cannot be resolved (dangling, loop, no access).
    BrokenLink {
        /// The link.
        link: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// A location with both archives and `.class` files: only the archives are used.
    ArchivesAndClasses {
        /// The location.
        location: PathBuf,
    },
}

impl LocationProblem {
    /// The level Kafka Connect logs this problem at.
    pub fn severity(&self) -> Severity {
        match self {
            Self::UnreadableElement { .. } | Self::UnreadableLocation { .. } => Severity::Error,
            Self::EmptyElement { .. }
            | Self::BrokenLink { .. }
            | Self::ArchivesAndClasses { .. } => Severity::Warn,
        }
    }
}

impl fmt::Display for LocationProblem {
    /// Kafka Connect's log text for the problem (its cause appended after `: `).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyElement { evaluates_to } => write!(
                f,
                "Plugin path element is empty, evaluating to {}.",
                evaluates_to.display()
            ),
            Self::UnreadableElement { element, reason } => write!(
                f,
                "Could not get listing for plugin path: {element}. Ignoring. ({reason})"
            ),
            Self::UnreadableLocation { location, reason } => write!(
                f,
                "Could not get listing for plugin path: {}. Ignoring. ({reason})",
                location.display()
            ),
            Self::BrokenLink { link, reason } => write!(
                f,
                "Resolving symbolic link '{}' failed. Ignoring this path. ({reason})",
                link.display()
            ),
            Self::ArchivesAndClasses { .. } => f.write_str(
                "Plugin path contains both java archives and class files. Returning only the archives",
            ),
        }
    }
}

/// Everything `plugin.path` resolves to: the locations and the problems met on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginLocations {
    /// The locations, in Kafka's order (elements in order, children in listing order).
    pub locations: Vec<PluginLocation>,
    /// What Kafka would have logged, in the order met.
    pub problems: Vec<LocationProblem>,
}

/// Resolves a `plugin.path` value (`None` when the key is unset) into locations with their URLs,
/// relative elements against the process's current directory.
pub fn resolve(plugin_path: Option<&str>) -> PluginLocations {
    let cwd = std::env::current_dir().unwrap_or_default();
    resolve_in(plugin_path, &cwd)
}

/// [`resolve`] with relative elements taken against `cwd`.
pub fn resolve_in(plugin_path: Option<&str>, cwd: &Path) -> PluginLocations {
    let mut out = PluginLocations::default();
    for location in location_paths(plugin_path, cwd, &mut out.problems) {
        match plugin_urls(&location, &mut out.problems) {
            Ok((kind, urls)) => out.locations.push(PluginLocation {
                path: location,
                kind,
                urls,
            }),
            Err(e) => out.problems.push(LocationProblem::UnreadableLocation {
                location,
                reason: e.to_string(),
            }),
        }
    }
    out
}

/// `PluginUtils.pluginLocations(pluginPath, false)`: the location paths of a `plugin.path`
/// value, problems appended to `problems`.
pub fn location_paths(
    plugin_path: Option<&str>,
    cwd: &Path,
    problems: &mut Vec<LocationProblem>,
) -> Vec<PathBuf> {
    let Some(value) = plugin_path else {
        return Vec::new();
    };
    let mut locations: Vec<PathBuf> = Vec::new();
    let push = |p: PathBuf, locations: &mut Vec<PathBuf>| {
        if !locations.contains(&p) {
            locations.push(p);
        }
    };
    for element in split_elements(value) {
        let path = absolute(element, cwd);
        if element.is_empty() {
            problems.push(LocationProblem::EmptyElement {
                evaluates_to: path.clone(),
            });
        }
        // `Files.exists` follows links.
        if !path.exists() {
            problems.push(LocationProblem::UnreadableElement {
                element: element.to_owned(),
                reason: format!("not found: {}", path.display()),
            });
            continue;
        }
        if path.is_dir() {
            match filtered_listing(&path) {
                Ok(children) => children.into_iter().for_each(|c| push(c, &mut locations)),
                Err(e) => problems.push(LocationProblem::UnreadableElement {
                    element: element.to_owned(),
                    reason: e.to_string(),
                }),
            }
        } else if is_archive(&path) {
            push(path, &mut locations);
        }
    }
    locations
}

/// `PluginUtils.pluginUrls(topPath)` with the source type `isolatedPluginSource` infers: the
/// archives below `top` (or `top` itself), problems appended to `problems`. Fails when `top`
/// (a directory that is not an archive) cannot be listed.
pub fn plugin_urls(
    top: &Path,
    problems: &mut Vec<LocationProblem>,
) -> io::Result<(LocationKind, Vec<PathBuf>)> {
    if is_archive(top) {
        return Ok((LocationKind::SingleJar, vec![top.to_path_buf()]));
    }
    let mut contains_classes = false;
    let mut archives: Vec<PathBuf> = Vec::new();
    let mut visited: HashSet<PathBuf> = HashSet::from([top.to_path_buf()]);
    // Depth-first, as Kafka's stack of directory iterators: a directory's listing is read when
    // it is met, and its entries are visited before the rest of its parent's.
    let mut stack: Vec<std::vec::IntoIter<PathBuf>> = vec![filtered_listing(top)?.into_iter()];
    while let Some(top_iter) = stack.last_mut() {
        let Some(mut adjacent) = top_iter.next() else {
            stack.pop();
            continue;
        };
        if adjacent.is_symlink() {
            match resolve_link(&adjacent) {
                Ok(Some(real)) => adjacent = real,
                Ok(None) => continue,
                Err(e) => {
                    problems.push(LocationProblem::BrokenLink {
                        link: adjacent,
                        reason: e.to_string(),
                    });
                    continue;
                }
            }
        }
        if !visited.insert(adjacent.clone()) {
            continue;
        }
        if is_archive(&adjacent) {
            archives.push(adjacent);
        } else if is_class_file(&adjacent) {
            contains_classes = true;
        } else {
            // A listing failing below the top fails the whole location, as in Kafka.
            stack.push(filtered_listing(&adjacent)?.into_iter());
        }
    }
    if contains_classes {
        if archives.is_empty() {
            return Ok((LocationKind::ClassHierarchy, vec![top.to_path_buf()]));
        }
        problems.push(LocationProblem::ArchivesAndClasses {
            location: top.to_path_buf(),
        });
    }
    // Kafka's TreeSet<Path>: Unix paths compare by their bytes.
    archives.sort_by(|a, b| a.as_os_str().as_bytes().cmp(b.as_os_str().as_bytes()));
    archives.dedup();
    Ok((LocationKind::MultiJar, archives))
}

/// Whether a path names a `.jar` or `.zip` archive (any case), as `PluginUtils.isArchive`.
pub fn is_archive(path: &Path) -> bool {
    let lower = path.as_os_str().to_string_lossy().to_lowercase();
    lower.ends_with(".jar") || lower.ends_with(".zip")
}

/// Whether a path names a `.class` file (any case), as `PluginUtils.isClassFile`.
pub fn is_class_file(path: &Path) -> bool {
    path.as_os_str()
        .to_string_lossy()
        .to_lowercase()
        .ends_with(".class")
}

/// `COMMA_WITH_WHITESPACE.split(value.trim(), -1)`: trailing empty elements are kept.
fn split_elements(value: &str) -> Vec<&str> {
    value.trim().split(',').map(str::trim).collect::<Vec<_>>()
}

/// `Paths.get(element).toAbsolutePath()`: joined to `cwd` when relative, not normalised.
fn absolute(element: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(element);
    if p.is_absolute() {
        p.to_path_buf()
    } else if element.is_empty() {
        cwd.to_path_buf()
    } else {
        cwd.join(p)
    }
}

/// `Files.newDirectoryStream(dir, PLUGIN_PATH_FILTER)`: the children that are directories
/// (following links), archives or class files, in listing order.
fn filtered_listing(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() || is_archive(&path) || is_class_file(&path) {
            out.push(path);
        }
    }
    Ok(out)
}

/// Kafka's link step: the target read, resolved against the link's parent, then made real
/// (`toRealPath`, which fails on a dangling link or a loop). `None` when the link has no parent.
fn resolve_link(link: &Path) -> io::Result<Option<PathBuf>> {
    let target = std::fs::read_link(link)?;
    let Some(parent) = link.parent() else {
        return Ok(None);
    };
    let real = parent.join(target).canonicalize()?;
    Ok(real.exists().then_some(real))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn touch(p: &Path) {
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(p, b"x").unwrap();
    }

    fn location<'a>(r: &'a PluginLocations, name: &str) -> &'a PluginLocation {
        r.locations
            .iter()
            .find(|l| l.path.file_name().is_some_and(|n| n == name))
            .unwrap_or_else(|| panic!("no location {name} in {r:#?}"))
    }

    #[test]
    fn kinds_of_locations_and_their_urls() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let pp = root.join("plugins");
        touch(&pp.join("uber.JAR"));
        touch(&pp.join("multi/lib/b.jar"));
        touch(&pp.join("multi/a.zip"));
        touch(&pp.join("multi/readme.txt"));
        touch(&pp.join("classes/com/x/A.class"));
        touch(&pp.join("mixed/lib/m.jar"));
        touch(&pp.join("mixed/com/M.class"));
        touch(&pp.join("notes.txt"));
        std::fs::create_dir_all(pp.join("empty")).unwrap();
        let r = resolve_in(Some(&format!(" {} ", pp.display())), &root);

        assert_eq!(r.locations.len(), 5, "{r:#?}");
        let uber = location(&r, "uber.JAR");
        assert_eq!(uber.kind, LocationKind::SingleJar);
        assert_eq!(uber.urls, vec![pp.join("uber.JAR")]);
        let multi = location(&r, "multi");
        assert_eq!(multi.kind, LocationKind::MultiJar);
        assert_eq!(
            multi.urls,
            vec![pp.join("multi/a.zip"), pp.join("multi/lib/b.jar")]
        );
        let classes = location(&r, "classes");
        assert_eq!(classes.kind, LocationKind::ClassHierarchy);
        assert_eq!(classes.urls, vec![pp.join("classes")]);
        let mixed = location(&r, "mixed");
        assert_eq!(mixed.urls, vec![pp.join("mixed/lib/m.jar")]);
        assert_eq!(location(&r, "empty").urls, Vec::<PathBuf>::new());
        assert_eq!(
            r.problems,
            vec![LocationProblem::ArchivesAndClasses {
                location: pp.join("mixed")
            }]
        );
        assert_eq!(
            r.problems[0].to_string(),
            "Plugin path contains both java archives and class files. Returning only the archives"
        );
    }

    #[test]
    fn elements_missing_empty_relative_and_archives() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        touch(&root.join("one/x.jar"));
        touch(&root.join("direct.jar"));
        touch(&root.join("file.txt"));
        let r = resolve_in(Some("one , missing,direct.jar,file.txt,"), &root);
        let paths: Vec<_> = r.locations.iter().map(|l| l.path.clone()).collect();
        // the empty element is the cwd: its child one/ is new, direct.jar is there already
        assert_eq!(
            paths,
            vec![
                root.join("one/x.jar"),
                root.join("direct.jar"),
                root.join("one")
            ]
        );
        assert_eq!(r.problems.len(), 2, "{:#?}", r.problems);
        assert!(matches!(&r.problems[0],
            LocationProblem::UnreadableElement { element, .. } if element == "missing"));
        assert_eq!(r.problems[0].severity(), Severity::Error);
        assert!(r.problems[0]
            .to_string()
            .starts_with("Could not get listing for plugin path: missing. Ignoring."));
        assert_eq!(
            r.problems[1],
            LocationProblem::EmptyElement {
                evaluates_to: root.clone()
            }
        );
        assert!(resolve_in(None, &root).locations.is_empty());
    }

    #[test]
    fn links_followed_dangling_skipped_cycles_cut() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let pp = root.join("plugins");
        touch(&root.join("elsewhere/real.jar"));
        touch(&root.join("shared/s.jar"));
        touch(&pp.join("p/own.jar"));
        symlink(root.join("elsewhere/real.jar"), pp.join("p/linked.jar")).unwrap();
        symlink("../../shared", pp.join("p/shared")).unwrap();
        symlink(root.join("nowhere.jar"), pp.join("p/dangling.jar")).unwrap();
        symlink(pp.join("p"), pp.join("p/loop")).unwrap();
        // a symlinked jar directly in plugin.path is its own location
        symlink(root.join("elsewhere/real.jar"), pp.join("top.jar")).unwrap();
        let r = resolve_in(Some(pp.to_str().unwrap()), &root);
        let p = location(&r, "p");
        assert_eq!(p.kind, LocationKind::MultiJar);
        assert_eq!(
            p.urls,
            vec![
                root.join("elsewhere/real.jar"),
                pp.join("p/own.jar"),
                root.join("shared/s.jar"),
            ]
        );
        assert_eq!(location(&r, "top.jar").urls, vec![pp.join("top.jar")]);
        assert!(
            r.problems.iter().any(|pr| matches!(pr,
                LocationProblem::BrokenLink { link, .. } if link.ends_with("dangling.jar"))),
            "{:#?}",
            r.problems
        );
        assert!(r.problems.iter().all(|p| p.severity() == Severity::Warn));
    }

    #[test]
    fn a_class_file_child_is_an_unreadable_location() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        touch(&root.join("pp/Loose.class"));
        let r = resolve_in(Some(root.join("pp").to_str().unwrap()), &root);
        assert!(r.locations.is_empty());
        assert!(matches!(&r.problems[..],
            [LocationProblem::UnreadableLocation { location, .. }] if location.ends_with("Loose.class")));
    }

    #[test]
    fn archives_sort_as_kafka_paths_by_bytes() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        touch(&root.join("pp/p/a/z.jar"));
        touch(&root.join("pp/p/a-b/y.jar"));
        let r = resolve_in(Some(root.join("pp").to_str().unwrap()), &root);
        let urls = &location(&r, "p").urls;
        assert_eq!(
            urls,
            &vec![root.join("pp/p/a-b/y.jar"), root.join("pp/p/a/z.jar")]
        );
    }
}
