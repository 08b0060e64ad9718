//! Issue 14's end-to-end acceptance: a PostgreSQL table → JdbcSource → the embedded log
//! (JsonConverter with schemas) → JdbcSink into MariaDB and into SQLite, tables created from the
//! record schemas; every row arrives once with the same values, compared value by value with
//! each database's own client.

use crate::support;

use std::path::Path;

use support::db::{mariadb, postgres};
use support::*;

const N: i64 = 300;

/// The rows of `items`, one line each, columns tab-separated, NULL spelled `NULL`, booleans
/// `1`/`0`, decimals with two places, timestamps to the millisecond.
fn normalize(rows: &str, booleans: (&str, &str)) -> Vec<String> {
    rows.lines()
        .map(|line| {
            line.split('\t')
                .map(|v| match v {
                    "" | "NULL" => "NULL".to_owned(),
                    v if v == booleans.0 => "1".to_owned(),
                    v if v == booleans.1 => "0".to_owned(),
                    v => v.to_owned(),
                })
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect()
}

fn sqlite_rows(file: &Path) -> String {
    let out = std::process::Command::new("sqlite3")
        .args(["-separator", "\t", "-nullvalue", "NULL"])
        .arg(file)
        .arg(
            "SELECT id, name, CASE WHEN price IS NULL THEN NULL ELSE printf('%.2f', price) END, day, substr(replace(at, 'T', ' '), 1, 23), \
             ok, ratio, qty FROM items ORDER BY id",
        )
        .output()
        .expect("sqlite3 (the SQLite command-line client)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn postgres_table_to_topic_to_mariadb_and_sqlite_tables_row_for_row() {
    let pg = postgres();
    let my = mariadb();
    let source_db = pg.create_database("jdbc_e2e_src");
    let sink_db = my.create_database("jdbc_e2e_dst");
    pg.sql(
        &source_db,
        "CREATE TABLE items (id BIGINT PRIMARY KEY, name TEXT, price NUMERIC(10,2), day DATE, \
         at TIMESTAMP(3), ok BOOLEAN, ratio DOUBLE PRECISION, qty INT)",
    );
    // Every fourth row has NULLs; ratios are exact binary fractions so every client prints
    // them the same way.
    pg.sql(
        &source_db,
        &format!(
            "INSERT INTO items SELECT i, \
               CASE WHEN i % 4 = 0 THEN NULL ELSE 'item ' || i || ' ünïcode' END, \
               CASE WHEN i % 4 = 0 THEN NULL ELSE (i * 37 % 100000) / 100.0 - 300 END, \
               DATE '2024-01-01' + i, \
               TIMESTAMP '2024-03-01 12:00:00' + i * INTERVAL '1 second 123 milliseconds', \
               CASE WHEN i % 4 = 0 THEN NULL ELSE i % 2 = 0 END, \
               i / 4.0, \
               i * 1000 \
             FROM generate_series(1, {N}) AS i"
        ),
    );
    let w = Workdir::new();
    let worker = w.worker("offset.flush.interval.ms=100");
    let json = "value.converter=org.apache.kafka.connect.json.JsonConverter\n\
                value.converter.schemas.enable=true\n";
    let source = w.write(
        "source.properties",
        format!(
            "name=pg\nconnector.class=io.confluent.connect.jdbc.JdbcSourceConnector\n\
             tasks.max=1\nconnection.url={}\nconnection.user={}\nconnection.password={}\n\
             table.whitelist=items\nmode=incrementing\nincrementing.column.name=id\n\
             topic.prefix=pg-\npoll.interval.ms=100\n{json}",
            pg.jdbc_url(&source_db),
            pg.user,
            pg.password
        ),
    );
    let sink = |name: &str, url: &str, extra: &str| {
        w.write(
            &format!("{name}.properties"),
            format!(
                "name={name}\nconnector.class=JdbcSink\ntasks.max=1\ntopics=pg-items\n\
                 connection.url={url}\ntable.name.format=items\nauto.create=true\n\
                 insert.mode=upsert\npk.mode=record_value\npk.fields=id\n{extra}{json}"
            ),
        )
    };
    let to_mariadb = sink(
        "my",
        &my.jdbc_url(&sink_db),
        &format!(
            "connection.user={}\nconnection.password={}\n",
            my.user, my.password
        ),
    );
    let sqlite = w.path("items.db");
    let to_sqlite = sink("lite", &format!("jdbc:sqlite:{}", sqlite.display()), "");
    let out = w.run_until_idle("1s", &[&worker, &source, &to_mariadb, &to_sqlite]);
    assert!(out.status.success(), "{}", stderr(&out));

    let expected = normalize(
        &pg.sql(
            &source_db,
            "SELECT id, name, price, day, to_char(at, 'YYYY-MM-DD HH24:MI:SS.MS'), ok, ratio, \
             qty FROM items ORDER BY id",
        ),
        ("t", "f"),
    );
    assert_eq!(expected.len(), N as usize);
    let in_mariadb = normalize(
        &my.sql(
            &sink_db,
            "SELECT id, name, price, day, SUBSTRING(DATE_FORMAT(at, '%Y-%m-%d %H:%i:%s.%f'), 1, 23), \
             ok, ratio, qty FROM items ORDER BY id",
        ),
        ("1", "0"),
    );
    assert_eq!(
        in_mariadb, expected,
        "MariaDB rows differ from PostgreSQL's"
    );
    let in_sqlite = normalize(&sqlite_rows(&sqlite), ("1", "0"));
    // SQLite's REAL prints whole numbers with ".0", PostgreSQL without.
    let expected_sqlite: Vec<String> = expected
        .iter()
        .map(|row| {
            let mut cols: Vec<String> = row.split('\t').map(str::to_owned).collect();
            let ratio: f64 = cols[6].parse().unwrap();
            cols[6] = format!("{ratio:?}");
            cols.join("\t")
        })
        .collect();
    assert_eq!(
        in_sqlite, expected_sqlite,
        "SQLite rows differ from PostgreSQL's"
    );
}
