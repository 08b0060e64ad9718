//! The clean-shutdown checkpoint, `<dir>/clean-shutdown.json`: written by
//! [`LocalLog::close`](super::LocalLog::close) once everything is durable, it records the
//! last segment of every partition (base offset, length, end offset). The next writable open
//! trusts an entry whose segment still has that length instead of scanning it, then removes the
//! file (durably) before anything is appended, so a stale checkpoint is never used. Without it
//! (after a crash) the last segments are scanned and torn tails cut.
//!
//! ```json
//! {"partitions":{"orders-0":{"base":0,"len":1400,"end":10}}}
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{io_error, sync_dir};
use crate::topics::TopicError;

/// File name of the checkpoint in the log directory.
const FILE_NAME: &str = "clean-shutdown.json";

/// The state of a partition's last segment at a clean shutdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LastSegment {
    /// Base offset of the last segment.
    pub(crate) base: i64,
    /// Its length in bytes (all valid frames).
    pub(crate) len: u64,
    /// The partition's end offset.
    pub(crate) end: i64,
}

/// Last segments by partition directory name (`<topic>-<partition>`).
pub(crate) type Checkpoint = BTreeMap<String, LastSegment>;

#[derive(Serialize, Deserialize)]
struct CheckpointFile {
    partitions: Checkpoint,
}

/// Reads the checkpoint of `dir` (empty when absent or unreadable).
pub(crate) fn read(dir: &Path) -> Checkpoint {
    let path = dir.join(FILE_NAME);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Checkpoint::new(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the clean-shutdown checkpoint; scanning instead");
            return Checkpoint::new();
        }
    };
    match serde_json::from_str::<CheckpointFile>(&text) {
        Ok(file) => file.partitions,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "invalid clean-shutdown checkpoint; scanning instead");
            Checkpoint::new()
        }
    }
}

/// Removes the checkpoint of `dir` durably (before the log is written again).
pub(crate) fn remove(dir: &Path) -> Result<(), TopicError> {
    let path = dir.join(FILE_NAME);
    match fs::remove_file(&path) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error("cannot remove", &path)(e)),
    }
}

/// Writes the checkpoint of `dir` atomically.
pub(crate) fn write(dir: &Path, partitions: Checkpoint) -> Result<(), TopicError> {
    let path = dir.join(FILE_NAME);
    let json = serde_json::to_vec(&CheckpointFile { partitions })
        .map_err(|e| TopicError::Other(format!("cannot encode {}: {e}", path.display())))?;
    let mut temp = crate::fs_private::temp_file_in(dir).map_err(io_error("cannot write", &path))?;
    temp.write_all(&json)
        .map_err(io_error("cannot write", &path))?;
    temp.as_file()
        .sync_all()
        .map_err(io_error("cannot write", &path))?;
    temp.persist(&path)
        .map_err(|e| io_error("cannot write", &path)(e.error))?;
    sync_dir(dir)
}
