//! Numbers: scanning a JSON number and turning it into Jackson's node kind (int, long, big
//! integer or exact decimal).

use num_bigint::BigInt;

use super::parser::{ParseError, Parser};
use super::{Decimal, Node};

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

impl<'a> Parser<'a, '_> {
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
