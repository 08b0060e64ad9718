//! Connect values as statement parameters: [`SqlValue`] from a field's value and schema
//! (logical types to decimals and chrono dates/times), and its binding per driver. A null is
//! bound with the column's type, as PostgreSQL checks parameter types.

use connect_api::{logical, ConnectError, Result, Schema, SchemaType, Value};
use num_bigint::BigInt;
use sqlx::mysql::{MySql, MySqlArguments};
use sqlx::postgres::{PgArguments, Postgres};
use sqlx::query::Query;
use sqlx::sqlite::{Sqlite, SqliteArguments};
use sqlx::types::chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime};
use sqlx::types::BigDecimal;

use crate::sink::config::DbTimeZone;

/// The parameter type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// BOOLEAN.
    Bool,
    /// INT8.
    I8,
    /// INT16.
    I16,
    /// INT32.
    I32,
    /// INT64.
    I64,
    /// FLOAT32.
    F32,
    /// FLOAT64.
    F64,
    /// STRING.
    Text,
    /// BYTES.
    Bytes,
    /// Decimal.
    Decimal,
    /// Date.
    Date,
    /// Time.
    Time,
    /// Timestamp.
    Timestamp,
}

/// One statement parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// NULL of a column type.
    Null(Kind),
    /// BOOLEAN.
    Bool(bool),
    /// INT8.
    I8(i8),
    /// INT16.
    I16(i16),
    /// INT32.
    I32(i32),
    /// INT64.
    I64(i64),
    /// FLOAT32.
    F32(f32),
    /// FLOAT64.
    F64(f64),
    /// STRING.
    Text(String),
    /// BYTES.
    Bytes(Vec<u8>),
    /// Decimal.
    Decimal(BigDecimal),
    /// Date.
    Date(NaiveDate),
    /// Time of day.
    Time(NaiveTime),
    /// Timestamp, in `db.timezone`.
    Timestamp(NaiveDateTime),
}

/// The parameter type of `schema`.
///
/// # Errors
/// For ARRAY, MAP and STRUCT schemas.
pub fn kind_of(schema: &Schema) -> Result<Kind> {
    Ok(match (schema.name.as_deref(), schema.schema_type) {
        (Some(logical::DECIMAL), SchemaType::Bytes) => Kind::Decimal,
        (Some(logical::DATE), SchemaType::Int32) => Kind::Date,
        (Some(logical::TIME), SchemaType::Int32) => Kind::Time,
        (Some(logical::TIMESTAMP), SchemaType::Int64) => Kind::Timestamp,
        (_, SchemaType::Boolean) => Kind::Bool,
        (_, SchemaType::Int8) => Kind::I8,
        (_, SchemaType::Int16) => Kind::I16,
        (_, SchemaType::Int32) => Kind::I32,
        (_, SchemaType::Int64) => Kind::I64,
        (_, SchemaType::Float32) => Kind::F32,
        (_, SchemaType::Float64) => Kind::F64,
        (_, SchemaType::String) => Kind::Text,
        (_, SchemaType::Bytes) => Kind::Bytes,
        (_, t) => {
            return Err(ConnectError::data(format!(
                "the JDBC sink cannot write {} values into a column",
                t.name()
            )))
        }
    })
}

/// The calendar day `days` after 1970-01-01.
pub fn date_from_days(days: i32) -> Option<NaiveDate> {
    // 1970-01-01 is day 719163 of the common era (0001-01-01 is day 1).
    NaiveDate::from_num_days_from_ce_opt(days.checked_add(719_163)?)
}

/// The time of day `ms` milliseconds after midnight.
pub fn time_from_millis(ms: i32) -> Option<NaiveTime> {
    let ms = u32::try_from(ms).ok()?;
    NaiveTime::from_num_seconds_from_midnight_opt(ms / 1000, (ms % 1000) * 1_000_000)
}

/// The wall-clock time `ms` after the epoch at a UTC offset of `offset_seconds`.
pub fn timestamp_from_millis(ms: i64, offset_seconds: i32) -> Option<NaiveDateTime> {
    let shifted = ms.checked_add(i64::from(offset_seconds) * 1000)?;
    Some(DateTime::from_timestamp_millis(shifted)?.naive_utc())
}

/// A Connect Decimal (big-endian two's-complement unscaled bytes) as a decimal number.
pub fn decimal(unscaled: &[u8], scale: i32) -> BigDecimal {
    BigDecimal::new(BigInt::from_signed_bytes_be(unscaled), i64::from(scale))
}

/// The parameter for `value` of a field with `schema`; a null takes the schema's default, as
/// Connect's `Struct.get` does.
///
/// # Errors
/// A data error naming `column` when the value does not fit the schema or a required field is
/// null.
pub fn to_sql(value: &Value, schema: &Schema, tz: DbTimeZone, column: &str) -> Result<SqlValue> {
    let kind = kind_of(schema)?;
    let value = match (value, &schema.default) {
        (Value::Null, Some(d)) => d,
        (v, _) => v,
    };
    let bad = || {
        ConnectError::data(format!(
            "column {column}: a {} value does not fit the field's schema {}{}",
            value.type_name(),
            schema.schema_type.name(),
            schema
                .name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        ))
    };
    Ok(match (kind, value) {
        (k, Value::Null) => {
            if !schema.optional {
                return Err(ConnectError::data(format!(
                    "column {column}: null value for a required field"
                )));
            }
            SqlValue::Null(k)
        }
        (Kind::Bool, Value::Boolean(b)) => SqlValue::Bool(*b),
        (Kind::I8, Value::Int8(x)) => SqlValue::I8(*x),
        (Kind::I16, Value::Int16(x)) => SqlValue::I16(*x),
        (Kind::I32, Value::Int32(x)) => SqlValue::I32(*x),
        (Kind::I64, Value::Int64(x)) => SqlValue::I64(*x),
        (Kind::F32, Value::Float32(x)) => SqlValue::F32(*x),
        (Kind::F64, Value::Float64(x)) => SqlValue::F64(*x),
        (Kind::Text, Value::String(s)) => SqlValue::Text(s.clone()),
        (Kind::Bytes, Value::Bytes(b)) => SqlValue::Bytes(b.clone()),
        (Kind::Decimal, Value::Bytes(b)) => {
            let scale = schema
                .parameter(logical::DECIMAL_SCALE)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| {
                    ConnectError::data(format!(
                        "column {column}: Decimal schema without a valid scale parameter"
                    ))
                })?;
            SqlValue::Decimal(decimal(b, scale))
        }
        (Kind::Date, Value::Int32(d)) => SqlValue::Date(date_from_days(*d).ok_or_else(bad)?),
        (Kind::Time, Value::Int32(ms)) => SqlValue::Time(time_from_millis(*ms).ok_or_else(bad)?),
        (Kind::Timestamp, Value::Int64(ms)) => {
            SqlValue::Timestamp(timestamp_from_millis(*ms, tz.offset_seconds).ok_or_else(bad)?)
        }
        _ => return Err(bad()),
    })
}

/// Binds a [`SqlValue`] to a PostgreSQL or MySQL query: every value with its own type, a NULL
/// with its column's, INT8 as `$i8` (PostgreSQL has no 1-byte integer).
macro_rules! bind_typed {
    ($q:ident, $v:ident, i8 as $i8:ty) => {
        match $v {
            SqlValue::Null(k) => match k {
                Kind::Bool => $q.bind(None::<bool>),
                Kind::I8 => $q.bind(None::<$i8>),
                Kind::I16 => $q.bind(None::<i16>),
                Kind::I32 => $q.bind(None::<i32>),
                Kind::I64 => $q.bind(None::<i64>),
                Kind::F32 => $q.bind(None::<f32>),
                Kind::F64 => $q.bind(None::<f64>),
                Kind::Text => $q.bind(None::<String>),
                Kind::Bytes => $q.bind(None::<Vec<u8>>),
                Kind::Decimal => $q.bind(None::<BigDecimal>),
                Kind::Date => $q.bind(None::<NaiveDate>),
                Kind::Time => $q.bind(None::<NaiveTime>),
                Kind::Timestamp => $q.bind(None::<NaiveDateTime>),
            },
            SqlValue::Bool(b) => $q.bind(b),
            SqlValue::I8(x) => $q.bind(<$i8>::from(x)),
            SqlValue::I16(x) => $q.bind(x),
            SqlValue::I32(x) => $q.bind(x),
            SqlValue::I64(x) => $q.bind(x),
            SqlValue::F32(x) => $q.bind(x),
            SqlValue::F64(x) => $q.bind(x),
            SqlValue::Text(s) => $q.bind(s),
            SqlValue::Bytes(b) => $q.bind(b),
            SqlValue::Decimal(d) => $q.bind(d),
            SqlValue::Date(d) => $q.bind(d),
            SqlValue::Time(t) => $q.bind(t),
            SqlValue::Timestamp(t) => $q.bind(t),
        }
    };
}

/// Binds `v` to a PostgreSQL statement (INT8 as SMALLINT: PostgreSQL has no 1-byte integer).
pub fn bind_pg<'q>(
    q: Query<'q, Postgres, PgArguments>,
    v: SqlValue,
) -> Query<'q, Postgres, PgArguments> {
    bind_typed!(q, v, i8 as i16)
}

/// Binds `v` to a MySQL/MariaDB statement.
#[allow(clippy::useless_conversion)] // INT8 stays i8 here: `i8::from(i8)`.
pub fn bind_mysql<'q>(
    q: Query<'q, MySql, MySqlArguments>,
    v: SqlValue,
) -> Query<'q, MySql, MySqlArguments> {
    bind_typed!(q, v, i8 as i8)
}

/// Binds `v` to an SQLite statement: integers as INTEGER, floats as REAL, decimals as their
/// text (a NUMERIC column stores it as a number when it is one), dates and times as ISO-8601
/// text with milliseconds always written (`2024-01-01 00:00:00.000`), so they sort as text.
pub fn bind_sqlite<'q>(
    q: Query<'q, Sqlite, SqliteArguments<'q>>,
    v: SqlValue,
) -> Query<'q, Sqlite, SqliteArguments<'q>> {
    match v {
        SqlValue::Null(_) => q.bind(None::<i64>),
        SqlValue::Bool(b) => q.bind(b),
        SqlValue::I8(x) => q.bind(i64::from(x)),
        SqlValue::I16(x) => q.bind(i64::from(x)),
        SqlValue::I32(x) => q.bind(i64::from(x)),
        SqlValue::I64(x) => q.bind(x),
        SqlValue::F32(x) => q.bind(f64::from(x)),
        SqlValue::F64(x) => q.bind(x),
        SqlValue::Text(s) => q.bind(s),
        SqlValue::Bytes(b) => q.bind(b),
        SqlValue::Decimal(d) => q.bind(d.to_string()),
        SqlValue::Date(d) => q.bind(d.format("%Y-%m-%d").to_string()),
        SqlValue::Time(t) => q.bind(t.format("%H:%M:%S%.3f").to_string()),
        SqlValue::Timestamp(t) => q.bind(t.format("%Y-%m-%d %H:%M:%S%.3f").to_string()),
    }
}

#[cfg(test)]
mod tests {
    use connect_api::SchemaBuilder;

    use super::*;

    const UTC: DbTimeZone = DbTimeZone { offset_seconds: 0 };

    #[test]
    fn logical_types_become_dates_times_and_decimals() {
        let d = to_sql(&Value::Int32(19723), &logical::date().build(), UTC, "d").unwrap();
        assert_eq!(
            d,
            SqlValue::Date(NaiveDate::from_ymd_opt(2024, 1, 1).unwrap())
        );
        let t = to_sql(&Value::Int32(3_723_004), &logical::time().build(), UTC, "t").unwrap();
        assert_eq!(
            t,
            SqlValue::Time(NaiveTime::from_hms_milli_opt(1, 2, 3, 4).unwrap())
        );
        let plus2 = DbTimeZone {
            offset_seconds: 7200,
        };
        let ts = to_sql(
            &Value::Int64(1_704_067_200_123),
            &logical::timestamp().build(),
            plus2,
            "ts",
        )
        .unwrap();
        assert_eq!(
            ts,
            SqlValue::Timestamp(
                NaiveDate::from_ymd_opt(2024, 1, 1)
                    .unwrap()
                    .and_hms_milli_opt(2, 0, 0, 123)
                    .unwrap()
            )
        );
        let dec = to_sql(
            &Value::Bytes(vec![0xfb, 0x2e]),
            &logical::decimal(2).build(),
            UTC,
            "p",
        )
        .unwrap();
        assert_eq!(dec, SqlValue::Decimal("-12.34".parse().unwrap()));
    }

    #[test]
    fn nulls_take_defaults_and_required_fields_refuse_them() {
        let opt = Schema::optional(SchemaType::String);
        assert_eq!(
            to_sql(&Value::Null, &opt, UTC, "c").unwrap(),
            SqlValue::Null(Kind::Text)
        );
        let def = SchemaBuilder::new(SchemaType::Int32)
            .optional()
            .default_value(Value::Int32(7))
            .build();
        assert_eq!(
            to_sql(&Value::Null, &def, UTC, "c").unwrap(),
            SqlValue::I32(7)
        );
        let req = Schema::required(SchemaType::Int32);
        let e = to_sql(&Value::Null, &req, UTC, "c")
            .unwrap_err()
            .to_string();
        assert!(e.contains("column c"), "{e}");
        let e = to_sql(&Value::Int64(1), &req, UTC, "c")
            .unwrap_err()
            .to_string();
        assert!(e.contains("Long value does not fit"), "{e}");
    }
}
