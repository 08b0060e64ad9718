//! The table monitor: lists the tables again every `table.poll.interval.ms` and asks the
//! runtime to plan the tasks again when the filtered list changed (Kafka Connect's
//! `requestTaskReconfiguration`).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use connect_api::{ConnectError, ConnectorContext};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::connection::Database;

use super::config::SourceSettings;
use super::record_key::require_primary_keys;
use super::table_id::TableId;
use super::table_listing::{filter_tables, list_tables};

/// The current filtered table list, shared by the monitor and `task_configs`.
pub type SharedTables = Arc<Mutex<Vec<TableId>>>;

/// Lists and filters the tables once (with `key.from.primary.key`, checking each has a primary
/// key).
///
/// # Errors
/// The listing error, two tables of one unqualified name (they would share a topic), or (a
/// configuration error) a table without a primary key when the key is taken from it.
pub async fn current_tables(
    db: &Database,
    settings: &SourceSettings,
) -> Result<Vec<TableId>, ConnectError> {
    let all = list_tables(db, settings)
        .await
        .map_err(|e| ConnectError::Retriable(format!("listing the tables: {e}")))?;
    let tables = filter_tables(all, &settings.filter, settings.dialect());
    let mut seen = BTreeSet::new();
    for t in &tables {
        if !seen.insert(t.name.as_str()) {
            let same: Vec<String> = tables
                .iter()
                .filter(|u| u.name == t.name)
                .map(TableId::unquoted)
                .collect();
            return Err(ConnectError::config(
                "table.whitelist",
                format!(
                    "tables {} share the name {:?} and would write to one topic; narrow the table filters or schema.pattern",
                    same.join(", "),
                    t.name
                ),
            ));
        }
    }
    if settings.key_from_primary_key {
        require_primary_keys(db, &tables).await?;
    }
    Ok(tables)
}

/// Starts the monitor; it ends when `cancel` (or the context's token) fires.
pub fn spawn(
    db: Database,
    settings: SourceSettings,
    tables: SharedTables,
    ctx: ConnectorContext,
    cancel: CancellationToken,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let interval = settings
            .table_poll_interval
            .max(std::time::Duration::from_millis(10));
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = ctx.cancel().cancelled() => return,
                _ = tokio::time::sleep(interval) => {}
            }
            match current_tables(&db, &settings).await {
                Ok(now) => {
                    let changed = {
                        let Ok(mut guard) = tables.lock() else { return };
                        let changed = *guard != now;
                        if changed {
                            tracing::info!(
                                before = guard.len(),
                                after = now.len(),
                                "the table list changed; asking for a task reconfiguration"
                            );
                            *guard = now;
                        }
                        changed
                    };
                    if changed {
                        ctx.request_task_reconfiguration();
                    }
                }
                Err(e @ ConnectError::Config { .. }) => {
                    ctx.raise_error(e);
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not list the tables; trying again later")
                }
            }
        }
    })
}
