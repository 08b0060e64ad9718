//! The [`ConfigProvider`] contract (Kafka's `org.apache.kafka.common.config.provider.ConfigProvider`):
//! values looked up by path and key.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A source of configuration values that placeholders refer to.
///
/// Implementations must never put a value into an error message or a log line: messages name
/// paths and keys only.
pub trait ConfigProvider: Send + Sync + fmt::Debug {
    /// The values of `keys` at `path` (`path` is empty when the placeholder has none). A key the
    /// source does not hold is left out of the map; the caller reports it with
    /// [`ConfigProvider::missing`].
    ///
    /// # Errors
    /// When `path` cannot be used at all (not allowed, unreadable, not supported).
    fn get(
        &self,
        path: &str,
        keys: &BTreeSet<String>,
    ) -> Result<BTreeMap<String, String>, ProviderError>;

    /// Why `key` has no value at `path`, for the error message.
    fn missing(&self, path: &str, key: &str) -> String {
        if path.is_empty() {
            format!("no value for key '{key}'")
        } else {
            format!("no value for key '{key}' at {path}")
        }
    }
}

/// Why a provider could not look values up. The message names paths and keys, never values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProviderError(pub String);

impl ProviderError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}
