//! Discovery of the Java plugins on `plugin.path` at worker start, as Kafka Connect's
//! `Plugins` constructor does it: read the locations ([`super::locations`], logging what Kafka
//! logs), and only when there is at least one location start the host and ask it to `SCAN`
//! them. A `plugin.path` without locations (absent, or only missing directories as in Kafka's
//! sample worker file) starts no JVM, nor does one whose scan is answered by
//! [`super::scan_cache`] (`plugin.host.scan.cache`): nothing it depends on changed since an
//! earlier scan, whose answer is logged as a fresh one would be.

use super::locations::{self, Severity};
use serde::Deserialize;

use super::scan::{DiscoveryMode, ScanRequest, ScanResult};
use super::scan_cache::{KeyInputs, ScanCache, ScanKey};
use super::{HostError, HostSettings, MessageType, PluginHost};

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
    let cache = cache_for(host, &request);
    if let Some((cache, key)) = &cache {
        if let Some(cached) = cache.load(key) {
            match serde_json::from_value::<ScanResult>(cached) {
                Ok(result) => return report(result, mode, found.locations.len(), &names, None),
                Err(e) => tracing::debug!("ignoring a cached plugin.path scan: {e}"),
            }
        }
    }
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
    let took = started.elapsed();
    let answer: serde_json::Value = serde_json::from_slice(&answer)?;
    let result = ScanResult::deserialize(&answer)?;
    if let Some((cache, key)) = cache {
        store(&cache, &key, host, &request, &answer);
    }
    report(result, mode, found.locations.len(), &names, Some(took))
}

/// The cache and this scan's key, when `plugin.host.scan.cache` is on and the key can be
/// computed (else `None`, the reason logged at DEBUG: no bundle, no `java`, unreadable files).
fn cache_for(host: &PluginHost, request: &ScanRequest) -> Option<(ScanCache, ScanKey)> {
    let settings = host.settings();
    if !settings.scan_cache {
        return None;
    }
    match scan_key(settings, request) {
        Ok(key) => Some((ScanCache::user(), key)),
        Err(e) => {
            tracing::debug!("plugin.path scan not cached: {e}");
            None
        }
    }
}

fn scan_key(settings: &HostSettings, request: &ScanRequest) -> Result<ScanKey, String> {
    let (bundle, _) = super::bundle::bundle().map_err(|e| e.to_string())?;
    let java = super::java::JavaLookup::from_env(&settings.java)
        .locate()
        .map_err(|e| e.to_string())?;
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let inputs = KeyInputs::from_process(request, bundle, &java, &settings.jvm_options, &cwd);
    ScanKey::compute(&inputs).map_err(|e| e.to_string())
}

/// Stores the host's answer, unless a file changed while the host scanned (the answer may
/// then be of neither state); a failure is logged at DEBUG.
fn store(
    cache: &ScanCache,
    key: &ScanKey,
    host: &PluginHost,
    request: &ScanRequest,
    answer: &serde_json::Value,
) {
    match scan_key(host.settings(), request) {
        Ok(after) if after == *key => {
            if let Err(e) = cache.store(key, answer) {
                tracing::debug!(
                    "plugin.path scan not cached in {}: {e}",
                    cache.dir().display()
                );
            }
        }
        Ok(_) => tracing::debug!("plugin.path scan not cached: files changed while it ran"),
        Err(e) => tracing::debug!("plugin.path scan not cached: {e}"),
    }
}

/// Logs what Kafka logs after a scan (the plugins it could not discover, the hybrid report)
/// and the summary line, `took` the scan's time (`None`: answered from the cache).
fn report(
    result: ScanResult,
    mode: DiscoveryMode,
    locations: usize,
    names: &str,
    took: Option<std::time::Duration>,
) -> Result<Option<ScanResult>, DiscoverError> {
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
    let how = took.map_or_else(
        || " (cached)".to_owned(),
        |t| format!(" in {} ms", t.as_millis()),
    );
    tracing::info!(
        "Scanned {locations} plugin.path location(s){how}: {} Java plugin(s) found ({names})",
        result.plugins.len()
    );
    Ok(Some(result))
}
