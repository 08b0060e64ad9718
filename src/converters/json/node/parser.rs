//! The JSON tokenizer: structure, strings and literals (numbers are in [`super::number`]).

use indexmap::IndexMap;

use super::{Node, MAX_DEPTH};

/// Why parsing failed.
#[derive(Debug)]
pub(crate) struct ParseError(pub String);

/// Parses JSON bytes. `Ok(None)` is empty input (Jackson's `MissingNode`). When `spans` is given,
/// the byte spans of the root object's member values are recorded as (key, start, end).
pub(crate) fn parse(
    input: &[u8],
    spans: Option<&mut Vec<(String, usize, usize)>>,
) -> Result<Option<Node>, ParseError> {
    let mut p = Parser {
        s: input,
        pos: 0,
        spans,
    };
    if p.s.starts_with(&[0xEF, 0xBB, 0xBF]) {
        p.pos = 3;
    }
    p.skip_ws();
    if p.pos >= p.s.len() {
        return Ok(None);
    }
    let node = p.value(0)?;
    // Jackson requires white space (or the end) after a root-level scalar; content after the
    // first root value is otherwise not read.
    if matches!(
        node,
        Node::Int(_) | Node::Long(_) | Node::BigInt(_) | Node::Decimal(_)
    ) {
        if let Some(&c) = p.s.get(p.pos) {
            if !matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                return Err(p.err("Expected space separating root-level values"));
            }
        }
    }
    Ok(Some(node))
}

/// The tokenizer behind [`parse`], also driven directly by the streaming reader
/// (`super::stream`), so both accept exactly the same text.
pub(crate) struct Parser<'a, 'b> {
    pub(super) s: &'a [u8],
    pub(crate) pos: usize,
    spans: Option<&'b mut Vec<(String, usize, usize)>>,
}

impl<'a> Parser<'a, '_> {
    /// A parser over `s` starting at byte `pos`, recording no spans.
    pub(crate) fn at(s: &'a [u8], pos: usize) -> Self {
        Self {
            s,
            pos,
            spans: None,
        }
    }

    /// The byte at the current position, if any.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    /// The input from the current position on.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.s.get(self.pos..).unwrap_or_default()
    }

    /// The input between two positions.
    pub(crate) fn slice(&self, start: usize, end: usize) -> &'a [u8] {
        &self.s[start..end]
    }

    /// Skips a UTF-8 byte order mark and white space.
    pub(crate) fn skip_bom_and_ws(&mut self) {
        if self.s.starts_with(&[0xEF, 0xBB, 0xBF]) {
            self.pos = 3;
        }
        self.skip_ws();
    }

    /// Consumes `b` if it is the next byte.
    pub(crate) fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Reads a string whose opening quote is the current byte, borrowing it from the input
    /// when it has no escapes.
    pub(crate) fn string_cow(&mut self) -> Result<std::borrow::Cow<'a, str>, ParseError> {
        let start = self.pos + 1;
        let mut i = start;
        loop {
            i = super::super::scan::plain_run(self.s, i, false);
            let Some(&c) = self.s.get(i) else {
                break;
            };
            if c == b'"' {
                if let Ok(text) = std::str::from_utf8(&self.s[start..i]) {
                    self.pos = i + 1;
                    return Ok(std::borrow::Cow::Borrowed(text));
                }
                break;
            }
            if c == b'\\' || c < 0x20 {
                break;
            }
            i += 1;
        }
        self.string().map(std::borrow::Cow::Owned)
    }

    /// Reads one value (its first byte at the current position) without building it,
    /// accepting exactly what [`Parser::value`] accepts; `depth` as for `value`.
    pub(crate) fn skip_value(&mut self, depth: usize) -> Result<(), ParseError> {
        match self.peek() {
            Some(b'{') => {
                self.check_depth(depth + 1)?;
                self.pos += 1;
                self.skip_ws();
                if self.eat(b'}') {
                    return Ok(());
                }
                loop {
                    self.skip_ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.err("Unexpected character: was expecting double-quote"));
                    }
                    self.skip_string()?;
                    self.skip_ws();
                    if !self.eat(b':') {
                        return Err(self.err("Unexpected character: was expecting a colon"));
                    }
                    self.skip_ws();
                    self.skip_value(depth + 1)?;
                    self.skip_ws();
                    if self.eat(b'}') {
                        return Ok(());
                    }
                    if !self.eat(b',') {
                        return Err(self.err("Unexpected character: expected ',' or '}'"));
                    }
                }
            }
            Some(b'[') => {
                self.check_depth(depth + 1)?;
                self.pos += 1;
                self.skip_ws();
                if self.eat(b']') {
                    return Ok(());
                }
                loop {
                    self.skip_ws();
                    self.skip_value(depth + 1)?;
                    self.skip_ws();
                    if self.eat(b']') {
                        return Ok(());
                    }
                    if !self.eat(b',') {
                        return Err(self.err("Unexpected character: expected ',' or ']'"));
                    }
                }
            }
            Some(b'"') => self.skip_string(),
            _ => self.value(depth).map(drop),
        }
    }

    /// Reads a string (opening quote at the current position) without building it.
    fn skip_string(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        loop {
            let start = self.pos;
            self.pos = super::super::scan::plain_run(self.s, self.pos, false);
            while let Some(&c) = self.s.get(self.pos) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // Escapes are ASCII, so the raw runs between them are valid UTF-8 exactly when
            // the whole decoded string is.
            let run = &self.s[start..self.pos];
            if !run.is_ascii() && std::str::from_utf8(run).is_err() {
                return Err(self.err("Invalid UTF-8 in String value"));
            }
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos += 1;
                        }
                        Some(b'u') => {
                            self.pos += 1;
                            self.hex4()?;
                        }
                        _ => return Err(self.err("Unrecognized character escape")),
                    }
                }
                _ => return Err(self.err("Illegal character in String value")),
            }
        }
    }

    pub(super) fn err(&self, msg: &str) -> ParseError {
        ParseError(format!("{msg} at byte offset {}", self.pos))
    }

    pub(crate) fn skip_ws(&mut self) {
        while let Some(&c) = self.s.get(self.pos) {
            if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    pub(crate) fn value(&mut self, depth: usize) -> Result<Node, ParseError> {
        let Some(&c) = self.s.get(self.pos) else {
            return Err(self.err("Unexpected end-of-input"));
        };
        match c {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => Ok(Node::Str(self.string()?)),
            b't' => self.literal("true", Node::Bool(true)),
            b'f' => self.literal("false", Node::Bool(false)),
            b'n' => self.literal("null", Node::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.err(&format!("Unexpected character ('{}')", c as char))),
        }
    }

    pub(crate) fn literal(&mut self, word: &str, node: Node) -> Result<Node, ParseError> {
        let end = self.pos + word.len();
        if self.s.get(self.pos..end) != Some(word.as_bytes()) {
            return Err(self.err("Unrecognized token"));
        }
        if let Some(&c) = self.s.get(end) {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
                return Err(self.err("Unrecognized token"));
            }
        }
        self.pos = end;
        Ok(node)
    }

    pub(crate) fn check_depth(&self, depth: usize) -> Result<(), ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err(&format!(
                "Document nesting depth exceeds the maximum allowed ({MAX_DEPTH})"
            )));
        }
        Ok(())
    }

    fn array(&mut self, depth: usize) -> Result<Node, ParseError> {
        self.check_depth(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.s.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Node::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.s.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Node::Array(items));
                }
                _ => return Err(self.err("Unexpected character: expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Node, ParseError> {
        self.check_depth(depth)?;
        self.pos += 1;
        let mut map = IndexMap::new();
        self.skip_ws();
        if self.s.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Node::Object(map));
        }
        loop {
            self.skip_ws();
            if self.s.get(self.pos) != Some(&b'"') {
                return Err(self
                    .err("Unexpected character: was expecting double-quote to start field name"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.s.get(self.pos) != Some(&b':') {
                return Err(self.err(
                    "Unexpected character: was expecting a colon to separate field name and value",
                ));
            }
            self.pos += 1;
            self.skip_ws();
            let start = self.pos;
            let value = self.value(depth)?;
            if depth == 1 {
                if let Some(spans) = self.spans.as_deref_mut() {
                    spans.push((key.clone(), start, self.pos));
                }
            }
            map.insert(key, value);
            self.skip_ws();
            match self.s.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Node::Object(map));
                }
                _ => return Err(self.err("Unexpected character: expected ',' or '}'")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let Some(h) = self.s.get(self.pos..self.pos + 4) else {
            return Err(self.err("Unexpected end-of-input in character escape sequence"));
        };
        let mut v = 0u32;
        for &c in h {
            let d = (c as char)
                .to_digit(16)
                .ok_or_else(|| self.err("Unexpected character in character escape sequence"))?;
            v = v * 16 + d;
        }
        self.pos += 4;
        Ok(v)
    }

    pub(crate) fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let start = self.pos;
            self.pos = super::super::scan::plain_run(self.s, self.pos, false);
            while let Some(&c) = self.s.get(self.pos) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.extend_from_slice(&self.s[start..self.pos]);
            let Some(&c) = self.s.get(self.pos) else {
                return Err(self.err("Unexpected end-of-input in a String value"));
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    let Some(&e) = self.s.get(self.pos) else {
                        return Err(self.err("Unexpected end-of-input in character escape sequence"));
                    };
                    self.pos += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            if (0xD800..0xDC00).contains(&hi)
                                && self.s.get(self.pos..self.pos + 2) == Some(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                        .unwrap_or('\u{FFFD}')
                                } else {
                                    self.pos = save;
                                    '\u{FFFD}'
                                }
                            } else {
                                // Lone surrogates cannot be held in a Rust string.
                                char::from_u32(hi).unwrap_or('\u{FFFD}')
                            }
                        }
                        _ => {
                            return Err(self.err(&format!(
                                "Unrecognized character escape '{}'",
                                e as char
                            )))
                        }
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => {
                    return Err(self.err(&format!(
                        "Illegal unquoted character (CTRL-CHAR, code {c}): has to be escaped using backslash to be included in string value"
                    )))
                }
            }
        }
        String::from_utf8(out).map_err(|_| self.err("Invalid UTF-8 in String value"))
    }
}
