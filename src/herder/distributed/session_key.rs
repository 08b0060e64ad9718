//! The session key (KIP-507): how this worker makes it, signs its requests to other workers
//! and checks theirs. As Kafka Connect's `DistributedHerder`, the leader writes a new key when
//! there is none, when the current one was made with another algorithm or size than this
//! worker's settings, and when it expires (`inter.worker.key.ttl.ms` after its creation; the
//! herder wakes up then); every worker checks signatures against the current key only, so a
//! request signed with a replaced key gets 403. A TTL of 0 never expires a key (Kafka Connect
//! tracks no expiry then either).

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
    /// After a failed write of a new key: not again before then.
    retry_at: Option<tokio::time::Instant>,
}

/// How long the leader waits before writing a key again after a failed write.
const KEY_WRITE_BACKOFF: Duration = Duration::from_secs(1);

/// Milliseconds since the epoch.
fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
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
            retry_at: None,
        }
    }

    /// The size in bytes of the keys this worker makes.
    fn key_bytes(&self) -> usize {
        self.key_size
            .map_or(self.key_algorithm.default_key_bytes(), |b| {
                (b as usize).div_ceil(8)
            })
    }
}

impl DistributedHerder {
    /// On the leader, how long until a new session key is due: zero when there is none, it
    /// was made with another algorithm or size than this worker makes, or it has expired;
    /// `None` on a follower and when the key never expires (`inter.worker.key.ttl.ms=0`).
    pub(super) fn session_key_due(&self) -> Option<Duration> {
        if !self.is_leader() {
            return None;
        }
        let backoff = self.signing.retry_at.map_or(Duration::ZERO, |at| {
            at.saturating_duration_since(tokio::time::Instant::now())
        });
        let Some(key) = self.configs.snapshot().session_key() else {
            return Some(backoff);
        };
        if MacAlgorithm::from_java_name(&key.algorithm) != Some(self.signing.key_algorithm)
            || key.key.len() != self.signing.key_bytes()
        {
            return Some(backoff);
        }
        if self.signing.key_ttl.is_zero() {
            return None;
        }
        let ttl = i64::try_from(self.signing.key_ttl.as_millis()).unwrap_or(i64::MAX);
        let left = key
            .creation_timestamp
            .saturating_add(ttl)
            .saturating_sub(now_millis());
        let left = Duration::from_millis(u64::try_from(left).unwrap_or(0));
        Some(left.max(backoff))
    }

    /// The leader writes a new session key when one is due ([`Self::session_key_due`]).
    pub(super) async fn ensure_session_key(&mut self) {
        if self.session_key_due() != Some(Duration::ZERO) {
            return;
        }
        let key = match SigningKey::generate(self.signing.key_algorithm, self.signing.key_size) {
            Ok(key) => key,
            Err(e) => {
                self.signing.retry_at = Some(tokio::time::Instant::now() + KEY_WRITE_BACKOFF);
                return warn!(error = %e, "Could not generate a session key.");
            }
        };
        let record = ConfigRecord::SessionKey(SessionKey {
            key: key.key,
            algorithm: key.algorithm.java_name().to_owned(),
            creation_timestamp: now_millis(),
        });
        match self.write(vec![record]).await {
            Ok(()) => {
                self.signing.retry_at = None;
                info!("Wrote a new session key to the config topic.");
            }
            Err(e) => {
                self.signing.retry_at = Some(tokio::time::Instant::now() + KEY_WRITE_BACKOFF);
                warn!(error = %e, "Could not write a session key; retrying after reading the config topic.");
            }
        }
    }

    /// Resolves when a new session key is due (`due` from [`Self::session_key_due`]); never
    /// when none is.
    pub(super) async fn session_key_timer(due: Option<Duration>) {
        match due {
            Some(due) => tokio::time::sleep(due).await,
            None => std::future::pending().await,
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
