//! Reading result values: each database's row value is read into a [`Raw`] value by its
//! actual type, then turned into the Connect [`Value`] of the column's [`Kind`] (and into the
//! incrementing / timestamp offsets).

use std::str::FromStr;

use connect_api::{SchemaType, Value};
use sqlx::mysql::MySqlRow;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::types::chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use sqlx::types::BigDecimal;
use sqlx::{Column, Row, TypeInfo, ValueRef};

use super::schema_mapping::Kind;

/// A database value before conversion.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    /// SQL NULL.
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer (MySQL `UNSIGNED`).
    UInt(u64),
    /// A float.
    Float(f64),
    /// A NUMERIC / DECIMAL.
    Dec(BigDecimal),
    /// Text.
    Text(String),
    /// Bytes.
    Bytes(Vec<u8>),
    /// A date.
    Date(NaiveDate),
    /// A time of day.
    Time(NaiveTime),
    /// A timestamp, UTC.
    Ts(NaiveDateTime),
}

/// A row of any of the databases.
pub enum AnyRow {
    /// PostgreSQL.
    Pg(PgRow),
    /// MySQL / MariaDB.
    My(MySqlRow),
    /// SQLite.
    Lite(SqliteRow),
}

type E = String;

fn err(i: usize, name: &str, e: impl std::fmt::Display) -> E {
    format!("column {i} ({name}): {e}")
}

impl AnyRow {
    /// The result's column names (labels), in order.
    pub fn column_names(&self) -> Vec<String> {
        match self {
            Self::Pg(r) => r.columns().iter().map(|c| c.name().to_owned()).collect(),
            Self::My(r) => r.columns().iter().map(|c| c.name().to_owned()).collect(),
            Self::Lite(r) => r.columns().iter().map(|c| c.name().to_owned()).collect(),
        }
    }

    /// The value of column `i` as the database typed it.
    ///
    /// # Errors
    /// When the driver cannot decode it.
    pub fn raw(&self, i: usize) -> Result<Raw, E> {
        match self {
            Self::Pg(r) => pg_raw(r, i),
            Self::My(r) => mysql_raw(r, i),
            Self::Lite(r) => sqlite_raw(r, i),
        }
    }
}

fn pg_raw(r: &PgRow, i: usize) -> Result<Raw, E> {
    let col = &r.columns()[i];
    let ty = col.type_info().name().to_owned();
    let e = |x: sqlx::Error| err(i, col.name(), x);
    if r.try_get_raw(i).map_err(e)?.is_null() {
        return Ok(Raw::Null);
    }
    Ok(match ty.as_str() {
        "BOOL" => Raw::Bool(r.try_get(i).map_err(e)?),
        "INT2" => Raw::Int(r.try_get::<i16, _>(i).map_err(e)?.into()),
        "INT4" => Raw::Int(r.try_get::<i32, _>(i).map_err(e)?.into()),
        "INT8" => Raw::Int(r.try_get(i).map_err(e)?),
        "FLOAT4" => Raw::Float(r.try_get::<f32, _>(i).map_err(e)?.into()),
        "FLOAT8" => Raw::Float(r.try_get(i).map_err(e)?),
        "NUMERIC" => Raw::Dec(r.try_get(i).map_err(e)?),
        "BYTEA" => Raw::Bytes(r.try_get(i).map_err(e)?),
        "DATE" => Raw::Date(r.try_get(i).map_err(e)?),
        "TIME" => Raw::Time(r.try_get(i).map_err(e)?),
        "TIMESTAMP" => Raw::Ts(r.try_get(i).map_err(e)?),
        "TIMESTAMPTZ" => Raw::Ts(r.try_get::<DateTime<Utc>, _>(i).map_err(e)?.naive_utc()),
        "JSON" | "JSONB" | "UUID" | "BIT" => {
            let bytes: &[u8] = r.try_get_unchecked(i).map_err(e)?;
            match ty.as_str() {
                "JSON" => Raw::Text(String::from_utf8_lossy(bytes).into_owned()),
                // Binary jsonb: a version byte (1), then the text.
                "JSONB" => {
                    Raw::Text(String::from_utf8_lossy(bytes.get(1..).unwrap_or(&[])).into_owned())
                }
                // Binary bit: a 4-byte length in bits, then the bits, first one highest.
                "BIT" => Raw::Bool(bytes.get(4).is_some_and(|b| b & 0x80 != 0)),
                _ => Raw::Text(format_uuid(bytes)),
            }
        }
        _ => Raw::Text(r.try_get(i).map_err(e)?),
    })
}

fn format_uuid(b: &[u8]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    if hex.len() != 32 {
        return hex;
    }
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

fn mysql_raw(r: &MySqlRow, i: usize) -> Result<Raw, E> {
    let col = &r.columns()[i];
    let ty = col.type_info().name().to_owned();
    let e = |x: sqlx::Error| err(i, col.name(), x);
    if r.try_get_raw(i).map_err(e)?.is_null() {
        return Ok(Raw::Null);
    }
    Ok(match ty.as_str() {
        "BOOLEAN" => Raw::Bool(r.try_get(i).map_err(e)?),
        "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "BIGINT" => {
            Raw::Int(r.try_get_unchecked(i).map_err(e)?)
        }
        "TINYINT UNSIGNED" | "SMALLINT UNSIGNED" | "MEDIUMINT UNSIGNED" | "INT UNSIGNED"
        | "BIGINT UNSIGNED" | "YEAR" => Raw::UInt(r.try_get_unchecked(i).map_err(e)?),
        "FLOAT" => Raw::Float(r.try_get::<f32, _>(i).map_err(e)?.into()),
        "DOUBLE" => Raw::Float(r.try_get(i).map_err(e)?),
        "DECIMAL" => Raw::Dec(r.try_get(i).map_err(e)?),
        "BIT" => Raw::UInt(r.try_get_unchecked(i).map_err(e)?),
        "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" | "GEOMETRY" => {
            Raw::Bytes(r.try_get(i).map_err(e)?)
        }
        "DATE" => Raw::Date(r.try_get(i).map_err(e)?),
        "TIME" => Raw::Time(r.try_get(i).map_err(e)?),
        "DATETIME" => Raw::Ts(r.try_get(i).map_err(e)?),
        "TIMESTAMP" => Raw::Ts(r.try_get::<DateTime<Utc>, _>(i).map_err(e)?.naive_utc()),
        _ => Raw::Text(r.try_get_unchecked(i).map_err(e)?),
    })
}

fn sqlite_raw(r: &SqliteRow, i: usize) -> Result<Raw, E> {
    let col = &r.columns()[i];
    let e = |x: sqlx::Error| err(i, col.name(), x);
    let value = r.try_get_raw(i).map_err(e)?;
    if value.is_null() {
        return Ok(Raw::Null);
    }
    let storage = value.type_info().name().to_owned();
    Ok(match storage.as_str() {
        "INTEGER" | "BOOLEAN" => Raw::Int(r.try_get_unchecked(i).map_err(e)?),
        "REAL" => Raw::Float(r.try_get_unchecked(i).map_err(e)?),
        "BLOB" => Raw::Bytes(r.try_get_unchecked(i).map_err(e)?),
        _ => Raw::Text(r.try_get_unchecked(i).map_err(e)?),
    })
}

/// Parses a timestamp written as text (`2024-01-02 03:04:05.678`, `T` separator, optional
/// fraction and trailing `Z`).
pub fn parse_timestamp_text(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim().trim_end_matches('Z');
    [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
    .or_else(|| {
        NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .map(|d| d.and_time(NaiveTime::MIN))
    })
}

impl Raw {
    /// The value as a timestamp (for timestamp offsets and Timestamp columns).
    pub fn timestamp(&self) -> Option<NaiveDateTime> {
        match self {
            Self::Ts(t) => Some(*t),
            Self::Date(d) => Some(d.and_time(NaiveTime::MIN)),
            Self::Text(s) => parse_timestamp_text(s),
            // SQLite integers in a timestamp column: epoch milliseconds (as JDBC's SQLite
            // driver reads them).
            Self::Int(ms) => DateTime::from_timestamp_millis(*ms).map(|t| t.naive_utc()),
            _ => None,
        }
    }

    /// The value as a 64-bit integer (incrementing offsets): integers and integral decimals.
    pub fn integer(&self) -> Option<i64> {
        match self {
            Self::Int(x) => Some(*x),
            Self::UInt(x) => i64::try_from(*x).ok(),
            Self::Dec(d) if d.is_integer() => d.to_string().parse().ok(),
            Self::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    fn decimal(&self) -> Option<BigDecimal> {
        match self {
            Self::Dec(d) => Some(d.clone()),
            Self::Int(x) => Some(BigDecimal::from(*x)),
            Self::UInt(x) => Some(BigDecimal::from(*x)),
            Self::Float(f) => BigDecimal::from_str(&f.to_string()).ok(),
            Self::Text(s) => BigDecimal::from_str(s.trim()).ok(),
            Self::Bool(b) => Some(BigDecimal::from(i64::from(*b))),
            _ => None,
        }
    }

    fn float(&self) -> Option<f64> {
        match self {
            Self::Float(f) => Some(*f),
            Self::Int(x) => Some(*x as f64),
            Self::UInt(x) => Some(*x as f64),
            Self::Dec(d) => d.to_string().parse().ok(),
            Self::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// The Connect value of a column of `kind`.
    ///
    /// # Errors
    /// A message when the value does not fit the column's type.
    pub fn to_value(&self, kind: Kind) -> Result<Value, String> {
        if *self == Self::Null {
            return Ok(Value::Null);
        }
        let mismatch = || format!("value {self:?} does not fit {kind:?}");
        Ok(match kind {
            Kind::Boolean => match self {
                Self::Bool(b) => Value::Boolean(*b),
                Self::Int(x) => Value::Boolean(*x != 0),
                Self::UInt(x) => Value::Boolean(*x != 0),
                Self::Text(s) => Value::Boolean(matches!(s.trim(), "1" | "true" | "TRUE" | "t")),
                _ => return Err(mismatch()),
            },
            Kind::Int(t) | Kind::NumericInt(t) => {
                let x = match self {
                    Self::Bool(b) => i64::from(*b),
                    Self::Dec(d) => d
                        .with_scale(0)
                        .to_string()
                        .parse()
                        .map_err(|_| mismatch())?,
                    Self::Float(f) => *f as i64,
                    other => other.integer().ok_or_else(mismatch)?,
                };
                let fit = |ok: bool| {
                    if ok {
                        Ok(())
                    } else {
                        Err(format!("{x} does not fit {}", t.name()))
                    }
                };
                match t {
                    SchemaType::Int8 => {
                        fit(i8::try_from(x).is_ok())?;
                        Value::Int8(x as i8)
                    }
                    SchemaType::Int16 => {
                        fit(i16::try_from(x).is_ok())?;
                        Value::Int16(x as i16)
                    }
                    SchemaType::Int32 => {
                        fit(i32::try_from(x).is_ok())?;
                        Value::Int32(x as i32)
                    }
                    _ => Value::Int64(x),
                }
            }
            Kind::Float32 => Value::Float32(self.float().ok_or_else(mismatch)? as f32),
            Kind::Float64 | Kind::NumericFloat64 => {
                Value::Float64(self.float().ok_or_else(mismatch)?)
            }
            Kind::Decimal { scale, .. } => {
                let d = self
                    .decimal()
                    .ok_or_else(mismatch)?
                    .with_scale(i64::from(scale));
                let (unscaled, _) = d.into_bigint_and_exponent();
                Value::Bytes(unscaled.to_signed_bytes_be())
            }
            Kind::String => match self {
                Self::Text(s) => Value::String(s.clone()),
                Self::Bytes(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
                Self::Int(x) => Value::String(x.to_string()),
                Self::UInt(x) => Value::String(x.to_string()),
                Self::Float(x) => Value::String(x.to_string()),
                Self::Dec(x) => Value::String(x.to_string()),
                Self::Bool(x) => Value::String(x.to_string()),
                Self::Date(x) => Value::String(x.to_string()),
                Self::Time(x) => Value::String(x.to_string()),
                Self::Ts(x) => Value::String(x.to_string()),
                Self::Null => Value::Null,
            },
            Kind::Bytes => match self {
                Self::Bytes(b) => Value::Bytes(b.clone()),
                Self::Text(s) => Value::Bytes(s.clone().into_bytes()),
                Self::UInt(x) => Value::Bytes(x.to_be_bytes().to_vec()),
                _ => return Err(mismatch()),
            },
            Kind::Date => {
                let d = match self {
                    Self::Date(d) => *d,
                    other => other.timestamp().ok_or_else(mismatch)?.date(),
                };
                let days = d.signed_duration_since(NaiveDate::default()).num_days();
                Value::Int32(i32::try_from(days).map_err(|_| mismatch())?)
            }
            Kind::Time => {
                let t = match self {
                    Self::Time(t) => *t,
                    Self::Text(s) => NaiveTime::parse_from_str(s.trim(), "%H:%M:%S%.f")
                        .or_else(|_| NaiveTime::parse_from_str(s.trim(), "%H:%M"))
                        .map_err(|_| mismatch())?,
                    other => other.timestamp().ok_or_else(mismatch)?.time(),
                };
                let ms = t.signed_duration_since(NaiveTime::MIN).num_milliseconds();
                Value::Int32(ms as i32)
            }
            Kind::Timestamp => Value::Int64(
                self.timestamp()
                    .ok_or_else(mismatch)?
                    .and_utc()
                    .timestamp_millis(),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_to_connect_values() {
        let d = BigDecimal::from_str("12.34").unwrap();
        assert_eq!(
            Raw::Dec(d)
                .to_value(Kind::Decimal {
                    scale: 3,
                    precision: 10
                })
                .unwrap(),
            Value::Bytes(vec![0x30, 0x34])
        );
        assert_eq!(
            Raw::Dec(BigDecimal::from_str("-1").unwrap())
                .to_value(Kind::Decimal {
                    scale: 0,
                    precision: 1
                })
                .unwrap(),
            Value::Bytes(vec![0xff])
        );
        assert_eq!(
            Raw::Int(300)
                .to_value(Kind::Int(SchemaType::Int16))
                .unwrap(),
            Value::Int16(300)
        );
        assert!(Raw::Int(300).to_value(Kind::Int(SchemaType::Int8)).is_err());
        assert_eq!(Raw::Null.to_value(Kind::String).unwrap(), Value::Null);
        let ts = Raw::Text("1970-01-02 00:00:01.5".into());
        assert_eq!(
            ts.to_value(Kind::Timestamp).unwrap(),
            Value::Int64(86_401_500)
        );
        assert_eq!(ts.to_value(Kind::Date).unwrap(), Value::Int32(1));
        assert_eq!(
            Raw::Text("01:00:00.25".into())
                .to_value(Kind::Time)
                .unwrap(),
            Value::Int32(3_600_250)
        );
        assert_eq!(
            Raw::Int(1).to_value(Kind::Boolean).unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(Raw::Dec(BigDecimal::from(7)).integer(), Some(7));
        assert_eq!(
            format_uuid(&[0u8; 16]),
            "00000000-0000-0000-0000-000000000000"
        );
        assert_eq!(
            parse_timestamp_text("2024-01-02T03:04:05.123456789Z")
                .unwrap()
                .and_utc()
                .timestamp_subsec_nanos(),
            123_456_789
        );
    }
}
