//! `GET /` (server info) and `GET /health`, as Kafka Connect's `RootResource`.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use super::AppState;

/// How long `GET /health` waits for the herder, as Kafka Connect (10 s).
const HEALTH_TIMEOUT: Duration = Duration::from_secs(10);

/// Kafka Connect's `ServerInfo`.
#[derive(Debug, Serialize)]
pub struct ServerInfo {
    /// The worker's version.
    pub version: &'static str,
    /// The source commit it was built from (`unknown` when not recorded).
    pub commit: &'static str,
    /// The Kafka cluster id, from the broker's metadata at start-up (`null` on the embedded
    /// log, which belongs to no Kafka cluster).
    pub kafka_cluster_id: Option<String>,
}

/// Kafka Connect's `WorkerStatus` (health check body).
#[derive(Debug, Serialize)]
pub struct WorkerStatus {
    /// `healthy`, `starting` or `unhealthy`.
    pub status: &'static str,
    /// Human-readable detail.
    pub message: &'static str,
}

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(server_info))
        .route("/health", get(health))
}

async fn server_info(State(state): State<AppState>) -> Json<ServerInfo> {
    Json(ServerInfo {
        version: env!("CARGO_PKG_VERSION"),
        commit: option_env!("CONNECT_RS_COMMIT").unwrap_or("unknown"),
        kafka_cluster_id: state.worker.kafka_cluster_id.clone(),
    })
}

/// Healthy when the herder answers a trivial request within [`HEALTH_TIMEOUT`].
async fn health(State(state): State<AppState>) -> Response {
    match tokio::time::timeout(HEALTH_TIMEOUT, state.herder.connectors()).await {
        Ok(_) => (
            StatusCode::OK,
            Json(WorkerStatus {
                status: "healthy",
                message: "Worker has completed startup and is ready to handle requests.",
            }),
        )
            .into_response(),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(WorkerStatus {
                status: "unhealthy",
                message: "Worker was unable to handle this request and may be unable to handle \
                          other requests.",
            }),
        )
            .into_response(),
    }
}
