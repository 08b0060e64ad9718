//! Watching the connector files with `notify`. The directories are watched, not the files:
//! editors often save by writing a temporary file and renaming it over the original, or (vim's
//! `backupcopy=no`) by renaming the original away and writing a new file, and a watch on the
//! original's inode would see neither. Events are debounced (a rescan once no event came for
//! [`QUIET`], or [`MAX_DELAY`] after the first), and a rescan compares contents, so one save is
//! applied once whatever events it made.

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
    watcher: notify::RecommendedWatcher,
    events: mpsc::UnboundedReceiver<notify::Result<Event>>,
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
    let dirs: Vec<_> = sources
        .watched_dirs()
        .into_iter()
        .filter(|d| d.is_dir())
        .collect();
    for dir in &dirs {
        watcher
            .watch(dir, RecursiveMode::NonRecursive)
            .with_context(|| {
                format!(
                    "Could not watch {} for connector file changes ({hint})",
                    dir.display()
                )
            })?;
    }
    let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    info!(
        dirs = %list.join(", "),
        "Watching connector files for changes (--no-watch turns this off)."
    );
    Ok(Armed { watcher, events })
}

impl Armed {
    /// Applies changes through `herder` until the herder stops. A rescan runs at once, for
    /// changes made between the start-up read and now.
    pub fn spawn(self, mut reconciler: Reconciler, herder: HerderHandle) -> JoinHandle<()> {
        let Self {
            watcher,
            mut events,
        } = self;
        tokio::spawn(async move {
            // Dropping the watcher ends the watch: it lives as long as this task.
            let _watcher = watcher;
            reconciler.rescan(&herder).await;
            loop {
                loop {
                    let event = events.recv().await;
                    match event {
                        None => return,
                        Some(e) if relevant(&e, reconciler.sources()) => break,
                        Some(_) => {}
                    }
                }
                let first = Instant::now();
                let mut quiet_until = first + QUIET;
                loop {
                    tokio::select! {
                        event = events.recv() => match event {
                            None => return,
                            Some(e) => if relevant(&e, reconciler.sources()) {
                                quiet_until = Instant::now() + QUIET;
                            },
                        },
                        () = tokio::time::sleep_until(quiet_until.min(first + MAX_DELAY)) => break,
                    }
                }
                if herder.is_closed() {
                    return;
                }
                reconciler.rescan(&herder).await;
            }
        })
    }
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
