//! Table definitions from record schemas: the SQL type of each Connect type per dialect, and
//! the `CREATE TABLE` / `ALTER TABLE … ADD` text of Confluent's dialects.

use connect_api::{logical, ConnectError, Result, Schema, SchemaType, Value};

use crate::dialect::Dialect;
use crate::sink::bind::{date_from_days, time_from_millis, timestamp_from_millis};
use crate::sink::config::QuoteMethod;
use crate::sink::fields::Column;
use crate::sink::table_id::ident;

/// The SQL type of a column of `schema` in `dialect`. `is_key`: MySQL cannot index TEXT, so
/// string key columns there are `VARCHAR(256)` (Confluent writes TEXT and fails).
///
/// # Errors
/// For MAP, STRUCT and ARRAY fields, which have no column type here.
pub fn sql_type(dialect: Dialect, schema: &Schema, is_key: bool) -> Result<String> {
    use Dialect::{MySql, Postgres, Sqlite};
    let logical = schema.name.as_deref();
    let t = match (dialect, logical) {
        (Postgres, Some(logical::DECIMAL)) => "DECIMAL".to_owned(),
        (MySql, Some(logical::DECIMAL)) => {
            let scale = schema.parameter(logical::DECIMAL_SCALE).unwrap_or("0");
            format!("DECIMAL(65,{scale})")
        }
        (Sqlite, Some(logical::DECIMAL | logical::DATE | logical::TIME | logical::TIMESTAMP)) => {
            "NUMERIC".to_owned()
        }
        (Postgres, Some(logical::DATE)) | (MySql, Some(logical::DATE)) => "DATE".to_owned(),
        (Postgres, Some(logical::TIME)) => "TIME".to_owned(),
        (MySql, Some(logical::TIME)) => "TIME(3)".to_owned(),
        (Postgres, Some(logical::TIMESTAMP)) => "TIMESTAMP".to_owned(),
        (MySql, Some(logical::TIMESTAMP)) => "DATETIME(3)".to_owned(),
        _ => match (dialect, schema.schema_type) {
            (
                Sqlite,
                SchemaType::Int8 | SchemaType::Int16 | SchemaType::Int32 | SchemaType::Int64,
            )
            | (Sqlite, SchemaType::Boolean) => "INTEGER",
            (Postgres, SchemaType::Int8 | SchemaType::Int16) => "SMALLINT",
            (MySql, SchemaType::Int8) => "TINYINT",
            (MySql, SchemaType::Int16) => "SMALLINT",
            (_, SchemaType::Int32) => "INT",
            (_, SchemaType::Int64) => "BIGINT",
            (Postgres, SchemaType::Float32) => "REAL",
            (Postgres, SchemaType::Float64) => "DOUBLE PRECISION",
            (MySql, SchemaType::Float32) => "FLOAT",
            (MySql, SchemaType::Float64) => "DOUBLE",
            (Sqlite, SchemaType::Float32 | SchemaType::Float64) => "REAL",
            (Postgres, SchemaType::Boolean) => "BOOLEAN",
            (MySql, SchemaType::Boolean) => "TINYINT",
            (MySql, SchemaType::String) if is_key => "VARCHAR(256)",
            (_, SchemaType::String) => "TEXT",
            (Postgres, SchemaType::Bytes) => "BYTEA",
            (MySql, SchemaType::Bytes) => "VARBINARY(1024)",
            (Sqlite, SchemaType::Bytes) => "BLOB",
            (_, t) => {
                return Err(ConnectError::data(format!(
                    "{dialect} (connect-rs) does not support the Connect type {} as a column \
                     type",
                    t.name()
                )))
            }
        }
        .to_owned(),
    };
    Ok(t)
}

/// `<col> <type>` plus ` DEFAULT <lit>`, ` NULL` or ` NOT NULL`.
fn column_spec(dialect: Dialect, quote: QuoteMethod, c: &Column) -> Result<String> {
    let mut s = format!(
        "{} {}",
        ident(&c.name, dialect, quote),
        sql_type(dialect, &c.schema, c.is_key)?
    );
    if let Some(d) = c.schema.default.as_ref().filter(|d| !d.is_null()) {
        s.push_str(" DEFAULT ");
        s.push_str(&literal(dialect, &c.schema, d, &c.name)?);
    } else if c.schema.optional && !c.is_key {
        s.push_str(" NULL");
    } else {
        s.push_str(" NOT NULL");
    }
    Ok(s)
}

/// `CREATE TABLE <t> (` one column per line, then `PRIMARY KEY(<keys>)` when there are keys.
///
/// # Errors
/// When a column has no SQL type or its default cannot be written.
pub fn create_table(
    dialect: Dialect,
    quote: QuoteMethod,
    table: &str,
    columns: &[&Column],
) -> Result<String> {
    let specs = columns
        .iter()
        .map(|c| column_spec(dialect, quote, c))
        .collect::<Result<Vec<_>>>()?;
    let mut sql = format!("CREATE TABLE {table} (\n{}", specs.join(",\n"));
    let keys: Vec<String> = columns
        .iter()
        .filter(|c| c.is_key)
        .map(|c| ident(&c.name, dialect, quote))
        .collect();
    if !keys.is_empty() {
        sql.push_str(&format!(",\nPRIMARY KEY({})", keys.join(",")));
    }
    sql.push(')');
    Ok(sql)
}

/// The statements that add `columns`: one `ALTER TABLE <t> ADD …, ADD …` (PostgreSQL, MySQL),
/// one `ALTER TABLE` per column (SQLite).
///
/// # Errors
/// When a column has no SQL type or its default cannot be written.
pub fn alter_table(
    dialect: Dialect,
    quote: QuoteMethod,
    table: &str,
    columns: &[&Column],
) -> Result<Vec<String>> {
    let specs = columns
        .iter()
        .map(|c| column_spec(dialect, quote, c))
        .collect::<Result<Vec<_>>>()?;
    Ok(match dialect {
        Dialect::Sqlite => specs
            .iter()
            .map(|s| format!("ALTER TABLE {table} ADD {s}"))
            .collect(),
        Dialect::Postgres | Dialect::MySql => {
            let adds: Vec<String> = specs.iter().map(|s| format!("ADD {s}")).collect();
            vec![format!("ALTER TABLE {table} \n{}", adds.join(",\n"))]
        }
    })
}

/// A default value as an SQL literal: numbers bare, text and dates quoted, booleans `1`/`0`
/// (PostgreSQL `TRUE`/`FALSE`).
fn literal(dialect: Dialect, schema: &Schema, v: &Value, column: &str) -> Result<String> {
    let quoted = |s: String| format!("'{}'", s.replace('\'', "''"));
    let logical = schema.name.as_deref();
    let unsupported = || {
        ConnectError::data(format!(
            "The default value of column {column} ({}) cannot be written as an SQL literal",
            v.type_name()
        ))
    };
    Ok(match (logical, v) {
        (Some(logical::DATE), Value::Int32(d)) => {
            quoted(date_from_days(*d).ok_or_else(unsupported)?.to_string())
        }
        (Some(logical::TIME), Value::Int32(ms)) => quoted(
            time_from_millis(*ms)
                .ok_or_else(unsupported)?
                .format("%H:%M:%S%.3f")
                .to_string(),
        ),
        (Some(logical::TIMESTAMP), Value::Int64(ms)) => quoted(
            timestamp_from_millis(*ms, 0)
                .ok_or_else(unsupported)?
                .format("%Y-%m-%d %H:%M:%S%.3f")
                .to_string(),
        ),
        (Some(logical::DECIMAL), Value::Bytes(b)) => {
            let scale = logical::decimal_scale(&std::sync::Arc::new(schema.clone()))
                .ok_or_else(unsupported)?;
            crate::sink::bind::decimal(b, scale).to_string()
        }
        (_, Value::Boolean(b)) => match (dialect, b) {
            (Dialect::Postgres, true) => "TRUE".to_owned(),
            (Dialect::Postgres, false) => "FALSE".to_owned(),
            (_, true) => "1".to_owned(),
            (_, false) => "0".to_owned(),
        },
        (_, Value::Int8(x)) => x.to_string(),
        (_, Value::Int16(x)) => x.to_string(),
        (_, Value::Int32(x)) => x.to_string(),
        (_, Value::Int64(x)) => x.to_string(),
        (_, Value::Float32(x)) if x.is_finite() => x.to_string(),
        (_, Value::Float64(x)) if x.is_finite() => x.to_string(),
        (_, Value::String(s)) => quoted(s.clone()),
        _ => return Err(unsupported()),
    })
}

#[cfg(test)]
mod tests {
    use connect_api::SchemaBuilder;

    use super::*;
    use crate::sink::fields::Source;

    fn col(name: &str, schema: connect_api::SchemaRef, is_key: bool) -> Column {
        Column {
            name: name.into(),
            schema,
            is_key,
            source: Source::ValueField(0),
        }
    }

    fn columns() -> Vec<Column> {
        vec![
            col("id", Schema::required(SchemaType::Int64), true),
            col("name", Schema::optional(SchemaType::String), false),
            col(
                "n",
                SchemaBuilder::new(SchemaType::Int32)
                    .optional()
                    .default_value(Value::Int32(5))
                    .build(),
                false,
            ),
            col("price", logical::decimal(2).optional().build(), false),
            col("day", logical::date().build(), false),
            col("at", logical::timestamp().optional().build(), false),
            col(
                "ok",
                SchemaBuilder::new(SchemaType::Boolean)
                    .default_value(Value::Boolean(true))
                    .build(),
                false,
            ),
        ]
    }

    #[test]
    fn create_table_per_dialect() {
        let cols = columns();
        let refs: Vec<&Column> = cols.iter().collect();
        assert_eq!(
            create_table(Dialect::Postgres, QuoteMethod::Always, "\"t\"", &refs).unwrap(),
            "CREATE TABLE \"t\" (\n\"id\" BIGINT NOT NULL,\n\"name\" TEXT NULL,\n\
             \"n\" INT DEFAULT 5,\n\"price\" DECIMAL NULL,\n\"day\" DATE NOT NULL,\n\
             \"at\" TIMESTAMP NULL,\n\"ok\" BOOLEAN DEFAULT TRUE,\nPRIMARY KEY(\"id\"))"
        );
        assert_eq!(
            create_table(Dialect::MySql, QuoteMethod::Always, "`t`", &refs).unwrap(),
            "CREATE TABLE `t` (\n`id` BIGINT NOT NULL,\n`name` TEXT NULL,\n`n` INT DEFAULT 5,\n\
             `price` DECIMAL(65,2) NULL,\n`day` DATE NOT NULL,\n`at` DATETIME(3) NULL,\n\
             `ok` TINYINT DEFAULT 1,\nPRIMARY KEY(`id`))"
        );
        assert_eq!(
            create_table(Dialect::Sqlite, QuoteMethod::Never, "t", &refs[..2]).unwrap(),
            "CREATE TABLE t (\nid INTEGER NOT NULL,\nname TEXT NULL,\nPRIMARY KEY(id))"
        );
    }

    #[test]
    fn alter_table_is_one_statement_except_on_sqlite() {
        let cols = columns();
        let refs: Vec<&Column> = cols[1..3].iter().collect();
        assert_eq!(
            alter_table(Dialect::Postgres, QuoteMethod::Always, "\"t\"", &refs).unwrap(),
            ["ALTER TABLE \"t\" \nADD \"name\" TEXT NULL,\nADD \"n\" INT DEFAULT 5"]
        );
        assert_eq!(
            alter_table(Dialect::Sqlite, QuoteMethod::Always, "\"t\"", &refs).unwrap(),
            [
                "ALTER TABLE \"t\" ADD \"name\" TEXT NULL",
                "ALTER TABLE \"t\" ADD \"n\" INTEGER DEFAULT 5"
            ]
        );
    }

    #[test]
    fn type_mapping_per_dialect() {
        let ty = |d, s: &connect_api::SchemaRef| sql_type(d, s, false).unwrap();
        let i8s = Schema::required(SchemaType::Int8);
        assert_eq!(ty(Dialect::Postgres, &i8s), "SMALLINT");
        assert_eq!(ty(Dialect::MySql, &i8s), "TINYINT");
        assert_eq!(ty(Dialect::Sqlite, &i8s), "INTEGER");
        let f = Schema::required(SchemaType::Float64);
        assert_eq!(ty(Dialect::Postgres, &f), "DOUBLE PRECISION");
        assert_eq!(ty(Dialect::MySql, &f), "DOUBLE");
        let b = Schema::required(SchemaType::Bytes);
        assert_eq!(ty(Dialect::MySql, &b), "VARBINARY(1024)");
        assert_eq!(ty(Dialect::Postgres, &b), "BYTEA");
        assert_eq!(ty(Dialect::MySql, &logical::time().build()), "TIME(3)");
        assert_eq!(
            ty(Dialect::Sqlite, &logical::timestamp().build()),
            "NUMERIC"
        );
        let s = Schema::required(SchemaType::String);
        assert_eq!(sql_type(Dialect::MySql, &s, true).unwrap(), "VARCHAR(256)");
        let m = SchemaBuilder::map(s.clone(), s).build();
        assert!(sql_type(Dialect::Postgres, &m, false).is_err());
    }
}
