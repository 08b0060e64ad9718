//! `GET /metrics`: the worker's metrics (Kafka Connect's metric groups, see `docs/metrics.md`)
//! in the Prometheus text format 0.0.4. The handler asks the herder to set the worker-wide
//! counts and states from what runs here, then encodes the registry it shares with the worker
//! (REST never calls the worker itself).

use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tracing::{debug, error};

use super::AppState;

/// How long a scrape waits for the herder's refresh before serving the last values (the herder
/// may be busy stopping connectors).
const REFRESH_TIMEOUT: Duration = Duration::from_secs(2);

pub(super) fn routes() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

async fn metrics(State(state): State<AppState>) -> Response {
    let _scrape = state.metrics.scrape_lock().await;
    match tokio::time::timeout(REFRESH_TIMEOUT, state.herder.refresh_metrics()).await {
        Ok(true) => {}
        Ok(false) => debug!("The herder is gone: serving the last worker-wide metrics."),
        Err(_) => debug!(
            timeout_ms = REFRESH_TIMEOUT.as_millis(),
            "The herder did not refresh the metrics in time: serving the last values."
        ),
    }
    let plugins = match state.plugins.plugin_host() {
        Some(host) => crate::plugin_host::metrics::prometheus_text(host).await,
        None => String::new(),
    };
    match state.metrics.encode() {
        Ok(mut body) => {
            // The plugins' metrics after the worker's families (text format 0.0.4 has no
            // end marker).
            body.push_str(&plugins);
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
                body,
            )
                .into_response()
        }
        Err(e) => {
            error!(error = %e, "Could not encode the metrics.");
            super::RestError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("Could not encode the metrics: {e}"),
            )
            .into_response()
        }
    }
}
