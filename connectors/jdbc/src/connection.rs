//! An open database: one sqlx pool per connector task, of the dialect's driver. A pool of one
//! connection, so a broken connection is replaced on the next use.

use std::time::Duration;

use sqlx::mysql::{MySqlConnectOptions, MySqlPool, MySqlPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use thiserror::Error;

use crate::dialect::Dialect;
use crate::url::{ConnectionSpec, Target};

/// A pool of connections to one database.
#[derive(Debug, Clone)]
pub enum Database {
    /// PostgreSQL.
    Postgres(PgPool),
    /// MySQL or MariaDB.
    MySql(MySqlPool),
    /// SQLite.
    Sqlite(SqlitePool),
}

/// A database that could not be reached.
#[derive(Debug, Error)]
#[error("could not connect to {dialect} at {target}: {source}")]
pub struct ConnectError {
    /// The database family.
    pub dialect: Dialect,
    /// Where (host:port/database or file), never with the password.
    pub target: String,
    /// The driver's reason.
    #[source]
    pub source: sqlx::Error,
}

impl Database {
    /// Opens a pool of at most `max_connections` to `spec` and checks that it answers; the
    /// driver retries a refused connection for up to `timeout` (the connectors' own
    /// `connection.attempts` / `connection.backoff.ms` come on top).
    ///
    /// # Errors
    /// When the database cannot be reached or refuses the credentials.
    pub async fn connect(
        spec: &ConnectionSpec,
        max_connections: u32,
        timeout: Duration,
    ) -> Result<Self, ConnectError> {
        let fail = |source| ConnectError {
            dialect: spec.dialect,
            target: describe(&spec.target),
            source,
        };
        let db = match (&spec.target, spec.dialect) {
            (
                Target::Server {
                    host,
                    port,
                    database,
                },
                Dialect::Postgres,
            ) => {
                let mut o = PgConnectOptions::new_without_pgpass()
                    .host(host)
                    .port(*port);
                if let Some(d) = database {
                    o = o.database(d);
                }
                if let Some(u) = &spec.user {
                    o = o.username(u);
                }
                if let Some(p) = &spec.password {
                    o = o.password(p);
                }
                let pool = PgPoolOptions::new()
                    .max_connections(max_connections)
                    .acquire_timeout(timeout)
                    .connect_with(o)
                    .await
                    .map_err(fail)?;
                Self::Postgres(pool)
            }
            (
                Target::Server {
                    host,
                    port,
                    database,
                },
                _,
            ) => {
                let mut o = MySqlConnectOptions::new().host(host).port(*port);
                if let Some(d) = database {
                    o = o.database(d);
                }
                if let Some(u) = &spec.user {
                    o = o.username(u);
                }
                if let Some(p) = &spec.password {
                    o = o.password(p);
                }
                let pool = MySqlPoolOptions::new()
                    .max_connections(max_connections)
                    .acquire_timeout(timeout)
                    .connect_with(o)
                    .await
                    .map_err(fail)?;
                Self::MySql(pool)
            }
            (Target::SqliteFile(path), _) => {
                let o = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .busy_timeout(timeout);
                let pool = SqlitePoolOptions::new()
                    .max_connections(max_connections)
                    .acquire_timeout(timeout)
                    .connect_with(o)
                    .await
                    .map_err(fail)?;
                Self::Sqlite(pool)
            }
            (Target::SqliteMemory, _) => {
                let o = SqliteConnectOptions::new().in_memory(true);
                // One connection: each in-memory connection is its own database.
                let pool = SqlitePoolOptions::new()
                    .max_connections(1)
                    .acquire_timeout(timeout)
                    .connect_with(o)
                    .await
                    .map_err(fail)?;
                Self::Sqlite(pool)
            }
        };
        Ok(db)
    }

    /// The database family.
    pub fn dialect(&self) -> Dialect {
        match self {
            Self::Postgres(_) => Dialect::Postgres,
            Self::MySql(_) => Dialect::MySql,
            Self::Sqlite(_) => Dialect::Sqlite,
        }
    }

    /// Closes every connection.
    pub async fn close(&self) {
        match self {
            Self::Postgres(p) => p.close().await,
            Self::MySql(p) => p.close().await,
            Self::Sqlite(p) => p.close().await,
        }
    }
}

/// `host:port/database` or the file, for messages.
fn describe(target: &Target) -> String {
    match target {
        Target::Server {
            host,
            port,
            database,
        } => format!("{host}:{port}/{}", database.as_deref().unwrap_or("")),
        Target::SqliteFile(p) => p.display().to_string(),
        Target::SqliteMemory => ":memory:".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opens_an_sqlite_file_and_creates_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let url = format!("jdbc:sqlite:{}", path.display());
        let spec = ConnectionSpec::parse(&url, None, None).unwrap();
        let db = Database::connect(&spec, 1, Duration::from_secs(5))
            .await
            .unwrap();
        let Database::Sqlite(pool) = &db else {
            panic!("not sqlite: {db:?}");
        };
        sqlx::query("CREATE TABLE t (id INTEGER)")
            .execute(pool)
            .await
            .unwrap();
        db.close().await;
        assert!(path.exists());
    }

    #[tokio::test]
    async fn names_the_server_it_could_not_reach() {
        // Port 1 on loopback: nothing listens there.
        let spec = ConnectionSpec::parse("jdbc:postgresql://127.0.0.1:1/db", None, None).unwrap();
        let e = Database::connect(&spec, 1, Duration::from_millis(300))
            .await
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("could not connect to PostgreSQL at 127.0.0.1:1/db: "),
            "{e}"
        );
    }
}
