//! Connector lifecycle endpoints of Kafka Connect's `ConnectorsResource`: pause, resume, stop,
//! restart a connector, restart a task.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{post, put};
use axum::{Json, Router};

use super::error::{complete, PathParams, QueryParams, RestError};
use super::AppState;
use crate::herder::{HerderError, TargetState};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/connectors/{connector}/pause", put(pause))
        .route("/connectors/{connector}/resume", put(resume))
        .route("/connectors/{connector}/stop", put(stop))
        .route("/connectors/{connector}/restart", post(restart))
        .route(
            "/connectors/{connector}/tasks/{task}/restart",
            post(restart_task),
        )
}

async fn set_target(state: &AppState, name: &str, target: TargetState) -> Result<(), RestError> {
    complete(state.herder.set_target_state(name, target)).await
}

/// `PUT /connectors/{c}/pause`: 202, no body.
async fn pause(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<StatusCode, RestError> {
    set_target(&state, &name, TargetState::Paused).await?;
    Ok(StatusCode::ACCEPTED)
}

/// `PUT /connectors/{c}/resume`: 202, no body (also resumes a stopped connector).
async fn resume(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<StatusCode, RestError> {
    set_target(&state, &name, TargetState::Started).await?;
    Ok(StatusCode::ACCEPTED)
}

/// `PUT /connectors/{c}/stop`: 204.
async fn stop(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
) -> Result<StatusCode, RestError> {
    set_target(&state, &name, TargetState::Stopped).await?;
    Ok(StatusCode::NO_CONTENT)
}

fn flag(query: &QueryParams, name: &str) -> bool {
    query
        .first(name)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// `POST /connectors/{c}/restart[?includeTasks&onlyFailed]`: 204 without flags, else 202 with
/// the state, instances to be restarted shown as `RESTARTING` (with the task error counters
/// only on `errorCounters=true`, as the status endpoints).
async fn restart(
    State(state): State<AppState>,
    PathParams(name): PathParams<String>,
    query: QueryParams,
) -> Result<Response, RestError> {
    let include_tasks = flag(&query, "includeTasks");
    let only_failed = flag(&query, "onlyFailed");
    let counters = super::connectors::wants_error_counters(&query);
    match complete(
        state
            .herder
            .restart_connector(&name, include_tasks, only_failed),
    )
    .await?
    {
        None => Ok(StatusCode::NO_CONTENT.into_response()),
        Some(status) => Ok((
            StatusCode::ACCEPTED,
            Json(super::connectors::status_body(status, counters)),
        )
            .into_response()),
    }
}

/// `POST /connectors/{c}/tasks/{t}/restart`: 204.
async fn restart_task(
    State(state): State<AppState>,
    PathParams((name, task)): PathParams<(String, String)>,
) -> Result<StatusCode, RestError> {
    let task: i32 = task.parse().map_err(|_| RestError::unknown_path())?;
    let Ok(task) = u32::try_from(task) else {
        return Err(HerderError::NotFound(format!("Task {name}-{task} not found")).into());
    };
    complete(state.herder.restart_task(&name, task)).await?;
    Ok(StatusCode::NO_CONTENT)
}
