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

/// Reads the journal of `dir`; `None` when there is none.
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
    while bytes.len() - pos >= HEADER {
        let len = u32::from_le_bytes([bytes[pos], bytes[pos + 1], bytes[pos + 2], bytes[pos + 3]])
            as usize;
        let crc = u32::from_le_bytes([
            bytes[pos + 4],
            bytes[pos + 5],
            bytes[pos + 6],
            bytes[pos + 7],
        ]);
        let end = pos + HEADER + len;
        // A zero length (a tail the file system extended with zeros) or a frame running past
        // the end of the file is a write the crash interrupted.
        if len == 0 || len > MAX_BODY || end > bytes.len() {
            break;
        }
        let body = &bytes[pos + HEADER..end];
        let corrupt = |reason: String| {
            TopicError::Corrupt(format!(
                "the commit journal {} is damaged at byte {pos}: {reason}; move it away to open the log without it (the partitions are then not cut back to their committed ends, and sources resume from the offsets file or topic)",
                path.display()
            ))
        };
        if crc32fast::hash(body) != crc {
            if end == bytes.len() {
                // The last frame, written in part: a torn write.
                break;
            }
            return Err(corrupt("CRC mismatch".to_string()));
        }
        let entry: EntryOwned =
            serde_json::from_slice(body).map_err(|e| corrupt(format!("invalid entry: {e}")))?;
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

/// Replaces the journal with one entry holding `state` (temporary file, fsync, rename, fsync
/// of the directory) and returns it opened for appending.
fn rewrite(dir: &Path, path: &Path, state: &JournalState) -> Result<File, TopicError> {
    let mut bytes = Vec::new();
    frame(&mut bytes, &state.snapshot());
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(io_error("cannot write", path))?;
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
