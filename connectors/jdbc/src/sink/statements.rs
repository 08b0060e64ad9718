//! The sink's DML text per dialect, as Confluent's dialects write it: INSERT, the upserts
//! (PostgreSQL `ON CONFLICT`, MySQL `ON DUPLICATE KEY UPDATE`, SQLite `INSERT OR REPLACE`),
//! UPDATE and DELETE. Placeholders are `?`, except PostgreSQL's `$1, $2, …` (the wire
//! protocol's own; JDBC rewrites `?` into them).

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

    fn placeholders(&self) -> String {
        (0..self.keys.len() + self.values.len())
            .map(|i| self.ph(i + 1, i))
            .collect::<Vec<_>>()
            .join(",")
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

    /// `INSERT INTO <t> (<cols>) VALUES (…)` (MySQL and SQLite without the spaces).
    pub fn insert(&self) -> Statement {
        let sql = match self.dialect {
            Dialect::Postgres => format!(
                "INSERT INTO {} ({}) VALUES ({})",
                self.table,
                self.cols(&self.all()),
                self.placeholders()
            ),
            Dialect::MySql | Dialect::Sqlite => format!(
                "INSERT INTO {}({}) VALUES({})",
                self.table,
                self.cols(&self.all()),
                self.placeholders()
            ),
        };
        Statement {
            sql,
            order: BindOrder::KeysThenValues,
        }
    }

    /// The dialect's insert-or-overwrite by primary key.
    pub fn upsert(&self) -> Statement {
        let sql = match self.dialect {
            Dialect::Postgres => {
                let head = self.insert().sql;
                let keys = self.cols(self.keys);
                if self.values.is_empty() {
                    format!("{head} ON CONFLICT ({keys}) DO NOTHING")
                } else {
                    let set: Vec<String> = self
                        .values
                        .iter()
                        .map(|c| format!("{0}=EXCLUDED.{0}", self.col(c)))
                        .collect();
                    format!(
                        "{head} ON CONFLICT ({keys}) DO UPDATE SET {}",
                        set.join(",")
                    )
                }
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
                format!(
                    "insert into {}({}) values({}) on duplicate key update {}",
                    self.table,
                    self.cols(&self.all()),
                    self.placeholders(),
                    set.join(",")
                )
            }
            Dialect::Sqlite => format!(
                "INSERT OR REPLACE INTO {}({}) VALUES({})",
                self.table,
                self.cols(&self.all()),
                self.placeholders()
            ),
        };
        Statement {
            sql,
            order: BindOrder::KeysThenValues,
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
