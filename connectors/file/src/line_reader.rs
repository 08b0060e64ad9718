//! A byte buffer that splits a stream into lines and tracks the byte position after each.
//!
//! Line terminators are `\n`, `\r\n` and a lone `\r`. A `\r` that is the last byte of the data
//! read so far is not a terminator yet: the next byte decides whether it is `\r` or `\r\n`, so
//! the line waits for it. An unterminated last line is never returned (tailing semantics), so a
//! committed position never points into the middle of a line.
//!
//! The buffer is filled by the caller: [`LineBuffer::begin_read`] hands out the storage (so a
//! blocking read can run on another thread), [`LineBuffer::end_read`] takes it back.

use std::io::{self, Read};

/// Default buffer size: 1 MiB.
pub const DEFAULT_CAPACITY: usize = 1 << 20;

/// Splits bytes into lines; see the module documentation.
#[derive(Debug)]
pub struct LineBuffer {
    /// Storage; `buf.len()` is the capacity in use. Empty while a read holds it.
    buf: Vec<u8>,
    /// Start of unconsumed data.
    start: usize,
    /// End of valid data.
    end: usize,
    /// Where the search for the next terminator resumes (everything in `start..scan` is
    /// known to hold no terminator).
    scan: usize,
    /// Stream byte position of `buf[start]`.
    position: u64,
    /// Capacity to restore after a huge line has been consumed.
    capacity: usize,
}

impl LineBuffer {
    /// An empty buffer of `capacity` bytes whose first byte is at stream position `position`.
    pub fn new(capacity: usize, position: u64) -> Self {
        let capacity = capacity.max(1);
        Self {
            buf: vec![0; capacity],
            start: 0,
            end: 0,
            scan: 0,
            position,
            capacity,
        }
    }

    /// Stream byte position just after the last line returned (the start of unconsumed data).
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Bytes read but not yet returned as lines (0 while a read holds the storage).
    pub fn buffered(&self) -> usize {
        if self.buf.is_empty() {
            0
        } else {
            self.end - self.start
        }
    }

    /// The next complete line (without its terminator) and the stream byte position just after
    /// its terminator, or `None` when no complete line is buffered (or a read holds the
    /// storage).
    pub fn next_line(&mut self) -> Option<(&[u8], u64)> {
        let found = find_terminator(self.buf.get(self.scan..self.end)?);
        let Some(rel) = found else {
            self.scan = self.end;
            return None;
        };
        let at = self.scan + rel;
        let next = if self.buf[at] == b'\n' {
            at + 1
        } else if at + 1 < self.end {
            if self.buf[at + 1] == b'\n' {
                at + 2
            } else {
                at + 1
            }
        } else {
            // A trailing `\r`: wait for the next byte.
            self.scan = at;
            return None;
        };
        let line_start = self.start;
        self.position += (next - line_start) as u64;
        self.start = next;
        self.scan = next;
        Some((&self.buf[line_start..at], self.position))
    }

    /// Makes room for more data and hands out the storage; read into `buf[offset..]`, then call
    /// [`LineBuffer::end_read`] with the same vector. The buffer grows (doubling) when it is
    /// full of one unterminated line.
    pub fn begin_read(&mut self) -> (Vec<u8>, usize) {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.scan = 0;
            if self.buf.len() > self.capacity {
                // A huge line was consumed: give the memory back.
                self.buf = vec![0; self.capacity];
            }
        } else if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scan -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            let grown = self.buf.len().saturating_mul(2).max(self.capacity);
            self.buf.resize(grown, 0);
        }
        (std::mem::take(&mut self.buf), self.end)
    }

    /// Takes the storage back after `n` bytes were read into it at the offset
    /// [`LineBuffer::begin_read`] gave.
    pub fn end_read(&mut self, buf: Vec<u8>, n: usize) {
        self.buf = buf;
        self.end = (self.end + n).min(self.buf.len());
    }

    /// Reads once from `input` (blocking); returns the number of bytes read (0 at end of input).
    ///
    /// # Errors
    /// The read's error; no data is lost.
    pub fn fill_from(&mut self, input: &mut dyn Read) -> io::Result<usize> {
        let (mut buf, offset) = self.begin_read();
        let result = read_into(input, &mut buf, offset);
        self.end_read(buf, *result.as_ref().unwrap_or(&0));
        result
    }
}

/// One read into `buf[offset..]`, retrying on `Interrupted`.
pub(crate) fn read_into(input: &mut dyn Read, buf: &mut [u8], offset: usize) -> io::Result<usize> {
    let Some(dest) = buf.get_mut(offset..) else {
        return Ok(0);
    };
    loop {
        match input.read(dest) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Index of the first `\n` or `\r`.
#[inline]
fn find_terminator(data: &[u8]) -> Option<usize> {
    // Word-at-a-time scan: a word holds a terminator iff some byte is zero after xor.
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    const CR: u64 = LO * b'\r' as u64;
    let has_zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mut i = 0;
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        if has_zero(w ^ NL) | has_zero(w ^ CR) != 0 {
            break;
        }
        i += 8;
    }
    data[i..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|p| p + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(chunks: &[&[u8]], capacity: usize) -> (Vec<(String, u64)>, LineBuffer) {
        let mut lb = LineBuffer::new(capacity, 0);
        let mut out = Vec::new();
        for chunk in chunks {
            let mut input: &[u8] = chunk;
            while !input.is_empty() {
                lb.fill_from(&mut input).unwrap();
                while let Some((line, pos)) = lb.next_line() {
                    out.push((String::from_utf8_lossy(line).into_owned(), pos));
                }
            }
        }
        (out, lb)
    }

    #[test]
    fn terminators() {
        let (lines, lb) = lines_of(&[b"a\nbb\r\nccc\rdd\n\n\r\re"], 1024);
        let expect = [
            ("a", 2),
            ("bb", 6),
            ("ccc", 10),
            ("dd", 13),
            ("", 14),
            ("", 15),
            ("", 16),
        ];
        let got: Vec<_> = lines.iter().map(|(l, p)| (l.as_str(), *p)).collect();
        assert_eq!(got, expect);
        assert_eq!(lb.position(), 16);
        assert_eq!(lb.buffered(), 1);
    }

    #[test]
    fn trailing_cr_waits_for_next_byte() {
        let mut lb = LineBuffer::new(16, 0);
        lb.fill_from(&mut &b"ab\r"[..]).unwrap();
        assert!(lb.next_line().is_none());
        lb.fill_from(&mut &b"\ncd\r"[..]).unwrap();
        assert_eq!(lb.next_line(), Some((&b"ab"[..], 4)));
        assert!(lb.next_line().is_none());
        lb.fill_from(&mut &b"x"[..]).unwrap();
        assert_eq!(lb.next_line(), Some((&b"cd"[..], 7)));
        assert!(lb.next_line().is_none());
    }

    #[test]
    fn every_split_point_gives_the_same_lines() {
        let data: &[u8] = b"one\r\ntwo\rthree\n\r\nfour\r\r\nfive\n";
        let (whole, _) = lines_of(&[data], 1024);
        for cut in 0..data.len() {
            for cap in [1, 2, 3, 7, 64] {
                let (split, _) = lines_of(&[&data[..cut], &data[cut..]], cap);
                assert_eq!(split, whole, "cut {cut} cap {cap}");
            }
        }
        assert_eq!(whole.len(), 7);
    }

    #[test]
    fn huge_line_grows_the_buffer_then_shrinks() {
        let mut data = vec![b'x'; 3 * DEFAULT_CAPACITY + 17];
        data.extend_from_slice(b"\nshort\n");
        let (lines, lb) = lines_of(&[&data], DEFAULT_CAPACITY);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].0.len(), 3 * DEFAULT_CAPACITY + 17);
        assert_eq!(lines[1], ("short".to_owned(), data.len() as u64));
        let mut lb = lb;
        let (buf, _) = lb.begin_read();
        assert_eq!(buf.len(), DEFAULT_CAPACITY);
    }

    #[test]
    fn find_terminator_matches_naive() {
        let mut data = vec![b'a'; 40];
        assert_eq!(find_terminator(&data), None);
        for i in 0..40 {
            for t in [b'\n', b'\r'] {
                data[i] = t;
                assert_eq!(find_terminator(&data), Some(i));
                data[i] = 0x8a; // high-bit bytes must not match
                assert_eq!(find_terminator(&data), None);
                data[i] = b'a';
            }
        }
    }
}
