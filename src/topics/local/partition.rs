//! One topic-partition of the embedded log: its segment files, recovery at open, appends by the
//! writer thread, and the durable view readers see.
//!
//! Readers see only what the writer has fsynced: the writer appends to the active segment,
//! fsyncs, and only then [`Partition::publish`]es the new segment lengths and end offset.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicI64;
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock};

use super::checkpoint::LastSegment;
use super::index::SparseIndex;
use super::segment::{self, Next, SegmentReader};
use super::{io_error, sync_dir};
use crate::topics::TopicError;

/// One segment as readers see it.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    /// Offset of its first record (from the file name).
    pub(crate) base: i64,
    /// The file.
    pub(crate) path: PathBuf,
    /// Bytes readers may read: durable (writable log) or valid (read-only log).
    pub(crate) len: u64,
    /// Sparse offset index.
    pub(crate) index: SparseIndex,
}

/// A complete frame with wrong contents, found where the readable part of a read-only
/// partition ends: reading up to it is fine, reading it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage {
    /// The offset the damaged frame should hold.
    pub(crate) offset: i64,
    /// The segment file.
    pub(crate) path: PathBuf,
    /// File position of the damaged frame.
    pub(crate) pos: u64,
    /// What is wrong.
    pub(crate) reason: String,
}

/// The readers' view of a partition.
#[derive(Debug, Default)]
struct View {
    segments: Vec<Segment>,
    /// The offset after the last readable record.
    end: i64,
    /// Read-only: the damaged frame at `end`, if that is why the readable part ends there.
    damage: Option<Damage>,
}

/// The writer thread's state of the active segment (never touched by readers).
#[derive(Debug)]
struct WriteState {
    file: Option<File>,
    base: i64,
    pos: u64,
    next: i64,
    index: SparseIndex,
    dirty: bool,
    /// Final length of the last published segment when it was sealed since the last publish.
    sealed_len: Option<u64>,
    /// Segments created since the last publish.
    new_segments: Vec<Segment>,
}

/// One topic-partition.
#[derive(Debug)]
pub(crate) struct Partition {
    pub(crate) topic: String,
    pub(crate) partition: i32,
    pub(crate) dir: PathBuf,
    read_only: bool,
    view: RwLock<View>,
    /// The next offset to give an enqueued record; changed only under the log's enqueue lock.
    pub(crate) reserved: AtomicI64,
    write: Mutex<Option<WriteState>>,
}

/// What scanning a segment found.
struct Scan {
    valid_len: u64,
    next_offset: i64,
    file_len: u64,
    /// Why the scan stopped before the end of the file.
    problem: Option<String>,
    /// The frame at `valid_len` is complete but wrong (not merely cut short).
    corrupt: bool,
    /// The scan stopped at the committed end (the commit journal's), not at a problem.
    uncommitted: bool,
}

impl Scan {
    /// The damage the scan of `path` found, when a complete frame is wrong.
    fn damage(&self, path: &Path) -> Option<Damage> {
        let reason = self.problem.as_ref().filter(|_| self.corrupt)?;
        Some(Damage {
            offset: self.next_offset,
            path: path.to_path_buf(),
            pos: self.valid_len,
            reason: reason.clone(),
        })
    }
}

/// Lists the base offsets of the segment files in `dir`, sorted (empty when `dir` is missing).
fn list_segments(dir: &Path) -> Result<Vec<i64>, TopicError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("cannot list", dir)(e)),
    };
    let mut bases = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_error("cannot list", dir))?;
        if let Some(base) = entry
            .file_name()
            .to_str()
            .and_then(segment::parse_file_name)
        {
            bases.push(base);
        }
    }
    bases.sort_unstable();
    Ok(bases)
}

fn file_len(path: &Path) -> std::io::Result<u64> {
    Ok(fs::metadata(path)?.len())
}

/// Scans `path` from (`pos`, `offset`) over valid frames with consecutive offsets, stopping
/// before offset `stop_at`.
fn scan(
    path: &Path,
    pos: u64,
    offset: i64,
    index: &SparseIndex,
    stop_at: i64,
) -> Result<Scan, TopicError> {
    let file_len = fs::metadata(path)
        .map_err(io_error("cannot stat", path))?
        .len();
    let mut reader = SegmentReader::open(path, pos).map_err(io_error("cannot open", path))?;
    let mut next_offset = offset;
    let mut uncommitted = false;
    let (problem, corrupt) = loop {
        if next_offset >= stop_at {
            uncommitted = reader.position() < file_len;
            break (None, false);
        }
        match reader
            .next(file_len)
            .map_err(io_error("cannot read", path))?
        {
            Next::Frame { offset, pos, .. } if offset == next_offset => {
                index.note(offset, pos);
                next_offset += 1;
            }
            Next::Frame { offset, pos, .. } => {
                reader.unread_to(pos);
                let reason = format!("offset {offset} where {next_offset} was expected");
                break (Some(reason), true);
            }
            Next::End => break (None, false),
            Next::Bad {
                reason, incomplete, ..
            } => break (Some(reason), !incomplete),
        }
    };
    Ok(Scan {
        valid_len: reader.position(),
        next_offset,
        file_len,
        problem,
        corrupt,
        uncommitted,
    })
}

impl Partition {
    /// Opens (writable: creates, recovers) the partition stored in `dir`. `clean` is the state
    /// of the last segment at a clean shutdown, trusted when the file still has that length.
    /// `committed` (writable only) is the end the commit journal records: what lies beyond it
    /// was appended by a round the journal never recorded (never acknowledged) and is cut.
    pub(crate) fn open(
        dir: PathBuf,
        topic: &str,
        partition: i32,
        read_only: bool,
        clean: Option<LastSegment>,
        committed: Option<i64>,
    ) -> Result<Self, TopicError> {
        let mut bases = list_segments(&dir)?;
        let committed = committed.filter(|_| !read_only);
        let stop_at = committed.unwrap_or(i64::MAX);
        let mut removed = false;
        // Segments that start beyond the committed end hold only uncommitted records.
        while bases.len() > 1 && bases.last().is_some_and(|b| *b > stop_at) {
            if let Some(base) = bases.pop() {
                let path = dir.join(segment::file_name(base));
                tracing::warn!(path = %path.display(), committed = stop_at, "removing a segment of records the commit journal never recorded (appended before a crash, never acknowledged)");
                fs::remove_file(&path).map_err(io_error("cannot remove", &path))?;
                removed = true;
            }
        }
        if removed {
            sync_dir(&dir)?;
        }
        if bases.is_empty() && !read_only {
            crate::fs_private::create_dir_all(&dir).map_err(io_error("cannot create", &dir))?;
            let path = dir.join(segment::file_name(0));
            let file = crate::fs_private::open_options()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(io_error("cannot create", &path))?;
            file.sync_all().map_err(io_error("cannot sync", &path))?;
            sync_dir(&dir)?;
            bases.push(0);
        }
        let mut view = View::default();
        let last = bases.len().saturating_sub(1);
        for (i, base) in bases.into_iter().enumerate() {
            let path = dir.join(segment::file_name(base));
            let index = SparseIndex::default();
            let len = if i < last {
                // Sealed: trusted without a scan (start-up stays fast); checked when read.
                fs::metadata(&path)
                    .map_err(io_error("cannot stat", &path))?
                    .len()
            } else if let Some(clean) = clean.filter(|c| {
                c.base == base && c.end <= stop_at && file_len(&path).ok() == Some(c.len)
            }) {
                view.end = clean.end;
                clean.len
            } else {
                let scan = scan(&path, 0, base, &index, stop_at)?;
                if read_only {
                    view.damage = scan.damage(&path);
                }
                if scan.uncommitted && !read_only {
                    tracing::warn!(
                        path = %path.display(),
                        committed = stop_at,
                        cut_bytes = scan.file_len - scan.valid_len,
                        "cutting records the commit journal never recorded (appended before a crash, never acknowledged)"
                    );
                }
                if scan.valid_len < scan.file_len && !read_only && !scan.uncommitted {
                    tracing::warn!(
                        path = %path.display(),
                        valid_bytes = scan.valid_len,
                        cut_bytes = scan.file_len - scan.valid_len,
                        reason = scan.problem.as_deref().unwrap_or("trailing bytes"),
                        "cutting the torn tail of the embedded log"
                    );
                }
                if scan.valid_len < scan.file_len && !read_only {
                    let file = OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .map_err(io_error("cannot open", &path))?;
                    file.set_len(scan.valid_len)
                        .map_err(io_error("cannot truncate", &path))?;
                    file.sync_all().map_err(io_error("cannot sync", &path))?;
                }
                view.end = scan.next_offset;
                scan.valid_len
            };
            view.segments.push(Segment {
                base,
                path,
                len,
                index,
            });
        }
        let write = match view.segments.last() {
            Some(last) if !read_only => Some(WriteState {
                file: None,
                base: last.base,
                pos: last.len,
                next: view.end,
                index: last.index.clone(),
                dirty: false,
                sealed_len: None,
                new_segments: Vec::new(),
            }),
            _ => None,
        };
        Ok(Self {
            topic: topic.to_string(),
            partition,
            dir,
            read_only,
            reserved: AtomicI64::new(view.end),
            view: RwLock::new(view),
            write: Mutex::new(write),
        })
    }

    /// The directory name, `<topic>-<partition>` (how the commit journal names the partition).
    pub(crate) fn name(&self) -> String {
        format!("{}-{}", self.topic, self.partition)
    }

    /// Writer thread: the end offset after everything appended so far (durable or not).
    pub(crate) fn written_end(&self) -> i64 {
        self.write_state().as_ref().map_or(0, |w| w.next)
    }

    /// The durable state of the last segment (for the clean-shutdown checkpoint).
    pub(crate) fn last_segment(&self) -> Option<LastSegment> {
        let view = self.view();
        view.segments.last().map(|s| LastSegment {
            base: s.base,
            len: s.len,
            end: view.end,
        })
    }

    fn view(&self) -> std::sync::RwLockReadGuard<'_, View> {
        self.view.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The first readable offset.
    pub(crate) fn start(&self) -> i64 {
        let view = self.view();
        view.segments.first().map_or(view.end, |s| s.base)
    }

    /// The offset after the last readable (durable) record.
    pub(crate) fn end(&self) -> i64 {
        self.view().end
    }

    /// The damaged frame at the end of the readable part of a read-only partition, if any.
    pub(crate) fn damage(&self) -> Option<Damage> {
        self.view().damage.clone()
    }

    /// The current end and the segment holding `offset`, when `offset` is readable now.
    pub(crate) fn locate(&self, offset: i64) -> Option<(i64, Segment)> {
        let view = self.view();
        if offset >= view.end {
            return None;
        }
        let i = view.segments.partition_point(|s| s.base <= offset);
        let segment = view.segments.get(i.checked_sub(1)?)?;
        Some((view.end, segment.clone()))
    }

    /// Read-only log: picks up what the writing process appended since the last look.
    pub(crate) fn refresh(&self) -> Result<(), TopicError> {
        if !self.read_only {
            return Ok(());
        }
        let bases = list_segments(&self.dir)?;
        let mut view = self.view.write().unwrap_or_else(PoisonError::into_inner);
        let known = view.segments.len();
        let known_last = view.segments.last().map(|s| s.base);
        for base in bases
            .into_iter()
            .filter(|b| known_last.is_none_or(|last| *b > last))
        {
            let path = self.dir.join(segment::file_name(base));
            view.segments.push(Segment {
                base,
                path,
                len: 0,
                index: SparseIndex::default(),
            });
        }
        let count = view.segments.len();
        let mut end = view.end;
        let mut damage = None;
        for i in known.saturating_sub(1)..count {
            let was_known = i < known;
            let segment = &view.segments[i];
            if !was_known && i + 1 < count {
                let len = fs::metadata(&segment.path)
                    .map_err(io_error("cannot stat", &segment.path))?
                    .len();
                view.segments[i].len = len;
                continue;
            }
            let (pos, offset) = if was_known {
                (segment.len, end)
            } else {
                (0, segment.base)
            };
            let scan = scan(&segment.path, pos, offset, &segment.index, i64::MAX)?;
            damage = scan.damage(&segment.path);
            view.segments[i].len = scan.valid_len;
            end = scan.next_offset;
        }
        view.end = end;
        view.damage = damage;
        Ok(())
    }

    fn write_state(&self) -> MutexGuard<'_, Option<WriteState>> {
        self.write.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writer thread: appends encoded frames of offsets `first..first + count`, rolling to a new
    /// segment first when they would overflow `segment_bytes`. True when the partition was clean.
    pub(crate) fn append(
        &self,
        first: i64,
        count: i64,
        bytes: &[u8],
        segment_bytes: u64,
    ) -> Result<bool, TopicError> {
        let mut guard = self.write_state();
        let w = guard.as_mut().ok_or_else(|| {
            TopicError::Unavailable(format!("{} is read-only", self.dir.display()))
        })?;
        if first != w.next {
            return Err(TopicError::Other(format!(
                "{}: batch starts at offset {first} but the partition is at {}",
                self.dir.display(),
                w.next
            )));
        }
        if w.pos > 0 && w.pos + bytes.len() as u64 > segment_bytes {
            self.roll(w, first)?;
        }
        let path = self.dir.join(segment::file_name(w.base));
        let file = match &mut w.file {
            Some(file) => file,
            None => w.file.insert(
                OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .map_err(io_error("cannot open", &path))?,
            ),
        };
        file.write_all(bytes)
            .map_err(io_error("cannot write", &path))?;
        w.index.note(first, w.pos);
        w.pos += bytes.len() as u64;
        w.next += count;
        let was_clean = !w.dirty;
        w.dirty = true;
        Ok(was_clean)
    }

    /// Seals the active segment (durably) and starts a new one at `base`.
    fn roll(&self, w: &mut WriteState, base: i64) -> Result<(), TopicError> {
        let old = self.dir.join(segment::file_name(w.base));
        if let Some(file) = w.file.take() {
            // Durable before the next segment exists: a crash never leaves a torn sealed segment.
            file.sync_data().map_err(io_error("cannot sync", &old))?;
        }
        match w.new_segments.last_mut() {
            Some(segment) => segment.len = w.pos,
            None => w.sealed_len = Some(w.pos),
        }
        let path = self.dir.join(segment::file_name(base));
        let file = crate::fs_private::open_options()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(io_error("cannot create", &path))?;
        sync_dir(&self.dir)?;
        let index = SparseIndex::default();
        w.new_segments.push(Segment {
            base,
            path,
            len: 0,
            index: index.clone(),
        });
        w.file = Some(file);
        w.base = base;
        w.pos = 0;
        w.index = index;
        Ok(())
    }

    /// Writer thread: fsyncs the active segment's data.
    pub(crate) fn sync(&self) -> Result<(), TopicError> {
        let guard = self.write_state();
        if let Some(WriteState {
            file: Some(file),
            dirty: true,
            base,
            ..
        }) = guard.as_ref()
        {
            file.sync_data().map_err(|e| {
                let path = self.dir.join(segment::file_name(*base));
                io_error("cannot sync", &path)(e)
            })?;
        }
        Ok(())
    }

    /// Writer thread, after [`Self::sync`]: shows readers everything appended so far.
    pub(crate) fn publish(&self) {
        let mut guard = self.write_state();
        let Some(w) = guard.as_mut() else { return };
        let mut view = self.view.write().unwrap_or_else(PoisonError::into_inner);
        if let (Some(len), Some(last)) = (w.sealed_len.take(), view.segments.last_mut()) {
            last.len = len;
        }
        view.segments.append(&mut w.new_segments);
        if let Some(last) = view.segments.last_mut() {
            last.len = w.pos;
        }
        view.end = w.next;
        w.dirty = false;
    }
}
