//! A JSON tree and a parser that reads JSON the way Kafka's `JsonDeserializer` (Jackson with
//! `ALLOW_LEADING_ZEROS_FOR_NUMBERS` and `USE_BIG_DECIMAL_FOR_FLOATS`) does.
//!
//! Numbers keep Jackson's node kinds (int, long, big integer, exact decimal) so that the
//! converter can apply Jackson's accessor semantics (`intValue()`, `isInt()`, `decimalValue()`
//! ...). Duplicate object keys keep the first position and the last value, as Jackson's
//! `ObjectNode` does. Content after the first root value is ignored (Jackson's default
//! `FAIL_ON_TRAILING_TOKENS=false`); empty input is Jackson's `MissingNode` (`None`).

use indexmap::IndexMap;
use num_bigint::BigInt;

/// Jackson's default maximum nesting depth (`StreamReadConstraints`).
pub(crate) const MAX_DEPTH: usize = 1000;

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integral number within `i32` (Jackson `IntNode`).
    Int(i32),
    /// An integral number within `i64` but not `i32` (Jackson `LongNode`).
    Long(i64),
    /// An integral number beyond `i64` (Jackson `BigIntegerNode`).
    BigInt(BigInt),
    /// A number with a fraction or exponent, kept exactly (Jackson `DecimalNode`).
    Decimal(Decimal),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Node>),
    /// An object, in first-seen key order.
    Object(IndexMap<String, Node>),
}

/// An exact decimal: `digits × 10^exp10` where `digits` is an optional `-` and ASCII digits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decimal {
    /// Sign and digits of the unscaled value, e.g. `-1234`.
    pub digits: String,
    /// Power of ten applied to `digits` (the negated `BigDecimal` scale).
    pub exp10: i64,
    /// The original text, for float parsing.
    pub text: String,
}

impl Node {
    /// Jackson's `JsonNodeType` name, for error messages.
    pub(crate) fn node_type(&self) -> &'static str {
        match self {
            Node::Null => "NULL",
            Node::Bool(_) => "BOOLEAN",
            Node::Int(_) | Node::Long(_) | Node::BigInt(_) | Node::Decimal(_) => "NUMBER",
            Node::Str(_) => "STRING",
            Node::Array(_) => "ARRAY",
            Node::Object(_) => "OBJECT",
        }
    }

    /// Jackson `isIntegralNumber()`.
    pub(crate) fn is_integral(&self) -> bool {
        matches!(self, Node::Int(_) | Node::Long(_) | Node::BigInt(_))
    }

    /// Jackson `longValue()`: truncating, wrapping to the low 64 bits; 0 for non-numbers.
    pub(crate) fn long_value(&self) -> i64 {
        match self {
            Node::Int(v) => i64::from(*v),
            Node::Long(v) => *v,
            Node::BigInt(b) => low_u64(b) as i64,
            Node::Decimal(d) => d.truncated_low_u64() as i64,
            _ => 0,
        }
    }

    /// Jackson `intValue()`: truncating, wrapping to the low 32 bits; 0 for non-numbers.
    pub(crate) fn int_value(&self) -> i32 {
        self.long_value() as i32
    }

    /// Jackson `doubleValue()`; 0 for non-numbers.
    pub(crate) fn double_value(&self) -> f64 {
        match self {
            Node::Int(v) => f64::from(*v),
            Node::Long(v) => *v as f64,
            Node::BigInt(b) => b.to_string().parse().unwrap_or(0.0),
            // Jackson reads floats as BigDecimal, which has no negative zero.
            Node::Decimal(d) => decimal_f64(&d.text),
            _ => 0.0,
        }
    }

    /// Jackson `floatValue()`; 0 for non-numbers.
    pub(crate) fn float_value(&self) -> f32 {
        match self {
            Node::Int(v) => *v as f32,
            Node::Long(v) => *v as f32,
            Node::BigInt(b) => b.to_string().parse().unwrap_or(0.0),
            Node::Decimal(d) => decimal_f32(&d.text),
            _ => 0.0,
        }
    }

    /// Jackson `decimalValue()` as (unscaled, scale), for numbers.
    pub(crate) fn decimal_value(&self) -> Option<(BigInt, i64)> {
        match self {
            Node::Int(v) => Some((BigInt::from(*v), 0)),
            Node::Long(v) => Some((BigInt::from(*v), 0)),
            Node::BigInt(b) => Some((b.clone(), 0)),
            Node::Decimal(d) => Some((d.digits.parse().ok()?, -d.exp10)),
            _ => None,
        }
    }
}

/// Jackson `doubleValue()` of a decimal number's text.
pub(crate) fn decimal_f64(text: &str) -> f64 {
    positive_zero(text.parse().unwrap_or(0.0))
}

/// Jackson `floatValue()` of a decimal number's text.
pub(crate) fn decimal_f32(text: &str) -> f32 {
    let v: f32 = text.parse().unwrap_or(0.0);
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// `-0.0` as `0.0` (`BigDecimal.doubleValue()` never yields a negative zero).
fn positive_zero(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

fn low_u64(b: &BigInt) -> u64 {
    // Two's complement low 64 bits, like BigInteger.longValue().
    let bytes = b.to_signed_bytes_le();
    let mut buf = if b.sign() == num_bigint::Sign::Minus {
        [0xffu8; 8]
    } else {
        [0u8; 8]
    };
    for (i, byte) in bytes.iter().take(8).enumerate() {
        buf[i] = *byte;
    }
    u64::from_le_bytes(buf)
}

impl Decimal {
    /// The low 64 bits of the integer part (truncated toward zero), like
    /// `BigDecimal.longValue()`.
    fn truncated_low_u64(&self) -> u64 {
        let (neg, digits) = match self.digits.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, self.digits.as_str()),
        };
        let int_digits: String = if self.exp10 >= 0 {
            // 10^k for k >= 64 has 2^64 as a factor: the low 64 bits are zero.
            if self.exp10 >= 64 {
                return 0;
            }
            let mut s = digits.to_owned();
            s.extend(std::iter::repeat_n('0', self.exp10 as usize));
            s
        } else {
            let cut = (-self.exp10) as usize;
            if cut >= digits.len() {
                return 0;
            }
            digits[..digits.len() - cut].to_owned()
        };
        let mut v: BigInt = int_digits.parse().unwrap_or_default();
        if neg {
            v = -v;
        }
        low_u64(&v)
    }
}

/// A number as scanned: its text and parts, before any conversion.
#[derive(Clone, Copy)]
pub(crate) struct NumberToken<'a> {
    /// The whole number.
    pub text: &'a str,
    negative: bool,
    int_digits: &'a [u8],
    frac_digits: &'a [u8],
    exp: i64,
    /// Whether it has a fraction or an exponent (a Jackson `DecimalNode`).
    pub is_decimal: bool,
}

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
    s: &'a [u8],
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
            i = super::scan::plain_run(self.s, i, false);
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
            self.pos = super::scan::plain_run(self.s, self.pos, false);
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

    fn err(&self, msg: &str) -> ParseError {
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
            self.pos = super::scan::plain_run(self.s, self.pos, false);
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

    pub(crate) fn number(&mut self) -> Result<Node, ParseError> {
        let t = self.number_token()?;
        self.number_node(&t)
    }

    /// Scans a number (first byte at the current position) without converting it.
    pub(crate) fn number_token(&mut self) -> Result<NumberToken<'a>, ParseError> {
        let start = self.pos;
        let s = self.s;
        let mut i = self.pos;
        let negative = s.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let int_start = i;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == int_start {
            self.pos = i;
            return Err(self.err("Unexpected character: expected digit for a number"));
        }
        let int_digits = &s[int_start..i];
        let mut frac_digits: &[u8] = &[];
        let mut exp: i64 = 0;
        let mut is_decimal = false;
        if s.get(i) == Some(&b'.') {
            is_decimal = true;
            i += 1;
            let fs = i;
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == fs {
                self.pos = i;
                return Err(self.err("Decimal point not followed by a digit"));
            }
            frac_digits = &s[fs..i];
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            is_decimal = true;
            i += 1;
            let mut exp_neg = false;
            if let Some(&c) = s.get(i) {
                if c == b'+' || c == b'-' {
                    exp_neg = c == b'-';
                    i += 1;
                }
            }
            let es = i;
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == es {
                self.pos = i;
                return Err(self.err("Exponent indicator not followed by a digit"));
            }
            for &d in &s[es..i] {
                exp = exp.saturating_mul(10).saturating_add(i64::from(d - b'0'));
            }
            if exp_neg {
                exp = -exp;
            }
        }
        self.pos = i;
        // Only ASCII was consumed.
        let text = std::str::from_utf8(&s[start..i]).unwrap_or("0");
        Ok(NumberToken {
            text,
            negative,
            int_digits,
            frac_digits,
            exp,
            is_decimal,
        })
    }

    /// The node of a scanned number: Jackson's int, long, big integer or exact decimal.
    pub(crate) fn number_node(&self, t: &NumberToken<'_>) -> Result<Node, ParseError> {
        let NumberToken {
            text,
            negative,
            int_digits,
            frac_digits,
            exp,
            is_decimal,
        } = *t;
        if !is_decimal {
            if let Ok(v) = text.parse::<i64>() {
                return Ok(match i32::try_from(v) {
                    Ok(v) => Node::Int(v),
                    Err(_) => Node::Long(v),
                });
            }
            let b: BigInt = text.parse().map_err(|_| self.err("Invalid number"))?;
            return Ok(Node::BigInt(b));
        }
        // Strip leading zeros of the unscaled digits (keeping at least one).
        let mut digits = String::with_capacity(int_digits.len() + frac_digits.len() + 1);
        if negative {
            digits.push('-');
        }
        let all = int_digits.iter().chain(frac_digits.iter());
        let mut leading = true;
        for &d in all {
            if leading && d == b'0' {
                continue;
            }
            leading = false;
            digits.push(d as char);
        }
        if leading {
            digits.push('0');
        }
        Ok(Node::Decimal(Decimal {
            digits,
            exp10: exp.saturating_sub(frac_digits.len() as i64),
            text: text.to_owned(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Node {
        parse(s.as_bytes(), None).unwrap().unwrap()
    }

    #[test]
    fn numbers_keep_jackson_kinds() {
        assert_eq!(p("12"), Node::Int(12));
        assert_eq!(p("0012"), Node::Int(12));
        assert_eq!(p("-0"), Node::Int(0));
        assert_eq!(p("4398046511104"), Node::Long(4_398_046_511_104));
        assert!(matches!(p("99999999999999999999"), Node::BigInt(_)));
        let Node::Decimal(d) = p("1.5600") else {
            panic!()
        };
        assert_eq!((d.digits.as_str(), d.exp10), ("15600", -4));
        let Node::Decimal(d) = p("-0.001e2") else {
            panic!()
        };
        assert_eq!((d.digits.as_str(), d.exp10), ("-1", -1));
        assert_eq!(p("1e2").node_type(), "NUMBER");
        assert!(!p("1e2").is_integral());
        assert_eq!(p("1.9").int_value(), 1);
        assert_eq!(p("-1.9").long_value(), -1);
        assert_eq!(p("4294967297").int_value(), 1);
        assert_eq!(p("18446744073709551617").long_value(), 1);
        assert_eq!(p("1e100").long_value(), 0);
        assert_eq!(p("12.34").double_value(), 12.34);
        assert_eq!(p("00.5").double_value(), 0.5);
        assert_eq!(p("-0012.5e1").float_value(), -125.0);
        assert_eq!(p("1e999").double_value(), f64::INFINITY);
    }

    #[test]
    fn strings_and_structure() {
        assert_eq!(p(r#""a\u00e9\n\ud83d\ude00""#), Node::Str("aé\n😀".into()));
        let Node::Object(m) = p(r#"{"a":1,"b":2,"a":3}"#) else {
            panic!()
        };
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(m["a"], Node::Int(3));
        assert_eq!(parse(b"  ", None).unwrap(), None);
        assert_eq!(p("{} trailing"), Node::Object(IndexMap::new()));
    }

    #[test]
    fn rejects_bad_json() {
        for bad in [
            "{",
            "[1,",
            "01a",
            "1.",
            ".5",
            "+1",
            "tru",
            "truex",
            "nul",
            "\"a\u{1}\"",
            "[1 2]",
            "{\"a\" 1}",
            "\"\\x\"",
            "NaN",
            "12abc",
        ] {
            assert!(parse(bad.as_bytes(), None).is_err(), "{bad}");
        }
        assert!(parse(&[b'"', 0xff, b'"'], None).is_err());
        let deep = "[".repeat(2000);
        assert!(parse(deep.as_bytes(), None).is_err());
    }

    #[test]
    fn records_root_member_spans() {
        let mut spans = Vec::new();
        let s = br#"{"schema": {"type":"int32"} , "payload":1}"#;
        parse(s, Some(&mut spans)).unwrap();
        assert_eq!(spans.len(), 2);
        let (k, a, b) = &spans[0];
        assert_eq!(k, "schema");
        assert_eq!(&s[*a..*b], br#"{"type":"int32"}"#);
    }
}
