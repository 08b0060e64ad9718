//! One connection to a Kafka broker: framing, correlation ids, ApiVersions negotiation.
//!
//! The byte stream is a boxed `AsyncRead + AsyncWrite`: plain TCP or TLS (tokio-openssl), per
//! [`Security`]; with SASL, `connect` authenticates right after ApiVersions (SaslHandshake +
//! SaslAuthenticate).

use std::collections::HashMap;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, RequestHeader, ResponseHeader, SaslAuthenticateRequest,
    SaslHandshakeRequest,
};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, Request, StrBytes};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::MembershipError;
use crate::sasl::{self, Exchange};
use crate::security::{SaslCredentials, Security};

/// A byte stream to a broker (plain TCP now; TLS later).
pub trait Transport: AsyncRead + AsyncWrite + Send + Sync + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Sync + Unpin> Transport for T {}

/// The largest response accepted (a JoinGroup response with many members stays far below).
const MAX_RESPONSE: usize = 100 * 1024 * 1024;

/// A connection to one broker, with the API versions it supports.
pub struct Connection {
    stream: Box<dyn Transport>,
    address: String,
    client_id: String,
    correlation_id: i32,
    versions: HashMap<i16, (i16, i16)>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects to `address` (`HOST:PORT`) within `timeout`, with TLS and SASL per `security`,
    /// and negotiates API versions.
    pub async fn connect(
        address: &str,
        client_id: &str,
        timeout: Duration,
        security: &Security,
    ) -> Result<Self, MembershipError> {
        let tcp = tokio::time::timeout(timeout, TcpStream::connect(address))
            .await
            .map_err(|_| MembershipError::Timeout(format!("connect to {address}"), timeout))?
            .map_err(|source| MembershipError::Io {
                context: format!("connect to {address}"),
                source,
            })?;
        let _ = tcp.set_nodelay(true);
        let stream: Box<dyn Transport> = match &security.tls {
            None => Box::new(tcp),
            Some(tls) => {
                let host = address
                    .rsplit_once(':')
                    .map(|(h, _)| h.trim_start_matches('[').trim_end_matches(']'))
                    .unwrap_or(address);
                let tls_err = |e: String| MembershipError::Auth(format!("TLS with {address}: {e}"));
                let ssl = tls
                    .connector
                    .configure()
                    .and_then(|c| {
                        c.verify_hostname(tls.verify_hostname)
                            .use_server_name_indication(true)
                            .into_ssl(host)
                    })
                    .map_err(|e| tls_err(e.to_string()))?;
                let mut stream =
                    tokio_openssl::SslStream::new(ssl, tcp).map_err(|e| tls_err(e.to_string()))?;
                tokio::time::timeout(timeout, std::pin::Pin::new(&mut stream).connect())
                    .await
                    .map_err(|_| {
                        MembershipError::Timeout(format!("TLS handshake with {address}"), timeout)
                    })?
                    .map_err(|e| tls_err(e.to_string()))?;
                Box::new(stream)
            }
        };
        let mut conn = Connection {
            stream,
            address: address.to_owned(),
            client_id: client_id.to_owned(),
            correlation_id: 0,
            versions: HashMap::new(),
        };
        let request = ApiVersionsRequest::default()
            .with_client_software_name(StrBytes::from_static_str("connect-rs"))
            .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION")));
        let response = conn.send(&request, 3, timeout).await?;
        if response.error_code != 0 {
            return Err(MembershipError::kafka("ApiVersions", response.error_code));
        }
        conn.versions = response
            .api_keys
            .iter()
            .map(|k| (k.api_key, (k.min_version, k.max_version)))
            .collect();
        if let Some(creds) = &security.sasl {
            conn.authenticate(creds, timeout).await?;
        }
        Ok(conn)
    }

    /// SaslHandshake, then SaslAuthenticate rounds until the mechanism completes.
    async fn authenticate(
        &mut self,
        creds: &SaslCredentials,
        timeout: Duration,
    ) -> Result<(), MembershipError> {
        let mechanism = creds.mechanism.name();
        let version = self.version::<SaslHandshakeRequest>("SaslHandshake", 1)?;
        let request =
            SaslHandshakeRequest::default().with_mechanism(StrBytes::from_static_str(mechanism));
        let response = self.send(&request, version, timeout).await?;
        if response.error_code != 0 {
            let enabled: Vec<String> = response.mechanisms.iter().map(|m| m.to_string()).collect();
            return Err(MembershipError::Auth(format!(
                "{} does not accept SASL mechanism {mechanism} (enabled: {})",
                self.address,
                enabled.join(", ")
            )));
        }
        let (exchange, first) = sasl::start(creds)?;
        let reply = self.sasl_round(first, timeout).await?;
        if let Exchange::Scram {
            digest,
            client_first_bare,
            nonce,
        } = exchange
        {
            let (last, server_signature) =
                sasl::scram_final(digest, &client_first_bare, &nonce, &reply, &creds.password)?;
            let server_final = self.sasl_round(last, timeout).await?;
            sasl::scram_verify(&server_final, &server_signature)?;
        }
        Ok(())
    }

    async fn sasl_round(
        &mut self,
        auth_bytes: Vec<u8>,
        timeout: Duration,
    ) -> Result<Bytes, MembershipError> {
        let version = self.version::<SaslAuthenticateRequest>("SaslAuthenticate", 2)?;
        let request = SaslAuthenticateRequest::default().with_auth_bytes(Bytes::from(auth_bytes));
        let response = self.send(&request, version, timeout).await?;
        if response.error_code != 0 {
            let message = response
                .error_message
                .map(|m| m.to_string())
                .unwrap_or_else(|| {
                    MembershipError::kafka("SaslAuthenticate", response.error_code).to_string()
                });
            return Err(MembershipError::Auth(format!(
                "{}: {message}",
                self.address
            )));
        }
        Ok(response.auth_bytes)
    }

    /// The broker address.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The highest version of `R` both sides speak, capped at `cap`.
    pub fn version<R: Request>(
        &self,
        name: &'static str,
        cap: i16,
    ) -> Result<i16, MembershipError> {
        let (min, max) = self
            .versions
            .get(&R::KEY)
            .copied()
            .ok_or(MembershipError::Unsupported(name))?;
        let v = max.min(R::VERSIONS.max).min(cap);
        if v < min.max(R::VERSIONS.min) {
            return Err(MembershipError::Unsupported(name));
        }
        Ok(v)
    }

    /// Sends `request` at `version` and waits up to `timeout` for its response.
    pub async fn send<R: Request>(
        &mut self,
        request: &R,
        version: i16,
        timeout: Duration,
    ) -> Result<R::Response, MembershipError> {
        let api = ApiKey::try_from(R::KEY)
            .map(|k| format!("{k:?}"))
            .unwrap_or_else(|_| R::KEY.to_string());
        let what = format!("{api} to {}", self.address);
        match tokio::time::timeout(timeout, self.round_trip(request, version, &what)).await {
            Ok(result) => result,
            Err(_) => Err(MembershipError::Timeout(what, timeout)),
        }
    }

    async fn round_trip<R: Request>(
        &mut self,
        request: &R,
        version: i16,
        what: &str,
    ) -> Result<R::Response, MembershipError> {
        self.correlation_id = self.correlation_id.wrapping_add(1);
        let correlation_id = self.correlation_id;
        let header = RequestHeader::default()
            .with_request_api_key(R::KEY)
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(StrBytes::from_string(self.client_id.clone())));
        let mut body = BytesMut::new();
        let codec = |e: String| MembershipError::Codec(format!("{what}: {e}"));
        header
            .encode(&mut body, R::header_version(version))
            .map_err(|e| codec(e.to_string()))?;
        request
            .encode(&mut body, version)
            .map_err(|e| codec(e.to_string()))?;
        let mut frame = BytesMut::with_capacity(body.len() + 4);
        frame.put_i32(body.len() as i32);
        frame.extend_from_slice(&body);
        let io = |source| MembershipError::Io {
            context: what.to_owned(),
            source,
        };
        self.stream.write_all(&frame).await.map_err(io)?;
        self.stream.flush().await.map_err(io)?;
        let len = self.stream.read_i32().await.map_err(io)?;
        let len = usize::try_from(len)
            .ok()
            .filter(|l| *l <= MAX_RESPONSE)
            .ok_or_else(|| MembershipError::Codec(format!("{what}: bad response size {len}")))?;
        let mut buf = vec![0u8; len];
        self.stream.read_exact(&mut buf).await.map_err(io)?;
        let mut bytes = Bytes::from(buf);
        let header = ResponseHeader::decode(&mut bytes, R::Response::header_version(version))
            .map_err(|e| codec(e.to_string()))?;
        if header.correlation_id != correlation_id {
            return Err(MembershipError::Codec(format!(
                "{what}: correlation id {} instead of {correlation_id}",
                header.correlation_id
            )));
        }
        let response =
            R::Response::decode(&mut bytes, version).map_err(|e| codec(e.to_string()))?;
        Ok(response)
    }
}
