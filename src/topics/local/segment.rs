//! Segment files and the record frame stored in them.
//!
//! A segment is `<20-digit base offset>.log`: a plain sequence of frames, nothing else.
//! One frame holds one record, all integers little-endian:
//!
//! ```text
//! u32 body_len | u32 crc32(body) | body
//! body = u8 version (1) | i64 offset | i64 timestamp
//!      | i32 key_len (-1 = null) | key | i32 value_len (-1 = null) | value
//!      | u32 header_count | { u32 name_len | name (UTF-8) | i32 value_len (-1 = null) | value }*
//! ```
//!
//! The CRC covers the whole body (offset included); offsets are consecutive inside a segment,
//! starting at the base offset in the file name.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use crate::topics::ConsumedRecord;

/// Bytes before the body: length and CRC.
pub(crate) const FRAME_HEADER: usize = 8;
/// The frame format version written in the first body byte.
const VERSION: u8 = 1;
/// Bytes of a body without key, value or headers.
const MIN_BODY: usize = 1 + 8 + 8 + 4 + 4 + 4;
/// The largest body accepted (larger lengths are treated as corruption).
pub(crate) const MAX_BODY: usize = 256 * 1024 * 1024;
/// Default capacity of a reader's buffer.
const READ_BUFFER: usize = 256 * 1024;

/// The file name of the segment starting at `base`.
pub(crate) fn file_name(base: i64) -> String {
    format!("{base:020}.log")
}

/// The base offset of a segment file name, if `name` is one.
pub(crate) fn parse_file_name(name: &str) -> Option<i64> {
    let digits = name.strip_suffix(".log")?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Bytes `encode` appends for one record.
pub(crate) fn encoded_len(
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: &[(String, Option<Vec<u8>>)],
) -> usize {
    let mut n = FRAME_HEADER + MIN_BODY + key.map_or(0, <[u8]>::len) + value.map_or(0, <[u8]>::len);
    for (name, value) in headers {
        n += 4 + name.len() + 4 + value.as_ref().map_or(0, Vec::len);
    }
    n
}

/// Appends one frame to `buf`.
pub(crate) fn encode(
    buf: &mut Vec<u8>,
    offset: i64,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: &[(String, Option<Vec<u8>>)],
) {
    let start = buf.len();
    buf.extend_from_slice(&[0u8; FRAME_HEADER]);
    buf.push(VERSION);
    buf.extend_from_slice(&offset.to_le_bytes());
    buf.extend_from_slice(&timestamp.to_le_bytes());
    put_nullable(buf, key);
    put_nullable(buf, value);
    buf.extend_from_slice(&(headers.len() as u32).to_le_bytes());
    for (name, value) in headers {
        buf.extend_from_slice(&(name.len() as u32).to_le_bytes());
        buf.extend_from_slice(name.as_bytes());
        put_nullable(buf, value.as_deref());
    }
    let body_len = (buf.len() - start - FRAME_HEADER) as u32;
    let crc = crc32fast::hash(&buf[start + FRAME_HEADER..]);
    buf[start..start + 4].copy_from_slice(&body_len.to_le_bytes());
    buf[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
}

fn put_nullable(buf: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        None => buf.extend_from_slice(&(-1i32).to_le_bytes()),
        Some(b) => {
            buf.extend_from_slice(&(b.len() as i32).to_le_bytes());
            buf.extend_from_slice(b);
        }
    }
}

/// Decodes a CRC-checked body (as returned by [`SegmentReader::next`]) into a record.
pub(crate) fn decode(body: &[u8], topic: &str, partition: i32) -> Result<ConsumedRecord, String> {
    let mut r = BodyReader { bytes: body, at: 1 };
    let offset = r.i64()?;
    let timestamp = r.i64()?;
    let key = r.nullable()?;
    let value = r.nullable()?;
    let count = r.u32()? as usize;
    let mut headers = Vec::with_capacity(count.min(64));
    for _ in 0..count {
        let len = r.u32()? as usize;
        let name = String::from_utf8(r.take(len)?.to_vec())
            .map_err(|_| "header name is not UTF-8".to_string())?;
        headers.push((name, r.nullable()?));
    }
    if r.at != body.len() {
        return Err(format!(
            "{} unexpected bytes after the record",
            body.len() - r.at
        ));
    }
    Ok(ConsumedRecord {
        topic: topic.to_string(),
        partition,
        offset,
        timestamp,
        key,
        value,
        headers,
    })
}

struct BodyReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> BodyReader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len());
        let end =
            end.ok_or_else(|| format!("record body too short: needs {n} bytes at {}", self.at))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn i64(&mut self) -> Result<i64, String> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn nullable(&mut self) -> Result<Option<Vec<u8>>, String> {
        let len = i32::from_le_bytes(self.array()?);
        match len {
            -1 => Ok(None),
            n if n < 0 => Err(format!("negative length {n}")),
            n => Ok(Some(self.take(n as usize)?.to_vec())),
        }
    }
}

/// What [`SegmentReader::next`] found.
#[derive(Debug)]
pub(crate) enum Next {
    /// A complete, CRC-valid frame; its body is `reader.body(body)`.
    Frame {
        /// The record's offset.
        offset: i64,
        /// File position of the frame's first byte.
        pos: u64,
        /// Where the body lies in the reader's buffer.
        body: Range<usize>,
    },
    /// The limit was reached exactly at a frame boundary.
    End,
    /// The bytes at `pos` are not a complete valid frame (torn write or corruption).
    Bad {
        /// File position of the bad frame.
        pos: u64,
        /// What is wrong.
        reason: String,
        /// The frame is cut short by the limit or the end of the file (a torn or still running
        /// write), as opposed to a complete frame with wrong contents (corruption).
        incomplete: bool,
    },
}

/// Reads frames sequentially from a segment file through its own large buffer, never looking
/// at bytes past the limit given to [`SegmentReader::next`].
pub(crate) struct SegmentReader {
    file: File,
    buf: Vec<u8>,
    /// First unconsumed byte of `buf`.
    start: usize,
    /// End of the bytes read into `buf`.
    end: usize,
    /// File position of `buf[end]`.
    file_pos: u64,
}

impl SegmentReader {
    /// Opens `path` for reading from file position `pos`.
    pub(crate) fn open(path: &Path, pos: u64) -> io::Result<Self> {
        let mut file = File::open(path)?;
        if pos > 0 {
            file.seek(SeekFrom::Start(pos))?;
        }
        Ok(Self {
            file,
            buf: vec![0; READ_BUFFER],
            start: 0,
            end: 0,
            file_pos: pos,
        })
    }

    /// File position of the next frame.
    pub(crate) fn position(&self) -> u64 {
        self.file_pos - (self.end - self.start) as u64
    }

    /// Steps back to file position `pos` of the frame [`Self::next`] just returned, so that the
    /// next call returns it again.
    pub(crate) fn unread_to(&mut self, pos: u64) {
        let back = self.position().saturating_sub(pos) as usize;
        self.start = self.start.saturating_sub(back);
    }

    /// The body of the frame last returned by [`Self::next`].
    pub(crate) fn body(&self, range: Range<usize>) -> &[u8] {
        &self.buf[range]
    }

    /// The next frame below file position `limit`.
    pub(crate) fn next(&mut self, limit: u64) -> io::Result<Next> {
        loop {
            let pos = self.position();
            let avail = self.end - self.start;
            let need = if avail >= FRAME_HEADER {
                let s = self.start;
                let len = u32::from_le_bytes([
                    self.buf[s],
                    self.buf[s + 1],
                    self.buf[s + 2],
                    self.buf[s + 3],
                ]) as usize;
                if !(MIN_BODY..=MAX_BODY).contains(&len) {
                    return Ok(Next::Bad {
                        pos,
                        reason: format!("invalid frame length {len}"),
                        incomplete: false,
                    });
                }
                let total = FRAME_HEADER + len;
                if pos + total as u64 > limit {
                    return Ok(Next::Bad {
                        pos,
                        reason: format!("incomplete frame: {} of {total} bytes", limit - pos),
                        incomplete: true,
                    });
                }
                if avail >= total {
                    let crc = u32::from_le_bytes([
                        self.buf[s + 4],
                        self.buf[s + 5],
                        self.buf[s + 6],
                        self.buf[s + 7],
                    ]);
                    let body = s + FRAME_HEADER..s + total;
                    if crc32fast::hash(&self.buf[body.clone()]) != crc {
                        return Ok(Next::Bad {
                            pos,
                            reason: "CRC mismatch".to_string(),
                            incomplete: false,
                        });
                    }
                    if self.buf[body.start] != VERSION {
                        return Ok(Next::Bad {
                            pos,
                            reason: format!("unknown frame version {}", self.buf[body.start]),
                            incomplete: false,
                        });
                    }
                    let mut o = [0u8; 8];
                    o.copy_from_slice(&self.buf[body.start + 1..body.start + 9]);
                    self.start += total;
                    return Ok(Next::Frame {
                        offset: i64::from_le_bytes(o),
                        pos,
                        body,
                    });
                }
                total
            } else {
                if pos >= limit {
                    return Ok(Next::End);
                }
                if pos + FRAME_HEADER as u64 > limit {
                    return Ok(Next::Bad {
                        pos,
                        reason: format!("incomplete frame header: {} bytes", limit - pos),
                        incomplete: true,
                    });
                }
                FRAME_HEADER
            };
            if !self.fill(need, limit)? {
                // The file ends before `limit` (a reader of a log written by another process).
                return Ok(if avail == 0 {
                    Next::End
                } else {
                    Next::Bad {
                        pos,
                        reason: format!("incomplete frame: {avail} bytes at the end of the file"),
                        incomplete: true,
                    }
                });
            }
        }
    }

    /// Reads until `need` bytes are buffered; false when the file (or `limit`) ends first.
    fn fill(&mut self, need: usize, limit: u64) -> io::Result<bool> {
        if self.start > 0
            && (self.buf.len() - self.start < need || self.start >= self.buf.len() / 2)
        {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        while self.end - self.start < need {
            let room = (self.buf.len() - self.end) as u64;
            let want = room.min(limit.saturating_sub(self.file_pos)) as usize;
            if want == 0 {
                return Ok(false);
            }
            let n = match self.file.read(&mut self.buf[self.end..self.end + want]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                return Ok(false);
            }
            self.end += n;
            self.file_pos += n as u64;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers() -> Vec<(String, Option<Vec<u8>>)> {
        vec![
            ("h1".to_string(), Some(b"v1".to_vec())),
            ("h2".to_string(), None),
        ]
    }

    #[test]
    fn encode_decode_round_trip() {
        let mut buf = Vec::new();
        encode(&mut buf, 7, 1234, Some(b"key"), None, &headers());
        assert_eq!(buf.len(), encoded_len(Some(b"key"), None, &headers()));
        encode(&mut buf, 8, -1, None, Some(b"value"), &[]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(file_name(7));
        std::fs::write(&path, &buf).unwrap();
        let mut r = SegmentReader::open(&path, 0).unwrap();
        let limit = buf.len() as u64;
        let Next::Frame { offset, pos, body } = r.next(limit).unwrap() else {
            panic!("no frame")
        };
        assert_eq!((offset, pos), (7, 0));
        let rec = decode(r.body(body), "t", 3).unwrap();
        assert_eq!(rec.key.as_deref(), Some(&b"key"[..]));
        assert_eq!(rec.value, None);
        assert_eq!(rec.timestamp, 1234);
        assert_eq!(rec.headers, headers());
        let Next::Frame { offset, body, .. } = r.next(limit).unwrap() else {
            panic!("no frame")
        };
        assert_eq!(offset, 8);
        let rec = decode(r.body(body), "t", 3).unwrap();
        assert_eq!((rec.key, rec.value.as_deref()), (None, Some(&b"value"[..])));
        assert!(matches!(r.next(limit).unwrap(), Next::End));
    }

    #[test]
    fn bad_frames_are_reported() {
        let mut buf = Vec::new();
        encode(&mut buf, 0, 0, Some(b"k"), Some(b"v"), &[]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(file_name(0));
        let mut flipped = buf.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0xff;
        std::fs::write(&path, &flipped).unwrap();
        let mut r = SegmentReader::open(&path, 0).unwrap();
        assert!(
            matches!(r.next(u64::MAX).unwrap(), Next::Bad { pos: 0, ref reason, incomplete: false } if reason.contains("CRC"))
        );
        std::fs::write(&path, &buf[..buf.len() - 3]).unwrap();
        let mut r = SegmentReader::open(&path, 0).unwrap();
        assert!(matches!(
            r.next(u64::MAX).unwrap(),
            Next::Bad {
                pos: 0,
                incomplete: true,
                ..
            }
        ));
    }

    #[test]
    fn file_names() {
        assert_eq!(file_name(42), "00000000000000000042.log");
        assert_eq!(parse_file_name("00000000000000000042.log"), Some(42));
        assert_eq!(parse_file_name("42.log"), None);
        assert_eq!(parse_file_name("00000000000000000042.tmp"), None);
    }
}
