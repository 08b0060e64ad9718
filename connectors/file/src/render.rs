//! Java's `String.valueOf(value)` for Kafka Connect values, as the FileStream sink writes them.
//!
//! * String as is; null as `null`; booleans and integers as Java prints them.
//! * FLOAT32/FLOAT64 as `Float.toString`/`Double.toString` (shortest round-trip digits;
//!   `1.0`, `0.001`, `1.0E7`, `1.0E-4`, `NaN`, `Infinity`).
//! * Array as `[a, b]`, Map as `{k=v, k2=v2}`, Struct as `Struct{a=1,b=x}` (null fields left
//!   out), recursively.
//! * Logical types (when the schema says so): Decimal as `BigDecimal.toString` (unscaled
//!   values up to 16 bytes); Date, Time and Timestamp as `java.util.Date.toString` in UTC
//!   (`Thu Jan 01 00:00:00 UTC 1970`).
//!
//! Deviation: BYTES are written raw (Java would print an identity hash like `[B@1b6d3586`),
//! and so is a Decimal whose unscaled value exceeds 16 bytes.

use std::io::Write;

use connect_api::logical::{self, DECIMAL_SCALE};
use connect_api::{Schema, Value};

/// Appends Java's `String.valueOf(value)` to `out`; `schema` (optional) enables logical types.
pub fn write_java_string(value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) {
    // Writes into a Vec cannot fail.
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::String(s) => out.extend_from_slice(s.as_bytes()),
        Value::Boolean(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Int8(x) => {
            let _ = write!(out, "{x}");
        }
        Value::Int16(x) => {
            let _ = write!(out, "{x}");
        }
        Value::Int32(x) => match logical_name(schema) {
            Some(logical::DATE) => write_java_date(i64::from(*x) * 86_400_000, out),
            Some(logical::TIME) => write_java_date(i64::from(*x), out),
            _ => {
                let _ = write!(out, "{x}");
            }
        },
        Value::Int64(x) => match logical_name(schema) {
            Some(logical::TIMESTAMP) => write_java_date(*x, out),
            _ => {
                let _ = write!(out, "{x}");
            }
        },
        Value::Float32(x) => write_java_floating(
            &format!("{:e}", x.abs()),
            x.is_sign_negative(),
            x.is_finite(),
            x.is_nan(),
            *x == 0.0,
            out,
        ),
        Value::Float64(x) => write_java_floating(
            &format!("{:e}", x.abs()),
            x.is_sign_negative(),
            x.is_finite(),
            x.is_nan(),
            *x == 0.0,
            out,
        ),
        Value::Bytes(b) => {
            let decimal = schema
                .filter(|s| s.name.as_deref() == Some(logical::DECIMAL))
                .and_then(|s| s.parameter(DECIMAL_SCALE)?.parse::<i32>().ok());
            match decimal {
                Some(scale) if b.len() <= 16 && !b.is_empty() => {
                    write_big_decimal(unscaled_i128(b), scale, out)
                }
                _ => out.extend_from_slice(b),
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                write_java_string(item, item_schema, out);
            }
            out.push(b']');
        }
        Value::Map(entries) => {
            let key_schema = schema.and_then(|s| s.key_schema.as_deref());
            let value_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                write_java_string(k, key_schema, out);
                out.push(b'=');
                write_java_string(v, value_schema, out);
            }
            out.push(b'}');
        }
        Value::Struct(s) => {
            out.extend_from_slice(b"Struct{");
            let mut first = true;
            for (field, v) in s.schema().fields.iter().zip(s.values()) {
                if v.is_null() {
                    continue;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                out.extend_from_slice(field.name.as_bytes());
                out.push(b'=');
                write_java_string(v, Some(&field.schema), out);
            }
            out.push(b'}');
        }
    }
}

fn logical_name(schema: Option<&Schema>) -> Option<&str> {
    schema.and_then(|s| s.name.as_deref())
}

/// Java's `Double.toString`/`Float.toString`, from Rust's shortest `{:e}` of the magnitude.
fn write_java_floating(
    exp_form: &str,
    negative: bool,
    finite: bool,
    nan: bool,
    zero: bool,
    out: &mut Vec<u8>,
) {
    if nan {
        out.extend_from_slice(b"NaN");
        return;
    }
    if negative {
        out.push(b'-');
    }
    if !finite {
        out.extend_from_slice(b"Infinity");
        return;
    }
    if zero {
        out.extend_from_slice(b"0.0");
        return;
    }
    let (mantissa, exp) = exp_form.split_once('e').unwrap_or((exp_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            for i in 0..int_len {
                out.push(*digits.get(i).unwrap_or(&b'0'));
            }
            out.push(b'.');
            match digits.get(int_len..) {
                Some(frac) if !frac.is_empty() => out.extend_from_slice(frac),
                _ => out.push(b'0'),
            }
        } else {
            out.extend_from_slice(b"0.");
            for _ in 0..(-exp - 1) {
                out.push(b'0');
            }
            out.extend_from_slice(&digits);
        }
    } else {
        out.push(digits.first().copied().unwrap_or(b'0'));
        out.push(b'.');
        match digits.get(1..) {
            Some(rest) if !rest.is_empty() => out.extend_from_slice(rest),
            _ => out.push(b'0'),
        }
        let _ = write!(out, "E{exp}");
    }
}

/// A big-endian two's-complement integer of 1..=16 bytes.
fn unscaled_i128(bytes: &[u8]) -> i128 {
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut word = [fill; 16];
    word[16 - bytes.len()..].copy_from_slice(bytes);
    i128::from_be_bytes(word)
}

/// Java's `BigDecimal.toString`.
fn write_big_decimal(unscaled: i128, scale: i32, out: &mut Vec<u8>) {
    if unscaled < 0 {
        out.push(b'-');
    }
    let digits = unscaled.unsigned_abs().to_string();
    let n = digits.len() as i64;
    let adjusted = -i64::from(scale) + (n - 1);
    if scale >= 0 && adjusted >= -6 {
        let scale = i64::from(scale);
        if scale == 0 {
            out.extend_from_slice(digits.as_bytes());
        } else if n > scale {
            let point = (n - scale) as usize;
            out.extend_from_slice(&digits.as_bytes()[..point]);
            out.push(b'.');
            out.extend_from_slice(&digits.as_bytes()[point..]);
        } else {
            out.extend_from_slice(b"0.");
            for _ in 0..(scale - n) {
                out.push(b'0');
            }
            out.extend_from_slice(digits.as_bytes());
        }
    } else {
        out.push(digits.as_bytes()[0]);
        if n > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits.as_bytes()[1..]);
        }
        let _ = write!(out, "E{}{adjusted}", if adjusted >= 0 { "+" } else { "" });
    }
}

/// `java.util.Date.toString()` in UTC: `EEE MMM dd HH:mm:ss zzz yyyy`.
fn write_java_date(millis: i64, out: &mut Vec<u8>) {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = millis.div_euclid(86_400_000);
    let secs = millis.rem_euclid(86_400_000) / 1000;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = DAYS[days.rem_euclid(7) as usize];
    let month_name = MONTHS[(month - 1) as usize];
    let _ = write!(
        out,
        "{weekday} {month_name} {day:02} {:02}:{:02}:{:02} UTC {year:04}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::{SchemaBuilder, SchemaType, Struct};

    fn show(v: &Value, schema: Option<&Schema>) -> String {
        let mut out = Vec::new();
        write_java_string(v, schema, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn primitives() {
        assert_eq!(show(&Value::Null, None), "null");
        assert_eq!(show(&Value::Boolean(true), None), "true");
        assert_eq!(show(&Value::Int8(-8), None), "-8");
        assert_eq!(show(&Value::Int64(i64::MIN), None), "-9223372036854775808");
        assert_eq!(show(&"héllo".into(), None), "héllo");
        let mut out = Vec::new();
        write_java_string(&Value::Bytes(vec![0xff, b'a']), None, &mut out);
        assert_eq!(out, b"\xffa");
    }

    #[test]
    fn doubles_like_java() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (-1.5, "-1.5"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (100.0, "100.0"),
            (1234567.0, "1234567.0"),
            (1.0e7, "1.0E7"),
            (1.0e10, "1.0E10"),
            (1.2345e10, "1.2345E10"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (1.5e-7, "1.5E-7"),
            (0.1, "0.1"),
            (0.0123, "0.0123"),
            (123.456, "123.456"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
        ];
        for (x, want) in cases {
            assert_eq!(show(&Value::Float64(*x), None), *want, "{x}");
        }
        assert_eq!(show(&Value::Float32(0.1), None), "0.1");
        assert_eq!(show(&Value::Float32(1.0e10), None), "1.0E10");
        assert_eq!(show(&Value::Float32(3.4028235e38), None), "3.4028235E38");
    }

    #[test]
    fn containers() {
        let arr = Value::Array(vec![Value::Int32(1), "x".into(), Value::Null]);
        assert_eq!(show(&arr, None), "[1, x, null]");
        let map = Value::Map(vec![("k".into(), Value::Int32(1)), ("k2".into(), arr)]);
        assert_eq!(show(&map, None), "{k=1, k2=[1, x, null]}");
        let schema = SchemaBuilder::struct_()
            .field("a", Schema::required(SchemaType::Int32))
            .field("n", Schema::optional(SchemaType::String))
            .field("b", Schema::required(SchemaType::String))
            .build();
        let s = Struct::new(schema)
            .put("a", 1)
            .unwrap()
            .put("b", "x")
            .unwrap();
        assert_eq!(show(&Value::Struct(s), None), "Struct{a=1,b=x}");
        assert_eq!(show(&Value::Array(vec![]), None), "[]");
        assert_eq!(show(&Value::Map(vec![]), None), "{}");
    }

    #[test]
    fn logical_types() {
        let dec = logical::decimal(2).build();
        assert_eq!(show(&Value::Bytes(vec![0x30, 0x39]), Some(&dec)), "123.45");
        assert_eq!(show(&Value::Bytes(vec![0xcf, 0xc7]), Some(&dec)), "-123.45");
        assert_eq!(show(&Value::Bytes(vec![5]), Some(&dec)), "0.05");
        let dec0 = logical::decimal(-2).build();
        assert_eq!(show(&Value::Bytes(vec![12]), Some(&dec0)), "1.2E+3");
        let dec9 = logical::decimal(9).build();
        assert_eq!(show(&Value::Bytes(vec![1]), Some(&dec9)), "1E-9");
        assert_eq!(
            show(&Value::Int32(0), Some(&logical::date().build())),
            "Thu Jan 01 00:00:00 UTC 1970"
        );
        assert_eq!(
            show(
                &Value::Int64(1_700_000_000_123),
                Some(&logical::timestamp().build())
            ),
            "Tue Nov 14 22:13:20 UTC 2023"
        );
        assert_eq!(
            show(
                &Value::Int32(3_600_000 + 61_000),
                Some(&logical::time().build())
            ),
            "Thu Jan 01 01:01:01 UTC 1970"
        );
        assert_eq!(
            show(
                &Value::Int64(-86_400_000),
                Some(&logical::timestamp().build())
            ),
            "Wed Dec 31 00:00:00 UTC 1969"
        );
    }
}
