//! The member's side of its group's coordinator, on a tokio task of its own: JoinGroup with the
//! `consumer` protocol type and the `range` assignor (leading: assigning), SyncGroup, heartbeats,
//! offset commits and fetches, LeaveGroup. The consumer talks to it through [`GroupHandle`];
//! rebalances are eager, as the Java consumer's `range` protocol: the consumer hands back every
//! partition before it asks to join again.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use connect_membership::connection::Connection;
use connect_membership::error::codes;
use connect_membership::MembershipError;
use kafka_protocol::messages::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition as AssignedTopic,
};
use kafka_protocol::messages::consumer_protocol_subscription::ConsumerProtocolSubscription;
use kafka_protocol::messages::find_coordinator_request::FindCoordinatorRequest;
use kafka_protocol::messages::heartbeat_request::HeartbeatRequest;
use kafka_protocol::messages::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kafka_protocol::messages::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use kafka_protocol::messages::offset_commit_request::{
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kafka_protocol::messages::offset_fetch_request::{OffsetFetchRequest, OffsetFetchRequestTopic};
use kafka_protocol::messages::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use kafka_protocol::messages::{GroupId, TopicName};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::brokers::{Brokers, Partition};
use crate::config::ConsumerConfig;
use crate::range::{self, MemberSubscription};

/// The group protocol type of consumers.
pub const PROTOCOL_TYPE: &str = "consumer";
/// The assignor offered.
pub const ASSIGNOR: &str = "range";

/// A committed offset with its metadata string.
pub type Committed = (i64, Option<String>);

/// What the coordinator task tells the consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupEvent {
    /// A rebalance ended: the member's partitions for `generation`.
    Assigned {
        /// The generation.
        generation: i32,
        /// Its partitions.
        partitions: Vec<Partition>,
    },
    /// The group rebalances (or the membership was lost): hand back every partition, then
    /// join again.
    RejoinNeeded,
    /// Joining failed for good (e.g. the group is used by a member of another protocol).
    Failed(String),
}

enum Command {
    Join(Vec<String>),
    Commit(
        Vec<(Partition, i64, Option<String>)>,
        oneshot::Sender<Result<(), MembershipError>>,
    ),
    Committed(
        Vec<Partition>,
        oneshot::Sender<Result<BTreeMap<Partition, Committed>, MembershipError>>,
    ),
    Leave(oneshot::Sender<()>),
}

/// The consumer's handle on its coordinator task.
#[derive(Debug)]
pub struct GroupHandle {
    commands: mpsc::UnboundedSender<Command>,
    /// The task's events.
    pub events: mpsc::UnboundedReceiver<GroupEvent>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Join(_) => "Join",
            Self::Commit(..) => "Commit",
            Self::Committed(..) => "Committed",
            Self::Leave(_) => "Leave",
        })
    }
}

fn gone() -> MembershipError {
    MembershipError::NoBroker("the group's coordinator task ended".into())
}

impl GroupHandle {
    /// Starts the coordinator task of a member with `config` (on the current tokio runtime).
    pub fn start(config: ConsumerConfig) -> Self {
        let (commands, rx) = mpsc::unbounded_channel();
        let (tx, events) = mpsc::unbounded_channel();
        let task = GroupTask {
            brokers: Brokers::new(config.clone()),
            config,
            coordinator: None,
            member_id: String::new(),
            generation: -1,
            topics: Vec::new(),
            heartbeat_at: None,
            events: tx,
        };
        tokio::spawn(task.run(rx));
        Self { commands, events }
    }

    /// Joins (again) with a subscription to `topics`.
    pub fn join(&self, topics: Vec<String>) {
        let _ = self.commands.send(Command::Join(topics));
    }

    /// Commits `offsets` (next offset to read, metadata) for the current generation.
    ///
    /// # Errors
    /// The coordinator's refusal (e.g. ILLEGAL_GENERATION after a rebalance) or no answer.
    pub async fn commit(
        &self,
        offsets: Vec<(Partition, i64, Option<String>)>,
    ) -> Result<(), MembershipError> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Commit(offsets, tx))
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// The group's committed offsets of `partitions` (those that have one).
    ///
    /// # Errors
    /// When the coordinator does not answer.
    pub async fn committed(
        &self,
        partitions: Vec<Partition>,
    ) -> Result<BTreeMap<Partition, Committed>, MembershipError> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Committed(partitions, tx))
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Leaves the group and ends the task.
    pub async fn leave(&self) {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Leave(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

struct GroupTask {
    config: ConsumerConfig,
    brokers: Brokers,
    coordinator: Option<Connection>,
    member_id: String,
    generation: i32,
    /// The subscription of the last join.
    topics: Vec<String>,
    /// When to send the next heartbeat (`None`: not a member now).
    heartbeat_at: Option<Instant>,
    events: mpsc::UnboundedSender<GroupEvent>,
}

fn millis(d: Duration) -> i32 {
    i32::try_from(d.as_millis()).unwrap_or(i32::MAX)
}

impl GroupTask {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            let next = async {
                match self.heartbeat_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                command = commands.recv() => match command {
                    None => { self.leave().await; return; }
                    Some(Command::Leave(done)) => {
                        self.leave().await;
                        let _ = done.send(());
                        return;
                    }
                    Some(Command::Join(topics)) => {
                        self.topics = topics;
                        self.join().await;
                    }
                    Some(Command::Commit(offsets, reply)) => {
                        let _ = reply.send(self.commit(offsets).await);
                    }
                    Some(Command::Committed(partitions, reply)) => {
                        let _ = reply.send(self.committed(partitions).await);
                    }
                },
                () = next => self.heartbeat().await,
            }
        }
    }

    fn emit(&self, event: GroupEvent) {
        let _ = self.events.send(event);
    }

    async fn coordinator(&mut self) -> Result<&mut Connection, MembershipError> {
        if self.coordinator.is_none() {
            self.coordinator = Some(self.find_coordinator().await?);
        }
        self.coordinator
            .as_mut()
            .ok_or_else(|| MembershipError::NoBroker("no coordinator".into()))
    }

    async fn find_coordinator(&mut self) -> Result<Connection, MembershipError> {
        let timeout = self.config.request_timeout;
        let metadata = self.brokers.metadata(Some(&[]), false).await?;
        let mut last = String::from("no broker");
        for (id, _) in metadata.brokers {
            let conn = match self.brokers.connection(id).await {
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
            return self.brokers.connect(&format!("{host}:{port}")).await;
        }
        Err(MembershipError::NoBroker(last))
    }

    fn on_coordinator_error(&mut self, code: i16) {
        if matches!(
            code,
            codes::NOT_COORDINATOR
                | codes::COORDINATOR_NOT_AVAILABLE
                | codes::COORDINATOR_LOAD_IN_PROGRESS
        ) {
            self.coordinator = None;
        }
    }

    /// Joins until it has an assignment (retrying with backoff), then emits it.
    async fn join(&mut self) {
        loop {
            match self.join_once().await {
                Ok(partitions) => {
                    self.heartbeat_at = Some(Instant::now() + self.config.heartbeat_interval);
                    self.emit(GroupEvent::Assigned {
                        generation: self.generation,
                        partitions,
                    });
                    return;
                }
                Err(MembershipError::Auth(reason)) => {
                    self.emit(GroupEvent::Failed(format!(
                        "Kafka refused the connection: {reason}"
                    )));
                    return;
                }
                Err(e) => {
                    if e.code() == Some(INCONSISTENT_GROUP_PROTOCOL) {
                        self.emit(GroupEvent::Failed(format!(
                            "group '{}' is used by members of another protocol: {e}",
                            self.config.group_id
                        )));
                        return;
                    }
                    tracing::debug!(group = %self.config.group_id, "join failed, retrying: {e}");
                    if self.events.is_closed() {
                        return;
                    }
                    tokio::time::sleep(self.config.retry_backoff.max(Duration::from_millis(100)))
                        .await;
                }
            }
        }
    }

    async fn join_once(&mut self) -> Result<Vec<Partition>, MembershipError> {
        let group_id = GroupId(StrBytes::from_string(self.config.group_id.clone()));
        let subscription = encode_subscription(&self.topics)?;
        let join_timeout = self.config.max_poll_interval + Duration::from_secs(5);
        let joined = loop {
            let member_id = self.member_id.clone();
            let (session, rebalance) = (
                millis(self.config.session_timeout),
                millis(self.config.max_poll_interval),
            );
            let conn = self.coordinator().await?;
            let version = conn.version::<JoinGroupRequest>("JoinGroup", 9)?;
            let request = JoinGroupRequest::default()
                .with_group_id(group_id.clone())
                .with_session_timeout_ms(session)
                .with_rebalance_timeout_ms(if version >= 1 { rebalance } else { -1 })
                .with_member_id(StrBytes::from_string(member_id))
                .with_protocol_type(StrBytes::from_static_str(PROTOCOL_TYPE))
                .with_protocols(vec![JoinGroupRequestProtocol::default()
                    .with_name(StrBytes::from_static_str(ASSIGNOR))
                    .with_metadata(subscription.clone())]);
            let response = match conn.send(&request, version, join_timeout).await {
                Ok(r) => r,
                Err(e) => {
                    self.coordinator = None;
                    return Err(e);
                }
            };
            match response.error_code {
                0 => break response,
                codes::MEMBER_ID_REQUIRED => self.member_id = response.member_id.to_string(),
                codes::UNKNOWN_MEMBER_ID => self.member_id.clear(),
                codes::REBALANCE_IN_PROGRESS => {}
                code => {
                    self.on_coordinator_error(code);
                    return Err(MembershipError::kafka("JoinGroup", code));
                }
            }
        };
        self.member_id = joined.member_id.to_string();
        let generation = joined.generation_id;
        let mut assignments = Vec::new();
        if joined.leader.as_str() == self.member_id {
            let mut members = Vec::new();
            for m in &joined.members {
                members.push(MemberSubscription {
                    member_id: m.member_id.to_string(),
                    instance_id: m.group_instance_id.as_ref().map(|s| s.to_string()),
                    topics: decode_subscription(&m.metadata)?,
                });
            }
            let mut all: Vec<String> = members.iter().flat_map(|m| m.topics.clone()).collect();
            all.sort();
            all.dedup();
            let counts = self
                .brokers
                .metadata(Some(&all), false)
                .await?
                .partition_counts();
            for (member, topics) in range::assign(&members, &counts) {
                assignments.push(
                    SyncGroupRequestAssignment::default()
                        .with_member_id(StrBytes::from_string(member))
                        .with_assignment(encode_assignment(&topics)?),
                );
            }
        }
        let member_id = self.member_id.clone();
        let conn = self.coordinator().await?;
        let version = conn.version::<SyncGroupRequest>("SyncGroup", 5)?;
        let mut request = SyncGroupRequest::default()
            .with_group_id(group_id)
            .with_generation_id(generation)
            .with_member_id(StrBytes::from_string(member_id))
            .with_assignments(assignments);
        if version >= 5 {
            request.protocol_type = Some(StrBytes::from_static_str(PROTOCOL_TYPE));
            request.protocol_name = Some(StrBytes::from_static_str(ASSIGNOR));
        }
        let response = match conn.send(&request, version, join_timeout).await {
            Ok(r) => r,
            Err(e) => {
                self.coordinator = None;
                return Err(e);
            }
        };
        if response.error_code != 0 {
            if response.error_code == codes::UNKNOWN_MEMBER_ID {
                self.member_id.clear();
            }
            self.on_coordinator_error(response.error_code);
            return Err(MembershipError::kafka("SyncGroup", response.error_code));
        }
        self.generation = generation;
        let partitions = decode_assignment(&response.assignment)?;
        tracing::debug!(group = %self.config.group_id, member = %self.member_id, generation, ?partitions, "Joined the consumer group.");
        Ok(partitions)
    }

    async fn heartbeat(&mut self) {
        let group_id = GroupId(StrBytes::from_string(self.config.group_id.clone()));
        let (generation, member_id) = (self.generation, self.member_id.clone());
        let timeout = self.config.request_timeout;
        self.heartbeat_at = Some(Instant::now() + self.config.heartbeat_interval);
        let result = async {
            let conn = self.coordinator().await?;
            let version = conn.version::<HeartbeatRequest>("Heartbeat", 4)?;
            let request = HeartbeatRequest::default()
                .with_group_id(group_id)
                .with_generation_id(generation)
                .with_member_id(StrBytes::from_string(member_id));
            conn.send(&request, version, timeout).await
        }
        .await;
        match result {
            Ok(r) if r.error_code == 0 => {}
            Ok(r)
                if matches!(
                    r.error_code,
                    codes::REBALANCE_IN_PROGRESS
                        | codes::UNKNOWN_MEMBER_ID
                        | codes::ILLEGAL_GENERATION
                        | FENCED_INSTANCE_ID
                ) =>
            {
                if r.error_code == codes::UNKNOWN_MEMBER_ID {
                    self.member_id.clear();
                }
                self.heartbeat_at = None;
                self.emit(GroupEvent::RejoinNeeded);
            }
            Ok(r) => {
                self.on_coordinator_error(r.error_code);
                tracing::debug!(group = %self.config.group_id, "heartbeat: {}", MembershipError::kafka("Heartbeat", r.error_code));
            }
            Err(e) => {
                self.coordinator = None;
                tracing::debug!(group = %self.config.group_id, "heartbeat failed: {e}");
            }
        }
    }

    async fn commit(
        &mut self,
        offsets: Vec<(Partition, i64, Option<String>)>,
    ) -> Result<(), MembershipError> {
        let mut by_topic: BTreeMap<String, Vec<OffsetCommitRequestPartition>> = BTreeMap::new();
        for ((topic, partition), offset, metadata) in offsets {
            by_topic.entry(topic).or_default().push(
                OffsetCommitRequestPartition::default()
                    .with_partition_index(partition)
                    .with_committed_offset(offset)
                    .with_committed_leader_epoch(-1)
                    .with_committed_metadata(Some(StrBytes::from_string(
                        metadata.unwrap_or_default(),
                    ))),
            );
        }
        let request = OffsetCommitRequest::default()
            .with_group_id(GroupId(StrBytes::from_string(self.config.group_id.clone())))
            .with_generation_id_or_member_epoch(self.generation)
            .with_member_id(StrBytes::from_string(self.member_id.clone()))
            .with_retention_time_ms(-1)
            .with_topics(
                by_topic
                    .into_iter()
                    .map(|(t, p)| {
                        OffsetCommitRequestTopic::default()
                            .with_name(TopicName(StrBytes::from_string(t)))
                            .with_partitions(p)
                    })
                    .collect(),
            );
        let timeout = self.config.request_timeout;
        let result = async {
            let conn = self.coordinator().await?;
            let version = conn.version::<OffsetCommitRequest>("OffsetCommit", 8)?;
            conn.send(&request, version, timeout).await
        }
        .await;
        let response = result.inspect_err(|_| self.coordinator = None)?;
        for t in &response.topics {
            for p in &t.partitions {
                if p.error_code != 0 {
                    self.on_coordinator_error(p.error_code);
                    return Err(MembershipError::kafka("OffsetCommit", p.error_code));
                }
            }
        }
        Ok(())
    }

    async fn committed(
        &mut self,
        partitions: Vec<Partition>,
    ) -> Result<BTreeMap<Partition, Committed>, MembershipError> {
        let mut by_topic: BTreeMap<String, Vec<i32>> = BTreeMap::new();
        for (t, p) in partitions {
            by_topic.entry(t).or_default().push(p);
        }
        let request = OffsetFetchRequest::default()
            .with_group_id(GroupId(StrBytes::from_string(self.config.group_id.clone())))
            .with_topics(Some(
                by_topic
                    .into_iter()
                    .map(|(t, p)| {
                        OffsetFetchRequestTopic::default()
                            .with_name(TopicName(StrBytes::from_string(t)))
                            .with_partition_indexes(p)
                    })
                    .collect(),
            ))
            .with_require_stable(true);
        let timeout = self.config.request_timeout;
        let result = async {
            let conn = self.coordinator().await?;
            let version = conn.version::<OffsetFetchRequest>("OffsetFetch", 7)?;
            let mut request = request;
            if version < 7 {
                request.require_stable = false;
            }
            conn.send(&request, version, timeout).await
        }
        .await;
        let response = result.inspect_err(|_| self.coordinator = None)?;
        if response.error_code != 0 {
            self.on_coordinator_error(response.error_code);
            return Err(MembershipError::kafka("OffsetFetch", response.error_code));
        }
        let mut out = BTreeMap::new();
        for t in &response.topics {
            for p in &t.partitions {
                if p.error_code != 0 {
                    return Err(MembershipError::kafka("OffsetFetch", p.error_code));
                }
                if p.committed_offset >= 0 {
                    out.insert(
                        (t.name.0.to_string(), p.partition_index),
                        (
                            p.committed_offset,
                            p.metadata.as_ref().map(|m| m.to_string()),
                        ),
                    );
                }
            }
        }
        Ok(out)
    }

    async fn leave(&mut self) {
        self.heartbeat_at = None;
        if self.member_id.is_empty() {
            return;
        }
        let group_id = GroupId(StrBytes::from_string(self.config.group_id.clone()));
        let member_id = StrBytes::from_string(std::mem::take(&mut self.member_id));
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
        if let Err(e) = conn.send(&request, version, timeout).await {
            tracing::debug!("LeaveGroup: {e}");
        }
    }
}

/// INCONSISTENT_GROUP_PROTOCOL
const INCONSISTENT_GROUP_PROTOCOL: i16 = 23;
/// FENCED_INSTANCE_ID
const FENCED_INSTANCE_ID: i16 = 82;

/// The subscription bytes of JoinGroup (ConsumerProtocolSubscription v1).
fn encode_subscription(topics: &[String]) -> Result<Bytes, MembershipError> {
    const VERSION: i16 = 1;
    let s = ConsumerProtocolSubscription::default().with_topics(
        topics
            .iter()
            .map(|t| StrBytes::from_string(t.clone()))
            .collect(),
    );
    let mut buf = BytesMut::new();
    buf.extend_from_slice(&VERSION.to_be_bytes());
    s.encode(&mut buf, VERSION)
        .map_err(|e| MembershipError::Codec(format!("consumer subscription: {e}")))?;
    Ok(buf.freeze())
}

fn decode_subscription(bytes: &Bytes) -> Result<Vec<String>, MembershipError> {
    let mut b = bytes.clone();
    let version = versioned(&mut b, "subscription")?;
    let s = ConsumerProtocolSubscription::decode(&mut b, version)
        .map_err(|e| MembershipError::Codec(format!("consumer subscription: {e}")))?;
    Ok(s.topics.iter().map(|t| t.to_string()).collect())
}

/// The assignment bytes of SyncGroup (ConsumerProtocolAssignment v1).
fn encode_assignment(topics: &BTreeMap<String, Vec<i32>>) -> Result<Bytes, MembershipError> {
    const VERSION: i16 = 1;
    let a = ConsumerProtocolAssignment::default().with_assigned_partitions(
        topics
            .iter()
            .map(|(t, p)| {
                AssignedTopic::default()
                    .with_topic(TopicName(StrBytes::from_string(t.clone())))
                    .with_partitions(p.clone())
            })
            .collect(),
    );
    let mut buf = BytesMut::new();
    buf.extend_from_slice(&VERSION.to_be_bytes());
    a.encode(&mut buf, VERSION)
        .map_err(|e| MembershipError::Codec(format!("consumer assignment: {e}")))?;
    Ok(buf.freeze())
}

fn decode_assignment(bytes: &Bytes) -> Result<Vec<Partition>, MembershipError> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let mut b = bytes.clone();
    let version = versioned(&mut b, "assignment")?;
    let a = ConsumerProtocolAssignment::decode(&mut b, version)
        .map_err(|e| MembershipError::Codec(format!("consumer assignment: {e}")))?;
    Ok(a.assigned_partitions
        .iter()
        .flat_map(|t| t.partitions.iter().map(|p| (t.topic.0.to_string(), *p)))
        .collect())
}

/// Reads the leading version of consumer protocol bytes, capped at what this client reads
/// (newer versions only add fields at the end).
fn versioned(b: &mut Bytes, what: &str) -> Result<i16, MembershipError> {
    if b.len() < 2 {
        return Err(MembershipError::Codec(format!(
            "consumer {what}: too short"
        )));
    }
    let v = i16::from_be_bytes([b[0], b[1]]);
    let _ = b.split_to(2);
    Ok(v.clamp(0, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscriptions_and_assignments_round_trip() {
        let topics = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(
            decode_subscription(&encode_subscription(&topics).unwrap()).unwrap(),
            topics
        );
        let assigned = BTreeMap::from([("a".to_owned(), vec![0, 2]), ("b".to_owned(), vec![1])]);
        assert_eq!(
            decode_assignment(&encode_assignment(&assigned).unwrap()).unwrap(),
            [
                ("a".to_owned(), 0),
                ("a".to_owned(), 2),
                ("b".to_owned(), 1)
            ]
        );
        assert!(decode_assignment(&Bytes::new()).unwrap().is_empty());
    }
}
