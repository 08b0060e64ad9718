//! The primitives every item is made of: unsigned LEB128 varints, zig-zag varints for signed
//! integers, little-endian IEEE floats, strings and byte arrays as varint length + bytes,
//! optional integers as a presence byte + value.

use super::error::CodecError;

/// Appends `v` as an unsigned LEB128 varint (1–10 bytes).
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a `u32` as an unsigned varint.
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    put_uvarint(out, u64::from(v));
}

/// Appends an `i32` as a zig-zag varint.
pub fn put_i32(out: &mut Vec<u8>, v: i32) {
    put_uvarint(out, u64::from(((v << 1) ^ (v >> 31)) as u32));
}

/// Appends an `i64` as a zig-zag varint.
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    put_uvarint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Appends a length-prefixed byte array.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_uvarint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends a length-prefixed UTF-8 string.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

/// Appends an optional `i32`: `0`, or `1` and the zig-zag varint.
pub fn put_opt_i32(out: &mut Vec<u8>, v: Option<i32>) {
    match v {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            put_i32(out, v);
        }
    }
}

/// Appends an optional `i64`: `0`, or `1` and the zig-zag varint.
pub fn put_opt_i64(out: &mut Vec<u8>, v: Option<i64>) {
    match v {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            put_i64(out, v);
        }
    }
}

/// Reads the primitives from a byte slice, naming what it expected when the input is short or
/// malformed.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// The offset of the next byte.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next byte, without consuming it.
    pub fn peek(&self, expected: &'static str) -> Result<u8, CodecError> {
        self.buf
            .get(self.pos)
            .copied()
            .ok_or_else(|| self.truncated(expected, 1))
    }

    fn truncated(&self, expected: &'static str, needed: usize) -> CodecError {
        CodecError::Truncated {
            expected,
            offset: self.pos,
            needed,
            available: self.remaining(),
        }
    }

    /// `n` bytes.
    pub fn take(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8], CodecError> {
        if self.remaining() < n {
            return Err(self.truncated(expected, n));
        }
        let slice = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    /// One byte.
    pub fn u8(&mut self, expected: &'static str) -> Result<u8, CodecError> {
        let b = self.peek(expected)?;
        self.pos += 1;
        Ok(b)
    }

    /// An unsigned LEB128 varint.
    pub fn uvarint(&mut self, expected: &'static str) -> Result<u64, CodecError> {
        let start = self.pos;
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.u8(expected).map_err(|_| CodecError::Truncated {
                expected,
                offset: start,
                needed: self.pos - start + 1,
                available: self.buf.len() - start,
            })?;
            if shift == 63 && b > 1 {
                break;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CodecError::BadVarint {
            expected,
            offset: start,
        })
    }

    /// An unsigned varint that must fit a `u32`.
    pub fn u32(&mut self, expected: &'static str) -> Result<u32, CodecError> {
        let offset = self.pos;
        let v = self.uvarint(expected)?;
        u32::try_from(v).map_err(|_| CodecError::BadVarint { expected, offset })
    }

    /// A length prefix, checked against the bytes that remain (so a corrupt length never
    /// allocates).
    pub fn len(&mut self, expected: &'static str) -> Result<usize, CodecError> {
        let offset = self.pos;
        let v = self.uvarint(expected)?;
        match usize::try_from(v) {
            Ok(n) if n <= self.remaining() => Ok(n),
            _ => Err(CodecError::Truncated {
                expected,
                offset,
                needed: usize::try_from(v).unwrap_or(usize::MAX),
                available: self.remaining(),
            }),
        }
    }

    /// A zig-zag `i32`.
    pub fn i32(&mut self, expected: &'static str) -> Result<i32, CodecError> {
        let v = self.u32(expected)?;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// A zig-zag `i64`.
    pub fn i64(&mut self, expected: &'static str) -> Result<i64, CodecError> {
        let v = self.uvarint(expected)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A length-prefixed byte array.
    pub fn bytes(&mut self, expected: &'static str) -> Result<&'a [u8], CodecError> {
        let n = self.len(expected)?;
        self.take(n, expected)
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self, expected: &'static str) -> Result<&'a str, CodecError> {
        let offset = self.pos;
        let b = self.bytes(expected)?;
        std::str::from_utf8(b).map_err(|source| CodecError::BadUtf8 {
            expected,
            offset,
            source,
        })
    }

    /// A presence byte (`0` or `1`).
    pub fn flag(&mut self, expected: &'static str) -> Result<bool, CodecError> {
        let offset = self.pos;
        match self.u8(expected)? {
            0 => Ok(false),
            1 => Ok(true),
            tag => Err(CodecError::UnknownTag {
                kind: "presence",
                tag,
                offset,
                expected: "0 (absent) or 1 (present)",
            }),
        }
    }

    /// An optional zig-zag `i32`.
    pub fn opt_i32(&mut self, expected: &'static str) -> Result<Option<i32>, CodecError> {
        Ok(if self.flag(expected)? {
            Some(self.i32(expected)?)
        } else {
            None
        })
    }

    /// An optional zig-zag `i64`.
    pub fn opt_i64(&mut self, expected: &'static str) -> Result<Option<i64>, CodecError> {
        Ok(if self.flag(expected)? {
            Some(self.i64(expected)?)
        } else {
            None
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_have_the_documented_bytes() {
        let mut out = Vec::new();
        put_uvarint(&mut out, 0);
        put_uvarint(&mut out, 127);
        put_uvarint(&mut out, 128);
        put_i32(&mut out, -1);
        put_i32(&mut out, 1);
        put_i64(&mut out, i64::MIN);
        assert_eq!(
            out,
            [
                0x00, 0x7f, 0x80, 0x01, 0x01, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0xff, 0x01
            ]
        );
        let mut r = Reader::new(&out);
        assert_eq!(r.uvarint("a").unwrap(), 0);
        assert_eq!(r.uvarint("a").unwrap(), 127);
        assert_eq!(r.uvarint("a").unwrap(), 128);
        assert_eq!(r.i32("a").unwrap(), -1);
        assert_eq!(r.i32("a").unwrap(), 1);
        assert_eq!(r.i64("a").unwrap(), i64::MIN);
        assert!(r.is_empty());
    }

    #[test]
    fn a_varint_of_eleven_bytes_or_an_overflowing_u32_is_refused() {
        let long = [0xffu8; 11];
        let err = Reader::new(&long).uvarint("offset").unwrap_err();
        assert!(
            matches!(err, CodecError::BadVarint { offset: 0, .. }),
            "{err}"
        );
        let mut big = Vec::new();
        put_uvarint(&mut big, u64::from(u32::MAX) + 1);
        let err = Reader::new(&big).u32("schema id").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid varint at byte 0: schema id does not fit"
        );
    }

    #[test]
    fn a_length_beyond_the_input_is_truncation_not_an_allocation() {
        let mut buf = Vec::new();
        put_uvarint(&mut buf, 1 << 40);
        let err = Reader::new(&buf).bytes("a header key").unwrap_err();
        assert!(
            err.to_string().starts_with(
                "truncated input at byte 0: expected a header key, but only 0 of 1099511627776"
            ),
            "{err}"
        );
    }
}
