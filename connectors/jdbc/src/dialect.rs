//! The database dialects connect-rs speaks (Kafka Connect JDBC's `DatabaseDialect`s): how
//! identifiers are quoted and what the database is called in messages.

use std::fmt;

/// A database family, chosen from the JDBC URL's subprotocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// PostgreSQL (`jdbc:postgresql:`), `PostgreSqlDatabaseDialect`.
    Postgres,
    /// MySQL or MariaDB (`jdbc:mysql:`, `jdbc:mariadb:`), `MySqlDatabaseDialect`.
    MySql,
    /// SQLite (`jdbc:sqlite:`), `SqliteDatabaseDialect`.
    Sqlite,
}

impl Dialect {
    /// The dialect's class simple name, as `dialect.name` takes it.
    pub fn class_name(self) -> &'static str {
        match self {
            Self::Postgres => "PostgreSqlDatabaseDialect",
            Self::MySql => "MySqlDatabaseDialect",
            Self::Sqlite => "SqliteDatabaseDialect",
        }
    }

    /// The dialect named by `dialect.name` (its class simple name); `None` when unknown.
    pub fn from_class_name(name: &str) -> Option<Self> {
        [Self::Postgres, Self::MySql, Self::Sqlite]
            .into_iter()
            .find(|d| d.class_name() == name)
    }

    /// The character that quotes identifiers.
    pub fn quote_char(self) -> char {
        match self {
            Self::Postgres | Self::Sqlite => '"',
            Self::MySql => '`',
        }
    }

    /// `name` quoted as an identifier (the quote character doubled inside).
    pub fn quote(self, name: &str) -> String {
        let q = self.quote_char();
        let mut out = String::with_capacity(name.len() + 2);
        out.push(q);
        for c in name.chars() {
            if c == q {
                out.push(q);
            }
            out.push(c);
        }
        out.push(q);
        out
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Postgres => "PostgreSQL",
            Self::MySql => "MySQL/MariaDB",
            Self::Sqlite => "SQLite",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_with_the_dialect_character_and_doubles_it_inside() {
        assert_eq!(Dialect::Postgres.quote("a\"b"), "\"a\"\"b\"");
        assert_eq!(Dialect::MySql.quote("a`b"), "`a``b`");
        assert_eq!(Dialect::Sqlite.quote("t"), "\"t\"");
    }

    #[test]
    fn class_names_round_trip() {
        for d in [Dialect::Postgres, Dialect::MySql, Dialect::Sqlite] {
            assert_eq!(Dialect::from_class_name(d.class_name()), Some(d));
        }
        assert_eq!(Dialect::from_class_name("OracleDatabaseDialect"), None);
    }
}
