//! Output primitives matching Jackson's compact `UTF8JsonGenerator`.

use base64::Engine as _;

use connect_api::java_fmt;

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Appends `s` as a JSON string: raw UTF-8; `"` and `\` escaped; `\b \t \n \f \r` in short form;
/// other control characters below 0x20 as `\u00XX` with upper-case hex (Jackson's
/// `CharTypes.sOutputEscapes128`). `/` and DEL are not escaped. Characters outside the Basic
/// Multilingual Plane are written as an escaped UTF-16 surrogate pair (`\uD83D\uDE00`), as
/// Jackson 2.x's `UTF8JsonGenerator` does.
pub(crate) fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        i = super::scan::plain_run(bytes, i, true);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x09 => b't',
            0x0A => b'n',
            0x0C => b'f',
            0x0D => b'r',
            0x00..=0x1F => 0,
            0xF0..=0xF7 => {
                // A four-byte sequence: one supplementary code point (`s` is valid UTF-8).
                out.extend_from_slice(&bytes[start..i]);
                let c = s[i..].chars().next().map_or(0x10000, u32::from);
                let hi = 0xD800 + ((c - 0x10000) >> 10);
                let lo = 0xDC00 + ((c - 0x10000) & 0x3FF);
                push_u_escape(out, hi);
                push_u_escape(out, lo);
                i += 4;
                start = i;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..i]);
        if short == 0 {
            push_u_escape(out, u32::from(b));
        } else {
            out.push(b'\\');
            out.push(short);
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends `\uXXXX` with upper-case hex.
fn push_u_escape(out: &mut Vec<u8>, unit: u32) {
    out.extend_from_slice(b"\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((unit >> shift) & 0xF) as usize]);
    }
}

/// Appends an integer.
pub(crate) fn push_int(out: &mut Vec<u8>, v: i64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let neg = v < 0;
    let mut u = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if neg {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[i..]);
}

/// Appends a double as Jackson writes it: `Double.toString`, with non-finite values quoted
/// (`QUOTE_NON_NUMERIC_NUMBERS`).
pub(crate) fn push_f64(out: &mut Vec<u8>, v: f64) {
    let s = java_fmt::f64_string(v);
    if v.is_finite() {
        out.extend_from_slice(s.as_bytes());
    } else {
        push_str(out, &s);
    }
}

/// Appends a float as Jackson writes it: `Float.toString`, non-finite values quoted.
pub(crate) fn push_f32(out: &mut Vec<u8>, v: f32) {
    let s = java_fmt::f32_string(v);
    if v.is_finite() {
        out.extend_from_slice(s.as_bytes());
    } else {
        push_str(out, &s);
    }
}

/// Appends bytes as a base64 JSON string (standard alphabet, padded), as Jackson writes binary.
pub(crate) fn push_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    let start = out.len();
    out.resize(
        start + base64::encoded_len(bytes.len(), true).unwrap_or(0),
        0,
    );
    let n = base64::engine::general_purpose::STANDARD
        .encode_slice(bytes, &mut out[start..])
        .unwrap_or(0);
    out.truncate(start + n);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> String {
        let mut out = Vec::new();
        push_str(&mut out, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_escape_like_jackson() {
        assert_eq!(s("plain"), r#""plain""#);
        assert_eq!(s("a\"b\\c/d"), r#""a\"b\\c/d""#);
        assert_eq!(s("\u{8}\t\n\u{c}\r"), r#""\b\t\n\f\r""#);
        assert_eq!(s("\u{0}\u{1f}\u{7f}"), "\"\\u0000\\u001F\u{7f}\"");
        assert_eq!(s("é😀\u{2028}"), "\"é\\uD83D\\uDE00\u{2028}\"");
        assert_eq!(
            s("\u{10000}a\u{10ffff}"),
            "\"\\uD800\\uDC00a\\uDBFF\\uDFFF\""
        );
    }

    #[test]
    fn numbers_and_bytes() {
        let mut out = Vec::new();
        push_int(&mut out, i64::MIN);
        out.push(b' ');
        push_int(&mut out, 0);
        out.push(b' ');
        push_f64(&mut out, 1e10);
        out.push(b' ');
        push_f32(&mut out, f32::NAN);
        out.push(b' ');
        push_base64(&mut out, b"test-string");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"-9223372036854775808 0 1.0E10 "NaN" "dGVzdC1zdHJpbmc=""#
        );
    }
}
