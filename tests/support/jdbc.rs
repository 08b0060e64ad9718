//! Shared steps of the JDBC source tests: a fresh source database of its own on each engine
//! (the harness's PostgreSQL and MariaDB, or a SQLite file), run SQL in it with the engine's
//! own client, and the connection keys of a connector reading it.

use std::path::PathBuf;
use std::process::Command;

use super::db::{mariadb, postgres};

/// Which database engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Postgres,
    MariaDb,
    Sqlite,
}

/// A fresh database: a PostgreSQL or MariaDB database, or a SQLite file in a temp dir.
pub struct SourceDb {
    pub engine: Engine,
    /// Database name (PostgreSQL, MariaDB) or file path (SQLite).
    pub name: String,
    _dir: Option<tempfile::TempDir>,
}

impl SourceDb {
    /// A new empty database whose name starts with `prefix`.
    pub fn new(engine: Engine, prefix: &str) -> Self {
        match engine {
            Engine::Postgres => Self {
                engine,
                name: postgres().create_database(prefix),
                _dir: None,
            },
            Engine::MariaDb => Self {
                engine,
                name: mariadb().create_database(prefix),
                _dir: None,
            },
            Engine::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let path: PathBuf = dir.path().join(format!("{prefix}.db"));
                Self {
                    engine,
                    name: path.display().to_string(),
                    _dir: Some(dir),
                }
            }
        }
    }

    /// Runs `sql` with the engine's own client (psql, mariadb, sqlite3); returns its rows.
    pub fn sql(&self, sql: &str) -> String {
        match self.engine {
            Engine::Postgres => postgres().sql(&self.name, sql),
            Engine::MariaDb => mariadb().sql(&self.name, sql),
            Engine::Sqlite => {
                // Waits for the lock while a connector reads the file.
                let out = Command::new("sqlite3")
                    .args(["-cmd", ".timeout 10000"])
                    .arg(&self.name)
                    .arg(sql)
                    .output()
                    .expect("sqlite3 (the SQLite command-line client)");
                assert!(
                    out.status.success(),
                    "sqlite3 failed on {sql:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                String::from_utf8(out.stdout).expect("utf-8 rows")
            }
        }
    }

    /// `connection.url`, `connection.user` and `connection.password` (none for SQLite).
    pub fn connection(&self) -> Vec<(&'static str, String)> {
        let server = match self.engine {
            Engine::Postgres => postgres(),
            Engine::MariaDb => mariadb(),
            Engine::Sqlite => {
                return vec![("connection.url", format!("jdbc:sqlite:{}", self.name))]
            }
        };
        vec![
            ("connection.url", server.jdbc_url(&self.name)),
            ("connection.user", server.user.clone()),
            ("connection.password", server.password.clone()),
        ]
    }

    /// The connection keys as `.properties` lines.
    pub fn connection_properties(&self) -> String {
        self.connection()
            .iter()
            .map(|(k, v)| format!("{k}={v}\n"))
            .collect()
    }

    /// A table's qualified name as the connector reports it (`public.t`, `db.t`, `t`).
    pub fn qualified(&self, table: &str) -> String {
        match self.engine {
            Engine::Postgres => format!("public.{table}"),
            Engine::MariaDb => format!("{}.{table}", self.name),
            Engine::Sqlite => table.to_owned(),
        }
    }
}
