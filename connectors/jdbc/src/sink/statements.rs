//! The sink's DML text per dialect, as Confluent's dialects write it: INSERT, the upserts
//! (PostgreSQL `ON CONFLICT`, MySQL `ON DUPLICATE KEY UPDATE`, SQLite `INSERT OR REPLACE`),
//! UPDATE and DELETE. Placeholders are `?`, except PostgreSQL's `$1, $2, …` (the wire
//! protocol's own; JDBC rewrites `?` into them). INSERT and the upserts also come as
//! [`Rows`]: the same statement with several rows of values, for batches.

use crate::dialect::Dialect;
use crate::sink::config::{InsertMode, QuoteMethod};
use crate::sink::table_id::ident;

/// In which order a statement's parameters take the columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindOrder {
    /// Key columns, then the others (INSERT and upserts).
    KeysThenValues,
    /// The other columns, then the keys (UPDATE).
    ValuesThenKeys,
    /// Key columns only (DELETE).
    KeysOnly,
}

/// A statement and the order of its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// SQL text.
    pub sql: String,
    /// Parameter order.
    pub order: BindOrder,
    /// The same statement for several rows, when it takes them (INSERT and upserts).
    pub rows: Option<Rows>,
}

/// An `INSERT … VALUES (…),(…) [suffix]` with any number of rows: `prefix`, one tuple of
/// placeholders per row, then `suffix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows {
    prefix: String,
    suffix: String,
    /// Per column: its PostgreSQL cast (`None` without one); empty casts for `?` dialects.
    casts: Vec<Option<String>>,
    numbered: bool,
}

impl Rows {
    /// Parameters one row takes.
    pub fn params_per_row(&self) -> usize {
        self.casts.len()
    }

    /// The statement text for `n` rows (`n` ≥ 1); for one row it is [`Statement::sql`].
    pub fn sql(&self, n: usize) -> String {
        use std::fmt::Write;
        let per = self.casts.len();
        let mut out = String::with_capacity(self.prefix.len() + self.suffix.len() + n * per * 7);
        out.push_str(&self.prefix);
        for r in 0..n {
            out.push_str(if r == 0 { "(" } else { ",(" });
            for (i, cast) in self.casts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if self.numbered {
                    // Writing to a String cannot fail.
                    let _ = write!(out, "${}", r * per + i + 1);
                    if let Some(c) = cast {
                        let _ = write!(out, "::{c}");
                    }
                } else {
                    out.push('?');
                }
            }
            out.push(')');
        }
        out.push_str(&self.suffix);
        out
    }
}

/// Builds statements for one table.
#[derive(Debug, Clone)]
pub struct StatementBuilder<'a> {
    /// The dialect.
    pub dialect: Dialect,
    /// Identifier quoting.
    pub quote: QuoteMethod,
    /// The table, already as SQL text.
    pub table: &'a str,
    /// Key column names.
    pub keys: &'a [&'a str],
    /// Other column names.
    pub values: &'a [&'a str],
    /// PostgreSQL casts per column (`json`, `jsonb`, `uuid` columns take `$n::json`), in
    /// keys-then-values order; empty when none.
    pub casts: &'a [Option<&'a str>],
}

impl StatementBuilder<'_> {
    fn col(&self, name: &str) -> String {
        ident(name, self.dialect, self.quote)
    }

    fn cols(&self, names: &[&str]) -> String {
        names
            .iter()
            .map(|n| self.col(n))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The placeholder of parameter `n` (1-based) for the column at `column` in
    /// keys-then-values order.
    fn ph(&self, n: usize, column: usize) -> String {
        match self.dialect {
            Dialect::Postgres => match self.casts.get(column).copied().flatten() {
                Some(cast) => format!("${n}::{cast}"),
                None => format!("${n}"),
            },
            Dialect::MySql | Dialect::Sqlite => "?".to_owned(),
        }
    }

    fn all(&self) -> Vec<&str> {
        self.keys.iter().chain(self.values).copied().collect()
    }

    /// The statement of `mode`.
    ///
    /// # Errors
    /// A message when the mode needs key columns and there are none, or UPDATE has no
    /// non-key column to set.
    pub fn write(&self, mode: InsertMode) -> Result<Statement, String> {
        match mode {
            InsertMode::Insert => Ok(self.insert()),
            InsertMode::Upsert if self.keys.is_empty() => Err(format!(
                "Write to table '{}' in UPSERT mode requires key field names to be known, check \
                 the primary key configuration",
                self.table
            )),
            InsertMode::Upsert => Ok(self.upsert()),
            InsertMode::Update if self.keys.is_empty() || self.values.is_empty() => Err(format!(
                "Write to table '{}' in UPDATE mode needs key columns and at least one non-key \
                 column to set, check the primary key configuration",
                self.table
            )),
            InsertMode::Update => Ok(self.update()),
        }
    }

    /// The multi-row form of `INSERT <prefix> VALUES (…) <suffix>`, and its one-row text.
    fn rows(&self, prefix: String, suffix: String) -> Statement {
        let n = self.keys.len() + self.values.len();
        let rows = Rows {
            prefix,
            suffix,
            casts: (0..n)
                .map(|i| self.casts.get(i).copied().flatten().map(str::to_owned))
                .collect(),
            numbered: self.dialect == Dialect::Postgres,
        };
        Statement {
            sql: rows.sql(1),
            order: BindOrder::KeysThenValues,
            rows: Some(rows),
        }
    }

    /// `INSERT INTO <t> (<cols>) VALUES ` (MySQL and SQLite without the spaces).
    fn insert_head(&self, verb: &str) -> String {
        match self.dialect {
            Dialect::Postgres => format!(
                "{verb} INTO {} ({}) VALUES ",
                self.table,
                self.cols(&self.all())
            ),
            Dialect::MySql | Dialect::Sqlite => format!(
                "{verb} INTO {}({}) VALUES",
                self.table,
                self.cols(&self.all())
            ),
        }
    }

    /// `INSERT INTO <t> (<cols>) VALUES (…)` (MySQL and SQLite without the spaces).
    pub fn insert(&self) -> Statement {
        self.rows(self.insert_head("INSERT"), String::new())
    }

    /// The dialect's insert-or-overwrite by primary key.
    pub fn upsert(&self) -> Statement {
        match self.dialect {
            Dialect::Postgres => {
                let keys = self.cols(self.keys);
                let suffix = if self.values.is_empty() {
                    format!(" ON CONFLICT ({keys}) DO NOTHING")
                } else {
                    let set: Vec<String> = self
                        .values
                        .iter()
                        .map(|c| format!("{0}=EXCLUDED.{0}", self.col(c)))
                        .collect();
                    format!(" ON CONFLICT ({keys}) DO UPDATE SET {}", set.join(","))
                };
                self.rows(self.insert_head("INSERT"), suffix)
            }
            Dialect::MySql => {
                let targets = if self.values.is_empty() {
                    self.keys
                } else {
                    self.values
                };
                let set: Vec<String> = targets
                    .iter()
                    .map(|c| format!("{0}=values({0})", self.col(c)))
                    .collect();
                let prefix = format!(
                    "insert into {}({}) values",
                    self.table,
                    self.cols(&self.all())
                );
                self.rows(
                    prefix,
                    format!(" on duplicate key update {}", set.join(",")),
                )
            }
            Dialect::Sqlite => self.rows(self.insert_head("INSERT OR REPLACE"), String::new()),
        }
    }

    /// `UPDATE <t> SET <v1> = ?, … WHERE <k1> = ? AND …`.
    pub fn update(&self) -> Statement {
        let nk = self.keys.len();
        let set: Vec<String> = self
            .values
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{} = {}", self.col(c), self.ph(i + 1, nk + i)))
            .collect();
        let nv = self.values.len();
        let r#where: Vec<String> = self
            .keys
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{} = {}", self.col(c), self.ph(nv + i + 1, i)))
            .collect();
        Statement {
            sql: format!(
                "UPDATE {} SET {} WHERE {}",
                self.table,
                set.join(", "),
                r#where.join(" AND ")
            ),
            order: BindOrder::ValuesThenKeys,
            rows: None,
        }
    }

    /// `DELETE FROM <t> WHERE <k1> = ? AND …`; `None` without key columns.
    pub fn delete(&self) -> Option<Statement> {
        if self.keys.is_empty() {
            return None;
        }
        let r#where: Vec<String> = self
            .keys
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{} = {}", self.col(c), self.ph(i + 1, i)))
            .collect();
        Some(Statement {
            sql: format!("DELETE FROM {} WHERE {}", self.table, r#where.join(" AND ")),
            order: BindOrder::KeysOnly,
            rows: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b<'a>(
        d: Dialect,
        table: &'a str,
        keys: &'a [&'a str],
        values: &'a [&'a str],
    ) -> StatementBuilder<'a> {
        StatementBuilder {
            dialect: d,
            quote: QuoteMethod::Always,
            table,
            keys,
            values,
            casts: &[],
        }
    }

    #[test]
    fn postgres_statements() {
        let s = b(Dialect::Postgres, "\"t\"", &["id"], &["name", "n"]);
        assert_eq!(
            s.insert().sql,
            "INSERT INTO \"t\" (\"id\",\"name\",\"n\") VALUES ($1,$2,$3)"
        );
        assert_eq!(
            s.upsert().sql,
            "INSERT INTO \"t\" (\"id\",\"name\",\"n\") VALUES ($1,$2,$3) ON CONFLICT (\"id\") \
             DO UPDATE SET \"name\"=EXCLUDED.\"name\",\"n\"=EXCLUDED.\"n\""
        );
        assert_eq!(
            s.update().sql,
            "UPDATE \"t\" SET \"name\" = $1, \"n\" = $2 WHERE \"id\" = $3"
        );
        assert_eq!(
            s.delete().unwrap().sql,
            "DELETE FROM \"t\" WHERE \"id\" = $1"
        );
        let only_keys = b(Dialect::Postgres, "\"t\"", &["a", "b"], &[]);
        assert_eq!(
            only_keys.upsert().sql,
            "INSERT INTO \"t\" (\"a\",\"b\") VALUES ($1,$2) ON CONFLICT (\"a\",\"b\") DO NOTHING"
        );
        let casts = [None, Some("jsonb")];
        let json = StatementBuilder {
            casts: &casts,
            ..b(Dialect::Postgres, "\"t\"", &["id"], &["doc"])
        };
        assert_eq!(
            json.insert().sql,
            "INSERT INTO \"t\" (\"id\",\"doc\") VALUES ($1,$2::jsonb)"
        );
        assert_eq!(
            json.update().sql,
            "UPDATE \"t\" SET \"doc\" = $1::jsonb WHERE \"id\" = $2"
        );
    }

    #[test]
    fn mysql_statements() {
        let s = b(Dialect::MySql, "`t`", &["id"], &["name"]);
        assert_eq!(s.insert().sql, "INSERT INTO `t`(`id`,`name`) VALUES(?,?)");
        assert_eq!(
            s.upsert().sql,
            "insert into `t`(`id`,`name`) values(?,?) on duplicate key update `name`=values(`name`)"
        );
        assert_eq!(s.update().sql, "UPDATE `t` SET `name` = ? WHERE `id` = ?");
        let only_keys = b(Dialect::MySql, "`t`", &["id"], &[]);
        assert_eq!(
            only_keys.upsert().sql,
            "insert into `t`(`id`) values(?) on duplicate key update `id`=values(`id`)"
        );
        let two = b(Dialect::MySql, "`t`", &["a", "b"], &[]);
        assert_eq!(
            two.delete().unwrap().sql,
            "DELETE FROM `t` WHERE `a` = ? AND `b` = ?"
        );
    }

    #[test]
    fn sqlite_statements() {
        let s = b(Dialect::Sqlite, "\"t\"", &["id"], &["name"]);
        assert_eq!(
            s.insert().sql,
            "INSERT INTO \"t\"(\"id\",\"name\") VALUES(?,?)"
        );
        assert_eq!(
            s.upsert().sql,
            "INSERT OR REPLACE INTO \"t\"(\"id\",\"name\") VALUES(?,?)"
        );
    }

    #[test]
    fn several_rows_number_and_cast_each_tuple() {
        let casts = [None, Some("jsonb")];
        let pg = StatementBuilder {
            casts: &casts,
            ..b(Dialect::Postgres, "\"t\"", &["id"], &["doc"])
        };
        let rows = pg.upsert().rows.unwrap();
        assert_eq!(rows.params_per_row(), 2);
        assert_eq!(
            rows.sql(3),
            "INSERT INTO \"t\" (\"id\",\"doc\") VALUES ($1,$2::jsonb),($3,$4::jsonb),($5,$6::jsonb) \
             ON CONFLICT (\"id\") DO UPDATE SET \"doc\"=EXCLUDED.\"doc\""
        );
        let my = b(Dialect::MySql, "`t`", &["id"], &["name"]);
        assert_eq!(
            my.upsert().rows.unwrap().sql(2),
            "insert into `t`(`id`,`name`) values(?,?),(?,?) on duplicate key update \
             `name`=values(`name`)"
        );
        let lite = b(Dialect::Sqlite, "\"t\"", &[], &["name"]);
        assert_eq!(
            lite.insert().rows.unwrap().sql(2),
            "INSERT INTO \"t\"(\"name\") VALUES(?),(?)"
        );
        assert!(b(Dialect::Sqlite, "\"t\"", &["id"], &["name"])
            .update()
            .rows
            .is_none());
    }

    #[test]
    fn modes_that_need_keys_say_so() {
        let s = b(Dialect::Sqlite, "\"t\"", &[], &["name"]);
        assert!(s
            .write(InsertMode::Upsert)
            .unwrap_err()
            .contains("UPSERT mode requires key"));
        assert!(s.write(InsertMode::Update).is_err());
        assert!(s.delete().is_none());
        assert_eq!(
            s.write(InsertMode::Insert).unwrap().order,
            BindOrder::KeysThenValues
        );
    }
}
