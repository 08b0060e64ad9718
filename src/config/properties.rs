//! Java `.properties` files, read with the `java-properties` crate (which keeps line numbers).
//!
//! Supported as in `java.util.Properties.load`: `=`, `:` or whitespace separators, `#`/`!`
//! comments, backslash line continuation (leading whitespace of the next line dropped),
//! `\uXXXX`, `\t`, `\n`, `\r`, `\f`, `\\` and `\<any>` escapes, a key without value.
//!
//! A pre-pass works around the crate's gaps before handing it the text:
//! * encoding: the bytes are decoded as UTF-8 when valid (a leading BOM is dropped), otherwise
//!   as ISO-8859-1 like Java; the crate itself only reads windows-1252, so every non-ASCII
//!   character is handed to it as a `\uXXXX` escape;
//! * comment lines are blanked: the crate unescapes comments and would reject
//!   `# C:\users\...` as a malformed `\u` escape, which Java ignores;
//! * a backslash continuation on the last line without a final newline lost the whole entry;
//! * characters outside the BMP (raw, or written as a `\uD83D\uDE00` surrogate pair, which Java
//!   accepts) are passed through a private-use marker because the crate rejects surrogates;
//! * every malformed `\u` escape is reported (with its physical line), not just the first.

use std::fmt::Write as _;
use std::path::Path;

use java_properties::{LineContent, PropertiesIter};

use super::error::{ConfigError, ConfigProblem};
use super::origin::Origin;
use super::raw::RawConfig;

/// Parses the bytes of a `.properties` file read from `file`.
///
/// # Errors
/// A [`ConfigError::Invalid`] listing every malformed line (file and line).
pub fn parse_properties(bytes: &[u8], file: &Path) -> Result<RawConfig, ConfigError> {
    let text = decode(bytes);
    let (ascii, marker, problems) = prepare(&text, file);
    if !problems.is_empty() {
        return Err(ConfigError::invalid(problems));
    }
    let mut raw = RawConfig::new(file);
    for line in PropertiesIter::new(ascii.as_bytes()) {
        let line = line.map_err(|e| {
            let text = e.to_string();
            // The crate's Display appends " (line_number = N)"; keep only the description.
            let message = text
                .rfind(" (line_number = ")
                .map_or(text.as_str(), |i| &text[..i])
                .to_owned();
            ConfigError::single(ConfigProblem::at(
                Origin::new(file, e.line_number()),
                message,
            ))
        })?;
        let number = line.line_number();
        if let LineContent::KVPair(key, value) = line.consume_content() {
            match marker {
                Some(m) => raw.insert(restore(&key, m), restore(&value, m), Some(number)),
                None => raw.insert(key, value, Some(number)),
            }
        }
    }
    Ok(raw)
}

/// UTF-8 when valid (BOM dropped), else ISO-8859-1 (each byte is the code point).
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.strip_prefix('\u{feff}').unwrap_or(s).to_owned(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// Splits into physical lines at `\r\n`, `\r` or `\n`.
fn physical_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    lines.push(&text[start..]);
    lines
}

fn is_java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

fn hex4(chars: &[char]) -> Option<u32> {
    if chars.len() == 4 && chars.iter().all(char::is_ascii_hexdigit) {
        let s: String = chars.iter().collect();
        u32::from_str_radix(&s, 16).ok()
    } else {
        None
    }
}

/// Picks a private-use character that cannot occur in the parsed output on its own.
fn pick_marker(text: &str) -> Option<char> {
    let lower = text.to_ascii_lowercase();
    (0xE000u32..=0xF8FF)
        .filter_map(char::from_u32)
        .find(|c| !text.contains(*c) && !lower.contains(&format!("\\u{:04x}", u32::from(*c))))
}

/// Turns the text into pure ASCII the crate reads as Java would, one output line per input line.
fn prepare(text: &str, file: &Path) -> (String, Option<char>, Vec<ConfigProblem>) {
    let lower = text.to_ascii_lowercase();
    let needs_marker = text.chars().any(|c| u32::from(c) > 0xFFFF)
        || ["\\ud8", "\\ud9", "\\uda", "\\udb"]
            .iter()
            .any(|high| lower.contains(high));
    let marker = if needs_marker {
        pick_marker(text)
    } else {
        None
    };
    let mut problems = Vec::new();
    let mut out = String::with_capacity(text.len() + 16);
    let mut logical_start = true;
    for (index, line) in physical_lines(text).into_iter().enumerate() {
        let number = index + 1;
        let body = line.trim_start_matches(is_java_space);
        if logical_start && (body.starts_with('#') || body.starts_with('!')) {
            out.push('\n');
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        let mut continued = false;
        while i < chars.len() {
            let c = chars[i];
            if c != '\\' {
                push_char(&mut out, c, marker, &mut problems, file, number);
                i += 1;
                continue;
            }
            let Some(&next) = chars.get(i + 1) else {
                // Odd backslash at the end of the line: continuation.
                out.push('\\');
                continued = true;
                i += 1;
                continue;
            };
            if next != 'u' {
                if next.is_ascii() {
                    out.push('\\');
                    out.push(next);
                } else {
                    // `\é` means `é`.
                    push_char(&mut out, next, marker, &mut problems, file, number);
                }
                i += 2;
                continue;
            }
            let digits = &chars[(i + 2).min(chars.len())..(i + 6).min(chars.len())];
            let Some(unit) = hex4(digits) else {
                problems.push(ConfigProblem::at(
                    Origin::new(file, Some(number)),
                    format!(
                        "Malformed \\uxxxx encoding: \\u{} is not followed by 4 hexadecimal digits.",
                        digits.iter().collect::<String>()
                    ),
                ));
                i += 2 + digits.len();
                continue;
            };
            if (0xD800..0xDC00).contains(&unit) {
                let low = (chars.get(i + 6) == Some(&'\\') && chars.get(i + 7) == Some(&'u'))
                    .then(|| hex4(&chars[(i + 8).min(chars.len())..(i + 12).min(chars.len())]))
                    .flatten()
                    .filter(|l| (0xDC00..0xE000).contains(l));
                match (low, marker) {
                    (Some(low), Some(m)) => {
                        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        push_marked(&mut out, m, code);
                        i += 12;
                    }
                    _ => {
                        problems.push(ConfigProblem::at(
                            Origin::new(file, Some(number)),
                            format!(
                                "Malformed \\uxxxx encoding: unpaired surrogate \\u{unit:04X}."
                            ),
                        ));
                        i += 6;
                    }
                }
                continue;
            }
            if (0xDC00..0xE000).contains(&unit) {
                problems.push(ConfigProblem::at(
                    Origin::new(file, Some(number)),
                    format!("Malformed \\uxxxx encoding: unpaired surrogate \\u{unit:04X}."),
                ));
                i += 6;
                continue;
            }
            let _ = write!(out, "\\u{unit:04X}");
            i += 6;
        }
        out.push('\n');
        logical_start = !continued;
    }
    (out, marker, problems)
}

fn push_marked(out: &mut String, marker: char, code: u32) {
    let _ = write!(out, "\\u{:04X}{code:06X}", u32::from(marker));
}

fn push_char(
    out: &mut String,
    c: char,
    marker: Option<char>,
    problems: &mut Vec<ConfigProblem>,
    file: &Path,
    line: usize,
) {
    let code = u32::from(c);
    if c.is_ascii() {
        out.push(c);
    } else if code <= 0xFFFF {
        let _ = write!(out, "\\u{code:04X}");
    } else if let Some(m) = marker {
        push_marked(out, m, code);
    } else {
        problems.push(ConfigProblem::at(
            Origin::new(file, Some(line)),
            "Cannot represent a character outside the Basic Multilingual Plane",
        ));
    }
}

/// Replaces `marker` + 6 hex digits by the character they encode.
fn restore(s: &str, marker: char) -> String {
    if !s.contains(marker) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != marker {
            out.push(c);
            continue;
        }
        let hex: String = chars.by_ref().take(6).collect();
        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
            Some(decoded) => out.push(decoded),
            None => {
                out.push(c);
                out.push_str(&hex);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn parse(text: &str) -> RawConfig {
        parse_properties(text.as_bytes(), Path::new("t.properties")).unwrap()
    }

    fn pairs(raw: &RawConfig) -> Vec<(String, String, Option<usize>)> {
        raw.iter()
            .map(|(k, e)| (k.to_owned(), e.value.clone(), e.origin.line))
            .collect()
    }

    fn p(k: &str, v: &str, line: usize) -> (String, String, Option<usize>) {
        (k.to_owned(), v.to_owned(), Some(line))
    }

    #[test]
    fn separators() {
        let raw = parse("a=1\nb:2\nc 3\nd\t4\n  e = 5 \nf  :  6\ng\nh=\ni==x\n");
        assert_eq!(
            pairs(&raw),
            [
                p("a", "1", 1),
                p("b", "2", 2),
                p("c", "3", 3),
                p("d", "4", 4),
                p("e", "5 ", 5),
                p("f", "6", 6),
                p("g", "", 7),
                p("h", "", 8),
                p("i", "=x", 9),
            ]
        );
    }

    #[test]
    fn comments_and_blank_lines() {
        let raw = parse("# c1\n! c2\n   # indented\n\n \t \na=1 # not a comment\n");
        assert_eq!(pairs(&raw), [p("a", "1 # not a comment", 6)]);
    }

    #[test]
    fn comments_with_backslashes_are_ignored_like_java() {
        let raw = parse("# C:\\users\\x \\\na=1\n! \\uZZZZ\n");
        assert_eq!(pairs(&raw), [p("a", "1", 2)]);
    }

    #[test]
    fn continuation_lines() {
        let raw = parse("a=one, \\\n    two, \\\n\tthree\nb=x\\\\\nc=y");
        assert_eq!(
            pairs(&raw),
            [
                p("a", "one, two, three", 1),
                p("b", "x\\", 4),
                p("c", "y", 5)
            ]
        );
    }

    #[test]
    fn continuation_into_a_hash_is_not_a_comment() {
        let raw = parse("a=x\\\n#y\n");
        assert_eq!(pairs(&raw), [p("a", "x#y", 1)]);
    }

    #[test]
    fn continuation_at_end_of_file_without_newline_is_kept() {
        let raw = parse("a=1\nb=2\\");
        assert_eq!(pairs(&raw), [p("a", "1", 1), p("b", "2", 2)]);
    }

    #[test]
    fn escapes() {
        let raw = parse(
            "tab=a\\tb\nnl=a\\nb\nbs=a\\\\b\nu=\\u0041\\u00e9\nkey\\ with\\:sep\\=s=v\ncr=\\r\\f\nother=\\q\n",
        );
        assert_eq!(
            pairs(&raw),
            [
                p("tab", "a\tb", 1),
                p("nl", "a\nb", 2),
                p("bs", "a\\b", 3),
                p("u", "Aé", 4),
                p("key with:sep=s", "v", 5),
                p("cr", "\r\x0c", 6),
                p("other", "q", 7),
            ]
        );
    }

    #[test]
    fn escaped_separator_via_unicode_is_part_of_key() {
        let raw = parse("a\\u003Db=c\n");
        assert_eq!(pairs(&raw), [p("a=b", "c", 1)]);
    }

    #[test]
    fn utf8_latin1_and_supplementary_characters() {
        let raw = parse("città=Zürich 東京 😀\nemoji=\\uD83D\\uDE00!\nesc=\\é\n");
        assert_eq!(
            pairs(&raw),
            [
                p("città", "Zürich 東京 😀", 1),
                p("emoji", "😀!", 2),
                p("esc", "é", 3)
            ]
        );
        let latin1 = parse_properties(b"k=caf\xe9\n", Path::new("l.properties")).unwrap();
        assert_eq!(latin1.get("k"), Some("café"));
        let bom = parse_properties("\u{feff}k=v\n".as_bytes(), Path::new("b")).unwrap();
        assert_eq!(bom.get("k"), Some("v"));
    }

    #[test]
    fn crlf_and_cr_line_endings() {
        let raw = parse("a=1\r\nb=2\rc=3\r\n");
        assert_eq!(
            pairs(&raw),
            [p("a", "1", 1), p("b", "2", 2), p("c", "3", 3)]
        );
    }

    #[test]
    fn duplicates_last_wins() {
        let raw = parse("a=1\nb=2\na=3\n");
        assert_eq!(pairs(&raw), [p("a", "3", 3), p("b", "2", 2)]);
        assert_eq!(raw.duplicate_warnings().len(), 1);
    }

    #[test]
    fn malformed_unicode_escapes_name_file_and_every_line() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(b"a=1\nb=\\u12G4\nc=ok\nd=x\\u12\ne=\\uD800\n")
            .unwrap();
        let bytes = std::fs::read(f.path()).unwrap();
        let err = parse_properties(&bytes, f.path()).unwrap_err();
        let lines: Vec<_> = err.problems().iter().map(|p| p.origin.line).collect();
        assert_eq!(lines, [Some(2), Some(4), Some(5)]);
        let shown = err.to_string();
        assert!(shown.starts_with(&format!("Invalid configuration in {}:", f.path().display())));
        assert!(
            shown.contains("line 2: Malformed \\uxxxx encoding"),
            "{shown}"
        );
    }

    #[test]
    fn restore_ignores_incomplete_markers() {
        assert_eq!(restore("a\u{e000}zz", '\u{e000}'), "a\u{e000}zz");
        assert_eq!(restore("a\u{e000}01F600b", '\u{e000}'), "a😀b");
    }
}
