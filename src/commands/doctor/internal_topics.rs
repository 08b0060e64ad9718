//! The internal topics of a distributed worker on Kafka (`group.id` and `bootstrap.servers`
//! set): a `*.storage.replication.factor` of 1 (one broker's disk holds the cluster's
//! configurations, offsets or statuses), and, when Kafka answers, existing internal topics
//! whose `cleanup.policy` is not `compact` only (the worker refuses them, as Kafka Connect
//! does). When Kafka cannot be reached that is a note, not a failure.

use std::time::Duration;

use super::{Finding, Severity, WorkerFile};
use crate::config::{WorkerConfig, WorkerMode};
use crate::storage::topic_log::internal_topic::cleanup_policies;
use crate::topics::internal_topic::InternalTopicBackend;
use crate::topics::kafka::KafkaBackend;

/// How long Kafka may take to answer the first request.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long describing one topic may take.
const DESCRIBE_TIMEOUT: Duration = Duration::from_secs(15);

/// The three internal topics: key prefix and what the topic holds.
const TOPICS: [(&str, &str); 3] = [
    ("config.storage", "connector configurations"),
    ("offset.storage", "source offsets"),
    ("status.storage", "connector and task statuses"),
];

/// Replication and compaction findings.
pub async fn check(worker: &WorkerFile, config: &WorkerConfig) -> Vec<Finding> {
    if config.mode() != WorkerMode::Distributed {
        return Vec::new();
    }
    let Some(servers) = config.bootstrap_servers() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (prefix, holds) in TOPICS {
        let key = format!("{prefix}.replication.factor");
        if config.storage_replication_factor(prefix) == 1 {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "internal-topic-replication",
                    &worker.path,
                    format!(
                        "The topic of the {holds} is created with one replica: when that \
                         broker's disk is lost, so are the {holds}."
                    ),
                    "Use 3 (or -1, the brokers' default.replication.factor) on a cluster of \
                     three brokers or more; keep 1 only for a one-broker test cluster.",
                )
                .at(key.clone(), worker.raw.line(&key)),
            );
        }
    }
    out.extend(compaction(worker, config, &servers.join(",")).await);
    out
}

/// Errors for existing internal topics that are not compacted only.
async fn compaction(worker: &WorkerFile, config: &WorkerConfig, servers: &str) -> Vec<Finding> {
    let note = |why: String| {
        vec![Finding::new(
            Severity::Note,
            "internal-topic-compaction",
            &worker.path,
            format!(
                "Could not check that the internal topics are compacted: Kafka at {servers} \
                 {why}."
            ),
            "",
        )
        .at("bootstrap.servers", worker.raw.line("bootstrap.servers"))]
    };
    let backend = match KafkaBackend::new(
        config.bootstrap_servers().unwrap_or_default(),
        &config.originals_with_prefix(""),
        config.originals_with_prefix("producer."),
        config.originals_with_prefix("consumer."),
        &config.originals_with_prefix("admin."),
    ) {
        Ok(backend) => backend,
        Err(e) => return note(format!("cannot be asked ({e})")),
    };
    let probe = {
        let backend = backend.clone();
        tokio::task::spawn_blocking(move || backend.cluster_id(std::time::Duration::from_secs(10)))
    };
    match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
        Ok(Ok(Ok(_))) => {}
        Ok(Ok(Err(e))) => return note(format!("did not answer ({e})")),
        Ok(Err(e)) => return note(format!("could not be asked ({e})")),
        Err(_) => {
            return note(format!(
                "did not answer within {}s",
                PROBE_TIMEOUT.as_secs()
            ))
        }
    }
    let mut out = Vec::new();
    for (prefix, holds) in TOPICS {
        let key = format!("{prefix}.topic");
        let Some(name) = config.values().string(&key) else {
            continue;
        };
        let description =
            match tokio::time::timeout(DESCRIBE_TIMEOUT, backend.describe_topic(name)).await {
                Ok(Ok(description)) => description,
                Ok(Err(e)) => {
                    out.extend(note(format!("did not describe topic '{name}' ({e})")));
                    continue;
                }
                Err(_) => {
                    out.extend(note(format!("did not describe topic '{name}' in time")));
                    continue;
                }
            };
        // An absent topic is created compacted at the first start.
        let Some(policy) = description.and_then(|d| d.cleanup_policy) else {
            continue;
        };
        let policies = cleanup_policies(&policy);
        if policies.is_empty() || (policies.len() == 1 && policies.contains("compact")) {
            continue;
        }
        out.push(
            Finding::new(
                Severity::Error,
                "internal-topic-compaction",
                &worker.path,
                format!(
                    "Topic '{name}' holds the {holds} but its cleanup.policy is '{policy}', \
                     not 'compact': the worker refuses to start on it, and old records would \
                     be deleted with their segments."
                ),
                format!(
                    "Make it compacted (kafka-configs.sh --bootstrap-server {servers} --alter \
                     --entity-type topics --entity-name {name} --add-config \
                     cleanup.policy=compact), or point {key} at a new topic, which the worker \
                     creates compacted."
                ),
            )
            .at(key.clone(), worker.raw.line(&key)),
        );
    }
    out
}
