//! Watching the connector files with `notify`. The directories are watched, not the files:
//! editors often save by writing a temporary file and renaming it over the original, or (vim's
//! `backupcopy=no`) by renaming the original away and writing a new file, and a watch on the
//! original's inode would see neither. Events are debounced (a rescan once no event came for
//! [`QUIET`], or [`MAX_DELAY`] after the first), and a rescan compares contents, so one save is
//! applied once whatever events it made.
//!
//! A watch follows a directory's inode, not its name: a watched directory moved away (or
//! removed) is no longer watched — that is logged at WARN — and its nearest existing ancestor
//! is watched instead until a directory of that name exists again, which is then watched and
//! read (see [`Watches::refresh`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{info, warn};

use super::reconcile::Reconciler;
use super::Sources;
use crate::herder::HerderHandle;

/// How long no event must come before a rescan.
pub const QUIET: Duration = Duration::from_millis(200);
/// The longest a rescan waits after the first event, however busy the directories are.
pub const MAX_DELAY: Duration = Duration::from_secs(2);

/// A watch set up on the connector files' directories, its events queued until
/// [`Armed::spawn`].
pub struct Armed {
    watches: Watches,
    events: mpsc::UnboundedReceiver<notify::Result<Event>>,
}

/// What identifies a directory whatever its name: device and inode.
type DirId = (u64, u64);

/// The identity of the directory at `path`, `None` when there is no directory there.
fn dir_id(path: &Path) -> Option<DirId> {
    let meta = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Some((0, 0))
    }
}

/// The nearest existing ancestor directory of `path`.
fn existing_ancestor(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|a| a.is_dir())
        .map(Path::to_path_buf)
}

/// One directory the connector files live in.
struct WatchedDir {
    path: PathBuf,
    /// The directory being watched, `None` while there is none of that name (or it could not
    /// be watched).
    id: Option<DirId>,
}

/// The watcher and what it watches: the connector files' directories and, for each of them
/// that is gone, its nearest existing ancestor (to see it created again).
struct Watches {
    watcher: notify::RecommendedWatcher,
    dirs: Vec<WatchedDir>,
    /// Ancestors watched for directories that are gone.
    ancestors: BTreeSet<PathBuf>,
}

impl Watches {
    /// Whether an event at `path` may bring back a directory that is gone: its creation, or
    /// that of one of its ancestors.
    fn may_restore(&self, path: &Path) -> bool {
        self.dirs
            .iter()
            .any(|d| d.id.is_none() && d.path.starts_with(path))
    }

    /// Brings the watches in line with the directories as they are now: a watched directory
    /// moved away or removed stops being watched (logged at WARN) and its nearest existing
    /// ancestor is watched instead; a directory of that name that exists again is watched
    /// again. Called before every rescan, so the rescan reads what the watches now cover.
    fn refresh(&mut self) {
        for dir in &mut self.dirs {
            let now = dir_id(&dir.path);
            if now == dir.id {
                continue;
            }
            let shown = dir.path.display();
            let was_gone = dir.id.is_none();
            if dir.id.is_some() {
                // The watch follows the old inode: drop it (notify may have dropped a removed
                // directory's watch already).
                let _ = self.watcher.unwatch(&dir.path);
                dir.id = None;
                if now.is_none() {
                    warn!(
                        "Watched directory {shown} was moved away or removed: watching it stopped, \
                         and the connectors of its files are deleted. It is watched again, and \
                         its connector files read, once a directory of that name exists again."
                    );
                } else {
                    info!("Watched directory {shown} was replaced: watching the new one.");
                }
            }
            if now.is_some() {
                match self.watcher.watch(&dir.path, RecursiveMode::NonRecursive) {
                    Ok(()) => {
                        // What is watched is what is there now (it may have changed again
                        // since `now`: then the next refresh sees that).
                        dir.id = dir_id(&dir.path);
                        if was_gone {
                            info!("Watched directory {shown} exists again: watching it, reading its connector files.");
                        }
                    }
                    Err(e) => warn!(
                        "Could not watch {shown} again ({e}): changes to its connector files are not applied until the worker restarts."
                    ),
                }
            }
        }
        let wanted: BTreeSet<PathBuf> = self
            .dirs
            .iter()
            .filter(|d| d.id.is_none())
            .filter_map(|d| existing_ancestor(&d.path))
            .filter(|a| !self.dirs.iter().any(|d| d.id.is_some() && d.path == *a))
            .collect();
        for gone in self.ancestors.difference(&wanted) {
            let _ = self.watcher.unwatch(gone);
        }
        for ancestor in wanted.difference(&self.ancestors) {
            if let Err(e) = self.watcher.watch(ancestor, RecursiveMode::NonRecursive) {
                warn!(
                    "Could not watch {} for a watched directory to come back ({e}): it is not read again until the worker restarts.",
                    ancestor.display()
                );
            }
        }
        self.ancestors = wanted;
    }
}

/// Starts watching the directories of `sources`. Call it before reading the files: a change
/// made after that is then seen.
///
/// # Errors
/// When the operating system refuses the watch (for instance inotify's limits), naming the
/// directory.
pub fn arm(sources: &Sources) -> anyhow::Result<Armed> {
    let hint = "run with --no-watch to start without watching connector files";
    let (tx, events) = mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        // The receiver is gone only when the worker stops.
        let _ = tx.send(event);
    })
    .with_context(|| format!("Could not start watching connector files ({hint})"))?;
    // A missing directory is left to the start-up read, which names the missing file.
    let mut dirs = Vec::new();
    for path in sources.watched_dirs() {
        let id = dir_id(&path);
        if id.is_some() {
            watcher
                .watch(&path, RecursiveMode::NonRecursive)
                .with_context(|| {
                    format!(
                        "Could not watch {} for connector file changes ({hint})",
                        path.display()
                    )
                })?;
        }
        dirs.push(WatchedDir { path, id });
    }
    let list: Vec<String> = dirs
        .iter()
        .filter(|d| d.id.is_some())
        .map(|d| d.path.display().to_string())
        .collect();
    info!(
        dirs = %list.join(", "),
        "Watching connector files for changes (--no-watch turns this off)."
    );
    Ok(Armed {
        watches: Watches {
            watcher,
            dirs,
            ancestors: BTreeSet::new(),
        },
        events,
    })
}

impl Armed {
    /// Applies changes through `herder` until the herder stops. A rescan runs at once, for
    /// changes made between the start-up read and now.
    pub fn spawn(self, mut reconciler: Reconciler, herder: HerderHandle) -> JoinHandle<()> {
        let Self {
            mut watches,
            mut events,
        } = self;
        tokio::spawn(async move {
            // Dropping the watcher ends the watch: it lives as long as this task.
            watches.refresh();
            reconciler.rescan(&herder).await;
            let relevant = |e: &notify::Result<Event>, watches: &Watches, sources: &Sources| {
                relevant(e, sources) || restores(e, watches)
            };
            loop {
                loop {
                    let event = events.recv().await;
                    match event {
                        None => return,
                        Some(e) if relevant(&e, &watches, reconciler.sources()) => break,
                        Some(_) => {}
                    }
                }
                let first = Instant::now();
                let mut quiet_until = first + QUIET;
                loop {
                    tokio::select! {
                        event = events.recv() => match event {
                            None => return,
                            Some(e) => if relevant(&e, &watches, reconciler.sources()) {
                                quiet_until = Instant::now() + QUIET;
                            },
                        },
                        () = tokio::time::sleep_until(quiet_until.min(first + MAX_DELAY)) => break,
                    }
                }
                if herder.is_closed() {
                    return;
                }
                watches.refresh();
                reconciler.rescan(&herder).await;
            }
        })
    }
}

/// Whether `event` may bring back a watched directory that is gone.
fn restores(event: &notify::Result<Event>, watches: &Watches) -> bool {
    event
        .as_ref()
        .is_ok_and(|e| e.paths.iter().any(|p| watches.may_restore(p)))
}

/// Whether `event` may have changed a connector file. Reads (opening, closing without writing)
/// are not, so the rescan's own reads do not start another one; an error or an overflow is.
fn relevant(event: &notify::Result<Event>, sources: &Sources) -> bool {
    let event = match event {
        Ok(event) => event,
        Err(e) => {
            warn!(error = %e, "Watching connector files: an error was reported; rescanning.");
            return true;
        }
    };
    if event.need_rescan() {
        return true;
    }
    if let EventKind::Access(kind) = event.kind {
        if kind != AccessKind::Close(AccessMode::Write) {
            return false;
        }
    }
    event.paths.is_empty() || event.paths.iter().any(|p| sources.is_relevant(p))
}
