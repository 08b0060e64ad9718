//! Writes one `put()` batch: records to per-table statements (tables created and evolved as
//! configured first, outside the transaction), then every row in one transaction, in record
//! order (consecutive rows in multi-row statements, see [`crate::sink::batch`]), committed at
//! the end or rolled back on the first error.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use connect_api::{ConnectError, SchemaRef, SinkRecord, Value};

use crate::connection::Database;
use crate::dialect::Dialect;
use crate::sink::batch;
use crate::sink::bind::{bind_mysql, bind_pg, bind_sqlite, to_sql, SqlValue};
use crate::sink::config::{InsertMode, PkMode, SinkConfig};
use crate::sink::ddl::{alter_table, create_table};
use crate::sink::fields::{Column, Fields, Source};
use crate::sink::metadata::{describe, execute_ddl, TableDef};
use crate::sink::statements::{BindOrder, Statement, StatementBuilder};
use crate::sink::table_id::TableId;

/// Why a write failed.
#[derive(Debug)]
pub enum WriteError {
    /// The database failed (Confluent's `SQLException`): retried up to `max.retries`.
    Db {
        /// What was being done.
        context: String,
        /// The driver's error.
        source: sqlx::Error,
    },
    /// A record or table that cannot be written: the task fails.
    Fatal(ConnectError),
}

impl From<ConnectError> for WriteError {
    fn from(e: ConnectError) -> Self {
        Self::Fatal(e)
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Db { context, source } => write!(f, "{context}: {source}"),
            Self::Fatal(e) => write!(f, "{e}"),
        }
    }
}

fn db_err(context: impl Into<String>) -> impl FnOnce(sqlx::Error) -> WriteError {
    let context = context.into();
    move |source| WriteError::Db { context, source }
}

/// How records of one table and one pair of schemas are written.
#[derive(Debug)]
struct Plan {
    key_schema: Option<SchemaRef>,
    value_schema: Option<SchemaRef>,
    fields: Fields,
    /// The INSERT / upsert / UPDATE (absent for a delete-only plan).
    write: Option<Statement>,
    /// The DELETE (when deletes are enabled and the table exists).
    delete: Option<Statement>,
}

/// One statement execution.
struct Op {
    plan: Arc<Plan>,
    delete: bool,
    values: Vec<SqlValue>,
}

/// The database writer of one task.
pub struct Writer {
    config: SinkConfig,
    connector: String,
    db: Option<Database>,
    tables: HashMap<TableId, TableDef>,
    plans: HashMap<TableId, Vec<Arc<Plan>>>,
}

fn same(a: Option<&SchemaRef>, b: Option<&SchemaRef>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
        _ => false,
    }
}

impl Writer {
    /// A writer that connects on first use.
    pub fn new(config: SinkConfig, connector: String) -> Self {
        Self {
            config,
            connector,
            db: None,
            tables: HashMap::new(),
            plans: HashMap::new(),
        }
    }

    /// Closes the connection and forgets what it knew of the tables (after an error).
    pub async fn reset(&mut self) {
        if let Some(db) = self.db.take() {
            db.close().await;
        }
        self.tables.clear();
        self.plans.clear();
    }

    async fn connect(&mut self) -> Result<Database, WriteError> {
        if let Some(db) = &self.db {
            return Ok(db.clone());
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            match Database::connect(&self.config.connection, 1, Duration::from_secs(10)).await {
                Ok(db) => {
                    self.db = Some(db.clone());
                    return Ok(db);
                }
                Err(e) if attempt < self.config.connection_attempts => {
                    tracing::warn!(error = %e, attempt, "JDBC sink: connection attempt failed; retrying");
                    tokio::time::sleep(self.config.connection_backoff).await;
                }
                Err(e) => {
                    return Err(WriteError::Db {
                        context: format!(
                            "could not connect after {attempt} attempt(s) (connection.attempts)"
                        ),
                        source: e.source,
                    })
                }
            }
        }
    }

    /// Writes `records` in one transaction.
    ///
    /// # Errors
    /// [`WriteError::Db`] when the database fails, [`WriteError::Fatal`] for records or tables
    /// that cannot be written.
    pub async fn write(&mut self, records: &[SinkRecord]) -> Result<(), WriteError> {
        if records.is_empty() {
            return Ok(());
        }
        let db = self.connect().await?;
        let mut ops = Vec::with_capacity(records.len());
        for r in records {
            let rec = &r.record;
            let table = TableId::for_topic(
                &self.config.table_name_format,
                &rec.topic,
                self.config.dialect,
                self.config.quote,
            );
            let tombstone = rec.value.is_null();
            self.check(r, tombstone)?;
            let plan = self
                .plan(
                    &db,
                    &table,
                    rec.key_schema.as_ref(),
                    rec.value_schema.as_ref(),
                    tombstone,
                )
                .await?;
            if tombstone {
                if plan.delete.is_none() {
                    // The table does not exist: nothing to delete.
                    continue;
                }
                let values = plan
                    .fields
                    .keys
                    .iter()
                    .map(|c| self.param(r, c))
                    .collect::<Result<Vec<_>, _>>()?;
                ops.push(Op {
                    plan,
                    delete: true,
                    values,
                });
            } else {
                let Some(stmt) = &plan.write else {
                    continue;
                };
                let keys = plan.fields.keys.iter();
                let vals = plan.fields.values.iter();
                let cols: Vec<&Column> = match stmt.order {
                    BindOrder::ValuesThenKeys => vals.chain(keys).collect(),
                    BindOrder::KeysThenValues | BindOrder::KeysOnly => keys.chain(vals).collect(),
                };
                let values = cols
                    .into_iter()
                    .map(|c| self.param(r, c))
                    .collect::<Result<Vec<_>, _>>()?;
                ops.push(Op {
                    plan,
                    delete: false,
                    values,
                });
            }
        }
        let unique_keys = self.config.dialect == Dialect::Postgres
            && self.config.insert_mode == InsertMode::Upsert;
        execute(&db, ops, self.config.batch_size, unique_keys).await
    }

    /// Refuses records the configuration cannot write (Confluent's `RecordValidator`).
    fn check(&self, r: &SinkRecord, tombstone: bool) -> Result<(), WriteError> {
        let rec = &r.record;
        let c = &self.config;
        let at = || {
            format!(
                "(topic='{}',partition={},offset={},timestamp={})",
                rec.topic,
                rec.kafka_partition.unwrap_or(-1),
                r.kafka_offset,
                rec.timestamp
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "null".into())
            )
        };
        let modes = format!(
            "'delete.enabled={}' and 'pk.mode={}'",
            c.delete_enabled,
            match c.pk_mode {
                PkMode::None => "none",
                PkMode::Kafka => "kafka",
                PkMode::RecordKey => "record_key",
                PkMode::RecordValue => "record_value",
            }
        );
        if tombstone {
            if !c.delete_enabled {
                return Err(ConnectError::data(format!(
                    "Sink connector '{}' is configured with {modes} and therefore requires \
                     records with a non-null Struct value and non-null Struct schema, but found \
                     record at {} with a null value (a tombstone; set delete.enabled=true with \
                     pk.mode=record_key to delete rows by key)",
                    self.connector,
                    at()
                ))
                .into());
            }
            if rec.key.is_null() || rec.key_schema.is_none() {
                return Err(ConnectError::data(format!(
                    "Sink connector '{}' is configured with {modes} and therefore requires \
                     records with a non-null key and non-null key schema, but found record at \
                     {} with a null key or key schema",
                    self.connector,
                    at()
                ))
                .into());
            }
            return Ok(());
        }
        let struct_value = matches!(rec.value, Value::Struct(_));
        let struct_schema = rec
            .value_schema
            .as_ref()
            .is_some_and(|s| s.schema_type == connect_api::SchemaType::Struct);
        if !struct_value || !struct_schema {
            return Err(ConnectError::data(format!(
                "Sink connector '{}' is configured with {modes} and therefore requires records \
                 with a non-null Struct value and non-null Struct schema, but found record at {} \
                 with a {} value and {} value schema (the JDBC sink needs schemas: e.g. \
                 JsonConverter with value.converter.schemas.enable=true)",
                self.connector,
                at(),
                rec.value.type_name(),
                rec.value_schema
                    .as_ref()
                    .map(|s| s.schema_type.name())
                    .unwrap_or("null")
            ))
            .into());
        }
        if c.pk_mode == PkMode::RecordKey && (rec.key.is_null() || rec.key_schema.is_none()) {
            return Err(ConnectError::data(format!(
                "Sink connector '{}' is configured with {modes} and therefore requires records \
                 with a non-null key and non-null key schema, but found record at {} with a \
                 null key or key schema",
                self.connector,
                at()
            ))
            .into());
        }
        Ok(())
    }

    /// The parameter of column `c` for record `r`.
    fn param(&self, r: &SinkRecord, c: &Column) -> Result<SqlValue, WriteError> {
        let rec = &r.record;
        let tz = self.config.db_timezone;
        let field = |v: &Value, i: usize| -> Value {
            match v {
                Value::Struct(s) => s.values().get(i).cloned().unwrap_or(Value::Null),
                _ => Value::Null,
            }
        };
        let value = match c.source {
            Source::Topic => Value::String(rec.topic.clone()),
            Source::Partition => Value::Int32(rec.kafka_partition.unwrap_or(0)),
            Source::Offset => Value::Int64(r.kafka_offset),
            Source::Key => rec.key.clone(),
            Source::KeyField(i) => field(&rec.key, i),
            Source::ValueField(i) => field(&rec.value, i),
        };
        to_sql(&value, &c.schema, tz, &c.name).map_err(|e| {
            WriteError::Fatal(ConnectError::data(format!(
                "record at topic '{}' partition {} offset {}: {e}",
                rec.topic,
                rec.kafka_partition.unwrap_or(-1),
                r.kafka_offset
            )))
        })
    }

    /// The plan of `table` for these schemas, creating or evolving the table when needed.
    async fn plan(
        &mut self,
        db: &Database,
        table: &TableId,
        key_schema: Option<&SchemaRef>,
        value_schema: Option<&SchemaRef>,
        tombstone: bool,
    ) -> Result<Arc<Plan>, WriteError> {
        if let Some(found) = self.plans.get(table).and_then(|plans| {
            plans.iter().find(|p| {
                same(p.key_schema.as_ref(), key_schema)
                    && (tombstone || same(p.value_schema.as_ref(), value_schema))
            })
        }) {
            return Ok(found.clone());
        }
        let c = &self.config;
        let name = table.to_string();
        let fields = Fields::extract(
            &name,
            c.pk_mode,
            &c.pk_fields,
            &c.fields_whitelist,
            key_schema,
            if tombstone { None } else { value_schema },
        )?;
        let def = if tombstone {
            self.table_def(db, table).await?
        } else {
            Some(self.ensure_table(db, table, &fields).await?)
        };
        let c = &self.config;
        let table_sql = table.sql(c.dialect, c.quote);
        let keys: Vec<&str> = fields.keys.iter().map(|k| k.name.as_str()).collect();
        let values: Vec<&str> = fields.values.iter().map(|k| k.name.as_str()).collect();
        let casts: Vec<Option<&str>> = if c.dialect == Dialect::Postgres {
            keys.iter()
                .chain(&values)
                .map(|n| {
                    def.as_ref().and_then(|d| d.find(n)).and_then(|col| {
                        match col.type_name.as_str() {
                            "json" => Some("json"),
                            "jsonb" => Some("jsonb"),
                            "uuid" => Some("uuid"),
                            _ => None,
                        }
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let builder = StatementBuilder {
            dialect: c.dialect,
            quote: c.quote,
            table: &table_sql,
            keys: &keys,
            values: &values,
            casts: &casts,
        };
        let write = if tombstone {
            None
        } else {
            Some(
                builder
                    .write(c.insert_mode)
                    .map_err(|m| WriteError::Fatal(ConnectError::Other(m)))?,
            )
        };
        let delete = if c.delete_enabled && def.is_some() {
            builder.delete()
        } else {
            None
        };
        let plan = Arc::new(Plan {
            key_schema: key_schema.cloned(),
            value_schema: if tombstone {
                None
            } else {
                value_schema.cloned()
            },
            fields,
            write,
            delete,
        });
        if !tombstone || def.is_some() {
            self.plans
                .entry(table.clone())
                .or_default()
                .push(plan.clone());
        }
        Ok(plan)
    }

    async fn table_def(
        &mut self,
        db: &Database,
        table: &TableId,
    ) -> Result<Option<TableDef>, WriteError> {
        if let Some(d) = self.tables.get(table) {
            return Ok(Some(d.clone()));
        }
        let d = describe(db, table)
            .await
            .map_err(db_err(format!("reading the columns of table {table}")))?;
        if let Some(d) = &d {
            self.tables.insert(table.clone(), d.clone());
        }
        Ok(d)
    }

    /// The table's definition after creating it (`auto.create`) or adding missing columns
    /// (`auto.evolve`) as needed.
    async fn ensure_table(
        &mut self,
        db: &Database,
        table: &TableId,
        fields: &Fields,
    ) -> Result<TableDef, WriteError> {
        let c = self.config.clone();
        let table_sql = table.sql(c.dialect, c.quote);
        let columns = fields.table_order();
        let def = match self.table_def(db, table).await? {
            Some(d) => d,
            None => {
                if !c.auto_create {
                    return Err(ConnectError::Other(format!(
                        "Table {table} is missing and auto-creation is disabled (auto.create=false)"
                    ))
                    .into());
                }
                let sql = create_table(c.dialect, c.quote, &table_sql, &columns)?;
                tracing::info!(table = %table, sql = %sql, "JDBC sink: creating table");
                if let Err(e) = execute_ddl(db, &sql).await {
                    // Another task may have created it meanwhile.
                    if describe(db, table).await.ok().flatten().is_none() {
                        return Err(db_err(format!("creating table {table} with {sql}"))(e));
                    }
                }
                self.tables.remove(table);
                self.table_def(db, table).await?.ok_or_else(|| {
                    ConnectError::Other(format!(
                        "Table {table} is still missing after CREATE TABLE"
                    ))
                })?
            }
        };
        let missing: Vec<&Column> = columns
            .iter()
            .copied()
            .filter(|col| def.find(&col.name).is_none())
            .collect();
        if missing.is_empty() {
            return Ok(def);
        }
        let names: Vec<&str> = missing.iter().map(|m| m.name.as_str()).collect();
        if !c.auto_evolve {
            return Err(ConnectError::Other(format!(
                "Table {table} is missing fields ({}) and auto-evolution is disabled \
                 (auto.evolve=false)",
                names.join(", ")
            ))
            .into());
        }
        for m in &missing {
            if !m.schema.optional && m.schema.default.is_none() {
                return Err(ConnectError::Other(format!(
                    "Cannot ALTER TABLE {table} to add missing field {}, as the field is not \
                     optional and does not have a default value",
                    m.name
                ))
                .into());
            }
        }
        for sql in alter_table(c.dialect, c.quote, &table_sql, &missing)? {
            tracing::info!(table = %table, sql = %sql, "JDBC sink: adding columns");
            execute_ddl(db, &sql)
                .await
                .map_err(db_err(format!("altering table {table} with {sql}")))?;
        }
        self.tables.remove(table);
        self.plans.remove(table);
        self.table_def(db, table).await?.ok_or_else(|| {
            ConnectError::Other(format!("Table {table} vanished after ALTER TABLE")).into()
        })
    }
}

/// The statement of `op`.
fn statement(op: &Op) -> Option<&Statement> {
    if op.delete {
        op.plan.delete.as_ref()
    } else {
        op.plan.write.as_ref()
    }
}

/// Cuts `ops` into statements: consecutive writes of one plan together, up to `batch_size`
/// rows and the parameter limit; with `unique_keys`, never one key twice in a statement.
fn statements(
    ops: &[Op],
    dialect: Dialect,
    batch_size: usize,
    unique_keys: bool,
) -> Vec<std::ops::Range<usize>> {
    let mut group = 0;
    let described: Vec<batch::Op> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            if i > 0 && !Arc::ptr_eq(&ops[i - 1].plan, &op.plan) {
                group += 1;
            }
            let rows = statement(op)
                .and_then(|s| s.rows.as_ref())
                .filter(|_| !op.delete);
            batch::Op {
                group,
                max_rows: rows
                    .map(|r| batch::rows_per_statement(batch_size, r.params_per_row(), dialect)),
                key: (unique_keys && rows.is_some())
                    .then(|| batch::key_bytes(&op.values[..op.plan.fields.keys.len()])),
            }
        })
        .collect();
    batch::split(&described)
}

/// Runs `ops` in one transaction, in multi-row statements of up to `batch_size` rows.
async fn execute(
    db: &Database,
    ops: Vec<Op>,
    batch_size: usize,
    unique_keys: bool,
) -> Result<(), WriteError> {
    let ranges = statements(&ops, db.dialect(), batch_size, unique_keys);
    macro_rules! run {
        ($pool:expr, $bind:ident) => {{
            let mut tx = $pool
                .begin()
                .await
                .map_err(db_err("beginning a transaction"))?;
            let mut ops = ops.into_iter();
            for range in ranges {
                let n = range.len();
                let chunk: Vec<Op> = ops.by_ref().take(n).collect();
                let Some(first) = chunk.first() else { continue };
                let plan = first.plan.clone();
                let stmt = if first.delete {
                    plan.delete.as_ref()
                } else {
                    plan.write.as_ref()
                };
                let Some(stmt) = stmt else { continue };
                let sql = match (&stmt.rows, n) {
                    (Some(rows), 2..) => rows.sql(n),
                    _ => stmt.sql.clone(),
                };
                let mut q = sqlx::query(&sql);
                for op in chunk {
                    for v in op.values {
                        q = $bind(q, v);
                    }
                }
                q.execute(&mut *tx).await.map_err(db_err(format!(
                    "executing {} ({n} row(s) in one statement)",
                    stmt.sql
                )))?;
            }
            tx.commit()
                .await
                .map_err(db_err("committing the transaction"))
        }};
    }
    match db {
        Database::Postgres(p) => run!(p, bind_pg),
        Database::MySql(p) => run!(p, bind_mysql),
        Database::Sqlite(p) => run!(p, bind_sqlite),
    }
}
