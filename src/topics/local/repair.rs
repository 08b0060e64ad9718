//! `connect-rs topics repair-journal`: rebuilds a damaged commit journal from the partitions as
//! they are, so that a log whose journal is corrupt opens again without losing a record.
//!
//! A damaged journal stops the open (`Log::open_with`): cutting the partitions back to the
//! entries before the damage could remove acknowledged records. The repair keeps every record
//! the partitions hold (each partition's end is where its valid records end), keeps the source
//! offsets of the entries before the damage (sources resume there: what they produced after it
//! may be produced again, nothing is skipped), saves the damaged file next to it and writes the
//! new journal atomically. It takes the log's lock, so it refuses while a worker runs.

use std::fs;
use std::path::{Path, PathBuf};

use super::checkpoint::{self, Checkpoint};
use super::journal::{self, JournalState};
use super::log::{lock_dir, Log};
use super::{io_error, sync_dir, LocalLogOptions};
use crate::topics::TopicError;

/// What [`repair_journal`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalRepair {
    /// The log has no commit journal (exactly-once sources off, or a log never opened).
    NoJournal,
    /// The journal is readable: nothing was changed.
    Intact,
    /// The journal was rebuilt.
    Rebuilt {
        /// What was wrong with it.
        damage: String,
        /// Where the damaged journal was saved.
        saved: PathBuf,
        /// Partitions holding records beyond the end the undamaged entries record, which the
        /// open would have cut: (partition, that end, the partition's end now kept).
        kept: Vec<(String, i64, i64)>,
        /// Source partitions whose offsets the new journal keeps.
        source_offsets: usize,
    },
}

/// Rebuilds the commit journal of the log in `dir` when it is damaged (see the module
/// documentation); changes nothing when it is intact or absent.
///
/// # Errors
/// When the log is in use ([`TopicError::Unavailable`]), a partition holds a damaged record
/// ([`TopicError::Corrupt`]: the journal cannot vouch for records nobody can read; nothing is
/// changed), or on I/O failures.
pub fn repair_journal(dir: &Path) -> Result<JournalRepair, TopicError> {
    if !dir.is_dir() {
        return Err(TopicError::Unavailable(format!(
            "no embedded log directory {}",
            dir.display()
        )));
    }
    let _lock = lock_dir(dir)?;
    let Some(mut recovered) = journal::read(dir)? else {
        return Ok(JournalRepair::NoJournal);
    };
    let Some(damage) = recovered.damage.clone() else {
        return Ok(JournalRepair::Intact);
    };
    let view = Log::load(dir, LocalLogOptions::new(1), true, &Checkpoint::new(), None)?;
    let damaged: Vec<String> = view
        .partitions()
        .iter()
        .filter_map(|p| {
            p.damage().map(|d| {
                format!(
                    "partition {} has a corrupt record at offset {} ({} at byte {}: {})",
                    p.name(),
                    d.offset,
                    d.path.display(),
                    d.pos,
                    d.reason
                )
            })
        })
        .collect();
    if !damaged.is_empty() {
        return Err(TopicError::Corrupt(format!(
            "{}; the commit journal was left as it is: the records after a corrupt one cannot be \
             vouched for. See docs/operations.md.",
            damaged.join("; ")
        )));
    }
    if view
        .short_of_last_entry(&recovered, &checkpoint::read(dir))
        .is_some()
    {
        recovered.reject_last();
    } else {
        recovered.accept_last();
    }
    let mut state = JournalState {
        ends: Default::default(),
        offsets: recovered.state.offsets.clone(),
    };
    let mut kept = Vec::new();
    for partition in view.partitions() {
        let name = partition.name();
        let end = partition.end();
        let committed = recovered.state.ends.get(&name).copied().unwrap_or(0);
        if end > committed {
            kept.push((name.clone(), committed, end));
        }
        state.ends.insert(name, end);
    }
    let saved = save_copy(dir, &journal::path(dir))?;
    journal::replace(dir, &state)?;
    Ok(JournalRepair::Rebuilt {
        damage: format!("corrupt at byte {} ({})", damage.pos, damage.reason),
        saved,
        kept,
        source_offsets: state.offsets.len(),
    })
}

/// Copies `path` durably to `<path>.damaged` (or `.damaged.1`, ... when taken) and returns
/// the copy's path.
fn save_copy(dir: &Path, path: &Path) -> Result<PathBuf, TopicError> {
    let mut saved = path.as_os_str().to_owned();
    saved.push(".damaged");
    let mut target = PathBuf::from(&saved);
    let mut n = 0;
    while target.exists() {
        n += 1;
        target = PathBuf::from(format!("{}.{n}", PathBuf::from(&saved).display()));
    }
    fs::copy(path, &target).map_err(io_error("cannot copy the commit journal to", &target))?;
    crate::fs_private::set_file_mode(&target).map_err(io_error("cannot restrict", &target))?;
    fs::File::open(&target)
        .and_then(|f| f.sync_all())
        .map_err(io_error("cannot sync", &target))?;
    sync_dir(dir)?;
    Ok(target)
}
