//! The distributed herder (Kafka Connect's `DistributedHerder`): connector configurations,
//! target states and task configurations live in the config topic; every change is written
//! there first (by the leader) and acted upon when read back, so every worker of the cluster
//! finds the same state. Which connectors and tasks run where is decided by the group
//! ([`connect_membership`], on Kafka's group coordinator); without Kafka the worker is a
//! one-member cluster that runs everything. Statuses go to the status topic, offsets to the
//! offsets topic through the worker's offset store.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use connect_api::ConfigMap;
use connect_membership::protocol::{WorkItems, NO_ERROR};
use connect_membership::{GroupMember, MemberConfig, MemberEvent};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::client::RestClient;
use super::cluster_loggers::ClusterLoggerWriter;
use super::cluster_view::{snapshot_of, SharedView};
use super::internal_client;
use super::request_signature::{MacAlgorithm, SigningKey};
use crate::config::{RawConfig, WorkerConfig};
use crate::herder::core::{invalid_config, HerderCore};
use crate::herder::dispatch::{dispatch, Herder};
use crate::herder::spec::{connector_spec, SpecError};
use crate::herder::{
    ConnectorInfo, ConnectorStateInfo, FenceOrigin, HerderError, HerderHandle, InternalSignature,
    Request, TargetState, TaskId,
};
use crate::storage::internal::config_state::{
    connector_config_records, connector_removal_records, task_config_records,
};
use crate::storage::internal::{ConfigChange, ConfigProps, ConfigRecord, SessionKey};
use crate::storage::topic_log::{InternalTopicKind, InternalTopicSpec, TopicLogError};
use crate::storage::{
    Applied, ConfigStore, StatusStore, TopicConfigStore, TopicOffsetStore, TopicStatusStore,
};
use crate::topics::internal_topic::InternalTopicBackend;
use crate::worker::connector_events::ConnectorEvent;
use crate::worker::ConnectorSpec;

/// How often the statuses of what runs here are compared with what was published.
const STATUS_TICK: Duration = Duration::from_millis(500);

/// The config topic of `worker` (`config.storage.topic`, one partition).
pub fn config_topic_spec(worker: &WorkerConfig) -> InternalTopicSpec {
    InternalTopicSpec::new(
        InternalTopicKind::Configs,
        worker.config_storage_topic().unwrap_or("connect-configs"),
        1,
        worker.storage_replication_factor("config.storage"),
    )
}

/// The status topic of `worker` (`status.storage.topic`).
pub fn status_topic_spec(worker: &WorkerConfig) -> InternalTopicSpec {
    InternalTopicSpec::new(
        InternalTopicKind::Status,
        worker.status_storage_topic().unwrap_or("connect-status"),
        worker.storage_partitions("status.storage"),
        worker.storage_replication_factor("status.storage"),
    )
}

pub(super) use crate::storage::config_store::{config_map, props};

fn storage_error(e: impl std::fmt::Display) -> HerderError {
    HerderError::Internal(format!("Could not write to the config topic: {e}"))
}

/// This worker's membership in a group on Kafka.
pub(super) struct Group {
    pub(super) member: GroupMember,
    events: mpsc::UnboundedReceiver<MemberEvent>,
    /// The leader's REST URL, once a rebalance completed.
    pub(super) leader_url: Option<String>,
    pub(super) is_leader: bool,
    /// A rejoin was asked for (or a scheduled rebalance is pending) and no assignment came
    /// since: what this worker runs may be about to change.
    pub(super) rejoining: bool,
}

impl Group {
    /// Asks the member to rejoin the group.
    fn rejoin(&mut self) {
        self.member.request_rejoin();
        self.rejoining = true;
    }
}

/// How the session key is made, requests to other workers signed, and theirs checked (KIP-507).
pub(super) struct Signing {
    key_algorithm: MacAlgorithm,
    key_size: Option<u32>,
    key_ttl: Duration,
    /// `inter.worker.signature.algorithm`.
    pub(super) signature_algorithm: MacAlgorithm,
    /// `inter.worker.verification.algorithms`.
    pub(super) accepted: Vec<String>,
    /// The client of requests to other workers.
    pub(super) client: RestClient,
}

/// Kafka Connect's name of a connect sub-protocol in its `connect-protocol` metric.
fn protocol_name(protocol: connect_membership::protocol::ConnectProtocol) -> &'static str {
    use connect_membership::protocol::ConnectProtocol;
    match protocol {
        ConnectProtocol::Eager => "eager",
        ConnectProtocol::Compatible => "compatible",
        ConnectProtocol::Sessioned => "sessioned",
    }
}

/// How long a worker waits before its connector plans its tasks again after their
/// configurations could not be stored (Kafka Connect's reconfiguration backoff starts at 250 ms).
const RESUBMIT_BACKOFF: Duration = Duration::from_millis(500);

/// Waits [`RESUBMIT_BACKOFF`], then asks the herder to plan connector `name`'s tasks again.
async fn plan_again_after_backoff(retry: &mpsc::UnboundedSender<String>, name: String) {
    tokio::time::sleep(RESUBMIT_BACKOFF).await;
    let _ = retry.send(name);
}

/// The distributed herder.
pub struct DistributedHerder {
    pub(super) core: HerderCore,
    /// The config topic.
    pub(super) configs: Box<dyn ConfigStore>,
    /// Writes cluster-wide logger levels to the config topic without the actor.
    cluster_loggers: Arc<ClusterLoggerWriter>,
    /// The status topic.
    pub(super) statuses: Box<dyn StatusStore>,
    pub(super) offsets: Arc<TopicOffsetStore>,
    view: Arc<SharedView>,
    /// `None`: a one-member cluster (the embedded log) that runs everything.
    pub(super) group: Option<Group>,
    member_config: Option<MemberConfig>,
    /// The connectors and tasks assigned to this worker.
    pub(super) assignment: WorkItems,
    /// The group generation of the assignment (0 in a one-member cluster).
    pub(super) generation: i32,
    /// Connector instances running here, with the configuration they run with.
    pub(super) running_connectors: BTreeMap<String, ConfigProps>,
    /// Tasks running here, with their configuration and the connector configuration their
    /// task configurations were planned from (when it changes, they restart).
    pub(super) running_tasks: BTreeMap<(String, u32), (ConfigProps, ConfigProps)>,
    /// Why tasks assigned here could not start.
    pub(super) task_failures: BTreeMap<(String, u32), String>,
    /// The specs tasks are built from, with the connector configuration each was built from.
    pub(super) specs: BTreeMap<String, (ConfigProps, Arc<ConnectorSpec>)>,
    /// What this worker last published to the status topic.
    pub(super) published: super::statuses::Published,
    /// Something changed since the last reconciliation.
    pub(super) dirty: bool,
    pub(super) signing: Signing,
    /// Zombie fencing rounds under way (on the leader).
    pub(super) fencings: super::zombie_fencing::Fencings,
    /// The requests' channel: the sender for handles, the receiver until the actor runs.
    requests: (mpsc::Sender<Request>, Option<mpsc::Receiver<Request>>),
    /// Connectors whose task configurations the leader did not take: planned again.
    resubmit: (
        mpsc::UnboundedSender<String>,
        mpsc::UnboundedReceiver<String>,
    ),
}

impl DistributedHerder {
    /// Opens the config and status topics (created if absent, checked otherwise) and reads
    /// them to their ends. With `member_config`, the worker joins that group when started;
    /// without, it is a one-member cluster.
    ///
    /// # Errors
    /// A topic cannot be opened or read.
    pub async fn open(
        core: HerderCore,
        backend: &dyn InternalTopicBackend,
        worker: &WorkerConfig,
        offsets: Arc<TopicOffsetStore>,
        member_config: Option<MemberConfig>,
    ) -> Result<Self, TopicLogError> {
        let group_id = worker.group_id().unwrap_or("connect-cluster");
        let configs = TopicConfigStore::open(
            backend,
            &config_topic_spec(worker),
            &format!("{group_id}-configs"),
        )
        .await?;
        let statuses = TopicStatusStore::open(
            backend,
            &status_topic_spec(worker),
            &format!("{group_id}-statuses"),
        )
        .await?;
        let values = worker.values();
        let signing = Signing {
            key_algorithm: values
                .string("inter.worker.key.generation.algorithm")
                .and_then(MacAlgorithm::from_java_name)
                .unwrap_or(MacAlgorithm::HmacSha256),
            key_size: values
                .long("inter.worker.key.size")
                .and_then(|v| u32::try_from(v).ok()),
            key_ttl: Duration::from_millis(
                values
                    .long("inter.worker.key.ttl.ms")
                    .and_then(|v| u64::try_from(v).ok())
                    .unwrap_or(3_600_000),
            ),
            signature_algorithm: values
                .string("inter.worker.signature.algorithm")
                .and_then(MacAlgorithm::from_java_name)
                .unwrap_or(MacAlgorithm::HmacSha256),
            accepted: values.list("inter.worker.verification.algorithms").to_vec(),
            client: RestClient::new(worker),
        };
        let on_kafka = member_config.is_some();
        let cluster_loggers = Arc::new(ClusterLoggerWriter::new(configs.log(), on_kafka));
        let herder = Self {
            core,
            configs: Box::new(configs),
            cluster_loggers,
            statuses: Box::new(statuses),
            offsets,
            view: Arc::new(SharedView::new(Default::default())),
            group: None,
            member_config,
            assignment: WorkItems::default(),
            generation: 0,
            running_connectors: BTreeMap::new(),
            running_tasks: BTreeMap::new(),
            task_failures: BTreeMap::new(),
            specs: BTreeMap::new(),
            published: Default::default(),
            dirty: true,
            signing,
            fencings: Default::default(),
            requests: {
                let (tx, rx) = mpsc::channel(64);
                (tx, Some(rx))
            },
            resubmit: mpsc::unbounded_channel(),
        };
        herder.view.publish(snapshot_of(herder.configs.snapshot()));
        info!(
            connectors = herder.configs.snapshot().connectors().len(),
            offset = herder.configs.snapshot().offset(),
            "Read the config topic."
        );
        Ok(herder)
    }

    /// Starts work: a one-member cluster runs every connector of the config topic in its
    /// target state; a worker on Kafka joins its group and runs what it is assigned.
    ///
    /// # Errors
    /// The group cannot be joined (its settings are invalid).
    pub async fn start(&mut self) -> Result<(), HerderError> {
        match self.member_config.take() {
            Some(config) => {
                let view: Arc<dyn connect_membership::ClusterView> = self.view.clone();
                let (member, events) = GroupMember::join(config, view)
                    .map_err(|e| HerderError::Internal(e.to_string()))?;
                self.group = Some(Group {
                    member,
                    events,
                    leader_url: None,
                    is_leader: false,
                    rejoining: false,
                });
                self.rebalancing();
            }
            None => {
                self.assignment = snapshot_of(self.configs.snapshot()).items();
                // A one-worker cluster: its own assignment is its only rebalance.
                let leader = self.core.worker_id.clone();
                self.rebalanced(0, &leader, "none");
                self.ensure_session_key().await;
            }
        }
        self.settle().await;
        self.remove_stale_statuses().await;
        Ok(())
    }

    /// Acts on what reading the config store changed.
    fn on_applied(&mut self, applied: Applied) {
        for change in applied.changes {
            match change {
                ConfigChange::LoggerLevel { namespace, level } => {
                    // Kafka Connect's onLoggingLevelUpdate: applied as a worker-scope request;
                    // what runs here does not change.
                    crate::logging::levels().set_named(&namespace, &level);
                }
                change => {
                    tracing::debug!(change = ?change, "Config topic change.");
                    self.dirty = true;
                }
            }
        }
        // Records that changed nothing (a task count record, a discarded one) still move the
        // offset this worker tells the group; changes are published by `settle`.
        if applied.read && !self.dirty {
            self.view
                .publish_offset(snapshot_of(self.configs.snapshot()));
        }
    }

    /// After changes were read: tells the group (a new connector or task count rebalances)
    /// and reconciles what runs here until nothing changes.
    pub(super) async fn settle(&mut self) {
        while self.dirty {
            self.dirty = false;
            let snapshot = snapshot_of(self.configs.snapshot());
            let items = snapshot.items();
            let changed = self.view.publish(snapshot);
            match &mut self.group {
                Some(group) if changed => {
                    info!("The connectors or their tasks changed: rejoining the group.");
                    group.rejoin();
                }
                Some(_) => {}
                None => self.assignment = items,
            }
            self.reconcile().await;
        }
        self.publish_statuses().await;
    }

    /// Reads the config topic to its end and applies what is new.
    pub(super) async fn read_configs(&mut self) -> Result<(), HerderError> {
        let applied = self.configs.read_to_end().await.map_err(storage_error)?;
        self.on_applied(applied);
        Ok(())
    }

    /// Writes `records` to the config topic and waits until they are durable and read back.
    pub(super) async fn write(&mut self, records: Vec<ConfigRecord>) -> Result<(), HerderError> {
        self.configs.write(records).await.map_err(storage_error)?;
        self.read_configs().await
    }

    /// Whether this worker leads the cluster (always, in a one-member cluster).
    pub(super) fn is_leader(&self) -> bool {
        self.group.as_ref().is_none_or(|g| g.is_leader)
    }

    /// `Ok` on the leader; otherwise the request goes to the leader.
    pub(super) fn require_leader(&self) -> Result<(), HerderError> {
        match &self.group {
            Some(group) if !group.is_leader => Err(HerderError::Forward(group.leader_url.clone())),
            _ => Ok(()),
        }
    }

    /// The leader writes a new session key when there is none or it is older than
    /// `inter.worker.key.ttl.ms` (KIP-507).
    async fn ensure_session_key(&mut self) {
        if !self.is_leader() {
            return;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        let ttl = i64::try_from(self.signing.key_ttl.as_millis()).unwrap_or(i64::MAX);
        if self
            .configs
            .snapshot()
            .session_key()
            .is_some_and(|k| now.saturating_sub(k.creation_timestamp) < ttl)
        {
            return;
        }
        let key = match SigningKey::generate(self.signing.key_algorithm, self.signing.key_size) {
            Ok(key) => key,
            Err(e) => return warn!(error = %e, "Could not generate a session key."),
        };
        let record = ConfigRecord::SessionKey(SessionKey {
            key: key.key,
            algorithm: key.algorithm.java_name().to_owned(),
            creation_timestamp: now,
        });
        match self.write(vec![record]).await {
            Ok(()) => info!("Wrote a new session key to the config topic."),
            Err(e) => warn!(error = %e, "Could not write a session key."),
        }
    }

    /// The spec of connector `name` from its stored configuration.
    pub(super) fn spec(&self, name: &str, config: &ConfigMap) -> Result<ConnectorSpec, SpecError> {
        let raw = RawConfig::from_pairs(
            format!("the configuration of connector {name}"),
            config.clone(),
        );
        connector_spec(&raw, &self.core.worker_config, &self.core.plugins)
    }

    /// Acts on a group event.
    async fn on_member_event(&mut self, event: MemberEvent) {
        match event {
            MemberEvent::Assigned(a) => {
                if a.error != NO_ERROR {
                    info!(
                        offset = a.config_offset,
                        "The leader's config offset differs from ours: reading the config topic and rejoining."
                    );
                    if let Err(e) = self.read_configs().await {
                        warn!(error = %e, "Could not read the config topic.");
                    }
                    if let Some(group) = &mut self.group {
                        group.rejoin();
                    }
                    self.rebalancing();
                    return;
                }
                if a.config_offset > self.configs.snapshot().offset() {
                    if let Err(e) = self.read_configs().await {
                        warn!(error = %e, "Could not read the config topic.");
                    }
                }
                info!(
                    generation = a.generation,
                    leader = %a.leader_url,
                    is_leader = a.is_leader,
                    connectors = a.assignment.connectors.len(),
                    tasks = a.assignment.tasks.len(),
                    revoked = a.revoked.len(),
                    "Joined the group with an assignment."
                );
                self.generation = a.generation;
                self.assignment = a.assignment.clone();
                self.rebalanced(a.generation, &a.leader_url, protocol_name(a.protocol));
                if let Some(group) = &mut self.group {
                    group.leader_url = Some(a.leader_url.clone());
                    group.is_leader = a.is_leader;
                    group.rejoining = a.delay > 0;
                }
                // Tasks that move here resume from the offsets their last owner committed.
                if !a.assigned.tasks.is_empty() {
                    if let Err(e) = self.offsets.log().read_to_end().await {
                        warn!(error = %e, "Could not read the offsets topic to its end.");
                    }
                }
                self.dirty = true;
                self.settle().await;
                if !a.revoked.is_empty() && a.protocol.is_incremental() {
                    if let Some(group) = &mut self.group {
                        group.rejoin();
                    }
                    self.rebalancing();
                }
                self.ensure_session_key().await;
                self.remove_stale_statuses().await;
            }
            MemberEvent::Revoked(items) => {
                self.rebalancing();
                self.assignment.remove_all(&items);
                self.dirty = true;
                self.settle().await;
            }
            MemberEvent::MembershipLost { reason } => {
                warn!(reason = %reason, "Lost the group membership: stopping every connector and task here.");
                self.rebalancing();
                self.assignment = WorkItems::default();
                if let Some(group) = &mut self.group {
                    group.leader_url = None;
                    group.is_leader = false;
                }
                self.dirty = true;
                self.settle().await;
            }
        }
    }

    /// The rebalance metrics: a rebalance is under way.
    fn rebalancing(&self) {
        if let Some(m) = self.core.worker.metrics().rebalance() {
            m.started();
        }
    }

    /// The rebalance metrics: a rebalance completed with generation `generation`, `leader`'s
    /// REST URL and `protocol`.
    fn rebalanced(&self, generation: i32, leader: &str, protocol: &str) {
        if let Some(m) = self.core.worker.metrics().rebalance() {
            m.completed(&crate::metrics::Rebalance {
                generation,
                leader,
                protocol,
            });
        }
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
        connector_spec(&raw, &self.core.worker_config, &self.core.plugins)
            .map_err(|e| invalid_config(&e))?;
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

    /// The session key read from the config topic, if its algorithm is known.
    pub(super) fn session_key(&self) -> Option<SigningKey> {
        let key = self.configs.snapshot().session_key()?;
        Some(SigningKey {
            key: key.key.clone(),
            algorithm: MacAlgorithm::from_java_name(&key.algorithm)?,
        })
    }

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

    /// Whether `planned` differs from connector `name`'s stored task configurations (or those
    /// are inconsistent: a commit is missing), or those were planned from another connector
    /// configuration than the current one (Kafka Connect's applied connector config: then
    /// the same configurations are written again, also when there are none).
    pub(super) fn task_configs_differ(&self, name: &str, planned: &[ConfigMap]) -> bool {
        let stored: Vec<ConfigMap> = self
            .configs
            .snapshot()
            .task_configs(name)
            .into_iter()
            .map(|(_, p)| config_map(p))
            .collect();
        stored != planned
            || self.configs.snapshot().inconsistent().contains(name)
            || self.configs.snapshot().applied_connector_config(name)
                != self.configs.snapshot().connector_config(name)
    }

    /// Answers a running connector's request: a reconfiguration stores the newly planned task
    /// configurations when they differ (the leader writes them, a follower sends them to it),
    /// and every worker then runs the new generation; a background failure marks it FAILED.
    async fn on_connector_event(&mut self, event: ConnectorEvent) {
        match event {
            ConnectorEvent::Reconfigure(name) => {
                let planned = match self.core.worker.plan_tasks(&name) {
                    None => return,
                    Some(Ok(planned)) => planned,
                    Some(Err(e)) => return self.fail_connector(&name, e.to_string()),
                };
                if self.task_configs_differ(&name, &planned) {
                    info!(connector = %name, tasks = planned.len(), "The connector asked for a task reconfiguration.");
                    Box::pin(self.submit_task_configs(&name, &planned)).await;
                }
            }
            ConnectorEvent::Failed(name, message) => self.fail_connector(&name, message),
        }
    }

    /// Plans connector `name`'s tasks again (its instance restarts) if it still runs here.
    async fn replan(&mut self, name: &str) {
        if self.running_connectors.remove(name).is_some() {
            self.core.worker.stop_connector_instance(name).await;
            self.dirty = true;
            self.settle().await;
        }
    }

    /// A handle to the actor; requests wait until it runs ([`spawn`](Self::spawn)).
    pub fn handle(&self) -> HerderHandle {
        HerderHandle::new(self.requests.0.clone(), self.core.worker_id.clone())
            .with_cluster_loggers(self.cluster_loggers.clone())
    }

    /// Runs the actor; returns its handle and task.
    pub fn spawn(mut self) -> (HerderHandle, JoinHandle<()>) {
        let handle = self.handle();
        let rx = self.requests.1.take();
        let task = tokio::spawn(async move {
            match rx {
                Some(rx) => self.run(rx).await,
                None => warn!("The herder was spawned twice."),
            }
        });
        (handle, task)
    }

    async fn next_member_event(group: &mut Option<Group>) -> Option<MemberEvent> {
        match group {
            Some(group) => group.events.recv().await,
            None => std::future::pending().await,
        }
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Request>) {
        let mut events = self.core.worker.take_connector_events();
        let mut tick = tokio::time::interval(STATUS_TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let request = tokio::select! {
                request = rx.recv() => match request {
                    Some(request) => request,
                    None => break,
                },
                applied = self.configs.next_records() => {
                    let Some(applied) = applied else { break };
                    self.on_applied(applied);
                    self.settle().await;
                    continue;
                }
                event = Self::next_member_event(&mut self.group) => {
                    match event {
                        Some(event) => self.on_member_event(event).await,
                        None => {
                            warn!("The group membership ended.");
                            self.group = None;
                        }
                    }
                    continue;
                }
                Some(name) = self.resubmit.1.recv() => {
                    self.replan(&name).await;
                    continue;
                }
                Some(event) = crate::herder::core::next_event(&mut events) => {
                    self.on_connector_event(event).await;
                    continue;
                }
                Some((name, outcome)) = self.fencings.done_rx.recv() => {
                    self.fencing_done(name, outcome).await;
                    continue;
                }
                _ = tick.tick() => {
                    self.drain_restart_requests().await;
                    self.publish_statuses().await;
                    self.publish_topics().await;
                    continue;
                }
            };
            self = match dispatch(self, request).await {
                Some(herder) => herder,
                None => return,
            };
        }
        self.stop_all().await;
    }

    /// Stops everything that runs here (publishing UNASSIGNED), leaves the group, and stops
    /// the topic logs.
    async fn stop_all(mut self) -> crate::worker::StopReport {
        let group = self.group.take();
        let report = self.core.worker.stop().await;
        super::statuses::unassign_all(
            self.statuses.as_ref(),
            &mut self.published,
            &self.core.worker_id,
            self.generation,
        )
        .await;
        if let Some(group) = group {
            group.member.leave().await;
        }
        self.statuses.stop().await;
        self.configs.stop().await;
        report
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
