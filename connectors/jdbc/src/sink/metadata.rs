//! What the database says about a destination table: its columns, names, types and
//! nullability (PostgreSQL and MySQL `information_schema.columns`, SQLite `PRAGMA table_info`).

use sqlx::Row;

use crate::connection::Database;
use crate::dialect::Dialect;
use crate::sink::config::QuoteMethod;
use crate::sink::table_id::{ident, TableId};

/// One column of an existing table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableColumn {
    /// Column name as the database spells it.
    pub name: String,
    /// The database's type name, lower case (`bigint`, `text`, `jsonb`, …).
    pub type_name: String,
    /// Whether the column takes NULL.
    pub nullable: bool,
}

/// The columns of an existing table, in table order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableDef {
    /// The columns.
    pub columns: Vec<TableColumn>,
}

impl TableDef {
    /// The column called `name`: matched exactly, else case-insensitively.
    pub fn find(&self, name: &str) -> Option<&TableColumn> {
        self.columns.iter().find(|c| c.name == name).or_else(|| {
            self.columns
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(name))
        })
    }
}

/// The columns of `table`; `None` when it does not exist.
///
/// # Errors
/// The driver's error when the query fails.
pub async fn describe(db: &Database, table: &TableId) -> Result<Option<TableDef>, sqlx::Error> {
    // PostgreSQL and MySQL: information_schema, with the schema or else the current one.
    macro_rules! information_schema {
        ($pool:expr, $sql:expr) => {
            sqlx::query($sql)
                .bind(table.schema.as_deref())
                .bind(&table.table)
                .fetch_all($pool)
                .await?
                .iter()
                .map(|r| {
                    Ok(TableColumn {
                        name: r.try_get(0)?,
                        type_name: r.try_get::<String, _>(1)?.to_lowercase(),
                        nullable: r.try_get::<String, _>(2)? == "YES",
                    })
                })
                .collect::<Result<_, sqlx::Error>>()?
        };
    }
    let columns: Vec<TableColumn> = match db {
        Database::Postgres(pool) => information_schema!(
            pool,
            "SELECT column_name::text, data_type::text, is_nullable::text \
             FROM information_schema.columns \
             WHERE table_schema = COALESCE($1, current_schema()) AND table_name = $2 \
             ORDER BY ordinal_position"
        ),
        Database::MySql(pool) => information_schema!(
            pool,
            "SELECT CAST(column_name AS CHAR), CAST(data_type AS CHAR), \
             CAST(is_nullable AS CHAR) FROM information_schema.columns \
             WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ? \
             ORDER BY ordinal_position"
        ),
        Database::Sqlite(pool) => {
            let q = |s: &str| ident(s, Dialect::Sqlite, QuoteMethod::Always);
            let sql = match &table.schema {
                Some(s) => format!("PRAGMA {}.table_info({})", q(s), q(&table.table)),
                None => format!("PRAGMA table_info({})", q(&table.table)),
            };
            sqlx::query(&sql)
                .fetch_all(pool)
                .await?
                .iter()
                .map(|r| {
                    Ok(TableColumn {
                        name: r.try_get(1)?,
                        type_name: r.try_get::<String, _>(2)?.to_lowercase(),
                        nullable: r.try_get::<i64, _>(3)? == 0,
                    })
                })
                .collect::<Result<_, sqlx::Error>>()?
        }
    };
    Ok((!columns.is_empty()).then_some(TableDef { columns }))
}

/// Runs one DDL statement outside any transaction.
///
/// # Errors
/// The driver's error.
pub async fn execute_ddl(db: &Database, sql: &str) -> Result<(), sqlx::Error> {
    match db {
        Database::Postgres(p) => sqlx::raw_sql(sql).execute(p).await.map(drop),
        Database::MySql(p) => sqlx::raw_sql(sql).execute(p).await.map(drop),
        Database::Sqlite(p) => sqlx::raw_sql(sql).execute(p).await.map(drop),
    }
}
