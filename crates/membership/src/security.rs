//! How a connection to a broker is secured: `security.protocol` (PLAINTEXT, SSL,
//! SASL_PLAINTEXT, SASL_SSL), the TLS connector, and the SASL mechanism and credentials.

use std::fmt;

use openssl::ssl::SslConnector;

use crate::error::MembershipError;

/// A SASL mechanism this client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaslMechanism {
    /// `PLAIN` (RFC 4616).
    Plain,
    /// `SCRAM-SHA-256` (RFC 5802/7677).
    ScramSha256,
    /// `SCRAM-SHA-512`.
    ScramSha512,
    /// `OAUTHBEARER` (RFC 7628) with an unsecured token ([`UnsecuredJwt`]).
    OauthBearer,
}

impl SaslMechanism {
    /// The mechanism name in SaslHandshake (`sasl.mechanism`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Plain => "PLAIN",
            Self::ScramSha256 => "SCRAM-SHA-256",
            Self::ScramSha512 => "SCRAM-SHA-512",
            Self::OauthBearer => "OAUTHBEARER",
        }
    }

    /// The mechanism of a `sasl.mechanism` value.
    pub fn from_name(name: &str) -> Result<Self, MembershipError> {
        match name.trim().to_ascii_uppercase().as_str() {
            "PLAIN" => Ok(Self::Plain),
            "SCRAM-SHA-256" => Ok(Self::ScramSha256),
            "SCRAM-SHA-512" => Ok(Self::ScramSha512),
            "OAUTHBEARER" => Ok(Self::OauthBearer),
            other => Err(MembershipError::Config(format!(
                "sasl.mechanism {other} is not supported by the worker group client \
                 (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)"
            ))),
        }
    }
}

/// SASL credentials. The password never appears in `Debug` output or errors.
#[derive(Clone)]
pub struct SaslCredentials {
    /// The mechanism.
    pub mechanism: SaslMechanism,
    /// The user name.
    pub username: String,
    /// The password.
    pub password: String,
    /// OAUTHBEARER: the claims of the unsecured token made for each login (`username` is the
    /// principal).
    pub unsecured_jwt: Option<UnsecuredJwt>,
}

/// The claims of an unsecured OAUTHBEARER token (Kafka's `OAuthBearerLoginModule` with
/// `unsecuredLoginStringClaim_sub`, librdkafka's `enable.sasl.oauthbearer.unsecure.jwt`): for
/// development and test clusters, which accept tokens signed by no one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsecuredJwt {
    /// The claim that names the principal (`unsecuredLoginPrincipalClaimName`, `sub`).
    pub principal_claim: String,
    /// How long a token is valid (`unsecuredLoginLifetimeSeconds`, 3600).
    pub lifetime_seconds: u64,
    /// The `scope` claim (`unsecuredLoginListClaim_scope`), when given.
    pub scope: Vec<String>,
}

impl Default for UnsecuredJwt {
    fn default() -> Self {
        Self {
            principal_claim: "sub".to_owned(),
            lifetime_seconds: 3600,
            scope: Vec::new(),
        }
    }
}

impl fmt::Debug for SaslCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslCredentials")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"[hidden]")
            .finish()
    }
}

/// TLS to the broker: an OpenSSL connector (trust store, optional client key and certificate,
/// built by the caller from `ssl.*` settings) and whether the broker's host name is verified
/// (`ssl.endpoint.identification.algorithm=https`, the default).
#[derive(Clone)]
pub struct TlsSettings {
    /// The connector.
    pub connector: SslConnector,
    /// Verify the broker's host name against its certificate.
    pub verify_hostname: bool,
}

impl fmt::Debug for TlsSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsSettings")
            .field("verify_hostname", &self.verify_hostname)
            .finish_non_exhaustive()
    }
}

/// The security of every connection of a member (`security.protocol` and its settings).
#[derive(Debug, Clone, Default)]
pub struct Security {
    /// TLS, for SSL and SASL_SSL.
    pub tls: Option<TlsSettings>,
    /// SASL, for SASL_PLAINTEXT and SASL_SSL.
    pub sasl: Option<SaslCredentials>,
}

impl Security {
    /// PLAINTEXT.
    pub fn plaintext() -> Self {
        Self::default()
    }

    /// The `security.protocol` name this corresponds to.
    pub fn protocol_name(&self) -> &'static str {
        match (self.tls.is_some(), self.sasl.is_some()) {
            (false, false) => "PLAINTEXT",
            (true, false) => "SSL",
            (false, true) => "SASL_PLAINTEXT",
            (true, true) => "SASL_SSL",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_stays_out_of_debug_output() {
        let creds = SaslCredentials {
            mechanism: SaslMechanism::Plain,
            username: "alice".into(),
            password: "s3cret-pw".into(),
            unsecured_jwt: None,
        };
        let shown = format!(
            "{:?}",
            Security {
                tls: None,
                sasl: Some(creds)
            }
        );
        assert!(
            shown.contains("alice") && !shown.contains("s3cret-pw"),
            "{shown}"
        );
    }

    #[test]
    fn mechanisms_by_name() {
        assert_eq!(
            SaslMechanism::from_name("scram-sha-512").unwrap(),
            SaslMechanism::ScramSha512
        );
        assert!(SaslMechanism::from_name("GSSAPI")
            .unwrap_err()
            .to_string()
            .contains("GSSAPI"));
        assert_eq!(Security::plaintext().protocol_name(), "PLAINTEXT");
    }
}
