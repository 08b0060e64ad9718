//! Java's textual forms of numbers and dates, as Kafka Connect emits them.
//!
//! * [`push_f64`] / [`push_f32`]: `Double.toString` / `Float.toString` (the JDK 19+ shortest-decimal
//!   algorithm, which also matches older JDKs except in rare non-shortest cases).
//! * [`big_decimal_string`]: `BigDecimal.toString` (scientific notation when the adjusted exponent
//!   is below -6 or the scale is negative).
//! * [`format_date_millis`]: `SimpleDateFormat` with the patterns of `Values`, in UTC, using Java's
//!   hybrid Julian/Gregorian calendar.

use num_bigint::{BigInt, Sign};

/// Splits a finite, non-zero, positive float's shortest representation into its decimal digits
/// and the exponent `e` such that the value is `d.ddd × 10^e`.
fn split_sci(s: &str) -> (Vec<u8>, i32) {
    // `s` looks like "1.2345e-5" or "5e-324".
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// Appends `digits × 10^e` (with `digits` read as `d.ddd`) in Java's `Double.toString` layout.
fn push_java_layout(out: &mut String, negative: bool, digits: &[u8], e: i32, plain: bool) {
    if negative {
        out.push('-');
    }
    // Trailing zeros never help (`{:e}` never emits them, but `{:.1e}` may).
    let mut digits = digits;
    while digits.len() > 1 && digits[digits.len() - 1] == b'0' {
        digits = &digits[..digits.len() - 1];
    }
    if plain {
        if e >= 0 {
            let int_len = (e + 1) as usize;
            for i in 0..int_len {
                out.push(*digits.get(i).unwrap_or(&b'0') as char);
            }
            out.push('.');
            if digits.len() > int_len {
                for d in &digits[int_len..] {
                    out.push(*d as char);
                }
            } else {
                out.push('0');
            }
        } else {
            out.push_str("0.");
            for _ in 0..(-e - 1) {
                out.push('0');
            }
            for d in digits {
                out.push(*d as char);
            }
        }
    } else {
        out.push(digits[0] as char);
        out.push('.');
        if digits.len() > 1 {
            for d in &digits[1..] {
                out.push(*d as char);
            }
        } else {
            out.push('0');
        }
        out.push('E');
        out.push_str(&e.to_string());
    }
}

macro_rules! java_float_fn {
    ($name:ident, $t:ty) => {
        /// Appends the value as Java's `toString` of the boxed type would render it.
        pub fn $name(out: &mut String, x: $t) {
            if x.is_nan() {
                out.push_str("NaN");
                return;
            }
            if x.is_infinite() {
                out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
                return;
            }
            if x == 0.0 {
                out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
                return;
            }
            let a = x.abs();
            let (mut digits, mut e) = split_sci(&format!("{a:e}"));
            if digits.len() == 1 {
                // Java considers 2-digit decimals too when the shortest has one digit, and picks
                // the one closest to the exact value (e.g. 4.9E-324 rather than 5e-324).
                let two = format!("{a:.1e}");
                if two.parse::<$t>().ok() == Some(a) {
                    let (d2, e2) = split_sci(&two);
                    digits = d2;
                    e = e2;
                }
            }
            let plain = (1e-3..1e7).contains(&a);
            push_java_layout(out, x < 0.0, &digits, e, plain);
        }
    };
}

java_float_fn!(push_f64, f64);
java_float_fn!(push_f32, f32);

/// Java's `Double.toString`.
pub fn f64_string(x: f64) -> String {
    let mut s = String::new();
    push_f64(&mut s, x);
    s
}

/// Java's `Float.toString`.
pub fn f32_string(x: f32) -> String {
    let mut s = String::new();
    push_f32(&mut s, x);
    s
}

/// Java's `BigDecimal.toString()` of `unscaled × 10^-scale`.
pub fn big_decimal_string(unscaled: &BigInt, scale: i32) -> String {
    let coeff = unscaled.magnitude().to_str_radix(10);
    let negative = unscaled.sign() == Sign::Minus;
    let mut out = String::with_capacity(coeff.len() + 8);
    if negative {
        out.push('-');
    }
    let adjusted = -(scale as i64) + (coeff.len() as i64 - 1);
    if scale >= 0 && adjusted >= -6 {
        let scale = scale as usize;
        if scale == 0 {
            out.push_str(&coeff);
        } else if coeff.len() > scale {
            let (int, frac) = coeff.split_at(coeff.len() - scale);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        } else {
            out.push_str("0.");
            for _ in 0..(scale - coeff.len()) {
                out.push('0');
            }
            out.push_str(&coeff);
        }
    } else {
        out.push_str(&coeff[..1]);
        if coeff.len() > 1 {
            out.push('.');
            out.push_str(&coeff[1..]);
        }
        out.push('E');
        if adjusted >= 0 {
            out.push('+');
        }
        out.push_str(&adjusted.to_string());
    }
    out
}

/// Milliseconds in a day.
pub const MILLIS_PER_DAY: i64 = 86_400_000;

/// Fixed day number (days since 1970-01-01) of the Gregorian cutover, 1582-10-15.
const CUTOVER_DAY: i64 = -141_427;

/// Days since the epoch of a proleptic Gregorian date (month 1-12).
fn gregorian_days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since the epoch of a Julian calendar date (month 1-12).
fn julian_days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(4);
    let yoe = y - era * 4;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + doy;
    // 0000-03-01 Julian is 719_470 days before 1970-01-01 (Gregorian).
    era * 1461 + doe - 719_470
}

/// Civil date of a day number in the proleptic Gregorian calendar.
fn gregorian_civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Civil date of a day number in the Julian calendar.
fn julian_civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_470;
    let era = z.div_euclid(1461);
    let doe = z - era * 1461;
    let yoe = (doe - doe / 1460) / 365;
    let doy = doe - 365 * yoe;
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 4 + i64::from(m <= 2);
    (y, m, d)
}

/// Civil date (year, month, day) of a day number, as `java.util.GregorianCalendar` shows it.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    if days >= CUTOVER_DAY {
        gregorian_civil(days)
    } else {
        julian_civil(days)
    }
}

/// Day number of a (possibly out-of-range, leniently normalised) civil date, as a lenient
/// `java.util.GregorianCalendar` computes it.
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = year + (month - 1).div_euclid(12);
    let m = (month - 1).rem_euclid(12) + 1;
    let g = gregorian_days(y, m, 1) + day - 1;
    if y > 1582 || (y == 1582 && g >= CUTOVER_DAY) {
        g
    } else {
        julian_days(y, m, 1) + day - 1
    }
}

fn push_padded(out: &mut String, v: i64, width: usize) {
    let s = v.to_string();
    for _ in s.len()..width {
        out.push('0');
    }
    out.push_str(&s);
}

/// Formats epoch milliseconds like `Values.dateFormatFor(date).format(date)` in UTC:
/// `HH:mm:ss.SSS'Z'` below one day, `yyyy-MM-dd` for whole days, else
/// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
pub fn format_date_millis(millis: i64) -> String {
    let days = millis.div_euclid(MILLIS_PER_DAY);
    let ms_of_day = millis.rem_euclid(MILLIS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    // SimpleDateFormat prints the year of era (no sign): 1 BC is year 1.
    let year_of_era = if y <= 0 { 1 - y } else { y };
    let mut out = String::with_capacity(24);
    let push_date = |out: &mut String| {
        push_padded(out, year_of_era, 4);
        out.push('-');
        push_padded(out, m, 2);
        out.push('-');
        push_padded(out, d, 2);
    };
    let push_time = |out: &mut String| {
        push_padded(out, ms_of_day / 3_600_000, 2);
        out.push(':');
        push_padded(out, ms_of_day / 60_000 % 60, 2);
        out.push(':');
        push_padded(out, ms_of_day / 1000 % 60, 2);
        out.push('.');
        push_padded(out, ms_of_day % 1000, 3);
        out.push('Z');
    };
    if millis < MILLIS_PER_DAY {
        push_time(&mut out);
    } else if millis % MILLIS_PER_DAY == 0 {
        push_date(&mut out);
    } else {
        push_date(&mut out);
        out.push('T');
        push_time(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_like_java() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1e10, "1.0E10"),
            (1.5e-5, "1.5E-5"),
            (12.34, "12.34"),
            (1e7, "1.0E7"),
            (9_999_999.0, "9999999.0"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (123_456.789, "123456.789"),
            (-2.5, "-2.5"),
            (f64::MIN_POSITIVE * f64::EPSILON, "4.9E-324"),
            (f64::MAX, "1.7976931348623157E308"),
            (1e23, "1.0E23"),
            (100.0, "100.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (x, want) in cases {
            assert_eq!(f64_string(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn floats_like_java() {
        let cases: &[(f32, &str)] = &[
            (1.0, "1.0"),
            (12.34, "12.34"),
            (1e10, "1.0E10"),
            (f32::MAX, "3.4028235E38"),
            (1.4e-45, "1.4E-45"),
            (0.1, "0.1"),
            (300.01, "300.01"),
            (66000.0008, "66000.0"),
        ];
        for (x, want) in cases {
            assert_eq!(f32_string(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn big_decimals_like_java() {
        let cases: &[(i64, i32, &str)] = &[
            (156, 2, "1.56"),
            (15600, 4, "1.5600"),
            (1, 7, "1E-7"),
            (1, 6, "0.000001"),
            (-1, 6, "-0.000001"),
            (123, -2, "1.23E+4"),
            (0, 0, "0"),
            (0, 2, "0.00"),
            (0, -2, "0E+2"),
            (-156, 2, "-1.56"),
            (12_345, 10, "0.0000012345"),
            (12_345, 11, "1.2345E-7"),
        ];
        for (u, s, want) in cases {
            assert_eq!(big_decimal_string(&BigInt::from(*u), *s), *want);
        }
    }

    #[test]
    fn dates_like_simple_date_format_in_utc() {
        assert_eq!(format_date_millis(0), "00:00:00.000Z");
        assert_eq!(format_date_millis(52_294_346), "14:31:34.346Z");
        assert_eq!(format_date_millis(18_131 * MILLIS_PER_DAY), "2019-08-23");
        assert_eq!(
            format_date_millis(1_566_570_894_346),
            "2019-08-23T14:34:54.346Z"
        );
        // Before the Gregorian cutover Java uses the Julian calendar.
        assert_eq!(civil_from_days(CUTOVER_DAY), (1582, 10, 15));
        assert_eq!(civil_from_days(CUTOVER_DAY - 1), (1582, 10, 4));
        // Kafka formats anything below one day of millis (including negative) as a time.
        assert_eq!(format_date_millis(-MILLIS_PER_DAY), "00:00:00.000Z");
        assert_eq!(
            format_date_millis(2 * MILLIS_PER_DAY + 1),
            "1970-01-03T00:00:00.001Z"
        );
        assert_eq!(format_date_millis(253_402_300_800_000), "10000-01-01");
        assert_eq!(days_from_civil(1582, 10, 4), CUTOVER_DAY - 1);
        assert_eq!(days_from_civil(1582, 10, 15), CUTOVER_DAY);
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2019, 8, 23), 18_131);
        // Lenient: month 13 is January of the next year.
        assert_eq!(days_from_civil(2018, 13, 1), days_from_civil(2019, 1, 1));
        for days in [-800_000, -141_428, -141_427, -1, 0, 1, 18_131, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{days}");
        }
    }
}
