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

use connect_api::ConfigMap;
use connect_membership::protocol::{WorkItems, NO_ERROR};
use connect_membership::{GroupMember, MemberConfig, MemberEvent};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::cluster_loggers::ClusterLoggerWriter;
use super::cluster_view::{snapshot_of, SharedView};
use super::session_key::Signing;
use crate::config::{RawConfig, WorkerConfig};
use crate::herder::core::HerderCore;
use crate::herder::dispatch::{answer_ended_starts, dispatch};
use crate::herder::spec::{connector_spec, SpecError};
use crate::herder::{HerderError, HerderHandle, Request};
use crate::storage::internal::{ConfigChange, ConfigProps, ConfigRecord};
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

fn storage_error(e: crate::storage::StorageError) -> HerderError {
    HerderError::failed("Could not write to the config topic", e)
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

/// Kafka Connect's name of a connect sub-protocol in its `connect-protocol` metric.
fn protocol_name(protocol: connect_membership::protocol::ConnectProtocol) -> &'static str {
    use connect_membership::protocol::ConnectProtocol;
    match protocol {
        ConnectProtocol::Eager => "eager",
        ConnectProtocol::Compatible => "compatible",
        ConnectProtocol::Sessioned => "sessioned",
    }
}

/// The distributed herder.
pub struct DistributedHerder {
    pub(super) core: HerderCore,
    /// The config topic.
    pub(super) configs: Box<dyn ConfigStore>,
    /// Writes cluster-wide logger levels to the config topic without the actor.
    pub(super) cluster_loggers: Arc<ClusterLoggerWriter>,
    /// The status topic.
    pub(super) statuses: Box<dyn StatusStore>,
    pub(super) offsets: Arc<TopicOffsetStore>,
    /// What this worker tells the group: its config offset and, as leader, what to assign.
    pub(super) view: Arc<SharedView>,
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
    /// The specs of the connectors' configurations (built once: when this worker accepted the
    /// configuration or read it), with the configuration each was built from; the entries and
    /// the tasks use them.
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
    pub(super) resubmit: (
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
        let signing = Signing::of(worker);
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
                let (member, events) =
                    GroupMember::join(config, view).map_err(HerderError::unexpected)?;
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
        self.on_changes(applied.changes);
        // Records that changed nothing (a task count record, a discarded one) still move the
        // offset this worker tells the group; changes are published by `settle`.
        if applied.read && !self.dirty {
            self.view
                .publish_offset(snapshot_of(self.configs.snapshot()));
        }
    }

    /// Acts on records the config topic's reader delivered: `first`, the one that woke the
    /// actor, and those behind it, as one read. A lone record that changes nothing (a task
    /// count record, a restart request) still moves the offset this worker tells the group:
    /// a leader that did not publish it would wait for members that read it and answer
    /// CONFIG_MISMATCH to every round.
    pub(super) async fn on_records(&mut self, first: Applied) {
        let rest = self.configs.apply_pending();
        let mut applied = first;
        applied.read |= rest.read;
        applied.changes.extend(rest.changes);
        self.on_applied(applied);
        self.settle().await;
    }

    /// Acts on changes read from the config store: a logger level is applied here, anything
    /// else is reconciled by the next `settle`.
    fn on_changes(&mut self, changes: Vec<ConfigChange>) {
        for change in changes {
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

    /// The spec of connector `name` from its stored configuration.
    pub(super) fn spec(&self, name: &str, config: &ConfigMap) -> Result<ConnectorSpec, SpecError> {
        let raw = RawConfig::from_pairs(
            format!("the configuration of connector {name}"),
            config.clone(),
        );
        connector_spec(&raw, &self.core.worker_config, &self.core.plugins)
    }

    /// Acts on a group event.
    pub(super) async fn on_member_event(&mut self, event: MemberEvent) {
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
                    // As Kafka Connect's leader assigns from a fresh snapshot of its config
                    // store, the next round sees all this worker read, also what an earlier
                    // read left unpublished (or a leader behind its members would answer
                    // CONFIG_MISMATCH to every round).
                    self.view.publish(snapshot_of(self.configs.snapshot()));
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
            ConnectorEvent::InstanceLost(name, reason) => {
                if self.running_connectors.contains_key(&name) {
                    warn!(connector = %name, reason = %reason, "The connector's instance was lost; starting a new one (its tasks keep running).");
                }
                // The instance restarts here; its task configurations are written again only
                // when the new instance plans other ones.
                self.replan(&name).await;
            }
            ConnectorEvent::Started(outcome) => {
                let name = outcome.connector().to_owned();
                match self.core.worker.finish_connector_start(outcome) {
                    None => return,
                    Some(Err(e)) => self.fail_connector(&name, e.to_string()),
                    Some(Ok((_, planned))) => {
                        if let Some(entry) = self.core.connectors.get_mut(&name) {
                            entry.failure = None;
                        }
                        if self.task_configs_differ(&name, &planned) {
                            Box::pin(self.submit_task_configs(&name, &planned)).await;
                        }
                    }
                }
                // Statuses are published, and tasks whose configurations were written start.
                self.dirty = true;
                self.settle().await;
            }
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
            answer_ended_starts(&mut self);
            let key_due = self.session_key_due();
            let request = tokio::select! {
                request = rx.recv() => match request {
                    Some(request) => request,
                    None => break,
                },
                applied = self.configs.next_records() => {
                    let Some(first) = applied else { break };
                    self.on_records(first).await;
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
                () = Self::session_key_timer(key_due) => {
                    // Kafka Connect's tick at the key's expiry: the leader writes a new one.
                    if let Err(e) = self.read_configs().await {
                        warn!(error = %e, "Could not read the config topic.");
                    }
                    self.ensure_session_key().await;
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
    pub(super) async fn stop_all(mut self) -> crate::worker::StopReport {
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
