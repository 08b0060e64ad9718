//! The JDBC source connector (`io.confluent.connect.jdbc.JdbcSourceConnector`): lists the
//! tables, plans one task per contiguous group of them, and watches for new or dropped tables.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use connect_api::{
    ConfigIssue, ConfigMap, ConnectError, ConnectorContext, Result, SourceConnector,
};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::connection::Database;

use super::config::{validate, SourceSettings, TABLES};
use super::open_database;
use super::table_monitor::{self, SharedTables};
use super::task_planning::plan_table_tasks;

/// The JDBC source connector.
#[derive(Default)]
pub struct JdbcSourceConnector {
    ctx: Option<ConnectorContext>,
    props: ConfigMap,
    settings: Option<SourceSettings>,
    tables: SharedTables,
    db: Option<Database>,
    monitor: Option<(CancellationToken, JoinHandle<()>)>,
}

impl JdbcSourceConnector {
    /// A connector that is not started yet.
    pub fn new() -> Self {
        Self {
            tables: Arc::new(Mutex::new(Vec::new())),
            ..Self::default()
        }
    }
}

#[async_trait]
impl SourceConnector for JdbcSourceConnector {
    fn initialize(&mut self, ctx: ConnectorContext) {
        self.ctx = Some(ctx);
    }

    async fn start(&mut self, props: &ConfigMap) -> Result<()> {
        let settings = SourceSettings::parse(props)?;
        self.props = props.clone();
        if settings.query.is_none() {
            let db = open_database(&settings, 1).await?;
            let tables = table_monitor::current_tables(&db, &settings).await?;
            if tables.is_empty() {
                tracing::warn!(
                    "no tables match the table filters yet; no task runs until one does"
                );
            }
            if let Ok(mut guard) = self.tables.lock() {
                *guard = tables;
            }
            let ctx = self
                .ctx
                .clone()
                .unwrap_or_else(|| ConnectorContext::detached("jdbc-source"));
            let cancel = CancellationToken::new();
            let handle = table_monitor::spawn(
                db.clone(),
                settings.clone(),
                Arc::clone(&self.tables),
                ctx,
                cancel.clone(),
            );
            self.monitor = Some((cancel, handle));
            self.db = Some(db);
        }
        self.settings = Some(settings);
        Ok(())
    }

    fn task_configs(&self, max_tasks: usize) -> Result<Vec<ConfigMap>> {
        let Some(settings) = &self.settings else {
            return Err(ConnectError::Other("task_configs before start".into()));
        };
        if settings.query.is_some() {
            let mut config = self.props.clone();
            config.insert(TABLES.to_owned(), String::new());
            return Ok(vec![config]);
        }
        let tables = self
            .tables
            .lock()
            .map_err(|_| ConnectError::Other("table list lock poisoned".into()))?
            .clone();
        Ok(plan_table_tasks(
            &self.props,
            &tables,
            max_tasks,
            settings.dialect(),
            settings.quote_identifiers,
        ))
    }

    async fn stop(&mut self) -> Result<()> {
        if let Some((cancel, handle)) = self.monitor.take() {
            cancel.cancel();
            let _ = handle.await;
        }
        if let Some(db) = self.db.take() {
            db.close().await;
        }
        Ok(())
    }

    fn validate(&self, props: &ConfigMap) -> Vec<ConfigIssue> {
        validate(props)
    }
}
