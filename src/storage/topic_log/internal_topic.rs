//! Kafka Connect's rules for its internal topics (`TopicAdmin.createOrFindTopics` and
//! `verifyTopicCleanupPolicyOnlyCompact`, the configs topic's single-partition check):
//! created if absent with `cleanup.policy=compact` forced over the worker's topic settings; an
//! existing topic must be compacted only; the configs topic must have one partition.

use std::collections::{BTreeMap, BTreeSet};

use tracing::info;

use super::TopicLogError;
use crate::topics::internal_topic::{InternalTopicBackend, NewTopicSpec, TopicDescription};

/// How long an existing topic that is not described yet is asked for again.
const DESCRIBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(15);
/// Pause between those requests.
const DESCRIBE_BACKOFF: std::time::Duration = std::time::Duration::from_millis(200);

/// Which internal topic: decides the worker key and purpose named in errors, and the
/// configs topic's single partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalTopicKind {
    /// `config.storage.topic`: exactly one partition.
    Configs,
    /// `offset.storage.topic`.
    Offsets,
    /// `status.storage.topic`.
    Status,
}

impl InternalTopicKind {
    /// The worker setting that names the topic.
    pub fn worker_key(self) -> &'static str {
        match self {
            Self::Configs => "config.storage.topic",
            Self::Offsets => "offset.storage.topic",
            Self::Status => "status.storage.topic",
        }
    }

    /// What the topic holds, as Kafka Connect's messages say it.
    pub fn purpose(self) -> &'static str {
        match self {
            Self::Configs => "connector configurations",
            Self::Offsets => "source connector offsets",
            Self::Status => "connector and task statuses",
        }
    }
}

/// An internal topic to open: which one, its name, and the settings used when creating it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalTopicSpec {
    /// Which internal topic.
    pub kind: InternalTopicKind,
    /// Topic name (the value of [`InternalTopicKind::worker_key`]).
    pub name: String,
    /// Partitions when created (`-1`: the cluster default); the configs topic always gets 1.
    pub partitions: i32,
    /// Replication factor when created (`-1`: the cluster default).
    pub replication_factor: i16,
    /// Further topic configs when created (`cleanup.policy` is always `compact`).
    pub configs: BTreeMap<String, String>,
}

impl InternalTopicSpec {
    /// `kind` named `name` with `partitions` and `replication_factor` and no further configs.
    pub fn new(
        kind: InternalTopicKind,
        name: impl Into<String>,
        partitions: i32,
        replication_factor: i16,
    ) -> Self {
        Self {
            kind,
            name: name.into(),
            partitions,
            replication_factor,
            configs: BTreeMap::new(),
        }
    }
}

/// Creates the topic of `spec` if absent (compacted); otherwise verifies that it is compacted
/// only. The configs topic must have a single partition.
///
/// # Errors
/// [`TopicLogError::CleanupPolicy`], [`TopicLogError::ConfigTopicPartitions`], or a failure of
/// the backend.
pub async fn ensure_internal_topic(
    backend: &dyn InternalTopicBackend,
    spec: &InternalTopicSpec,
) -> Result<(), TopicLogError> {
    let mut configs = spec.configs.clone();
    configs.insert("cleanup.policy".to_owned(), "compact".to_owned());
    let partitions = match spec.kind {
        InternalTopicKind::Configs => 1,
        _ => spec.partitions,
    };
    let created = backend
        .create_topic_if_absent(&NewTopicSpec {
            name: spec.name.clone(),
            partitions,
            replication_factor: spec.replication_factor,
            configs,
        })
        .await?;
    let description = if created && spec.kind != InternalTopicKind::Configs {
        None
    } else {
        describe_existing(backend, &spec.name, !created).await?
    };
    if let (false, Some(d)) = (created, &description) {
        verify_only_compact(spec, d.cleanup_policy.as_deref())?;
    }
    if spec.kind == InternalTopicKind::Configs {
        if let Some(d) = description.filter(|d| d.partitions > 1) {
            return Err(TopicLogError::ConfigTopicPartitions {
                topic: spec.name.clone(),
                worker_key: spec.kind.worker_key(),
                partitions: d.partitions,
            });
        }
    }
    Ok(())
}

/// Describes topic `name`; when it `exists` (its creation was refused as it exists) but is not
/// described yet (a topic created a moment ago may not be known to every broker), asks again
/// for a while.
async fn describe_existing(
    backend: &dyn InternalTopicBackend,
    name: &str,
    exists: bool,
) -> Result<Option<TopicDescription>, TopicLogError> {
    let deadline = tokio::time::Instant::now() + DESCRIBE_TIMEOUT;
    loop {
        let description = backend.describe_topic(name).await?;
        if description.is_some() || !exists || tokio::time::Instant::now() >= deadline {
            return Ok(description);
        }
        tokio::time::sleep(DESCRIBE_BACKOFF).await;
    }
}

/// The policies of a `cleanup.policy` value: comma-separated, trimmed, lower-cased; an internal
/// topic is accepted when they are exactly `compact` (or none could be read).
pub fn cleanup_policies(policy: &str) -> BTreeSet<String> {
    policy
        .split(',')
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Kafka Connect's `verifyTopicCleanupPolicyOnlyCompact`: the policies (comma-separated, trimmed,
/// lower-cased) must be exactly `compact`; an unknown policy is accepted with a log line.
fn verify_only_compact(
    spec: &InternalTopicSpec,
    policy: Option<&str>,
) -> Result<(), TopicLogError> {
    let policies = cleanup_policies(policy.unwrap_or(""));
    if policies.is_empty() {
        info!(
            topic = %spec.name,
            "Unable to verify that the cleanup policy of the topic is 'compact': it could not be read."
        );
        return Ok(());
    }
    if policies.len() == 1 && policies.contains("compact") {
        return Ok(());
    }
    Err(TopicLogError::CleanupPolicy {
        topic: spec.name.clone(),
        worker_key: spec.kind.worker_key(),
        purpose: spec.kind.purpose(),
        policy: policies.into_iter().collect::<Vec<_>>().join(","),
    })
}
