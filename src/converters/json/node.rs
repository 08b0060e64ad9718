//! A JSON tree and a parser that reads JSON the way Kafka's `JsonDeserializer` (Jackson with
//! `ALLOW_LEADING_ZEROS_FOR_NUMBERS` and `USE_BIG_DECIMAL_FOR_FLOATS`) does.
//!
//! Numbers keep Jackson's node kinds (int, long, big integer, exact decimal) so that the
//! converter can apply Jackson's accessor semantics (`intValue()`, `isInt()`, `decimalValue()`
//! ...). Duplicate object keys keep the first position and the last value, as Jackson's
//! `ObjectNode` does. Content after the first root value is ignored (Jackson's default
//! `FAIL_ON_TRAILING_TOKENS=false`); empty input is Jackson's `MissingNode` (`None`).

mod number;
mod parser;

use indexmap::IndexMap;
use num_bigint::BigInt;

pub(crate) use self::parser::{parse, ParseError, Parser};

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
