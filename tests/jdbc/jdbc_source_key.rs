//! `key.from.primary.key` (connect-rs's extension to the JDBC source) on the real binary, on
//! PostgreSQL, MariaDB and SQLite: `connect-rs standalone` on the embedded log with
//! `key.converter=JsonConverter` (schemas enabled); the key bytes read back from the topic are
//! the Struct of the table's primary-key columns in key order (not column order), named as the
//! table. A table without a primary key fails the connector naming the table; a custom query is
//! refused by validation.

use crate::support;

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use support::jdbc::{Engine, SourceDb};
use support::rest::{start, wait_running};
use support::*;

const WAIT: Duration = Duration::from_secs(60);

/// The records of `topic` in the embedded log: `(key, value)` per line of `topics read`.
fn read_topic(w: &Workdir, worker: &Path, topic: &str) -> Vec<(String, String)> {
    let out = w
        .command(&[
            "topics",
            "--worker",
            &worker.display().to_string(),
            "read",
            topic,
            "--from-beginning",
            "--timeout-ms",
            "500",
        ])
        .output()
        .expect("run connect-rs topics read");
    stdout(&out)
        .lines()
        .filter_map(|l| {
            // partition, offset, headers, key, value
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.len() == 5).then(|| (cols[3].to_owned(), cols[4].to_owned()))
        })
        .collect()
}

fn keys_from_primary_key(engine: Engine, id_type: &str) {
    let db = SourceDb::new(engine, "jdbc_key");
    db.sql(
        "CREATE TABLE orders (id INTEGER NOT NULL, v VARCHAR(20), region VARCHAR(10) NOT NULL, \
         PRIMARY KEY (region, id))",
    );
    db.sql("INSERT INTO orders (id, v, region) VALUES (1, 'a', 'eu'), (2, NULL, 'us')");
    db.sql("CREATE TABLE nopk (id INTEGER NOT NULL, v VARCHAR(20))");

    let w = Workdir::new();
    let worker = w.worker(
        "key.converter=org.apache.kafka.connect.json.JsonConverter\n\
         key.converter.schemas.enable=true\n\
         value.converter=org.apache.kafka.connect.json.JsonConverter\n\
         value.converter.schemas.enable=false\noffset.flush.interval.ms=100",
    );
    let source = w.write(
        "c.properties",
        format!(
            "name=c\nconnector.class=JdbcSource\ntasks.max=1\n{}mode=incrementing\n\
             incrementing.column.name=id\ntable.whitelist=orders\ntopic.prefix=k-\n\
             poll.interval.ms=100\nkey.from.primary.key=true\n",
            db.connection_properties()
        ),
    );
    let run = start(&w, &[worker.as_path(), source.as_path()]);
    wait_running(&run.client, "c", WAIT);

    let key = |id: i64, region: &str| {
        json!({
            "schema": {"type": "struct", "fields": [
                {"type": "string", "optional": false, "field": "region"},
                {"type": id_type, "optional": false, "field": "id"}
            ], "optional": false, "name": "orders"},
            "payload": {"region": region, "id": id}
        })
        .to_string()
    };
    let mut records = Vec::new();
    wait_for("two keyed records in k-orders", WAIT, || {
        records = read_topic(&w, &worker, "k-orders");
        records.len() >= 2
    });
    assert_eq!(
        records,
        [
            (key(1, "eu"), r#"{"id":1,"v":"a","region":"eu"}"#.to_owned()),
            (
                key(2, "us"),
                r#"{"id":2,"v":null,"region":"us"}"#.to_owned()
            ),
        ]
    );

    // A table without a primary key: the connector fails, naming it.
    let mut bad = serde_json::Map::new();
    for (k, v) in db.connection() {
        bad.insert(k.to_owned(), json!(v));
    }
    for (k, v) in [
        ("connector.class", "JdbcSource"),
        ("mode", "bulk"),
        ("table.whitelist", "nopk"),
        ("topic.prefix", "n-"),
        ("key.from.primary.key", "true"),
    ] {
        bad.insert(k.to_owned(), json!(v));
    }
    let r = run.client.put(
        "/connectors/bad/config",
        &serde_json::Value::Object(bad.clone()),
    );
    assert!(r.status < 300, "{} {}", r.status, r.body);
    let expected = format!(
        "key.from.primary.key=true but table {} has no primary key",
        db.qualified("nopk")
    );
    wait_for("bad to fail naming the table", WAIT, || {
        let s = run.client.get("/connectors/bad/status").json();
        s["connector"]["state"] == "FAILED"
            && s["connector"]["trace"]
                .as_str()
                .is_some_and(|t| t.contains(&expected))
    });

    // A custom query has no primary key: refused by validation.
    bad.remove("table.whitelist");
    bad.insert("name".into(), json!("bad"));
    bad.insert("query".into(), json!("SELECT id FROM orders"));
    let r = run.client.put(
        "/connector-plugins/JdbcSource/config/validate",
        &serde_json::Value::Object(bad),
    );
    let body = r.json();
    let errors: Vec<(String, String)> = body["configs"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .flat_map(|c| {
            let key = c["value"]["name"].as_str().unwrap_or_default().to_owned();
            let errors = c["value"]["errors"].as_array().cloned().unwrap_or_default();
            errors
                .into_iter()
                .map(move |e| (key.clone(), e.as_str().unwrap_or_default().to_owned()))
        })
        .collect();
    assert_eq!(body["error_count"], 1, "{errors:?}");
    assert!(
        errors[0].0 == "key.from.primary.key"
            && errors[0].1.contains("a custom query has no primary key"),
        "{errors:?}"
    );
}

#[test]
fn postgres_keys_from_the_primary_key() {
    keys_from_primary_key(Engine::Postgres, "int32");
}

#[test]
fn mariadb_keys_from_the_primary_key() {
    keys_from_primary_key(Engine::MariaDb, "int32");
}

#[test]
fn sqlite_keys_from_the_primary_key() {
    keys_from_primary_key(Engine::Sqlite, "int64");
}
