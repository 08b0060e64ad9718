//! The JDBC source on SQLite files: every mode, resume from stored offsets, updates seen in
//! timestamp modes, task planning and the table monitor.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use connect_api::{
    ConfigMap, ConnectError, ConnectorContext, ConnectorControl, OffsetMap, OffsetReader,
    SourcePlugin, SourceRecord, SourceTask, SourceTaskContext, Value,
};
use connect_jdbc::JdbcSourcePlugin;
use serde_json::json;
use sqlx::sqlite::SqlitePool;
use tokio_util::sync::CancellationToken;

/// Offsets as the runtime would hand them: partition JSON → offset.
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

struct Db {
    _dir: tempfile::TempDir,
    url: String,
    pool: SqlitePool,
}

async fn db(setup: &[&str]) -> Db {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("src.db");
    let url = format!("jdbc:sqlite:{}", path.display());
    let pool = SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true),
    )
    .await
    .unwrap();
    let db = Db {
        _dir: dir,
        url,
        pool,
    };
    db.exec(setup).await;
    db
}

impl Db {
    async fn exec(&self, sqls: &[&str]) {
        for sql in sqls {
            sqlx::query(sql).execute(&self.pool).await.unwrap();
        }
    }
}

fn props(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
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

/// Polls until `n` records arrived (failing after 20 s), storing their offsets.
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

/// Polls for a while (three poll intervals) and expects nothing.
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
    s.get(name).unwrap()
}

fn ids(records: &[SourceRecord]) -> Vec<i64> {
    records
        .iter()
        .map(|r| match field(r, "id") {
            Value::Int64(x) => *x,
            v => panic!("id {v:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incrementing_mode_reads_new_rows_and_resumes_from_the_stored_offset() {
    let db = db(&[
        "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, \
         amount DECIMAL(10,2), born DATE, seen DATETIME, flag BOOLEAN, data BLOB)",
        "INSERT INTO users (name, amount, born, seen, flag, data) VALUES \
         ('ann', 12.5, '1970-01-11', '1970-01-01 00:00:01.250', 1, x'0102')",
        "INSERT INTO users (name) VALUES ('bob'), ('cid')",
    ])
    .await;
    let config = props(&[
        ("connection.url", &db.url),
        ("mode", "incrementing"),
        ("topic.prefix", "db-"),
        ("poll.interval.ms", "20"),
        ("tables", "\"users\""),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&config, offsets.clone()).await;
    let first = take(&mut t, 3, &offsets).await;
    assert_eq!(ids(&first), [1, 2, 3]);
    let r = &first[0];
    assert_eq!(r.record.topic, "db-users");
    assert_eq!(
        json!(*r.source_partition),
        json!({"protocol": "1", "table": "users"})
    );
    assert_eq!(json!(r.source_offset), json!({"incrementing": 1}));
    assert_eq!(field(r, "name"), &Value::String("ann".into()));
    assert_eq!(field(r, "amount"), &Value::Bytes(vec![0x04, 0xe2])); // 1250, scale 2
    assert_eq!(field(r, "born"), &Value::Int32(10));
    assert_eq!(field(r, "seen"), &Value::Int64(1250));
    assert_eq!(field(r, "flag"), &Value::Boolean(true));
    assert_eq!(field(r, "data"), &Value::Bytes(vec![1, 2]));
    assert_eq!(field(&first[1], "amount"), &Value::Null);
    let schema = r.record.value_schema.as_ref().unwrap();
    assert_eq!(schema.name.as_deref(), Some("users"));
    let f = |n: &str| schema.field(n).unwrap().schema.clone();
    assert!(!f("id").optional && !f("name").optional && f("amount").optional);
    assert_eq!(f("amount").parameter("scale"), Some("2"));
    assert_eq!(
        f("amount").parameter("connect.decimal.precision"),
        Some("10")
    );
    assert_eq!(
        f("seen").name.as_deref(),
        Some("org.apache.kafka.connect.data.Timestamp")
    );
    assert_eq!(
        f("born").name.as_deref(),
        Some("org.apache.kafka.connect.data.Date")
    );

    db.exec(&["INSERT INTO users (name) VALUES ('dee'), ('eve')"])
        .await;
    assert_eq!(ids(&take(&mut t, 2, &offsets).await), [4, 5]);
    nothing_more(&mut t).await;
    t.stop().await.unwrap();

    // A new task resumes after the stored offset (strictly greater).
    db.exec(&["INSERT INTO users (name) VALUES ('fay')"]).await;
    let mut t = task(&config, offsets.clone()).await;
    assert_eq!(ids(&take(&mut t, 1, &offsets).await), [6]);
    nothing_more(&mut t).await;
    t.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamp_mode_sees_updates_and_resumes() {
    let db = db(&[
        "CREATE TABLE items (id INTEGER NOT NULL, v TEXT, updated TIMESTAMP NOT NULL)",
        "INSERT INTO items VALUES (1, 'a', '2020-01-01 00:00:00.000'), \
         (2, 'b', '2020-01-01 00:00:00.000'), (3, 'c', '2020-01-02 00:00:00.500')",
    ])
    .await;
    let config = props(&[
        ("connection.url", &db.url),
        ("mode", "timestamp"),
        ("timestamp.column.name", "updated"),
        ("poll.interval.ms", "20"),
        ("tables", "\"items\""),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&config, offsets.clone()).await;
    let first = take(&mut t, 3, &offsets).await;
    assert_eq!(ids(&first), [1, 2, 3]);
    // Rows sharing a timestamp carry the prior offset until a later one is seen.
    let ms = |r: &SourceRecord| {
        r.source_offset
            .as_ref()
            .unwrap()
            .get("timestamp")
            .unwrap()
            .as_i64()
            .unwrap()
    };
    assert_eq!(ms(&first[0]), 0);
    assert_eq!(ms(&first[1]), 1_577_836_800_000);
    assert_eq!(ms(&first[2]), 1_577_923_200_500);
    assert_eq!(
        first[2]
            .source_offset
            .as_ref()
            .unwrap()
            .get("timestamp_nanos"),
        Some(json!(500_000_000))
    );
    nothing_more(&mut t).await;
    db.exec(&["UPDATE items SET v = 'b2', updated = strftime('%Y-%m-%d %H:%M:%f', 'now', '-1 seconds') WHERE id = 2"]).await;
    let again = take(&mut t, 1, &offsets).await;
    assert_eq!(ids(&again), [2]);
    assert_eq!(field(&again[0], "v"), &Value::String("b2".into()));
    nothing_more(&mut t).await;
    t.stop().await.unwrap();
    let mut t = task(&config, offsets.clone()).await;
    nothing_more(&mut t).await;
    db.exec(&["UPDATE items SET updated = strftime('%Y-%m-%d %H:%M:%f', 'now', '-1 seconds') WHERE id = 3"]).await;
    assert_eq!(ids(&take(&mut t, 1, &offsets).await), [3]);
    t.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamp_incrementing_mode_resumes_within_one_timestamp() {
    let db = db(&[
        "CREATE TABLE ev (id INTEGER PRIMARY KEY, ts DATETIME NOT NULL, note VARCHAR(10))",
        "INSERT INTO ev VALUES (1, '2021-05-05 10:00:00.000', 'x'), (2, '2021-05-05 10:00:00.000', 'y')",
    ])
    .await;
    let config = props(&[
        ("connection.url", &db.url),
        ("mode", "timestamp+incrementing"),
        ("timestamp.column.name", "ts"),
        ("incrementing.column.name", "id"),
        ("poll.interval.ms", "20"),
        ("batch.max.rows", "1"),
        ("tables", "\"ev\""),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&config, offsets.clone()).await;
    let first = take(&mut t, 1, &offsets).await;
    assert_eq!(ids(&first), [1]);
    assert_eq!(
        json!(first[0].source_offset),
        json!({"incrementing": 1, "timestamp": 1_620_208_800_000i64, "timestamp_nanos": 0})
    );
    t.stop().await.unwrap();
    // Killed after the first row: the second one, with the same timestamp, still comes.
    db.exec(&["INSERT INTO ev VALUES (3, '2021-05-05 10:00:00.000', 'z')"])
        .await;
    let mut t = task(&config, offsets.clone()).await;
    assert_eq!(ids(&take(&mut t, 2, &offsets).await), [2, 3]);
    nothing_more(&mut t).await;
    db.exec(&["UPDATE ev SET ts = strftime('%Y-%m-%d %H:%M:%f', 'now', '-1 seconds'), note = 'u' WHERE id = 1"]).await;
    let upd = take(&mut t, 1, &offsets).await;
    assert_eq!(ids(&upd), [1]);
    assert_eq!(field(&upd[0], "note"), &Value::String("u".into()));
    t.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_mode_and_query_mode() {
    let db = db(&[
        "CREATE TABLE k (id INTEGER NOT NULL, n REAL)",
        "INSERT INTO k VALUES (1, 1.5), (2, NULL)",
    ])
    .await;
    let offsets = Arc::new(Offsets::default());
    let config = props(&[
        ("connection.url", &db.url),
        ("mode", "bulk"),
        ("poll.interval.ms", "20"),
        ("tables", "\"k\""),
    ]);
    let mut t = task(&config, offsets.clone()).await;
    let all = take(&mut t, 4, &offsets).await;
    assert_eq!(ids(&all), [1, 2, 1, 2]);
    assert_eq!(json!(*all[0].source_partition), json!({"table": "k"}));
    assert_eq!(all[0].source_offset, None);
    t.stop().await.unwrap();

    let config = props(&[
        ("connection.url", &db.url),
        ("mode", "incrementing"),
        ("query", "SELECT id, n * 2 AS doubled FROM k"),
        ("incrementing.column.name", "id"),
        ("topic.prefix", "q"),
        ("poll.interval.ms", "20"),
    ]);
    let mut t = task(&config, offsets.clone()).await;
    let rows = take(&mut t, 2, &offsets).await;
    assert_eq!(rows[0].record.topic, "q");
    assert_eq!(json!(*rows[0].source_partition), json!({"query": "query"}));
    assert_eq!(rows[0].record.value_schema.as_ref().unwrap().name, None);
    assert_eq!(json!(rows[1].source_offset), json!({"incrementing": 2}));
    t.stop().await.unwrap();
}

struct Control(AtomicUsize);

impl ConnectorControl for Control {
    fn request_task_reconfiguration(&self, _connector: &str) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    fn raise_error(&self, _connector: &str, error: ConnectError) {
        panic!("raised: {error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_tasks_and_asks_for_a_reconfiguration_when_a_table_appears() {
    let db = db(&[
        "CREATE TABLE a (id INTEGER PRIMARY KEY)",
        "CREATE TABLE b (id INTEGER PRIMARY KEY)",
        "CREATE TABLE c (id INTEGER PRIMARY KEY)",
    ])
    .await;
    let control = Arc::new(Control(AtomicUsize::new(0)));
    let mut c = JdbcSourcePlugin.new_connector();
    c.initialize(ConnectorContext::new(
        "c",
        control.clone(),
        CancellationToken::new(),
    ));
    c.start(&props(&[
        ("connection.url", &db.url),
        ("mode", "incrementing"),
        ("table.poll.interval.ms", "50"),
    ]))
    .await
    .unwrap();
    let tables = |configs: Vec<ConfigMap>| {
        configs
            .iter()
            .map(|c| c["tables"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(tables(c.task_configs(2).unwrap()), ["\"a\",\"b\"", "\"c\""]);
    assert_eq!(
        tables(c.task_configs(5).unwrap()),
        ["\"a\"", "\"b\"", "\"c\""]
    );
    assert_eq!(control.0.load(Ordering::SeqCst), 0);
    db.exec(&["CREATE TABLE d (id INTEGER PRIMARY KEY)"]).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while control.0.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no reconfiguration requested");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        tables(c.task_configs(2).unwrap()),
        ["\"a\",\"b\"", "\"c\",\"d\""]
    );
    c.stop().await.unwrap();
}
