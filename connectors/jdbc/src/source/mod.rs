//! The JDBC source connector: copies tables (or a custom query) into topics, in bulk or
//! incrementally by an incrementing column and/or timestamp columns, with the Confluent JDBC
//! source's keys, topics, source partitions and offsets.
//!
//! * [`config`]: keys and [`config::SourceSettings`].
//! * [`table_id`], [`table_listing`], [`table_monitor`], [`task_planning`]: which tables, and
//!   which task reads which.
//! * [`query`], [`offsets`], [`querier`]: the SQL of each mode, partitions and offsets, runs.
//! * [`column_metadata`], [`schema_mapping`], [`row_values`]: column types to Connect schemas
//!   and values; [`record_key`]: the key from the primary key (`key.from.primary.key`).
//! * [`connector`], [`task`], [`plugin`]: what the runtime calls.

pub mod column_metadata;
pub mod config;
pub mod connector;
pub mod offsets;
pub mod plugin;
pub mod querier;
pub mod query;
pub mod record_key;
pub mod row_values;
pub mod schema_mapping;
pub mod table_id;
pub mod table_listing;
pub mod table_monitor;
pub mod task;
pub mod task_planning;

pub use plugin::JdbcSourcePlugin;

use connect_api::{ConnectError, Result};

use crate::connection::Database;
use config::SourceSettings;

/// Opens a pool of `max` connections, trying `connection.attempts` times
/// `connection.backoff.ms` apart.
///
/// # Errors
/// A retriable error with the last failure when every attempt failed.
pub(crate) async fn open_database(settings: &SourceSettings, max: u32) -> Result<Database> {
    let mut attempt = 1;
    loop {
        match Database::connect(
            &settings.connection,
            max,
            std::time::Duration::from_secs(30),
        )
        .await
        {
            Ok(db) => return Ok(db),
            Err(e) if attempt < settings.connection_attempts => {
                tracing::warn!(attempt, error = %e, "could not connect; trying again in {:?}", settings.connection_backoff);
                tokio::time::sleep(settings.connection_backoff).await;
                attempt += 1;
            }
            Err(e) => {
                return Err(ConnectError::Retriable(format!(
                    "{e} (after {attempt} attempt(s))"
                )))
            }
        }
    }
}
