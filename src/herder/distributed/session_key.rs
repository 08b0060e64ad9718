//! The session key (KIP-507): how this worker makes it (the leader writes a new one when there
//! is none or it is older than `inter.worker.key.ttl.ms`), signs its requests to other workers
//! and checks theirs.

use std::time::Duration;

use tracing::{info, warn};

use super::client::RestClient;
use super::herder::DistributedHerder;
use super::request_signature::{MacAlgorithm, SigningKey};
use crate::config::WorkerConfig;
use crate::storage::internal::{ConfigRecord, SessionKey};

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

impl Signing {
    /// The settings of `worker` (`inter.worker.*`).
    pub(super) fn of(worker: &WorkerConfig) -> Self {
        let values = worker.values();
        Self {
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
        }
    }
}

impl DistributedHerder {
    /// The leader writes a new session key when there is none or it is older than
    /// `inter.worker.key.ttl.ms` (KIP-507).
    pub(super) async fn ensure_session_key(&mut self) {
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

    /// The session key read from the config topic, if its algorithm is known.
    pub(super) fn session_key(&self) -> Option<SigningKey> {
        let key = self.configs.snapshot().session_key()?;
        Some(SigningKey {
            key: key.key.clone(),
            algorithm: MacAlgorithm::from_java_name(&key.algorithm)?,
        })
    }
}
