//! The Java client's security settings (`security.protocol`, `sasl.*`, `ssl.*`) in librdkafka's
//! terms, so worker and connector files written for Kafka Connect reach the same clusters.
//!
//! - `sasl.jaas.config` with `PlainLoginModule` / `ScramLoginModule` becomes `sasl.username` /
//!   `sasl.password`; `OAuthBearerLoginModule` with unsecured claims becomes librdkafka's
//!   unsecured JWT. Kerberos and OAuth token endpoints are refused.
//! - Truststores and keystores (PKCS12, PEM, inline PEM) are read with [`crate::tls`] and handed
//!   to librdkafka as PEM text; JKS files are refused with the `keytool` command that converts
//!   them.
//! - A Java key librdkafka cannot honour is an error naming the key, or, when it cannot change
//!   what is sent or to whom (e.g. `ssl.keymanager.algorithm`), a warning.
//!
//! No error or log line here contains a secret (passwords, JAAS text, key material).

use connect_api::ConfigMap;
use tracing::warn;

use crate::jaas;
use crate::tls::{self, TlsError};

/// A security setting librdkafka cannot be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid value for '{key}': {reason}")]
pub struct SecurityConfigError {
    /// The Java client key.
    pub key: String,
    /// Why, without the value when it is secret.
    pub reason: String,
}

fn error(key: &str, reason: impl Into<String>) -> SecurityConfigError {
    SecurityConfigError {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

/// Java keys librdkafka has no counterpart for that cannot change the data or its
/// destination; dropped with a warning.
const IGNORED_WITH_WARNING: &[(&str, &str)] = &[
    (
        "ssl.protocol",
        "OpenSSL negotiates the highest TLS version both sides support",
    ),
    (
        "ssl.enabled.protocols",
        "OpenSSL negotiates the highest TLS version both sides support",
    ),
    ("ssl.keymanager.algorithm", "keys are read by OpenSSL"),
    (
        "ssl.trustmanager.algorithm",
        "certificates are verified by OpenSSL",
    ),
    (
        "ssl.secure.random.implementation",
        "OpenSSL's random generator is used",
    ),
    (
        "sasl.login.refresh.window.factor",
        "librdkafka refreshes tokens itself",
    ),
    (
        "sasl.login.refresh.window.jitter",
        "librdkafka refreshes tokens itself",
    ),
    (
        "sasl.login.refresh.min.period.seconds",
        "librdkafka refreshes tokens itself",
    ),
    (
        "sasl.login.refresh.buffer.seconds",
        "librdkafka refreshes tokens itself",
    ),
    (
        "sasl.login.connect.timeout.ms",
        "not configurable in librdkafka",
    ),
    (
        "sasl.login.read.timeout.ms",
        "not configurable in librdkafka",
    ),
    (
        "sasl.login.retry.backoff.ms",
        "not configurable in librdkafka",
    ),
    (
        "sasl.login.retry.backoff.max.ms",
        "not configurable in librdkafka",
    ),
];

/// Java keys that change how the client authenticates and that librdkafka cannot honour.
const REFUSED: &[(&str, &str)] = &[
    ("ssl.cipher.suites", "Java cipher suite names differ from OpenSSL's; remove the key (OpenSSL's defaults are used) or set librdkafka's names with a connect-rs build that supports it"),
    ("ssl.engine.factory.class", "Java SSL engine factories cannot run in connect-rs"),
    ("ssl.provider", "Java security providers cannot run in connect-rs"),
    ("security.providers", "Java security providers cannot run in connect-rs"),
    ("sasl.client.callback.handler.class", "Java callback handlers cannot run in connect-rs"),
    ("sasl.login.class", "Java login classes cannot run in connect-rs"),
    ("sasl.login.callback.handler.class", "Java callback handlers cannot run in connect-rs (OAuth token endpoints are not supported)"),
    ("sasl.oauthbearer.token.endpoint.url", "OAuth token endpoints (OIDC) are not supported by connect-rs's librdkafka build"),
];

/// Rewrites the security settings of `config` (a merged Java client configuration) in
/// librdkafka's terms, in place.
///
/// # Errors
/// The first setting librdkafka cannot be given, naming its key.
pub fn translate(config: &mut ConfigMap) -> Result<(), SecurityConfigError> {
    for (key, reason) in REFUSED {
        if config.get(*key).is_some_and(|v| !v.trim().is_empty()) {
            return Err(error(key, *reason));
        }
        config.remove(*key);
    }
    for (key, why) in IGNORED_WITH_WARNING {
        if config.remove(*key).is_some() {
            warn!(key = %key, "Ignoring a Java client setting librdkafka does not have: {why}.");
        }
    }
    protocol(config)?;
    sasl(config)?;
    endpoint_identification(config)?;
    stores(config)?;
    Ok(())
}

fn protocol(config: &mut ConfigMap) -> Result<(), SecurityConfigError> {
    if let Some(p) = config.get("security.protocol") {
        let lower = p.trim().to_ascii_lowercase();
        if !["plaintext", "ssl", "sasl_plaintext", "sasl_ssl"].contains(&lower.as_str()) {
            return Err(error(
                "security.protocol",
                format!("'{p}' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"),
            ));
        }
        config.insert("security.protocol".to_owned(), lower);
    }
    Ok(())
}

fn uses_sasl(config: &ConfigMap) -> bool {
    config
        .get("security.protocol")
        .is_some_and(|p| p.starts_with("sasl"))
}

fn sasl(config: &mut ConfigMap) -> Result<(), SecurityConfigError> {
    let mechanism = config
        .remove("sasl.mechanism")
        .or_else(|| config.remove("sasl.mechanisms"))
        .map(|m| m.trim().to_owned())
        // Java's default.
        .unwrap_or_else(|| "GSSAPI".to_owned());
    let jaas_text = config.remove("sasl.jaas.config");
    let kerberos: Vec<String> = config
        .keys()
        .filter(|k| k.starts_with("sasl.kerberos."))
        .cloned()
        .collect();
    if !uses_sasl(config) {
        // Java ignores SASL settings without a SASL protocol; so does librdkafka's build here.
        for k in kerberos {
            config.remove(&k);
        }
        return Ok(());
    }
    match mechanism.as_str() {
        "GSSAPI" => {
            return Err(error(
                "sasl.mechanism",
                "GSSAPI (Kerberos) is not supported by connect-rs; use PLAIN, SCRAM-SHA-256, \
                 SCRAM-SHA-512 or OAUTHBEARER (GSSAPI is Kafka's default when sasl.mechanism \
                 is not set)",
            ))
        }
        "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512" | "OAUTHBEARER" => {}
        other => {
            return Err(error(
                "sasl.mechanism",
                format!("'{other}' is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER"),
            ))
        }
    }
    if let Some(k) = kerberos.first() {
        return Err(error(
            k,
            "Kerberos settings need sasl.mechanism=GSSAPI, which connect-rs does not support",
        ));
    }
    config.insert("sasl.mechanisms".to_owned(), mechanism.clone());
    let Some(text) = jaas_text else {
        return Err(error(
            "sasl.jaas.config",
            format!("SASL mechanism {mechanism} needs a JAAS login module here (connect-rs reads no JAAS file from java.security.auth.login.config)"),
        ));
    };
    let mut modules = jaas::parse_modules(&text).map_err(|e| error("sasl.jaas.config", e))?;
    if modules.len() != 1 {
        // As Kafka: a client's JAAS configuration holds exactly one login module.
        return Err(error(
            "sasl.jaas.config",
            format!(
                "the JAAS configuration must contain exactly one login module, found {}",
                modules.len()
            ),
        ));
    }
    let module = modules.remove(0);
    let simple = module.class.rsplit('.').next().unwrap_or_default();
    let option = |name: &str| -> Result<String, SecurityConfigError> {
        module.options.get(name).cloned().ok_or_else(|| {
            error(
                "sasl.jaas.config",
                format!("{} needs the option '{name}'", module.class),
            )
        })
    };
    match (simple, mechanism.as_str()) {
        ("PlainLoginModule", "PLAIN") | ("ScramLoginModule", "SCRAM-SHA-256" | "SCRAM-SHA-512") => {
            if module
                .options
                .get("tokenauth")
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
            {
                return Err(error(
                    "sasl.jaas.config",
                    "delegation tokens (tokenauth=true) are not supported by connect-rs",
                ));
            }
            config.insert("sasl.username".to_owned(), option("username")?);
            config.insert("sasl.password".to_owned(), option("password")?);
        }
        ("OAuthBearerLoginModule", "OAUTHBEARER") => {
            let sub = module
                .options
                .get("unsecuredLoginStringClaim_sub")
                .ok_or_else(|| {
                    error(
                        "sasl.jaas.config",
                        "OAuthBearerLoginModule is supported with unsecured tokens \
                     (unsecuredLoginStringClaim_sub=...) only; OAuth token endpoints (OIDC) are \
                     not supported by connect-rs's librdkafka build",
                    )
                })?;
            let mut parts = vec![format!("principal={sub}")];
            if let Some(claim) = module.options.get("unsecuredLoginPrincipalClaimName") {
                parts.push(format!("principalClaimName={claim}"));
            }
            if let Some(life) = module.options.get("unsecuredLoginLifetimeSeconds") {
                parts.push(format!("lifeSeconds={life}"));
            }
            if let Some(scope) = module.options.get("unsecuredLoginListClaim_scope") {
                parts.push(format!("scope={scope}"));
            }
            config.insert(
                "enable.sasl.oauthbearer.unsecure.jwt".to_owned(),
                "true".to_owned(),
            );
            config.insert("sasl.oauthbearer.config".to_owned(), parts.join(" "));
        }
        _ => {
            return Err(error(
                "sasl.jaas.config",
                format!(
                    "login module {} does not fit sasl.mechanism={mechanism} (expected \
                     PlainLoginModule for PLAIN, ScramLoginModule for SCRAM-SHA-256/512, \
                     OAuthBearerLoginModule for OAUTHBEARER)",
                    module.class
                ),
            ))
        }
    }
    Ok(())
}

fn endpoint_identification(config: &mut ConfigMap) -> Result<(), SecurityConfigError> {
    let key = "ssl.endpoint.identification.algorithm";
    if let Some(v) = config.get(key) {
        let translated = match v.trim().to_ascii_lowercase().as_str() {
            "" | "none" => "none",
            "https" => "https",
            other => {
                return Err(error(
                    key,
                    format!("'{other}' is not supported; use 'https' (verify the host name) or an empty value"),
                ))
            }
        };
        config.insert(key.to_owned(), translated.to_owned());
    }
    Ok(())
}

fn store_error(e: &TlsError) -> SecurityConfigError {
    let key = match e {
        TlsError::Read { key, .. }
        | TlsError::JavaKeyStore { key, .. }
        | TlsError::Pkcs12 { key, .. }
        | TlsError::Invalid { key, .. } => key.clone(),
    };
    error(&key, e.to_string())
}

/// Reads the truststore and keystore (`ssl.truststore.*`, `ssl.keystore.*`,
/// `ssl.key.password`) into the PEM text librdkafka takes (`ssl.ca.pem`,
/// `ssl.certificate.pem`, `ssl.key.pem`); the key stays in memory.
fn stores(config: &mut ConfigMap) -> Result<(), SecurityConfigError> {
    let store_keys: Vec<String> = config
        .keys()
        .filter(|k| {
            k.starts_with("ssl.truststore.")
                || k.starts_with("ssl.keystore.")
                || k.as_str() == "ssl.key.password"
        })
        .cloned()
        .collect();
    let ssl: ConfigMap = store_keys
        .iter()
        .filter_map(|k| config.remove(k).map(|v| (k.clone(), v)))
        .collect();
    if let Some(certificates) = tls::load_truststore(&ssl, "").map_err(|e| store_error(&e))? {
        let pem = tls::certificates_pem(&certificates).map_err(|e| store_error(&e))?;
        config.insert("ssl.ca.pem".to_owned(), pem);
    }
    if let Some(material) = tls::load_keystore(&ssl, "").map_err(|e| store_error(&e))? {
        let key = material.private_key_pem().map_err(|e| store_error(&e))?;
        let chain = material
            .certificate_chain_pem()
            .map_err(|e| store_error(&e))?;
        config.insert("ssl.key.pem".to_owned(), key);
        config.insert("ssl.certificate.pem".to_owned(), chain);
    }
    Ok(())
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
    fn plain_and_scram_jaas_become_username_and_password() {
        for (module, mechanism) in [
            (
                "org.apache.kafka.common.security.plain.PlainLoginModule",
                "PLAIN",
            ),
            (
                "org.apache.kafka.common.security.scram.ScramLoginModule",
                "SCRAM-SHA-512",
            ),
            (
                "org.apache.kafka.common.security.scram.ScramLoginModule",
                "SCRAM-SHA-256",
            ),
        ] {
            let mut c = map(&[
                ("security.protocol", "SASL_PLAINTEXT"),
                ("sasl.mechanism", mechanism),
                (
                    "sasl.jaas.config",
                    &format!("{module} required username=\"alice\" password=\"alice-secret\";"),
                ),
            ]);
            translate(&mut c).unwrap();
            assert_eq!(
                c,
                map(&[
                    ("security.protocol", "sasl_plaintext"),
                    ("sasl.mechanisms", mechanism),
                    ("sasl.username", "alice"),
                    ("sasl.password", "alice-secret"),
                ])
            );
        }
    }

    #[test]
    fn unsecured_oauthbearer_becomes_librdkafkas_unsecure_jwt() {
        let mut c = map(&[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "OAUTHBEARER"),
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"alice\";",
            ),
        ]);
        translate(&mut c).unwrap();
        assert_eq!(c["enable.sasl.oauthbearer.unsecure.jwt"], "true");
        assert_eq!(c["sasl.oauthbearer.config"], "principal=alice");
    }

    #[test]
    fn refusals_name_the_key_and_never_the_secret() {
        let secret = "alice-secret";
        let jaas =
            |module: &str| format!("{module} required username=\"alice\" password=\"{secret}\";");
        let cases: Vec<(ConfigMap, &str)> = vec![
            (map(&[("security.protocol", "SASL_SSL"), ("sasl.jaas.config", &jaas("org.apache.kafka.common.security.plain.PlainLoginModule"))]), "sasl.mechanism"),
            (map(&[("security.protocol", "SASL_SSL"), ("sasl.mechanism", "PLAIN"), ("sasl.jaas.config", &jaas("com.example.Custom"))]), "sasl.jaas.config"),
            (map(&[("security.protocol", "SASL_SSL"), ("sasl.mechanism", "PLAIN"), ("sasl.jaas.config", &format!("x required password=\"{secret}"))]), "sasl.jaas.config"),
            (map(&[("security.protocol", "SASL_SSL"), ("sasl.mechanism", "SCRAM-SHA-512")]), "sasl.jaas.config"),
            (map(&[("security.protocol", "SASL_SSL"), ("sasl.mechanism", "PLAIN"), ("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=alice;")]), "sasl.jaas.config"),
            (map(&[("security.protocol", "TLS")]), "security.protocol"),
            (map(&[("ssl.cipher.suites", "TLS_AES_128_GCM_SHA256")]), "ssl.cipher.suites"),
            (map(&[("ssl.endpoint.identification.algorithm", "ldap")]), "ssl.endpoint.identification.algorithm"),
        ];
        for (mut c, key) in cases {
            let e = translate(&mut c).unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(!e.to_string().contains(secret), "{e}");
        }
    }

    #[test]
    fn harmless_java_keys_are_dropped_and_sasl_keys_ignored_without_sasl() {
        let mut c = map(&[
            ("security.protocol", "SSL"),
            ("ssl.protocol", "TLSv1.3"),
            ("ssl.enabled.protocols", "TLSv1.2,TLSv1.3"),
            ("ssl.endpoint.identification.algorithm", ""),
            ("sasl.mechanism", "PLAIN"),
        ]);
        translate(&mut c).unwrap();
        assert_eq!(
            c,
            map(&[
                ("security.protocol", "ssl"),
                ("ssl.endpoint.identification.algorithm", "none"),
            ])
        );
    }
}
