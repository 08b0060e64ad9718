//! Base64 reading as Jackson's `TextNode.binaryValue()` does it (its default `MIME_NO_LINEFEEDS`
//! variant): the text is trimmed, white space (any char up to U+0020) is skipped before each
//! group of four, padding is required, and a padded group may be followed by more groups.

/// The value of a base64 alphabet character, or `None`.
fn sextet(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    }))
}

/// Decodes `s`; `None` where Jackson reports an invalid base64 value.
pub(crate) fn decode(s: &str) -> Option<Vec<u8>> {
    // Java's String.trim(): strips chars <= U+0020 at both ends.
    let b = s.trim_matches(|c: char| c <= ' ').as_bytes();
    let mut out = Vec::with_capacity(b.len() / 4 * 3 + 3);
    let mut i = 0;
    loop {
        while i < b.len() && b[i] <= b' ' {
            i += 1;
        }
        if i >= b.len() {
            return Some(out);
        }
        let c0 = sextet(b[i])?;
        let c1 = sextet(*b.get(i + 1)?)?;
        let mut data = (c0 << 6) | c1;
        let third = *b.get(i + 2)?;
        let Some(c2) = sextet(third) else {
            // One byte: "xx==".
            if third != b'=' || *b.get(i + 3)? != b'=' {
                return None;
            }
            out.push((data >> 4) as u8);
            i += 4;
            continue;
        };
        data = (data << 6) | c2;
        let fourth = *b.get(i + 3)?;
        match sextet(fourth) {
            Some(c3) => {
                data = (data << 6) | c3;
                out.extend_from_slice(&[(data >> 16) as u8, (data >> 8) as u8, data as u8]);
            }
            None if fourth == b'=' => {
                data >>= 2;
                out.extend_from_slice(&[(data >> 8) as u8, data as u8]);
            }
            None => return None,
        }
        i += 4;
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn reads_like_jackson() {
        assert_eq!(decode("AAEC/w==").unwrap(), [0, 1, 2, 255]);
        assert_eq!(decode(" AAEC /w== ").unwrap(), [0, 1, 2, 255]);
        assert_eq!(decode("AAEC\n/w==").unwrap(), [0, 1, 2, 255]);
        assert_eq!(decode("AQ==AQ==").unwrap(), [1, 1]);
        assert_eq!(decode("").unwrap(), [0u8; 0]);
        assert!(decode("AAEC/w").is_none(), "padding is required");
        assert!(decode("AA EC").is_none(), "no white space inside a group");
        assert!(decode("-_8=").is_none(), "URL-safe alphabet is refused");
        assert!(decode("AQ=x").is_none());
    }
}
