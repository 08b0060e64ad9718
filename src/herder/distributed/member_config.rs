//! The group membership settings of a distributed worker on Kafka, read from its worker file:
//! `group.id`, the timeouts (`session.timeout.ms`, `heartbeat.interval.ms`,
//! `rebalance.timeout.ms`, `scheduled.rebalance.max.delay.ms`, `request.timeout.ms`,
//! `retry.backoff.ms`), `connect.protocol`, and the worker's top-level client security
//! settings (`security.protocol`, `ssl.*`, `sasl.*`), which Kafka Connect's group client
//! shares with its other clients.

use std::time::Duration;

use connect_api::ConfigMap;
use connect_membership::protocol::ConnectProtocol;
use connect_membership::security::{SaslCredentials, SaslMechanism, Security, TlsSettings};
use connect_membership::MemberConfig;
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use openssl::x509::X509;

use crate::config::WorkerConfig;
use crate::topics::kafka::security::{translate, SecurityConfigError};

/// A membership setting that cannot be used, naming its key.
#[derive(Debug, thiserror::Error)]
#[error("Invalid value for '{key}': {reason}")]
pub struct MemberConfigError {
    /// The worker key.
    pub key: String,
    /// Why.
    pub reason: String,
}

impl From<SecurityConfigError> for MemberConfigError {
    fn from(e: SecurityConfigError) -> Self {
        Self {
            key: e.key,
            reason: e.reason,
        }
    }
}

fn error(key: &str, reason: impl Into<String>) -> MemberConfigError {
    MemberConfigError {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

fn millis(worker: &WorkerConfig, key: &str, default: u64) -> Duration {
    let ms = worker
        .values()
        .long(key)
        .and_then(|v| u64::try_from(v).ok())
        .unwrap_or(default);
    Duration::from_millis(ms)
}

/// The membership of `worker` in its group, advertising `url` (this worker's REST URL).
///
/// # Errors
/// A security setting the group client cannot use, or a missing `bootstrap.servers`.
pub fn member_config(worker: &WorkerConfig, url: &str) -> Result<MemberConfig, MemberConfigError> {
    let bootstrap = worker
        .bootstrap_servers()
        .ok_or_else(|| {
            error(
                "bootstrap.servers",
                "a worker cluster needs a Kafka cluster",
            )
        })?
        .join(",");
    let group = worker.group_id().unwrap_or("connect-cluster");
    let mut config = MemberConfig::new(&bootstrap, group, url);
    // Kafka Connect's client ids: `client.id`, or `connect-<n>` when it is empty.
    config.client_id = worker
        .values()
        .string("client.id")
        .filter(|id| !id.is_empty())
        .map_or_else(|| "connect-1".to_owned(), str::to_owned);
    if let Some(protocol) = worker.values().string("connect.protocol") {
        config.protocol = ConnectProtocol::from_config(protocol).ok_or_else(|| {
            error(
                "connect.protocol",
                "expected eager, compatible or sessioned",
            )
        })?;
    }
    config.session_timeout = millis(worker, "session.timeout.ms", 10_000);
    config.heartbeat_interval = millis(worker, "heartbeat.interval.ms", 3_000);
    config.rebalance_timeout = millis(worker, "rebalance.timeout.ms", 60_000);
    config.scheduled_rebalance_max_delay = millis(worker, "scheduled.rebalance.max.delay.ms", 0);
    config.request_timeout = millis(worker, "request.timeout.ms", 40_000);
    config.retry_backoff = millis(worker, "retry.backoff.ms", 100);
    config.security = security(worker.originals())?;
    Ok(config)
}

/// The group client's TLS and SASL settings from the worker's top-level client settings, read
/// as the worker's Kafka clients read them (stores, JAAS).
///
/// # Errors
/// A setting the group client cannot use, naming its key.
pub fn security(originals: &ConfigMap) -> Result<Security, MemberConfigError> {
    let mut props: ConfigMap = originals
        .iter()
        .filter(|(k, _)| {
            (k.as_str() == "security.protocol" || k.starts_with("ssl.") || k.starts_with("sasl."))
                && k.as_str() != "ssl.client.auth"
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    translate(&mut props)?;
    let protocol = props
        .get("security.protocol")
        .map_or("plaintext", String::as_str)
        .to_owned();
    let mut security = Security::plaintext();
    if protocol.starts_with("sasl") {
        let mechanism = props.get("sasl.mechanisms").map_or("", String::as_str);
        let mechanism = SaslMechanism::from_name(mechanism)
            .map_err(|e| error("sasl.mechanism", e.to_string()))?;
        security.sasl = Some(SaslCredentials {
            mechanism,
            username: props.get("sasl.username").cloned().unwrap_or_default(),
            password: props.get("sasl.password").cloned().unwrap_or_default(),
        });
    }
    if protocol.ends_with("ssl") {
        security.tls = Some(tls(&props)?);
    }
    Ok(security)
}

fn tls(props: &ConfigMap) -> Result<TlsSettings, MemberConfigError> {
    let failed = |what: &str, e: openssl::error::ErrorStack| {
        error("ssl.truststore.location", format!("{what}: {e}"))
    };
    let mut builder =
        SslConnector::builder(SslMethod::tls_client()).map_err(|e| failed("TLS set-up", e))?;
    if let Some(pem) = props.get("ssl.ca.pem") {
        let certificates =
            X509::stack_from_pem(pem.as_bytes()).map_err(|e| failed("trusted certificates", e))?;
        let store = builder.cert_store_mut();
        for certificate in certificates {
            store
                .add_cert(certificate)
                .map_err(|e| failed("trusted certificates", e))?;
        }
    }
    if let (Some(chain), Some(key)) = (props.get("ssl.certificate.pem"), props.get("ssl.key.pem")) {
        let key_error = |e| error("ssl.keystore.location", format!("client key: {e}"));
        let certificates = X509::stack_from_pem(chain.as_bytes()).map_err(key_error)?;
        let mut certificates = certificates.into_iter();
        if let Some(leaf) = certificates.next() {
            builder.set_certificate(&leaf).map_err(key_error)?;
        }
        for extra in certificates {
            builder.add_extra_chain_cert(extra).map_err(key_error)?;
        }
        let key = openssl::pkey::PKey::private_key_from_pem(key.as_bytes()).map_err(key_error)?;
        builder.set_private_key(&key).map_err(key_error)?;
    }
    builder.set_verify(SslVerifyMode::PEER);
    let verify_hostname = props
        .get("ssl.endpoint.identification.algorithm")
        .is_none_or(|v| v != "none");
    Ok(TlsSettings {
        connector: builder.build(),
        verify_hostname,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn sasl_plain_credentials_come_from_the_jaas_text() {
        let security = security(&map(&[
            ("security.protocol", "SASL_PLAINTEXT"),
            ("sasl.mechanism", "SCRAM-SHA-512"),
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"p\";",
            ),
        ]))
        .unwrap();
        let sasl = security.sasl.unwrap();
        assert_eq!(sasl.mechanism, SaslMechanism::ScramSha512);
        assert_eq!((sasl.username.as_str(), sasl.password.as_str()), ("u", "p"));
        assert!(security.tls.is_none());
    }

    #[test]
    fn oauthbearer_is_refused_for_the_group_client_naming_the_key() {
        let e = security(&map(&[
            ("security.protocol", "SASL_PLAINTEXT"),
            ("sasl.mechanism", "OAUTHBEARER"),
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"a\";",
            ),
        ]))
        .unwrap_err();
        assert_eq!(e.key, "sasl.mechanism");
    }

    #[test]
    fn plaintext_has_neither_tls_nor_sasl() {
        let security = security(&map(&[("sasl.mechanism", "PLAIN")])).unwrap();
        assert!(security.tls.is_none() && security.sasl.is_none());
    }
}
