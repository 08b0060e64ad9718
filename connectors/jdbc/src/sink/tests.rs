//! Task-level scenarios of the JDBC sink against a real database: each takes a JDBC URL, so
//! the same scenario runs on SQLite files here and on PostgreSQL / MariaDB where a server is
//! available (see `server_tests`).

use std::time::Duration;

use connect_api::{
    logical, ConfigMap, ConnectRecord, Schema, SchemaBuilder, SchemaRef, SchemaType, SinkRecord,
    SinkTask, SinkTaskContext, Struct, TimestampType, Value,
};

use crate::connection::Database;
use crate::dialect::Dialect;
use crate::sink::task::JdbcSinkTask;
use crate::url::ConnectionSpec;

/// A database the scenarios write to and read back from.
pub(crate) struct TestDb {
    pub url: String,
    pub db: Database,
}

impl TestDb {
    pub async fn open(url: &str) -> Self {
        let spec = ConnectionSpec::parse(url, None, None).unwrap();
        let db = Database::connect(&spec, 2, Duration::from_secs(10))
            .await
            .unwrap();
        Self {
            url: url.to_owned(),
            db,
        }
    }

    pub fn dialect(&self) -> Dialect {
        self.db.dialect()
    }

    pub async fn exec(&self, sql: &str) {
        crate::sink::metadata::execute_ddl(&self.db, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// `SELECT <cols> FROM <table> ORDER BY <order>`, every value as text (None for NULL).
    pub async fn rows(&self, table: &str, cols: &[&str], order: &str) -> Vec<Vec<Option<String>>> {
        use sqlx::Row;
        let d = self.dialect();
        let cast = |c: &str| {
            if let Some(c) = c.strip_prefix("hex:") {
                let q = d.quote(c);
                return match d {
                    Dialect::Postgres => format!("upper(encode({q}, 'hex'))"),
                    Dialect::MySql | Dialect::Sqlite => format!("hex({q})"),
                };
            }
            let q = d.quote(c);
            match d {
                Dialect::Postgres => format!("{q}::text"),
                Dialect::MySql => format!("CAST({q} AS CHAR)"),
                Dialect::Sqlite => format!("CAST({q} AS TEXT)"),
            }
        };
        let sql = format!(
            "SELECT {} FROM {t} ORDER BY {t}.{}",
            cols.iter().map(|c| cast(c)).collect::<Vec<_>>().join(", "),
            d.quote(order),
            t = d.quote(table),
        );
        macro_rules! fetch {
            ($p:expr) => {
                sqlx::query(&sql)
                    .fetch_all($p)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"))
                    .iter()
                    .map(|r| {
                        (0..cols.len())
                            .map(|i| r.try_get::<Option<String>, _>(i).unwrap())
                            .collect()
                    })
                    .collect()
            };
        }
        match &self.db {
            Database::Postgres(p) => fetch!(p),
            Database::MySql(p) => fetch!(p),
            Database::Sqlite(p) => fetch!(p),
        }
    }

    /// Column name -> lower-case type name and nullability, as the database reports them.
    pub async fn columns(&self, table: &str) -> Vec<(String, String, bool)> {
        let id = crate::sink::table_id::TableId {
            schema: None,
            table: table.to_owned(),
        };
        crate::sink::metadata::describe(&self.db, &id)
            .await
            .unwrap()
            .unwrap_or_default()
            .columns
            .into_iter()
            .map(|c| (c.name, c.type_name, c.nullable))
            .collect()
    }

    pub async fn drop_table(&self, table: &str) {
        self.exec(&format!(
            "DROP TABLE IF EXISTS {}",
            self.dialect().quote(table)
        ))
        .await;
    }
}

pub(crate) fn s(v: &str) -> Option<String> {
    Some(v.to_owned())
}

fn ctx() -> SinkTaskContext {
    SinkTaskContext {
        connector: "jdbc-sink".into(),
        task: 0,
        cancel: Default::default(),
        exact_by_default: false,
        commit_request: Default::default(),
        errant_records: Default::default(),
        consumer: Default::default(),
    }
}

pub(crate) async fn task(url: &str, extra: &[(&str, &str)]) -> JdbcSinkTask {
    let mut props: ConfigMap = [
        ("connection.url".to_owned(), url.to_owned()),
        ("max.retries".to_owned(), "0".to_owned()),
    ]
    .into();
    for (k, v) in extra {
        props.insert((*k).to_owned(), (*v).to_owned());
    }
    let mut t = JdbcSinkTask::new();
    t.start(ctx(), &props).await.unwrap();
    t
}

pub(crate) fn record(
    topic: &str,
    offset: i64,
    key: Option<(SchemaRef, Value)>,
    value: Option<(SchemaRef, Value)>,
) -> SinkRecord {
    let (key_schema, key) = key.map_or((None, Value::Null), |(s, v)| (Some(s), v));
    let (value_schema, value) = value.map_or((None, Value::Null), |(s, v)| (Some(s), v));
    SinkRecord {
        record: ConnectRecord {
            topic: topic.into(),
            kafka_partition: Some(0),
            key_schema,
            key,
            value_schema,
            value,
            timestamp: Some(1_700_000_000_000),
            ..Default::default()
        },
        kafka_offset: offset,
        timestamp_type: TimestampType::CreateTime,
    }
}

/// A value schema with every supported type.
pub(crate) fn wide_schema() -> SchemaRef {
    SchemaBuilder::struct_()
        .name("row")
        .field("id", Schema::required(SchemaType::Int64))
        .field("name", Schema::optional(SchemaType::String))
        .field("small", Schema::optional(SchemaType::Int16))
        .field("tiny", Schema::optional(SchemaType::Int8))
        .field("n", Schema::optional(SchemaType::Int32))
        .field("ratio", Schema::optional(SchemaType::Float64))
        .field("flag", Schema::optional(SchemaType::Boolean))
        .field("blob", Schema::optional(SchemaType::Bytes))
        .field("price", logical::decimal(2).optional().build())
        .field("day", logical::date().optional().build())
        .field("tod", logical::time().optional().build())
        .field("at", logical::timestamp().optional().build())
        .build()
}

pub(crate) fn wide(id: i64, name: Option<&str>) -> (SchemaRef, Value) {
    let schema = wide_schema();
    let st = Struct::from_values(
        schema.clone(),
        vec![
            Value::Int64(id),
            name.map_or(Value::Null, Value::from),
            Value::Int16(-3),
            Value::Int8(7),
            Value::Int32(i32::try_from(id).unwrap() * 10),
            Value::Float64(0.5),
            Value::Boolean(id % 2 == 0),
            Value::Bytes(vec![0, 1, 0xff]),
            // 12345 unscaled, scale 2: 123.45
            Value::Bytes(vec![0x30, 0x39]),
            Value::Int32(19_723),            // 2024-01-01
            Value::Int32(3_723_004),         // 01:02:03.004
            Value::Int64(1_704_067_200_123), // 2024-01-01 00:00:00.123 UTC
        ],
    )
    .unwrap();
    (schema, Value::Struct(st))
}

fn id_key(id: i64) -> (SchemaRef, Value) {
    let schema = SchemaBuilder::struct_()
        .field("id", Schema::required(SchemaType::Int64))
        .build();
    let st = Struct::from_values(schema.clone(), vec![Value::Int64(id)]).unwrap();
    (schema, Value::Struct(st))
}

/// auto.create makes a table whose columns and types follow the record schema; inserted values
/// read back value by value.
pub(crate) async fn scenario_insert_auto_create(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("pk.mode", "record_value"),
            ("pk.fields", "id"),
        ],
    )
    .await;
    t.put(vec![
        record(table, 0, None, Some(wide(1, Some("one")))),
        record(table, 1, None, Some(wide(2, None))),
    ])
    .await
    .unwrap();
    t.stop().await.unwrap();
    let cols = db.columns(table).await;
    let names: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "id", "name", "small", "tiny", "n", "ratio", "flag", "blob", "price", "day", "tod",
            "at"
        ]
    );
    let types: Vec<&str> = cols.iter().map(|c| c.1.as_str()).collect();
    let expected: &[&str] = match db.dialect() {
        Dialect::Postgres => &[
            "bigint",
            "text",
            "smallint",
            "smallint",
            "integer",
            "double precision",
            "boolean",
            "bytea",
            "numeric",
            "date",
            "time without time zone",
            "timestamp without time zone",
        ],
        Dialect::MySql => &[
            "bigint",
            "text",
            "smallint",
            "tinyint",
            "int",
            "double",
            "tinyint",
            "varbinary",
            "decimal",
            "date",
            "time",
            "datetime",
        ],
        Dialect::Sqlite => &[
            "bigint", "text", "smallint", "integer", "int", "real", "integer", "blob", "numeric",
            "numeric", "numeric", "numeric",
        ],
    };
    if db.dialect() != Dialect::Sqlite {
        assert_eq!(types, expected);
    } else {
        // SQLite keeps the declared type names of the dialect's mapping.
        assert_eq!(
            types,
            [
                "integer", "text", "integer", "integer", "integer", "real", "integer", "blob",
                "numeric", "numeric", "numeric", "numeric"
            ]
        );
    }
    // id is the key: NOT NULL; the optional fields are nullable.
    assert!(!cols[0].2 && cols[1].2);
    let mut read = names.clone();
    read[7] = "hex:blob";
    let rows = db.rows(table, &read, "id").await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][7], s("0001FF"));
    let r = &rows[0];
    assert_eq!(r[0], s("1"));
    assert_eq!(r[1], s("one"));
    assert_eq!(r[2], s("-3"));
    assert_eq!(r[3], s("7"));
    assert_eq!(r[4], s("10"));
    assert_eq!(r[5], s("0.5"));
    assert_eq!(rows[1][1], None);
    match db.dialect() {
        Dialect::Postgres => {
            assert_eq!(r[6], s("false"));
            assert_eq!(r[8], s("123.45"));
            assert_eq!(r[9], s("2024-01-01"));
            assert_eq!(r[10], s("01:02:03.004"));
            assert_eq!(r[11], s("2024-01-01 00:00:00.123"));
        }
        Dialect::MySql => {
            assert_eq!(r[6], s("0"));
            assert_eq!(r[8], s("123.45"));
            assert_eq!(r[9], s("2024-01-01"));
            assert_eq!(r[10], s("01:02:03.004"));
            assert_eq!(r[11], s("2024-01-01 00:00:00.123"));
        }
        Dialect::Sqlite => {
            assert_eq!(r[6], s("0"));
            assert_eq!(r[8], s("123.45"));
            assert_eq!(r[9], s("2024-01-01"));
            assert_eq!(r[10], s("01:02:03.004"));
            assert_eq!(r[11], s("2024-01-01 00:00:00.123"));
        }
    }
}

fn kv_schema() -> SchemaRef {
    SchemaBuilder::struct_()
        .field("id", Schema::required(SchemaType::Int64))
        .field("v", Schema::optional(SchemaType::String))
        .build()
}

fn kv(id: i64, v: &str) -> (SchemaRef, Value) {
    let schema = kv_schema();
    let st = Struct::from_values(schema.clone(), vec![Value::Int64(id), v.into()]).unwrap();
    (schema, Value::Struct(st))
}

/// Upsert: the same records delivered twice leave each row once, with the last values.
pub(crate) async fn scenario_upsert_redelivery(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("insert.mode", "upsert"),
            ("pk.mode", "record_value"),
            ("pk.fields", "id"),
        ],
    )
    .await;
    let batch: Vec<SinkRecord> = (0..50)
        .map(|i| record(table, i, None, Some(kv(i % 20, &format!("v{i}")))))
        .collect();
    t.put(batch.clone()).await.unwrap();
    t.put(batch).await.unwrap();
    t.stop().await.unwrap();
    let rows = db.rows(table, &["id", "v"], "id").await;
    assert_eq!(rows.len(), 20);
    for (i, r) in rows.iter().enumerate() {
        // The last record of each key wins: id i was last written at offset 40 + i (i < 10)
        // or 20 + i.
        let last = if i < 10 { 40 + i } else { 20 + i };
        assert_eq!(r, &[s(&i.to_string()), s(&format!("v{last}"))]);
    }
}

/// Update: rows are changed by key; a record whose key has no row changes nothing.
pub(crate) async fn scenario_update(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("pk.mode", "record_value"),
            ("pk.fields", "id"),
        ],
    )
    .await;
    t.put(vec![
        record(table, 0, None, Some(kv(1, "a"))),
        record(table, 1, None, Some(kv(2, "b"))),
    ])
    .await
    .unwrap();
    t.stop().await.unwrap();
    let mut t = task(
        &db.url,
        &[
            ("insert.mode", "update"),
            ("pk.mode", "record_value"),
            ("pk.fields", "id"),
        ],
    )
    .await;
    t.put(vec![
        record(table, 2, None, Some(kv(2, "B"))),
        record(table, 3, None, Some(kv(3, "C"))),
    ])
    .await
    .unwrap();
    t.stop().await.unwrap();
    let rows = db.rows(table, &["id", "v"], "id").await;
    assert_eq!(rows, [[s("1"), s("a")], [s("2"), s("B")]]);
}

/// auto.evolve adds the new optional and defaulted fields; a new required field without a
/// default is refused; without auto.evolve a missing column is an error.
pub(crate) async fn scenario_auto_evolve(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let props = [
        ("auto.create", "true"),
        ("auto.evolve", "true"),
        ("pk.mode", "record_value"),
        ("pk.fields", "id"),
    ];
    let mut t = task(&db.url, &props).await;
    t.put(vec![record(table, 0, None, Some(kv(1, "a")))])
        .await
        .unwrap();
    let v2 = SchemaBuilder::struct_()
        .field("id", Schema::required(SchemaType::Int64))
        .field("v", Schema::optional(SchemaType::String))
        .field("extra", Schema::optional(SchemaType::Float64))
        .field(
            "level",
            SchemaBuilder::new(SchemaType::Int32)
                .default_value(Value::Int32(3))
                .build(),
        )
        .field("on", logical::date().optional().build())
        .build();
    let st = Struct::from_values(
        v2.clone(),
        vec![
            Value::Int64(2),
            "b".into(),
            Value::Float64(1.25),
            Value::Int32(9),
            Value::Int32(1),
        ],
    )
    .unwrap();
    t.put(vec![record(table, 1, None, Some((v2, Value::Struct(st))))])
        .await
        .unwrap();
    let cols = db.columns(table).await;
    let names: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["id", "v", "extra", "level", "on"]);
    let types: Vec<&str> = cols.iter().map(|c| c.1.as_str()).collect();
    let expected: &[&str] = match db.dialect() {
        Dialect::Postgres => &["bigint", "text", "double precision", "integer", "date"],
        Dialect::MySql => &["bigint", "text", "double", "int", "date"],
        Dialect::Sqlite => &["integer", "text", "real", "integer", "numeric"],
    };
    assert_eq!(types, expected);
    assert!(cols[2].2, "added columns are nullable: {cols:?}");
    let rows = db
        .rows(table, &["id", "v", "extra", "level", "on"], "id")
        .await;
    // The row written before the ALTER got the default of `level`.
    assert_eq!(
        rows,
        [
            [s("1"), s("a"), None, s("3"), None],
            [s("2"), s("b"), s("1.25"), s("9"), s("1970-01-02")]
        ]
    );
    let v3 = SchemaBuilder::struct_()
        .field("id", Schema::required(SchemaType::Int64))
        .field("must", Schema::required(SchemaType::String))
        .build();
    let st = Struct::from_values(v3.clone(), vec![Value::Int64(3), "x".into()]).unwrap();
    let e = t
        .put(vec![record(
            table,
            2,
            None,
            Some((v3.clone(), Value::Struct(st.clone()))),
        )])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Cannot ALTER TABLE") && e.contains("must"),
        "{e}"
    );
    t.stop().await.unwrap();
    let mut t = task(&db.url, &[("pk.mode", "record_value"), ("pk.fields", "id")]).await;
    let e = t
        .put(vec![record(table, 2, None, Some((v3, Value::Struct(st))))])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("auto-evolution is disabled") && e.contains("must"),
        "{e}"
    );
}

/// Tombstones delete rows by key with delete.enabled (record_key with a Struct key).
pub(crate) async fn scenario_tombstone_delete(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("insert.mode", "upsert"),
            ("pk.mode", "record_key"),
            ("delete.enabled", "true"),
        ],
    )
    .await;
    let value = |id: i64, v: &str| {
        let schema = SchemaBuilder::struct_()
            .field("v", Schema::optional(SchemaType::String))
            .build();
        let st = Struct::from_values(schema.clone(), vec![v.into()]).unwrap();
        let _ = id;
        (schema, Value::Struct(st))
    };
    t.put(vec![
        record(table, 0, Some(id_key(1)), Some(value(1, "a"))),
        record(table, 1, Some(id_key(2)), Some(value(2, "b"))),
        record(table, 2, Some(id_key(3)), Some(value(3, "c"))),
        record(table, 3, Some(id_key(2)), None),
        // Deleted then written again in the same batch: the row stays.
        record(table, 4, Some(id_key(3)), None),
        record(table, 5, Some(id_key(3)), Some(value(3, "c2"))),
        // A tombstone for a key with no row is fine.
        record(table, 6, Some(id_key(9)), None),
    ])
    .await
    .unwrap();
    t.stop().await.unwrap();
    let rows = db.rows(table, &["id", "v"], "id").await;
    assert_eq!(rows, [[s("1"), s("a")], [s("3"), s("c2")]]);
    // Without delete.enabled a tombstone is an error naming the record.
    let mut t = task(&db.url, &[("pk.mode", "record_key")]).await;
    let e = t
        .put(vec![record(table, 7, Some(id_key(1)), None)])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("offset=7") && e.contains("delete.enabled"),
        "{e}"
    );
}

/// pk.mode=kafka: the coordinates are the key; redelivery in upsert mode keeps one row each.
pub(crate) async fn scenario_pk_kafka(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("pk.mode", "kafka"),
            ("insert.mode", "upsert"),
        ],
    )
    .await;
    let batch: Vec<SinkRecord> = (0..5)
        .map(|i| record(table, 100 + i, None, Some(kv(i, "x"))))
        .collect();
    t.put(batch.clone()).await.unwrap();
    t.put(batch).await.unwrap();
    t.stop().await.unwrap();
    let cols = db.columns(table).await;
    let names: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "__connect_topic",
            "__connect_partition",
            "__connect_offset",
            "id",
            "v"
        ]
    );
    let rows = db
        .rows(
            table,
            &[
                "__connect_topic",
                "__connect_partition",
                "__connect_offset",
                "id",
            ],
            "__connect_offset",
        )
        .await;
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0], [s(table), s("0"), s("100"), s("0")]);
    assert_eq!(rows[4], [s(table), s("0"), s("104"), s("4")]);
}

/// A put is one transaction: a failing record rolls back the rows before it.
pub(crate) async fn scenario_one_transaction(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("pk.mode", "record_value"),
            ("pk.fields", "id"),
        ],
    )
    .await;
    t.put(vec![record(table, 0, None, Some(kv(1, "a")))])
        .await
        .unwrap();
    // Plain inserts: id 1 again violates the primary key after id 2 was inserted.
    let e = t
        .put(vec![
            record(table, 1, None, Some(kv(2, "b"))),
            record(table, 2, None, Some(kv(1, "again"))),
        ])
        .await
        .unwrap_err();
    assert!(!e.is_retriable(), "max.retries=0: {e}");
    t.stop().await.unwrap();
    let rows = db.rows(table, &["id", "v"], "id").await;
    assert_eq!(rows, [[s("1"), s("a")]]);
}

/// Batches keep the record order: the same key several times in one statement's reach ends as
/// its last record (PostgreSQL's ON CONFLICT refuses a row twice in one statement), and a
/// tombstone between writes deletes exactly what was written before it.
pub(crate) async fn scenario_batch_order(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("insert.mode", "upsert"),
            ("pk.mode", "record_key"),
            ("delete.enabled", "true"),
            ("batch.size", "5"),
        ],
    )
    .await;
    let value = |v: &str| {
        let schema = SchemaBuilder::struct_()
            .field("v", Schema::optional(SchemaType::String))
            .build();
        let st = Struct::from_values(schema.clone(), vec![v.into()]).unwrap();
        (schema, Value::Struct(st))
    };
    let script: [(i64, Option<&str>); 14] = [
        (1, Some("a")),
        (2, Some("b")),
        (1, Some("a2")),
        (1, None),
        (3, Some("c")),
        (2, Some("b2")),
        (1, Some("a3")),
        (2, Some("b3")),
        (3, None),
        (4, Some("d")),
        (4, Some("d2")),
        (4, Some("d3")),
        (5, Some("e")),
        (5, None),
    ];
    let batch: Vec<SinkRecord> = script
        .iter()
        .zip(0..)
        .map(|((k, v), o)| record(table, o, Some(id_key(*k)), v.map(value)))
        .collect();
    t.put(batch).await.unwrap();
    t.stop().await.unwrap();
    let rows = db.rows(table, &["id", "v"], "id").await;
    assert_eq!(
        rows,
        [[s("1"), s("a3")], [s("2"), s("b3")], [s("4"), s("d3")]]
    );
    let mut t = task(
        &db.url,
        &[
            ("insert.mode", "upsert"),
            ("pk.mode", "record_key"),
            ("delete.enabled", "true"),
        ],
    )
    .await;
    // Three keys ten times each, all within one statement's reach (the default batch.size).
    let again: Vec<SinkRecord> = (0..30)
        .map(|i| {
            record(
                table,
                100 + i,
                Some(id_key(i % 3)),
                Some(value(&format!("x{i}"))),
            )
        })
        .collect();
    t.put(again).await.unwrap();
    t.stop().await.unwrap();
    let rows = db.rows(table, &["id", "v"], "id").await;
    assert_eq!(
        rows,
        [
            [s("0"), s("x27")],
            [s("1"), s("x28")],
            [s("2"), s("x29")],
            [s("4"), s("d3")]
        ]
    );
}

/// A batch with more parameters than one statement may bind (12 columns × 6000 rows, over
/// PostgreSQL's and MySQL's 65535 and SQLite's 32766) is cut into several statements.
pub(crate) async fn scenario_batch_over_bind_limit(db: &TestDb, table: &str) {
    db.drop_table(table).await;
    let mut t = task(
        &db.url,
        &[
            ("auto.create", "true"),
            ("pk.mode", "record_value"),
            ("pk.fields", "id"),
            ("batch.size", "100000"),
        ],
    )
    .await;
    let batch: Vec<SinkRecord> = (0..6000)
        .map(|i| record(table, i, None, Some(wide(i, Some(&format!("n{i}"))))))
        .collect();
    t.put(batch).await.unwrap();
    t.stop().await.unwrap();
    let rows = db.rows(table, &["id", "name", "n"], "id").await;
    assert_eq!(rows.len(), 6000);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(
            r,
            &[
                s(&i.to_string()),
                s(&format!("n{i}")),
                s(&(i * 10).to_string())
            ]
        );
    }
}

mod sqlite {
    use super::*;

    async fn db(dir: &tempfile::TempDir) -> TestDb {
        TestDb::open(&format!(
            "jdbc:sqlite:{}",
            dir.path().join("sink.db").display()
        ))
        .await
    }

    #[tokio::test]
    async fn insert_auto_create() {
        let dir = tempfile::tempdir().unwrap();
        scenario_insert_auto_create(&db(&dir).await, "wide").await;
    }

    #[tokio::test]
    async fn upsert_redelivery() {
        let dir = tempfile::tempdir().unwrap();
        scenario_upsert_redelivery(&db(&dir).await, "kv").await;
    }

    #[tokio::test]
    async fn update() {
        let dir = tempfile::tempdir().unwrap();
        scenario_update(&db(&dir).await, "upd").await;
    }

    #[tokio::test]
    async fn auto_evolve() {
        let dir = tempfile::tempdir().unwrap();
        scenario_auto_evolve(&db(&dir).await, "evo").await;
    }

    #[tokio::test]
    async fn tombstone_delete() {
        let dir = tempfile::tempdir().unwrap();
        scenario_tombstone_delete(&db(&dir).await, "del").await;
    }

    #[tokio::test]
    async fn pk_kafka() {
        let dir = tempfile::tempdir().unwrap();
        scenario_pk_kafka(&db(&dir).await, "kaf").await;
    }

    #[tokio::test]
    async fn one_transaction() {
        let dir = tempfile::tempdir().unwrap();
        scenario_one_transaction(&db(&dir).await, "txn").await;
    }

    #[tokio::test]
    async fn batch_order() {
        let dir = tempfile::tempdir().unwrap();
        scenario_batch_order(&db(&dir).await, "bord").await;
    }

    #[tokio::test]
    async fn batch_over_bind_limit() {
        let dir = tempfile::tempdir().unwrap();
        scenario_batch_over_bind_limit(&db(&dir).await, "blim").await;
    }

    #[tokio::test]
    async fn schemaless_values_and_missing_tables_are_refused_with_the_record() {
        let dir = tempfile::tempdir().unwrap();
        let db = db(&dir).await;
        let mut t = task(&db.url, &[]).await;
        let mut r = record("t", 42, None, None);
        r.record.value = Value::Map(vec![("a".into(), Value::Int32(1))]);
        let e = t.put(vec![r]).await.unwrap_err().to_string();
        assert!(
            e.contains("topic='t',partition=0,offset=42") && e.contains("Map value"),
            "{e}"
        );
        let e = t
            .put(vec![record("missing", 0, None, Some(kv(1, "a")))])
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Table missing is missing") && e.contains("auto.create"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn table_name_format_and_whitelist() {
        let dir = tempfile::tempdir().unwrap();
        let db = db(&dir).await;
        let mut t = task(
            &db.url,
            &[
                ("auto.create", "true"),
                ("table.name.format", "kafka_${topic}"),
                ("fields.whitelist", "name"),
                ("pk.mode", "record_value"),
                ("pk.fields", "id"),
            ],
        )
        .await;
        t.put(vec![record("orders", 0, None, Some(wide(5, Some("w"))))])
            .await
            .unwrap();
        let cols = db.columns("kafka_orders").await;
        let names: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names, ["id", "name"]);
        assert_eq!(
            db.rows("kafka_orders", &["id", "name"], "id").await,
            [[s("5"), s("w")]]
        );
    }
}

/// The JDBC URL of a real `kind` server (`postgres` or `mariadb`):
/// `CONNECT_JDBC_TEST_<KIND>_URL` when set, else a server from `scripts/db-harness.sh`, held
/// by this test process. Panics when neither gives one: nothing stands in for the database.
pub(crate) fn server_url(kind: &str) -> String {
    let var = format!("CONNECT_JDBC_TEST_{}_URL", kind.to_uppercase());
    if let Ok(url) = std::env::var(&var) {
        return url;
    }
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/db-harness.sh");
    // This process, and cargo when it ran us: the server outlives no test run.
    let (me, parent) = (std::process::id(), std::os::unix::process::parent_id());
    let lease = if std::fs::read_to_string(format!("/proc/{parent}/comm"))
        .is_ok_and(|c| c.trim() == "cargo")
    {
        format!("{me} {parent}")
    } else {
        me.to_string()
    };
    let out = std::process::Command::new("bash")
        .arg(&script)
        .args(["start", kind])
        .env("DB_HARNESS_LEASE", lease)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (or set {var})", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} start {kind} failed (or set {var}): {}{}",
        script.display(),
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    let get = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_owned))
            .unwrap_or_else(|| panic!("db-harness printed no {key}=: {stdout}"))
    };
    let scheme = if kind == "postgres" {
        "postgresql"
    } else {
        "mariadb"
    };
    format!(
        "jdbc:{scheme}://{}:{}/{}?user={}&password={}",
        get("host"),
        get("port"),
        get("database"),
        get("user"),
        get("password")
    )
}

macro_rules! server_scenarios {
    ($kind:ident) => {
        mod $kind {
            use super::*;

            async fn db() -> TestDb {
                TestDb::open(&server_url(stringify!($kind))).await
            }

            #[tokio::test]
            async fn insert_auto_create() {
                scenario_insert_auto_create(&db().await, "sink_wide").await;
            }

            #[tokio::test]
            async fn upsert_redelivery() {
                scenario_upsert_redelivery(&db().await, "sink_kv").await;
            }

            #[tokio::test]
            async fn update() {
                scenario_update(&db().await, "sink_upd").await;
            }

            #[tokio::test]
            async fn auto_evolve() {
                scenario_auto_evolve(&db().await, "sink_evo").await;
            }

            #[tokio::test]
            async fn tombstone_delete() {
                scenario_tombstone_delete(&db().await, "sink_del").await;
            }

            #[tokio::test]
            async fn pk_kafka() {
                scenario_pk_kafka(&db().await, "sink_kaf").await;
            }

            #[tokio::test]
            async fn one_transaction() {
                scenario_one_transaction(&db().await, "sink_txn").await;
            }

            #[tokio::test]
            async fn batch_order() {
                scenario_batch_order(&db().await, "sink_bord").await;
            }

            #[tokio::test]
            async fn batch_over_bind_limit() {
                scenario_batch_over_bind_limit(&db().await, "sink_blim").await;
            }
        }
    };
}

server_scenarios!(postgres);
server_scenarios!(mariadb);
