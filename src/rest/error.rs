//! Kafka Connect's error body (`{"error_code": <status>, "message": ".."}`) for every failure,
//! and extractors whose rejections use it instead of axum's plain-text ones.

use std::future::Future;
use std::time::Duration;

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Json, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::herder::HerderError;

/// How long a request waits for the herder, as Kafka Connect's
/// `DEFAULT_REST_REQUEST_TIMEOUT_MS` (90 s).
pub const REQUEST_TIMEOUT: Duration = crate::herder::distributed::client::REQUEST_TIMEOUT;

/// A failed request: the HTTP status and Kafka Connect's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestError {
    /// HTTP status, also the body's `error_code`.
    pub status: StatusCode,
    /// The body's `message`.
    pub message: String,
    /// Set when the herder said another worker must serve the request
    /// ([`HerderError::Forward`]): the response carries it as a [`ForwardTo`] extension for
    /// the forwarding layer ([`super::forward`]), which replaces the response.
    forward: Option<ForwardTo>,
}

/// Response extension: the request must be sent to the worker at this REST URL (`None`: no
/// leader known). Set by a [`RestError`] made from [`HerderError::Forward`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardTo(pub Option<String>);

/// Kafka Connect's `ErrorMessage` entity.
#[derive(Serialize)]
struct ErrorMessage<'a> {
    error_code: u16,
    message: &'a str,
}

impl RestError {
    /// An error with this status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            forward: None,
        }
    }

    /// The error of a request another worker must serve (the worker at `url`, or the unknown
    /// leader): without the forwarding layer, 409 with Kafka Connect's no-leader message.
    pub fn forward(url: Option<String>) -> Self {
        Self {
            forward: Some(ForwardTo(url)),
            ..Self::new(StatusCode::CONFLICT, super::forward::NO_LEADER_URL)
        }
    }

    /// 400 Bad Request.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404 Not Found.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 500 Internal Server Error.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// Jersey's answer for a path no resource serves: 404 `HTTP 404 Not Found`.
    pub fn unknown_path() -> Self {
        Self::not_found("HTTP 404 Not Found")
    }
}

impl std::fmt::Display for RestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for RestError {}

impl From<HerderError> for RestError {
    fn from(e: HerderError) -> Self {
        match e {
            HerderError::NotFound(m) => Self::not_found(m),
            HerderError::Conflict(m) => Self::new(StatusCode::CONFLICT, m),
            HerderError::BadRequest(m) => Self::bad_request(m),
            HerderError::Internal(m) => Self::internal(m),
            e @ (HerderError::Failed { .. } | HerderError::Unexpected(_)) => {
                Self::internal(e.to_string())
            }
            HerderError::Forbidden(m) => Self::new(StatusCode::FORBIDDEN, m),
            HerderError::Unavailable(m) => Self::new(StatusCode::SERVICE_UNAVAILABLE, m),
            HerderError::Forward(url) => Self::forward(url),
        }
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let body = ErrorMessage {
            error_code: self.status.as_u16(),
            message: &self.message,
        };
        let mut response = (self.status, Json(body)).into_response();
        if let Some(forward) = self.forward {
            response.extensions_mut().insert(forward);
        }
        response
    }
}

/// Fallback for a path no route serves: 404 with the error body.
pub async fn not_found() -> RestError {
    RestError::unknown_path()
}

/// Fallback for a known path with a method it does not serve: 405 with the error body.
pub async fn method_not_allowed() -> RestError {
    RestError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "HTTP 405 Method Not Allowed",
    )
}

/// Awaits a herder request for at most [`REQUEST_TIMEOUT`]; its error becomes the matching
/// HTTP status, a timeout 500 `Request timed out`.
pub async fn complete<T>(
    request: impl Future<Output = Result<T, HerderError>>,
) -> Result<T, RestError> {
    match tokio::time::timeout(REQUEST_TIMEOUT, request).await {
        Ok(result) => result.map_err(RestError::from),
        Err(_) => Err(RestError::internal("Request timed out")),
    }
}

/// A JSON request body; a malformed or mistyped body is a 400 (a wrong content type 415) with
/// the error body.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T, S> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = RestError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(json_rejection(&rejection)),
        }
    }
}

fn json_rejection(rejection: &JsonRejection) -> RestError {
    let status = match rejection {
        // axum says 422 for a well-formed body of the wrong shape; Kafka Connect says 400.
        JsonRejection::JsonDataError(_) | JsonRejection::JsonSyntaxError(_) => {
            StatusCode::BAD_REQUEST
        }
        other => other.status(),
    };
    RestError::new(status, rejection.body_text())
}

/// Path parameters; a parameter that does not parse is a 404, as in Jersey.
#[derive(Debug)]
pub struct PathParams<T>(pub T);

impl<T, S> FromRequestParts<S> for PathParams<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(value)) => Ok(Self(value)),
            Err(rejection) => Err(path_rejection(&rejection)),
        }
    }
}

fn path_rejection(rejection: &PathRejection) -> RestError {
    match rejection {
        PathRejection::FailedToDeserializePathParams(_) => RestError::unknown_path(),
        other => RestError::new(other.status(), other.body_text()),
    }
}

/// Query parameters as (name, value) pairs in request order (names may repeat); a malformed
/// query string is a 400 with the error body.
#[derive(Debug)]
pub struct QueryParams(pub Vec<(String, String)>);

impl QueryParams {
    /// Every value of `name`, in order.
    pub fn all<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a str> + 'a {
        let name = name.to_owned();
        self.0
            .iter()
            .filter(move |(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of `name`.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.all(name).next()
    }

    /// Whether `name` is present at all (even without a value).
    pub fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|(k, _)| k == name)
    }
}

impl<S> FromRequestParts<S> for QueryParams
where
    S: Send + Sync,
{
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Query::<Vec<(String, String)>>::from_request_parts(parts, state).await {
            Ok(Query(pairs)) => Ok(Self(pairs)),
            Err(rejection) => Err(query_rejection(&rejection)),
        }
    }
}

fn query_rejection(rejection: &QueryRejection) -> RestError {
    RestError::bad_request(rejection.body_text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn herder_errors_map_to_kafka_statuses() {
        let cases = [
            (HerderError::NotFound("a".into()), 404),
            (HerderError::Conflict("b".into()), 409),
            (HerderError::BadRequest("c".into()), 400),
            (HerderError::Internal("d".into()), 500),
            (
                HerderError::failed("Could not write", std::io::Error::other("g")),
                500,
            ),
            (HerderError::unexpected(std::io::Error::other("h")), 500),
            (HerderError::Forbidden("e".into()), 403),
            (HerderError::Unavailable("f".into()), 503),
        ];
        for (e, status) in cases {
            let message = e.to_string();
            let r = RestError::from(e);
            assert_eq!(r.status.as_u16(), status);
            assert_eq!(r.message, message);
        }
    }

    #[test]
    fn forward_errors_are_marked_for_the_forwarding_layer() {
        let url = Some("http://10.0.0.2:8083/".to_owned());
        let e = RestError::from(HerderError::Forward(url.clone()));
        assert_eq!(e.status, StatusCode::CONFLICT);
        let response = e.into_response();
        assert_eq!(
            response.extensions().get::<ForwardTo>(),
            Some(&ForwardTo(url))
        );
        let plain = RestError::from(HerderError::Conflict("x".into())).into_response();
        assert!(plain.extensions().get::<ForwardTo>().is_none());
    }

    #[test]
    fn signature_refusals_keep_kafka_connects_status() {
        use crate::herder::distributed::request_signature::Rejection;
        for (rejection, status) in [
            (Rejection::Missing, 400),
            (Rejection::Invalid, 403),
            (Rejection::NoSigningKey, 503),
        ] {
            let message = rejection.to_string();
            let e = RestError::from(HerderError::from(rejection));
            assert_eq!((e.status.as_u16(), e.message), (status, message));
        }
    }

    #[test]
    fn the_error_body_has_kafka_field_names() {
        let body = ErrorMessage {
            error_code: 404,
            message: "Connector x not found",
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"error_code": 404, "message": "Connector x not found"})
        );
    }

    #[test]
    fn query_params_keep_repeated_names() {
        let q = QueryParams(vec![
            ("expand".into(), "status".into()),
            ("x".into(), "1".into()),
            ("expand".into(), "info".into()),
        ]);
        assert_eq!(q.all("expand").collect::<Vec<_>>(), ["status", "info"]);
        assert_eq!(q.first("x"), Some("1"));
        assert!(q.contains("expand"));
        assert!(!q.contains("y"));
    }
}
