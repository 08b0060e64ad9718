//! The JDBC source task and connector on a real PostgreSQL (from scripts/db-harness.sh): types
//! to Connect schemas and values, incrementing / timestamp / timestamp+incrementing with
//! resume from stored offsets and updates, listing with schema.pattern and task planning.

use crate::support;

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
use tokio_util::sync::CancellationToken;

use support::db::postgres;

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

/// A fresh database of its own on the harness's PostgreSQL; `S.` in SQL and `tables` names
/// its `public` schema.
struct Pg {
    url: String,
    name: String,
    schema: String,
}

fn pg(prefix: &str, setup: &[&str]) -> Pg {
    let name = postgres().create_database(prefix);
    let pg = Pg {
        url: postgres().jdbc_url(&name),
        name,
        schema: "public".to_owned(),
    };
    pg.exec(setup);
    pg
}

impl Pg {
    fn exec(&self, sqls: &[&str]) {
        for sql in sqls {
            postgres().sql(&self.name, &sql.replace("S.", "public."));
        }
    }

    fn config(&self, pairs: &[(&str, &str)]) -> ConfigMap {
        let mut p: ConfigMap = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        p.insert("connection.url".into(), self.url.clone());
        p.insert("connection.user".into(), postgres().user.clone());
        p.insert("connection.password".into(), postgres().password.clone());
        p.insert("schema.pattern".into(), self.schema.clone());
        if let Some(t) = p.get("tables").cloned() {
            p.insert("tables".into(), t.replace("S.", "\"public\"."));
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
async fn postgres_types_and_incrementing_resume() {
    let pg = pg(
        "jdbc_types",
        &[
            "CREATE TABLE S.everything (id SERIAL PRIMARY KEY, s SMALLINT, i INTEGER NOT NULL DEFAULT 7, \
             b BIGINT, r REAL, d DOUBLE PRECISION, n NUMERIC(10,2), u NUMERIC, ok BOOLEAN, t TEXT, \
             v VARCHAR(5), bt BYTEA, dt DATE, tm TIME, ts TIMESTAMP, tz TIMESTAMPTZ, j JSONB, \
             id2 UUID, arr INT[])",
            "INSERT INTO S.everything (s, b, r, d, n, u, ok, t, v, bt, dt, tm, ts, tz, j, id2, arr) VALUES \
             (-3, 9000000000, 1.5, 2.25, 12.34, 1.5, true, 'hé', 'abc', '\\x0102', '1970-01-11', \
             '01:00:00.25', '1970-01-01 00:00:01.5', '1970-01-01 01:00:00+01', '{\"a\": 1}', \
             '00000000-0000-0000-0000-000000000001', '{1,2}')",
            "INSERT INTO S.everything DEFAULT VALUES",
        ],
    );
    let config = pg.config(&[
        ("mode", "incrementing"),
        ("topic.prefix", "pg-"),
        ("poll.interval.ms", "20"),
        ("tables", "S.\"everything\""),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&config, offsets.clone()).await;
    let rows = take(&mut t, 2, &offsets).await;
    let r = &rows[0];
    assert_eq!(r.record.topic, "pg-everything");
    assert_eq!(
        json!(*r.source_partition),
        json!({"protocol": "1", "table": format!("{}.everything", pg.schema)})
    );
    assert_eq!(json!(r.source_offset), json!({"incrementing": 1}));
    let expect = [
        ("id", Value::Int32(1)),
        ("s", Value::Int16(-3)),
        ("i", Value::Int32(7)),
        ("b", Value::Int64(9_000_000_000)),
        ("r", Value::Float32(1.5)),
        ("d", Value::Float64(2.25)),
        ("n", Value::Bytes(vec![0x04, 0xd2])),
        ("ok", Value::Boolean(true)),
        ("t", Value::String("hé".into())),
        ("v", Value::String("abc".into())),
        ("bt", Value::Bytes(vec![1, 2])),
        ("dt", Value::Int32(10)),
        ("tm", Value::Int32(3_600_250)),
        ("ts", Value::Int64(1500)),
        ("tz", Value::Int64(0)),
        ("j", Value::String("{\"a\": 1}".into())),
        (
            "id2",
            Value::String("00000000-0000-0000-0000-000000000001".into()),
        ),
    ];
    for (name, value) in &expect {
        assert_eq!(field(r, name), value, "{name}");
    }
    let schema = r.record.value_schema.as_ref().unwrap();
    assert_eq!(schema.name.as_deref(), Some("everything"));
    assert!(schema.field("arr").is_none(), "arrays are dropped");
    let f = |n: &str| schema.field(n).unwrap().schema.clone();
    assert!(!f("id").optional && !f("i").optional && f("s").optional);
    assert_eq!(f("n").parameter("scale"), Some("2"));
    assert_eq!(f("n").parameter("connect.decimal.precision"), Some("10"));
    assert_eq!(f("u").parameter("scale"), Some("127"));
    assert_eq!(
        f("tz").name.as_deref(),
        Some("org.apache.kafka.connect.data.Timestamp")
    );
    assert_eq!(
        f("tm").name.as_deref(),
        Some("org.apache.kafka.connect.data.Time")
    );
    assert_eq!(field(&rows[1], "n"), &Value::Null);
    t.stop().await.unwrap();

    pg.exec(&["INSERT INTO S.everything DEFAULT VALUES"]);
    let mut t = task(&config, offsets.clone()).await;
    assert_eq!(ids(&take(&mut t, 1, &offsets).await), [3]);
    nothing_more(&mut t).await;
    t.stop().await.unwrap();

    // numeric.mapping=best_fit: NUMERIC(10,2) becomes FLOAT64.
    let mut c = config.clone();
    c.insert("numeric.mapping".into(), "best_fit".into());
    let mut t = task(&c, Arc::new(Offsets::default())).await;
    let rows = take(&mut t, 3, &Offsets::default()).await;
    assert_eq!(field(&rows[0], "n"), &Value::Float64(12.34));
    t.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_timestamp_modes_see_updates_and_resume() {
    let pg = pg(
        "jdbc_ts",
        &[
            "CREATE TABLE S.a (id INT NOT NULL, v TEXT, modified TIMESTAMP NOT NULL)",
            "CREATE TABLE S.b (id SERIAL PRIMARY KEY, v TEXT, modified TIMESTAMPTZ NOT NULL)",
            "INSERT INTO S.a VALUES (1, 'x', '2020-01-01 00:00:00'), (2, 'y', '2020-01-01 00:00:00'), \
             (3, 'z', '2020-01-01 00:00:00.000001')",
            "INSERT INTO S.b (v, modified) VALUES ('p', '2020-01-01 00:00:00Z'), ('q', '2020-01-01 00:00:00Z')",
        ],
    );
    let ts = pg.config(&[
        ("mode", "timestamp"),
        ("timestamp.column.name", "modified"),
        ("poll.interval.ms", "20"),
        ("tables", "S.\"a\""),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&ts, offsets.clone()).await;
    let first = take(&mut t, 3, &offsets).await;
    assert_eq!(ids(&first), [1, 2, 3]);
    assert_eq!(
        json!(first[2].source_offset),
        json!({"timestamp": 1_577_836_800_000i64, "timestamp_nanos": 1000})
    );
    nothing_more(&mut t).await;
    pg.exec(&["UPDATE S.a SET v = 'y2', modified = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE id = 2"]);
    let upd = take(&mut t, 1, &offsets).await;
    assert_eq!(field(&upd[0], "v"), &Value::String("y2".into()));
    t.stop().await.unwrap();
    let mut t = task(&ts, offsets.clone()).await;
    nothing_more(&mut t).await;
    t.stop().await.unwrap();

    let tsinc = pg.config(&[
        ("mode", "timestamp+incrementing"),
        ("timestamp.column.name", "modified"),
        ("poll.interval.ms", "20"),
        ("batch.max.rows", "1"),
        ("tables", "S.\"b\""),
    ]);
    let offsets = Arc::new(Offsets::default());
    let mut t = task(&tsinc, offsets.clone()).await;
    assert_eq!(ids(&take(&mut t, 1, &offsets).await), [1]);
    t.stop().await.unwrap();
    let mut t = task(&tsinc, offsets.clone()).await;
    assert_eq!(ids(&take(&mut t, 1, &offsets).await), [2]);
    nothing_more(&mut t).await;
    pg.exec(&[
        "UPDATE S.b SET v = 'p2', modified = now() - interval '1 second' WHERE id = 1",
        "INSERT INTO S.b (v, modified) VALUES ('r', now() - interval '1 second')",
    ]);
    let more = take(&mut t, 2, &offsets).await;
    let mut got = ids(&more);
    got.sort_unstable();
    assert_eq!(got, [1, 3]);
    nothing_more(&mut t).await;
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
async fn postgres_listing_planning_and_monitor() {
    let pg = pg(
        "jdbc_plan",
        &[
            "CREATE TABLE S.t1 (id SERIAL PRIMARY KEY)",
            "CREATE TABLE S.t2 (id SERIAL PRIMARY KEY)",
            "CREATE TABLE S.t3 (id SERIAL PRIMARY KEY)",
            "CREATE VIEW S.v AS SELECT * FROM S.t1",
        ],
    );
    let control = Arc::new(Control(AtomicUsize::new(0)));
    let mut c = JdbcSourcePlugin.new_connector();
    c.initialize(ConnectorContext::new(
        "c",
        control.clone(),
        CancellationToken::new(),
    ));
    c.start(&pg.config(&[("mode", "incrementing"), ("table.poll.interval.ms", "50")]))
        .await
        .unwrap();
    let s = &pg.schema;
    let q = |t: &str| format!("\"{s}\".\"{t}\"");
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
    pg.exec(&["CREATE TABLE S.t4 (id SERIAL PRIMARY KEY)"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while control.0.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no reconfiguration requested");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        tables(c.task_configs(2).unwrap()),
        [
            format!("{},{}", q("t1"), q("t2")),
            format!("{},{}", q("t3"), q("t4"))
        ]
    );
    c.stop().await.unwrap();

    // Views only when asked for; include list on the qualified name.
    let mut c = JdbcSourcePlugin.new_connector();
    c.start(&pg.config(&[("mode", "bulk"), ("table.types", "VIEW")]))
        .await
        .unwrap();
    assert_eq!(tables(c.task_configs(5).unwrap()), [q("v")]);
    c.stop().await.unwrap();
    let mut c = JdbcSourcePlugin.new_connector();
    let include = format!("{s}\\.t[23]");
    c.start(&pg.config(&[("mode", "bulk"), ("table.include.list", include.as_str())]))
        .await
        .unwrap();
    assert_eq!(tables(c.task_configs(5).unwrap()), [q("t2"), q("t3")]);
    c.stop().await.unwrap();
}
