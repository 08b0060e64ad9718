//! Discovery of the Java plugins on `plugin.path` at worker start, as Kafka Connect's
//! `Plugins` constructor does it: read the locations ([`super::locations`], logging what Kafka
//! logs), and only when there is at least one location start the host and ask it to `SCAN`
//! them. A `plugin.path` without locations (absent, or only missing directories as in Kafka's
//! sample worker file) starts no JVM.

use super::locations::{self, Severity};
use super::scan::{DiscoveryMode, ScanRequest, ScanResult};
use super::{HostError, MessageType, PluginHost};

/// Why discovery failed the worker's start.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// The host could not be started or did not answer.
    #[error("plugin.path has Java plugin locations ({locations}), but the Java plugin host could not scan them: {source}")]
    Host {
        /// The locations, comma-separated.
        locations: String,
        /// The cause.
        #[source]
        source: HostError,
    },
    /// The host's answer was not a scan result.
    #[error("the Java plugin host answered SCAN with something else than a scan result: {0}")]
    Answer(#[from] serde_json::Error),
    /// `plugin.discovery=hybrid_fail` and some plugins have no ServiceLoader manifest.
    #[error("{0}")]
    HybridFail(String),
}

/// Reads `plugin_path` (the raw `plugin.path` value) and scans its locations in `mode`; `None`
/// when there is no location (no JVM was started). Every problem Kafka logs is logged here with
/// Kafka's text; a plugin or archive that cannot be discovered is logged at ERROR and left
/// out, never fatal.
///
/// # Errors
/// [`DiscoverError`] when the host cannot scan, or in `hybrid_fail` when plugins lack
/// manifests.
pub async fn discover(
    host: &PluginHost,
    plugin_path: Option<&str>,
    mode: DiscoveryMode,
    classpath: &[String],
) -> Result<Option<ScanResult>, DiscoverError> {
    let found = locations::resolve(plugin_path);
    for problem in &found.problems {
        match problem.severity() {
            Severity::Warn => tracing::warn!("{problem}"),
            Severity::Error => tracing::error!("{problem}"),
        }
    }
    if found.locations.is_empty() {
        return Ok(None);
    }
    let names = found
        .locations
        .iter()
        .map(|l| l.path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let request = ScanRequest::new(mode, &found, classpath.to_vec());
    let payload = serde_json::to_vec(&request)?;
    let started = std::time::Instant::now();
    let answer = async {
        host.control()
            .await?
            .request(MessageType::SCAN, payload)
            .await
    }
    .await
    .map_err(|source| DiscoverError::Host {
        locations: names.clone(),
        source,
    })?;
    let result: ScanResult = serde_json::from_slice(&answer)?;
    for e in &result.errors {
        match &e.trace {
            Some(trace) => tracing::error!("{}\n{trace}", e.message),
            None => tracing::error!("{}", e.message),
        }
    }
    if let Some(message) = &result.hybrid_message {
        let missing = result.hybrid_report.as_ref().is_some_and(|r| !r.is_empty());
        if mode == DiscoveryMode::HybridFail && missing {
            return Err(DiscoverError::HybridFail(message.clone()));
        }
        tracing::warn!("{message}");
    }
    tracing::info!(
        "Scanned {} plugin.path location(s) in {} ms: {} Java plugin(s) found ({names})",
        found.locations.len(),
        started.elapsed().as_millis(),
        result.plugins.len()
    );
    Ok(Some(result))
}
