//! `GroupMember`: one worker in the Connect group on Kafka's group coordinator (reference §10.1).
//!
//! A background tokio task finds the coordinator, joins (JoinGroup with the `connect` protocol
//! type and the sub-protocols of `connect.protocol` in preference order), runs the assignor when
//! it leads (SyncGroup), heartbeats every `heartbeat.interval.ms`, and rejoins on
//! REBALANCE_IN_PROGRESS, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION or a coordinator move. The
//! herder sees [`MemberEvent`]s on a channel.
//!
//! Herder contract: after stopping the items of an `Assigned` event's `revoked` under an
//! incremental protocol, call [`GroupMember::request_rejoin`] (the follow-up rebalance of KIP-415); on a `CONFIG_MISMATCH`
//! assignment, read the config topic to its end and call `request_rejoin`. A scheduled
//! rebalance (`delay` > 0) is rejoined by the member itself.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use kafka_protocol::messages::find_coordinator_request::FindCoordinatorRequest;
use kafka_protocol::messages::heartbeat_request::HeartbeatRequest;
use kafka_protocol::messages::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kafka_protocol::messages::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use kafka_protocol::messages::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use kafka_protocol::messages::GroupId;
use kafka_protocol::protocol::StrBytes;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::assignor::{assign, AssignorInput, AssignorState, ConfigSnapshot, MemberState};
use crate::connection::Connection;
use crate::error::{codes, MembershipError};
use crate::protocol::{Assignment, ConnectProtocol, WorkItems, WorkerMetadata, NO_ERROR};
use crate::security::Security;

/// The group protocol type of Connect workers.
pub const PROTOCOL_TYPE: &str = "connect";

/// How a worker joins the group (`group.id`, timeouts of §2.3, `connect.protocol`).
#[derive(Debug, Clone)]
pub struct MemberConfig {
    /// `bootstrap.servers`, `HOST:PORT` each.
    pub bootstrap_servers: Vec<String>,
    /// `group.id`.
    pub group_id: String,
    /// Client id on the requests.
    pub client_id: String,
    /// This worker's REST URL (advertised to the others).
    pub url: String,
    /// `connect.protocol`.
    pub protocol: ConnectProtocol,
    /// `session.timeout.ms` (default 10 s).
    pub session_timeout: Duration,
    /// `heartbeat.interval.ms` (default 3 s).
    pub heartbeat_interval: Duration,
    /// `rebalance.timeout.ms` (default 60 s).
    pub rebalance_timeout: Duration,
    /// `scheduled.rebalance.max.delay.ms` (connect-rs default 0: lost work moves at once).
    pub scheduled_rebalance_max_delay: Duration,
    /// `request.timeout.ms` (default 40 s).
    pub request_timeout: Duration,
    /// `retry.backoff.ms` (default 100 ms).
    pub retry_backoff: Duration,
    /// `security.protocol` with its TLS and SASL settings (default PLAINTEXT).
    pub security: Security,
}

impl MemberConfig {
    /// A config with the defaults of §2.3.
    pub fn new(bootstrap_servers: &str, group_id: &str, url: &str) -> Self {
        Self {
            bootstrap_servers: bootstrap_servers
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
            group_id: group_id.to_owned(),
            client_id: format!("connect-{url}"),
            url: url.to_owned(),
            protocol: ConnectProtocol::Sessioned,
            session_timeout: Duration::from_secs(10),
            heartbeat_interval: Duration::from_secs(3),
            rebalance_timeout: Duration::from_secs(60),
            scheduled_rebalance_max_delay: Duration::ZERO,
            request_timeout: Duration::from_secs(40),
            retry_backoff: Duration::from_millis(100),
            security: Security::plaintext(),
        }
    }

    /// How long after the last acknowledged heartbeat was sent the member stops trusting its
    /// assignment: before the coordinator can have expired the session.
    pub fn lost_after(&self) -> Duration {
        self.session_timeout
            .saturating_sub(self.heartbeat_interval.min(self.session_timeout / 2))
    }
}

/// What the herder supplies: its config offset (for the metadata) and, when this member leads,
/// the config snapshot to assign.
#[async_trait::async_trait]
pub trait ClusterView: Send + Sync + 'static {
    /// The config topic offset this worker has read up to.
    fn config_offset(&self) -> i64;

    /// The config snapshot for the assignment, read at least to `max_member_offset` if the
    /// herder can (a snapshot behind it yields `CONFIG_MISMATCH` for everyone).
    async fn snapshot(&self, max_member_offset: i64) -> ConfigSnapshot;
}

/// A completed rebalance, as one member sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assigned {
    /// The generation.
    pub generation: i32,
    /// This member's id.
    pub member_id: String,
    /// The leader's member id.
    pub leader: String,
    /// The leader's REST URL.
    pub leader_url: String,
    /// Whether this member is the leader.
    pub is_leader: bool,
    /// The sub-protocol the group uses.
    pub protocol: ConnectProtocol,
    /// `NO_ERROR` or `CONFIG_MISMATCH` (then nothing changed: read configs and rejoin).
    pub error: i16,
    /// The config offset of the assignment.
    pub config_offset: i64,
    /// Newly assigned items (eager: everything assigned).
    pub assigned: WorkItems,
    /// Items to stop now. Incremental: the leader's revocations (rejoin after stopping them).
    /// Eager: what this member still ran from an incremental generation (no rejoin needed).
    pub revoked: WorkItems,
    /// Scheduled rebalance delay in ms (the member rejoins after it by itself).
    pub delay: i32,
    /// Everything this member runs after this rebalance.
    pub assignment: WorkItems,
    /// The leader's view of every member's REST URL (empty on followers).
    pub member_urls: BTreeMap<String, String>,
}

/// What the herder is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberEvent {
    /// A rebalance completed.
    Assigned(Box<Assigned>),
    /// Eager protocol: everything is revoked before rejoining; stop it.
    Revoked(WorkItems),
    /// The member is no longer (or may no longer be) in the group: stop everything it ran.
    /// Sent before the coordinator could have expired the session when heartbeats fail.
    MembershipLost {
        /// Why.
        reason: String,
    },
}

enum Command {
    Rejoin,
    Leave(oneshot::Sender<()>),
}

/// A worker's membership; the background task runs until [`GroupMember::leave`] or drop.
#[derive(Debug)]
pub struct GroupMember {
    commands: mpsc::UnboundedSender<Command>,
    task: Option<JoinHandle<()>>,
}

impl GroupMember {
    /// Starts joining the group; events arrive on the returned receiver.
    pub fn join(
        config: MemberConfig,
        view: Arc<dyn ClusterView>,
    ) -> Result<(Self, mpsc::UnboundedReceiver<MemberEvent>), MembershipError> {
        if config.bootstrap_servers.is_empty() {
            return Err(MembershipError::Config("bootstrap.servers is empty".into()));
        }
        if config.heartbeat_interval >= config.session_timeout {
            return Err(MembershipError::Config(
                "heartbeat.interval.ms must be lower than session.timeout.ms".into(),
            ));
        }
        let (events, rx) = mpsc::unbounded_channel();
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let runner = Runner {
            config,
            view,
            events,
            commands: commands_rx,
            coordinator: None,
            member_id: String::new(),
            generation: -1,
            protocol: None,
            leader: String::new(),
            leader_url: String::new(),
            assignment_offset: -1,
            current: WorkItems::default(),
            assignor: AssignorState::default(),
            last_completed_generation: None,
            last_heartbeat_ok: None,
        };
        let task = tokio::spawn(runner.run());
        Ok((
            Self {
                commands,
                task: Some(task),
            },
            rx,
        ))
    }

    /// Asks for a rebalance (after stopping revoked work, or after a config change).
    pub fn request_rejoin(&self) {
        let _ = self.commands.send(Command::Rejoin);
    }

    /// Leaves the group (LeaveGroup) and stops the background task.
    pub async fn leave(mut self) {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Leave(tx)).is_ok() {
            let _ = rx.await;
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Stops at once without LeaveGroup (the coordinator notices after the session timeout).
    pub fn abort(mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl Drop for GroupMember {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Why a join attempt ended without an assignment (retried after the backoff).
enum JoinFailure {
    Retry(MembershipError),
}

struct Runner {
    config: MemberConfig,
    view: Arc<dyn ClusterView>,
    events: mpsc::UnboundedSender<MemberEvent>,
    commands: mpsc::UnboundedReceiver<Command>,
    coordinator: Option<Connection>,
    member_id: String,
    generation: i32,
    protocol: Option<ConnectProtocol>,
    leader: String,
    leader_url: String,
    assignment_offset: i64,
    current: WorkItems,
    assignor: AssignorState,
    last_completed_generation: Option<i32>,
    /// When the last acknowledged heartbeat (or SyncGroup) was sent, while in a generation.
    last_heartbeat_ok: Option<Instant>,
}

impl Runner {
    async fn run(mut self) {
        let mut rejoin = true;
        let mut scheduled_rejoin: Option<Instant> = None;
        let mut next_heartbeat = Instant::now();
        loop {
            if rejoin {
                // Finding the coordinator may hang on a partitioned network: while this member
                // still runs an assignment, give up at the point its session may be gone.
                if self.coordinator.is_none() {
                    let found = match self.lost_deadline() {
                        Some(deadline) => {
                            tokio::time::timeout_at(deadline, self.find_coordinator())
                                .await
                                .unwrap_or_else(|_| {
                                    Err(MembershipError::Timeout(
                                        "finding the group coordinator".into(),
                                        self.config.lost_after(),
                                    ))
                                })
                        }
                        None => self.find_coordinator().await,
                    };
                    match found {
                        Ok(conn) => self.coordinator = Some(conn),
                        Err(e) => {
                            tracing::warn!(group = %self.config.group_id, "finding the worker group coordinator failed, retrying: {e}");
                            self.check_lost();
                            if self.wait_or_leave(self.config.retry_backoff).await {
                                return;
                            }
                            continue;
                        }
                    }
                }
                match self.join_once().await {
                    Ok(delay) => {
                        rejoin = false;
                        scheduled_rejoin = (delay > 0)
                            .then(|| Instant::now() + Duration::from_millis(delay as u64));
                        next_heartbeat = Instant::now() + self.config.heartbeat_interval;
                    }
                    Err(JoinFailure::Retry(e)) => {
                        tracing::warn!(group = %self.config.group_id, "joining the worker group failed, retrying: {e}");
                        self.check_lost();
                        if self.wait_or_leave(self.config.retry_backoff).await {
                            return;
                        }
                    }
                }
                continue;
            }
            let wake = match self.lost_deadline() {
                Some(lost) => next_heartbeat.min(lost),
                None => next_heartbeat,
            };
            tokio::select! {
                _ = tokio::time::sleep_until(wake) => {
                    if self.check_lost() {
                        rejoin = true;
                        continue;
                    }
                    if Instant::now() < next_heartbeat {
                        continue;
                    }
                    match self.heartbeat().await {
                        Ok(()) => next_heartbeat = Instant::now() + self.config.heartbeat_interval,
                        Err(HeartbeatOutcome::Rejoin) => rejoin = true,
                        Err(HeartbeatOutcome::Retry) => {
                            next_heartbeat = Instant::now() + self.config.retry_backoff;
                        }
                    }
                }
                _ = sleep_until_opt(scheduled_rejoin) => {
                    scheduled_rejoin = None;
                    rejoin = true;
                }
                command = self.commands.recv() => match command {
                    Some(Command::Rejoin) => rejoin = true,
                    Some(Command::Leave(ack)) => {
                        self.leave().await;
                        let _ = ack.send(());
                        return;
                    }
                    None => {
                        self.leave().await;
                        return;
                    }
                },
            }
        }
    }

    /// Sleeps `d` unless a command arrives; returns true when the member left.
    async fn wait_or_leave(&mut self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return false,
                command = self.commands.recv() => match command {
                    Some(Command::Rejoin) => {}
                    Some(Command::Leave(ack)) => {
                        self.leave().await;
                        let _ = ack.send(());
                        return true;
                    }
                    None => {
                        self.leave().await;
                        return true;
                    }
                },
            }
        }
    }

    fn lost_deadline(&self) -> Option<Instant> {
        self.last_heartbeat_ok.map(|t| t + self.config.lost_after())
    }

    /// Emits `MembershipLost` once the session may be gone; returns whether it did.
    fn check_lost(&mut self) -> bool {
        match self.lost_deadline() {
            Some(deadline) if Instant::now() >= deadline => {
                self.lose("no heartbeat acknowledged within the session timeout".into());
                true
            }
            _ => false,
        }
    }

    fn lose(&mut self, reason: String) {
        tracing::warn!(group = %self.config.group_id, member = %self.member_id, "worker group membership lost: {reason}");
        self.last_heartbeat_ok = None;
        self.current = WorkItems::default();
        self.generation = -1;
        let _ = self.events.send(MemberEvent::MembershipLost { reason });
    }

    fn emit(&self, event: MemberEvent) {
        let _ = self.events.send(event);
    }

    async fn coordinator(&mut self) -> Result<&mut Connection, MembershipError> {
        if self.coordinator.is_none() {
            let conn = self.find_coordinator().await?;
            self.coordinator = Some(conn);
        }
        self.coordinator
            .as_mut()
            .ok_or_else(|| MembershipError::NoBroker("no coordinator".into()))
    }

    async fn find_coordinator(&self) -> Result<Connection, MembershipError> {
        let timeout = self.config.request_timeout;
        let mut last = String::new();
        for server in &self.config.bootstrap_servers {
            let mut conn = match Connection::connect(
                server,
                &self.config.client_id,
                timeout,
                &self.config.security,
            )
            .await
            {
                Ok(c) => c,
                Err(e) => {
                    last = e.to_string();
                    continue;
                }
            };
            let version = conn.version::<FindCoordinatorRequest>("FindCoordinator", 6)?;
            let group = StrBytes::from_string(self.config.group_id.clone());
            let mut request = FindCoordinatorRequest::default();
            if version >= 4 {
                request.coordinator_keys = vec![group];
            } else {
                request.key = group;
            }
            let response = conn.send(&request, version, timeout).await?;
            let (code, host, port) = if version >= 4 {
                let c = response.coordinators.first().ok_or_else(|| {
                    MembershipError::Codec("FindCoordinator: no coordinator".into())
                })?;
                (c.error_code, c.host.to_string(), c.port)
            } else {
                (
                    response.error_code,
                    response.host.to_string(),
                    response.port,
                )
            };
            if code != 0 {
                return Err(MembershipError::kafka("FindCoordinator", code));
            }
            let address = format!("{host}:{port}");
            if address == conn.address() {
                return Ok(conn);
            }
            return Connection::connect(
                &address,
                &self.config.client_id,
                timeout,
                &self.config.security,
            )
            .await;
        }
        Err(MembershipError::NoBroker(last))
    }

    fn metadata(&self, protocol: ConnectProtocol) -> Result<Bytes, MembershipError> {
        let allocation =
            (protocol.is_incremental() && !self.current.is_empty()).then(|| Assignment {
                version: protocol.version(),
                error: NO_ERROR,
                leader: self.leader.clone(),
                leader_url: self.leader_url.clone(),
                config_offset: self.assignment_offset,
                assigned: Some(self.current.to_entries()),
                revoked: Some(Vec::new()),
                delay: 0,
            });
        let metadata = WorkerMetadata {
            version: protocol.version(),
            url: self.config.url.clone(),
            config_offset: self.view.config_offset(),
            allocation,
        };
        Ok(Bytes::from(metadata.encode()?))
    }

    /// One JoinGroup + SyncGroup; returns the scheduled delay of the assignment.
    async fn join_once(&mut self) -> Result<i32, JoinFailure> {
        if self.protocol == Some(ConnectProtocol::Eager) && !self.current.is_empty() {
            let all = std::mem::take(&mut self.current);
            self.emit(MemberEvent::Revoked(all));
        }
        let retry = JoinFailure::Retry;
        let mut protocols = Vec::new();
        for p in self.config.protocol.offered() {
            protocols.push(
                JoinGroupRequestProtocol::default()
                    .with_name(StrBytes::from_static_str(p.name()))
                    .with_metadata(self.metadata(p).map_err(retry)?),
            );
        }
        let join_timeout = self.config.rebalance_timeout + Duration::from_secs(5);
        let group_id = GroupId(StrBytes::from_string(self.config.group_id.clone()));
        let (session_ms, rebalance_ms) = (
            millis(self.config.session_timeout),
            millis(self.config.rebalance_timeout),
        );
        // JoinGroup, retried at once when the coordinator hands out a member id.
        let joined = loop {
            let member_id = self.member_id.clone();
            let conn = match self.coordinator().await {
                Ok(c) => c,
                Err(e) => return Err(retry(e)),
            };
            let version = conn
                .version::<JoinGroupRequest>("JoinGroup", 9)
                .map_err(retry)?;
            let request = JoinGroupRequest::default()
                .with_group_id(group_id.clone())
                .with_session_timeout_ms(session_ms)
                .with_rebalance_timeout_ms(if version >= 1 { rebalance_ms } else { -1 })
                .with_member_id(StrBytes::from_string(member_id))
                .with_protocol_type(StrBytes::from_static_str(PROTOCOL_TYPE))
                .with_protocols(protocols.clone());
            let response = match conn.send(&request, version, join_timeout).await {
                Ok(r) => r,
                Err(e) => {
                    self.coordinator = None;
                    return Err(retry(e));
                }
            };
            match response.error_code {
                0 => break response,
                codes::MEMBER_ID_REQUIRED => {
                    self.member_id = response.member_id.to_string();
                }
                codes::UNKNOWN_MEMBER_ID => {
                    self.member_id.clear();
                }
                codes::REBALANCE_IN_PROGRESS => {}
                code => {
                    self.handle_coordinator_error(code);
                    return Err(retry(MembershipError::kafka("JoinGroup", code)));
                }
            }
        };
        self.member_id = joined.member_id.to_string();
        let generation = joined.generation_id;
        let protocol_name = joined
            .protocol_name
            .as_ref()
            .map(|p| p.to_string())
            .unwrap_or_default();
        let protocol = ConnectProtocol::from_name(&protocol_name).ok_or_else(|| {
            retry(MembershipError::Codec(format!(
                "JoinGroup chose the unknown protocol {protocol_name:?}"
            )))
        })?;
        let is_leader = joined.leader.as_str() == self.member_id;
        let mut member_urls = BTreeMap::new();
        let mut assignments = Vec::new();
        if is_leader {
            let mut members = BTreeMap::new();
            for m in &joined.members {
                let metadata = WorkerMetadata::decode(&m.metadata).map_err(|e| retry(e.into()))?;
                let assignment = metadata
                    .allocation
                    .map(|a| a.assigned_items())
                    .unwrap_or_default();
                member_urls.insert(m.member_id.to_string(), metadata.url.clone());
                members.insert(
                    m.member_id.to_string(),
                    MemberState {
                        url: metadata.url,
                        config_offset: metadata.config_offset,
                        assignment,
                    },
                );
            }
            let max_offset = members
                .values()
                .map(|m| m.config_offset)
                .max()
                .unwrap_or(-1);
            let snapshot = self.view.snapshot(max_offset).await;
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0);
            let plan = assign(
                &mut self.assignor,
                &AssignorInput {
                    members: &members,
                    snapshot: &snapshot,
                    protocol,
                    generation,
                    last_completed_generation: self.last_completed_generation,
                    now_ms,
                    max_delay_ms: millis(self.config.scheduled_rebalance_max_delay),
                },
            );
            let wire = plan.to_wire(
                protocol,
                &members,
                &self.member_id,
                &self.config.url,
                snapshot.offset,
            );
            for (member, assignment) in wire {
                let bytes = assignment.encode().map_err(|e| retry(e.into()))?;
                assignments.push(
                    SyncGroupRequestAssignment::default()
                        .with_member_id(StrBytes::from_string(member))
                        .with_assignment(Bytes::from(bytes)),
                );
            }
        }
        let sent = Instant::now();
        let member_id = self.member_id.clone();
        let conn = self.coordinator().await.map_err(retry)?;
        let version = conn
            .version::<SyncGroupRequest>("SyncGroup", 5)
            .map_err(retry)?;
        let mut request = SyncGroupRequest::default()
            .with_group_id(group_id)
            .with_generation_id(generation)
            .with_member_id(StrBytes::from_string(member_id))
            .with_assignments(assignments);
        if version >= 5 {
            request.protocol_type = Some(StrBytes::from_static_str(PROTOCOL_TYPE));
            request.protocol_name = Some(StrBytes::from_string(protocol_name));
        }
        let response = match conn.send(&request, version, join_timeout).await {
            Ok(r) => r,
            Err(e) => {
                self.coordinator = None;
                return Err(retry(e));
            }
        };
        if response.error_code != 0 {
            let code = response.error_code;
            if code == codes::UNKNOWN_MEMBER_ID || code == codes::ILLEGAL_GENERATION {
                if code == codes::UNKNOWN_MEMBER_ID {
                    self.member_id.clear();
                }
                if !self.current.is_empty() {
                    self.lose(format!(
                        "SyncGroup: {}",
                        MembershipError::kafka("SyncGroup", code)
                    ));
                }
            }
            self.handle_coordinator_error(code);
            return Err(retry(MembershipError::kafka("SyncGroup", code)));
        }
        let assignment = Assignment::decode(&response.assignment).map_err(|e| retry(e.into()))?;
        self.generation = generation;
        self.protocol = Some(protocol);
        self.last_completed_generation = Some(generation);
        self.last_heartbeat_ok = Some(sent);
        self.leader = assignment.leader.clone();
        self.leader_url = assignment.leader_url.clone();
        let assigned = assignment.assigned_items();
        let mut revoked = assignment.revoked_items();
        if !assignment.failed() {
            self.assignment_offset = assignment.config_offset;
            if protocol.is_incremental() {
                self.current.remove_all(&revoked);
                self.current.extend(&assigned);
            } else {
                // A member that ran under an incremental protocol kept its work through the
                // join; when the group falls back to eager, what it no longer has is revoked.
                revoked = self.current.clone();
                revoked.remove_all(&assigned);
                self.current = assigned.clone();
            }
        }
        tracing::info!(group = %self.config.group_id, member = %self.member_id, generation, leader = %assignment.leader, %protocol, "joined the worker group");
        self.emit(MemberEvent::Assigned(Box::new(Assigned {
            generation,
            member_id: self.member_id.clone(),
            leader: assignment.leader.clone(),
            leader_url: assignment.leader_url.clone(),
            is_leader,
            protocol,
            error: assignment.error,
            config_offset: assignment.config_offset,
            assigned,
            revoked,
            delay: assignment.delay,
            assignment: self.current.clone(),
            member_urls,
        })));
        Ok(assignment.delay)
    }

    /// Forgets the coordinator on the errors that mean it moved or is not ready.
    fn handle_coordinator_error(&mut self, code: i16) {
        if matches!(
            code,
            codes::NOT_COORDINATOR
                | codes::COORDINATOR_NOT_AVAILABLE
                | codes::COORDINATOR_LOAD_IN_PROGRESS
        ) {
            self.coordinator = None;
        }
    }

    async fn heartbeat(&mut self) -> Result<(), HeartbeatOutcome> {
        let sent = Instant::now();
        let group_id = GroupId(StrBytes::from_string(self.config.group_id.clone()));
        let (generation, member_id) = (self.generation, self.member_id.clone());
        let timeout = self
            .config
            .heartbeat_interval
            .min(self.config.request_timeout);
        // The whole attempt, reconnecting included, is bounded so a hanging network cannot
        // delay the membership-lost check.
        let result = tokio::time::timeout(timeout, async {
            let conn = self.coordinator().await?;
            let version = conn.version::<HeartbeatRequest>("Heartbeat", 4)?;
            let request = HeartbeatRequest::default()
                .with_group_id(group_id)
                .with_generation_id(generation)
                .with_member_id(StrBytes::from_string(member_id));
            conn.send(&request, version, timeout).await
        })
        .await
        .unwrap_or_else(|_| Err(MembershipError::Timeout("Heartbeat".into(), timeout)));
        let response = match result {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(group = %self.config.group_id, "heartbeat failed: {e}");
                self.coordinator = None;
                return Err(HeartbeatOutcome::Retry);
            }
        };
        match response.error_code {
            0 => {
                self.last_heartbeat_ok = Some(sent);
                Ok(())
            }
            codes::REBALANCE_IN_PROGRESS => {
                self.last_heartbeat_ok = Some(sent);
                Err(HeartbeatOutcome::Rejoin)
            }
            codes::UNKNOWN_MEMBER_ID | codes::ILLEGAL_GENERATION => {
                let code = response.error_code;
                if code == codes::UNKNOWN_MEMBER_ID {
                    self.member_id.clear();
                }
                self.lose(MembershipError::kafka("Heartbeat", code).to_string());
                Err(HeartbeatOutcome::Rejoin)
            }
            code => {
                self.handle_coordinator_error(code);
                tracing::debug!(group = %self.config.group_id, "heartbeat: {}", MembershipError::kafka("Heartbeat", code));
                Err(HeartbeatOutcome::Retry)
            }
        }
    }

    async fn leave(&mut self) {
        if self.member_id.is_empty() {
            return;
        }
        let group_id = GroupId(StrBytes::from_string(self.config.group_id.clone()));
        let member_id = StrBytes::from_string(self.member_id.clone());
        let timeout = self.config.request_timeout.min(Duration::from_secs(5));
        let Some(conn) = self.coordinator.as_mut() else {
            return;
        };
        let Ok(version) = conn.version::<LeaveGroupRequest>("LeaveGroup", 5) else {
            return;
        };
        let mut request = LeaveGroupRequest::default().with_group_id(group_id);
        if version >= 3 {
            request.members = vec![MemberIdentity::default().with_member_id(member_id)];
        } else {
            request.member_id = member_id;
        }
        match conn.send(&request, version, timeout).await {
            Ok(r) if r.error_code == 0 => {}
            Ok(r) => tracing::debug!(
                "LeaveGroup: {}",
                MembershipError::kafka("LeaveGroup", r.error_code)
            ),
            Err(e) => tracing::debug!("LeaveGroup: {e}"),
        }
        self.member_id.clear();
        self.current = WorkItems::default();
    }
}

enum HeartbeatOutcome {
    /// Rejoin the group now.
    Rejoin,
    /// Try again after the backoff.
    Retry,
}

fn millis(d: Duration) -> i32 {
    i32::try_from(d.as_millis()).unwrap_or(i32::MAX)
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_after_leaves_a_margin_before_the_session_timeout() {
        let mut c = MemberConfig::new("b:9092", "g", "http://w/");
        assert_eq!(c.lost_after(), Duration::from_secs(7));
        c.heartbeat_interval = Duration::from_secs(9);
        assert_eq!(c.lost_after(), Duration::from_secs(5));
        assert_eq!(c.bootstrap_servers, ["b:9092"]);
    }
}
