//! Java transformations and predicates of `plugin.path` as connect-rs's own
//! [`Transformation`] and [`Predicate`] (issue 28, milestone M4), so one
//! `TransformationChain` mixes built-in and Java stages.
//!
//! A Java stage is made and configured in the JVM, in its location's class loader
//! (`SMT_START`), when the chain is built; each record it sees crosses with its schemas in the
//! binary codec (`SMT_APPLY` / `SMT_TEST`, one round trip per record and Java stage; each stage
//! instance has its own codec streams on both sides); it is closed (`SMT_CLOSE`) when the chain
//! is dropped (the task stopped). A record of a sink task crosses as a Java `SinkRecord` (with
//! its Kafka offset and timestamp type), one of a source task as a `SourceRecord` without
//! source partition or offset (connect-rs's chain does not carry them).
//!
//! The trait methods are synchronous (the chain is): each call waits for the JVM's answer with
//! [`tokio::task::block_in_place`], which needs the multi-thread runtime the binary runs.
//! A Java exception becomes a [`ConnectError`] whose text is the Java stack trace; a Java
//! `ConfigException` from `configure` becomes a configuration error naming its key.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use connect_api::{
    ConfigMap, ConnectError, ConnectRecord, Predicate, RecordContext, SinkRecord, SourceRecord,
    Transformation,
};
use serde_json::json;

use super::codec::{self, Decoder, Encoder, Reader, SinkRecordMeta};
use super::source::{close_in_background, connect_error, json_payload, JavaClass};
use super::{ControlConn, HostError, MessageType, PluginHost};

/// Whether a Java stage is a transformation or a predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtKind {
    /// A `org.apache.kafka.connect.transforms.Transformation`.
    Transformation,
    /// A `org.apache.kafka.connect.transforms.predicates.Predicate`.
    Predicate,
}

impl SmtKind {
    fn name(self) -> &'static str {
        match self {
            Self::Transformation => "transformation",
            Self::Predicate => "predicate",
        }
    }
}

/// A Java transformation or predicate class of `plugin.path`, run by the plugin host.
#[derive(Clone)]
pub struct JavaSmtPlugin {
    host: PluginHost,
    java: JavaClass,
    kind: SmtKind,
}

impl std::fmt::Debug for JavaSmtPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaSmtPlugin")
            .field("java", &self.java)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl JavaSmtPlugin {
    /// The transformation or predicate `class` in `version`, found at `location`.
    pub fn new(
        host: PluginHost,
        kind: SmtKind,
        class: &str,
        version: &str,
        location: &str,
    ) -> Self {
        Self {
            host,
            java: JavaClass {
                class: class.to_owned(),
                version: version.to_owned(),
                location: location.to_owned(),
            },
            kind,
        }
    }

    /// Its Java class name.
    pub fn class_name(&self) -> &str {
        &self.java.class
    }

    /// A new, unconfigured transformation (`configure` makes it in the JVM).
    pub fn new_transformation(&self) -> Box<dyn Transformation> {
        Box::new(JavaTransformation(Stage::new(self.clone())))
    }

    /// A new, unconfigured predicate (`configure` makes it in the JVM).
    pub fn new_predicate(&self) -> Box<dyn Predicate> {
        Box::new(JavaPredicate(Mutex::new(Stage::new(self.clone()))))
    }
}

/// Whether Java transformations and predicates can be called here: inside the worker's
/// multi-thread runtime.
pub fn can_run_here() -> bool {
    tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
}

/// Waits for `f` on the current multi-thread runtime from synchronous code.
pub(super) fn block<F: Future>(f: F) -> Result<F::Output, ConnectError> {
    let handle = tokio::runtime::Handle::try_current().map_err(|_| {
        ConnectError::Other(
            "a Java transformation, predicate or converter runs only inside the worker".into(),
        )
    })?;
    match handle.runtime_flavor() {
        tokio::runtime::RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(|| handle.block_on(f)))
        }
        _ => Err(ConnectError::Other(
            "a Java transformation, predicate or converter needs the worker's multi-thread runtime"
                .into(),
        )),
    }
}

/// The `key` a Java `ConfigException` message names (`Invalid value x for configuration key:
/// ...`, `Missing required configuration "key" ...`), if any.
fn config_key(message: &str) -> Option<&str> {
    if let Some(rest) = message.split("for configuration ").nth(1) {
        return rest
            .split(':')
            .next()
            .map(str::trim)
            .filter(|k| !k.is_empty());
    }
    let rest = message.strip_prefix("Missing required configuration \"")?;
    rest.split('"').next().filter(|k| !k.is_empty())
}

/// The error of a Java plugin's `configure`: a Java `ConfigException` is a configuration
/// error on the key it names, anything else says what was being done (`what`).
pub(super) fn config_error(what: &str, e: HostError) -> ConnectError {
    match e {
        HostError::Remote(j) if j.class.ends_with("ConfigException") => {
            let message = j.message.clone().unwrap_or_else(|| j.to_string());
            let key = config_key(&message).unwrap_or_default().to_owned();
            ConnectError::config(key, message)
        }
        e => connect_error(what, e),
    }
}

/// One Java instance: its id in the host and its codec streams.
struct Stage {
    plugin: JavaSmtPlugin,
    running: Option<(String, ControlConn)>,
    encoder: Encoder,
    decoder: Decoder,
}

impl Stage {
    fn new(plugin: JavaSmtPlugin) -> Self {
        Self {
            plugin,
            running: None,
            encoder: Encoder::new(),
            decoder: Decoder::new(),
        }
    }

    fn what(&self) -> String {
        format!(
            "Java {} {}",
            self.plugin.kind.name(),
            self.plugin.java.class
        )
    }

    fn configure(&mut self, props: &ConfigMap) -> Result<(), ConnectError> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        self.close();
        let id = format!("smt-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let java = &self.plugin.java;
        let payload = json_payload(&json!({
            "id": id,
            "kind": self.plugin.kind.name(),
            "class": java.class,
            "version": java.version,
            "location": java.location,
            "urls": java.urls(),
            "props": props,
        }));
        let host = self.plugin.host.clone();
        let started = block(async move {
            let conn = host.control().await?;
            conn.request(MessageType::SMT_START, payload).await?;
            Ok::<_, HostError>(conn)
        })?;
        match started {
            Ok(conn) => {
                self.running = Some((id, conn));
                self.encoder = Encoder::new();
                self.decoder = Decoder::new();
                Ok(())
            }
            Err(e) => Err(config_error(&format!("configuring the {}", self.what()), e)),
        }
    }

    /// Sends `record` (as a sink record when `ctx` is a sink task's) with `kind`; the answer.
    fn call(
        &mut self,
        kind: MessageType,
        record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Vec<u8>, ConnectError> {
        let Some((id, conn)) = &self.running else {
            return Err(ConnectError::Other(format!(
                "the {} was not configured",
                self.what()
            )));
        };
        let mut payload = Vec::with_capacity(256);
        codec::put_str(&mut payload, id);
        let encoded = match ctx.kafka_offset {
            Some(offset) => {
                payload.push(1);
                let record = SinkRecord {
                    record,
                    kafka_offset: offset,
                    timestamp_type: ctx.timestamp_type,
                };
                let meta = SinkRecordMeta::of(&record, 0);
                self.encoder.sink_record(&record, &meta, &mut payload)
            }
            None => {
                payload.push(0);
                let record = SourceRecord {
                    source_partition: Default::default(),
                    source_offset: None,
                    record,
                };
                self.encoder.source_record(&record, &mut payload)
            }
        };
        encoded.map_err(|e| {
            ConnectError::Data(format!(
                "a record cannot be sent to the {}: {e}",
                self.what()
            ))
        })?;
        let conn = conn.clone();
        let answer = block(async move { conn.request(kind, payload).await })?;
        answer.map_err(|e| {
            // The host starts fresh codec streams after a failed call: so does this side.
            self.encoder = Encoder::new();
            self.decoder = Decoder::new();
            connect_error(&self.what(), e)
        })
    }

    fn close(&mut self) {
        if let Some((id, conn)) = self.running.take() {
            close_in_background(conn, MessageType::SMT_CLOSE, id);
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        self.close();
    }
}

/// A Java transformation.
struct JavaTransformation(Stage);

impl Transformation for JavaTransformation {
    fn configure(&mut self, props: &ConfigMap) -> connect_api::Result<()> {
        self.0.configure(props)
    }

    fn apply(
        &mut self,
        record: ConnectRecord,
        ctx: &RecordContext,
    ) -> connect_api::Result<Option<ConnectRecord>> {
        let answer = self.0.call(MessageType::SMT_APPLY, record, ctx)?;
        let what = self.0.what();
        let bad = |e: codec::CodecError| {
            ConnectError::Data(format!(
                "the record the {what} returned cannot be read: {e}"
            ))
        };
        let mut r = Reader::new(&answer);
        match r.u8("an SMT_APPLY answer").map_err(bad)? {
            0 => Ok(None),
            1 => Ok(Some(
                self.0.decoder.source_record(&mut r).map_err(bad)?.record,
            )),
            _ => Ok(Some(
                self.0.decoder.sink_record(&mut r).map_err(bad)?.0.record,
            )),
        }
    }
}

/// A Java predicate; its calls are serialized (a chain tests it from one task).
struct JavaPredicate(Mutex<Stage>);

impl JavaPredicate {
    fn stage(&self) -> std::sync::MutexGuard<'_, Stage> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Predicate for JavaPredicate {
    fn configure(&mut self, props: &ConfigMap) -> connect_api::Result<()> {
        self.stage().configure(props)
    }

    fn test(&self, record: &ConnectRecord) -> bool {
        self.try_test(record, &RecordContext::source())
            .unwrap_or(false)
    }

    fn try_test(&self, record: &ConnectRecord, ctx: &RecordContext) -> connect_api::Result<bool> {
        let mut stage = self.stage();
        let answer = stage.call(MessageType::SMT_TEST, record.clone(), ctx)?;
        Ok(answer.first() == Some(&1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_exceptions_name_their_key() {
        assert_eq!(
            config_key(
                "Invalid value x for configuration delete.handling.mode: Value must be one of none"
            ),
            Some("delete.handling.mode")
        );
        assert_eq!(
            config_key("Missing required configuration \"field\" which has no default value."),
            Some("field")
        );
        assert_eq!(config_key("boom"), None);
    }
}
