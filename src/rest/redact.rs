//! The outermost layer of the REST API: every answer (bodies of errors, status traces,
//! validate answers, metrics, configurations, forwarded answers) leaves with the values config
//! providers resolved in this process replaced by their placeholders
//! ([`crate::config::providers::secrets`]). Without such values the answer passes untouched.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::CONTENT_LENGTH;
use axum::middleware::Next;
use axum::response::Response;

use crate::config::providers::secrets;

/// Runs the request, then masks the answer's body.
pub async fn layer(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if secrets::global().is_empty() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        // The body failed while being produced: the client would see a broken answer anyway.
        Err(_) => return Response::from_parts(parts, Body::empty()),
    };
    let body = match secrets::redact_bytes(&bytes) {
        std::borrow::Cow::Borrowed(_) => Body::from(bytes),
        std::borrow::Cow::Owned(masked) => {
            parts.headers.remove(CONTENT_LENGTH);
            Body::from(masked)
        }
    };
    Response::from_parts(parts, body)
}
