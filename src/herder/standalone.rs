//! The standalone herder: one actor that owns the connectors' configurations and the worker.
//! Configurations live in memory (as in Kafka Connect's standalone mode).

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::core::{connector_type, Entry, HerderCore};
use super::{HerderHandle, Request, TargetState};
use crate::config::WorkerConfig;
use crate::plugins::PluginRegistry;
use crate::storage::configs_file::{ConfigsFile, StoredConnector};
use crate::worker::{ConnectorSpec, Worker};

/// The standalone herder, before and while it runs as an actor: the shared core, plus the
/// configurations file that keeps REST-created connectors across restarts.
pub struct StandaloneHerder {
    core: HerderCore,
    /// `config.storage.file.filename`: REST-created connectors survive restarts.
    configs_file: Option<ConfigsFile>,
}

impl StandaloneHerder {
    /// A herder driving `worker`; `worker_id` is the REST `host:port`.
    pub fn new(
        worker: Worker,
        worker_config: Arc<WorkerConfig>,
        plugins: Arc<PluginRegistry>,
        worker_id: String,
    ) -> Self {
        Self {
            configs_file: worker_config
                .config_storage_file()
                .map(|p| ConfigsFile::new(&p)),
            core: HerderCore::new(worker, worker_config, plugins, worker_id),
        }
    }

    /// Starts a validated connector (from the command line).
    ///
    /// # Errors
    /// When it fails to start.
    pub async fn start(
        &mut self,
        spec: ConnectorSpec,
    ) -> Result<(), crate::worker::ConnectorStartError> {
        let name = spec.name.clone();
        let entry = Entry {
            config: spec.raw_props.clone(),
            connector_type: connector_type(&spec),
            failure: None,
            target: TargetState::Started,
            paused_tasks: Vec::new(),
        };
        self.core.worker.start_connector(spec).await?;
        self.core.connectors.insert(name, entry);
        Ok(())
    }

    /// Starts the connectors kept in `config.storage.file.filename` that the command line did not
    /// define, in their stored target state.
    ///
    /// # Errors
    /// When the file cannot be read or is corrupt (it is left untouched).
    pub async fn restore(&mut self) -> Result<(), crate::storage::StorageError> {
        let Some(file) = &self.configs_file else {
            return Ok(());
        };
        for (name, stored) in file.load()? {
            if self.core.connectors.contains_key(&name) {
                continue;
            }
            let target = match stored.target_state.as_str() {
                "PAUSED" => TargetState::Paused,
                "STOPPED" => TargetState::Stopped,
                _ => TargetState::Started,
            };
            info!(connector = %name, "Restoring a connector created over REST.");
            if let Err(e) = self
                .core
                .put_with_state(name.clone(), stored.config, false, target)
                .await
            {
                warn!(connector = %name, error = %e, "A stored connector could not be restored.");
            }
        }
        Ok(())
    }

    /// Writes every connector's configuration and target state to the configurations file.
    fn persist(&self) {
        let Some(file) = &self.configs_file else {
            return;
        };
        let stored = self
            .core
            .connectors
            .iter()
            .map(|(name, e)| {
                let target = match e.target {
                    TargetState::Started => "STARTED",
                    TargetState::Paused => "PAUSED",
                    TargetState::Stopped => "STOPPED",
                };
                (
                    name.clone(),
                    StoredConnector {
                        config: e.config.clone(),
                        target_state: target.to_owned(),
                    },
                )
            })
            .collect();
        if let Err(e) = file.save(stored) {
            warn!(error = %e, "Could not write the connector configurations file.");
        }
    }

    /// Stops every connector (used when start-up fails half-way).
    pub async fn stop(self) -> crate::worker::StopReport {
        self.core.worker.stop().await
    }

    /// Runs the actor; returns its handle and task.
    pub fn spawn(self) -> (HerderHandle, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(64);
        let handle = HerderHandle::new(tx, self.core.worker_id.clone());
        (handle, tokio::spawn(self.run(rx)))
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Request>) {
        let mut events = self.core.worker.take_connector_events();
        loop {
            let request = tokio::select! {
                request = rx.recv() => match request {
                    Some(request) => request,
                    None => break,
                },
                Some(event) = super::core::next_event(&mut events) => {
                    self.core.on_connector_event(event).await;
                    continue;
                }
            };
            let core = &mut self.core;
            match request {
                Request::PutConfig {
                    name,
                    config,
                    allow_replace,
                    initial,
                    reply,
                } => {
                    let result = core
                        .put_with_state(name, config, allow_replace, initial)
                        .await;
                    self.persist();
                    let _ = reply.send(result);
                }
                Request::Delete(name, reply) => {
                    let result = core.delete(&name).await;
                    self.persist();
                    let _ = reply.send(result);
                }
                Request::SetTarget(name, target, reply) => {
                    let result = core.set_target(&name, target).await;
                    self.persist();
                    let _ = reply.send(result);
                }
                Request::Shutdown(reply) => {
                    let report = self.core.worker.stop().await;
                    let _ = reply.send(report);
                    return;
                }
                other => core.answer(other).await,
            }
        }
        self.core.worker.stop().await;
    }
}
