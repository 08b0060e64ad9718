//! `/connectors/{c}/offsets` (KIP-875) and `PATCH /connectors/{c}/config` (KIP-477).
//!
//! Beyond Kafka Connect: `?auto_stop=true` on PATCH/DELETE offsets stops a running connector,
//! applies the change and starts it again, instead of answering 400.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::{complete, JsonBody, PathParams, QueryParams, RestError};
use super::AppState;
use crate::herder::HerderError;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/connectors/{connector}/offsets",
            get(get_offsets).patch(alter_offsets).delete(reset_offsets),
        )
        .route("/connectors/{connector}/config", patch(patch_config))
}

/// Kafka Connect's `ConnectorOffsets` request body.
#[derive(Debug, Deserialize)]
struct OffsetsRequest {
    #[serde(default)]
    offsets: Option<Vec<Value>>,
}

fn auto_stop(query: &QueryParams) -> bool {
    query
        .first("auto_stop")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// `GET /connectors/{c}/offsets`.
async fn get_offsets(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<Response, RestError> {
    complete(state.herder.connector_offsets(&name))
        .await
        .map(|v| Json(v).into_response())
}

/// `PATCH /connectors/{c}/offsets[?auto_stop=true]`: 200 `{"message": ..}`.
async fn alter_offsets(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
    query: QueryParams,
    JsonBody(body): JsonBody<OffsetsRequest>,
) -> Result<Response, RestError> {
    let list = body.offsets.unwrap_or_default();
    let message = complete(state.herder.alter_connector_offsets(
        &name,
        Some(list),
        auto_stop(&query),
    ))
    .await?;
    Ok(Json(json!({ "message": message })).into_response())
}

/// `DELETE /connectors/{c}/offsets[?auto_stop=true]`: 200 `{"message": ..}`.
async fn reset_offsets(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
    query: QueryParams,
) -> Result<Response, RestError> {
    let message = complete(
        state
            .herder
            .alter_connector_offsets(&name, None, auto_stop(&query)),
    )
    .await?;
    Ok(Json(json!({ "message": message })).into_response())
}

/// `PATCH /connectors/{c}/config`: merges the body onto the current configuration (`null`
/// removes a key) and applies it like PUT; 200 with the connector's info.
async fn patch_config(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
    JsonBody(patch): JsonBody<serde_json::Map<String, Value>>,
) -> Result<Response, RestError> {
    let mut config = complete(state.herder.connector_config_unmasked(&name)).await?;
    for (key, value) in patch {
        match value {
            Value::Null => {
                config.remove(&key);
            }
            Value::String(s) => {
                config.insert(key, s);
            }
            Value::Number(n) => {
                config.insert(key, n.to_string());
            }
            Value::Bool(b) => {
                config.insert(key, b.to_string());
            }
            _ => {
                return Err(RestError::bad_request(format!(
                    "Configuration value of {key} must be a string or null"
                )))
            }
        }
    }
    if config.get("name").is_some_and(|n| *n != name) {
        return Err(HerderError::BadRequest(format!(
            "Connector name configuration ({}) doesn't match connector name in the URL ({name})",
            config.get("name").cloned().unwrap_or_default()
        ))
        .into());
    }
    config.insert("name".to_owned(), name.clone());
    let (_, info) = complete(state.herder.put_connector_config(&name, config, true)).await?;
    Ok(Json(info).into_response())
}
