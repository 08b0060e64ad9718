//! Real database servers for the JDBC tests (PostgreSQL, MariaDB), run by
//! `scripts/db-harness.sh` from Debian's packages under this process's lease (as the Kafka
//! harness: the servers stop once the test run is over). SQLite needs no server.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbKind {
    Postgres,
    MariaDb,
}

impl DbKind {
    fn name(self) -> &'static str {
        match self {
            Self::Postgres => "postgres",
            Self::MariaDb => "mariadb",
        }
    }
}

/// A running database server of the harness.
#[derive(Debug, Clone)]
pub struct Db {
    pub kind: DbKind,
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
}

/// The harness's PostgreSQL (started on first use). Panics with the reason when it cannot run:
/// a JDBC test without its database fails, it never skips.
pub fn postgres() -> &'static Db {
    static DB: OnceLock<Db> = OnceLock::new();
    DB.get_or_init(|| start(DbKind::Postgres))
}

/// The harness's MariaDB (started on first use).
pub fn mariadb() -> &'static Db {
    static DB: OnceLock<Db> = OnceLock::new();
    DB.get_or_init(|| start(DbKind::MariaDb))
}

/// A number unique within this test process (with the pid, unique across the run).
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join("db-harness.sh")
}

fn start(kind: DbKind) -> Db {
    let out = Command::new("bash")
        .arg(script())
        .args(["start", kind.name()])
        .env("DB_HARNESS_LEASE", super::kafka::lease_holders())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run scripts/db-harness.sh: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "this test needs a real {} server, and `scripts/db-harness.sh start {}` failed with {}:\n{stderr}{stdout}",
        kind.name(),
        kind.name(),
        out.status
    );
    let get = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_owned))
            .unwrap_or_else(|| panic!("db-harness printed no {key}=:\n{stdout}"))
    };
    Db {
        kind,
        host: get("host"),
        port: get("port").parse().expect("port"),
        user: get("user"),
        password: get("password"),
    }
}

impl Db {
    /// The JDBC URL of `database` (credentials not included: `connection.user` /
    /// `connection.password` carry them).
    pub fn jdbc_url(&self, database: &str) -> String {
        let scheme = match self.kind {
            DbKind::Postgres => "postgresql",
            DbKind::MariaDb => "mariadb",
        };
        format!("jdbc:{scheme}://{}:{}/{database}", self.host, self.port)
    }

    /// A new empty database with a unique name starting with `prefix`; returns its name.
    pub fn create_database(&self, prefix: &str) -> String {
        let name = format!(
            "{}_{}_{}",
            prefix.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
            std::process::id(),
            next_id()
        )
        .to_ascii_lowercase();
        self.sql("connect", &format!("CREATE DATABASE {name}"));
        name
    }

    /// Runs `sql` in `database` with the server's own client (psql / mariadb); returns its rows,
    /// one line each, columns tab-separated. Panics with the client's message on error.
    pub fn sql(&self, database: &str, sql: &str) -> String {
        let out = Command::new("bash")
            .arg(script())
            .args(["sql", self.kind.name(), database, sql])
            .stdin(Stdio::null())
            .output()
            .expect("run scripts/db-harness.sh sql");
        assert!(
            out.status.success(),
            "{} failed on {sql:?}: {}{}",
            self.kind.name(),
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8(out.stdout).expect("utf-8 rows")
    }
}
