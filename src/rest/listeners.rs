//! Kafka Connect's `listeners`: every `http://` and `https://` entry is bound and served with the
//! same routes and security layers; https listeners share one OpenSSL acceptor
//! ([`security::tls`](super::security::tls)).

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use openssl::ssl::SslAcceptor;
use tokio_util::sync::CancellationToken;

use super::security::{self, RestSecurity, SetupError};
use crate::config::WorkerConfig;

/// Listener used when `listeners` is not set: Kafka Connect binds every interface
/// (`http://:8083`); connect-rs only loopback unless told otherwise.
const DEFAULT_LISTENER: &str = "http://127.0.0.1:8083";
/// How long in-flight https requests may take to finish at shutdown.
const TLS_GRACE: Duration = Duration::from_secs(10);

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
}

/// The REST server with its listeners bound and its security read, ready to serve.
pub struct RestServer {
    bound: Vec<Bound>,
    security: RestSecurity,
}

impl RestServer {
    /// Reads the REST security of `worker` (the JAAS file of basic authentication from the
    /// `KAFKA_OPTS` environment variable) and binds every `listeners` entry.
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
                .filter(|l| !l.is_empty())
                .collect()
        } else {
            vec![DEFAULT_LISTENER.to_owned()]
        };
        if entries.is_empty() {
            return Err(SetupError::invalid(
                "listeners",
                "at least one URL is expected, e.g. http://localhost:8080,https://localhost:8443",
            )
            .into());
        }
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
            let socket = tokio::net::TcpListener::bind(listener.addr)
                .await
                .map_err(|e| anyhow::anyhow!("Could not bind the REST API to {entry}: {e}"))?;
            bound.push(Bound {
                listener: socket,
                tls: acceptor,
            });
        }
        Ok(Self { bound, security })
    }

    /// `(scheme, address)` of every bound listener, in `listeners` order.
    pub fn addresses(&self) -> Vec<(&'static str, SocketAddr)> {
        self.bound
            .iter()
            .filter_map(|b| {
                let scheme = if b.tls.is_some() { "https" } else { "http" };
                b.listener.local_addr().ok().map(|a| (scheme, a))
            })
            .collect()
    }

    /// Whether requests must authenticate (basic auth is on).
    pub fn authenticates(&self) -> bool {
        self.security.authenticates()
    }

    /// Serves `router` on every listener until `shutdown` is cancelled, then lets requests in
    /// flight finish.
    ///
    /// # Errors
    /// A listener fails.
    pub async fn serve(self, router: Router, shutdown: CancellationToken) -> std::io::Result<()> {
        let app = self.security.apply(router);
        let mut tasks = Vec::new();
        for bound in self.bound {
            let app = app.clone();
            let shutdown = shutdown.clone();
            tasks.push(tokio::spawn(async move {
                match bound.tls {
                    None => {
                        axum::serve(bound.listener, app)
                            .with_graceful_shutdown(shutdown.cancelled_owned())
                            .await
                    }
                    Some(acceptor) => serve_tls(bound.listener, acceptor, app, shutdown).await,
                }
            }));
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

async fn serve_tls(
    listener: tokio::net::TcpListener,
    acceptor: Arc<SslAcceptor>,
    app: Router,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    use axum_server::tls_openssl::{OpenSSLAcceptor, OpenSSLConfig};
    let handle = axum_server::Handle::<SocketAddr>::new();
    let stopper = handle.clone();
    tokio::spawn(async move {
        shutdown.cancelled().await;
        stopper.graceful_shutdown(Some(TLS_GRACE));
    });
    axum_server::from_tcp(listener.into_std()?)?
        .acceptor(OpenSSLAcceptor::new(OpenSSLConfig::from_acceptor(acceptor)))
        .handle(handle)
        .serve(app.into_make_service())
        .await
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
