//! The JDBC source task (`io.confluent.connect.jdbc.source.JdbcSourceTask`): queries its
//! tables in turn, each at most every `poll.interval.ms`, resuming from the stored offsets.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use connect_api::{
    ConfigMap, ConnectError, OffsetMap, Result, SourceRecord, SourceTask, SourceTaskContext,
};

use crate::connection::Database;

use super::config::{Mode, SourceSettings, TABLES};
use super::offsets::{legacy_table_partition, query_partition, table_partition, SourceOffset};
use super::open_database;
use super::querier::{RunSpec, TableQuerier};
use super::table_id::TableId;

/// Longest a `poll` waits for a table to be due before returning an empty batch (so the
/// worker gets to commit offsets meanwhile).
const MAX_IDLE_WAIT: Duration = Duration::from_secs(1);

/// The JDBC source task.
#[derive(Default)]
pub struct JdbcSourceTask {
    settings: Option<SourceSettings>,
    db: Option<Database>,
    queriers: Vec<TableQuerier>,
    /// The querier whose run is being drained.
    current: Option<usize>,
    ctx: Option<SourceTaskContext>,
}

impl JdbcSourceTask {
    /// A task that is not started yet.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The stored offset of `partition`, decoded.
fn stored(ctx: &SourceTaskContext, partition: &OffsetMap) -> Result<Option<SourceOffset>> {
    match ctx.offsets.offset(partition) {
        None => Ok(None),
        Some(map) => SourceOffset::decode(&map).map(Some).map_err(|e| {
            ConnectError::data(format!(
                "the stored offset {} of partition {} is not usable: {e}",
                serde_json::Value::Object(map.clone()),
                serde_json::Value::Object(partition.clone())
            ))
        }),
    }
}

#[async_trait]
impl SourceTask for JdbcSourceTask {
    async fn start(&mut self, ctx: SourceTaskContext, props: &ConfigMap) -> Result<()> {
        let settings = SourceSettings::parse(props)?;
        let dialect = settings.dialect();
        let mut queriers = Vec::new();
        if settings.query.is_some() {
            let partition = query_partition();
            let offset = stored(&ctx, &partition)?.unwrap_or_default();
            queriers.push(TableQuerier::new(
                RunSpec::new(&settings, None, partition),
                offset,
            ));
        } else {
            let text = props.get(TABLES).map(String::as_str).unwrap_or("");
            let tables = TableId::parse_list(text, dialect)
                .map_err(|e| ConnectError::config(TABLES, format!("tables={text}: {e}")))?;
            for table in tables {
                let partition = table_partition(&table, settings.mode);
                let mut offset = stored(&ctx, &partition)?;
                if offset.is_none() && settings.mode != Mode::Bulk {
                    offset = stored(&ctx, &legacy_table_partition(&table))?;
                }
                if let Some(o) = &offset {
                    tracing::info!(table = %table, "resuming from offset {o:?}");
                }
                queriers.push(TableQuerier::new(
                    RunSpec::new(&settings, Some(table), partition),
                    offset.unwrap_or_default(),
                ));
            }
        }
        if queriers.is_empty() {
            tracing::warn!("no tables assigned to this task; it stays idle");
        } else {
            self.db = Some(open_database(&settings, 2).await?);
        }
        self.queriers = queriers;
        self.settings = Some(settings);
        self.ctx = Some(ctx);
        Ok(())
    }

    async fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        let Some(settings) = &self.settings else {
            return Err(ConnectError::Other("poll before start".into()));
        };
        let (batch, interval) = (settings.batch_max_rows, settings.poll_interval);
        let cancel = self
            .ctx
            .as_ref()
            .map(|c| c.cancel.clone())
            .unwrap_or_default();
        loop {
            if let Some(i) = self.current {
                let mut out = Vec::new();
                let ended = self.queriers[i]
                    .take(batch, &mut out)
                    .await
                    .map_err(ConnectError::Other)?;
                if ended {
                    self.current = None;
                }
                if !out.is_empty() {
                    return Ok(out);
                }
                continue;
            }
            // The querier due first (never queried = due now).
            let now = Instant::now();
            let Some((i, due)) = self
                .queriers
                .iter()
                .enumerate()
                .map(|(i, q)| (i, q.next_due(interval).unwrap_or(now)))
                .min_by_key(|(_, due)| *due)
            else {
                tokio::select! {
                    _ = cancel.cancelled() => {}
                    _ = tokio::time::sleep(MAX_IDLE_WAIT) => {}
                }
                return Ok(Vec::new());
            };
            if due <= now {
                let Some(db) = &self.db else {
                    return Err(ConnectError::Other("no database connection".into()));
                };
                self.queriers[i].start_run(db, batch);
                self.current = Some(i);
                continue;
            }
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = tokio::time::sleep_until((due.min(now + MAX_IDLE_WAIT)).into()) => {}
            }
            return Ok(Vec::new());
        }
    }

    async fn stop(&mut self) -> Result<()> {
        for q in &mut self.queriers {
            q.abort();
        }
        if let Some(db) = self.db.take() {
            db.close().await;
        }
        Ok(())
    }
}
