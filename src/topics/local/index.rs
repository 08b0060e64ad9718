//! A sparse in-memory offset index of one segment: `(offset, file position)` every
//! [`INTERVAL`] bytes, so a reader can seek near an offset without scanning the segment from
//! its start. It is never stored: the writer fills it while appending, and a reader that had to
//! scan a segment written by an earlier process fills it as it goes.

use std::sync::{Arc, Mutex, PoisonError};

/// Bytes between two index entries.
pub(crate) const INTERVAL: u64 = 64 * 1024;

/// The sparse index of one segment, shared by the writer and the readers.
#[derive(Debug, Default, Clone)]
pub(crate) struct SparseIndex {
    entries: Arc<Mutex<Vec<(i64, u64)>>>,
}

impl SparseIndex {
    /// Records that the frame of `offset` starts at file position `pos`, if that is at least
    /// [`INTERVAL`] bytes past the last entry.
    pub(crate) fn note(&self, offset: i64, pos: u64) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let far_enough = match entries.last() {
            None => pos >= INTERVAL,
            Some(&(last_offset, last_pos)) => offset > last_offset && pos >= last_pos + INTERVAL,
        };
        if far_enough {
            entries.push((offset, pos));
        }
    }

    /// The last known `(offset, position)` at or before `offset`, or `(base, 0)`.
    pub(crate) fn floor(&self, base: i64, offset: i64) -> (i64, u64) {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let i = entries.partition_point(|&(o, _)| o <= offset);
        if i == 0 {
            (base, 0)
        } else {
            entries[i - 1]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_finds_the_nearest_entry_below() {
        let index = SparseIndex::default();
        index.note(10, 0);
        index.note(20, 100);
        index.note(30, INTERVAL);
        index.note(40, INTERVAL + 10);
        index.note(50, 3 * INTERVAL);
        assert_eq!(index.floor(10, 15), (10, 0));
        assert_eq!(index.floor(10, 30), (30, INTERVAL));
        assert_eq!(index.floor(10, 49), (30, INTERVAL));
        assert_eq!(index.floor(10, 1000), (50, 3 * INTERVAL));
    }
}
