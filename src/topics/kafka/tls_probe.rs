//! Why a broker's certificate failed verification: librdkafka reports only
//! `certificate verify failed`, so connect-rs makes one TLS handshake of its own to the same
//! broker with the same trusted certificates and reads OpenSSL's verification result (e.g.
//! `certificate has expired`, `unable to get local issuer certificate`).

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use openssl::x509::{X509VerifyResult, X509};

/// How long the diagnostic connection may take.
const TIMEOUT: Duration = Duration::from_secs(3);

/// The broker address in a librdkafka reason: `sasl_ssl://HOST:PORT/ID: ...`.
fn broker_address(reason: &str) -> Option<&str> {
    let start = reason.find("://")? + 3;
    let rest = &reason[start..];
    let end = rest.find('/')?;
    Some(&rest[..end])
}

/// OpenSSL's verification result for the broker named in `reason`, trusting `trusted_pem` (or
/// the system's certificates); `None` when it cannot be told.
pub fn why_unverified(reason: &str, trusted_pem: Option<&str>) -> Option<String> {
    let address = broker_address(reason)?;
    let socket = address.to_socket_addrs().ok()?.next()?;
    let stream = TcpStream::connect_timeout(&socket, TIMEOUT).ok()?;
    stream.set_read_timeout(Some(TIMEOUT)).ok()?;
    stream.set_write_timeout(Some(TIMEOUT)).ok()?;
    let mut builder = SslConnector::builder(SslMethod::tls_client()).ok()?;
    match trusted_pem {
        Some(pem) => {
            let store = builder.cert_store_mut();
            for cert in X509::stack_from_pem(pem.as_bytes()).ok()? {
                store.add_cert(cert).ok()?;
            }
        }
        None => builder.set_default_verify_paths().ok()?,
    }
    builder.set_verify(SslVerifyMode::PEER);
    let host = address.rsplit_once(':').map_or(address, |(h, _)| h);
    let result = match builder.build().connect(host, stream) {
        Ok(_) => return None,
        Err(openssl::ssl::HandshakeError::Failure(mid)) => mid.ssl().verify_result(),
        Err(_) => return None,
    };
    (result != X509VerifyResult::OK).then(|| result.error_string().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_broker_address_from_librdkafkas_reason() {
        assert_eq!(
            broker_address("ssl://127.0.0.1:9093/bootstrap: SSL handshake failed: x"),
            Some("127.0.0.1:9093")
        );
        assert_eq!(
            broker_address("sasl_ssl://broker-1.example:9094/1: x"),
            Some("broker-1.example:9094")
        );
        assert_eq!(broker_address("1/1 brokers are down"), None);
    }
}
