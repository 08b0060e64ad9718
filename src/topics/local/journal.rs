//! The commit journal, `<dir>/commit-journal.log`: what makes a source batch and its source
//! offsets durable in one step (exactly-once sources on the embedded log).
//!
//! The writer appends one entry per round before any of its deliveries resolve: the new end of every partition the round touched, and the source
//! offsets that the round's batches complete. An append counts only once its entry is in the
//! journal, so at open each partition is cut back to its journaled end (a partition the journal
//! does not name is cut to 0: it was created after the journal); the records cut were never
//! acknowledged. The journal's latest offset of each (connector, source partition) is what a
//! source resumes from. Frames, little-endian:
//!
//! ```text
//! u32 body_len | u32 crc32(body) | body = JSON {"ends":{"<topic>-<p>":end},
//!     "offsets":[{"connector":..,"partition":{..},"offset":{..}|null}]}
//! ```
//!
//! The entry is written before and fsynced together with the round's partitions, so the last
//! entry counts only when every partition it names holds its records up to the end it records
//! (a crash may have made the entry durable but not all of the data); otherwise it is dropped.
//! Every earlier entry's round had completed both fsyncs. An incomplete last frame (a torn
//! write) is cut; a complete frame with wrong contents stops
//! the open with an error naming file and position (cutting the partitions to an older state
//! would drop acknowledged records). Once the file outgrows [`COMPACT_AT`] (or four times its
//! last snapshot) it is replaced atomically by one entry holding the whole state.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use connect_api::OffsetMap;
use serde::{Deserialize, Serialize};

use super::syncer::Syncer;
use super::{io_error, sync_dir};
use crate::topics::{SourceOffsets, TopicError};

/// File name of the journal in the log directory.
pub(crate) const FILE_NAME: &str = "commit-journal.log";
/// Size from which the journal is rewritten as one snapshot entry.
pub(crate) const COMPACT_AT: u64 = 1024 * 1024;
/// Bytes before an entry's body: length and CRC.
const HEADER: usize = 8;
/// The largest body accepted.
const MAX_BODY: usize = 256 * 1024 * 1024;

/// One source offset as written in an entry.
#[derive(Serialize)]
struct OffsetRef<'a> {
    connector: &'a str,
    partition: &'a OffsetMap,
    offset: Option<&'a OffsetMap>,
}

/// One source offset as read from an entry.
#[derive(Deserialize)]
struct OffsetOwned {
    connector: String,
    partition: OffsetMap,
    offset: Option<OffsetMap>,
}

#[derive(Serialize)]
struct EntryRef<'a> {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    ends: BTreeMap<&'a str, i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    offsets: Vec<OffsetRef<'a>>,
}

#[derive(Deserialize)]
struct EntryOwned {
    #[serde(default)]
    ends: BTreeMap<String, i64>,
    #[serde(default)]
    offsets: Vec<OffsetOwned>,
}

/// Committed source offsets: (connector, source partition as JSON) → (partition, offset).
pub(crate) type CommittedOffsets = BTreeMap<(String, String), (OffsetMap, OffsetMap)>;

/// The key of `partition` of `connector` in [`CommittedOffsets`].
pub(crate) fn offset_key(connector: &str, partition: &OffsetMap) -> (String, String) {
    (
        connector.to_string(),
        serde_json::to_string(partition).unwrap_or_default(),
    )
}

/// Sets (`Some`) or removes (`None`) one committed offset.
fn apply_offset(
    offsets: &mut CommittedOffsets,
    connector: &str,
    partition: &OffsetMap,
    offset: Option<&OffsetMap>,
) {
    let key = offset_key(connector, partition);
    match offset {
        Some(o) => {
            offsets.insert(key, (partition.clone(), o.clone()));
        }
        None => {
            offsets.remove(&key);
        }
    }
}

/// The state the journal describes: committed partition ends and latest source offsets.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct JournalState {
    /// Committed end offset by partition directory name (`<topic>-<partition>`).
    pub(crate) ends: BTreeMap<String, i64>,
    /// The latest committed source offsets.
    pub(crate) offsets: CommittedOffsets,
}

impl JournalState {
    fn apply(&mut self, entry: EntryOwned) {
        self.ends.extend(entry.ends);
        for o in entry.offsets {
            apply_offset(
                &mut self.offsets,
                &o.connector,
                &o.partition,
                o.offset.as_ref(),
            );
        }
    }

    /// The whole state as one entry's body.
    fn snapshot(&self) -> Vec<u8> {
        let entry = EntryRef {
            ends: self.ends.iter().map(|(k, v)| (k.as_str(), *v)).collect(),
            offsets: self
                .offsets
                .iter()
                .map(|((connector, _), (partition, offset))| OffsetRef {
                    connector,
                    partition,
                    offset: Some(offset),
                })
                .collect(),
        };
        serde_json::to_vec(&entry).unwrap_or_default()
    }
}

/// Appends a frame holding `body` to `out`.
fn frame(out: &mut Vec<u8>, body: &[u8]) {
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    out.extend_from_slice(body);
}

/// The path of the journal of the log in `dir`.
pub(crate) fn path(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// What reading a journal found.
pub(crate) struct Recovered {
    /// The state after every complete entry but the last.
    pub(crate) state: JournalState,
    /// The last complete entry (not applied yet) and where it starts: the writer fsyncs it
    /// together with the round's partitions, so it counts only if their data reached the disk.
    last: Option<(EntryOwned, u64)>,
    /// Bytes of complete entries.
    pub(crate) valid_len: u64,
    /// The file's length (more than `valid_len` after a torn write).
    pub(crate) file_len: u64,
    /// Where reading stopped at damage rather than at the end or at an interrupted write.
    pub(crate) damage: Option<JournalDamage>,
}

impl Recovered {
    /// The committed ends if the last entry counts.
    pub(crate) fn ends_with_last(&self) -> BTreeMap<String, i64> {
        let mut ends = self.state.ends.clone();
        if let Some((last, _)) = &self.last {
            ends.extend(last.ends.iter().map(|(k, v)| (k.clone(), *v)));
        }
        ends
    }

    /// The partition ends the last entry records; none when it cannot be dropped (it is the
    /// first entry, a snapshot written when everything was durable already).
    pub(crate) fn last_ends(&self) -> Option<&BTreeMap<String, i64>> {
        self.last
            .as_ref()
            .filter(|(_, start)| *start > 0)
            .map(|(last, _)| &last.ends)
    }

    /// Counts the last entry (its records are on disk).
    pub(crate) fn accept_last(&mut self) {
        if let Some((last, _)) = self.last.take() {
            self.state.apply(last);
        }
    }

    /// Drops the last entry: the crash came before its round's records were all durable, so
    /// none of its batches was acknowledged.
    pub(crate) fn reject_last(&mut self) {
        if let Some((_, start)) = self.last.take() {
            self.valid_len = start;
        }
    }
}

/// Where the journal stops being readable, and why. Reading stops there: the entries before it
/// are the state it vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JournalDamage {
    /// The journal file.
    pub(crate) path: PathBuf,
    /// File position of the first unreadable byte (the damaged frame's start).
    pub(crate) pos: u64,
    /// What is wrong.
    pub(crate) reason: String,
    /// Nothing readable follows and it is not the first frame (which is always a snapshot
    /// written atomically): a machine crash may have left the last entry's length on disk
    /// without all its bytes. Such an entry's round was never acknowledged, so the journal
    /// without it is still right, but only when cutting back to it removes no record: the
    /// damage may as well be in an entry that was acknowledged.
    pub(crate) may_be_torn: bool,
}

impl JournalDamage {
    /// The error that stops an open, `detail` saying why nothing could be cut (may be empty).
    pub(crate) fn error(&self, detail: &str) -> TopicError {
        TopicError::Corrupt(format!(
            "the commit journal {path} is corrupt at byte {pos} ({reason}){detail}; nothing was changed. \
             With the worker stopped, `connect-rs topics --worker WORKER_FILE repair-journal` keeps \
             every record of the partitions and rebuilds the journal from them (the damaged file is \
             kept as {path}.damaged); sources may then produce again what they produced after the \
             damaged entry. See docs/operations.md.",
            path = self.path.display(),
            pos = self.pos,
            reason = self.reason,
        ))
    }
}

/// The journal bytes from `pos` on when they cannot be a complete frame: `None` for a write a
/// crash of the process interrupted (a proper prefix of a frame whose length is plausible),
/// else the damage. `pos > 0`.
fn check_tail(bytes: &[u8], pos: usize) -> Option<(String, bool)> {
    let rest = &bytes[pos..];
    if rest.iter().all(|b| *b == 0) {
        // A tail the file system extended with zeros after a machine crash, or zeroed entries.
        return Some(("zeros where an entry should be".to_string(), true));
    }
    if rest.len() < HEADER {
        return None;
    }
    let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
    if len == 0 || len > MAX_BODY {
        return Some((format!("invalid entry length {len}"), true));
    }
    // A proper prefix of an entry's JSON is never a whole entry: a whole one means the length
    // was damaged, not that the write was cut short.
    let whole = serde_json::Deserializer::from_slice(&rest[HEADER..])
        .into_iter::<EntryOwned>()
        .next()
        .is_some_and(|e| e.is_ok());
    whole.then(|| {
        (
            format!(
                "entry length {len} runs past the end of the file, but a complete entry of {} bytes follows",
                rest.len() - HEADER
            ),
            false,
        )
    })
}

/// Reads the journal of `dir`; `None` when there is none. Reading stops at an incomplete last
/// frame (a write the crash interrupted: [`Recovered::valid_len`] ends before it) or at damage
/// ([`Recovered::damage`]), which the caller must judge before cutting anything.
///
/// # Errors
/// When the file cannot be read.
pub(crate) fn read(dir: &Path) -> Result<Option<Recovered>, TopicError> {
    let path = path(dir);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error("cannot read", &path)(e)),
    };
    let mut state = JournalState::default();
    let mut last = None;
    let mut pos = 0usize;
    let mut damage = None;
    let damaged = |pos: usize, reason: String, may_be_torn: bool| {
        Some(JournalDamage {
            path: path.clone(),
            pos: pos as u64,
            reason,
            may_be_torn,
        })
    };
    while pos < bytes.len() || pos == 0 {
        if pos == 0 && bytes.len() < HEADER {
            // The first entry is a snapshot written atomically (temporary file, rename): never
            // half-written.
            damage = damaged(
                0,
                format!("{} bytes, no complete entry", bytes.len()),
                false,
            );
            break;
        }
        let rest = &bytes[pos..];
        let len = if rest.len() >= HEADER {
            u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize
        } else {
            0
        };
        let end = pos + HEADER + len;
        if rest.len() < HEADER || len == 0 || len > MAX_BODY || end > bytes.len() {
            if pos == 0 {
                let reason = if len == 0 || len > MAX_BODY {
                    format!("invalid entry length {len}")
                } else {
                    format!("entry length {len} runs past the end of the file")
                };
                damage = damaged(0, reason, false);
            } else if let Some((reason, may_be_torn)) = check_tail(&bytes, pos) {
                damage = damaged(pos, reason, may_be_torn);
            }
            break;
        }
        let crc = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
        let body = &bytes[pos + HEADER..end];
        if crc32fast::hash(body) != crc {
            damage = damaged(
                pos,
                "CRC mismatch".to_string(),
                pos > 0 && end == bytes.len(),
            );
            break;
        }
        let entry: EntryOwned = match serde_json::from_slice(body) {
            Ok(entry) => entry,
            Err(e) => {
                damage = damaged(pos, format!("invalid entry: {e}"), false);
                break;
            }
        };
        if let Some((previous, _)) = last.replace((entry, pos as u64)) {
            state.apply(previous);
        }
        pos = end;
    }
    Ok(Some(Recovered {
        state,
        last,
        valid_len: pos as u64,
        file_len: bytes.len() as u64,
        damage,
    }))
}

/// Removes the journal of `dir` durably (exactly-once sources turned off: a journal left
/// behind would be stale when they are turned on again).
pub(crate) fn remove(dir: &Path) -> Result<(), TopicError> {
    let path = path(dir);
    match fs::remove_file(&path) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error("cannot remove", &path)(e)),
    }
}

/// The open journal, owned by the writer thread.
#[derive(Debug)]
pub(crate) struct Journal {
    dir: PathBuf,
    path: PathBuf,
    file: Arc<File>,
    /// Fsyncs the journal while the writer fsyncs the partitions.
    syncer: Syncer,
    len: u64,
    /// Length of the snapshot the file started with.
    snapshot_len: u64,
    state: JournalState,
    /// The committed source offsets as the rest of the process sees them.
    shared: Arc<Mutex<CommittedOffsets>>,
    buf: Vec<u8>,
}

impl Journal {
    /// Opens the journal for appending: a recovered one (cutting a torn tail), or a new one
    /// holding `state` (written atomically).
    /// `shared` is set to the committed offsets and kept current.
    pub(crate) fn open(
        dir: &Path,
        recovered: Option<Recovered>,
        state: JournalState,
        shared: Arc<Mutex<CommittedOffsets>>,
    ) -> Result<Self, TopicError> {
        let path = path(dir);
        match recovered {
            Some(r) => {
                let file = OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .map_err(io_error("cannot open", &path))?;
                if r.valid_len < r.file_len {
                    tracing::warn!(
                        path = %path.display(),
                        cut_bytes = r.file_len - r.valid_len,
                        "cutting the torn tail of the commit journal"
                    );
                    file.set_len(r.valid_len)
                        .map_err(io_error("cannot truncate", &path))?;
                    file.sync_all().map_err(io_error("cannot sync", &path))?;
                }
                shared
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone_from(&r.state.offsets);
                Ok(Self {
                    dir: dir.to_path_buf(),
                    path,
                    file: Arc::new(file),
                    syncer: Syncer::new(JOURNAL_SYNC_THREAD),
                    len: r.valid_len,
                    snapshot_len: r.valid_len,
                    state: r.state,
                    shared,
                    buf: Vec::new(),
                })
            }
            None => {
                let mut journal = Self {
                    dir: dir.to_path_buf(),
                    file: Arc::new(rewrite(dir, &path, &state)?),
                    syncer: Syncer::new(JOURNAL_SYNC_THREAD),
                    path,
                    len: 0,
                    snapshot_len: 0,
                    state,
                    shared,
                    buf: Vec::new(),
                };
                journal.len = journal.file_len()?;
                journal.snapshot_len = journal.len;
                Ok(journal)
            }
        }
    }

    fn file_len(&self) -> Result<u64, TopicError> {
        Ok(self
            .file
            .metadata()
            .map_err(io_error("cannot stat", &self.path))?
            .len())
    }

    /// Writes the entry of one round: the partitions' new `ends` and the source `offsets` its
    /// batches complete, in order. Not durable yet: [`Pending::Sync`] asks for
    /// [`Self::start_sync`] (which runs while the partitions are fsynced), [`Pending::Rewrite`]
    /// for [`Self::rewrite`] once the partitions are durable (the journal outgrew its bound).
    pub(crate) fn write<'a>(
        &mut self,
        ends: &[(String, i64)],
        offsets: impl Iterator<Item = &'a SourceOffsets> + Clone,
    ) -> Result<Pending, TopicError> {
        let entry = EntryRef {
            ends: ends.iter().map(|(k, v)| (k.as_str(), *v)).collect(),
            offsets: offsets
                .clone()
                .flat_map(|s| {
                    s.offsets.iter().map(|(partition, offset)| OffsetRef {
                        connector: &s.connector,
                        partition,
                        offset: offset.as_ref(),
                    })
                })
                .collect(),
        };
        let body = serde_json::to_vec(&entry)
            .map_err(|e| TopicError::Other(format!("cannot encode a journal entry: {e}")))?;
        for (name, end) in ends {
            self.state.ends.insert(name.clone(), *end);
        }
        if !entry.offsets.is_empty() {
            let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            for s in offsets {
                for (partition, offset) in &s.offsets {
                    let offset = offset.as_ref();
                    apply_offset(&mut self.state.offsets, &s.connector, partition, offset);
                    apply_offset(&mut shared, &s.connector, partition, offset);
                }
            }
        }
        let grown = self.len + (HEADER + body.len()) as u64;
        if grown > COMPACT_AT.max(self.snapshot_len.saturating_mul(4)) {
            return Ok(Pending::Rewrite);
        }
        self.buf.clear();
        frame(&mut self.buf, &body);
        (&*self.file)
            .write_all(&self.buf)
            .map_err(io_error("cannot write", &self.path))?;
        self.len = grown;
        Ok(Pending::Sync)
    }

    /// Starts making the entries written durable, on the journal's fsync thread (the caller
    /// meanwhile fsyncs the partitions); [`Self::wait_sync`] must follow.
    pub(crate) fn start_sync(&self) -> Result<(), TopicError> {
        self.syncer
            .start(self.file.clone())
            .map_err(io_error("cannot sync", &self.path))
    }

    /// Waits until the sync started by [`Self::start_sync`] is done.
    pub(crate) fn wait_sync(&self) -> Result<(), TopicError> {
        self.syncer
            .wait()
            .map_err(io_error("cannot sync", &self.path))
    }

    /// Replaces the journal by one snapshot of the whole state, durably. Only once everything
    /// the state names is durable: a snapshot is never dropped at open.
    pub(crate) fn rewrite(&mut self) -> Result<(), TopicError> {
        self.file = Arc::new(rewrite(&self.dir, &self.path, &self.state)?);
        self.len = self.file_len()?;
        self.snapshot_len = self.len;
        Ok(())
    }
}

/// What [`Journal::write`] leaves to do once the round's partitions are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pending {
    /// The entry is appended: fsync the journal (may overlap the partitions' fsyncs).
    Sync,
    /// The journal is to be rewritten as a snapshot, after the partitions' fsyncs.
    Rewrite,
}

/// The name of the journal's fsync thread.
const JOURNAL_SYNC_THREAD: &str = "embedded-log-journal-sync";

/// Replaces the journal of `dir` with one entry holding `state`, durably.
pub(crate) fn replace(dir: &Path, state: &JournalState) -> Result<(), TopicError> {
    rewrite(dir, &path(dir), state).map(drop)
}

/// Replaces the journal with one entry holding `state` (temporary file, fsync, rename, fsync
/// of the directory) and returns it opened for appending.
fn rewrite(dir: &Path, path: &Path, state: &JournalState) -> Result<File, TopicError> {
    let mut bytes = Vec::new();
    frame(&mut bytes, &state.snapshot());
    let mut temp = crate::fs_private::temp_file_in(dir).map_err(io_error("cannot write", path))?;
    temp.write_all(&bytes)
        .map_err(io_error("cannot write", path))?;
    temp.as_file()
        .sync_all()
        .map_err(io_error("cannot sync", path))?;
    temp.persist(path)
        .map_err(|e| io_error("cannot replace", path)(e.error))?;
    sync_dir(dir)?;
    OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io_error("cannot open", path))
}
