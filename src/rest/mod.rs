//! Kafka Connect's REST API on axum: the same paths, status codes and JSON bodies (see
//! `reference/kafka-connect.md` §1). Handlers talk only to the herder (through
//! [`HerderHandle`]) and the plugin registry; every error has Kafka Connect's body
//! `{"error_code": <status>, "message": ".."}`, including unknown paths (404), wrong methods
//! (405) and malformed JSON (400).
//!
//! One resource per file: [`root`] (`/`, `/health`), [`connectors`] (`/connectors/...`),
//! [`plugins`] (`/connector-plugins`); [`error`] holds the error body and extractors.

pub mod connectors;
pub mod error;
pub mod lifecycle;
pub mod loggers;
pub mod offsets;
pub mod openapi;
pub mod plugins;
pub mod root;
pub mod topics;
pub mod validate;
mod validate_transforms;

#[cfg(test)]
mod tests;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;

use axum::Router;
use tokio_util::sync::CancellationToken;

use crate::herder::HerderHandle;
use crate::plugins::PluginRegistry;

pub use error::RestError;

/// What every handler needs: the herder, the plugins and facts about the worker.
#[derive(Clone)]
pub struct AppState {
    /// The herder (control plane) that owns the connectors.
    pub herder: HerderHandle,
    /// The plugins this binary offers, for `/connector-plugins`.
    pub plugins: Arc<PluginRegistry>,
    /// Facts about this worker that the REST API reports.
    pub worker: Arc<WorkerInfo>,
}

/// Facts about the worker that the REST API reports besides the herder's answers.
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

impl WorkerInfo {
    /// The facts of a worker with `config` whose Kafka cluster is `kafka_cluster_id`.
    pub fn new(config: &crate::config::WorkerConfig, kafka_cluster_id: Option<String>) -> Self {
        Self {
            kafka_cluster_id,
            converters: [
                config.key_converter_class().to_owned(),
                config.value_converter_class().to_owned(),
                config.header_converter_class().to_owned(),
            ],
            providers: config.providers().clone(),
        }
    }
}

/// The REST API's routes, with Kafka Connect's error body for unknown paths and methods.
pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(root::routes())
        .merge(connectors::routes())
        .merge(lifecycle::routes())
        .merge(offsets::routes())
        .merge(topics::routes())
        .merge(validate::routes())
        .merge(loggers::routes())
        .merge(openapi::routes())
        .merge(plugins::routes())
        .fallback(error::not_found)
        // After every route: it applies to the routes already added.
        .method_not_allowed_fallback(error::method_not_allowed)
        .with_state(state)
}

/// Serves the REST API on `listener` until `shutdown` is cancelled, then finishes the requests
/// in flight. (The caller logs the address it bound.)
///
/// # Errors
/// The listener's address cannot be read, or serving fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
}

/// Parses one entry of Kafka Connect's `listeners` setting, `http://host:port`, into the
/// address to bind (errors say what is wrong, not which listener: the caller adds that): an empty host (`http://:8083`) is every interface (`0.0.0.0`), `localhost`
/// is `127.0.0.1`, IPv6 hosts are bracketed (`http://[::1]:8083`), other host names are
/// resolved. Port 0 binds an ephemeral port.
///
/// # Errors
/// A malformed listener, a listener list (only one is served), an unknown scheme or `https://`
/// (TLS is not supported yet), a bad port, or a host name that does not resolve.
pub fn parse_listener(listener: &str) -> Result<SocketAddr, String> {
    let listener = listener.trim();
    if listener.contains(',') {
        return Err("only one listener is supported, e.g. http://:8083".to_owned());
    }
    let Some((scheme, rest)) = listener.split_once("://") else {
        return Err("expected http://host:port, e.g. http://:8083".to_owned());
    };
    match scheme.to_ascii_lowercase().as_str() {
        "http" => {}
        "https" => return Err("TLS (https) is not supported yet; use http://host:port".to_owned()),
        _ => {
            return Err(format!(
                "unknown scheme {scheme}; expected http://host:port"
            ))
        }
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = if let Some(bracketed) = rest.strip_prefix('[') {
        let Some((host, port)) = bracketed.split_once("]:") else {
            return Err("expected http://[ipv6]:port".to_owned());
        };
        (host, port)
    } else {
        let Some((host, port)) = rest.rsplit_once(':') else {
            return Err("missing port, expected http://host:port".to_owned());
        };
        if host.contains(':') {
            return Err("put an IPv6 host in brackets, e.g. http://[::1]:8083".to_owned());
        }
        (host, port)
    };
    let port: u16 = port.parse().map_err(|_| format!("invalid port {port}"))?;
    let ip = match host {
        "" => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        h if h.eq_ignore_ascii_case("localhost") => IpAddr::V4(Ipv4Addr::LOCALHOST),
        h => match h.parse::<IpAddr>() {
            Ok(ip) => ip,
            Err(_) => {
                let resolved = (h, port)
                    .to_socket_addrs()
                    .map_err(|e| format!("cannot resolve {h}: {e}"))?
                    .next();
                return resolved.ok_or_else(|| format!("{h} resolves to no address"));
            }
        },
    };
    Ok(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod listener_tests {
    use super::*;

    fn ok(l: &str) -> String {
        parse_listener(l)
            .unwrap_or_else(|e| panic!("{l}: {e}"))
            .to_string()
    }

    #[test]
    fn parses_kafka_listener_forms() {
        assert_eq!(ok("http://:8083"), "0.0.0.0:8083");
        assert_eq!(ok("http://localhost:8083"), "127.0.0.1:8083");
        assert_eq!(ok("HTTP://LocalHost:1"), "127.0.0.1:1");
        assert_eq!(ok("http://127.0.0.1:0"), "127.0.0.1:0");
        assert_eq!(ok(" http://0.0.0.0:9000/ "), "0.0.0.0:9000");
        assert_eq!(ok("http://[::1]:8083"), "[::1]:8083");
        assert_eq!(ok("http://[::]:8083"), "[::]:8083");
    }

    #[test]
    fn rejects_tls_and_malformed_listeners() {
        let e = parse_listener("https://:8443").unwrap_err();
        assert!(e.contains("TLS") && e.contains("not supported yet"), "{e}");
        for bad in [
            "",
            ":8083",
            "localhost:8083",
            "http://localhost",
            "http://localhost:",
            "http://localhost:99999",
            "http://localhost:-1",
            "http://::1:8083",
            "ftp://:21",
            "http://:8083,http://:8084",
        ] {
            assert!(parse_listener(bad).is_err(), "{bad} should be rejected");
        }
    }
}
