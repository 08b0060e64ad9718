//! The JDBC sink task (Confluent's `JdbcSinkTask`): each `put()` is one transaction; database
//! errors are retried `max.retries` times, `retry.backoff.ms` apart, by handing the batch back
//! as retriable.

use async_trait::async_trait;
use connect_api::{ConfigMap, ConnectError, Result, SinkRecord, SinkTask, SinkTaskContext};
use tokio_util::sync::CancellationToken;

use crate::sink::config::SinkConfig;
use crate::sink::writer::{WriteError, Writer};

/// `io.confluent.connect.jdbc.sink.JdbcSinkTask`.
#[derive(Default)]
pub struct JdbcSinkTask {
    writer: Option<Writer>,
    max_retries: u32,
    remaining_retries: u32,
    backoff: std::time::Duration,
    cancel: CancellationToken,
}

impl JdbcSinkTask {
    /// A task that is not started yet.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl SinkTask for JdbcSinkTask {
    async fn start(&mut self, ctx: SinkTaskContext, props: &ConfigMap) -> Result<()> {
        let config = SinkConfig::parse(props)?;
        self.max_retries = config.max_retries;
        self.remaining_retries = config.max_retries;
        self.backoff = config.retry_backoff;
        self.cancel = ctx.cancel.clone();
        self.writer = Some(Writer::new(config, ctx.connector));
        Ok(())
    }

    async fn put(&mut self, records: Vec<SinkRecord>) -> Result<()> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(ConnectError::Other("JdbcSinkTask.put before start".into()));
        };
        match writer.write(&records).await {
            Ok(()) => {
                self.remaining_retries = self.max_retries;
                Ok(())
            }
            Err(WriteError::Fatal(e)) => Err(e),
            Err(e @ WriteError::Db { .. }) => {
                writer.reset().await;
                if self.remaining_retries == 0 {
                    return Err(ConnectError::Other(format!(
                        "JDBC sink failed after {} retries (max.retries): {e}",
                        self.max_retries
                    )));
                }
                self.remaining_retries -= 1;
                tracing::warn!(
                    error = %e,
                    remaining_retries = self.remaining_retries,
                    "JDBC sink: write failed and was rolled back; retrying after retry.backoff.ms"
                );
                tokio::select! {
                    _ = self.cancel.cancelled() => {}
                    _ = tokio::time::sleep(self.backoff) => {}
                }
                Err(ConnectError::Retriable(e.to_string()))
            }
        }
    }

    async fn stop(&mut self) -> Result<()> {
        if let Some(mut w) = self.writer.take() {
            w.reset().await;
        }
        Ok(())
    }
}
