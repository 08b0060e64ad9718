//! The JDBC tests' database servers: `scripts/db-harness.sh` installs (when missing) and starts
//! real PostgreSQL and MariaDB servers, and each test gets a database of its own.

use crate::support;

use support::db::{self, Db};

fn round_trip(db: &Db) {
    let name = db.create_database("harness");
    db.sql(&name, "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20))");
    db.sql(&name, "INSERT INTO t VALUES (1, 'one'), (2, 'two')");
    assert_eq!(
        db.sql(&name, "SELECT id, s FROM t ORDER BY id"),
        "1\tone\n2\ttwo\n"
    );
    // A second database is a different one.
    let other = db.create_database("harness");
    assert_ne!(other, name);
    db.sql(&other, "CREATE TABLE t (id INT)");
    assert_eq!(db.sql(&other, "SELECT COUNT(*) FROM t"), "0\n");
}

#[test]
fn postgres_serves_its_own_database_per_test() {
    round_trip(db::postgres());
}

#[test]
fn mariadb_serves_its_own_database_per_test() {
    round_trip(db::mariadb());
}

/// Debezium's PostgreSQL connector needs logical decoding (pgoutput) and a user allowed to
/// replicate and to create publications: the harness's server provides both.
#[test]
fn postgres_allows_logical_replication() {
    let db = db::postgres();
    let name = db.create_database("logical");
    assert_eq!(db.sql(&name, "SHOW wal_level"), "logical\n");
    db.sql(&name, "CREATE TABLE t (id INT PRIMARY KEY)");
    db.sql(&name, "CREATE PUBLICATION p FOR TABLE t");
    let slot = format!("{name}_slot");
    db.sql(
        &name,
        &format!("SELECT 1 FROM pg_create_logical_replication_slot('{slot}', 'pgoutput')"),
    );
    // The harness runs with synchronous_commit=off for speed, and a slot decodes only flushed
    // WAL: this commit waits for its flush, so the change is there to decode.
    db.sql(
        &name,
        "SET synchronous_commit = on; INSERT INTO t VALUES (1)",
    );
    let changes = db.sql(
        &name,
        &format!(
            "SELECT count(*) FROM pg_logical_slot_get_binary_changes('{slot}', NULL, NULL, \
             'proto_version', '1', 'publication_names', 'p')"
        ),
    );
    assert_ne!(changes, "0\n", "the slot decoded no change of the insert");
    db.sql(&name, &format!("SELECT pg_drop_replication_slot('{slot}')"));
}
