//! The Debezium differential scenario (issue 28): Debezium's PostgreSQL connector (from
//! [`super::plugin_jars`]) captures a database of its own on the harness's PostgreSQL
//! (`wal_level=logical`) through whatever worker runs it, and the records it writes to Kafka are
//! read back with their keys, values (JsonConverter, schemas enabled) and headers, volatile
//! fields masked, so that two runs — Apache Kafka Connect's and connect-rs's, or two of either —
//! compare equal.
//!
//! The scenario ([`Scenario`]): tables covering the type mappings that matter (int, bigint,
//! numeric(10,2), text, boolean, timestamp, timestamptz, date, bytea, jsonb, a TOASTed text
//! column), `customers` with `REPLICA IDENTITY FULL` (full `before` images), `docs` with the default
//! identity (an update leaving the TOASTed column alone yields Debezium's
//! `__debezium_unavailable_value`); snapshot rows; then inserts, updates (one changing the primary
//! key: delete + tombstone + create), deletes (+ tombstones), a two-row transaction, and a table
//! created while the connector streams.
//!
//! Plugging a worker in: any worker serving Kafka Connect's REST API on the harness broker, with
//! `plugin.path` naming [`super::plugin_jars::PluginJars::plugin_path`] and its offsets in a topic:
//! [`run_scenario`]`(&broker, worker_rest_client, offset_topic)` creates the database, starts the
//! connector, plays the script and returns the masked records per topic and the offsets stored.
//! [`run_scenario_on_embedded_log`] does the same on a worker without Kafka (records read with
//! `connect-rs topics`), and [`PHASES`] cuts the script in three for moving a running connector
//! between workers.
//!
//! Masked (found by running the scenario twice on two databases): the per-run names — the
//! `topic.prefix` (in topics, schema names, `source.name`) becomes `<prefix>`, the database name
//! (`source.db`) `<db>`, the connector name (offset keys) `<connector>` — and the volatile fields
//! `ts_ms`, `ts_us`, `ts_ns`, `source.ts_ms`, `source.ts_us`, `source.ts_ns`, `source.lsn`,
//! `source.txId`, `source.sequence`, `source.xmin`, `source.origin_lsn`, the header `__debezium.context.runId` (a UUID
//! per task start) (and in offsets `lsn`, `lsn_proc`, `lsn_commit`, `txId`, `ts_usec`, `xmin`)
//! become `"<masked>"` when not null.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};
use serde::Serialize;
use serde_json::{json, Value};

use super::db::postgres;
use super::http::Client;
use super::kafka::Broker;

/// How long the connector may take to snapshot, or to stream the script's changes.
pub const CAPTURE_TIMEOUT: Duration = Duration::from_secs(180);

/// The placeholder of a masked volatile field.
pub const MASKED: &str = "<masked>";

/// Volatile fields of a change event's `source` block.
const VOLATILE_SOURCE: &[&str] = &["ts_ms", "ts_us", "ts_ns", "lsn", "txId", "sequence", "xmin"];
/// Volatile fields of a change event's envelope.
const VOLATILE_ENVELOPE: &[&str] = &["ts_ms", "ts_us", "ts_ns"];
/// Headers whose value changes with every start of the task (Debezium's context headers).
const VOLATILE_HEADERS: &[&str] = &["__debezium.context.runId"];
/// Volatile fields of a stored source offset.
const VOLATILE_OFFSET: &[&str] = &["lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec", "xmin"];

/// The tables, as topic suffixes after the prefix, with the number of records the whole scenario
/// writes to each (snapshot `r`, then `c`/`u`/`d` and tombstones).
pub const EXPECTED_COUNTS: &[(&str, usize)] = &[
    ("public.customers", 12),
    ("public.docs", 6),
    ("public.late", 5),
];

/// Counts of records per topic suffix.
pub type Counts = &'static [(&'static str, usize)];

/// The script in three phases, for switching a running connector between runtimes: the
/// statements of each phase and the counts per topic once it is captured (snapshot included).
pub const PHASES: &[(std::ops::Range<usize>, Counts)] = &[
    (0..4, &[("public.customers", 10), ("public.docs", 2)]),
    (4..8, &[("public.customers", 12), ("public.docs", 6)]),
    (8..12, EXPECTED_COUNTS),
];

/// The operations (`op`, or `tombstone`) the scenario writes per topic, in order.
pub fn expected_ops() -> BTreeMap<String, Vec<&'static str>> {
    const T: &str = "tombstone";
    BTreeMap::from([
        (
            "public.customers".to_owned(),
            vec!["r", "r", "r", "c", "u", "d", T, "c", "d", T, "c", "c"],
        ),
        ("public.docs".to_owned(), vec!["r", "r", "u", "u", "d", T]),
        ("public.late".to_owned(), vec!["c", "c", "u", "d", T]),
    ])
}

/// The schema and the snapshot rows.
const SETUP_SQL: &str = "
CREATE TABLE customers (
  id int PRIMARY KEY,
  big bigint NOT NULL,
  amount numeric(10,2),
  note text,
  flag boolean,
  ts timestamp,
  tstz timestamptz,
  d date,
  raw bytea,
  doc jsonb
);
ALTER TABLE customers REPLICA IDENTITY FULL;
CREATE TABLE docs (id int PRIMARY KEY, title text NOT NULL, body text);
ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO customers VALUES
  (1, 9007199254740993, 12345678.91, 'first', true, '2024-01-02 03:04:05.123456',
   '2024-03-01 12:34:56.789+02', '2024-01-31', '\\x00ff10', '{\"a\": [1, 2.5, \"x\"], \"b\": null}'),
  (2, -1, -0.05, 'Grüße, 世界', false, '1970-01-01 00:00:00', '1999-12-31 23:59:59.999999+00',
   '1969-07-20', '\\x', '[]'),
  (3, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO docs VALUES
  (1, 'big', (SELECT string_agg(md5(i::text || 'one'), '') FROM generate_series(1, 400) i)),
  (2, 'small', 'short body');
";

/// The changes played while the connector streams; the last statement touches `late`, so all
/// changes are in the log once `late` has its records.
const CHANGES_SQL: &[&str] = &[
    "INSERT INTO customers VALUES (4, 4, 4.40, 'four', true, '2024-04-04 04:04:04', \
     '2024-04-04 04:04:04+00', '2024-04-04', '\\x04', '{\"n\": 4}')",
    "UPDATE customers SET amount = 99999999.99, note = 'updated', flag = NOT flag, \
     doc = doc || '{\"c\": true}' WHERE id = 2",
    "UPDATE customers SET id = 10 WHERE id = 3",
    "DELETE FROM customers WHERE id = 1",
    "UPDATE docs SET title = 'big, renamed' WHERE id = 1",
    "UPDATE docs SET body = (SELECT string_agg(md5(i::text || 'two'), '') \
     FROM generate_series(1, 300) i) WHERE id = 2",
    "BEGIN; INSERT INTO customers (id, big, note) VALUES (5, 5, 'five'); \
     INSERT INTO customers (id, big, note) VALUES (6, 6, 'six'); COMMIT",
    "DELETE FROM docs WHERE id = 2",
    "CREATE TABLE late (id int PRIMARY KEY, label text, at timestamptz); \
     ALTER TABLE late REPLICA IDENTITY FULL",
    "INSERT INTO late VALUES (1, 'one', '2025-05-05 05:05:05+05'), (2, 'two', NULL)",
    "UPDATE late SET label = 'uno' WHERE id = 1",
    "DELETE FROM late WHERE id = 1",
];

/// One record of a topic, as read from Kafka (key and value are JsonConverter's JSON; a
/// tombstone has no value), masked by [`Scenario::mask`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CdcRecord {
    pub key: Option<Value>,
    pub value: Option<Value>,
    /// Header names with their values as text (`None`: a null header value).
    pub headers: Vec<(String, Option<String>)>,
}

impl CdcRecord {
    /// `payload.op`, or `tombstone` for a record without value.
    pub fn op(&self) -> &str {
        match &self.value {
            None => "tombstone",
            Some(v) => v["payload"]["op"].as_str().unwrap_or("?"),
        }
    }
}

/// What one run produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Masked records per topic (the topic's name after `<prefix>.`), in offset order.
    pub records: BTreeMap<String, Vec<CdcRecord>>,
    /// The masked records of [`Scenario::chain`]'s connector (through the SMT chain), per topic
    /// suffix; empty where the scenario ran without it.
    pub chain_records: BTreeMap<String, Vec<CdcRecord>>,
    /// The connector's entries in the offsets topic (key, value; `None` for a tombstone), in
    /// order, unmasked: what the worker stored.
    pub offsets: Vec<(Value, Option<Value>)>,
    /// The same entries masked ([`Scenario::mask_offset`]).
    pub masked_offsets: Vec<(Value, Value)>,
    /// The same entries as the bytes of the offsets topic (key, value).
    pub offset_bytes: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// The connector's name (the first element of its offset keys).
    pub connector: String,
}

/// One capture: a database of its own on the harness's PostgreSQL and the names of its
/// connector. Dropping it drops the replication slot (when the connector released it).
pub struct Scenario {
    /// The database (also `slot.name`; `publication.name` is `<db>_pub`).
    pub db: String,
    /// `topic.prefix` (unique on the broker).
    pub prefix: String,
    /// The connector's name.
    pub connector: String,
    /// `slot.name` (the database's name, or `<db>_smt` for [`Scenario::chain`]).
    slot_name: String,
    /// The transformation chain of [`Scenario::chain`]'s connector (empty for the plain one).
    transforms: Vec<(&'static str, &'static str)>,
}

/// The chain of the SMT differential (issue 28, milestone M4): Debezium's
/// `ExtractNewRecordState` (Java) with `op` and `table` fields and deletes rewritten (tombstones
/// kept), not applied to `docs` (a built-in predicate, negated, on the Java stage), then the
/// built-in `InsertField$Value`.
const CHAIN: &[(&str, &str)] = &[
    ("transforms", "unwrap,ins"),
    (
        "transforms.unwrap.type",
        "io.debezium.transforms.ExtractNewRecordState",
    ),
    ("transforms.unwrap.add.fields", "op,table"),
    (
        "transforms.unwrap.delete.tombstone.handling.mode",
        "rewrite-with-tombstone",
    ),
    ("transforms.unwrap.predicate", "isDocs"),
    ("transforms.unwrap.negate", "true"),
    (
        "transforms.ins.type",
        "org.apache.kafka.connect.transforms.InsertField$Value",
    ),
    ("transforms.ins.static.field", "chain"),
    ("transforms.ins.static.value", "smt"),
    ("predicates", "isDocs"),
    (
        "predicates.isDocs.type",
        "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    ),
    ("predicates.isDocs.pattern", ".*\\.docs"),
];

impl Scenario {
    /// Creates the database with the schema and snapshot rows.
    pub fn new() -> Self {
        let db = postgres().create_database("dbz");
        postgres().sql(&db, SETUP_SQL);
        let prefix = Broker::unique("dbz");
        Self {
            connector: format!("{prefix}-pg"),
            slot_name: db.clone(),
            db,
            prefix,
            transforms: Vec::new(),
        }
    }

    /// A second capture of the same database through [`CHAIN`] (a slot, publication, prefix
    /// and connector of its own): its records are the SMT differential's.
    pub fn chain(&self) -> Self {
        let prefix = format!("{}-smt", self.prefix);
        Self {
            connector: format!("{prefix}-pg"),
            slot_name: format!("{}_smt", self.db),
            db: self.db.clone(),
            prefix,
            transforms: CHAIN.to_vec(),
        }
    }

    /// `slot.name`.
    pub fn slot(&self) -> String {
        self.slot_name.clone()
    }

    /// The connector's configuration: `PostgresConnector` with pgoutput, this scenario's slot,
    /// publication and prefix, JsonConverter with schemas for keys and values, one-partition
    /// topics created by the worker.
    pub fn connector_config(&self) -> Value {
        let pg = postgres();
        let mut config = json!({
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "tasks.max": "1",
            "database.hostname": pg.host,
            "database.port": pg.port.to_string(),
            "database.user": pg.user,
            "database.password": pg.password,
            "database.dbname": self.db,
            "topic.prefix": self.prefix,
            "plugin.name": "pgoutput",
            "slot.name": self.slot(),
            "publication.name": format!("{}_pub", self.slot()),
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "true",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "1",
        });
        for (k, v) in &self.transforms {
            config[*k] = json!(v);
        }
        config
    }

    /// `<prefix>.<suffix>`.
    pub fn topic(&self, suffix: &str) -> String {
        format!("{}.{suffix}", self.prefix)
    }

    /// Plays the inserts, updates, deletes and the later table, one statement (or transaction)
    /// after the other.
    pub fn apply_changes(&self) {
        for sql in CHANGES_SQL {
            postgres().sql(&self.db, sql);
        }
    }

    /// Plays the statements `range` of the script (see [`PHASES`]).
    pub fn apply_changes_in(&self, range: std::ops::Range<usize>) {
        for sql in &CHANGES_SQL[range] {
            postgres().sql(&self.db, sql);
        }
    }

    /// The topics and counts of `counts` (topic suffixes) with this scenario's prefix.
    pub fn topics(&self, counts: &[(&str, usize)]) -> Vec<(String, usize)> {
        counts.iter().map(|(t, n)| (self.topic(t), *n)).collect()
    }

    /// Waits until no connection holds the slot (a stopped task released it).
    pub fn await_slot_released(&self) {
        let active = format!(
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{}' AND active",
            self.slot()
        );
        super::wait_for(
            "the stopped connector to release its replication slot",
            Duration::from_secs(60),
            || postgres().sql(&self.db, &active) == "0\n",
        );
    }

    /// Masks the per-run names and volatile fields of a record (see the module doc).
    pub fn mask(&self, mut record: CdcRecord) -> CdcRecord {
        for v in record.key.iter_mut().chain(record.value.iter_mut()) {
            self.rename(v);
        }
        if let Some(payload) = record.value.as_mut().map(|v| &mut v["payload"]) {
            mask_fields(payload, VOLATILE_ENVELOPE);
            if let Some(source) = payload.get_mut("source") {
                mask_fields(source, VOLATILE_SOURCE);
            }
        }
        for (name, value) in &mut record.headers {
            *name = self.rename_str(name);
            if let Some(v) = value {
                *v = if VOLATILE_HEADERS.contains(&name.as_str()) {
                    MASKED.to_owned()
                } else {
                    self.rename_str(v)
                };
            }
        }
        record
    }

    /// Masks the per-run names and volatile fields of a stored offset (key, value).
    pub fn mask_offset(&self, (mut key, mut value): (Value, Option<Value>)) -> (Value, Value) {
        if let Some(name) = key.get_mut(0) {
            if name == self.connector.as_str() {
                *name = json!("<connector>");
            }
        }
        self.rename(&mut key);
        let mut value = value.take().unwrap_or(Value::Null);
        mask_fields(&mut value, VOLATILE_OFFSET);
        (key, value)
    }

    fn rename_str(&self, s: &str) -> String {
        s.replace(&self.prefix, "<prefix>")
    }

    /// Replaces the prefix in every string (schema names, `source.name`) and the database name
    /// in `source.db`.
    fn rename(&self, v: &mut Value) {
        match v {
            Value::String(s) => *s = self.rename_str(s),
            Value::Array(items) => items.iter_mut().for_each(|i| self.rename(i)),
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    if key == "db" && item == self.db.as_str() {
                        *item = json!("<db>");
                    } else {
                        self.rename(item);
                    }
                }
            }
            _ => {}
        }
    }
}

impl Default for Scenario {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Scenario {
    /// Drops the slot if no connector holds it any more (slots keep WAL; the harness allows 20).
    fn drop(&mut self) {
        let sql = format!(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots \
             WHERE slot_name = '{}' AND NOT active",
            self.slot()
        );
        // Best effort, never a panic inside a drop (the test may be failing already).
        let _ = Command::new("bash")
            .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/db-harness.sh"))
            .args(["sql", "postgres", &self.db, &sql])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Replaces the non-null `fields` of an object with [`MASKED`].
fn mask_fields(v: &mut Value, fields: &[&str]) {
    if let Some(map) = v.as_object_mut() {
        for f in fields {
            if let Some(item) = map.get_mut(*f) {
                if !item.is_null() {
                    *item = json!(MASKED);
                }
            }
        }
    }
}

/// The whole differential scenario on one running worker: creates a database, starts Debezium
/// on it through `rest` (PUT `/connectors/{name}/config`), waits for the snapshot, plays the
/// changes, waits for every expected record, deletes the connector and returns the masked
/// records and the offsets the worker stored in `offset_topic`.
pub fn run_scenario(broker: &Broker, rest: Client, offset_topic: &str) -> Outcome {
    let scenario = Scenario::new();
    let reader = TopicReader::new(broker);
    // The snapshot's end is stored before any change streams, so both runtimes store it
    // (periodic flushes would otherwise sometimes skip it).
    let snapshot_stored = || {
        reader.await_offset(offset_topic, &scenario.connector, |v| {
            v["snapshot_completed"] == json!(true)
        });
    };
    let chain = scenario.chain();
    let records = capture(&scenario, Some(&chain), &reader, &rest, &snapshot_stored);
    let chain_records = reader.read_prefix(&chain);
    delete(&chain, &rest);
    let offset_bytes = reader.await_offsets(offset_topic, &scenario.connector);
    let offsets = parse_offsets(offset_topic, &offset_bytes);
    remove(&scenario, &rest);
    chain.await_slot_released();
    let masked_offsets = offsets
        .iter()
        .cloned()
        .map(|o| scenario.mask_offset(o))
        .collect();
    Outcome {
        records,
        chain_records,
        offsets,
        masked_offsets,
        offset_bytes,
        connector: scenario.connector.clone(),
    }
}

/// The scenario on a worker whose topics are in its embedded log (read with `connect-rs topics`
/// and `worker_file`): the masked records per topic.
pub fn run_scenario_on_embedded_log(
    rest: Client,
    worker_file: &std::path::Path,
) -> BTreeMap<String, Vec<CdcRecord>> {
    let scenario = Scenario::new();
    let topics = EmbeddedTopics {
        worker_file: worker_file.to_owned(),
    };
    let records = capture(&scenario, None, &topics, &rest, &|| {});
    remove(&scenario, &rest);
    records
}

/// Starts the connector through `rest`, waits for the snapshot, plays the changes, waits for
/// every expected record and returns them masked; `after_snapshot` runs between the snapshot and
/// the changes. `chain` (a second connector on the same database, [`Scenario::chain`]) runs
/// alongside: both snapshots end before the changes, and the chain's records are all written
/// when this returns.
fn capture(
    scenario: &Scenario,
    chain: Option<&Scenario>,
    topics: &dyn CdcTopics,
    rest: &Client,
    after_snapshot: &dyn Fn(),
) -> BTreeMap<String, Vec<CdcRecord>> {
    let both: Vec<&Scenario> = std::iter::once(scenario).chain(chain).collect();
    for s in &both {
        let r = rest.put(
            &format!("/connectors/{}/config", s.connector),
            &s.connector_config(),
        );
        assert!(
            r.status == 201 || r.status == 200,
            "creating the Debezium connector {} failed: {} {}",
            s.connector,
            r.status,
            r.body
        );
    }
    for s in &both {
        let snapshot = s.topics(&[("public.customers", 3), ("public.docs", 2)]);
        topics.await_counts(&snapshot, rest, &s.connector, "the snapshot");
    }
    after_snapshot();
    scenario.apply_changes();
    for s in &both {
        let all = s.topics(EXPECTED_COUNTS);
        topics.await_counts(&all, rest, &s.connector, "the streamed changes");
    }
    topics.read_prefix(scenario)
}

/// Deletes the connector and waits until its task released the replication slot (dropped with
/// the scenario).
fn remove(scenario: &Scenario, rest: &Client) {
    delete(scenario, rest);
    scenario.await_slot_released();
}

/// Deletes the connector (its task releases the replication slot soon after).
fn delete(scenario: &Scenario, rest: &Client) {
    let r = rest.delete(&format!("/connectors/{}", scenario.connector));
    assert!(
        r.status == 204 || r.status == 200,
        "deleting the Debezium connector failed: {} {}",
        r.status,
        r.body
    );
}

/// The topics of a worker's embedded log, read with `connect-rs topics --worker WORKER_FILE`
/// (`list`, and `read` printing `Partition:P\tOffset:O\tHEADERS\tKEY\tVALUE` lines).
pub struct EmbeddedTopics {
    /// The worker's file (its `embedded.log.dir`).
    pub worker_file: std::path::PathBuf,
}

impl EmbeddedTopics {
    /// The standard output of `connect-rs topics ARGS --worker WORKER_FILE`.
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new(super::binary())
            .arg("topics")
            .args(args)
            .arg("--worker")
            .arg(&self.worker_file)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .output()
            .expect("connect-rs topics");
        assert!(
            out.status.success(),
            "connect-rs topics {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 from connect-rs topics")
    }

    /// `(topic, partition, end offset)` of every partition.
    fn list(&self) -> Vec<(String, i32, usize)> {
        self.run(&["list"])
            .lines()
            .filter_map(|l| {
                let mut f = l.split('\t');
                let (t, p, end) = (f.next()?, f.next()?, f.next()?);
                Some((t.to_owned(), p.parse().ok()?, end.parse().ok()?))
            })
            .collect()
    }
}

impl CdcTopics for EmbeddedTopics {
    fn topics_with_prefix(&self, prefix: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .list()
            .into_iter()
            .map(|(t, _, _)| t)
            .filter(|t| t.starts_with(prefix))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    fn count(&self, topic: &str) -> usize {
        self.list()
            .into_iter()
            .filter(|(t, _, _)| t == topic)
            .map(|(_, _, end)| end)
            .sum()
    }

    fn read_all(&self, topic: &str) -> Vec<Raw> {
        let n = self.count(topic);
        if n == 0 {
            return Vec::new();
        }
        let max = n.to_string();
        let out = self.run(&[
            "read",
            topic,
            "--from-beginning",
            "--max",
            &max,
            "--timeout-ms",
            "10000",
        ]);
        let text = |s: &str| (s != "null").then(|| s.as_bytes().to_vec());
        let mut per_partition: BTreeMap<i32, Vec<Raw>> = BTreeMap::new();
        for line in out.lines() {
            let f: Vec<&str> = line.splitn(5, '\t').collect();
            let [p, _, headers, key, value] = f[..] else {
                panic!("an unexpected line of connect-rs topics read {topic}: {line:?}");
            };
            let p: i32 = p
                .trim_start_matches("Partition:")
                .parse()
                .unwrap_or_else(|e| panic!("{line:?}: {e}"));
            // `k:v,k:v` (values without `,` here: Debezium's context headers).
            let headers = if headers == "NO_HEADERS" {
                Vec::new()
            } else {
                headers
                    .split(',')
                    .map(|h| {
                        let (k, v) = h.split_once(':').unwrap_or((h, "null"));
                        (k.to_owned(), (v != "null").then(|| v.to_owned()))
                    })
                    .collect()
            };
            per_partition.entry(p).or_default().push(Raw {
                key: text(key),
                value: text(value),
                headers,
            });
        }
        per_partition.into_values().flatten().collect()
    }
}

/// The differences of two runs' records, line by line of their pretty JSON (`-` left, `+`
/// right, with the JSON path of the line's record), empty when they are equal.
pub fn diff(
    left: &BTreeMap<String, Vec<CdcRecord>>,
    right: &BTreeMap<String, Vec<CdcRecord>>,
) -> String {
    let mut out = String::new();
    let topics: std::collections::BTreeSet<&String> = left.keys().chain(right.keys()).collect();
    for topic in topics {
        let (l, r) = (left.get(topic), right.get(topic));
        let (ln, rn) = (l.map_or(0, Vec::len), r.map_or(0, Vec::len));
        if ln != rn {
            out += &format!("{topic}: {ln} records vs {rn}\n");
        }
        for i in 0..ln.max(rn) {
            let pretty = |side: Option<&Vec<CdcRecord>>| {
                side.and_then(|rs| rs.get(i))
                    .map(|rec| serde_json::to_string_pretty(rec).expect("json"))
                    .unwrap_or_default()
            };
            let (a, b) = (pretty(l), pretty(r));
            if a == b {
                continue;
            }
            let (al, bl): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
            for j in 0..al.len().max(bl.len()) {
                let (x, y) = (al.get(j).copied(), bl.get(j).copied());
                if x != y {
                    out += &format!(
                        "{topic}[{i}] line {j}:\n- {}\n+ {}\n",
                        x.unwrap_or(""),
                        y.unwrap_or("")
                    );
                }
            }
        }
    }
    out
}

/// Checks that an outcome holds what the scenario plays: per topic the expected `op`s in order
/// (snapshot `r`, then `c`/`u`/`d` and tombstones), the TOAST placeholder of the update that left
/// the TOASTed column alone, and the full `before` image of a `REPLICA IDENTITY FULL` update.
pub fn assert_expected(outcome: &Outcome) {
    let ops: BTreeMap<String, Vec<&str>> = outcome
        .records
        .iter()
        .map(|(t, rs)| (t.clone(), rs.iter().map(CdcRecord::op).collect()))
        .collect();
    assert_eq!(ops, expected_ops(), "the operations per topic");
    let docs = &outcome.records["public.docs"];
    assert_eq!(
        docs[2]
            .value
            .as_ref()
            .map(|v| &v["payload"]["after"]["body"]),
        Some(&json!("__debezium_unavailable_value")),
        "an update leaving the TOASTed column alone: {:?}",
        docs[2]
    );
    let customers = &outcome.records["public.customers"];
    // Debezium's context headers (so the comparison of headers compares something).
    for (name, value) in [
        ("__debezium.context.connectorLogicalName", "<prefix>"),
        ("__debezium.context.runId", MASKED),
    ] {
        assert!(
            customers[0]
                .headers
                .contains(&(name.to_owned(), Some(value.to_owned()))),
            "header {name}: {value} in {:?}",
            customers[0].headers
        );
    }
    let update = customers[4].value.as_ref().expect("the update's value");
    assert_eq!(update["payload"]["before"]["note"], json!("Grüße, 世界"));
    assert_eq!(update["payload"]["after"]["note"], json!("updated"));
    assert_eq!(update["payload"]["source"]["db"], json!("<db>"), "{update}");
    assert!(
        update["payload"]["source"]["lsn"] == json!(MASKED),
        "{update}"
    );
}

/// Reads topics of the harness broker through one consumer (assigned, never committing).
pub struct TopicReader {
    consumer: BaseConsumer,
}

/// One raw record.
pub struct Raw {
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<String>)>,
}

/// Where the scenario's records are read: the harness broker ([`TopicReader`]) or a worker's
/// embedded log ([`EmbeddedTopics`]).
pub trait CdcTopics {
    /// The topics whose names start with `prefix`, sorted.
    fn topics_with_prefix(&self, prefix: &str) -> Vec<String>;
    /// How many records `topic` holds (0 when it does not exist).
    fn count(&self, topic: &str) -> usize;
    /// Every record of `topic`, partition by partition in offset order.
    fn read_all(&self, topic: &str) -> Vec<Raw>;

    /// Waits until every `(topic, count)` has at least `count` records; fails with the
    /// connector's status (through `rest`) when they do not come within [`CAPTURE_TIMEOUT`].
    fn await_counts(&self, want: &[(String, usize)], rest: &Client, connector: &str, what: &str) {
        let start = Instant::now();
        loop {
            let have: Vec<(String, usize)> = want
                .iter()
                .map(|(t, _)| (t.clone(), self.count(t)))
                .collect();
            if want.iter().zip(&have).all(|((_, n), (_, h))| h >= n) {
                return;
            }
            if start.elapsed() > CAPTURE_TIMEOUT {
                let status = rest
                    .try_send("GET", &format!("/connectors/{connector}/status"), None)
                    .map(|r| r.body)
                    .unwrap_or_else(|e| format!("(no answer: {e})"));
                panic!(
                    "Debezium did not write {what} within {CAPTURE_TIMEOUT:?}: wanted {want:?}, \
                     the topics hold {have:?}; the connector's status: {status}"
                );
            }
            // The poll interval of a bounded wait on the topics' ends.
            std::thread::park_timeout(Duration::from_millis(100));
        }
    }

    /// The masked records of every topic of the scenario's prefix, per topic suffix.
    fn read_prefix(&self, scenario: &Scenario) -> BTreeMap<String, Vec<CdcRecord>> {
        let dot = format!("{}.", scenario.prefix);
        self.topics_with_prefix(&dot)
            .into_iter()
            .map(|topic| {
                let records = self
                    .read_all(&topic)
                    .into_iter()
                    .map(|raw| {
                        scenario.mask(CdcRecord {
                            key: raw.key.map(|k| parse_json(&topic, &k)),
                            value: raw.value.map(|v| parse_json(&topic, &v)),
                            headers: raw.headers,
                        })
                    })
                    .collect();
                (topic[dot.len()..].to_owned(), records)
            })
            .collect()
    }
}

impl TopicReader {
    /// A reader of `broker`.
    pub fn new(broker: &Broker) -> Self {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", broker.bootstrap())
            .set("group.id", Broker::unique("dbz-reader"))
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "false")
            .create()
            .unwrap_or_else(|e| panic!("a consumer for {}: {e}", broker.bootstrap()));
        Self { consumer }
    }

    /// `(partition, low, high)` of every partition of `topic`; empty when it does not exist.
    fn watermarks(&self, topic: &str) -> Vec<(i32, i64, i64)> {
        let Ok(md) = self
            .consumer
            .fetch_metadata(Some(topic), Duration::from_secs(30))
        else {
            return Vec::new();
        };
        let partitions: Vec<i32> = md
            .topics()
            .iter()
            .filter(|t| t.name() == topic && t.error().is_none())
            .flat_map(|t| t.partitions().iter().map(|p| p.id()))
            .collect();
        partitions
            .into_iter()
            .filter_map(|p| {
                let (lo, hi) = self
                    .consumer
                    .fetch_watermarks(topic, p, Duration::from_secs(30))
                    .ok()?;
                Some((p, lo, hi))
            })
            .collect()
    }

    /// The connector's entries of `offset_topic` (key and value bytes) once its last one is of
    /// the scenario's last change (the worker flushes offsets periodically).
    pub fn await_offsets(
        &self,
        offset_topic: &str,
        connector: &str,
    ) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
        self.await_offset(offset_topic, connector, |v| {
            v["messageType"] == json!("DELETE")
        })
    }

    /// The connector's entries of `offset_topic` (key and value bytes) once its last one has a
    /// value that `last` accepts.
    pub fn await_offset(
        &self,
        offset_topic: &str,
        connector: &str,
        last: impl Fn(&Value) -> bool,
    ) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
        let start = Instant::now();
        loop {
            let raw = self.offset_bytes(offset_topic, connector);
            let offsets = parse_offsets(offset_topic, &raw);
            if offsets
                .last()
                .is_some_and(|(_, v)| v.as_ref().is_some_and(&last))
            {
                return raw;
            }
            assert!(
                start.elapsed() < CAPTURE_TIMEOUT,
                "the worker did not store the awaited offset of {connector} in \
                 {offset_topic} within {CAPTURE_TIMEOUT:?}; stored: {offsets:?}"
            );
            // The poll interval of a bounded wait for the next offset flush.
            std::thread::park_timeout(Duration::from_millis(200));
        }
    }

    /// The entries of `offset_topic` whose key names `connector` (`["name", {partition}]`).
    pub fn offsets(&self, offset_topic: &str, connector: &str) -> Vec<(Value, Option<Value>)> {
        parse_offsets(offset_topic, &self.offset_bytes(offset_topic, connector))
    }

    /// The key and value bytes of the entries of `offset_topic` whose key names `connector`.
    pub fn offset_bytes(
        &self,
        offset_topic: &str,
        connector: &str,
    ) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
        self.read_all(offset_topic)
            .into_iter()
            .filter_map(|raw| {
                let key = raw.key?;
                (parse_json(offset_topic, &key).get(0) == Some(&json!(connector)))
                    .then_some((key, raw.value))
            })
            .collect()
    }
}

/// Offset entries parsed (key, value; `None` for a tombstone).
pub fn parse_offsets(
    topic: &str,
    raw: &[(Vec<u8>, Option<Vec<u8>>)],
) -> Vec<(Value, Option<Value>)> {
    raw.iter()
        .map(|(k, v)| {
            (
                parse_json(topic, k),
                v.as_deref().map(|v| parse_json(topic, v)),
            )
        })
        .collect()
}

/// Whether `bytes` are exactly the compact JSON of what they parse to, members in their order
/// (Kafka's JsonConverter writes compact JSON): then two entries whose parsed values are equal
/// (serde_json keeps the order of members here) are equal byte for byte.
pub fn is_compact_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|v| serde_json::to_vec(&v).ok())
        .is_some_and(|again| again == bytes)
}

impl CdcTopics for TopicReader {
    /// The topics whose names start with `prefix`.
    fn topics_with_prefix(&self, prefix: &str) -> Vec<String> {
        let md = self
            .consumer
            .fetch_metadata(None, Duration::from_secs(30))
            .expect("the broker's metadata");
        let mut names: Vec<String> = md
            .topics()
            .iter()
            .map(|t| t.name().to_owned())
            .filter(|n| n.starts_with(prefix))
            .collect();
        names.sort();
        names
    }

    /// Every record of `topic` up to its current end, partition by partition in offset order.
    fn read_all(&self, topic: &str) -> Vec<Raw> {
        let marks: Vec<(i32, i64, i64)> = self
            .watermarks(topic)
            .into_iter()
            .filter(|(_, lo, hi)| hi > lo)
            .collect();
        if marks.is_empty() {
            return Vec::new();
        }
        let mut tpl = TopicPartitionList::new();
        for (p, _, _) in &marks {
            tpl.add_partition_offset(topic, *p, Offset::Beginning)
                .expect("a partition to read");
        }
        self.consumer.assign(&tpl).expect("assign the partitions");
        let mut per_partition: BTreeMap<i32, Vec<Raw>> = BTreeMap::new();
        let mut done: BTreeMap<i32, bool> = marks.iter().map(|(p, _, _)| (*p, false)).collect();
        let start = Instant::now();
        while done.values().any(|d| !d) {
            assert!(
                start.elapsed() < CAPTURE_TIMEOUT,
                "could not read {topic} to its end ({marks:?}) within {CAPTURE_TIMEOUT:?}"
            );
            let Some(msg) = self.consumer.poll(Duration::from_millis(200)) else {
                continue;
            };
            let msg = msg.unwrap_or_else(|e| panic!("reading {topic}: {e}"));
            let headers = msg
                .headers()
                .map(|hs| {
                    hs.iter()
                        .map(|h| {
                            (
                                h.key.to_owned(),
                                h.value.map(|v| String::from_utf8_lossy(v).into_owned()),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let p = msg.partition();
            per_partition.entry(p).or_default().push(Raw {
                key: msg.key().map(<[u8]>::to_vec),
                value: msg.payload().map(<[u8]>::to_vec),
                headers,
            });
            if let Some((_, _, hi)) = marks.iter().find(|(q, _, _)| *q == p) {
                if msg.offset() + 1 >= *hi {
                    done.insert(p, true);
                }
            }
        }
        self.consumer
            .unassign()
            .expect("unassign the partitions read");
        per_partition.into_values().flatten().collect()
    }

    fn count(&self, topic: &str) -> usize {
        let n: i64 = self
            .watermarks(topic)
            .iter()
            .map(|(_, lo, hi)| hi - lo)
            .sum();
        usize::try_from(n).unwrap_or(0)
    }
}

fn parse_json(topic: &str, bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|e| {
        panic!(
            "a record of {topic} is not JSON ({e}): {}",
            String::from_utf8_lossy(bytes)
        )
    })
}
