//! Single-token literals of `Values.parseString`: numbers and ISO-8601 temporals (in UTC).

use num_bigint::BigInt;

use super::decimal::parse_big_decimal;
use crate::java_fmt::{self, MILLIS_PER_DAY};
use crate::Value;
use crate::{logical, Schema, SchemaRef, SchemaType};

/// Port of `ValueParser.parseAsNumber` (`None` is a `NumberFormatException`).
pub(super) fn parse_as_number(token: &str) -> Option<(SchemaRef, Value)> {
    let (unscaled, scale, normalized) = parse_big_decimal(token)?;
    // Exact integral value within long range → smallest integer type.
    let digits = unscaled.magnitude().to_str_radix(10);
    let integral = if unscaled == BigInt::from(0) {
        Some(0i64)
    } else if scale <= 0 {
        if digits.len() as i64 - scale > 19 {
            None
        } else {
            let v = &unscaled * BigInt::from(10u32).pow((-scale) as u32);
            i64::try_from(v).ok()
        }
    } else {
        let s = scale as usize;
        if digits.len() > s && digits[digits.len() - s..].bytes().all(|b| b == b'0') {
            let v = &unscaled / BigInt::from(10u32).pow(scale as u32);
            i64::try_from(v).ok()
        } else {
            None
        }
    };
    if let Some(v) = integral {
        return Some(if let Ok(b) = i8::try_from(v) {
            (Schema::required(SchemaType::Int8), Value::Int8(b))
        } else if let Ok(s) = i16::try_from(v) {
            (Schema::required(SchemaType::Int16), Value::Int16(s))
        } else if let Ok(i) = i32::try_from(v) {
            (Schema::required(SchemaType::Int32), Value::Int32(i))
        } else {
            (Schema::required(SchemaType::Int64), Value::Int64(v))
        });
    }
    let f: f32 = normalized.parse().ok()?;
    if f.is_finite() && scale != 0 {
        return Some((Schema::required(SchemaType::Float32), Value::Float32(f)));
    }
    let d: f64 = normalized.parse().ok()?;
    if d.is_finite() && scale != 0 {
        return Some((Schema::required(SchemaType::Float64), Value::Float64(d)));
    }
    let scale = i32::try_from(scale).ok()?;
    Some((
        logical::decimal(scale).build(),
        Value::Bytes(unscaled.to_signed_bytes_be()),
    ))
}

/// Java `new BigDecimal(String)`: `[+-]digits[.digits][e[+-]digits]`. Returns the unscaled
/// Port of `ValueParser.parseAsTemporal`, in UTC.
pub(super) fn parse_as_temporal(token: &str) -> Option<(SchemaRef, Value)> {
    let token = token.replace("\\:", ":");
    match token.encode_utf16().count() {
        13 => {
            let ms = parse_pattern(&token, TIME_PATTERN)?;
            Some((logical::time().build(), Value::Int32(ms as i32)))
        }
        24 => {
            let ms = parse_pattern(&token, TIMESTAMP_PATTERN)?;
            Some((logical::timestamp().build(), Value::Int64(ms)))
        }
        10 => {
            let ms = parse_pattern(&token, DATE_PATTERN)?;
            Some((
                logical::date().build(),
                Value::Int32(ms.div_euclid(MILLIS_PER_DAY) as i32),
            ))
        }
        _ => None,
    }
}

/// One element of a `SimpleDateFormat` pattern.
#[derive(Clone, Copy)]
enum Pat {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Lit(u8),
}

const DATE_PATTERN: &[Pat] = &[
    Pat::Year,
    Pat::Lit(b'-'),
    Pat::Month,
    Pat::Lit(b'-'),
    Pat::Day,
];
const TIME_PATTERN: &[Pat] = &[
    Pat::Hour,
    Pat::Lit(b':'),
    Pat::Minute,
    Pat::Lit(b':'),
    Pat::Second,
    Pat::Lit(b'.'),
    Pat::Milli,
    Pat::Lit(b'Z'),
];
const TIMESTAMP_PATTERN: &[Pat] = &[
    Pat::Year,
    Pat::Lit(b'-'),
    Pat::Month,
    Pat::Lit(b'-'),
    Pat::Day,
    Pat::Lit(b'T'),
    Pat::Hour,
    Pat::Lit(b':'),
    Pat::Minute,
    Pat::Lit(b':'),
    Pat::Second,
    Pat::Lit(b'.'),
    Pat::Milli,
    Pat::Lit(b'Z'),
];

/// A lenient `SimpleDateFormat.parse` in UTC: numeric fields take all consecutive digits and
/// overflow into the next larger unit. Returns epoch milliseconds.
fn parse_pattern(s: &str, pattern: &[Pat]) -> Option<i64> {
    let b = s.as_bytes();
    let mut i = 0;
    let (mut y, mut mo, mut d, mut h, mut mi, mut sec, mut ms) =
        (1970i64, 1i64, 1i64, 0i64, 0i64, 0i64, 0i64);
    for p in pattern {
        if let Pat::Lit(c) = p {
            if b.get(i) != Some(c) {
                return None;
            }
            i += 1;
            continue;
        }
        let start = i;
        let mut v: i64 = 0;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            i += 1;
        }
        if i == start || v > i64::from(i32::MAX) {
            return None;
        }
        match p {
            Pat::Year => y = v,
            Pat::Month => mo = v,
            Pat::Day => d = v,
            Pat::Hour => h = v,
            Pat::Minute => mi = v,
            Pat::Second => sec = v,
            Pat::Milli => ms = v,
            Pat::Lit(_) => {}
        }
    }
    let days = java_fmt::days_from_civil(y, mo, d);
    days.checked_mul(MILLIS_PER_DAY)?
        .checked_add(h * 3_600_000 + mi * 60_000 + sec * 1000 + ms)
}
