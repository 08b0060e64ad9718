//! The internal endpoints workers call on each other (Kafka Connect's `InternalClusterResource`):
//! `POST /connectors/{connector}/tasks`, the task configurations a follower's connector
//! planned, for the leader to write, and `PUT /connectors/{connector}/fence`, a round of zombie
//! fencing before an exactly-once source task starts (KIP-618). The body is read as bytes and
//! passed on with the signature headers (KIP-507) so the herder can check the signature over
//! the exact bytes.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use connect_api::ConfigMap;
use serde_json::Value;

use super::error::{complete, PathParams, RestError};
use super::AppState;
use crate::herder::distributed::request_signature::{SIGNATURE_ALGORITHM_HEADER, SIGNATURE_HEADER};
use crate::herder::{FenceOrigin, InternalSignature};

/// `POST /connectors/{connector}/tasks` (Kafka Connect's `putTaskConfigs`): body a JSON list
/// of task configurations (string to string); 204 once written. Forwarded to the leader by the
/// [forwarding layer](super::forward) when this worker is not the leader.
pub(super) async fn put_task_configs(
    State(state): State<AppState>,
    PathParams(connector): PathParams<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, RestError> {
    let configs = task_configs(&body)?;
    let signature = signature(&headers, &body);
    complete(
        state
            .herder
            .put_task_configs(&connector, configs, signature),
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `PUT /connectors/{connector}/fence` (Kafka Connect's `fenceZombies`): the leader fences the
/// transactional ids of the source connector's previous task generation when needed and
/// writes its task-count record; 204 once done. Forwarded to the leader by the
/// [forwarding layer](super::forward) when this worker is not the leader.
pub(super) async fn fence_zombies(
    State(state): State<AppState>,
    PathParams(connector): PathParams<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, RestError> {
    let signature = signature(&headers, &body);
    complete(
        state
            .herder
            .fence_zombies(&connector, FenceOrigin::Rest(signature)),
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The request's signature, `None` when either header is absent (Kafka Connect's
/// `InternalRequestSignature.fromHeaders`).
fn signature(headers: &HeaderMap, body: &[u8]) -> Option<InternalSignature> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    Some(InternalSignature {
        algorithm: header(SIGNATURE_ALGORITHM_HEADER)?,
        signature: header(SIGNATURE_HEADER)?,
        body: body.to_vec(),
    })
}

/// The body as task configurations. Kafka Connect parses it in the resource, outside Jersey's
/// entity reading, so a body that is not a list of string maps is a 500 with the parser's
/// message.
fn task_configs(body: &[u8]) -> Result<Vec<ConfigMap>, RestError> {
    let parsed: Vec<serde_json::Map<String, Value>> = serde_json::from_slice(body)
        .map_err(|e| RestError::internal(format!("Invalid task configurations: {e}")))?;
    parsed
        .into_iter()
        .map(|map| super::connectors::config_map(map).map_err(|e| RestError::internal(e.message)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_configs_are_string_maps() {
        let configs = task_configs(br#"[{"a":"1","n":2},{}]"#).unwrap();
        assert_eq!(configs.len(), 2);
        assert_eq!(configs[0].get("n").map(String::as_str), Some("2"));
        for bad in [&b"{}"[..], b"[1]", b"nope", b"[{\"a\":[1]}]"] {
            let e = task_configs(bad).unwrap_err();
            assert_eq!(e.status, StatusCode::INTERNAL_SERVER_ERROR);
        }
    }

    #[test]
    fn a_signature_needs_both_headers() {
        let mut headers = HeaderMap::new();
        assert_eq!(signature(&headers, b"[]"), None);
        let name = |h: &str| h.parse::<axum::http::HeaderName>().unwrap();
        headers.insert(name(SIGNATURE_HEADER), "bWFj".parse().unwrap());
        assert_eq!(signature(&headers, b"[]"), None);
        headers.insert(
            name(SIGNATURE_ALGORITHM_HEADER),
            "HmacSHA256".parse().unwrap(),
        );
        assert_eq!(
            signature(&headers, b"[]"),
            Some(InternalSignature {
                algorithm: "HmacSHA256".into(),
                signature: "bWFj".into(),
                body: b"[]".to_vec(),
            })
        );
    }
}
