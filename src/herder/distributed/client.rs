//! The HTTP client one worker uses to reach another worker's REST API (Kafka Connect's
//! `RestClient`): one HTTP/1.1 exchange per request on a fresh connection, no redirects,
//! bounded by a timeout. `https://` targets use the TLS settings of the worker's https
//! listeners (`listeners.https.ssl.*` when any is set, else `ssl.*`): the truststore (else the
//! system's CAs), the keystore as client certificate, and host name verification unless
//! `ssl.endpoint.identification.algorithm` is empty.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, Request, StatusCode, Uri};
use connect_api::ConfigMap;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use openssl::ssl::{SslConnector, SslMethod, SslVersion};
use openssl::x509::store::X509StoreBuilder;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::config::WorkerConfig;

/// How long one exchange may take by default, as Kafka Connect's
/// `DEFAULT_REST_REQUEST_TIMEOUT_MS` (90 s); REST waits as long for the herder.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(90);

/// The user agent Kafka Connect's client sends.
pub const USER_AGENT: &str = "kafka-connect";

/// Why a request got no HTTP answer. Every message names the URL.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The URL is not an absolute `http://` or `https://` URL.
    #[error("invalid URL {url}: {reason}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The TCP connection failed.
    #[error("cannot connect to {url}: {source}")]
    Connect {
        /// The URL.
        url: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TLS settings are unusable or the TLS handshake failed.
    #[error("TLS with {url} failed: {source}")]
    Tls {
        /// The URL.
        url: String,
        /// Why.
        #[source]
        source: TlsFailure,
    },
    /// The HTTP exchange failed.
    #[error("HTTP exchange with {url} failed: {source}")]
    Http {
        /// The URL.
        url: String,
        /// The protocol or I/O error.
        source: hyper::Error,
    },
    /// No complete answer within the timeout.
    #[error("no answer from {url} within {} s", .timeout.as_secs())]
    Timeout {
        /// The URL.
        url: String,
        /// The timeout.
        timeout: Duration,
    },
}

/// Why TLS with another worker failed.
#[derive(Debug, thiserror::Error)]
pub enum TlsFailure {
    /// The keystore or truststore of the https settings could not be loaded.
    #[error(transparent)]
    Settings(#[from] crate::tls::TlsError),
    /// OpenSSL refused the settings.
    #[error(transparent)]
    OpenSsl(#[from] openssl::error::ErrorStack),
    /// The handshake failed.
    #[error(transparent)]
    Handshake(#[from] openssl::ssl::Error),
}

/// An HTTP answer, its body read completely.
#[derive(Debug, Clone)]
pub struct ClientResponse {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Bytes,
}

/// The TLS settings for `https://` targets (keys without their prefix, and the prefix for
/// messages).
#[derive(Clone, Default)]
struct TlsSettings {
    ssl: ConfigMap,
    prefix: &'static str,
}

/// A client for other workers' REST APIs. Cheap to clone.
#[derive(Clone)]
pub struct RestClient {
    tls: Arc<TlsSettings>,
    timeout: Duration,
}

impl std::fmt::Debug for RestClient {
    /// Never prints the TLS settings (they hold passwords).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestClient")
            .field("tls_prefix", &self.tls.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Default for RestClient {
    /// A client without TLS settings (https targets verified against the system's CAs) and
    /// [`REQUEST_TIMEOUT`].
    fn default() -> Self {
        Self {
            tls: Arc::default(),
            timeout: REQUEST_TIMEOUT,
        }
    }
}

impl RestClient {
    /// The client of `worker`: TLS as its https listeners, [`REQUEST_TIMEOUT`].
    pub fn new(worker: &WorkerConfig) -> Self {
        let (ssl, prefix) = crate::tls::https_settings(worker);
        Self {
            tls: Arc::new(TlsSettings { ssl, prefix }),
            timeout: REQUEST_TIMEOUT,
        }
    }

    /// A client whose `https://` targets use `ssl` (Kafka's `ssl.*` keys without `prefix`;
    /// `prefix` names them in messages).
    pub fn with_tls_settings(ssl: ConfigMap, prefix: &'static str) -> Self {
        Self {
            tls: Arc::new(TlsSettings { ssl, prefix }),
            timeout: REQUEST_TIMEOUT,
        }
    }

    /// The same client with another timeout for a whole exchange.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sends `method url` with `headers` and `body` (`Host`, `Content-Length` and
    /// `Connection: close` are added) and reads the whole answer, within the timeout.
    ///
    /// # Errors
    /// An invalid URL, a connection, TLS or HTTP failure, or the timeout.
    pub async fn send(
        &self,
        method: Method,
        url: &str,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<ClientResponse, ClientError> {
        match tokio::time::timeout(self.timeout, self.exchange(method, url, headers, body)).await {
            Ok(result) => result,
            Err(_) => Err(ClientError::Timeout {
                url: url.to_owned(),
                timeout: self.timeout,
            }),
        }
    }

    async fn exchange(
        &self,
        method: Method,
        url: &str,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<ClientResponse, ClientError> {
        let invalid = |reason: &str| ClientError::InvalidUrl {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        let uri: Uri = url
            .parse()
            .map_err(|e: axum::http::uri::InvalidUri| invalid(&e.to_string()))?;
        let https = match uri.scheme_str() {
            Some(s) if s.eq_ignore_ascii_case("http") => false,
            Some(s) if s.eq_ignore_ascii_case("https") => true,
            _ => return Err(invalid("expected http:// or https://")),
        };
        let authority = uri
            .authority()
            .ok_or_else(|| invalid("no host"))?
            .as_str()
            .to_owned();
        let host = uri.host().ok_or_else(|| invalid("no host"))?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let target = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();

        let mut request = Request::builder()
            .method(method)
            .uri(target)
            .body(Full::new(body))
            .map_err(|e| invalid(&e.to_string()))?;
        *request.headers_mut() = headers;
        let host_header =
            HeaderValue::from_str(&authority).map_err(|_| invalid("host is not a header value"))?;
        request.headers_mut().insert(header::HOST, host_header);
        request
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));

        let tcp = TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|source| ClientError::Connect {
                url: url.to_owned(),
                source,
            })?;
        let http = |source| ClientError::Http {
            url: url.to_owned(),
            source,
        };
        if https {
            let tls = self
                .tls_connect(&host, tcp)
                .await
                .map_err(|source| ClientError::Tls {
                    url: url.to_owned(),
                    source,
                })?;
            exchange_on(tls, request).await.map_err(http)
        } else {
            exchange_on(tcp, request).await.map_err(http)
        }
    }

    /// The TLS connector of the https settings.
    fn connector(&self) -> Result<SslConnector, TlsFailure> {
        let TlsSettings { ssl, prefix } = &*self.tls;
        let mut builder = SslConnector::builder(SslMethod::tls_client())?;
        builder.set_min_proto_version(Some(SslVersion::TLS1_2))?;
        if let Some(material) = crate::tls::load_keystore(ssl, prefix)? {
            builder.set_private_key(&material.key)?;
            builder.set_certificate(&material.certificate)?;
            for cert in &material.chain {
                builder.add_extra_chain_cert(cert.clone())?;
            }
        }
        if let Some(certs) = crate::tls::load_truststore(ssl, prefix)? {
            let mut store = X509StoreBuilder::new()?;
            for cert in certs {
                store.add_cert(cert)?;
            }
            builder.set_cert_store(store.build());
        }
        Ok(builder.build())
    }

    async fn tls_connect(
        &self,
        host: &str,
        tcp: TcpStream,
    ) -> Result<tokio_openssl::SslStream<TcpStream>, TlsFailure> {
        let connector = self.connector()?;
        // Kafka's default `https` checks the host name; an empty value turns the check off.
        let verify_host = self
            .tls
            .ssl
            .get("ssl.endpoint.identification.algorithm")
            .is_none_or(|a| !a.trim().is_empty());
        let ssl = connector
            .configure()?
            .verify_hostname(verify_host)
            .into_ssl(host)?;
        let mut stream = tokio_openssl::SslStream::new(ssl, tcp)?;
        Pin::new(&mut stream).connect().await?;
        Ok(stream)
    }
}

/// One HTTP/1.1 exchange on `io`.
async fn exchange_on<S>(
    io: S,
    request: Request<Full<Bytes>>,
) -> Result<ClientResponse, hyper::Error>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io)).await?;
    // The connection ends by itself after the answer (`Connection: close`); a failure shows in
    // `send_request` or in reading the body.
    let driver = tokio::spawn(connection);
    let result = async {
        let response = sender.send_request(request).await?;
        let (parts, body) = response.into_parts();
        let body = body.collect().await?.to_bytes();
        Ok(ClientResponse {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    }
    .await;
    drop(sender);
    if result.is_err() {
        driver.abort();
    }
    result
}

#[cfg(test)]
mod tests;
