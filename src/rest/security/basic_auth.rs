//! HTTP basic authentication as Kafka's `BasicAuthSecurityRestExtension` with its
//! `PropertyFileLoginModule`: the `KafkaConnect` section of the JAAS file names a Java
//! properties file of `user=password` lines; a request without matching credentials gets 401
//! `User cannot access the resource.` Kafka's internal requests (`POST /connectors/{c}/tasks`,
//! `PUT /connectors/{c}/fence`) pass without credentials, as in Kafka. An empty credentials
//! file lets every request through (with a warning), as in Kafka.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use tracing::{debug, trace, warn};

use super::SetupError;
use crate::jaas;

/// The REST extension's class name.
pub const EXTENSION_CLASS: &str =
    "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension";
/// The login module connect-rs implements.
pub const LOGIN_MODULE_CLASS: &str =
    "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule";
/// The JAAS section the extension reads.
const SECTION: &str = "KafkaConnect";
/// Kafka's 401 body.
const UNAUTHORIZED_BODY: &str = "User cannot access the resource.";
/// The challenge sent with a 401.
const CHALLENGE: &str = "Basic realm=\"Kafka Connect\"";

/// Users and their passwords, from the credentials file.
pub struct BasicAuth {
    /// user → SHA-256 of the password (compared in constant time).
    users: HashMap<String, [u8; 32]>,
}

impl std::fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicAuth")
            .field("users", &self.users.len())
            .finish()
    }
}

impl BasicAuth {
    /// Reads the JAAS file `jaas_path` (from `-Djava.security.auth.login.config=` in
    /// `KAFKA_OPTS`) and the credentials file its `KafkaConnect` section names.
    ///
    /// # Errors
    /// No JAAS file given, an unreadable or malformed one, no `KafkaConnect` section, a login
    /// module other than `PropertyFileLoginModule`, or an unreadable credentials file.
    pub fn load(jaas_path: Option<&str>) -> Result<Self, SetupError> {
        let key = "rest.extension.classes";
        let Some(path) = jaas_path else {
            return Err(SetupError::invalid(
                key,
                format!(
                    "{EXTENSION_CLASS} needs a JAAS file with a {SECTION} section: set \
                     KAFKA_OPTS=\"-Djava.security.auth.login.config=/path/to/jaas.conf\""
                ),
            ));
        };
        let what = format!("JAAS file {path} (java.security.auth.login.config)");
        let text = std::fs::read_to_string(path)
            .map_err(|e| SetupError::invalid(key, format!("Could not read the {what}: {e}")))?;
        let sections = jaas::parse(&text)
            .map_err(|e| SetupError::invalid(key, format!("Invalid {what}: {e}")))?;
        let Some(section) = sections.into_iter().find(|s| s.name == SECTION) else {
            return Err(SetupError::invalid(
                key,
                format!("The {what} has no {SECTION} section"),
            ));
        };
        let [entry] = section.entries.as_slice() else {
            return Err(SetupError::invalid(
                key,
                format!(
                    "The {SECTION} section of the {what} must hold exactly one login module \
                     ({LOGIN_MODULE_CLASS}); it holds {}",
                    section.entries.len()
                ),
            ));
        };
        if entry.class != LOGIN_MODULE_CLASS {
            return Err(SetupError::invalid(
                key,
                format!(
                    "The {SECTION} section of the {what} uses the login module {}; connect-rs \
                     implements only {LOGIN_MODULE_CLASS}",
                    entry.class
                ),
            ));
        }
        let file = entry
            .options
            .get("file")
            .map(|f| f.trim())
            .filter(|f| !f.is_empty())
            .ok_or_else(|| {
                SetupError::invalid(
                    key,
                    format!(
                        "Property Credentials file must be specified (option file=\"...\" of \
                         {LOGIN_MODULE_CLASS} in the {what})"
                    ),
                )
            })?;
        trace!(file, "Opening credential properties file");
        let reader = std::fs::File::open(file).map_err(|e| {
            SetupError::invalid(
                key,
                format!("Error loading Property Credentials file {file}: {e}"),
            )
        })?;
        // Only the file name is ever reported: the content is all secrets.
        let credentials = java_properties::read(std::io::BufReader::new(reader)).map_err(|_| {
            SetupError::invalid(
                key,
                format!("Error loading Property Credentials file {file}: not a properties file"),
            )
        })?;
        if credentials.is_empty() {
            warn!(
                file,
                "Credential properties file is empty; all requests will be permitted"
            );
        }
        Ok(Self::from_credentials(credentials))
    }

    /// Users from `user → password` pairs.
    pub fn from_credentials(credentials: HashMap<String, String>) -> Self {
        Self {
            users: credentials
                .into_iter()
                .map(|(user, password)| (user, openssl::sha::sha256(password.as_bytes())))
                .collect(),
        }
    }

    /// Whether an `Authorization` header value (or its absence) is accepted.
    pub fn accepts(&self, authorization: Option<&[u8]>) -> bool {
        if self.users.is_empty() {
            return true;
        }
        let Some((user, password)) = authorization.and_then(credentials) else {
            trace!("No credentials, or malformed ones, were provided with the request");
            return false;
        };
        let given = openssl::sha::sha256(password.as_bytes());
        // Unknown users are compared too, so the time says nothing about which users exist.
        let (stored, known) = match self.users.get(&user) {
            Some(stored) => (*stored, true),
            None => ([0u8; 32], false),
        };
        let matches = openssl::memcmp::eq(&given, &stored) && known;
        if !matches {
            // Kafka's login module says at TRACE whether the user exists; connect-rs logs
            // the same line for an unknown user and a wrong password, so that a log reader
            // cannot learn the user names from failed logins.
            trace!(user = %user, "Credentials do not match");
        }
        matches
    }
}

/// `user` and `password` of a `Basic` header value, as Kafka splits it (first space, first
/// colon; an empty user is malformed).
fn credentials(header: &[u8]) -> Option<(String, String)> {
    let header = std::str::from_utf8(header).ok()?;
    let space = header.find(' ').filter(|&i| i > 0)?;
    let (scheme, encoded) = header.split_at(space);
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded[1..].trim())
        .ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let colon = decoded.find(':').filter(|&i| i > 0)?;
    Some((decoded[..colon].to_owned(), decoded[colon + 1..].to_owned()))
}

/// Kafka's internal requests, which its filter lets through without credentials.
fn is_internal_request(method: &Method, path: &str) -> bool {
    let path = path.strip_prefix('/').unwrap_or(path);
    let path = path.strip_suffix('/').unwrap_or(path);
    let Some(rest) = path.strip_prefix("connectors/") else {
        return false;
    };
    let Some((name, tail)) = rest.split_once('/') else {
        return false;
    };
    !name.is_empty()
        && ((method == Method::POST && tail == "tasks")
            || (method == Method::PUT && tail == "fence"))
}

/// The middleware: 401 unless the request carries accepted credentials or is internal.
pub async fn authenticate(
    State(auth): State<Arc<BasicAuth>>,
    req: Request,
    next: Next,
) -> Response {
    if is_internal_request(req.method(), req.uri().path()) {
        trace!("Skipping authentication for internal request");
        return next.run(req).await;
    }
    let header = req
        .headers()
        .get(header::AUTHORIZATION)
        .map(axum::http::HeaderValue::as_bytes);
    if auth.accepts(header) {
        return next.run(req).await;
    }
    debug!(method = %req.method(), path = %req.uri().path(), "Request failed authentication");
    (
        StatusCode::UNAUTHORIZED,
        [
            (header::WWW_AUTHENTICATE, CHALLENGE),
            (header::CONTENT_TYPE, "text/plain"),
        ],
        UNAUTHORIZED_BODY,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(user_pass: &str) -> Vec<u8> {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(user_pass)
        )
        .into_bytes()
    }

    #[test]
    fn accepts_only_matching_credentials() {
        let auth = BasicAuth::from_credentials(HashMap::from([
            ("alice".to_owned(), "s3cret:with:colons".to_owned()),
            ("bob".to_owned(), String::new()),
        ]));
        assert!(auth.accepts(Some(&basic("alice:s3cret:with:colons"))));
        assert!(auth.accepts(Some(&basic("bob:"))));
        assert!(!auth.accepts(Some(&basic("alice:wrong"))));
        assert!(!auth.accepts(Some(&basic("carol:s3cret:with:colons"))));
        assert!(!auth.accepts(Some(&basic(":s3cret"))));
        assert!(!auth.accepts(Some(&basic("alice"))));
        assert!(!auth.accepts(None));
        assert!(!auth.accepts(Some(b"Bearer abc")));
        assert!(!auth.accepts(Some(b"Basic !!!not-base64")));
        let lower = basic("alice:s3cret:with:colons");
        let lower = [b"basic".as_slice(), &lower[5..]].concat();
        assert!(auth.accepts(Some(&lower)));
    }

    #[test]
    fn empty_credentials_permit_everything_as_kafka() {
        assert!(BasicAuth::from_credentials(HashMap::new()).accepts(None));
    }

    #[test]
    fn internal_requests_are_kafkas() {
        assert!(is_internal_request(&Method::POST, "/connectors/a/tasks"));
        assert!(is_internal_request(&Method::POST, "/connectors/a/tasks/"));
        assert!(is_internal_request(&Method::PUT, "/connectors/a/fence"));
        assert!(!is_internal_request(&Method::GET, "/connectors/a/tasks"));
        assert!(!is_internal_request(
            &Method::POST,
            "/connectors/a/tasks/0/restart"
        ));
        assert!(!is_internal_request(&Method::POST, "/connectors//tasks"));
        assert!(!is_internal_request(&Method::POST, "/connectors"));
    }
}
