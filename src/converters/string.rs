//! `org.apache.kafka.connect.storage.StringConverter`: a value's Java `toString()` in the
//! configured charset; reads any bytes as an optional STRING.
//!
//! The UTF-8 path copies exactly once in each direction. Non-string values are rendered as
//! Java's `toString()` would render them (`List` as `[a, b]`, `Map` as `{k=v}`, `Struct` as
//! `Struct{f=v}`, floats as `Float/Double.toString`, Decimal as `BigDecimal.toString`,
//! Date/Time/Timestamp as `java.util.Date.toString()` in UTC). One difference: Java renders a
//! `byte[]` as its identity string (`[B@1b6d3586`); here bytes are written through unchanged
//! (and decoded as text inside containers).

use std::borrow::Cow;

use connect_api::{
    logical, ConfigMap, ConnectError, Converter, Headers, Result, Schema, SchemaAndValue,
    SchemaRef, SchemaType, Value,
};
use num_bigint::BigInt;

use connect_api::java_fmt::{self, MILLIS_PER_DAY};
use connect_api::values::decimal::decimal_scale;

/// Config key: the Java charset name (default `UTF8`).
pub const ENCODING_CONFIG: &str = "converter.encoding";

/// A supported character set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Charset {
    /// UTF-8 (Kafka's default).
    #[default]
    Utf8,
    /// US-ASCII; unmappable characters become `?`.
    Ascii,
    /// ISO-8859-1; unmappable characters become `?`.
    Latin1,
    /// UTF-16 big endian without byte-order mark.
    Utf16Be,
    /// UTF-16 little endian without byte-order mark.
    Utf16Le,
    /// UTF-16: written big endian with a byte-order mark, read according to the mark.
    Utf16,
}

impl Charset {
    /// Looks up a Java charset name or alias (case-insensitive).
    pub fn for_name(name: &str) -> Option<Self> {
        let n = name.trim().to_ascii_uppercase().replace('_', "-");
        Some(match n.as_str() {
            "UTF8" | "UTF-8" | "UNICODE-1-1-UTF-8" => Self::Utf8,
            "US-ASCII" | "ASCII" | "ISO646-US" | "US" | "ASCII7" | "646" | "IBM367" | "CP367"
            | "DEFAULT" | "ISO-646.IRV:1991" => Self::Ascii,
            "ISO-8859-1" | "ISO8859-1" | "8859-1" | "LATIN1" | "L1" | "ISO-LATIN-1" | "IBM819"
            | "CP819" | "CSISOLATIN1" | "819" | "ISO8859-1:1987" | "ISO-IR-100" => Self::Latin1,
            "UTF-16BE" | "UTF16BE" | "X-UTF-16BE" | "UNICODEBIGUNMARKED" | "ISO-10646-UCS-2" => {
                Self::Utf16Be
            }
            "UTF-16LE" | "UTF16LE" | "X-UTF-16LE" | "UNICODELITTLEUNMARKED" => Self::Utf16Le,
            "UTF-16" | "UTF16" | "UNICODE" | "UNICODEBIG" => Self::Utf16,
            _ => return None,
        })
    }

    fn encode(self, s: &str) -> Vec<u8> {
        match self {
            Self::Utf8 => s.as_bytes().to_vec(),
            Self::Ascii => s
                .chars()
                .map(|c| if c.is_ascii() { c as u8 } else { b'?' })
                .collect(),
            Self::Latin1 => s
                .chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                .collect(),
            Self::Utf16Be => s.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            Self::Utf16Le => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            Self::Utf16 => [0xFE, 0xFF]
                .into_iter()
                .chain(s.encode_utf16().flat_map(u16::to_be_bytes))
                .collect(),
        }
    }

    fn decode(self, b: &[u8]) -> String {
        let utf16 = |b: &[u8], be: bool| {
            let units = b.chunks(2).map(|c| match (c, be) {
                ([x, y], true) => u16::from_be_bytes([*x, *y]),
                ([x, y], false) => u16::from_le_bytes([*x, *y]),
                _ => 0xFFFD,
            });
            char::decode_utf16(units)
                .map(|r| r.unwrap_or('\u{FFFD}'))
                .collect::<String>()
        };
        match self {
            Self::Utf8 => match std::str::from_utf8(b) {
                Ok(s) => s.to_owned(),
                Err(_) => String::from_utf8_lossy(b).into_owned(),
            },
            Self::Ascii => b
                .iter()
                .map(|&x| if x.is_ascii() { x as char } else { '\u{FFFD}' })
                .collect(),
            Self::Latin1 => b.iter().map(|&x| x as char).collect(),
            Self::Utf16Be => utf16(b, true),
            Self::Utf16Le => utf16(b, false),
            Self::Utf16 => match b {
                [0xFE, 0xFF, rest @ ..] => utf16(rest, true),
                [0xFF, 0xFE, rest @ ..] => utf16(rest, false),
                _ => utf16(b, true),
            },
        }
    }
}

/// Kafka's `StringConverter` (also a header converter).
#[derive(Debug, Clone)]
pub struct StringConverter {
    encode: Charset,
    decode: Charset,
    schema: SchemaRef,
}

impl Default for StringConverter {
    fn default() -> Self {
        Self::new()
    }
}

impl StringConverter {
    /// A UTF-8 converter.
    pub fn new() -> Self {
        Self::with_charset(Charset::Utf8)
    }

    /// A converter using `charset` both ways.
    pub fn with_charset(charset: Charset) -> Self {
        Self {
            encode: charset,
            decode: charset,
            schema: Schema::optional(SchemaType::String),
        }
    }

    fn configure_props(&mut self, props: &ConfigMap, is_key: bool) -> Result<()> {
        let base = props.get(ENCODING_CONFIG).map_or("UTF8", String::as_str);
        // Kafka passes the converter's props to its (de)serializer, whose `key.`/`value.`
        // prefixed encoding wins over `converter.encoding`.
        let prefix = if is_key { "key." } else { "value." };
        let pick = |kind: &str| -> Result<Charset> {
            let name = props
                .get(&format!("{prefix}{kind}.encoding"))
                .map_or(base, String::as_str);
            Charset::for_name(name).ok_or_else(|| {
                ConnectError::config(ENCODING_CONFIG, format!("Unsupported encoding {name}"))
            })
        };
        self.encode = pick("serializer")?;
        self.decode = pick("deserializer")?;
        Ok(())
    }

    /// Serializes as Kafka's `fromConnectData`: `None` for null, else the value's `toString()`.
    pub fn serialize(&self, schema: Option<&SchemaRef>, value: &Value) -> Option<Vec<u8>> {
        match (value, self.encode) {
            (Value::Null, _) => None,
            (Value::String(s), Charset::Utf8) => Some(s.as_bytes().to_vec()),
            (Value::Bytes(b), _) if !is_decimal(schema) => Some(b.clone()),
            (v, cs) => Some(cs.encode(&java_to_string(schema.map(|s| &**s), v))),
        }
    }

    /// Deserializes as Kafka's `toConnectData`: an optional STRING schema and the decoded text.
    pub fn deserialize(&self, data: Option<&[u8]>) -> SchemaAndValue {
        SchemaAndValue {
            schema: Some(self.schema.clone()),
            value: data.map_or(Value::Null, |d| Value::String(self.decode.decode(d))),
        }
    }
}

fn is_decimal(schema: Option<&SchemaRef>) -> bool {
    schema.is_some_and(|s| s.name.as_deref() == Some(logical::DECIMAL))
}

/// Java's `toString()` of the value a connect value stands for.
pub(crate) fn java_to_string<'v>(schema: Option<&Schema>, value: &'v Value) -> Cow<'v, str> {
    if let Value::String(s) = value {
        return Cow::Borrowed(s);
    }
    let mut out = String::new();
    push_java(&mut out, schema, value);
    Cow::Owned(out)
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `java.util.Date.toString()` in UTC: `EEE MMM dd HH:mm:ss zzz yyyy`.
fn push_date(out: &mut String, millis: i64) {
    let days = millis.div_euclid(MILLIS_PER_DAY);
    let ms = millis.rem_euclid(MILLIS_PER_DAY);
    let (y, m, d) = java_fmt::civil_from_days(days);
    let wd = WEEKDAYS[((days.rem_euclid(7) + 4) % 7) as usize];
    let mon = MONTHS[((m - 1).clamp(0, 11)) as usize];
    out.push_str(&format!(
        "{wd} {mon} {d:02} {:02}:{:02}:{:02} UTC {y}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60
    ));
}

fn push_java(out: &mut String, schema: Option<&Schema>, value: &Value) {
    if let Some(s) = schema {
        match (s.name.as_deref(), s.schema_type, value) {
            (Some(logical::DECIMAL), SchemaType::Bytes, Value::Bytes(b)) => {
                if let Ok(scale) = decimal_scale(s) {
                    out.push_str(&java_fmt::big_decimal_string(
                        &BigInt::from_signed_bytes_be(b),
                        scale,
                    ));
                    return;
                }
            }
            (Some(logical::DATE), SchemaType::Int32, Value::Int32(d)) => {
                return push_date(out, i64::from(*d) * MILLIS_PER_DAY)
            }
            (Some(logical::TIME), SchemaType::Int32, Value::Int32(t)) => {
                return push_date(out, i64::from(*t))
            }
            (Some(logical::TIMESTAMP), SchemaType::Int64, Value::Int64(t)) => {
                return push_date(out, *t)
            }
            _ => {}
        }
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int8(v) => out.push_str(&v.to_string()),
        Value::Int16(v) => out.push_str(&v.to_string()),
        Value::Int32(v) => out.push_str(&v.to_string()),
        Value::Int64(v) => out.push_str(&v.to_string()),
        Value::Float32(v) => java_fmt::push_f32(out, *v),
        Value::Float64(v) => java_fmt::push_f64(out, *v),
        Value::String(s) => out.push_str(s),
        Value::Bytes(b) => out.push_str(&String::from_utf8_lossy(b)),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.value_schema.as_deref());
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_java(out, item_schema, item);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let ks = schema.and_then(|s| s.key_schema.as_deref());
            let vs = schema.and_then(|s| s.value_schema.as_deref());
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_java(out, ks, k);
                out.push('=');
                push_java(out, vs, v);
            }
            out.push('}');
        }
        Value::Struct(st) => {
            out.push_str("Struct{");
            let mut first = true;
            for (f, v) in st.schema().fields.iter().zip(st.values()) {
                if v.is_null() {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&f.name);
                out.push('=');
                push_java(out, Some(&f.schema), v);
            }
            out.push('}');
        }
    }
}

impl Converter for StringConverter {
    fn configure(&mut self, props: &ConfigMap, is_key: bool) -> Result<()> {
        self.configure_props(props, is_key)
    }

    fn from_connect(
        &self,
        _topic: &str,
        _headers: &Headers,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>> {
        Ok(self.serialize(schema, value))
    }

    fn serializes_as_is(&self, _schema: Option<&SchemaRef>, value: &Value) -> bool {
        matches!((value, self.encode), (Value::String(_), Charset::Utf8))
    }

    fn to_connect(
        &self,
        _topic: &str,
        _headers: &Headers,
        data: Option<&[u8]>,
    ) -> Result<SchemaAndValue> {
        Ok(self.deserialize(data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::HeaderConverter;
    use connect_api::{SchemaBuilder, Struct};

    fn w(c: &StringConverter, schema: Option<&SchemaRef>, v: &Value) -> String {
        String::from_utf8(c.serialize(schema, v).unwrap()).unwrap()
    }

    #[test]
    fn only_utf8_strings_serialize_as_is() {
        let h = Headers::new();
        let utf8 = StringConverter::new();
        let text = Value::String("héllo".into());
        assert!(utf8.serializes_as_is(None, &text));
        assert_eq!(
            utf8.from_connect("t", &h, None, &text).unwrap(),
            text.clone().into_raw_bytes()
        );
        for other in [Value::Null, Value::Int32(1), Value::Bytes(vec![1])] {
            assert!(!utf8.serializes_as_is(None, &other), "{other:?}");
        }
        let latin1 = StringConverter::with_charset(Charset::Latin1);
        assert!(!latin1.serializes_as_is(None, &text));
    }

    #[test]
    fn strings_round_trip() {
        let c = StringConverter::new();
        let h = Headers::new();
        let out = c
            .from_connect(
                "t",
                &h,
                Some(&Schema::required(SchemaType::String)),
                &"héllo".into(),
            )
            .unwrap();
        assert_eq!(out.as_deref(), Some("héllo".as_bytes()));
        let back = c.to_connect("t", &h, out.as_deref()).unwrap();
        assert_eq!(back.schema, Some(Schema::optional(SchemaType::String)));
        assert_eq!(back.value, Value::String("héllo".into()));
        assert_eq!(c.from_connect("t", &h, None, &Value::Null).unwrap(), None);
        let null = c.to_connect("t", &h, None).unwrap();
        assert_eq!(null.schema, Some(Schema::optional(SchemaType::String)));
        assert_eq!(null.value, Value::Null);
        assert_eq!(
            c.to_connect_header("t", "k", Some(b"x")).unwrap().value,
            "x".into()
        );
        assert_eq!(
            c.from_connect_header("t", "k", None, &"x".into()).unwrap(),
            Some(b"x".to_vec())
        );
    }

    #[test]
    fn non_strings_use_java_to_string() {
        let c = StringConverter::new();
        assert_eq!(w(&c, None, &Value::Int32(42)), "42");
        assert_eq!(w(&c, None, &Value::Boolean(true)), "true");
        assert_eq!(w(&c, None, &Value::Float64(1e10)), "1.0E10");
        assert_eq!(w(&c, None, &Value::Float32(0.5)), "0.5");
        assert_eq!(
            w(
                &c,
                None,
                &Value::Array(vec![Value::Int8(1), "a".into(), Value::Null])
            ),
            "[1, a, null]"
        );
        assert_eq!(
            w(
                &c,
                None,
                &Value::Map(vec![
                    ("k".into(), Value::Int64(1)),
                    ("j".into(), "v".into())
                ])
            ),
            "{k=1, j=v}"
        );
        let schema = SchemaBuilder::struct_()
            .field("a", Schema::required(SchemaType::Int32))
            .field("b", Schema::optional(SchemaType::String))
            .field("c", Schema::required(SchemaType::String))
            .build();
        let st = Struct::new(schema.clone())
            .put("a", 1)
            .unwrap()
            .put("c", "x")
            .unwrap();
        assert_eq!(w(&c, Some(&schema), &Value::Struct(st)), "Struct{a=1,c=x}");
        assert_eq!(
            w(
                &c,
                Some(&logical::decimal(2).build()),
                &Value::Bytes(vec![0x9c])
            ),
            "-1.00"
        );
        assert_eq!(
            w(
                &c,
                Some(&logical::timestamp().build()),
                &Value::Int64(1_566_570_894_346)
            ),
            "Fri Aug 23 14:34:54 UTC 2019"
        );
        assert_eq!(
            w(&c, Some(&logical::date().build()), &Value::Int32(0)),
            "Thu Jan 01 00:00:00 UTC 1970"
        );
        assert_eq!(w(&c, None, &Value::Bytes(b"raw".to_vec())), "raw");
    }

    #[test]
    fn encodings() {
        let mut c = StringConverter::new();
        let props: ConfigMap = [(ENCODING_CONFIG.to_owned(), "UTF-16".to_owned())].into();
        Converter::configure(&mut c, &props, false).unwrap();
        let out = c.serialize(None, &"a".into()).unwrap();
        assert_eq!(out, [0xFE, 0xFF, 0, b'a']);
        assert_eq!(c.deserialize(Some(&out)).value, "a".into());

        let props: ConfigMap = [
            (ENCODING_CONFIG.to_owned(), "ISO-8859-1".to_owned()),
            ("value.deserializer.encoding".to_owned(), "UTF8".to_owned()),
        ]
        .into();
        Converter::configure(&mut c, &props, false).unwrap();
        assert_eq!(c.serialize(None, &"é€".into()).unwrap(), [0xE9, b'?']);
        assert_eq!(c.deserialize(Some("é".as_bytes())).value, "é".into());

        let props: ConfigMap = [(ENCODING_CONFIG.to_owned(), "EBCDIC-42".to_owned())].into();
        let e = Converter::configure(&mut c, &props, true).unwrap_err();
        assert!(matches!(e, ConnectError::Config { .. }));
        assert!(e.to_string().contains("Unsupported encoding EBCDIC-42"));
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let c = StringConverter::new();
        assert_eq!(c.deserialize(Some(&[b'a', 0xff])).value, "a\u{fffd}".into());
    }
}
