//! The JDBC connectors against real PostgreSQL, MariaDB and SQLite.
//! One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod db_harness;
mod jdbc_end_to_end;
mod jdbc_sink;
mod jdbc_source;
mod jdbc_source_distributed;
mod jdbc_source_key;
mod jdbc_source_mariadb;
mod jdbc_source_postgres;
