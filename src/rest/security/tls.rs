//! The OpenSSL acceptor of `https://` listeners, from `listeners.https.ssl.*` (admin listeners:
//! `admin.listeners.https.ssl.*`) when any such key is set (then only those, as Kafka's all-or-nothing prefix) else the top-level `ssl.*`:
//! the keystore, the truststore for client certificates (else the system's CAs) and
//! `ssl.client.auth` (`none`, `requested`, `required`). TLS 1.2 and 1.3, as Kafka's default
//! `ssl.enabled.protocols` (which may narrow them to one).

use openssl::ssl::{SslAcceptor, SslMethod, SslVerifyMode, SslVersion};
use openssl::x509::store::X509StoreBuilder;

use super::SetupError;
use crate::config::WorkerConfig;

pub use crate::tls::{https_settings, HTTPS_PREFIX};

/// The acceptor for https listeners of `worker`.
///
/// # Errors
/// No keystore, an unusable keystore or truststore, or an unknown `ssl.client.auth`.
pub fn acceptor(worker: &WorkerConfig) -> Result<SslAcceptor, SetupError> {
    acceptor_from(https_settings(worker))
}

/// The acceptor for https admin listeners of `worker`: `admin.listeners.https.ssl.*` when any
/// such key is set (then only those), else the top-level `ssl.*`, as Kafka Connect.
///
/// # Errors
/// As [`acceptor`].
pub fn admin_acceptor(worker: &WorkerConfig) -> Result<SslAcceptor, SetupError> {
    acceptor_from(crate::tls::prefixed_https_settings(
        worker,
        crate::tls::ADMIN_HTTPS_PREFIX,
    ))
}

fn acceptor_from(
    (ssl, prefix): (connect_api::ConfigMap, &'static str),
) -> Result<SslAcceptor, SetupError> {
    let key = |k: &str| format!("{prefix}{k}");
    let material = crate::tls::load_keystore(&ssl, prefix)?.ok_or_else(|| {
        SetupError::invalid(
            key(crate::tls::KEYSTORE_LOCATION),
            format!(
                "an https listener needs a keystore: set {} (PKCS12 or PEM) or {} and {}",
                key(crate::tls::KEYSTORE_LOCATION),
                key(crate::tls::KEYSTORE_CERTIFICATE_CHAIN),
                key(crate::tls::KEYSTORE_KEY)
            ),
        )
    })?;
    let client_auth_key = key("ssl.client.auth");
    let client_auth = ssl
        .get("ssl.client.auth")
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_else(|| "none".to_owned());
    let mode = match client_auth.as_str() {
        "none" => SslVerifyMode::NONE,
        "requested" => SslVerifyMode::PEER,
        "required" => SslVerifyMode::PEER | SslVerifyMode::FAIL_IF_NO_PEER_CERT,
        other => {
            return Err(SetupError::invalid(
                client_auth_key,
                format!("'{other}' is not one of none, requested, required"),
            ))
        }
    };
    let openssl_error = |what: &str, e: openssl::error::ErrorStack| {
        SetupError::invalid(key(crate::tls::KEYSTORE_LOCATION), format!("{what}: {e}"))
    };
    let mut builder = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server())
        .map_err(|e| openssl_error("cannot create the TLS context", e))?;
    builder
        .set_private_key(&material.key)
        .and_then(|()| builder.set_certificate(&material.certificate))
        .map_err(|e| openssl_error("the key or certificate is not usable", e))?;
    for cert in &material.chain {
        builder
            .add_extra_chain_cert(cert.clone())
            .map_err(|e| openssl_error("a chain certificate is not usable", e))?;
    }
    builder
        .check_private_key()
        .map_err(|e| openssl_error("the private key does not match the certificate", e))?;
    match crate::tls::load_truststore(&ssl, prefix)? {
        Some(certs) => {
            let trust_error = |e: openssl::error::ErrorStack| {
                SetupError::invalid(
                    key(crate::tls::TRUSTSTORE_LOCATION),
                    format!("a certificate is not usable: {e}"),
                )
            };
            let mut store = X509StoreBuilder::new().map_err(trust_error)?;
            for cert in &certs {
                store.add_cert(cert.clone()).map_err(trust_error)?;
                builder.add_client_ca(cert).map_err(trust_error)?;
            }
            builder.set_cert_store(store.build());
        }
        None => builder
            .set_default_verify_paths()
            .map_err(|e| openssl_error("cannot load the system's CA certificates", e))?,
    }
    if let Some(protocols) = ssl.get("ssl.enabled.protocols") {
        let (min, max) = protocol_range(protocols, &key("ssl.enabled.protocols"))?;
        builder
            .set_min_proto_version(Some(min))
            .and_then(|()| builder.set_max_proto_version(Some(max)))
            .map_err(|e| openssl_error("cannot set the TLS versions", e))?;
    }
    builder.set_verify(mode);
    // Needed for session resumption when client certificates are verified.
    builder
        .set_session_id_context(b"connect-rs-rest")
        .map_err(|e| openssl_error("cannot set the session context", e))?;
    Ok(builder.build())
}

/// The lowest and highest TLS version of `ssl.enabled.protocols` (`TLSv1.2`, `TLSv1.3`).
fn protocol_range(protocols: &str, key: &str) -> Result<(SslVersion, SslVersion), SetupError> {
    let mut versions = Vec::new();
    for p in protocols
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        versions.push(match p {
            "TLSv1.2" => (2, SslVersion::TLS1_2),
            "TLSv1.3" => (3, SslVersion::TLS1_3),
            other => {
                tracing::warn!(
                    key,
                    protocol = other,
                    "The REST server offers only TLSv1.2 and TLSv1.3; this protocol is not offered."
                );
                continue;
            }
        });
    }
    let min = versions.iter().min_by_key(|v| v.0);
    let max = versions.iter().max_by_key(|v| v.0);
    match (min, max) {
        (Some(min), Some(max)) => Ok((min.1, max.1)),
        _ => Err(SetupError::invalid(
            key,
            format!("'{protocols}' lists neither TLSv1.2 nor TLSv1.3, the versions the REST server offers"),
        )),
    }
}
