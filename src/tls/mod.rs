//! Keystores and truststores as Kafka's `ssl.*` keys describe them, loaded with OpenSSL:
//! PKCS12 files, PEM files and inline PEM (`ssl.keystore.certificate.chain`,
//! `ssl.keystore.key`, `ssl.truststore.certificates`). Java KeyStore (JKS/JCEKS) files are
//! recognised and refused with the `keytool` command that converts them.
//!
//! Independent of what uses the material: the REST server builds its OpenSSL acceptor from it,
//! and Kafka clients (librdkafka) take it as PEM text ([`KeyMaterial::certificate_chain_pem`],
//! [`KeyMaterial::private_key_pem`], [`certificates_pem`]).
//!
//! Every error names the key and the file; none contains a password.

mod error;
mod keystore;

use connect_api::ConfigMap;

pub use error::TlsError;
pub use keystore::{certificates_pem, load_keystore, load_truststore, KeyMaterial};

/// `ssl.keystore.type`.
pub const KEYSTORE_TYPE: &str = "ssl.keystore.type";
/// `ssl.keystore.location`.
pub const KEYSTORE_LOCATION: &str = "ssl.keystore.location";
/// `ssl.keystore.password` (PASSWORD).
pub const KEYSTORE_PASSWORD: &str = "ssl.keystore.password";
/// `ssl.key.password` (PASSWORD): the private key's own password.
pub const KEY_PASSWORD: &str = "ssl.key.password";
/// `ssl.keystore.certificate.chain`: inline PEM certificate chain (type PEM).
pub const KEYSTORE_CERTIFICATE_CHAIN: &str = "ssl.keystore.certificate.chain";
/// `ssl.keystore.key` (PASSWORD): inline PEM private key (type PEM).
pub const KEYSTORE_KEY: &str = "ssl.keystore.key";
/// `ssl.truststore.type`.
pub const TRUSTSTORE_TYPE: &str = "ssl.truststore.type";
/// `ssl.truststore.location`.
pub const TRUSTSTORE_LOCATION: &str = "ssl.truststore.location";
/// `ssl.truststore.password` (PASSWORD).
pub const TRUSTSTORE_PASSWORD: &str = "ssl.truststore.password";
/// `ssl.truststore.certificates`: inline PEM certificates (type PEM).
pub const TRUSTSTORE_CERTIFICATES: &str = "ssl.truststore.certificates";

/// Prefix of the https listeners' own TLS keys.
pub const HTTPS_PREFIX: &str = "listeners.https.";

/// The TLS keys of https listeners (prefix removed) and the prefix they were given with:
/// `listeners.https.ssl.*` when any such key is set (then only those, as Kafka's
/// all-or-nothing prefix), else the top-level `ssl.*`. The REST server's acceptor and the
/// client one worker uses to reach another read the same keys.
pub fn https_settings(worker: &crate::config::WorkerConfig) -> (ConfigMap, &'static str) {
    prefixed_https_settings(worker, HTTPS_PREFIX)
}

/// Prefix of the https admin listeners' own TLS keys (`admin.listeners`).
pub const ADMIN_HTTPS_PREFIX: &str = "admin.listeners.https.";

/// The TLS keys under `prefix` (prefix removed) when any is set, else the top-level keys, with
/// the prefix they were given with (Kafka's `valuesWithPrefixAllOrNothing`): `listeners.https.`
/// for the https listeners, `admin.listeners.https.` for the https admin listeners.
pub fn prefixed_https_settings(
    worker: &crate::config::WorkerConfig,
    prefix: &'static str,
) -> (ConfigMap, &'static str) {
    let prefixed = worker.originals_with_prefix(prefix);
    if prefixed.is_empty() {
        (worker.originals().clone(), "")
    } else {
        (prefixed, prefix)
    }
}
