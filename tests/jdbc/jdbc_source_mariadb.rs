//! The JDBC source task and connector on a real MariaDB (from scripts/db-harness.sh; the
//! MySQL dialect): types to Connect schemas and values, incrementing and timestamp modes with
//! resume and updates, listing of the URL's database and task planning.

use crate::support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use connect_api::{
    ConfigMap, OffsetMap, OffsetReader, SourcePlugin, SourceRecord, SourceTask, SourceTaskContext,
    Value,
};
use connect_jdbc::JdbcSourcePlugin;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use support::db::mariadb;

#[derive(Default)]
struct Offsets(Mutex<HashMap<String, OffsetMap>>);

impl Offsets {
    fn store(&self, records: &[SourceRecord]) {
        let mut m = self.0.lock().unwrap();
        for r in records {
            if let Some(o) = &r.source_offset {
                m.insert(json!(*r.source_partition).to_string(), o.clone().into_map());
            }
        }
    }
}

impl OffsetReader for Offsets {
    fn offset(&self, partition: &OffsetMap) -> Option<OffsetMap> {
        self.0
            .lock()
            .unwrap()
            .get(&json!(partition).to_string())
            .cloned()
    }
}

/// A fresh database of its own on the harness's MariaDB; `S.` in SQL and `tables` names it.
struct My {
    url: String,
    name: String,
}

fn my(prefix: &str, setup: &[&str]) -> My {
    let name = mariadb().create_database(prefix);
    let my = My {
        url: mariadb().jdbc_url(&name),
        name,
    };
    my.exec(setup);
    my
}

impl My {
    fn exec(&self, sqls: &[&str]) {
        for sql in sqls {
            mariadb().sql(&self.name, &sql.replace("S.", &format!("{}.", self.name)));
        }
    }

    fn config(&self, pairs: &[(&str, &str)]) -> ConfigMap {
        let mut p: ConfigMap = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        p.insert("connection.url".into(), self.url.clone());
        p.insert("connection.user".into(), mariadb().user.clone());
        p.insert("connection.password".into(), mariadb().password.clone());
        if let Some(t) = p.get("tables").cloned() {
            p.insert(
                "tables".into(),
                t.replace("S.", &format!("`{}`.", self.name)),
            );
        }
        p
    }
}

async fn task(config: &ConfigMap, offsets: Arc<Offsets>) -> Box<dyn SourceTask> {
    let mut t = JdbcSourcePlugin.new_task();
    let ctx = SourceTaskContext {
        connector: "c".into(),
        task: 0,
        offsets,
        cancel: CancellationToken::new(),
    };
    t.start(ctx, config).await.unwrap();
    t
}

async fn take(t: &mut Box<dyn SourceTask>, n: usize, offsets: &Offsets) -> Vec<SourceRecord> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut out = Vec::new();
    while out.len() < n {
        assert!(
            Instant::now() < deadline,
            "only {} of {n} records: {out:?}",
            out.len()
        );
        let batch = t.poll().await.unwrap();
        offsets.store(&batch);
        out.extend(batch);
    }
    assert_eq!(out.len(), n, "more records than expected: {out:?}");
    out
}

async fn nothing_more(t: &mut Box<dyn SourceTask>) {
    let until = Instant::now() + Duration::from_millis(300);
    while Instant::now() < until {
        let batch = t.poll().await.unwrap();
        assert!(batch.is_empty(), "unexpected records: {batch:?}");
    }
}

fn field<'a>(r: &'a SourceRecord, name: &str) -> &'a Value {
    let Value::Struct(s) = &r.record.value else {
        panic!("not a struct: {r:?}")
    };
    s.get(name)
        .unwrap_or_else(|| panic!("no field {name} in {r:?}"))
}

fn ids(records: &[SourceRecord]) -> Vec<i64> {
    records
        .iter()
        .map(|r| match field(r, "id") {
            Value::Int32(x) => i64::from(*x),
            Value::Int64(x) => *x,
            v => panic!("id {v:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_types_incrementing_and_resume() {
    let db = my(
        "jdbc_my_types",
        &[
            "CREATE TABLE S.everything (id INT AUTO_INCREMENT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, \
             s SMALLINT, i INT NOT NULL DEFAULT 7, iu INT UNSIGNED, b BIGINT, f FLOAT, d DOUBLE, \
             n DECIMAL(10,2), ok BOOLEAN, t TEXT, v VARCHAR(5), bl BLOB, dt DATE, tm TIME(3), \
             ts DATETIME(3), tz TIMESTAMP(3) NULL)",
            "INSERT INTO S.everything (ti, tu, s, iu, b, f, d, n, ok, t, v, bl, dt, tm, ts, tz) VALUES \
             (-3, 200, -300, 4000000000, 9000000000, 1.5, 2.25, 12.34, 1, 'hé', 'abc', x'0102', \
             '1970-01-11', '01:00:00.250', '1970-01-01 00:00:01.500', '2000-01-01 00:00:00')",
            "INSERT INTO S.everything () VALUES ()",
        ],
    );
    let config = db.config(&[
        ("mode", "incrementing"),
        ("topic.prefix", "my-"),
        ("poll.interval.ms", "20"),
        ("tables", "S.`everything`"),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&config, offsets.clone()).await;
    let rows = take(&mut t, 2, &offsets).await;
    let r = &rows[0];
    assert_eq!(r.record.topic, "my-everything");
    assert_eq!(
        json!(*r.source_partition),
        json!({"protocol": "1", "table": format!("{}.everything", db.name)})
    );
    let expect = [
        ("id", Value::Int32(1)),
        ("ti", Value::Int8(-3)),
        ("tu", Value::Int16(200)),
        ("s", Value::Int16(-300)),
        ("i", Value::Int32(7)),
        ("iu", Value::Int64(4_000_000_000)),
        ("b", Value::Int64(9_000_000_000)),
        ("f", Value::Float32(1.5)),
        ("d", Value::Float64(2.25)),
        ("n", Value::Bytes(vec![0x04, 0xd2])),
        ("t", Value::String("hé".into())),
        ("v", Value::String("abc".into())),
        ("bl", Value::Bytes(vec![1, 2])),
        ("dt", Value::Int32(10)),
        ("tm", Value::Int32(3_600_250)),
        ("ts", Value::Int64(1500)),
        ("tz", Value::Int64(946_684_800_000)),
    ];
    for (name, value) in &expect {
        assert_eq!(field(r, name), value, "{name}");
    }
    let schema = r.record.value_schema.as_ref().unwrap();
    let f = |n: &str| schema.field(n).unwrap().schema.clone();
    assert!(!f("id").optional && !f("i").optional && f("s").optional);
    assert_eq!(f("n").parameter("scale"), Some("2"));
    assert_eq!(field(&rows[1], "n"), &Value::Null);
    t.stop().await.unwrap();
    db.exec(&["INSERT INTO S.everything () VALUES ()"]);
    let mut t = task(&config, offsets.clone()).await;
    assert_eq!(ids(&take(&mut t, 1, &offsets).await), [3]);
    nothing_more(&mut t).await;
    t.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_timestamp_mode_sees_updates() {
    let db = my(
        "jdbc_my_ts",
        &[
            "CREATE TABLE S.a (id INT NOT NULL, v TEXT, modified DATETIME(3) NOT NULL)",
            "INSERT INTO S.a VALUES (1, 'x', '2020-01-01 00:00:00'), (2, 'y', '2020-01-01 00:00:00.001')",
        ],
    );
    let ts = db.config(&[
        ("mode", "timestamp"),
        ("timestamp.column.name", "modified"),
        ("poll.interval.ms", "20"),
        ("tables", "S.`a`"),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&ts, offsets.clone()).await;
    assert_eq!(ids(&take(&mut t, 2, &offsets).await), [1, 2]);
    nothing_more(&mut t).await;
    db.exec(&[
        "UPDATE S.a SET v = 'x2', modified = UTC_TIMESTAMP(3) - INTERVAL 2 SECOND WHERE id = 1",
    ]);
    let upd = take(&mut t, 1, &offsets).await;
    assert_eq!(field(&upd[0], "v"), &Value::String("x2".into()));
    t.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_listing_and_planning() {
    let db = my(
        "jdbc_my_plan",
        &[
            "CREATE TABLE S.t1 (id INT AUTO_INCREMENT PRIMARY KEY)",
            "CREATE TABLE S.t2 (id INT AUTO_INCREMENT PRIMARY KEY)",
            "CREATE TABLE S.t3 (id INT AUTO_INCREMENT PRIMARY KEY)",
            "CREATE VIEW S.v AS SELECT * FROM S.t1",
        ],
    );
    let mut c = JdbcSourcePlugin.new_connector();
    c.start(&db.config(&[("mode", "incrementing")]))
        .await
        .unwrap();
    let q = |t: &str| format!("`{}`.`{t}`", db.name);
    let tables = |configs: Vec<ConfigMap>| {
        configs
            .iter()
            .map(|c| c["tables"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        tables(c.task_configs(2).unwrap()),
        [format!("{},{}", q("t1"), q("t2")), q("t3")]
    );
    assert_eq!(tables(c.task_configs(5).unwrap()).len(), 3);
    c.stop().await.unwrap();
}
