//! A read position in one partition: follows the partition from segment to segment, reading
//! only durable bytes, and seeks through the sparse index when it starts mid-segment.

use super::io_error;
use super::partition::{Partition, Segment};
use super::segment::{self, Next, SegmentReader};
use crate::topics::{ConsumedRecord, TopicError};

/// Where the next record of a partition will be read from.
pub(crate) struct Cursor {
    next: i64,
    /// The open segment (by base offset) and its reader, positioned at `next`.
    open: Option<(i64, SegmentReader)>,
}

/// A corrupt record of `partition`: topic, partition, offset, file, position and what is wrong.
pub(crate) fn corrupt(
    partition: &Partition,
    offset: i64,
    path: &std::path::Path,
    pos: u64,
    what: &str,
) -> TopicError {
    TopicError::Corrupt(format!(
        "corrupt record in topic {} partition {} at offset {offset} ({}, byte {pos}): {what}",
        partition.topic,
        partition.partition,
        path.display()
    ))
}

impl Cursor {
    /// A cursor that will read `next` first.
    pub(crate) fn new(next: i64) -> Self {
        Self { next, open: None }
    }

    /// The next offset to read.
    pub(crate) fn next_offset(&self) -> i64 {
        self.next
    }

    /// Reads up to `max` records (and about `max_bytes` bytes) into `out`; returns how many bytes
    /// of record bodies were read. A problem met after some records were read is returned by
    /// the next call (the cursor stays at the bad record), so the good records before it are
    /// never lost with it.
    pub(crate) fn read(
        &mut self,
        partition: &Partition,
        max: usize,
        max_bytes: usize,
        out: &mut Vec<ConsumedRecord>,
    ) -> Result<usize, TopicError> {
        let before = out.len();
        let result = self.read_some(partition, max, max_bytes, out);
        if result.is_err() {
            // Seek again next time: the reader may stand past the bad frame.
            self.open = None;
        }
        match result {
            Err(_) if out.len() > before => Ok(out[before..]
                .iter()
                .map(|r| r.key.as_ref().map_or(0, Vec::len) + r.value.as_ref().map_or(0, Vec::len))
                .sum()),
            other => other,
        }
    }

    fn read_some(
        &mut self,
        partition: &Partition,
        max: usize,
        max_bytes: usize,
        out: &mut Vec<ConsumedRecord>,
    ) -> Result<usize, TopicError> {
        let mut count = 0;
        let mut bytes = 0;
        while count < max && bytes < max_bytes {
            let Some((end, seg)) = partition.locate(self.next) else {
                // A read-only view ends early at a damaged frame: that frame is next.
                if let Some(d) = partition.damage().filter(|d| d.offset == self.next) {
                    return Err(corrupt(partition, d.offset, &d.path, d.pos, &d.reason));
                }
                break;
            };
            if !matches!(&self.open, Some((base, _)) if *base == seg.base) {
                self.open = Some((seg.base, seek(partition, &seg, self.next)?));
            }
            let Some((_, reader)) = self.open.as_mut() else {
                break;
            };
            let mut at_segment_end = false;
            while count < max && bytes < max_bytes && self.next < end {
                match reader
                    .next(seg.len)
                    .map_err(io_error("cannot read", &seg.path))?
                {
                    Next::Frame { offset, pos, body } => {
                        if offset != self.next {
                            let what = format!("offset {offset} where {} was expected", self.next);
                            return Err(corrupt(partition, self.next, &seg.path, pos, &what));
                        }
                        bytes += body.len();
                        let record = segment::decode(
                            reader.body(body),
                            &partition.topic,
                            partition.partition,
                        )
                        .map_err(|e| corrupt(partition, self.next, &seg.path, pos, &e))?;
                        out.push(record);
                        self.next += 1;
                        count += 1;
                    }
                    Next::End => {
                        at_segment_end = true;
                        break;
                    }
                    Next::Bad { pos, reason, .. } => {
                        return Err(corrupt(partition, self.next, &seg.path, pos, &reason))
                    }
                }
            }
            if !at_segment_end || self.next >= end {
                break;
            }
            // The segment is read to its (snapshot) length: the log continues in a later segment
            // or further in this one; if neither, records are missing.
            if let Some((_, again)) = partition.locate(self.next) {
                if again.base == seg.base && again.len <= reader.position() {
                    let what = format!(
                        "segment ends but the partition continues at offset {}",
                        self.next
                    );
                    let pos = reader.position();
                    return Err(corrupt(partition, self.next, &seg.path, pos, &what));
                }
            }
        }
        Ok(bytes)
    }
}

/// Opens `seg` of `partition` positioned at the frame of `offset` (via the sparse index, then
/// a scan).
fn seek(partition: &Partition, seg: &Segment, offset: i64) -> Result<SegmentReader, TopicError> {
    let (mut expected, pos) = seg.index.floor(seg.base, offset);
    let mut reader =
        SegmentReader::open(&seg.path, pos).map_err(io_error("cannot open", &seg.path))?;
    while expected < offset {
        match reader
            .next(seg.len)
            .map_err(io_error("cannot read", &seg.path))?
        {
            Next::Frame {
                offset: found, pos, ..
            } if found == expected => {
                seg.index.note(found, pos);
                expected += 1;
            }
            Next::Frame {
                offset: found, pos, ..
            } => {
                return Err(corrupt(
                    partition,
                    expected,
                    &seg.path,
                    pos,
                    &format!("offset {found} where {expected} was expected"),
                ));
            }
            Next::End => break,
            Next::Bad { pos, reason, .. } => {
                return Err(corrupt(partition, expected, &seg.path, pos, &reason))
            }
        }
    }
    Ok(reader)
}
