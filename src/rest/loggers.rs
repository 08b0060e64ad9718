//! `/admin/loggers`: read and change log levels at run time, as Kafka Connect's
//! `LoggingResource`. Loggers are names standing for tracing targets, plus `root` (see
//! [`crate::logging`]): Kafka logger names such as `org.apache.kafka.connect.runtime` map onto
//! the connect-rs targets doing that work, and every name is read back as it was set.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;

use super::error::{JsonBody, PathParams, QueryParams, RestError};
use super::AppState;
use crate::logging::{self, LogLevel, LoggerLevel};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/admin/loggers", get(list_loggers))
        .route("/admin/loggers/{name}", get(get_logger).put(set_logger))
}

/// `GET /admin/loggers`: every existing logger whose level is not `OFF`, sorted.
async fn list_loggers() -> Json<BTreeMap<String, LoggerLevel>> {
    Json(logging::levels().all())
}

/// `GET /admin/loggers/{name}`: the logger's level; 404 `Logger <name> not found.` for a
/// logger that does not exist.
async fn get_logger(PathParams(name): PathParams<String>) -> Result<Json<LoggerLevel>, RestError> {
    logging::levels()
        .level(&name)
        .map(Json)
        .ok_or_else(|| RestError::not_found(format!("Logger {name} not found.")))
}

/// Where a level change applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Worker,
    Cluster,
}

impl Scope {
    /// `worker` or `cluster`, case-insensitive; absent or unknown is `worker` (with a warning
    /// for an unknown one, as Kafka Connect).
    fn of(query: &QueryParams) -> Self {
        match query.first("scope") {
            None => Self::Worker,
            Some(s) if s.eq_ignore_ascii_case("worker") => Self::Worker,
            Some(s) if s.eq_ignore_ascii_case("cluster") => Self::Cluster,
            Some(s) => {
                tracing::warn!(
                    "Received invalid scope '{s}' in request to adjust logging level; \
                     will default to worker."
                );
                Self::Worker
            }
        }
    }
}

/// `PUT /admin/loggers/{name}` with `{"level": ".."}`: sets the level of the logger and the
/// explicitly set loggers below it. Worker scope sets it here and answers the affected loggers;
/// cluster scope (KIP-976) asks the herder to set it on every worker (distributed: through the
/// config topic; standalone: here) and answers 204.
async fn set_logger(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
    query: QueryParams,
    JsonBody(body): JsonBody<serde_json::Map<String, Value>>,
) -> Result<Response, RestError> {
    let scope = Scope::of(&query);
    let level = match body.get("level") {
        None | Some(Value::Null) => {
            return Err(RestError::bad_request(
                "Desired 'level' parameter was not specified in request.",
            ))
        }
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let parsed: LogLevel = level
        .parse()
        .map_err(|e: logging::InvalidLogLevel| RestError::not_found(e.to_string()))?;
    match scope {
        Scope::Worker => {
            let affected = logging::levels()
                .set(&name, parsed)
                .map_err(|e| RestError::not_found(e.to_string()))?;
            Ok(Json(affected).into_response())
        }
        Scope::Cluster => {
            logging::check_name(&name).map_err(|e| RestError::not_found(e.to_string()))?;
            // Written as the request spelled it, as Kafka Connect writes it.
            state.herder.set_cluster_logger_level(&name, &level).await?;
            Ok(StatusCode::NO_CONTENT.into_response())
        }
    }
}
