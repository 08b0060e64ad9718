//! Column metadata (what JDBC's `DatabaseMetaData.getColumns` / `ResultSetMetaData` give the
//! reference connector): type, nullability, precision and scale, auto-increment, and the
//! column's place in the primary key (`getPrimaryKeys`' `KEY_SEQ`).

use sqlx::{Column, Executor, Row, TypeInfo};

use crate::connection::Database;

use super::schema_mapping::{declared_precision_scale, ColumnMeta};
use super::table_id::TableId;

/// The columns of `table`, in column order.
///
/// # Errors
/// The driver's error.
pub async fn table_columns(db: &Database, table: &TableId) -> Result<Vec<ColumnMeta>, sqlx::Error> {
    let ns = table.namespace.as_deref().unwrap_or("");
    match db {
        Database::Postgres(pool) => {
            let rows = sqlx::query(
                "SELECT a.attname::text, t.typname::text, NOT a.attnotnull, \
                 information_schema._pg_numeric_precision(a.atttypid, a.atttypmod)::int8, \
                 information_schema._pg_numeric_scale(a.atttypid, a.atttypmod)::int8, \
                 (COALESCE(pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%' OR a.attidentity <> ''), \
                 CASE WHEN t.typname IN ('bit', 'varbit') THEN a.atttypmod::int8 END, \
                 array_position(i.indkey::int2[], a.attnum)::int8 \
                 FROM pg_catalog.pg_attribute a \
                 JOIN pg_catalog.pg_class c ON c.oid = a.attrelid \
                 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                 JOIN pg_catalog.pg_type t ON t.oid = a.atttypid \
                 LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
                 LEFT JOIN pg_catalog.pg_index i ON i.indrelid = c.oid AND i.indisprimary \
                 WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped \
                 ORDER BY a.attnum",
            )
            .bind(ns)
            .bind(&table.name)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| {
                    Ok(ColumnMeta {
                        name: r.try_get(0)?,
                        type_name: r.try_get(1)?,
                        nullable: Some(r.try_get(2)?),
                        precision: r.try_get(3)?,
                        scale: r.try_get(4)?,
                        unsigned: false,
                        auto_increment: r.try_get(5)?,
                        bit_length: r.try_get(6)?,
                        key_position: r.try_get(7)?,
                    })
                })
                .collect()
        }
        Database::MySql(pool) => {
            let rows = sqlx::query(
                "SELECT CAST(COLUMN_NAME AS CHAR), CAST(DATA_TYPE AS CHAR), \
                 CAST(IS_NULLABLE = 'YES' AS SIGNED), CAST(NUMERIC_PRECISION AS SIGNED), \
                 CAST(NUMERIC_SCALE AS SIGNED), CAST(COLUMN_TYPE LIKE '%unsigned%' AS SIGNED), \
                 CAST(EXTRA LIKE '%auto_increment%' AS SIGNED), \
                 (SELECT CAST(k.ORDINAL_POSITION AS SIGNED) FROM information_schema.KEY_COLUMN_USAGE k \
                  WHERE k.CONSTRAINT_NAME = 'PRIMARY' AND k.TABLE_SCHEMA = c.TABLE_SCHEMA \
                  AND k.TABLE_NAME = c.TABLE_NAME AND k.COLUMN_NAME = c.COLUMN_NAME) \
                 FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = ? AND c.TABLE_NAME = ? \
                 ORDER BY c.ORDINAL_POSITION",
            )
            .bind(ns)
            .bind(&table.name)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| {
                    let flag = |i: usize| -> Result<bool, sqlx::Error> {
                        Ok(r.try_get::<Option<i64>, _>(i)?.unwrap_or(0) != 0)
                    };
                    let type_name: String = r.try_get(1)?;
                    let precision: Option<i64> = r.try_get(3)?;
                    Ok(ColumnMeta {
                        name: r.try_get(0)?,
                        bit_length: (type_name.eq_ignore_ascii_case("bit"))
                            .then_some(precision)
                            .flatten(),
                        type_name: type_name.to_ascii_lowercase(),
                        nullable: Some(flag(2)?),
                        precision,
                        scale: r.try_get(4)?,
                        unsigned: flag(5)?,
                        auto_increment: flag(6)?,
                        key_position: r.try_get(7)?,
                    })
                })
                .collect()
        }
        Database::Sqlite(pool) => {
            let rows = sqlx::query("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)")
                .bind(&table.name)
                .fetch_all(pool)
                .await?;
            let pk_count = rows
                .iter()
                .filter(|r| r.try_get::<i64, _>(3).unwrap_or(0) > 0)
                .count();
            rows.iter()
                .map(|r| {
                    let declared: String = r.try_get(1)?;
                    let not_null: i64 = r.try_get(2)?;
                    let pk: i64 = r.try_get(3)?;
                    // INTEGER PRIMARY KEY is the rowid: never null, assigned when omitted.
                    let rowid = pk > 0 && pk_count == 1 && declared.eq_ignore_ascii_case("integer");
                    let (precision, scale) = declared_precision_scale(&declared);
                    Ok(ColumnMeta {
                        name: r.try_get(0)?,
                        type_name: declared.to_ascii_lowercase(),
                        nullable: Some(not_null == 0 && !rowid),
                        precision,
                        scale,
                        unsigned: false,
                        auto_increment: rowid,
                        bit_length: None,
                        key_position: (pk > 0).then_some(pk),
                    })
                })
                .collect()
        }
    }
}

/// The result columns of a custom query, from the driver's description of the statement
/// (nullability unknown ⇒ nullable; precision and scale unknown).
///
/// # Errors
/// The driver's error (e.g. the query does not parse).
pub async fn query_columns(db: &Database, sql: &str) -> Result<Vec<ColumnMeta>, sqlx::Error> {
    macro_rules! describe {
        ($pool:expr) => {{
            let d = $pool.describe(sql).await?;
            d.columns()
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let name = c.type_info().name().to_ascii_lowercase();
                    let (precision, scale) = declared_precision_scale(&name);
                    ColumnMeta {
                        name: c.name().to_owned(),
                        unsigned: name.ends_with(" unsigned"),
                        type_name: name,
                        nullable: d.nullable(i),
                        precision,
                        scale,
                        auto_increment: false,
                        bit_length: None,
                        key_position: None,
                    }
                })
                .collect()
        }};
    }
    Ok(match db {
        Database::Postgres(pool) => describe!(pool),
        Database::MySql(pool) => describe!(pool),
        Database::Sqlite(pool) => describe!(pool),
    })
}
