//! Destination table names: `table.name.format` with `${topic}` replaced, read as a dotted
//! identifier (`schema.table`), and written quoted or not per `quote.sql.identifiers`.

use std::fmt;

use crate::dialect::Dialect;
use crate::sink::config::QuoteMethod;

/// A table, possibly qualified by a schema (PostgreSQL schema, MySQL database, SQLite attached
/// database).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableId {
    /// The schema, if the name had one.
    pub schema: Option<String>,
    /// The table name.
    pub table: String,
}

impl TableId {
    /// The table for `topic` under `format`: `${topic}` replaced, then split at the last dot
    /// (`a.b` is table `b` in schema `a`). PostgreSQL without quoting folds names to lower case,
    /// as the database does.
    pub fn for_topic(format: &str, topic: &str, dialect: Dialect, quote: QuoteMethod) -> Self {
        let mut name = format.replace("${topic}", topic);
        if dialect == Dialect::Postgres && quote == QuoteMethod::Never {
            name = name.to_lowercase();
        }
        match name.rsplit_once('.') {
            Some((schema, table)) if !schema.is_empty() && !table.is_empty() => Self {
                schema: Some(schema.to_owned()),
                table: table.to_owned(),
            },
            _ => Self {
                schema: None,
                table: name,
            },
        }
    }

    /// The name as SQL text.
    pub fn sql(&self, dialect: Dialect, quote: QuoteMethod) -> String {
        let one = |s: &str| ident(s, dialect, quote);
        match &self.schema {
            Some(s) => format!("{}.{}", one(s), one(&self.table)),
            None => one(&self.table),
        }
    }
}

impl fmt::Display for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.schema {
            Some(s) => write!(f, "{s}.{}", self.table),
            None => f.write_str(&self.table),
        }
    }
}

/// A column or table name as SQL text.
pub fn ident(name: &str, dialect: Dialect, quote: QuoteMethod) -> String {
    match quote {
        QuoteMethod::Always => dialect.quote(name),
        QuoteMethod::Never => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_placeholder_and_dotted_names() {
        let t = TableId::for_topic(
            "kafka_${topic}",
            "orders",
            Dialect::Postgres,
            QuoteMethod::Always,
        );
        assert_eq!(
            t.sql(Dialect::Postgres, QuoteMethod::Always),
            "\"kafka_orders\""
        );
        let t = TableId::for_topic(
            "${topic}",
            "shop.Orders",
            Dialect::MySql,
            QuoteMethod::Always,
        );
        assert_eq!(t.schema.as_deref(), Some("shop"));
        assert_eq!(
            t.sql(Dialect::MySql, QuoteMethod::Always),
            "`shop`.`Orders`"
        );
        let t = TableId::for_topic("${topic}", "Orders", Dialect::Postgres, QuoteMethod::Never);
        assert_eq!(t.sql(Dialect::Postgres, QuoteMethod::Never), "orders");
    }
}
