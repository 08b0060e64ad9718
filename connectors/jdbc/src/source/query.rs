//! The SQL text of each mode, as the reference connector builds it: `SELECT * FROM <table>`
//! (or the custom query) + the mode's criterion + ` <query.suffix>`.

use crate::dialect::Dialect;

use super::config::Mode;

/// What a query is built from.
#[derive(Debug, Clone)]
pub struct QueryShape {
    /// The dialect (placeholders: `$n` in PostgreSQL, `?` elsewhere).
    pub dialect: Dialect,
    /// `SELECT * FROM <quoted table>` or the custom query.
    pub base: String,
    /// The incrementing column, as referenced in SQL (qualified in table mode).
    pub incrementing: Option<String>,
    /// The timestamp columns, as referenced in SQL.
    pub timestamps: Vec<String>,
    /// `query.suffix` (empty = none).
    pub suffix: String,
}

/// How a column is referenced: `<quoted table>.<quoted column>` in table mode, the quoted
/// column in query mode.
pub fn column_ref(dialect: Dialect, quote: bool, table: Option<&str>, column: &str) -> String {
    let c = if quote {
        dialect.quote(column)
    } else {
        column.to_owned()
    };
    match table {
        Some(t) => format!("{t}.{c}"),
        None => c,
    }
}

impl QueryShape {
    /// The timestamp expression: the column, or `COALESCE(c1,c2,…)`.
    fn ts(&self) -> String {
        match self.timestamps.as_slice() {
            [one] => one.clone(),
            many => format!("COALESCE({})", many.join(",")),
        }
    }

    /// The statement of `mode`; its parameters are bound in the reference's order
    /// (incrementing: last; timestamp: begin, end; timestamp+incrementing: end, begin, last,
    /// begin).
    pub fn sql(&self, mode: Mode) -> String {
        let mut n = 0;
        let mut p = || {
            n += 1;
            match self.dialect {
                Dialect::Postgres => format!("${n}"),
                _ => "?".to_owned(),
            }
        };
        let inc = self.incrementing.clone().unwrap_or_default();
        let mut sql = self.base.clone();
        match mode {
            Mode::Bulk => {}
            Mode::Incrementing => {
                sql.push_str(&format!(" WHERE {inc} > {} ORDER BY {inc} ASC", p()));
            }
            Mode::Timestamp => {
                let ts = self.ts();
                let (a, b) = (p(), p());
                sql.push_str(&format!(
                    " WHERE {ts} > {a} AND {ts} < {b} ORDER BY {ts} ASC"
                ));
            }
            Mode::TimestampIncrementing => {
                let ts = self.ts();
                let (a, b, c, d) = (p(), p(), p(), p());
                sql.push_str(&format!(
                    " WHERE {ts} < {a} AND (({ts} = {b} AND {inc} > {c}) OR {ts} > {d}) ORDER BY {ts},{inc} ASC"
                ));
            }
        }
        if !self.suffix.is_empty() {
            sql.push(' ');
            sql.push_str(&self.suffix);
        }
        sql
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(d: Dialect, ts: &[&str]) -> QueryShape {
        let t = if d == Dialect::MySql {
            "`db`.`t`"
        } else {
            "\"public\".\"t\""
        };
        QueryShape {
            dialect: d,
            base: format!("SELECT * FROM {t}"),
            incrementing: Some(column_ref(d, true, Some(t), "id")),
            timestamps: ts.iter().map(|c| column_ref(d, true, Some(t), c)).collect(),
            suffix: String::new(),
        }
    }

    #[test]
    fn sql_of_each_mode_in_postgres() {
        let s = shape(Dialect::Postgres, &["ts"]);
        assert_eq!(s.sql(Mode::Bulk), r#"SELECT * FROM "public"."t""#);
        assert_eq!(
            s.sql(Mode::Incrementing),
            r#"SELECT * FROM "public"."t" WHERE "public"."t"."id" > $1 ORDER BY "public"."t"."id" ASC"#
        );
        assert_eq!(
            s.sql(Mode::Timestamp),
            r#"SELECT * FROM "public"."t" WHERE "public"."t"."ts" > $1 AND "public"."t"."ts" < $2 ORDER BY "public"."t"."ts" ASC"#
        );
        assert_eq!(
            s.sql(Mode::TimestampIncrementing),
            r#"SELECT * FROM "public"."t" WHERE "public"."t"."ts" < $1 AND (("public"."t"."ts" = $2 AND "public"."t"."id" > $3) OR "public"."t"."ts" > $4) ORDER BY "public"."t"."ts","public"."t"."id" ASC"#
        );
    }

    #[test]
    fn sql_in_mysql_with_coalesce_and_suffix() {
        let mut s = shape(Dialect::MySql, &["a", "b"]);
        s.suffix = "LIMIT 10".into();
        assert_eq!(
            s.sql(Mode::Timestamp),
            "SELECT * FROM `db`.`t` WHERE COALESCE(`db`.`t`.`a`,`db`.`t`.`b`) > ? AND COALESCE(`db`.`t`.`a`,`db`.`t`.`b`) < ? ORDER BY COALESCE(`db`.`t`.`a`,`db`.`t`.`b`) ASC LIMIT 10"
        );
    }

    #[test]
    fn query_mode_references_bare_columns() {
        let s = QueryShape {
            dialect: Dialect::Sqlite,
            base: "SELECT * FROM v".into(),
            incrementing: Some(column_ref(Dialect::Sqlite, true, None, "id")),
            timestamps: vec![],
            suffix: String::new(),
        };
        assert_eq!(
            s.sql(Mode::Incrementing),
            r#"SELECT * FROM v WHERE "id" > ? ORDER BY "id" ASC"#
        );
        assert_eq!(
            column_ref(Dialect::Postgres, false, Some("t"), "id"),
            "t.id"
        );
    }
}
