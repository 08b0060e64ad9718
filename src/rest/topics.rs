//! `/connectors/{c}/topics` and `/connectors/{c}/topics/reset` (KIP-558 topic tracking).

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, put};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::error::{complete, PathParams, RestError};
use super::AppState;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/connectors/{connector}/topics", get(topics))
        .route("/connectors/{connector}/topics/reset", put(reset))
}

/// `GET /connectors/{c}/topics`: `{"<c>": {"topics": [..]}}` (an unknown connector has none).
async fn topics(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<Json<Value>, RestError> {
    let topics = complete(state.herder.connector_topics(&name, false)).await?;
    Ok(Json(json!({ name: { "topics": topics } })))
}

/// `PUT /connectors/{c}/topics/reset`: 202.
async fn reset(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<StatusCode, RestError> {
    complete(state.herder.connector_topics(&name, true)).await?;
    Ok(StatusCode::ACCEPTED)
}
