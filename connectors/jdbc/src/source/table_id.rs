//! Table identities: `schema.table` (PostgreSQL), `database.table` (MySQL/MariaDB) or `table`
//! (SQLite), rendered quoted for SQL and the `tables` task key, unquoted for source
//! partitions, and parsed back from a task's `tables`.

use std::fmt;

use crate::dialect::Dialect;

/// A table: its namespace (PostgreSQL schema, MySQL database; none in SQLite) and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId {
    /// Schema or database; `None` in SQLite.
    pub namespace: Option<String>,
    /// The table name.
    pub name: String,
}

impl TableId {
    /// A table `name` in `namespace`.
    pub fn new(namespace: Option<&str>, name: &str) -> Self {
        Self {
            namespace: namespace.map(str::to_owned),
            name: name.to_owned(),
        }
    }

    /// The quoted qualified name (`"public"."users"`); unquoted when `quote` is false.
    pub fn quoted(&self, dialect: Dialect, quote: bool) -> String {
        let q = |s: &str| {
            if quote {
                dialect.quote(s)
            } else {
                s.to_owned()
            }
        };
        match &self.namespace {
            Some(ns) => format!("{}.{}", q(ns), q(&self.name)),
            None => q(&self.name),
        }
    }

    /// The unquoted qualified name (`public.users`), as source partitions and
    /// `table.include.list` use it.
    pub fn unquoted(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}.{}", self.name),
            None => self.name.clone(),
        }
    }

    /// Parses a task's `tables`: comma-separated qualified names, each part quoted with the
    /// dialect's quote character (doubled inside) or bare.
    ///
    /// # Errors
    /// A message naming the malformed text.
    pub fn parse_list(text: &str, dialect: Dialect) -> Result<Vec<Self>, String> {
        let q = dialect.quote_char();
        let mut tables = Vec::new();
        let mut parts: Vec<String> = Vec::new();
        let mut current = String::new();
        let mut chars = text.chars().peekable();
        let finish = |parts: &mut Vec<String>, tables: &mut Vec<Self>| -> Result<(), String> {
            match parts.len() {
                0 => Ok(()),
                1 => {
                    tables.push(Self::new(None, &parts[0]));
                    parts.clear();
                    Ok(())
                }
                2 => {
                    tables.push(Self::new(Some(&parts[0]), &parts[1]));
                    parts.clear();
                    Ok(())
                }
                _ => Err(format!("{:?} has more than two parts", parts.join("."))),
            }
        };
        while let Some(c) = chars.next() {
            if c == q {
                loop {
                    match chars.next() {
                        Some(c2) if c2 == q => {
                            if chars.peek() == Some(&q) {
                                chars.next();
                                current.push(q);
                            } else {
                                break;
                            }
                        }
                        Some(c2) => current.push(c2),
                        None => return Err(format!("unterminated quoted name in {text:?}")),
                    }
                }
            } else if c == '.' {
                parts.push(std::mem::take(&mut current));
            } else if c == ',' {
                parts.push(std::mem::take(&mut current));
                finish(&mut parts, &mut tables)?;
            } else if !c.is_whitespace() || !current.is_empty() {
                current.push(c);
            }
        }
        if !current.is_empty() || !parts.is_empty() {
            parts.push(current);
            finish(&mut parts, &mut tables)?;
        }
        Ok(tables)
    }
}

impl fmt::Display for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.unquoted())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_per_dialect_and_parses_back() {
        let a = TableId::new(Some("public"), "a\"b");
        let b = TableId::new(Some("public"), "x,y");
        let joined = [&a, &b]
            .iter()
            .map(|t| t.quoted(Dialect::Postgres, true))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(joined, r#""public"."a""b","public"."x,y""#);
        assert_eq!(
            TableId::parse_list(&joined, Dialect::Postgres).unwrap(),
            vec![a, b]
        );
        let m = TableId::new(Some("db"), "t");
        assert_eq!(m.quoted(Dialect::MySql, true), "`db`.`t`");
        assert_eq!(m.unquoted(), "db.t");
        let s = TableId::new(None, "t");
        assert_eq!(s.quoted(Dialect::Sqlite, true), "\"t\"");
        assert_eq!(
            TableId::parse_list("\"t\",\"u\"", Dialect::Sqlite).unwrap(),
            vec![s, TableId::new(None, "u")]
        );
        assert_eq!(TableId::parse_list("", Dialect::Sqlite).unwrap(), vec![]);
        assert!(TableId::parse_list("\"a", Dialect::Sqlite).is_err());
    }
}
