//! Kafka Connect's `listeners` and `admin.listeners`: every `http://` and `https://` entry of
//! `listeners` is bound and served with the same routes and security layers (https listeners
//! share one OpenSSL acceptor, [`security::tls`](super::security::tls)); the admin endpoints
//! (`/admin/loggers`) are served there too, unless `admin.listeners` is set: empty, nowhere;
//! a list, only on those listeners (their own TLS keys `admin.listeners.https.*`), as Kafka
//! Connect's `RestServer`. Every listener closes idle connections and shares one bound on
//! open connections ([`connections`](super::connections)).

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use axum::middleware::from_fn_with_state;
use axum::Router;
use openssl::ssl::SslAcceptor;
use tokio_util::sync::CancellationToken;

use super::connections::{self, ConnectionLimits, LimitedListener, Peer};
use super::security::{self, RestSecurity, SetupError};
use super::AppState;
use crate::config::WorkerConfig;

/// Listener used when `listeners` is not set: Kafka Connect binds every interface
/// (`http://:8083`); connect-rs only loopback unless told otherwise.
const DEFAULT_LISTENER: &str = "http://127.0.0.1:8083";
/// How long in-flight requests may take to finish at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// One parsed `listeners` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listener {
    /// `https://` (TLS) rather than `http://`.
    pub https: bool,
    /// The address to bind.
    pub addr: SocketAddr,
}

/// Parses one entry of Kafka Connect's `listeners` setting, `http://host:port` or
/// `https://host:port` (errors say what is wrong, not which listener: the caller adds that): an
/// empty host (`http://:8083`) is every interface (`0.0.0.0`), `localhost` is `127.0.0.1`, IPv6
/// hosts are bracketed (`http://[::1]:8083`), other host names are resolved. Port 0 binds an
/// ephemeral port.
///
/// # Errors
/// A malformed listener, a listener list, an unknown scheme, a bad port, or a host name that
/// does not resolve.
pub fn parse_listener(listener: &str) -> Result<Listener, String> {
    let listener = listener.trim();
    if listener.contains(',') {
        return Err("one listener expected, e.g. http://:8083".to_owned());
    }
    let Some((scheme, rest)) = listener.split_once("://") else {
        return Err("expected http://host:port or https://host:port, e.g. http://:8083".to_owned());
    };
    let https = match scheme.to_ascii_lowercase().as_str() {
        "http" => false,
        "https" => true,
        _ => {
            return Err(format!(
                "Listener protocol must be either \"http\" or \"https\", not {scheme}"
            ))
        }
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = if let Some(bracketed) = rest.strip_prefix('[') {
        let Some((host, port)) = bracketed.split_once("]:") else {
            return Err(format!("expected {scheme}://[ipv6]:port"));
        };
        (host, port)
    } else {
        let Some((host, port)) = rest.rsplit_once(':') else {
            return Err(format!("missing port, expected {scheme}://host:port"));
        };
        if host.contains(':') {
            return Err(format!(
                "put an IPv6 host in brackets, e.g. {scheme}://[::1]:8083"
            ));
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
                let addr = resolved.ok_or_else(|| format!("{h} resolves to no address"))?;
                return Ok(Listener { https, addr });
            }
        },
    };
    Ok(Listener {
        https,
        addr: SocketAddr::new(ip, port),
    })
}

struct Bound {
    listener: tokio::net::TcpListener,
    tls: Option<Arc<SslAcceptor>>,
    /// An `admin.listeners` entry (serves only the admin endpoints).
    admin: bool,
}

/// Where the admin endpoints (`/admin/loggers`) are served, from `admin.listeners`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminEndpoints {
    /// `admin.listeners` absent: on the main listeners, with everything else.
    Main,
    /// `admin.listeners` empty: nowhere (404 as any unknown path).
    Disabled,
    /// `admin.listeners` lists listeners: only there, not on the main listeners.
    Dedicated,
}

/// The REST server with its listeners bound and its security read, ready to serve.
pub struct RestServer {
    bound: Vec<Bound>,
    security: RestSecurity,
    admin: AdminEndpoints,
    limits: ConnectionLimits,
}

impl RestServer {
    /// Reads the REST security of `worker` (the JAAS file of basic authentication from the
    /// `KAFKA_OPTS` environment variable) and binds every `listeners` and `admin.listeners`
    /// entry.
    ///
    /// # Errors
    /// An invalid listener or security setting, or an address that cannot be bound.
    pub async fn bind(worker: &WorkerConfig) -> anyhow::Result<Self> {
        let kafka_opts = std::env::var("KAFKA_OPTS").ok();
        let security = RestSecurity::from_worker(worker, kafka_opts.as_deref())?;
        let entries: Vec<String> = if worker.raw().get("listeners").is_some() {
            worker
                .listeners()
                .iter()
                .map(|l| l.trim().to_owned())
                .collect()
        } else {
            vec![DEFAULT_LISTENER.to_owned()]
        };
        if entries.len() > 1 && entries.iter().any(String::is_empty) {
            return Err(SetupError::invalid(
                "listeners",
                "Empty URL found when parsing listeners list.",
            )
            .into());
        }
        if entries.iter().all(String::is_empty) {
            return Err(SetupError::invalid(
                "listeners",
                "at least one URL is expected, e.g. http://localhost:8080,https://localhost:8443",
            )
            .into());
        }
        let admin_entries = admin_listeners(worker)?;
        let admin = match &admin_entries {
            None => AdminEndpoints::Main,
            Some(list) if list.is_empty() => AdminEndpoints::Disabled,
            Some(_) => AdminEndpoints::Dedicated,
        };
        let mut tls: Option<Arc<SslAcceptor>> = None;
        let mut bound = Vec::new();
        for entry in &entries {
            let listener = parse_listener(entry)
                .map_err(|e| anyhow::anyhow!("Invalid listeners entry {entry}: {e}"))?;
            let acceptor = if listener.https {
                if tls.is_none() {
                    tls = Some(Arc::new(security::tls::acceptor(worker)?));
                }
                tls.clone()
            } else {
                None
            };
            bound.push(Bound {
                listener: bind_listener(listener.addr, entry).await?,
                tls: acceptor,
                admin: false,
            });
        }
        let mut admin_tls: Option<Arc<SslAcceptor>> = None;
        for entry in admin_entries.iter().flatten() {
            let listener = parse_listener(entry)
                .map_err(|e| anyhow::anyhow!("Invalid admin.listeners entry {entry}: {e}"))?;
            let acceptor = if listener.https {
                if admin_tls.is_none() {
                    admin_tls = Some(Arc::new(security::tls::admin_acceptor(worker)?));
                }
                admin_tls.clone()
            } else {
                None
            };
            warn_if_open(entry, listener, worker, &security);
            bound.push(Bound {
                listener: bind_listener(listener.addr, entry).await?,
                tls: acceptor,
                admin: true,
            });
        }
        Ok(Self {
            bound,
            security,
            admin,
            limits: ConnectionLimits::from_worker(worker),
        })
    }

    /// `(scheme, address)` of every bound main listener, in `listeners` order.
    pub fn addresses(&self) -> Vec<(&'static str, SocketAddr)> {
        self.addresses_of(false)
    }

    /// `(scheme, address)` of every bound admin listener, in `admin.listeners` order.
    pub fn admin_addresses(&self) -> Vec<(&'static str, SocketAddr)> {
        self.addresses_of(true)
    }

    fn addresses_of(&self, admin: bool) -> Vec<(&'static str, SocketAddr)> {
        self.bound
            .iter()
            .filter(|b| b.admin == admin)
            .filter_map(|b| {
                let scheme = if b.tls.is_some() { "https" } else { "http" };
                b.listener.local_addr().ok().map(|a| (scheme, a))
            })
            .collect()
    }

    /// Where the admin endpoints are served.
    pub fn admin_endpoints(&self) -> AdminEndpoints {
        self.admin
    }

    /// Whether requests must authenticate (basic auth is on).
    pub fn authenticates(&self) -> bool {
        self.security.authenticates()
    }

    /// Logs where the REST API and its admin endpoints listen.
    pub fn log_addresses(&self) {
        for (scheme, addr) in self.addresses() {
            tracing::info!("REST API listening on {scheme}://{addr}");
        }
        match self.admin {
            AdminEndpoints::Main => {}
            AdminEndpoints::Disabled => tracing::info!(
                "REST admin endpoints (/admin/loggers) are disabled: admin.listeners is empty."
            ),
            AdminEndpoints::Dedicated => {
                for (scheme, addr) in self.admin_addresses() {
                    tracing::info!("REST admin endpoints listening on {scheme}://{addr}");
                }
            }
        }
        tracing::debug!(
            max_connections = self.limits.max_connections(),
            idle_timeout_ms =
                u64::try_from(self.limits.idle_timeout.as_millis()).unwrap_or(u64::MAX),
            "REST connection limits."
        );
    }

    /// Serves the REST API of `state` on every listener until `shutdown` is cancelled, then
    /// lets requests in flight finish: the main listeners behind the security layers, with the
    /// admin endpoints when `admin.listeners` is absent; the admin listeners with only the
    /// admin endpoints and, as in Kafka Connect, without the security layers (REST extensions
    /// such as basic authentication, CORS and header rules apply to the main listeners only).
    ///
    /// # Errors
    /// A listener fails.
    pub async fn serve(self, state: AppState, shutdown: CancellationToken) -> std::io::Result<()> {
        let deadline = from_fn_with_state(self.limits.idle_timeout, connections::body_deadline);
        let main = super::api_router(state.clone(), self.admin == AdminEndpoints::Main);
        let app = self.security.apply(main).layer(deadline.clone());
        let admin_app = super::admin_router(state).layer(deadline);
        let mut tasks = Vec::new();
        for bound in self.bound {
            let app = if bound.admin {
                admin_app.clone()
            } else {
                app.clone()
            };
            let shutdown = shutdown.clone();
            let limits = self.limits.clone();
            tasks.push(tokio::spawn(serve_listener(bound, app, limits, shutdown)));
        }
        let mut result = Ok(());
        for task in tasks {
            match task.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => result = Err(e),
                Err(e) => result = Err(std::io::Error::other(e)),
            }
        }
        result
    }
}

/// `admin.listeners`: `None` when absent, else its entries (empty: admin endpoints disabled).
///
/// # Errors
/// An empty entry in a non-empty list (Kafka's `Empty URL found when parsing admin.listeners
/// list.`).
fn admin_listeners(worker: &WorkerConfig) -> Result<Option<Vec<String>>, SetupError> {
    let Some(list) = worker.admin_listeners() else {
        return Ok(None);
    };
    let entries: Vec<String> = list.iter().map(|l| l.trim().to_owned()).collect();
    if entries.iter().any(String::is_empty) {
        return Err(SetupError::invalid(
            "admin.listeners",
            "Empty URL found when parsing admin.listeners list.",
        ));
    }
    Ok(Some(entries))
}

/// Warns about an admin listener anyone who reaches it may use: with basic authentication on,
/// Kafka Connect (and so connect-rs) does not ask for it on admin listeners, so one that is not
/// loopback-only nor requires client certificates lets anyone change log levels.
fn warn_if_open(entry: &str, listener: Listener, worker: &WorkerConfig, security: &RestSecurity) {
    if !security.authenticates() || listener.addr.ip().is_loopback() {
        return;
    }
    let client_auth_required = listener.https && {
        let (ssl, _) = crate::tls::prefixed_https_settings(worker, crate::tls::ADMIN_HTTPS_PREFIX);
        ssl.get("ssl.client.auth")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("required"))
    };
    if !client_auth_required {
        tracing::warn!(
            "admin.listeners entry {entry} serves /admin/loggers without the basic \
             authentication of rest.extension.classes, as Kafka Connect does (REST extensions \
             apply to the main listeners only): anyone who reaches it can change log levels. \
             Bind it to a loopback address, or use https with \
             admin.listeners.https.ssl.client.auth=required."
        );
    }
}

async fn bind_listener(addr: SocketAddr, entry: &str) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("Could not bind the REST API to {entry}: {e}"))
}

/// Serves `app` over plain http on `listener` under `limits` (for tests of the connection
/// handling).
#[cfg(test)]
pub(super) async fn serve_plain(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let bound = Bound {
        listener,
        tls: None,
        admin: false,
    };
    serve_listener(bound, app, limits, shutdown).await
}

/// Serves `app` on one listener, HTTP/1.1 (as Kafka Connect's Jetty), under `limits`.
async fn serve_listener(
    bound: Bound,
    app: Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    use axum_server::tls_openssl::{OpenSSLAcceptor, OpenSSLConfig};
    let handle = axum_server::Handle::<Peer>::new();
    let stopper = handle.clone();
    tokio::spawn(async move {
        shutdown.cancelled().await;
        stopper.graceful_shutdown(Some(SHUTDOWN_GRACE));
    });
    let idle = limits.idle_timeout;
    let mut server =
        axum_server::Server::<Peer>::from_listener(LimitedListener::new(bound.listener, limits))
            .http1_only()
            .first_request_timeout(idle)
            .handle(handle);
    server
        .http_builder()
        .http1()
        .keep_alive(true)
        .header_read_timeout(idle);
    match bound.tls {
        None => server.serve(app.into_make_service()).await,
        Some(acceptor) => {
            server
                .acceptor(OpenSSLAcceptor::new(OpenSSLConfig::from_acceptor(acceptor)))
                .serve(app.into_make_service())
                .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(l: &str) -> String {
        let l = parse_listener(l).unwrap_or_else(|e| panic!("{l}: {e}"));
        format!("{}{}", if l.https { "s " } else { "" }, l.addr)
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
        assert_eq!(ok("https://:8443"), "s 0.0.0.0:8443");
        assert_eq!(ok("HTTPS://localhost:8443"), "s 127.0.0.1:8443");
    }

    #[test]
    fn rejects_malformed_listeners() {
        let e = parse_listener("ftp://:21").unwrap_err();
        assert!(e.contains("\"http\" or \"https\""), "{e}");
        for bad in [
            "",
            ":8083",
            "localhost:8083",
            "http://localhost",
            "http://localhost:",
            "http://localhost:99999",
            "http://localhost:-1",
            "http://::1:8083",
            "http://:8083,http://:8084",
        ] {
            assert!(parse_listener(bad).is_err(), "{bad} should be rejected");
        }
    }
}
