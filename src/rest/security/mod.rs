//! The REST server's security as Kafka Connect configures it: TLS on `https://` listeners
//! ([`tls`]), HTTP basic authentication of `BasicAuthSecurityRestExtension` ([`basic_auth`],
//! [`crate::jaas`]), CORS ([`cors`]) and response header rules ([`headers`]). Everything is read and
//! checked at start-up: a setting connect-rs cannot honour stops the worker with a message
//! naming the key, never silently.

pub mod basic_auth;
pub mod cors;
pub mod headers;
pub mod tls;

use std::sync::Arc;

use axum::middleware::from_fn_with_state;
use axum::Router;

use crate::config::WorkerConfig;

/// `rest.extension.classes`.
const EXTENSIONS_KEY: &str = "rest.extension.classes";

/// A REST setting that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A keystore or truststore of an https listener.
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
    /// Any other setting, with its key.
    #[error("Invalid {key}: {message}")]
    Invalid {
        /// The worker key (or JAAS file) at fault.
        key: String,
        /// What is wrong (never a secret).
        message: String,
    },
}

impl SetupError {
    /// An invalid `key`.
    pub fn invalid(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// The layers every listener serves through: response headers, CORS and authentication.
#[derive(Debug, Default, Clone)]
pub struct RestSecurity {
    auth: Option<Arc<basic_auth::BasicAuth>>,
    cors: Option<Arc<cors::Cors>>,
    headers: Option<Arc<headers::HeaderRules>>,
}

impl RestSecurity {
    /// The security of `worker`; `kafka_opts` is the `KAFKA_OPTS` environment variable, where
    /// Kafka users name the JAAS file of basic authentication.
    ///
    /// # Errors
    /// An unknown `rest.extension.classes` entry, unusable basic-auth files, or an invalid
    /// `response.http.headers.config` rule.
    pub fn from_worker(
        worker: &WorkerConfig,
        kafka_opts: Option<&str>,
    ) -> Result<Self, SetupError> {
        let values = worker.values();
        let mut auth = None;
        for class in values.list(EXTENSIONS_KEY) {
            let class = class.trim();
            if class.is_empty() {
                continue;
            }
            if class != basic_auth::EXTENSION_CLASS && class != "BasicAuthSecurityRestExtension" {
                return Err(SetupError::invalid(
                    EXTENSIONS_KEY,
                    format!(
                        "unknown REST extension class '{class}'; connect-rs has only {} (alias \
                         BasicAuthSecurityRestExtension)",
                        basic_auth::EXTENSION_CLASS
                    ),
                ));
            }
            if auth.is_none() {
                let jaas = kafka_opts.and_then(crate::jaas::login_config_from_jvm_options);
                auth = Some(Arc::new(basic_auth::BasicAuth::load(jaas.as_deref())?));
            }
        }
        let string = |k: &str| values.string(k).unwrap_or_default();
        Ok(Self {
            auth,
            cors: cors::Cors::new(
                string("access.control.allow.origin"),
                string("access.control.allow.methods"),
            )
            .map(Arc::new),
            headers: headers::HeaderRules::parse(string(headers::KEY))?.map(Arc::new),
        })
    }

    /// Whether requests must authenticate.
    pub fn authenticates(&self) -> bool {
        self.auth.is_some()
    }

    /// `router` behind the layers: header rules outermost (they apply to every answer,
    /// 401 included), then CORS (preflights answered before authentication), then
    /// authentication.
    pub fn apply(&self, mut router: Router) -> Router {
        if let Some(auth) = &self.auth {
            router = router.layer(from_fn_with_state(auth.clone(), basic_auth::authenticate));
        }
        if let Some(cors) = &self.cors {
            router = router.layer(from_fn_with_state(cors.clone(), cors::cross_origin));
        }
        if let Some(rules) = &self.headers {
            router = router.layer(from_fn_with_state(rules.clone(), headers::response_headers));
        }
        router
    }
}
