//! How a consumer group member reads: the Java consumer's settings that matter here.

use std::time::Duration;

use connect_membership::security::Security;

/// Where a partition without a committed offset starts (`auto.offset.reset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetReset {
    /// At its first offset (Kafka Connect's default for sinks).
    Earliest,
    /// At its end.
    Latest,
    /// Nowhere: the read fails.
    None,
}

/// A member's settings, with the Java consumer's defaults (Kafka Connect's for sinks where they
/// differ).
#[derive(Debug, Clone)]
pub struct ConsumerConfig {
    /// `bootstrap.servers`, `HOST:PORT` each.
    pub bootstrap_servers: Vec<String>,
    /// `group.id`.
    pub group_id: String,
    /// `client.id`.
    pub client_id: String,
    /// `security.protocol` with its TLS and SASL settings.
    pub security: Security,
    /// `session.timeout.ms` (45 s).
    pub session_timeout: Duration,
    /// `heartbeat.interval.ms` (3 s).
    pub heartbeat_interval: Duration,
    /// `max.poll.interval.ms` (5 min), the rebalance timeout.
    pub max_poll_interval: Duration,
    /// `request.timeout.ms` (30 s).
    pub request_timeout: Duration,
    /// `retry.backoff.ms` (100 ms).
    pub retry_backoff: Duration,
    /// `fetch.min.bytes` (1).
    pub fetch_min_bytes: i32,
    /// `fetch.max.wait.ms` (500 ms).
    pub fetch_max_wait: Duration,
    /// `fetch.max.bytes` (50 MiB).
    pub fetch_max_bytes: i32,
    /// `max.partition.fetch.bytes` (1 MiB).
    pub max_partition_fetch_bytes: i32,
    /// `isolation.level=read_committed`.
    pub read_committed: bool,
    /// `auto.offset.reset` (Kafka Connect: earliest).
    pub offset_reset: OffsetReset,
    /// `allow.auto.create.topics` (true): whether subscribing asks the broker to create absent
    /// topics.
    pub allow_auto_create_topics: bool,
    /// `metadata.max.age.ms` (5 min): how often a pattern subscription looks for new topics.
    pub metadata_max_age: Duration,
}

impl ConsumerConfig {
    /// A member of `group_id` on `bootstrap_servers` (comma-separated) with the defaults.
    pub fn new(bootstrap_servers: &str, group_id: &str, client_id: &str) -> Self {
        Self {
            bootstrap_servers: bootstrap_servers
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
            group_id: group_id.to_owned(),
            client_id: client_id.to_owned(),
            security: Security::plaintext(),
            session_timeout: Duration::from_secs(45),
            heartbeat_interval: Duration::from_secs(3),
            max_poll_interval: Duration::from_secs(300),
            request_timeout: Duration::from_secs(30),
            retry_backoff: Duration::from_millis(100),
            fetch_min_bytes: 1,
            fetch_max_wait: Duration::from_millis(500),
            fetch_max_bytes: 50 * 1024 * 1024,
            max_partition_fetch_bytes: 1024 * 1024,
            read_committed: false,
            offset_reset: OffsetReset::Earliest,
            allow_auto_create_topics: true,
            metadata_max_age: Duration::from_secs(300),
        }
    }
}
