//! Word-at-a-time scanning of string contents: skips runs of bytes that need no attention
//! eight at a time, for the reader and the writer.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `v` is zero.
fn has_zero(v: u64) -> bool {
    v.wrapping_sub(LO) & !v & HI != 0
}

/// Whether any of the eight bytes in `x` is `"`, `\`, below 0x20 or, with `four_byte`, the lead
/// byte of a four-byte UTF-8 sequence (0xF0 and above).
fn needs_look(x: u64, four_byte: bool) -> bool {
    x.wrapping_sub(LO * 0x20) & !x & HI != 0
        || has_zero(x ^ (LO * u64::from(b'"')))
        || has_zero(x ^ (LO * u64::from(b'\\')))
        || (four_byte && has_zero((x & (LO * 0xF0)) ^ (LO * 0xF0)))
}

/// The position, at or after `i`, of the first eight-byte chunk of `bytes` that holds a byte
/// `needs_look` names (or of the short tail); every byte skipped needs no attention.
pub(crate) fn plain_run(bytes: &[u8], mut i: usize, four_byte: bool) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        if needs_look(u64::from_le_bytes(word), four_byte) {
            break;
        }
        i += 8;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::plain_run;

    #[test]
    fn stops_at_the_chunk_that_needs_a_look() {
        let plain = b"abcdefghijklmnopqrstuvwxyz0123456789 !#$%&'()*+,-./:;<=>?@[]^_`{|}~\x7f";
        assert_eq!(plain_run(plain, 0, true), plain.len() / 8 * 8);
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            let mut s = plain.to_vec();
            s[13] = special;
            assert_eq!(plain_run(&s, 0, false), 8, "{special:#x}");
            assert_eq!(plain_run(&s, 14, false), 14 + (plain.len() - 14) / 8 * 8);
        }
        let four = "abcdefgh\u{1F600}xyzw".as_bytes();
        assert_eq!(plain_run(four, 0, true), 8);
        assert_eq!(plain_run(four, 0, false), 16);
        let two_three = "é€aé€aé€aé€a".as_bytes();
        assert_eq!(plain_run(two_three, 0, true), two_three.len() / 8 * 8);
    }
}
