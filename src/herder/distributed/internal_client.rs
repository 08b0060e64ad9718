//! Requests a worker sends another on its own behalf (not forwarded user requests): the task
//! configurations a follower's connector planned, sent to the leader (Kafka Connect's
//! `DistributedHerder` reconfiguring a connector on a follower), signed with the session key
//! (KIP-507).

use axum::body::Bytes;
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::Method;
use connect_api::ConfigMap;

use super::client::{ClientError, RestClient, USER_AGENT};
use super::request_signature::{signature_headers, MacAlgorithm, SigningError, SigningKey};

/// Why an internal request failed.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    /// No HTTP answer (connection, TLS, timeout); the message names the URL.
    #[error(transparent)]
    Request(#[from] ClientError),
    /// The request could not be signed.
    #[error(transparent)]
    Signing(#[from] SigningError),
    /// The body could not be serialised.
    #[error("could not serialise the task configurations: {0}")]
    Body(#[from] serde_json::Error),
    /// The other worker answered with an error status.
    #[error("{url} answered {status}: {message}")]
    Refused {
        /// The URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The `message` of Kafka Connect's error body, else the body as text.
        message: String,
    },
}

impl ForwardError {
    /// The HTTP status of a refusal, `None` when there was no answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Refused { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// `{base}/connectors/{connector}/tasks`, the connector name percent-encoded as one segment.
pub fn task_configs_url(base: &str, connector: &str) -> String {
    format!(
        "{}{}/tasks",
        base.trim_end_matches('/'),
        connector_path(connector)
    )
}

/// Sends `configs` to the leader at `leader_url` (its advertised REST URL, e.g.
/// `http://127.0.0.1:8083/`): `POST {leader_url}connectors/{connector}/tasks` with the JSON list
/// as body, serialised once and, with `key`, signed over exactly those bytes
/// (`X-Connect-Authorization`, `X-Connect-Request-Signature-Algorithm`). Bounded by the
/// client's timeout.
///
/// # Errors
/// No answer, a signing failure, or a non-2xx answer ([`ForwardError::Refused`] with the
/// status and Kafka Connect's message).
pub async fn put_task_configs(
    client: &RestClient,
    leader_url: &str,
    connector: &str,
    configs: &[ConfigMap],
    key: Option<(&SigningKey, MacAlgorithm)>,
) -> Result<(), ForwardError> {
    let body = serde_json::to_vec(configs)?;
    let url = task_configs_url(leader_url, connector);
    send_json(client, Method::POST, url, body, key).await
}

/// Asks the leader at `leader_url` for a round of zombie fencing of source connector
/// `connector` (Kafka Connect's follower forwarding its task's preflight fencing): `PUT
/// {leader_url}connectors/{connector}/fence` with an empty body, signed with `key` over it.
/// Bounded by the client's timeout.
///
/// # Errors
/// No answer, a signing failure, or a non-2xx answer ([`ForwardError::Refused`] with the
/// status and Kafka Connect's message).
pub async fn fence_zombies(
    client: &RestClient,
    leader_url: &str,
    connector: &str,
    key: Option<(&SigningKey, MacAlgorithm)>,
) -> Result<(), ForwardError> {
    let url = format!(
        "{}{}/fence",
        leader_url.trim_end_matches('/'),
        connector_path(connector)
    );
    send_json(client, Method::PUT, url, Vec::new(), key).await
}

/// Creates or updates connector `connector` through the worker at `worker_url` (its advertised
/// REST URL): `PUT {worker_url}connectors/{connector}/config` with `config` as body, as a user
/// would (that worker forwards it to its leader when it is not the leader).
///
/// # Errors
/// No answer, or a non-2xx answer ([`ForwardError::Refused`] with the status and message).
pub async fn put_connector_config(
    client: &RestClient,
    worker_url: &str,
    connector: &str,
    config: &ConfigMap,
) -> Result<(), ForwardError> {
    let body = serde_json::to_vec(config)?;
    let url = format!(
        "{}{}/config",
        worker_url.trim_end_matches('/'),
        connector_path(connector)
    );
    send_json(client, Method::PUT, url, body, None).await
}

/// Sends `body` (JSON) to `url`, signed with `key` over exactly those bytes; a non-2xx answer
/// is a [`ForwardError::Refused`] with Kafka Connect's message.
async fn send_json(
    client: &RestClient,
    method: Method,
    url: String,
    body: Vec<u8>,
    key: Option<(&SigningKey, MacAlgorithm)>,
) -> Result<(), ForwardError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    headers.insert(header::USER_AGENT, HeaderValue::from_static(USER_AGENT));
    if let Some((key, algorithm)) = key {
        for (name, value) in signature_headers(key, algorithm, &body)? {
            // Both are fixed ASCII names and base64 / Java names: always valid.
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                headers.insert(name, value);
            }
        }
    }
    let answer = client
        .send(method, &url, headers, Bytes::from(body))
        .await?;
    if answer.status.is_success() {
        return Ok(());
    }
    let message = serde_json::from_slice::<serde_json::Value>(&answer.body)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or_else(|| String::from_utf8_lossy(&answer.body).into_owned());
    Err(ForwardError::Refused {
        url,
        status: answer.status.as_u16(),
        message,
    })
}

/// `/connectors/<name>` with the name percent-encoded as one path segment.
pub fn connector_path(name: &str) -> String {
    let mut out = String::from("/connectors/");
    for b in name.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b);
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
