//! Noticing that a cluster refuses a client for good: failed SASL authentication or a failed TLS
//! handshake (unknown CA, expired or mismatched certificate). librdkafka keeps retrying such
//! connections and reports them only to its error callback; Java clients throw an
//! `AuthenticationException` and the task fails. [`RefusalWatch`] records the first refusal so
//! the task can fail with librdkafka's reason (which never holds a secret).

use std::sync::{Arc, Mutex};

use rdkafka::client::ClientContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use tracing::error;

use super::tls_probe;

/// How often a waiting producer looks for a refusal.
pub const CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_millis(200);

/// Whether `error` (from librdkafka's error callback) means the cluster refused the client's
/// credentials or TLS handshake.
pub fn is_refusal(error: &KafkaError) -> bool {
    matches!(
        error.rdkafka_error_code(),
        Some(
            RDKafkaErrorCode::Authentication
                | RDKafkaErrorCode::SSL
                | RDKafkaErrorCode::SaslAuthenticationFailed
        )
    )
}

/// The first refusal a client saw, shared with its librdkafka callbacks.
#[derive(Debug, Clone, Default)]
pub struct RefusalWatch {
    first: Arc<Mutex<Option<String>>>,
    /// The CA certificates the client trusts (`ssl.ca.pem`), to tell why a broker's
    /// certificate failed verification; `None` without TLS.
    trusted_pem: Option<Arc<str>>,
}

impl RefusalWatch {
    /// A watch for a client configured with `config` (its final librdkafka settings).
    pub fn for_config(config: &rdkafka::config::ClientConfig) -> Self {
        Self {
            first: Arc::default(),
            trusted_pem: config.get("ssl.ca.pem").map(Arc::from),
        }
    }

    /// Records `reason` if `error` is a refusal; returns whether it was. A failed certificate
    /// verification is explained (e.g. `certificate has expired`) by one handshake of connect-rs's
    /// own with the same trusted certificates, as librdkafka does not say why.
    pub fn observe(&self, error: &KafkaError, reason: &str) -> bool {
        if !is_refusal(error) {
            return false;
        }
        if self.is_recorded() {
            return true;
        }
        let mut text = format!("{error}: {reason}");
        if reason.contains("certificate verify failed") {
            if let Some(why) = tls_probe::why_unverified(reason, self.trusted_pem.as_deref()) {
                text.push_str(&format!(" (the broker's certificate: {why})"));
            }
        }
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            *first = Some(text);
        }
        true
    }

    fn is_recorded(&self) -> bool {
        self.first
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The first refusal, as a message for the task's failure.
    pub fn refusal(&self) -> Option<String> {
        self.first
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|r| format!("Kafka refused the connection: {r}"))
    }
}

/// A client context that logs librdkafka's errors as the default one does and records refusals.
#[derive(Debug, Clone, Default)]
pub struct WatchedContext {
    /// Where refusals are recorded.
    pub watch: RefusalWatch,
}

impl ClientContext for WatchedContext {
    fn error(&self, error: KafkaError, reason: &str) {
        self.watch.observe(&error, reason);
        error!(target: "librdkafka", "librdkafka: {error}: {reason}");
    }
}

/// A client context that records refusals without logging librdkafka's errors, for a client
/// that runs beside the worker's own ones (which log the same errors): the start-up cluster id
/// lookup.
#[derive(Clone)]
pub struct QuietWatchedContext(pub RefusalWatch);

impl ClientContext for QuietWatchedContext {
    fn error(&self, error: KafkaError, reason: &str) {
        self.0.observe(&error, reason);
    }

    /// A refusal is recorded from librdkafka's `FAIL` line or its error event, whichever is
    /// served first. Not logged again (the worker's clients log the same lines).
    fn log(&self, _: rdkafka::config::RDKafkaLogLevel, fac: &str, message: &str) {
        if fac == "FAIL" {
            if let Some((error, reason)) = refusal_in_log(message) {
                self.0.observe(&error, reason);
            }
        }
    }
}

/// The refusal a librdkafka `FAIL` line reports (`[thrd:...]: <broker>: SASL authentication
/// error: ...` or `...: SSL handshake failed: ...`), as the error event librdkafka posts with
/// it, and the line without its thread prefix.
fn refusal_in_log(message: &str) -> Option<(KafkaError, &str)> {
    let reason = message
        .strip_prefix("[thrd:")
        .and_then(|m| m.split_once("]: "))
        .map_or(message, |(_, rest)| rest);
    let code = if reason.contains("SASL authentication error") {
        RDKafkaErrorCode::Authentication
    } else if reason.contains("SSL handshake failed") {
        RDKafkaErrorCode::SSL
    } else {
        return None;
    };
    Some((KafkaError::Global(code), reason))
}

impl rdkafka::producer::ProducerContext for QuietWatchedContext {
    type DeliveryOpaque = ();

    fn delivery(&self, _: &rdkafka::producer::DeliveryResult<'_>, _: Self::DeliveryOpaque) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authentication_and_tls_failures_are_refusals_outages_are_not() {
        let watch = RefusalWatch::default();
        assert!(!watch.is_recorded());
        assert!(!watch.observe(
            &KafkaError::Global(RDKafkaErrorCode::AllBrokersDown),
            "1/1 brokers are down"
        ));
        assert_eq!(watch.refusal(), None);
        assert!(watch.observe(
            &KafkaError::Global(RDKafkaErrorCode::Authentication),
            "SASL authentication error: Authentication failed: Invalid username or password"
        ));
        assert!(watch.observe(
            &KafkaError::Global(RDKafkaErrorCode::SSL),
            "SSL handshake failed: certificate verify failed"
        ));
        let r = watch.refusal().unwrap();
        assert!(r.starts_with("Kafka refused the connection: "), "{r}");
        assert!(r.contains("Invalid username or password"), "{r}");
    }

    #[test]
    fn fail_lines_of_refused_logins_and_handshakes_are_refusals() {
        let line = "[thrd:sasl_plaintext://127.0.0.1:1/bootstrap]: sasl_plaintext://127.0.0.1:1/\
                    bootstrap: SASL authentication error: Authentication failed: Invalid \
                    username or password (after 153ms in state AUTH_REQ)";
        let (error, reason) = refusal_in_log(line).expect("a refusal");
        assert_eq!(
            error.rdkafka_error_code(),
            Some(RDKafkaErrorCode::Authentication)
        );
        assert!(reason.starts_with("sasl_plaintext://127.0.0.1:1/bootstrap: SASL"));
        let tls = "[thrd:ssl://h:1/bootstrap]: ssl://h:1/bootstrap: SSL handshake failed: \
                   error:0A000086:SSL routines::certificate verify failed";
        let (error, _) = refusal_in_log(tls).expect("a refusal");
        assert_eq!(error.rdkafka_error_code(), Some(RDKafkaErrorCode::SSL));
        let down = "[thrd:h:1/bootstrap]: h:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: \
                    Connection refused (after 0ms in state CONNECT)";
        assert!(refusal_in_log(down).is_none());
    }
}
