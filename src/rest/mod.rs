//! Kafka Connect's REST API on axum: the same paths, status codes and JSON bodies (see
//! `reference/kafka-connect.md` §1). Handlers talk only to the herder (through
//! [`HerderHandle`]) and the plugin registry; every error has Kafka Connect's body
//! `{"error_code": <status>, "message": ".."}`, including unknown paths (404), wrong methods
//! (405) and malformed JSON (400).
//!
//! One resource per file: [`root`] (`/`, `/health`), [`connectors`] (`/connectors/...`),
//! [`plugins`] (`/connector-plugins`), [`metrics`] (`/metrics`, Prometheus text); [`error`]
//! holds the error body and extractors; `redact` masks resolved secrets in every answer.
//!
//! Every worker serves the whole API: a request the herder says another worker must serve
//! (writes on a follower, a task restart on a worker not running the task) is forwarded to it
//! by one layer, [`forward`], with Kafka Connect's `forward` hop parameter, through the
//! distributed herder's [`client`](crate::herder::distributed::client) (which also sends the
//! herder's own signed requests, [`internal_client`](crate::herder::distributed::internal_client)).

pub mod connections;
pub mod connectors;
pub mod error;
pub mod forward;
mod internal;
pub mod lifecycle;
pub mod listeners;
pub mod loggers;
pub mod metrics;
pub mod offsets;
pub mod openapi;
pub mod plugins;
mod redact;
pub mod root;
pub mod security;
pub mod topics;
pub mod validate;

#[cfg(test)]
mod connection_tests;
#[cfg(test)]
mod internal_client_tests;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::Router;

use crate::herder::HerderHandle;
use crate::plugins::PluginRegistry;

pub use error::RestError;
pub use listeners::{parse_listener, AdminEndpoints, Listener, RestServer};

/// The largest request body accepted (2 MiB; larger ones get 413 with Kafka's error body).
/// Kafka Connect sets no limit; a connector configuration above this could not be stored in a
/// Kafka config topic with the broker's default 1 MB message limit anyway.
pub const MAX_REQUEST_BODY_BYTES: usize = 2 * 1024 * 1024;

/// What every handler needs: the herder, the plugins and facts about the worker.
#[derive(Clone)]
pub struct AppState {
    /// The herder (control plane) that owns the connectors.
    pub herder: HerderHandle,
    /// The plugins this binary offers, for `/connector-plugins`.
    pub plugins: Arc<PluginRegistry>,
    /// Facts about this worker that the REST API reports.
    pub worker: Arc<WorkerInfo>,
    /// The worker's metrics registry, served by `GET /metrics` (shared with the worker; the
    /// herder refreshes the worker-wide values before each scrape).
    pub metrics: Arc<crate::metrics::WorkerMetrics>,
}

/// Facts about the worker that the REST API reports besides the herder's answers.
#[derive(Debug, Clone)]
pub struct WorkerInfo {
    /// The id of the Kafka cluster the worker uses (`kafka_cluster_id` of `GET /`); `None` on
    /// the embedded log, which belongs to no Kafka cluster.
    pub kafka_cluster_id: Option<String>,
    /// The worker's `key.converter`, `value.converter` and `header.converter` classes: the
    /// defaults `PUT /connector-plugins/{p}/config/validate` reports for a connector's own.
    pub converters: [String; 3],
    /// The worker's config providers: `PUT /connector-plugins/{p}/config/validate` resolves
    /// placeholders with them before validating.
    pub providers: Arc<crate::config::providers::ConfigProviders>,
    /// The client that forwards requests to other workers (TLS as the https listeners).
    pub rest_client: crate::herder::distributed::client::RestClient,
}

impl WorkerInfo {
    /// The facts of a worker with `config` whose Kafka cluster is `kafka_cluster_id`.
    pub fn new(config: &crate::config::WorkerConfig, kafka_cluster_id: Option<String>) -> Self {
        Self {
            kafka_cluster_id,
            converters: config.converter_classes(),
            providers: config.providers().clone(),
            rest_client: crate::herder::distributed::client::RestClient::new(config),
        }
    }
}

/// The REST API's routes, the admin endpoints included, with Kafka Connect's error body for
/// unknown paths and methods.
pub fn router(state: AppState) -> Router {
    api_router(state, true)
}

/// The routes of the main listeners: the whole API, with the admin endpoints (`/admin/loggers`)
/// when `with_admin` (`admin.listeners` absent); without them their paths are unknown (404).
pub fn api_router(state: AppState, with_admin: bool) -> Router {
    let mut routes = Router::new()
        .merge(root::routes())
        .merge(connectors::routes())
        .merge(lifecycle::routes())
        .merge(offsets::routes())
        .merge(topics::routes())
        .merge(validate::routes())
        .merge(metrics::routes())
        .merge(openapi::routes())
        .merge(plugins::routes());
    if with_admin {
        routes = routes.merge(loggers::routes());
    }
    finish(routes, state)
}

/// The routes of an `admin.listeners` listener: only the admin endpoints (Kafka Connect's
/// `adminResources`, `LoggingResource`); every other path is unknown there (404).
pub fn admin_router(state: AppState) -> Router {
    finish(Router::new().merge(loggers::routes()), state)
}

/// `routes` with the fallbacks, the body limit and the forwarding layer.
fn finish(routes: Router<AppState>, state: AppState) -> Router {
    let forwarding = axum::middleware::from_fn_with_state(state.clone(), forward::layer);
    routes
        .fallback(error::not_found)
        // After every route: it applies to the routes already added.
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BODY_BYTES))
        // It keeps the body to forward the request when the herder says so.
        .layer(forwarding)
        // Outermost: no answer, forwarded ones included, shows a value a provider resolved.
        .layer(axum::middleware::from_fn(redact::layer))
        .with_state(state)
}

/// Serves the REST API, without TLS or security layers, on `listener` until `shutdown` is
/// cancelled, then finishes the requests in flight. [`RestServer`] serves the configured
/// listeners.
///
/// # Errors
/// Serving fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: tokio_util::sync::CancellationToken,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
}
