//! The standalone herder: one actor that owns the connectors' configurations and the worker.
//! Configurations live in a [`ConfigStore`]: in memory (as in Kafka Connect's standalone mode)
//! or, with `config.storage.file.filename`, in the configurations file as well.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use connect_api::ConfigMap;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use super::core::{connector_type, Entry, HerderCore};
use super::dispatch::{answer_ended_starts, dispatch, Herder};
use super::topic_tracking;
use super::{
    ConnectorInfo, FenceOrigin, HerderError, HerderHandle, InternalSignature, Request, TargetState,
};
use crate::config::WorkerConfig;
use crate::plugins::PluginRegistry;
use crate::storage::config_store::{config_map, props};
use crate::storage::configs_file::ConfigsFile;
use crate::storage::internal::config_state::{connector_config_records, connector_removal_records};
use crate::storage::internal::ConfigRecord;
use crate::storage::{ConfigStore, FileConfigStore, MemoryConfigStore, MemoryStatusStore};
use crate::worker::{ConnectorSpec, StopReport, Worker};

/// Kafka Connect's refusal of `POST /connectors/{c}/tasks` by a standalone worker.
pub const STANDALONE_PUT_TASK_CONFIGS: &str =
    "Kafka Connect in standalone mode does not support externally setting task configurations.";

/// Kafka Connect's refusal of a zombie fencing round by a standalone worker.
const STANDALONE_EXACTLY_ONCE: &str =
    "Kafka Connect in standalone mode does not support exactly-once source connectors.";

/// The standalone herder, before and while it runs as an actor: the shared core, plus the
/// store of the connectors' configurations and target states.
pub struct StandaloneHerder {
    core: HerderCore,
    /// In memory, or the configurations file (`config.storage.file.filename`: REST-created
    /// connectors survive restarts).
    configs: Box<dyn ConfigStore>,
    /// Statuses kept in memory (Kafka Connect's `MemoryStatusBackingStore`): the topics each
    /// connector used (KIP-558), kept across restarts of its tasks.
    statuses: MemoryStatusStore,
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
            configs: match worker_config.config_storage_file() {
                Some(path) => Box::new(FileConfigStore::new(ConfigsFile::new(&path))),
                None => Box::new(MemoryConfigStore::new()),
            },
            statuses: MemoryStatusStore::new(),
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
        let spec = Arc::new(spec);
        let entry = Entry {
            config: spec.raw_props.clone(),
            connector_type: connector_type(&spec),
            spec: Ok(spec.clone()),
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
        self.configs.read_to_end().await?;
        let stored = self.configs.snapshot();
        let restore: Vec<(String, ConfigMap, TargetState)> = stored
            .connectors()
            .into_iter()
            .filter(|name| !self.core.connectors.contains_key(name))
            .filter_map(|name| {
                let config = config_map(stored.connector_config(&name)?);
                let target = stored.target_state(&name);
                Some((name, config, target))
            })
            .collect();
        for (name, config, target) in restore {
            info!(connector = %name, "Restoring a connector created over REST.");
            if let Err(e) = self
                .core
                .put_with_state(name.clone(), config, false, target)
                .await
            {
                warn!(connector = %name, error = %e, "A stored connector could not be restored.");
            }
        }
        Ok(())
    }

    /// Writes every connector's configuration and target state to the store (with a file: the
    /// file is replaced), and removes the connectors that are gone.
    async fn persist(&mut self) {
        let mut records: Vec<ConfigRecord> = self
            .configs
            .snapshot()
            .connectors()
            .iter()
            .filter(|name| !self.core.connectors.contains_key(*name))
            .flat_map(|name| connector_removal_records(name))
            .collect();
        for (name, e) in &self.core.connectors {
            records.extend(connector_config_records(
                name,
                props(&e.config),
                Some(e.target),
            ));
        }
        if let Err(e) = self.configs.write(records).await {
            warn!(error = %e, "Could not write the connector configurations file.");
        }
        // This herder acted on the request itself; what the store read back is known.
        let _ = self.configs.apply_pending();
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
            answer_ended_starts(&mut self);
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
            self = match dispatch(self, request).await {
                Some(herder) => herder,
                None => return,
            };
        }
        self.core.worker.stop().await;
    }
}

#[async_trait]
impl Herder for StandaloneHerder {
    fn core(&self) -> &HerderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut HerderCore {
        &mut self.core
    }

    async fn put_connector_config(
        &mut self,
        name: String,
        config: ConfigMap,
        allow_replace: bool,
        initial: TargetState,
    ) -> Result<(bool, ConnectorInfo), HerderError> {
        let result = self
            .core
            .put_with_state(name, config, allow_replace, initial)
            .await;
        self.persist().await;
        result
    }

    async fn delete_connector(&mut self, name: &str) -> Result<(), HerderError> {
        let result = self.core.delete(name).await;
        if result.is_ok() {
            topic_tracking::reset(&self.statuses, name).await;
        }
        self.persist().await;
        result
    }

    async fn connector_topics(
        &mut self,
        name: &str,
        reset: bool,
    ) -> Result<Vec<String>, HerderError> {
        self.core.check_topic_tracking(reset)?;
        let used = self.core.worker.take_used_topics();
        let known = &self.core.connectors;
        topic_tracking::record_used(&self.statuses, used, |c| known.contains_key(c)).await;
        if reset {
            topic_tracking::reset(&self.statuses, name).await;
        }
        Ok(topic_tracking::recorded(&self.statuses, name))
    }

    async fn set_target_state(
        &mut self,
        name: &str,
        target: TargetState,
    ) -> Result<(), HerderError> {
        let result = self.core.set_target(name, target).await;
        self.persist().await;
        result
    }

    async fn put_task_configs(
        &mut self,
        name: &str,
        configs: Vec<ConfigMap>,
        signature: Option<InternalSignature>,
    ) -> Result<(), HerderError> {
        debug!(
            connector = %name,
            tasks = configs.len(),
            signed = signature.is_some(),
            "Refused task configurations sent by another worker (standalone mode)."
        );
        // Kafka Connect's StandaloneHerder throws UnsupportedOperationException, which its REST
        // layer answers with 500 and the message.
        Err(HerderError::Internal(
            STANDALONE_PUT_TASK_CONFIGS.to_owned(),
        ))
    }

    async fn fence_zombies(
        &mut self,
        _name: String,
        _origin: FenceOrigin,
        reply: oneshot::Sender<Result<(), HerderError>>,
    ) {
        // Kafka Connect's StandaloneHerder throws UnsupportedOperationException.
        let _ = reply.send(Err(HerderError::Internal(
            STANDALONE_EXACTLY_ONCE.to_owned(),
        )));
    }

    async fn verify_task_generation(
        &mut self,
        _name: &str,
        _task: u32,
        _generation: u32,
    ) -> Result<(), HerderError> {
        Ok(())
    }

    async fn set_cluster_logger_level(
        &mut self,
        namespace: String,
        level: String,
        reply: oneshot::Sender<Result<(), HerderError>>,
    ) {
        // Kafka Connect's StandaloneHerder: this single worker is the entire cluster.
        crate::logging::levels().set_named(&namespace, &level);
        let _ = reply.send(Ok(()));
    }

    fn idle_left(&self, d: Duration) -> Option<Duration> {
        // Every task of every connector runs here.
        self.core.worker.all_idle_left(d, &|_| true)
    }

    async fn shutdown(self) -> StopReport {
        self.core.worker.stop().await
    }
}
