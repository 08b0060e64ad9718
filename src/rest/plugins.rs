//! `GET /connector-plugins`, as Kafka Connect's `ConnectorPluginsResource`.

use super::error::QueryParams;
use super::AppState;
use crate::plugins::{plugin_infos, PluginInfo};
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

pub(super) fn routes() -> Router<AppState> {
    Router::new().route("/connector-plugins", get(list_plugins))
}

/// `GET /connector-plugins[?connectorsOnly=false]`.
async fn list_plugins(State(state): State<AppState>, query: QueryParams) -> Json<Vec<PluginInfo>> {
    // A Java boolean query parameter: only `true` (any case) is true; absent means true.
    let connectors_only = query
        .first("connectorsOnly")
        .is_none_or(|v| v.eq_ignore_ascii_case("true"));
    Json(plugin_infos(&state.plugins, connectors_only))
}
