//! [`Consumer`]: one member of a consumer group, driven by its owner's `poll` as the Java
//! consumer is. Group coordination runs on its own task ([`crate::group`]); reading runs on a
//! short-lived task per round ([`crate::fetcher`]) that owns the member's broker connections
//! while it runs, so dropping a `poll` never cuts a request in half, and the next round is
//! already under way while the owner handles the records of the last one.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use connect_membership::MembershipError;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::batch::FetchedRecord;
use crate::brokers::{Brokers, Metadata, Partition};
use crate::config::{ConsumerConfig, OffsetReset};
use crate::fetcher::{self, Fetched};
use crate::group::{GroupEvent, GroupHandle};

/// What a member reads.
#[derive(Clone)]
pub enum Subscription {
    /// These topics.
    Topics(Vec<String>),
    /// Every topic whose name this accepts, now or later.
    Pattern(Arc<dyn Fn(&str) -> bool + Send + Sync>),
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Topics(t) => f.debug_tuple("Topics").field(t).finish(),
            Self::Pattern(_) => f.write_str("Pattern"),
        }
    }
}

/// What a poll returns.
#[derive(Debug, PartialEq, Eq)]
pub enum Polled {
    /// Records, in offset order per partition (maybe none).
    Records(Vec<(Partition, FetchedRecord)>),
    /// The group rebalances: these partitions are no longer this member's. Commit what was
    /// read from them now (the commit still counts), then poll again to rejoin.
    Revoked(Vec<Partition>),
}

/// Where an assigned partition stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Its committed offset is to be looked up.
    Unknown,
    /// To start where `auto.offset.reset` says.
    Reset,
    /// The next offset to fetch.
    At(i64),
}

/// What one round of the I/O task did.
struct Round {
    brokers: Brokers,
    /// The metadata lookup and when it began.
    metadata: Option<(Result<Metadata, MembershipError>, std::time::Instant)>,
    resets: BTreeMap<Partition, Result<i64, String>>,
    fetched: Vec<(Partition, i64, Fetched)>,
}

/// A consumer group member.
pub struct Consumer {
    config: ConsumerConfig,
    group: GroupHandle,
    subscription: Option<Subscription>,
    /// The topics of the last join.
    topics: Vec<String>,
    metadata: Metadata,
    metadata_at: Option<std::time::Instant>,
    metadata_stale: bool,
    brokers: Option<Brokers>,
    round: Option<JoinHandle<Round>>,
    join_pending: bool,
    assignment: BTreeMap<Partition, Place>,
    /// The next offset to hand out, per assigned partition.
    delivered: BTreeMap<Partition, i64>,
    paused: BTreeSet<Partition>,
    /// The high watermark (last stable offset with `read_committed`) per partition.
    ends: BTreeMap<Partition, i64>,
    /// Records fetched and not handed out yet, per partition.
    buffered: BTreeMap<Partition, VecDeque<FetchedRecord>>,
    events: VecDeque<GroupEvent>,
    failure: Option<String>,
    /// Whether the group gave this member an assignment (maybe empty) once.
    joined: bool,
    /// Whether a join is asked for or under way (the assignment is not known).
    rejoining: bool,
    /// Whether the owner asked for a fresh look at the subscribed topics' partitions.
    want_metadata: AtomicBool,
    /// While a subscribed topic does not exist: how long until the next look for it.
    missing_backoff: Duration,
}

/// Shortest interval between two metadata lookups the owner asks for.
const METADATA_MIN_INTERVAL: Duration = Duration::from_millis(200);
/// First and longest interval between two looks for subscribed topics that do not exist yet.
const MISSING_FIRST: Duration = Duration::from_millis(50);
const MISSING_MAX: Duration = Duration::from_secs(5);

impl std::fmt::Debug for Consumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consumer")
            .field("group", &self.config.group_id)
            .field("assignment", &self.assignment)
            .finish_non_exhaustive()
    }
}

/// Why a consumer cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum ConsumerError {
    /// A request failed.
    #[error(transparent)]
    Kafka(#[from] MembershipError),
    /// The group or a partition cannot be read (named in the message).
    #[error("{0}")]
    Failed(String),
}

impl Consumer {
    /// A member with `config`; its coordinator task starts on the current tokio runtime. It
    /// joins when it subscribes.
    pub fn new(config: ConsumerConfig) -> Self {
        Self {
            group: GroupHandle::start(config.clone()),
            brokers: Some(Brokers::new(config.clone())),
            config,
            subscription: None,
            topics: Vec::new(),
            metadata: Metadata::default(),
            metadata_at: None,
            metadata_stale: false,
            round: None,
            join_pending: false,
            assignment: BTreeMap::new(),
            delivered: BTreeMap::new(),
            paused: BTreeSet::new(),
            ends: BTreeMap::new(),
            buffered: BTreeMap::new(),
            events: VecDeque::new(),
            failure: None,
            joined: false,
            rejoining: false,
            want_metadata: AtomicBool::new(false),
            missing_backoff: MISSING_FIRST,
        }
    }

    /// Subscribes (asking the broker to create absent topics when allowed) and joins at the
    /// next poll. A cluster that does not answer yet is asked again by the polls.
    pub async fn subscribe(&mut self, subscription: Subscription) {
        let create = self.config.allow_auto_create_topics;
        let started = std::time::Instant::now();
        let brokers = self.brokers().await;
        let metadata = match &subscription {
            Subscription::Topics(t) => brokers.metadata(Some(t), create).await,
            Subscription::Pattern(_) => brokers.metadata(None, false).await,
        };
        self.subscription = Some(subscription);
        match metadata {
            Ok(m) => self.set_metadata(m, started),
            Err(e) => {
                tracing::debug!(group = %self.config.group_id, "metadata lookup failed: {e}");
                self.metadata_stale = true;
            }
        }
        self.join_pending = true;
    }

    /// Hands out up to `max` records, waiting up to `timeout` for some; joins and rejoins the
    /// group as it must.
    ///
    /// # Errors
    /// When the group cannot be joined or a partition cannot be read.
    pub async fn poll(&mut self, max: usize, timeout: Duration) -> Result<Polled, ConsumerError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(f) = &self.failure {
                return Err(ConsumerError::Failed(f.clone()));
            }
            while let Ok(e) = self.group.events.try_recv() {
                self.events.push_back(e);
            }
            while let Some(event) = self.events.pop_front() {
                match event {
                    GroupEvent::Assigned { partitions, .. } => {
                        self.joined = true;
                        self.rejoining = false;
                        self.assignment = partitions
                            .into_iter()
                            .map(|p| (p, Place::Unknown))
                            .collect();
                        self.delivered.clear();
                        self.buffered.clear();
                        self.ends.clear();
                    }
                    GroupEvent::RejoinNeeded => {
                        if !self.assignment.is_empty() {
                            self.join_pending = true;
                            return Ok(Polled::Revoked(self.revoke_all()));
                        }
                        self.join_pending = true;
                    }
                    GroupEvent::Failed(reason) => {
                        self.failure = Some(reason.clone());
                        return Err(ConsumerError::Failed(reason));
                    }
                }
            }
            if self.join_pending && self.subscription.is_some() {
                self.join_pending = false;
                self.rejoining = true;
                self.topics = self.subscribed_topics();
                self.group.join(self.topics.clone());
            }
            self.look_up_committed().await?;
            let records = self.take_buffered(max);
            self.start_round();
            if !records.is_empty() {
                return Ok(Polled::Records(records));
            }
            if Instant::now() >= deadline {
                return Ok(Polled::Records(Vec::new()));
            }
            tokio::select! {
                event = self.group.events.recv() => match event {
                    Some(e) => self.events.push_back(e),
                    None => return Err(ConsumerError::Failed("the group's coordinator task ended".into())),
                },
                round = async { self.round.as_mut().expect("checked").await }, if self.round.is_some() => {
                    self.round = None;
                    match round {
                        Ok(round) => self.integrate(round)?,
                        Err(e) => return Err(ConsumerError::Failed(format!("a fetch task failed: {e}"))),
                    }
                }
                () = tokio::time::sleep_until(deadline) => return Ok(Polled::Records(Vec::new())),
            }
        }
    }

    /// Commits `offsets` (next offset to read, with a metadata string) for the group.
    ///
    /// # Errors
    /// The coordinator's refusal (e.g. after the group moved on without this member).
    pub async fn commit(
        &mut self,
        offsets: Vec<(Partition, i64, Option<String>)>,
    ) -> Result<(), ConsumerError> {
        Ok(self.group.commit(offsets).await?)
    }

    /// The group's committed offsets and metadata of `partitions` (those that have one).
    ///
    /// # Errors
    /// When the coordinator does not answer.
    pub async fn committed(
        &mut self,
        partitions: Vec<Partition>,
    ) -> Result<BTreeMap<Partition, (i64, Option<String>)>, ConsumerError> {
        Ok(self.group.committed(partitions).await?)
    }

    /// Reads assigned partition `tp` next from `offset`.
    pub fn seek(&mut self, tp: &Partition, offset: i64) {
        if let Some(place) = self.assignment.get_mut(tp) {
            *place = Place::At(offset);
            self.delivered.insert(tp.clone(), offset);
            self.buffered.remove(tp);
        }
    }

    /// Stops reading `partitions` until resumed; records read ahead are read again then.
    pub fn pause(&mut self, partitions: &[Partition]) {
        for tp in partitions {
            if self.paused.insert(tp.clone()) {
                if let (Some(place), Some(at)) =
                    (self.assignment.get_mut(tp), self.delivered.get(tp))
                {
                    *place = Place::At(*at);
                }
                self.buffered.remove(tp);
            }
        }
    }

    /// Reads paused `partitions` again.
    pub fn resume(&mut self, partitions: &[Partition]) {
        for tp in partitions {
            self.paused.remove(tp);
        }
    }

    /// The partitions assigned now.
    pub fn assignment(&self) -> Vec<Partition> {
        self.assignment.keys().cloned().collect()
    }

    /// Whether the group gave this member its partitions (maybe none) at least once.
    pub fn has_joined(&self) -> bool {
        self.joined
    }

    /// Asks for a fresh look at the subscribed topics' partitions in the next round (at most
    /// every 200 ms); [`Self::subscribed_partitions`] tells what it found.
    pub fn look_up_partitions(&self) {
        self.want_metadata.store(true, Ordering::Release);
    }

    /// Whether every assigned partition has been handed out to its end (as last fetched).
    pub fn at_end(&self) -> bool {
        self.joined
            && !self.rejoining
            && !self.join_pending
            && self.buffered.is_empty()
            && self.assignment.keys().all(|tp| {
            matches!((self.delivered.get(tp), self.ends.get(tp)), (Some(d), Some(e)) if d >= e)
        })
    }

    /// Records between what was handed out and the ends of the assigned partitions, when
    /// every one is known.
    pub fn lag(&self) -> Option<u64> {
        self.assignment.keys().try_fold(0u64, |sum, tp| {
            let (d, e) = (self.delivered.get(tp)?, self.ends.get(tp)?);
            Some(sum + u64::try_from(e - d).unwrap_or(0))
        })
    }

    /// Every partition of the subscribed topics as last looked up, and when.
    pub fn subscribed_partitions(&self) -> Option<(Vec<Partition>, std::time::Instant)> {
        let at = self.metadata_at?;
        let parts = self
            .topics
            .iter()
            .filter_map(|t| self.metadata.leaders.get(t).map(|p| (t, p)))
            .flat_map(|(t, p)| p.keys().map(|i| (t.clone(), *i)))
            .collect();
        Some((parts, at))
    }

    /// Leaves the group (the partitions move to the other members at once).
    pub async fn close(self) {
        self.group.leave().await;
    }

    async fn brokers(&mut self) -> &mut Brokers {
        if let Some(round) = self.round.take() {
            if let Ok(round) = round.await {
                self.brokers = Some(round.brokers);
            }
        }
        self.brokers
            .get_or_insert_with(|| Brokers::new(self.config.clone()))
    }

    fn revoke_all(&mut self) -> Vec<Partition> {
        self.buffered.clear();
        self.delivered.clear();
        self.ends.clear();
        std::mem::take(&mut self.assignment).into_keys().collect()
    }

    fn subscribed_topics(&self) -> Vec<String> {
        match &self.subscription {
            Some(Subscription::Topics(t)) => t.clone(),
            Some(Subscription::Pattern(p)) => self
                .metadata
                .leaders
                .keys()
                .filter(|t| p(t))
                .cloned()
                .collect(),
            None => Vec::new(),
        }
    }

    fn set_metadata(&mut self, metadata: Metadata, started: std::time::Instant) {
        self.metadata = metadata;
        self.metadata_at = Some(started);
        self.metadata_stale = false;
    }

    /// Looks up the committed offsets of partitions assigned without a place yet.
    async fn look_up_committed(&mut self) -> Result<(), ConsumerError> {
        let unknown: Vec<Partition> = self
            .assignment
            .iter()
            .filter(|(_, p)| **p == Place::Unknown)
            .map(|(tp, _)| tp.clone())
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let committed = match self.group.committed(unknown.clone()).await {
            Ok(c) => c,
            Err(MembershipError::Auth(reason)) => {
                return Err(ConsumerError::Failed(format!(
                    "Kafka refused the connection: {reason}"
                )))
            }
            Err(e) => {
                // The coordinator is loading, moving, or has a transaction's offsets pending:
                // the next poll asks again.
                tracing::debug!(group = %self.config.group_id, "committed offsets lookup failed: {e}");
                return Ok(());
            }
        };
        for tp in unknown {
            let place = match committed.get(&tp) {
                Some((offset, _)) => Place::At(*offset),
                None => Place::Reset,
            };
            if let (Place::At(o), Some(p)) = (place, self.assignment.get_mut(&tp)) {
                *p = Place::At(o);
                self.delivered.insert(tp, o);
            } else if let Some(p) = self.assignment.get_mut(&tp) {
                *p = place;
            }
        }
        Ok(())
    }

    /// Hands out up to `max` buffered records of partitions still assigned and not paused.
    fn take_buffered(&mut self, max: usize) -> Vec<(Partition, FetchedRecord)> {
        let mut out = Vec::new();
        for (tp, records) in &mut self.buffered {
            if out.len() >= max {
                break;
            }
            let Some(next) = self.delivered.get_mut(tp) else {
                records.clear();
                continue;
            };
            if self.paused.contains(tp) {
                continue;
            }
            while out.len() < max {
                let Some(record) = records.pop_front() else {
                    break;
                };
                if record.offset < *next {
                    continue;
                }
                *next = record.offset + 1;
                out.push((tp.clone(), record));
            }
        }
        self.buffered.retain(|_, r| !r.is_empty());
        out
    }

    /// Starts the next I/O round when none runs: metadata when stale or old, offsets of
    /// partitions to reset, and a fetch of every readable partition without buffered records.
    fn start_round(&mut self) {
        if self.round.is_some() {
            return;
        }
        let Some(mut brokers) = self.brokers.take() else {
            return;
        };
        let age = self.metadata_at.map(|at| at.elapsed());
        let missing = self
            .topics
            .iter()
            .any(|t| !self.metadata.leaders.contains_key(t));
        let refresh = self.metadata_stale
            || age.is_none_or(|a| {
                a >= self.config.metadata_max_age
                    || (missing && a >= self.missing_backoff)
                    || (a >= METADATA_MIN_INTERVAL && self.want_metadata.load(Ordering::Acquire))
            });
        if refresh {
            self.want_metadata.store(false, Ordering::Release);
            self.missing_backoff = if missing {
                (self.missing_backoff * 2).min(MISSING_MAX)
            } else {
                MISSING_FIRST
            };
        }
        let resets: Vec<Partition> = self
            .assignment
            .iter()
            .filter(|(_, p)| **p == Place::Reset)
            .map(|(tp, _)| tp.clone())
            .collect();
        let wanted: Vec<(Partition, i64)> = self
            .assignment
            .iter()
            .filter(|(tp, _)| !self.paused.contains(*tp) && !self.buffered.contains_key(*tp))
            .filter_map(|(tp, p)| match p {
                Place::At(o) => Some((tp.clone(), *o)),
                _ => None,
            })
            .collect();
        if !refresh && resets.is_empty() && wanted.is_empty() {
            self.brokers = Some(brokers);
            return;
        }
        let config = self.config.clone();
        let mut metadata = self.metadata.clone();
        let (topics, create) = match &self.subscription {
            Some(Subscription::Pattern(_)) => (None, false),
            _ => (
                Some(self.topics.clone()),
                self.config.allow_auto_create_topics,
            ),
        };
        let stale = self.metadata_stale;
        self.round = Some(tokio::spawn(async move {
            let mut round = Round {
                brokers: Brokers::new(config.clone()),
                metadata: None,
                resets: BTreeMap::new(),
                fetched: Vec::new(),
            };
            if refresh {
                if stale {
                    tokio::time::sleep(config.retry_backoff).await;
                }
                let started = std::time::Instant::now();
                let m = brokers.metadata(topics.as_deref(), create).await;
                if let Ok(m) = &m {
                    metadata = m.clone();
                }
                round.metadata = Some((m, started));
            }
            if !resets.is_empty() {
                let at = match config.offset_reset {
                    OffsetReset::Earliest => Some(-2),
                    OffsetReset::Latest => Some(-1),
                    OffsetReset::None => None,
                };
                let found = match at {
                    None => Err("it has no committed offset and auto.offset.reset=none".to_owned()),
                    Some(at) => {
                        fetcher::list_offsets(&mut brokers, &metadata, &resets, at, &config)
                            .await
                            .map_err(|e| e.to_string())
                    }
                };
                for tp in resets {
                    let r = match &found {
                        Ok(m) => m
                            .get(&tp)
                            .copied()
                            .ok_or_else(|| "the leader gave no offset".to_owned()),
                        Err(e) => Err(format!("partition {}-{}: {e}", tp.0, tp.1)),
                    };
                    round.resets.insert(tp, r);
                }
            }
            if !wanted.is_empty() {
                round.fetched = fetcher::fetch(
                    &mut brokers,
                    &metadata,
                    &wanted,
                    &config,
                    config.fetch_max_wait,
                )
                .await;
            }
            round.brokers = brokers;
            round
        }));
    }

    /// Takes in what a round found.
    fn integrate(&mut self, round: Round) -> Result<(), ConsumerError> {
        self.brokers = Some(round.brokers);
        match round.metadata {
            Some((Ok(m), started)) => {
                let before = self.partition_counts();
                self.set_metadata(m, started);
                let topics = self.subscribed_topics();
                if topics != self.topics || self.partition_counts() != before {
                    // New topics match the pattern, or partitions were added: rejoin.
                    self.events.push_back(GroupEvent::RejoinNeeded);
                }
            }
            Some((Err(e), _)) => {
                tracing::debug!(group = %self.config.group_id, "metadata refresh failed: {e}");
                self.metadata_stale = true;
            }
            None => {}
        }
        for (tp, r) in round.resets {
            let Some(place) = self.assignment.get_mut(&tp) else {
                continue;
            };
            if *place != Place::Reset {
                continue;
            }
            match r {
                Ok(o) => {
                    *place = Place::At(o);
                    self.delivered.insert(tp, o);
                }
                Err(e) if self.config.offset_reset == OffsetReset::None => {
                    return Err(ConsumerError::Failed(e));
                }
                Err(e) => {
                    tracing::debug!(group = %self.config.group_id, "offset lookup failed: {e}");
                    self.metadata_stale = true;
                }
            }
        }
        for (tp, from, fetched) in round.fetched {
            let Some(place) = self.assignment.get_mut(&tp) else {
                continue;
            };
            if *place != Place::At(from) || self.paused.contains(&tp) {
                continue;
            }
            match fetched {
                Fetched::Records {
                    records,
                    next_offset,
                    high_watermark,
                    last_stable_offset,
                } => {
                    let end = if self.config.read_committed && last_stable_offset >= 0 {
                        last_stable_offset
                    } else {
                        high_watermark
                    };
                    self.ends.insert(tp.clone(), end);
                    let next = records
                        .last()
                        .map(|r| r.offset + 1)
                        .into_iter()
                        .chain(next_offset)
                        .max()
                        .unwrap_or(from);
                    *place = Place::At(next);
                    if records.is_empty() {
                        // Control records or aborted transactions only: nothing to hand out.
                        self.delivered.insert(tp.clone(), next);
                    }
                    if !records.is_empty() {
                        self.buffered.entry(tp).or_default().extend(records);
                    }
                }
                Fetched::OutOfRange => {
                    tracing::info!(group = %self.config.group_id, topic = %tp.0, partition = tp.1, offset = from, "Fetch position out of range; resetting it as auto.offset.reset says.");
                    *place = Place::Reset;
                }
                Fetched::Stale(reason) => {
                    tracing::debug!(group = %self.config.group_id, "fetch: {reason}");
                    self.metadata_stale = true;
                }
                Fetched::Failed(reason) => {
                    return Err(ConsumerError::Failed(format!(
                        "reading {}-{} at offset {from}: {reason}",
                        tp.0, tp.1
                    )));
                }
            }
        }
        Ok(())
    }

    fn partition_counts(&self) -> BTreeMap<String, i32> {
        self.topics
            .iter()
            .filter_map(|t| {
                self.metadata
                    .leaders
                    .get(t)
                    .map(|p| (t.clone(), p.len() as i32))
            })
            .collect()
    }
}
