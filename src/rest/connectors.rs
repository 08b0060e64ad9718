//! `/connectors/...`, as Kafka Connect's `ConnectorsResource`: list, create, read, update and
//! delete connectors, their status and their tasks.

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use connect_api::ConfigMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{complete, JsonBody, PathParams, QueryParams, RestError};
use super::AppState;
use crate::herder::validate::before_write::{self, RefusedConfig};
use crate::herder::{ConnectorInfo, ConnectorStateInfo, HerderError, TargetState, TaskId};

/// The query parameter that opts into connect-rs's task error counters in status bodies
/// (`?errorCounters=true`, an extension: Kafka Connect's bodies have no such field, and a
/// client that maps them strictly fails on one it does not know).
pub(super) const ERROR_COUNTERS_PARAM: &str = "errorCounters";

/// Whether the request asks for the task error counters (`?errorCounters=true`, case
/// ignored as Jersey reads a `Boolean`).
pub(super) fn wants_error_counters(query: &QueryParams) -> bool {
    query
        .first(ERROR_COUNTERS_PARAM)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// `status` exactly in Kafka Connect's shape, or with each task's `errors` when `counters`.
pub(super) fn status_body(mut status: ConnectorStateInfo, counters: bool) -> ConnectorStateInfo {
    if !counters {
        for task in &mut status.tasks {
            task.errors = None;
        }
    }
    status
}

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/connectors", get(list_connectors).post(create_connector))
        .route(
            "/connectors/{connector}",
            get(get_connector).delete(destroy_connector),
        )
        .route(
            "/connectors/{connector}/config",
            get(get_connector_config).put(put_connector_config),
        )
        .route("/connectors/{connector}/status", get(get_connector_status))
        .route(
            "/connectors/{connector}/tasks",
            get(get_task_configs).post(super::internal::put_task_configs),
        )
        .route(
            "/connectors/{connector}/fence",
            axum::routing::put(super::internal::fence_zombies),
        )
        .route(
            "/connectors/{connector}/tasks/{task}/status",
            get(get_task_status),
        )
}

/// Kafka Connect's `CreateConnectorRequest`.
#[derive(Debug, Deserialize)]
struct CreateConnectorRequest {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    config: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    initial_state: Option<String>,
}

/// Kafka Connect's `TaskInfo`.
#[derive(Debug, Serialize)]
struct TaskInfo {
    id: TaskId,
    config: ConfigMap,
}

/// `GET /connectors[?expand=status&expand=info]`.
async fn list_connectors(
    State(state): State<AppState>,
    query: QueryParams,
) -> Result<Response, RestError> {
    let names = complete(async { Ok::<_, HerderError>(state.herder.connectors().await) }).await?;
    if !query.contains("expand") {
        return Ok(Json(names).into_response());
    }
    let expansions: Vec<&str> = query.all("expand").collect();
    let counters = wants_error_counters(&query);
    let mut out = serde_json::Map::new();
    'connectors: for name in names {
        let mut expanded = serde_json::Map::new();
        for expansion in &expansions {
            let value = match *expansion {
                "status" => complete(state.herder.connector_status(&name))
                    .await
                    .map(|s| serde_json::to_value(status_body(s, counters)).map_err(internal)),
                "info" => complete(state.herder.connector_info(&name))
                    .await
                    .map(|i| serde_json::to_value(i).map_err(internal)),
                other => {
                    tracing::info!("Ignoring unknown expansion type {other}");
                    continue;
                }
            };
            match value {
                Ok(v) => {
                    expanded.insert((*expansion).to_owned(), v?);
                }
                // Removed while we looked it up: leave it out, as Kafka Connect does.
                Err(e) if e.status == StatusCode::NOT_FOUND => continue 'connectors,
                Err(e) => return Err(e),
            }
        }
        out.insert(name, Value::Object(expanded));
    }
    Ok(Json(Value::Object(out)).into_response())
}

/// `POST /connectors`: 201 with `Location` and the connector's info.
async fn create_connector(
    State(state): State<AppState>,
    headers: HeaderMap,
    JsonBody(request): JsonBody<CreateConnectorRequest>,
) -> Result<Response, RestError> {
    // A missing name becomes "", which the herder's validation rejects with Kafka's message.
    let name = request.name.unwrap_or_default().trim().to_owned();
    let mut config = config_map(request.config.unwrap_or_default())?;
    let initial = initial_state(request.initial_state.as_deref())?;
    check_and_put_name(&name, &mut config)?;
    check_java_connector(&state, &config).await?;
    let info = complete(state.herder.create_connector(&name, config, initial)).await?;
    Ok(created(&headers, &name, info))
}

/// A Java connector's configuration validated by its plugin before the herder writes it, as
/// Kafka Connect validates before every create or update (400 with its message on errors).
async fn check_java_connector(state: &AppState, config: &ConfigMap) -> Result<(), RestError> {
    let w = &state.worker;
    before_write::check_java_connector(&state.plugins, &w.converters, &w.providers, config)
        .await
        .map_err(|e| match e {
            RefusedConfig::Invalid(message) => RestError::bad_request(message),
            RefusedConfig::NotValidated(e) => e.into(),
        })
}

/// `GET /connectors/{c}`.
async fn get_connector(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<Json<ConnectorInfo>, RestError> {
    complete(state.herder.connector_info(&name)).await.map(Json)
}

/// `GET /connectors/{c}/config`.
async fn get_connector_config(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<Json<ConfigMap>, RestError> {
    complete(state.herder.connector_config(&name))
        .await
        .map(Json)
}

/// `PUT /connectors/{c}/config`: 201 with `Location` when created, 200 when updated.
async fn put_connector_config(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<serde_json::Map<String, Value>>,
) -> Result<Response, RestError> {
    let mut config = config_map(body)?;
    check_and_put_name(&name, &mut config)?;
    check_java_connector(&state, &config).await?;
    let (was_created, info) =
        complete(state.herder.put_connector_config(&name, config, true)).await?;
    if was_created {
        Ok(created(&headers, &name, info))
    } else {
        Ok(Json(info).into_response())
    }
}

/// `GET /connectors/{c}/status[?errorCounters=true]`.
async fn get_connector_status(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
    query: QueryParams,
) -> Result<Response, RestError> {
    let counters = wants_error_counters(&query);
    complete(state.herder.connector_status(&name))
        .await
        .map(|s| Json(status_body(s, counters)).into_response())
}

/// `GET /connectors/{c}/tasks`: `[{"id": {"connector", "task"}, "config": {..}}]`.
async fn get_task_configs(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<Json<Vec<TaskInfo>>, RestError> {
    let tasks = complete(state.herder.task_configs(&name)).await?;
    Ok(Json(
        tasks
            .into_iter()
            .map(|(id, config)| TaskInfo { id, config })
            .collect(),
    ))
}

/// `GET /connectors/{c}/tasks/{t}/status[?errorCounters=true]`.
async fn get_task_status(
    State(state): State<AppState>,
    PathParams((name, task)): PathParams<(String, String)>,
    query: QueryParams,
) -> Result<Response, RestError> {
    // Kafka Connect's path parameter is a Java Integer: anything else matches no resource.
    let task: i32 = task.parse().map_err(|_| RestError::unknown_path())?;
    let Ok(task) = u32::try_from(task) else {
        return Err(
            HerderError::NotFound(format!("No status found for task {name}-{task}")).into(),
        );
    };
    let counters = wants_error_counters(&query);
    complete(state.herder.task_status(&name, task))
        .await
        .map(|mut s| {
            if !counters {
                s.errors = None;
            }
            Json(s).into_response()
        })
}

/// `DELETE /connectors/{c}`: 204.
async fn destroy_connector(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<StatusCode, RestError> {
    complete(state.herder.delete_connector(&name)).await?;
    Ok(StatusCode::NO_CONTENT)
}

fn internal(e: serde_json::Error) -> RestError {
    RestError::internal(e.to_string())
}

/// 201 Created with `Location: http://<host>/connectors/<name>` and the connector's info.
fn created(headers: &HeaderMap, name: &str, info: ConnectorInfo) -> Response {
    (
        StatusCode::CREATED,
        [(header::LOCATION, absolute(headers, &location(name)))],
        Json(info),
    )
        .into_response()
}

/// `path` as the absolute URL Kafka Connect (Jersey) puts in `Location`: resolved against
/// `http://` and the request's `Host` header; the bare path when the request has no usable
/// `Host` (HTTP/1.0).
pub(super) fn absolute(headers: &HeaderMap, path: &str) -> String {
    match headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::trim)
        .filter(|h| !h.is_empty() && !h.contains(['/', '?', '#', '@', ' ']))
    {
        Some(host) => format!("http://{host}{path}"),
        None => path.to_owned(),
    }
}

/// `/connectors/<name>` with the name percent-encoded as one path segment.
pub(super) fn location(name: &str) -> String {
    crate::herder::distributed::internal_client::connector_path(name)
}

/// A JSON object of configuration values as strings (numbers and booleans are taken as their
/// text, as Jackson does for a `Map<String, String>`).
pub(super) fn config_map(body: serde_json::Map<String, Value>) -> Result<ConfigMap, RestError> {
    body.into_iter()
        .map(|(key, value)| {
            let text = match value {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => {
                    return Err(RestError::bad_request(format!(
                        "Invalid value null for configuration {key}: Null value can not be \
                         supplied as the configuration value."
                    )))
                }
                Value::Array(_) | Value::Object(_) => {
                    return Err(RestError::bad_request(format!(
                        "Invalid value {value} for configuration {key}: configuration values \
                         must be strings"
                    )))
                }
            };
            Ok((key, text))
        })
        .collect()
}

/// Kafka Connect's check: a `name` in the configuration must equal the URL's (or request's)
/// name; without one, the name is inserted.
fn check_and_put_name(name: &str, config: &mut ConfigMap) -> Result<(), RestError> {
    match config.get("name") {
        Some(included) if included != name => Err(RestError::bad_request(format!(
            "Connector name configuration ({included}) doesn't match connector name in the URL \
             ({name})"
        ))),
        Some(_) => Ok(()),
        None => {
            config.insert("name".to_owned(), name.to_owned());
            Ok(())
        }
    }
}

/// `initial_state` (KIP-980, case-insensitive): RUNNING (the default), PAUSED or STOPPED.
fn initial_state(state: Option<&str>) -> Result<TargetState, RestError> {
    let Some(state) = state else {
        return Ok(TargetState::Started);
    };
    match state.to_ascii_uppercase().as_str() {
        "RUNNING" => Ok(TargetState::Started),
        "PAUSED" => Ok(TargetState::Paused),
        "STOPPED" => Ok(TargetState::Stopped),
        _ => Err(RestError::bad_request(format!(
            "Invalid initial_state {state}: expected RUNNING, PAUSED or STOPPED"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_in_config_must_match() {
        let mut c = ConfigMap::new();
        check_and_put_name("a", &mut c).unwrap();
        assert_eq!(c.get("name").map(String::as_str), Some("a"));
        check_and_put_name("a", &mut c).unwrap();
        let e = check_and_put_name("b", &mut c).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert_eq!(
            e.message,
            "Connector name configuration (a) doesn't match connector name in the URL (b)"
        );
    }

    #[test]
    fn config_values_become_strings() {
        let body = serde_json::json!({"a": "x", "tasks.max": 2, "b": true});
        let Value::Object(map) = body else {
            unreachable!()
        };
        let c = config_map(map).unwrap();
        assert_eq!(c.get("tasks.max").map(String::as_str), Some("2"));
        assert_eq!(c.get("b").map(String::as_str), Some("true"));
        let Value::Object(bad) = serde_json::json!({"a": null}) else {
            unreachable!()
        };
        assert_eq!(config_map(bad).unwrap_err().status, StatusCode::BAD_REQUEST);
        let Value::Object(bad) = serde_json::json!({"a": [1]}) else {
            unreachable!()
        };
        assert_eq!(config_map(bad).unwrap_err().status, StatusCode::BAD_REQUEST);
    }

    #[test]
    fn location_encodes_the_name_as_one_segment() {
        assert_eq!(
            location("local-file-source"),
            "/connectors/local-file-source"
        );
        assert_eq!(location("a b/c"), "/connectors/a%20b%2Fc");
        assert_eq!(location("é"), "/connectors/%C3%A9");
    }

    #[test]
    fn location_is_absolute_on_the_requests_host() {
        let mut headers = HeaderMap::new();
        assert_eq!(absolute(&headers, "/connectors/a"), "/connectors/a");
        headers.insert(header::HOST, "127.0.0.1:8083".parse().unwrap());
        assert_eq!(
            absolute(&headers, "/connectors/a%20b"),
            "http://127.0.0.1:8083/connectors/a%20b"
        );
    }

    #[test]
    fn initial_states_are_kafkas_three() {
        assert_eq!(initial_state(None).unwrap(), TargetState::Started);
        assert_eq!(
            initial_state(Some("running")).unwrap(),
            TargetState::Started
        );
        assert_eq!(initial_state(Some("PAUSED")).unwrap(), TargetState::Paused);
        assert_eq!(
            initial_state(Some("Stopped")).unwrap(),
            TargetState::Stopped
        );
        assert!(initial_state(Some("nope")).is_err());
    }
}
