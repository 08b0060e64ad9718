//! The plugin part of validation for Java plugins, answered by the worker's plugin host:
//! `CONFIG_KEYS` (a plugin's own `config()` as Kafka's `ConfigKeyInfo`s) and `VALIDATE` (a
//! connector's `config()` + `validate(props)`, or another plugin's `config().validate(props)`,
//! as Kafka's `generateResult` renders them). The JVM starts on first need; a JVM that has not
//! scanned `plugin.path` yet (a fresh one, or one started again after a death) is asked to
//! `SCAN` the locations the registry's Java plugins came from first. Every call is bounded by
//! [`HOST_TIMEOUT`], Kafka's REST request timeout.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::ValidateError;
use crate::plugin_host::locations;
use crate::plugin_host::scan::{
    ConfigKeyInfo, DiscoveryMode, ScanLocation, ScanRequest, ValidateResult,
};
use crate::plugin_host::{ControlConn, HostError, MessageType, PluginHost};
use crate::plugins::{JavaPluginDesc, PluginRegistry};

/// How long a configuration question to the plugin host may take, JVM start and scan
/// included: Kafka Connect's REST request timeout (90 s).
pub const HOST_TIMEOUT: Duration = Duration::from_secs(90);

/// The JVMs (pid, generation, start) that have scanned `plugin.path`.
static SCANNED: Mutex<Vec<(u32, u64, Instant)>> = Mutex::new(Vec::new());

/// The plugin's own configuration keys (`CONFIG_KEYS`).
///
/// # Errors
/// [`ValidateError`]: no host, the host could not start or answer, or the plugin refused.
pub(super) async fn config_keys(
    plugins: &PluginRegistry,
    desc: &JavaPluginDesc,
) -> Result<Vec<ConfigKeyInfo>, ValidateError> {
    let request =
        json!({"class": desc.class, "type": desc.kind.type_name(), "version": desc.version});
    let answer = call(plugins, desc, MessageType::CONFIG_KEYS, &request).await?;
    serde_json::from_slice(&answer).map_err(|e| answer_error(desc, &e))
}

/// The plugin part of validating `props` (`VALIDATE`); `None` values are JSON nulls.
///
/// # Errors
/// As [`config_keys`].
pub(super) async fn validate(
    plugins: &PluginRegistry,
    desc: &JavaPluginDesc,
    props: &[(String, Option<String>)],
) -> Result<ValidateResult, ValidateError> {
    validate_ordered(plugins, desc, props, false).await
}

/// As [`validate`]; with `in_value_order`, the configs come in the order the plugin's
/// `validate` gave the values (Kafka Connect's order for a converter's keys), with the groups
/// of their keys in that order.
///
/// # Errors
/// As [`config_keys`].
pub(super) async fn validate_ordered(
    plugins: &PluginRegistry,
    desc: &JavaPluginDesc,
    props: &[(String, Option<String>)],
    in_value_order: bool,
) -> Result<ValidateResult, ValidateError> {
    let props: Map<String, Value> = props
        .iter()
        .map(|(k, v)| (k.clone(), v.clone().map_or(Value::Null, Value::String)))
        .collect();
    let request = json!({
        "class": desc.class,
        "type": desc.kind.type_name(),
        "version": desc.version,
        "props": props,
        "in_value_order": in_value_order,
    });
    let answer = call(plugins, desc, MessageType::VALIDATE, &request).await?;
    serde_json::from_slice(&answer).map_err(|e| answer_error(desc, &e))
}

fn answer_error(desc: &JavaPluginDesc, e: &serde_json::Error) -> ValidateError {
    ValidateError::Host {
        plugin: Box::new(desc.clone()),
        reason: format!("the plugin host answered something else than Kafka's JSON: {e}"),
    }
}

/// Sends `request` to the host (started and scanned first when needed), within
/// [`HOST_TIMEOUT`].
async fn call(
    plugins: &PluginRegistry,
    desc: &JavaPluginDesc,
    kind: MessageType,
    request: &Value,
) -> Result<Vec<u8>, ValidateError> {
    let host_error = |reason: String| ValidateError::Host {
        plugin: Box::new(desc.clone()),
        reason,
    };
    let Some(host) = plugins.plugin_host() else {
        return Err(host_error(
            "this worker has no plugin host (no plugin.path location with Java plugins)".into(),
        ));
    };
    let payload = serde_json::to_vec(request).map_err(|e| host_error(e.to_string()))?;
    let asked = async {
        let conn = host.control().await?;
        ensure_scanned(&conn, plugins, host).await?;
        conn.request(kind, payload).await
    };
    match tokio::time::timeout(HOST_TIMEOUT, asked).await {
        Err(_) => Err(host_error(format!(
            "the plugin host did not answer within {} ms",
            HOST_TIMEOUT.as_millis()
        ))),
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(HostError::Remote(j))) if j.class.ends_with("ScanService$NotFound") => Err(
            ValidateError::UnknownPlugin(j.message.unwrap_or_else(|| desc.class.clone())),
        ),
        Ok(Err(HostError::Remote(j))) if j.class.ends_with("ScanService$BadRequest") => {
            Err(ValidateError::PluginRefused(j.message.unwrap_or_default()))
        }
        Ok(Err(e)) => Err(host_error(e.to_string())),
    }
}

/// Asks the JVM of `conn` to scan `plugin.path` unless it already did.
async fn ensure_scanned(
    conn: &ControlConn,
    plugins: &PluginRegistry,
    host: &PluginHost,
) -> Result<(), HostError> {
    let id = (conn.pid(), conn.generation(), conn.started());
    if lock().contains(&id) {
        return Ok(());
    }
    let request = scan_request(plugins, host);
    let payload = serde_json::to_vec(&request)
        .map_err(|e| HostError::Protocol(format!("SCAN request: {e}")))?;
    conn.request(MessageType::SCAN, payload).await?;
    let mut scanned = lock();
    // An entry of an earlier JVM with the same pid is stale.
    scanned.retain(|(pid, _, _)| *pid != id.0);
    scanned.push(id);
    Ok(())
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(u32, u64, Instant)>> {
    SCANNED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A `SCAN` of the locations the registry's Java plugins were found in (the `plugin.path`
/// elements are their parents), and of the host's own class path. `hybrid_warn` finds every
/// plugin any mode finds; the registry only asks for those it listed.
fn scan_request(plugins: &PluginRegistry, host: &PluginHost) -> ScanRequest {
    let known: BTreeSet<&str> = plugins
        .implementations()
        .filter_map(|i| i.location)
        .filter(|l| *l != "classpath")
        .collect();
    let parents: BTreeSet<String> = known
        .iter()
        .filter_map(|l| std::path::Path::new(l).parent())
        .map(|p| p.display().to_string())
        .collect();
    let plugin_path = parents.into_iter().collect::<Vec<_>>().join(",");
    let found = locations::resolve(Some(&plugin_path));
    ScanRequest {
        mode: DiscoveryMode::HybridWarn,
        locations: found
            .locations
            .iter()
            .filter(|l| known.contains(l.path.display().to_string().as_str()))
            .map(ScanLocation::from)
            .collect(),
        classpath: host.settings().classpath.clone(),
    }
}
