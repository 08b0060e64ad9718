//! One table (or the custom query) of a task: its offset, when it is due, and the query run in
//! flight. A run is a background tokio task that reads the result row by row and hands
//! finished records (with their offsets) through a bounded queue, so `poll` only ever awaits
//! the queue: dropping a `poll` loses nothing, the next one takes the same records.

use std::sync::Arc;
use std::time::{Duration, Instant};

use connect_api::{ConnectRecord, OffsetMap, SchemaRef, SourceRecord, Struct, Value};
use futures_util::TryStreamExt;
use sqlx::types::chrono::{DateTime, NaiveDateTime, Utc};
use sqlx::Row;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::connection::Database;
use crate::dialect::Dialect;

use super::column_metadata::{query_columns, table_columns};
use super::config::{Mode, NumericMapping, SourceSettings};
use super::offsets::SourceOffset;
use super::query::{column_ref, QueryShape};
use super::record_key::KeyPlan;
use super::row_values::{parse_timestamp_text, AnyRow, Raw};
use super::schema_mapping::{kind_of, struct_schema, ColumnMeta, Kind};
use super::table_id::TableId;

/// What a run hands to the task.
#[derive(Debug)]
pub enum Msg {
    /// The run's starting offset (differs from the querier's only for `timestamp.initial=-1`).
    Start(SourceOffset),
    /// A record and the offset it carries.
    Record(Box<SourceRecord>, SourceOffset),
    /// The result was read to its end.
    End,
    /// The run failed.
    Failed(String),
}

/// What a run needs, copied out of the settings.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Dialect.
    pub dialect: Dialect,
    /// Mode.
    pub mode: Mode,
    /// The table (`None` = custom query).
    pub table: Option<TableId>,
    /// The custom query.
    pub query: Option<String>,
    /// Quote identifiers.
    pub quote: bool,
    /// `incrementing.column.name`.
    pub incrementing_column: String,
    /// `timestamp.column.name`.
    pub timestamp_columns: Vec<String>,
    /// `query.suffix`.
    pub suffix: String,
    /// `numeric.mapping`.
    pub numeric_mapping: NumericMapping,
    /// `validate.non.null`.
    pub validate_non_null: bool,
    /// `timestamp.delay.interval.ms`.
    pub delay: Duration,
    /// `timestamp.initial`.
    pub timestamp_initial: Option<i64>,
    /// Destination topic.
    pub topic: String,
    /// Source partition of every record.
    pub partition: Arc<OffsetMap>,
    /// `key.from.primary.key`.
    pub key_from_primary_key: bool,
}

impl RunSpec {
    /// The spec of `table` (or of the query when `None`).
    pub fn new(settings: &SourceSettings, table: Option<TableId>, partition: OffsetMap) -> Self {
        let topic = match &table {
            Some(t) => format!("{}{}", settings.topic_prefix, t.name),
            None => settings.topic_prefix.clone(),
        };
        Self {
            dialect: settings.dialect(),
            mode: settings.mode,
            table,
            query: settings.query.clone(),
            quote: settings.quote_identifiers,
            incrementing_column: settings.incrementing_column.clone(),
            timestamp_columns: settings.timestamp_columns.clone(),
            suffix: settings.query_suffix.clone(),
            numeric_mapping: settings.numeric_mapping,
            validate_non_null: settings.validate_non_null,
            delay: settings.timestamp_delay,
            timestamp_initial: settings.timestamp_initial,
            topic,
            partition: Arc::new(partition),
            key_from_primary_key: settings.key_from_primary_key,
        }
    }

    /// The table or query, for messages.
    pub fn describe(&self) -> String {
        match &self.table {
            Some(t) => format!("table {t}"),
            None => "query".to_owned(),
        }
    }
}

/// A table's (or the query's) state in a task.
pub struct TableQuerier {
    /// What to query.
    pub spec: Arc<RunSpec>,
    /// The offset after the last record handed out.
    pub offset: SourceOffset,
    /// When the last run ended.
    pub last_update: Option<Instant>,
    running: Option<(mpsc::Receiver<Msg>, JoinHandle<()>)>,
    warned: bool,
}

impl TableQuerier {
    /// A querier resuming at `offset`.
    pub fn new(spec: RunSpec, offset: SourceOffset) -> Self {
        Self {
            spec: Arc::new(spec),
            offset,
            last_update: None,
            running: None,
            warned: false,
        }
    }

    /// When the next run is due.
    pub fn next_due(&self, poll_interval: Duration) -> Option<Instant> {
        self.last_update.map(|t| t + poll_interval)
    }

    /// Whether a run is in flight.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Starts a run on `db`, whose queue holds up to `capacity` records.
    pub fn start_run(&mut self, db: &Database, capacity: usize) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let spec = Arc::clone(&self.spec);
        let offset = self.offset;
        let db = db.clone();
        let warn = !self.warned;
        self.warned = true;
        let handle = tokio::spawn(async move {
            let result = run(&db, &spec, offset, warn, &tx).await;
            let last = match result {
                Ok(()) => Msg::End,
                Err(e) => Msg::Failed(format!("{}: {e}", spec.describe())),
            };
            let _ = tx.send(last).await;
        });
        self.running = Some((rx, handle));
    }

    /// Takes up to `max` records of the run in flight into `out`; cancel-safe. Returns whether
    /// the run is over.
    ///
    /// # Errors
    /// The run's failure.
    pub async fn take(&mut self, max: usize, out: &mut Vec<SourceRecord>) -> Result<bool, String> {
        let Some((rx, _)) = self.running.as_mut() else {
            return Ok(true);
        };
        let mut msgs = Vec::with_capacity(max.min(1024));
        if rx.recv_many(&mut msgs, max.max(1)).await == 0 {
            // The run ended without a last word (it panicked or was aborted).
            self.finish();
            return Err(format!(
                "{}: the query run stopped unexpectedly",
                self.spec.describe()
            ));
        }
        let mut ended = false;
        for msg in msgs {
            match msg {
                Msg::Start(o) => self.offset = o,
                Msg::Record(r, o) => {
                    self.offset = o;
                    out.push(*r);
                }
                Msg::End => ended = true,
                Msg::Failed(e) => {
                    self.finish();
                    return Err(e);
                }
            }
        }
        if ended {
            self.finish();
        }
        Ok(ended)
    }

    fn finish(&mut self) {
        self.running = None;
        self.last_update = Some(Instant::now());
    }

    /// Stops the run in flight, if any.
    pub fn abort(&mut self) {
        if let Some((_, handle)) = self.running.take() {
            handle.abort();
        }
    }
}

impl Drop for TableQuerier {
    fn drop(&mut self) {
        self.abort();
    }
}

/// A query parameter.
#[derive(Debug, Clone, Copy)]
enum Param {
    Int(i64),
    Ts(NaiveDateTime),
}

/// SQLite compares timestamps as text: bound in SQLite's own format with at least
/// millisecond digits, so equal instants compare equal to `strftime('%f')` values.
fn sqlite_ts(t: NaiveDateTime) -> String {
    let nanos = t.and_utc().timestamp_subsec_nanos();
    let fraction = if nanos.is_multiple_of(1_000_000) {
        "%.3f"
    } else if nanos.is_multiple_of(1_000) {
        "%.6f"
    } else {
        "%.9f"
    };
    t.format(&format!("%Y-%m-%d %H:%M:%S{fraction}"))
        .to_string()
}

/// The database's current time.
async fn db_now(db: &Database) -> Result<NaiveDateTime, String> {
    let e = |x: sqlx::Error| format!("reading the database time: {x}");
    Ok(match db {
        Database::Postgres(p) => sqlx::query("SELECT CURRENT_TIMESTAMP")
            .fetch_one(p)
            .await
            .map_err(e)?
            .try_get::<DateTime<Utc>, _>(0)
            .map_err(e)?
            .naive_utc(),
        Database::MySql(p) => sqlx::query("SELECT CURRENT_TIMESTAMP")
            .fetch_one(p)
            .await
            .map_err(e)?
            .try_get::<NaiveDateTime, _>(0)
            .map_err(e)?,
        Database::Sqlite(p) => {
            let text: String = sqlx::query("SELECT strftime('%Y-%m-%d %H:%M:%f','now')")
                .fetch_one(p)
                .await
                .map_err(e)?
                .try_get(0)
                .map_err(e)?;
            parse_timestamp_text(&text).ok_or_else(|| format!("unreadable SQLite time {text:?}"))?
        }
    })
}

/// The column called `name` among `metas`: exact match first, then case-insensitive.
fn find<'a>(metas: &'a [ColumnMeta], name: &str) -> Option<&'a ColumnMeta> {
    metas
        .iter()
        .find(|m| m.name == name)
        .or_else(|| metas.iter().find(|m| m.name.eq_ignore_ascii_case(name)))
}

/// One run: metadata, parameters, the query, every row converted and queued.
async fn run(
    db: &Database,
    spec: &RunSpec,
    mut start: SourceOffset,
    warn: bool,
    tx: &mpsc::Sender<Msg>,
) -> Result<(), String> {
    let d = spec.dialect;
    let (base, table_ref) = match (&spec.table, &spec.query) {
        (Some(t), _) => {
            let q = t.quoted(d, spec.quote);
            (format!("SELECT * FROM {q}"), Some(q))
        }
        (None, Some(query)) => (query.clone(), None),
        (None, None) => return Err("neither a table nor a query".into()),
    };
    let metas = match &spec.table {
        Some(t) => table_columns(db, t).await,
        None => query_columns(db, &base).await,
    }
    .map_err(|e| format!("reading the columns: {e}"))?;
    if metas.is_empty() {
        return Err("the table has no columns (was it dropped?)".into());
    }

    // The incrementing column: configured, or the table's auto-increment column.
    let mut incrementing = None;
    if spec.mode.uses_incrementing() {
        let meta = if spec.incrementing_column.is_empty() {
            metas.iter().find(|m| m.auto_increment).ok_or_else(|| {
                "no auto-increment column; set incrementing.column.name".to_owned()
            })?
        } else {
            find(&metas, &spec.incrementing_column).ok_or_else(|| {
                format!(
                    "incrementing.column.name {:?} is not a column",
                    spec.incrementing_column
                )
            })?
        };
        if spec.validate_non_null && spec.table.is_some() && meta.nullable != Some(false) {
            return Err(format!(
                "incrementing column {:?} is nullable; make it NOT NULL or set validate.non.null=false",
                meta.name
            ));
        }
        incrementing = Some(meta.name.clone());
    }
    let mut timestamps = Vec::new();
    if spec.mode.uses_timestamp() {
        let mut any_not_null = false;
        for c in &spec.timestamp_columns {
            let meta = find(&metas, c)
                .ok_or_else(|| format!("timestamp.column.name {c:?} is not a column"))?;
            any_not_null |= meta.nullable == Some(false);
            timestamps.push(meta.name.clone());
        }
        if spec.validate_non_null && spec.table.is_some() && !any_not_null {
            return Err(format!(
                "timestamp column(s) {} are all nullable; make one NOT NULL or set validate.non.null=false",
                spec.timestamp_columns.join(",")
            ));
        }
    }
    let shape = QueryShape {
        dialect: d,
        base,
        incrementing: incrementing
            .as_deref()
            .map(|c| column_ref(d, spec.quote, table_ref.as_deref(), c)),
        timestamps: timestamps
            .iter()
            .map(|c| column_ref(d, spec.quote, table_ref.as_deref(), c))
            .collect(),
        suffix: spec.suffix.clone(),
    };
    let sql = shape.sql(spec.mode);

    // Parameters.
    let mut params = Vec::new();
    if spec.mode.uses_timestamp() {
        let now = db_now(db).await?;
        if start.timestamp.is_none() {
            start.timestamp = Some(match spec.timestamp_initial {
                Some(-1) => now,
                Some(ms) => DateTime::from_timestamp_millis(ms)
                    .ok_or_else(|| format!("timestamp.initial {ms} is out of range"))?
                    .naive_utc(),
                None => NaiveDateTime::default(),
            });
            send(tx, Msg::Start(start)).await?;
        }
        let begin = start.timestamp.unwrap_or_default();
        let end = now - spec.delay;
        let inc = start.incrementing_or_default();
        params = match spec.mode {
            Mode::Timestamp => vec![Param::Ts(begin), Param::Ts(end)],
            _ => vec![
                Param::Ts(end),
                Param::Ts(begin),
                Param::Int(inc),
                Param::Ts(begin),
            ],
        };
    } else if spec.mode == Mode::Incrementing {
        params = vec![Param::Int(start.incrementing_or_default())];
    }

    let mut sink = RowSink {
        spec,
        metas: &metas,
        warn,
        plan: None,
        incrementing,
        timestamps,
        last: start,
        pending: None,
        tx,
    };
    tracing::debug!(sql = %sql, "querying {}", spec.describe());
    macro_rules! stream {
        ($pool:expr, $variant:ident, $ts:expr) => {{
            let mut q = sqlx::query(&sql);
            for p in &params {
                q = match *p {
                    Param::Int(x) => q.bind(x),
                    Param::Ts(t) => q.bind($ts(t)),
                };
            }
            let mut rows = q.fetch($pool);
            while let Some(row) = rows
                .try_next()
                .await
                .map_err(|e| format!("{e} (query: {sql})"))?
            {
                sink.push(AnyRow::$variant(row)).await?;
            }
        }};
    }
    match db {
        Database::Postgres(p) => stream!(p, Pg, |t: NaiveDateTime| t),
        Database::MySql(p) => stream!(p, My, |t: NaiveDateTime| t),
        Database::Sqlite(p) => stream!(p, Lite, sqlite_ts),
    }
    sink.finish().await
}

async fn send(tx: &mpsc::Sender<Msg>, msg: Msg) -> Result<(), String> {
    // A closed queue means the task stopped: end the run quietly.
    tx.send(msg).await.map_err(|_| "stopped".to_owned())
}

/// How the columns of a result become the record value.
struct Plan {
    schema: SchemaRef,
    /// Result column index and kind of each field.
    fields: Vec<(usize, Kind)>,
    incrementing: Option<usize>,
    timestamps: Vec<usize>,
    /// The record key, with `key.from.primary.key`.
    key: Option<KeyPlan>,
}

/// Turns rows into queued records, computing each record's offset.
struct RowSink<'a> {
    spec: &'a RunSpec,
    metas: &'a [ColumnMeta],
    warn: bool,
    plan: Option<Plan>,
    incrementing: Option<String>,
    timestamps: Vec<String>,
    /// The offset of the last record queued (the run's start offset at first).
    last: SourceOffset,
    /// Timestamp mode: a record held back until the next row's timestamp is known.
    pending: Option<(SourceRecord, NaiveDateTime)>,
    tx: &'a mpsc::Sender<Msg>,
}

impl RowSink<'_> {
    fn plan(&mut self, row: &AnyRow) -> Result<&Plan, String> {
        if self.plan.is_none() {
            let names = row.column_names();
            let index = |n: &str| {
                names
                    .iter()
                    .position(|c| c == n)
                    .or_else(|| names.iter().position(|c| c.eq_ignore_ascii_case(n)))
            };
            let mut fields = Vec::new();
            let mut schema_fields = Vec::new();
            for (i, name) in names.iter().enumerate() {
                let meta = if self.spec.table.is_some() {
                    find(self.metas, name)
                } else {
                    self.metas.get(i)
                };
                let Some(meta) = meta else {
                    return Err(format!(
                        "result column {name:?} has no metadata (the table changed?)"
                    ));
                };
                match kind_of(self.spec.dialect, meta, self.spec.numeric_mapping) {
                    Some(kind) => {
                        fields.push((i, kind));
                        schema_fields.push((name.clone(), kind, meta.nullable != Some(false)));
                    }
                    None if self.warn => tracing::warn!(
                        "{}: column {name:?} of type {} has no Connect type; it is left out of the records",
                        self.spec.describe(),
                        meta.type_name
                    ),
                    None => {}
                }
            }
            let name = self.spec.table.as_ref().map(|t| t.name.as_str());
            let incrementing = match &self.incrementing {
                Some(c) => Some(index(c).ok_or_else(|| format!("the result has no column {c:?}"))?),
                None => None,
            };
            let timestamps = self
                .timestamps
                .iter()
                .map(|c| index(c).ok_or_else(|| format!("the result has no column {c:?}")))
                .collect::<Result<_, _>>()?;
            let key = match &self.spec.table {
                Some(table) if self.spec.key_from_primary_key => {
                    Some(KeyPlan::new(table, self.metas, &schema_fields)?)
                }
                _ => None,
            };
            self.plan = Some(Plan {
                schema: struct_schema(name, &schema_fields),
                fields,
                incrementing,
                timestamps,
                key,
            });
        }
        self.plan.as_ref().ok_or_else(|| "no plan".to_owned())
    }

    async fn push(&mut self, row: AnyRow) -> Result<(), String> {
        let spec = self.spec;
        let inc_name = self.incrementing.clone().unwrap_or_default();
        let plan = self.plan(&row)?;
        let mut values = Vec::with_capacity(plan.fields.len());
        for &(i, kind) in &plan.fields {
            values.push(
                row.raw(i)?
                    .to_value(kind)
                    .map_err(|e| format!("column {i}: {e}"))?,
            );
        }
        let (key_schema, key) = match &plan.key {
            Some(k) => (Some(Arc::clone(&k.schema)), k.key(&values)?),
            None => (None, Value::Null),
        };
        let value =
            Struct::from_values(Arc::clone(&plan.schema), values).map_err(|e| e.to_string())?;
        let incrementing = match plan.incrementing {
            Some(i) => Some(row.raw(i)?.integer().ok_or_else(|| {
                format!("incrementing column {inc_name:?} is null or not an integer below 2^63")
            })?),
            None => None,
        };
        let mut timestamp = None;
        for &i in &plan.timestamps {
            let raw = row.raw(i)?;
            if raw != Raw::Null {
                timestamp = Some(
                    raw.timestamp()
                        .ok_or_else(|| format!("unreadable timestamp {raw:?}"))?,
                );
                break;
            }
        }
        let record = SourceRecord {
            source_partition: Arc::clone(&spec.partition),
            source_offset: None,
            record: ConnectRecord {
                topic: spec.topic.clone(),
                key_schema,
                key,
                value_schema: Some(Arc::clone(&plan.schema)),
                value: Value::Struct(value),
                ..ConnectRecord::default()
            },
        };
        match spec.mode {
            Mode::Bulk => self.emit(record, self.last).await,
            Mode::Incrementing => {
                let o = SourceOffset {
                    incrementing,
                    ..self.last
                };
                self.emit(record, o).await
            }
            Mode::TimestampIncrementing => {
                let o = SourceOffset {
                    incrementing,
                    timestamp: timestamp.or(self.last.timestamp),
                };
                self.emit(record, o).await
            }
            Mode::Timestamp => {
                // A record's offset moves to its timestamp only once a later timestamp is
                // seen (or the result ends): rows sharing it keep the prior offset, so a
                // restart never skips the rest of them.
                let t = timestamp.ok_or("the timestamp columns are all null")?;
                if let Some((held, held_t)) = self.pending.take() {
                    let o = if t > held_t {
                        SourceOffset {
                            timestamp: Some(held_t),
                            ..self.last
                        }
                    } else {
                        self.last
                    };
                    self.emit(held, o).await?;
                }
                self.pending = Some((record, t));
                Ok(())
            }
        }
    }

    async fn emit(&mut self, mut record: SourceRecord, offset: SourceOffset) -> Result<(), String> {
        record.source_offset = offset.encode(self.spec.mode).map(Into::into);
        self.last = offset;
        send(self.tx, Msg::Record(Box::new(record), offset)).await
    }

    async fn finish(mut self) -> Result<(), String> {
        if let Some((held, t)) = self.pending.take() {
            let o = SourceOffset {
                timestamp: Some(t),
                ..self.last
            };
            self.emit(held, o).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_timestamps_bound_with_millisecond_digits_at_least() {
        let t = |s| parse_timestamp_text(s).unwrap();
        assert_eq!(
            sqlite_ts(t("2024-01-02 03:04:05")),
            "2024-01-02 03:04:05.000"
        );
        assert_eq!(
            sqlite_ts(t("2024-01-02 03:04:05.5")),
            "2024-01-02 03:04:05.500"
        );
        assert_eq!(
            sqlite_ts(t("2024-01-02 03:04:05.123456")),
            "2024-01-02 03:04:05.123456"
        );
    }
}
