//! Request forwarding between the workers of a cluster, as Kafka Connect's
//! `HerderRequestHandler.completeOrForwardRequest`: when the herder answers
//! [`HerderError::Forward`](crate::herder::HerderError::Forward) (writes on a follower, a task
//! restart on a worker that does not run the task), the request is sent again, with the same
//! method, path, query, body, `Authorization` and internal signature headers, to the worker
//! that must serve it, and that worker's answer (status and body) is the answer.
//!
//! One layer serves every route: it keeps the request body, lets the handler run, and replaces
//! a response marked with [`ForwardTo`] by the forwarded request's answer. The `forward` query
//! parameter bounds the hops as in Kafka Connect: a user request (no `forward`) is forwarded
//! with `forward=true`, which may be forwarded once more with `forward=false`, which may not:
//! 409 `Cannot complete request because of a conflicting operation (e.g. worker rebalance)`.
//! An unknown target (a rebalance in progress) is 409 with [`NO_LEADER_URL`].

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::{debug, error};

use super::error::{ForwardTo, RestError};
use super::{AppState, MAX_REQUEST_BODY_BYTES};
use crate::herder::distributed::client::{ClientResponse, RestClient, USER_AGENT};
use crate::herder::distributed::request_signature::{SIGNATURE_ALGORITHM_HEADER, SIGNATURE_HEADER};

/// The query parameter that counts the hops of a forwarded request.
pub const FORWARD_PARAM: &str = "forward";

/// Kafka Connect's 409 message when no worker is known to serve the request.
pub const NO_LEADER_URL: &str = "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway.";

/// Kafka Connect's 409 message when a request forwarded twice is still not served.
pub const CONFLICTING_OPERATION: &str =
    "Cannot complete request because of a conflicting operation (e.g. worker rebalance)";

/// The layer (for `axum::middleware::from_fn_with_state`): runs the handler on a kept copy of
/// the request and forwards the request when the handler's response carries [`ForwardTo`].
pub async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, MAX_REQUEST_BODY_BYTES).await {
        Ok(body) => body,
        Err(e) => return body_error(e).into_response(),
    };
    let method = parts.method.clone();
    let uri = parts.uri.clone();
    let headers = parts.headers.clone();
    let response = next
        .run(Request::from_parts(parts, Body::from(body.clone())))
        .await;
    let Some(ForwardTo(target)) = response.extensions().get::<ForwardTo>().cloned() else {
        return response;
    };
    let client = &state.worker.rest_client;
    match forward(client, method, &uri, &headers, body, target).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

/// The request body could not be read: over [`MAX_REQUEST_BODY_BYTES`] 413, not in time
/// ([`BodyTimeout`](super::connections::BodyTimeout)) 408, else 400.
fn body_error(e: axum::Error) -> RestError {
    let inner = e.into_inner();
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&*inner);
    while let Some(e) = cause {
        if let Some(timeout) = e.downcast_ref::<super::connections::BodyTimeout>() {
            return RestError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!("Failed to read the request body: {timeout}"),
            );
        }
        cause = e.source();
    }
    if inner
        .downcast_ref::<http_body_util::LengthLimitError>()
        .is_some()
    {
        RestError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Failed to buffer the request body: length limit exceeded",
        )
    } else {
        RestError::bad_request(format!("Failed to read the request body: {inner}"))
    }
}

/// The value of the first `forward` query parameter, if any.
fn forward_param(query: &str) -> Option<&str> {
    query
        .split('&')
        .filter_map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (name == FORWARD_PARAM).then_some(value)
        })
        .next()
}

/// Where to send a request received as `uri` for the worker at `base`: the same path, then
/// `forward=<next_hop>`, then the other query parameters as received.
pub fn forward_url(base: &str, uri: &Uri, next_hop: bool) -> String {
    let mut url = format!(
        "{}{}?{FORWARD_PARAM}={next_hop}",
        base.trim_end_matches('/'),
        uri.path()
    );
    for pair in uri.query().unwrap_or("").split('&') {
        let name = pair.split_once('=').map_or(pair, |(n, _)| n);
        if !pair.is_empty() && name != FORWARD_PARAM {
            url.push('&');
            url.push_str(pair);
        }
    }
    url
}

/// The headers a forwarded request carries: the caller's credentials, the internal request
/// signature (the body is sent unchanged, so the signature still holds) and content type.
fn forwarded_headers(received: &HeaderMap, has_body: bool) -> HeaderMap {
    let mut out = HeaderMap::new();
    let signature = [SIGNATURE_HEADER, SIGNATURE_ALGORITHM_HEADER]
        .into_iter()
        .filter_map(|h| HeaderName::from_bytes(h.as_bytes()).ok());
    let keep = [header::AUTHORIZATION, header::CONTENT_TYPE]
        .into_iter()
        .chain(signature);
    for name in keep {
        for value in received.get_all(&name) {
            out.append(name.clone(), value.clone());
        }
    }
    if has_body && !out.contains_key(header::CONTENT_TYPE) {
        out.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    out.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    out.insert(header::USER_AGENT, HeaderValue::from_static(USER_AGENT));
    out
}

/// Forwards the request (`method uri`, `headers`, `body`) to `target` as Kafka Connect does,
/// and returns the answer to give the caller.
///
/// # Errors
/// 409 when the request may not be forwarded again or no target is known; 500 `IO Error trying
/// to forward REST request: ..` when the target cannot be reached or answers nonsense; 500
/// `Unexpected status code when handling forwarded request: <status>` for an answer that is
/// neither a success nor an error.
pub async fn forward(
    client: &RestClient,
    method: Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Bytes,
    target: Option<String>,
) -> Result<Response, RestError> {
    // Kafka Connect reads `forward` as a Boolean: absent, `true` (any case) or anything else
    // (false).
    let next_hop = match forward_param(uri.query().unwrap_or("")) {
        None => true,
        Some(v) if v.eq_ignore_ascii_case("true") => false,
        Some(_) => {
            error!(
                method = %method,
                path = uri.path(),
                "The request could not find the worker to serve it within two hops between workers."
            );
            return Err(RestError::new(StatusCode::CONFLICT, CONFLICTING_OPERATION));
        }
    };
    let Some(base) = target else {
        return Err(RestError::new(StatusCode::CONFLICT, NO_LEADER_URL));
    };
    let url = forward_url(&base, uri, next_hop);
    debug!(url = %url, method = %method, "Forwarding request");
    let out = forwarded_headers(headers, !body.is_empty());
    let answer = client.send(method, &url, out, body).await.map_err(|e| {
        RestError::internal(format!("IO Error trying to forward REST request: {e}"))
    })?;
    translate(answer, headers)
}

/// Kafka Connect's error body, to check an error answer.
#[derive(serde::Deserialize)]
struct ErrorMessage {
    #[allow(dead_code)]
    error_code: i64,
    #[allow(dead_code)]
    message: Option<String>,
}

/// The caller's answer from the target's: a success or an error (with Kafka Connect's error
/// body) as it is; a `Location` on the caller's host, as the caller's worker would give it.
fn translate(answer: ClientResponse, received: &HeaderMap) -> Result<Response, RestError> {
    let status = answer.status;
    if status.is_client_error() || status.is_server_error() {
        serde_json::from_slice::<ErrorMessage>(&answer.body).map_err(|e| {
            RestError::internal(format!(
                "IO Error trying to forward REST request: the error answer ({status}) is not \
                 an error message: {e}"
            ))
        })?;
    } else if !status.is_success() {
        return Err(RestError::internal(format!(
            "Unexpected status code when handling forwarded request: {}",
            status.as_u16()
        )));
    }
    let mut response = (status, answer.body).into_response();
    let headers = response.headers_mut();
    headers.remove(header::CONTENT_TYPE);
    if let Some(content_type) = answer.headers.get(header::CONTENT_TYPE) {
        headers.insert(header::CONTENT_TYPE, content_type.clone());
    }
    if let Some(location) = answer
        .headers
        .get(header::LOCATION)
        .and_then(|l| l.to_str().ok())
    {
        let path = location_path(location);
        let local = super::connectors::absolute(received, path);
        if let Ok(value) = HeaderValue::from_str(&local) {
            headers.insert(header::LOCATION, value);
        }
    }
    Ok(response)
}

/// The path (and query) of an absolute or relative URL.
fn location_path(location: &str) -> &str {
    match location.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => location,
    }
}

#[cfg(test)]
mod tests;
