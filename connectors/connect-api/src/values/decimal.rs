//! Decimal arithmetic shared by `Values` and the converters: the scale of a Decimal schema
//! (with Kafka's `Decimal.scale` errors), `BigDecimal` parsing, rescaling and the minimal
//! two's-complement form of an unscaled value.

use std::borrow::Cow;

use num_bigint::BigInt;

use crate::{logical, ConnectError, Result, Schema};

/// The scale of a Decimal schema, with Kafka's `Decimal.scale` errors.
pub fn decimal_scale(schema: &Schema) -> Result<i32> {
    let raw = schema
        .parameter(logical::DECIMAL_SCALE)
        .ok_or_else(|| ConnectError::data("Invalid Decimal schema: scale parameter not found."))?;
    raw.parse().map_err(|_| {
        ConnectError::data(format!(
            "Invalid scale parameter found in Decimal schema: For input string: \"{raw}\""
        ))
    })
}

/// The minimal two's-complement form of `bytes` (what `BigInteger.toByteArray()` yields).
pub fn minimal_twos_complement(bytes: &[u8]) -> Cow<'_, [u8]> {
    if bytes.is_empty() {
        return Cow::Owned(vec![0]);
    }
    let mut i = 0;
    while i + 1 < bytes.len()
        && ((bytes[i] == 0 && bytes[i + 1] & 0x80 == 0)
            || (bytes[i] == 0xff && bytes[i + 1] & 0x80 != 0))
    {
        i += 1;
    }
    Cow::Borrowed(&bytes[i..])
}

/// `unscaled × 10^-from_scale` re-expressed at `to_scale`, when exact.
pub fn rescale(unscaled: BigInt, from_scale: i64, to_scale: i32) -> Result<BigInt> {
    let to = i64::from(to_scale);
    let mismatch = || {
        ConnectError::data(format!(
            "Decimal value has mismatching scale for given Decimal schema. Schema has scale {to_scale}, value has scale {from_scale}."
        ))
    };
    if from_scale == to {
        return Ok(unscaled);
    }
    let diff = (to - from_scale).unsigned_abs();
    if diff > 100_000 {
        return Err(mismatch());
    }
    let factor = BigInt::from(10u32).pow(diff as u32);
    if to > from_scale {
        Ok(unscaled * factor)
    } else {
        let r = &unscaled % &factor;
        if r != BigInt::from(0) {
            return Err(mismatch());
        }
        Ok(unscaled / factor)
    }
}

/// value, the scale and a normalized float literal.
pub fn parse_big_decimal(s: &str) -> Option<(BigInt, i64, String)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if matches!(b.first(), Some(b'+' | b'-')) {
        negative = b[0] == b'-';
        i = 1;
    }
    let mut digits = String::new();
    let mut frac_len: i64 = 0;
    let mut seen_dot = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                digits.push(c as char);
                if seen_dot {
                    frac_len += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if digits.is_empty() {
        return None;
    }
    let mut exp: i64 = 0;
    if i < b.len() {
        if b[i] != b'e' && b[i] != b'E' {
            return None;
        }
        i += 1;
        let mut exp_neg = false;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            exp_neg = b[i] == b'-';
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        for &c in &b[i..] {
            if !c.is_ascii_digit() {
                return None;
            }
            exp = exp.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            if exp > i64::from(i32::MAX) + 1 {
                return None;
            }
        }
        if exp_neg {
            exp = -exp;
        }
        i32::try_from(exp).ok()?;
    }
    let scale = frac_len - exp;
    i32::try_from(scale).ok()?;
    let mut unscaled: BigInt = digits.parse().ok()?;
    if negative {
        unscaled = -unscaled;
    }
    let normalized = format!("{}{}e{}", if negative { "-" } else { "" }, digits, -scale);
    Some((unscaled, scale, normalized))
}
