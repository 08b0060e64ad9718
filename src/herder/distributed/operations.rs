//! The distributed herder's answers to requests ([`Herder`] for [`DistributedHerder`]): the
//! leader writes connector configurations, target states and task configurations sent by
//! other workers to the config topic and acts on them once read back; the other answers come
//! from what this worker read and runs.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use connect_api::ConfigMap;
use tokio::sync::{mpsc, oneshot};
use tracing::{info, warn};

use super::herder::{props, DistributedHerder};
use super::internal_client;
use crate::config::RawConfig;
use crate::herder::core::{invalid_config, HerderCore};
use crate::herder::dispatch::Herder;
use crate::herder::spec::connector_spec;
use crate::herder::{
    ConnectorInfo, ConnectorStateInfo, FenceOrigin, HerderError, InternalSignature, TargetState,
    TaskId,
};
use crate::storage::internal::config_state::{
    connector_config_records, connector_removal_records, task_config_records,
};
use crate::storage::internal::ConfigRecord;

/// How long a worker waits before its connector plans its tasks again after their
/// configurations could not be stored (Kafka Connect's reconfiguration backoff starts at 250 ms).
const RESUBMIT_BACKOFF: Duration = Duration::from_millis(500);

/// Waits [`RESUBMIT_BACKOFF`], then asks the herder to plan connector `name`'s tasks again.
async fn plan_again_after_backoff(retry: &mpsc::UnboundedSender<String>, name: String) {
    tokio::time::sleep(RESUBMIT_BACKOFF).await;
    let _ = retry.send(name);
}

impl DistributedHerder {
    /// Stores the task configurations connector `name` planned: the leader writes them; a
    /// follower sends them to the leader, signed with the session key (Kafka Connect's
    /// internal `POST /connectors/{c}/tasks`). When they are not stored (the write fails, the
    /// leader does not take them), the connector plans again after a pause.
    pub(super) async fn submit_task_configs(&mut self, name: &str, planned: &[ConfigMap]) {
        let leader_url = match &self.group {
            Some(group) if !group.is_leader => group.leader_url.clone(),
            _ => {
                info!(connector = %name, tasks = planned.len(), "Writing new task configurations.");
                let records = task_config_records(name, planned.iter().map(props).collect());
                if let Err(e) = self.write(records).await {
                    // As Kafka Connect: a failed write is retried, the connector does not fail.
                    warn!(connector = %name, error = %e, "Could not write the task configurations; planning again.");
                    self.plan_again_later(name.to_owned());
                }
                return;
            }
        };
        info!(connector = %name, tasks = planned.len(), leader = ?leader_url, "Sending new task configurations to the leader.");
        let client = self.signing.client.clone();
        let key = self.session_key();
        let algorithm = self.signing.signature_algorithm;
        let retry = self.resubmit.0.clone();
        let (name, planned) = (name.to_owned(), planned.to_vec());
        tokio::spawn(async move {
            let sent = match &leader_url {
                Some(url) => internal_client::put_task_configs(
                    &client,
                    url,
                    &name,
                    &planned,
                    key.as_ref().map(|k| (k, algorithm)),
                )
                .await
                .map_err(|e| e.to_string()),
                None => Err("no leader is known".to_owned()),
            };
            if let Err(e) = sent {
                warn!(connector = %name, error = %e, "The leader did not take the task configurations; planning again.");
                plan_again_after_backoff(&retry, name).await;
            }
        });
    }

    /// Connector `name` plans its tasks again after [`RESUBMIT_BACKOFF`].
    fn plan_again_later(&self, name: String) {
        let retry = self.resubmit.0.clone();
        tokio::spawn(async move { plan_again_after_backoff(&retry, name).await });
    }

    async fn put(
        &mut self,
        name: String,
        config: ConfigMap,
        allow_replace: bool,
        initial: TargetState,
    ) -> Result<(bool, crate::herder::ConnectorInfo), HerderError> {
        self.require_leader()?;
        let exists = self.configs.snapshot().contains(&name);
        if exists && !allow_replace {
            return Err(HerderError::Conflict(format!(
                "Connector {name} already exists"
            )));
        }
        let raw = RawConfig::from_pairs(
            format!("the configuration of connector {name}"),
            config.clone(),
        );
        let spec = connector_spec(&raw, &self.core.worker_config, &self.core.plugins)
            .map_err(|e| invalid_config(&e))?;
        // Kept for the entry and the tasks when the record is read back (built once).
        self.specs
            .insert(name.clone(), (props(&config), Arc::new(spec)));
        let target = (!exists && initial != TargetState::Started).then_some(initial);
        self.write(connector_config_records(&name, props(&config), target))
            .await?;
        self.settle().await;
        Ok((!exists, self.info(&name)?))
    }

    async fn delete(&mut self, name: &str) -> Result<(), HerderError> {
        self.require_leader()?;
        if !self.configs.snapshot().contains(name) {
            return Err(HerderError::NotFound(format!("Connector {name} not found")));
        }
        self.write(connector_removal_records(name)).await?;
        self.settle().await;
        Ok(())
    }

    async fn set_target(&mut self, name: &str, target: TargetState) -> Result<(), HerderError> {
        self.require_leader()?;
        if !self.configs.snapshot().contains(name) {
            return Err(HerderError::NotFound(format!("Unknown connector {name}")));
        }
        let mut records = vec![ConfigRecord::TargetState {
            connector: name.to_owned(),
            state: Some(target),
        }];
        if target == TargetState::Stopped {
            // KIP-875: a stopped connector has no tasks.
            records.extend(task_config_records(name, Vec::new()));
        }
        self.write(records).await?;
        self.settle().await;
        Ok(())
    }

    /// The internal `POST /connectors/{c}/tasks` on the leader: task configurations planned by
    /// the connector on another worker.
    async fn put_task_configs(
        &mut self,
        name: &str,
        configs: Vec<ConfigMap>,
        signature: Option<&InternalSignature>,
    ) -> Result<(), HerderError> {
        InternalSignature::check(
            signature,
            self.session_key().as_ref(),
            &self.signing.accepted,
        )?;
        self.require_leader()?;
        if !self.configs.snapshot().contains(name) {
            return Err(HerderError::NotFound(format!("Connector {name} not found")));
        }
        if self.task_configs_differ(name, &configs) {
            info!(connector = %name, tasks = configs.len(), "Writing task configurations sent by another worker.");
            self.write(task_config_records(
                name,
                configs.iter().map(props).collect(),
            ))
            .await?;
            self.settle().await;
        }
        Ok(())
    }
}

#[async_trait]
impl Herder for DistributedHerder {
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
        self.put(name, config, allow_replace, initial).await
    }

    async fn delete_connector(&mut self, name: &str) -> Result<(), HerderError> {
        self.delete(name).await
    }

    async fn set_target_state(
        &mut self,
        name: &str,
        target: TargetState,
    ) -> Result<(), HerderError> {
        self.set_target(name, target).await
    }

    async fn put_task_configs(
        &mut self,
        name: &str,
        configs: Vec<ConfigMap>,
        signature: Option<InternalSignature>,
    ) -> Result<(), HerderError> {
        DistributedHerder::put_task_configs(self, name, configs, signature.as_ref()).await
    }

    async fn fence_zombies(
        &mut self,
        name: String,
        origin: FenceOrigin,
        reply: oneshot::Sender<Result<(), HerderError>>,
    ) {
        DistributedHerder::fence_zombies(self, name, origin, reply).await;
    }

    async fn verify_task_generation(
        &mut self,
        name: &str,
        task: u32,
        generation: u32,
    ) -> Result<(), HerderError> {
        DistributedHerder::verify_task_generation(self, name, task, generation).await
    }

    async fn set_cluster_logger_level(
        &mut self,
        namespace: String,
        level: String,
        reply: oneshot::Sender<Result<(), HerderError>>,
    ) {
        // The handle writes these itself; answered here too, for a handle made without the
        // writer.
        let writer = self.cluster_loggers.clone();
        tokio::spawn(async move {
            let _ = reply.send(writer.write(&namespace, &level).await);
        });
    }

    fn idle_left(&self, d: Duration) -> Option<Duration> {
        // A sink connector's partitions are all read here only when all its tasks are
        // assigned to this worker.
        let desired = self.desired_tasks();
        let whole = |c: &str| {
            let here = desired.keys().filter(|(name, _)| name == c).count();
            u32::try_from(here).is_ok_and(|n| n == self.configs.snapshot().task_count(c))
        };
        let left = self.core.worker.all_idle_left(d, &whole);
        left.filter(|_| self.settled())
    }

    async fn shutdown(self) -> crate::worker::StopReport {
        self.stop_all().await
    }

    fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        self.info(name)
    }

    fn connector_status(&self, name: &str) -> Result<ConnectorStateInfo, HerderError> {
        self.status(name)
    }

    fn task_configs(&self, name: &str) -> Result<Vec<(TaskId, ConfigMap)>, HerderError> {
        DistributedHerder::task_configs(self, name)
    }

    async fn restart_connector(
        &mut self,
        name: &str,
        include_tasks: bool,
        only_failed: bool,
    ) -> Result<Option<ConnectorStateInfo>, HerderError> {
        self.restart(name, include_tasks, only_failed).await
    }

    async fn restart_task(&mut self, name: &str, task: u32) -> Result<(), HerderError> {
        DistributedHerder::restart_task(self, name, task).await
    }

    async fn connector_offsets(&mut self, name: &str) -> Result<serde_json::Value, HerderError> {
        // Offsets other workers' tasks committed are read first.
        if let Err(e) = self.offsets.log().read_to_end().await {
            warn!(error = %e, "Could not read the offsets topic to its end.");
        }
        self.core.offsets(name).await
    }

    async fn alter_connector_offsets(
        &mut self,
        name: &str,
        offsets: Option<Vec<serde_json::Value>>,
        auto_stop: bool,
    ) -> Result<String, HerderError> {
        self.alter_offsets(name, offsets, auto_stop).await
    }

    async fn connector_topics(
        &mut self,
        name: &str,
        reset: bool,
    ) -> Result<Vec<String>, HerderError> {
        DistributedHerder::connector_topics(self, name, reset).await
    }

    fn refresh_metrics(&mut self) {
        DistributedHerder::refresh_metrics(self);
    }
}
