//! Listing the tables of a database (what JDBC's `DatabaseMetaData.getTables` gives the
//! reference connector), and filtering them with the table filters of the configuration.

use sqlx::Row;

use crate::connection::Database;
use crate::dialect::Dialect;

use super::config::{SourceSettings, TableFilter};
use super::table_id::TableId;

/// Lists the tables of `db` of the configured types (and schema pattern, in PostgreSQL), in
/// metadata order: by type, then namespace, then name.
///
/// # Errors
/// The driver's error, when the catalog query fails.
pub async fn list_tables(
    db: &Database,
    settings: &SourceSettings,
) -> Result<Vec<TableId>, sqlx::Error> {
    let types = &settings.table_types;
    match db {
        Database::Postgres(pool) => {
            // pg_class.relkind of JDBC's table types; system schemas are "SYSTEM TABLE".
            let kinds: Vec<String> = types
                .iter()
                .filter_map(|t| match t.as_str() {
                    "TABLE" => Some("r"),
                    "VIEW" => Some("v"),
                    "MATERIALIZED VIEW" => Some("m"),
                    "PARTITIONED TABLE" => Some("p"),
                    "FOREIGN TABLE" => Some("f"),
                    _ => None,
                })
                .map(str::to_owned)
                .collect();
            let rows = sqlx::query(
                "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c \
                 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                 WHERE c.relkind::text = ANY($1) \
                 AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' \
                 AND ($2::text IS NULL OR n.nspname LIKE $2) \
                 ORDER BY array_position($1, c.relkind::text), n.nspname, c.relname",
            )
            .bind(&kinds)
            .bind(settings.schema_pattern.as_deref())
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| Ok(TableId::new(Some(r.try_get(0)?), r.try_get(1)?)))
                .collect()
        }
        Database::MySql(pool) => {
            let kinds: Vec<&str> = types
                .iter()
                .filter_map(|t| match t.as_str() {
                    "TABLE" => Some("BASE TABLE"),
                    "VIEW" => Some("VIEW"),
                    _ => None,
                })
                .collect();
            let rows = sqlx::query(
                "SELECT CAST(table_schema AS CHAR), CAST(table_name AS CHAR), CAST(table_type AS CHAR) \
                 FROM information_schema.tables WHERE table_schema = DATABASE() \
                 ORDER BY table_type, table_name",
            )
            .fetch_all(pool)
            .await?;
            let mut out = Vec::new();
            for r in &rows {
                let kind: String = r.try_get(2)?;
                if kinds.contains(&kind.as_str()) {
                    out.push(TableId::new(Some(r.try_get(0)?), r.try_get(1)?));
                }
            }
            Ok(out)
        }
        Database::Sqlite(pool) => {
            let rows = sqlx::query(
                "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') \
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name",
            )
            .fetch_all(pool)
            .await?;
            let mut out = Vec::new();
            for r in &rows {
                let kind: String = r.try_get(0)?;
                let wanted = match kind.as_str() {
                    "table" => types.iter().any(|t| t == "TABLE"),
                    _ => types.iter().any(|t| t == "VIEW"),
                };
                if wanted {
                    out.push(TableId::new(None, r.try_get(1)?));
                }
            }
            Ok(out)
        }
    }
}

/// Whether `entry` of `table.whitelist`/`table.blacklist` names `table`: its unqualified
/// name, its unquoted qualified name or its quoted qualified name.
fn names(entry: &str, table: &TableId, dialect: Dialect) -> bool {
    entry == table.name || entry == table.unquoted() || entry == table.quoted(dialect, true)
}

/// The tables of `all` the filter keeps, in the same order.
pub fn filter_tables(all: Vec<TableId>, filter: &TableFilter, dialect: Dialect) -> Vec<TableId> {
    all.into_iter()
        .filter(|t| match filter {
            TableFilter::All => true,
            TableFilter::Whitelist(l) => l.iter().any(|e| names(e, t, dialect)),
            TableFilter::Blacklist(l) => !l.iter().any(|e| names(e, t, dialect)),
            TableFilter::Regex { include, exclude } => {
                let fqn = t.unquoted();
                include.iter().any(|r| r.is_match(&fqn))
                    && !exclude.iter().any(|r| r.is_match(&fqn))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn ids(names: &[&str]) -> Vec<TableId> {
        names
            .iter()
            .map(|n| TableId::new(Some("public"), n))
            .collect()
    }

    #[test]
    fn filters_by_list_and_regex() {
        let all = ids(&["a", "b", "c"]);
        let d = Dialect::Postgres;
        let w = TableFilter::Whitelist(vec!["a".into(), "public.c".into()]);
        assert_eq!(filter_tables(all.clone(), &w, d), ids(&["a", "c"]));
        let w = TableFilter::Whitelist(vec!["\"public\".\"b\"".into()]);
        assert_eq!(filter_tables(all.clone(), &w, d), ids(&["b"]));
        let b = TableFilter::Blacklist(vec!["b".into()]);
        assert_eq!(filter_tables(all.clone(), &b, d), ids(&["a", "c"]));
        let r = TableFilter::Regex {
            include: vec![Regex::new("^(?:public\\.[ab])$").unwrap()],
            exclude: vec![Regex::new("^(?:public\\.b)$").unwrap()],
        };
        assert_eq!(filter_tables(all.clone(), &r, d), ids(&["a"]));
        // Full match: "a" alone does not match "public.a".
        let r = TableFilter::Regex {
            include: vec![Regex::new("^(?:a)$").unwrap()],
            exclude: vec![],
        };
        assert!(filter_tables(all, &r, d).is_empty());
    }

    #[tokio::test]
    async fn lists_sqlite_tables_without_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("jdbc:sqlite:{}", dir.path().join("l.db").display());
        let mut p = connect_api::ConfigMap::new();
        p.insert("connection.url".into(), url);
        p.insert("mode".into(), "bulk".into());
        let settings = SourceSettings::parse(&p).unwrap();
        let db = Database::connect(&settings.connection, 1, std::time::Duration::from_secs(5))
            .await
            .unwrap();
        let Database::Sqlite(pool) = &db else {
            panic!()
        };
        for sql in [
            "CREATE TABLE b (id INTEGER PRIMARY KEY AUTOINCREMENT)",
            "CREATE TABLE a (id INTEGER)",
            "CREATE VIEW v AS SELECT * FROM a",
        ] {
            sqlx::query(sql).execute(pool).await.unwrap();
        }
        // AUTOINCREMENT creates sqlite_sequence, which is skipped.
        let tables = list_tables(&db, &settings).await.unwrap();
        assert_eq!(
            tables,
            vec![TableId::new(None, "a"), TableId::new(None, "b")]
        );
    }
}
