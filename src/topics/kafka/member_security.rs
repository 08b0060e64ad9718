//! The TLS and SASL settings of connect-rs's own Kafka protocol clients (the distributed
//! worker group, the sink tasks' consumer group members) from Java client settings, read as the
//! librdkafka clients read them (stores, JAAS: [`translate`]).

use connect_api::ConfigMap;
use connect_membership::security::{
    SaslCredentials, SaslMechanism, Security, TlsSettings, UnsecuredJwt,
};
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use openssl::x509::X509;

use super::security::{translate, SecurityConfigError};

fn error(key: &str, reason: impl Into<String>) -> SecurityConfigError {
    SecurityConfigError {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

/// The TLS and SASL settings of `originals`' client security keys (`security.protocol`,
/// `ssl.*`, `sasl.*`; the REST server's `ssl.client.auth` is not one).
///
/// # Errors
/// A setting the group client cannot use, naming its key.
pub fn security(originals: &ConfigMap) -> Result<Security, SecurityConfigError> {
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
        let mut credentials = SaslCredentials {
            mechanism,
            username: props.get("sasl.username").cloned().unwrap_or_default(),
            password: props.get("sasl.password").cloned().unwrap_or_default(),
            unsecured_jwt: None,
        };
        if mechanism == SaslMechanism::OauthBearer {
            // `translate` made librdkafka's unsecured-token settings of the JAAS options.
            let mut claims = UnsecuredJwt::default();
            for part in props
                .get("sasl.oauthbearer.config")
                .map_or("", String::as_str)
                .split_whitespace()
            {
                match part.split_once('=') {
                    Some(("principal", v)) => credentials.username = v.to_owned(),
                    Some(("principalClaimName", v)) => claims.principal_claim = v.to_owned(),
                    Some(("lifeSeconds", v)) => {
                        claims.lifetime_seconds = v.parse().map_err(|_| {
                            error(
                                "sasl.jaas.config",
                                "unsecuredLoginLifetimeSeconds is not a number",
                            )
                        })?;
                    }
                    Some(("scope", v)) => {
                        claims.scope = v.split(',').map(str::to_owned).collect();
                    }
                    _ => {}
                }
            }
            credentials.unsecured_jwt = Some(claims);
        }
        security.sasl = Some(credentials);
    }
    if protocol.ends_with("ssl") {
        security.tls = Some(tls(&props)?);
    }
    Ok(security)
}

fn tls(props: &ConfigMap) -> Result<TlsSettings, SecurityConfigError> {
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
    fn unsecured_oauthbearer_logins_carry_the_jaas_claims() {
        let security = security(&map(&[
            ("security.protocol", "SASL_PLAINTEXT"),
            ("sasl.mechanism", "OAUTHBEARER"),
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"a\" unsecuredLoginLifetimeSeconds=\"60\";",
            ),
        ]))
        .unwrap();
        let sasl = security.sasl.unwrap();
        assert_eq!(
            (sasl.mechanism, sasl.username.as_str()),
            (SaslMechanism::OauthBearer, "a")
        );
        let claims = sasl.unsecured_jwt.unwrap();
        assert_eq!(
            (claims.principal_claim.as_str(), claims.lifetime_seconds),
            ("sub", 60)
        );
    }

    #[test]
    fn plaintext_has_neither_tls_nor_sasl() {
        let security = security(&map(&[("sasl.mechanism", "PLAIN")])).unwrap();
        assert!(security.tls.is_none() && security.sasl.is_none());
    }
}
