//! `GET /connector-plugins/{plugin}/config` and `PUT /connector-plugins/{plugin}/config/validate`,
//! as Kafka Connect's `ConnectorPluginsResource`: thin handlers over the herder's validation
//! ([`crate::herder::validate`]), which answers `ConfigKeyInfo`s and `ConfigInfos` (200 even
//! when there are errors). See `reference/kafka-connect.md` §1.2–1.3. For a Java plugin the
//! handler awaits the plugin host (bounded by Kafka's 90 s REST timeout); the herder's actor is
//! not involved.

use axum::extract::State;
use axum::routing::{get, put};
use axum::{Json, Router};
use serde_json::Value;

use super::error::{JsonBody, PathParams, QueryParams, RestError};
use super::AppState;
use crate::herder::validate::ValidateError;
use crate::herder::validate::{plugin_config, validate_config, ConfigInfos, ConfigKeyInfo};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/connector-plugins/{plugin}/config", get(get_plugin_config))
        .route(
            "/connector-plugins/{plugin}/config/validate",
            put(validate_configs),
        )
}

impl From<ValidateError> for RestError {
    fn from(e: ValidateError) -> Self {
        match e {
            ValidateError::UnknownPlugin(_) => Self::not_found(e.to_string()),
            ValidateError::Host { .. } => Self::internal(e.to_string()),
            _ => Self::bad_request(e.to_string()),
        }
    }
}

/// `GET /connector-plugins/{plugin}/config[?version=<range>]` (KIP-891).
async fn get_plugin_config(
    State(state): State<AppState>,
    PathParams(plugin): PathParams<String>,
    query: QueryParams,
) -> Result<Json<Vec<ConfigKeyInfo>>, RestError> {
    let version = query.first("version");
    Ok(Json(plugin_config(&state.plugins, &plugin, version).await?))
}

/// `PUT /connector-plugins/{plugin}/config/validate`.
async fn validate_configs(
    State(state): State<AppState>,
    PathParams(plugin): PathParams<String>,
    JsonBody(body): JsonBody<serde_json::Map<String, Value>>,
) -> Result<Json<ConfigInfos>, RestError> {
    let props = request_props(body)?;
    Ok(Json(
        validate_config(
            &state.plugins,
            &state.worker.converters,
            &state.worker.providers,
            &plugin,
            &props,
        )
        .await?,
    ))
}

/// The request body as (key, value) pairs in request order: JSON strings as they are, numbers
/// and booleans as their text (Jackson coerces them), `null` as `None`.
///
/// # Errors
/// 400 for an array or object value.
fn request_props(
    body: serde_json::Map<String, Value>,
) -> Result<Vec<(String, Option<String>)>, RestError> {
    body.into_iter()
        .map(|(k, v)| {
            let value = match v {
                Value::String(s) => Some(s),
                Value::Null => None,
                Value::Bool(b) => Some(b.to_string()),
                Value::Number(n) => Some(n.to_string()),
                Value::Array(_) | Value::Object(_) => {
                    return Err(RestError::bad_request(format!(
                        "Cannot deserialize value of type `java.lang.String` from {} value \
                         (configuration {k})",
                        if v.is_array() { "Array" } else { "Object" }
                    )))
                }
            };
            Ok((k, value))
        })
        .collect()
}
