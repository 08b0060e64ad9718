//! Java converters of `plugin.path` as connect-rs's own [`Converter`] (issue 28), so a task's
//! keys and values can be serialized by a Java converter (a vendor's format, a team's own).
//!
//! A Java converter is made and configured in the JVM, in its location's class loader
//! (`CONV_START`, with `isKey`), when the task's converters are built; each key or value crosses
//! with its schema in the binary codec (`CONV_FROM_CONNECT` / `CONV_TO_CONNECT`, one round trip
//! per key or value; each instance has its own codec streams on both sides); it is closed
//! (`CONV_CLOSE`) when the converter is dropped. The converter gets empty headers; one that adds
//! headers is refused with an error rather than have them dropped.
//!
//! A Java header converter (`header.converter`) runs the same way (`CONV_START` with
//! `"header": true`); its calls carry the header's key after the topic, one round trip per
//! header.
//!
//! The trait methods are synchronous: each call waits for the JVM's answer with
//! [`tokio::task::block_in_place`] (see [`super::smt`]). A Java exception becomes a
//! [`ConnectError`] whose text is the Java stack trace; a Java `ConfigException` from
//! `configure` becomes a configuration error naming its key.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use connect_api::{
    ConfigMap, ConnectError, Converter, HeaderConverter, Headers, SchemaAndValue, SchemaRef, Value,
};
use serde_json::json;

use super::codec::{self, Decoder, Encoder, Reader};
use super::smt::{block, config_error};
use super::source::{close_in_background, connect_error, json_payload, JavaClass};
use super::{ControlConn, HostError, MessageType, PluginHost};

/// A Java converter class of `plugin.path`, run by the plugin host.
#[derive(Clone)]
pub struct JavaConverterPlugin {
    host: PluginHost,
    java: JavaClass,
}

impl std::fmt::Debug for JavaConverterPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaConverterPlugin")
            .field("java", &self.java)
            .finish_non_exhaustive()
    }
}

impl JavaConverterPlugin {
    /// The converter `class` in `version`, found at `location`.
    pub fn new(host: PluginHost, class: &str, version: &str, location: &str) -> Self {
        Self {
            host,
            java: JavaClass {
                class: class.to_owned(),
                version: version.to_owned(),
                location: location.to_owned(),
            },
        }
    }

    /// A new, unconfigured converter (`configure` makes it in the JVM).
    pub fn new_converter(&self) -> Box<dyn Converter> {
        Box::new(self.instance(false))
    }

    /// A new, unconfigured header converter (`configure` makes it in the JVM).
    pub fn new_header_converter(&self) -> Box<dyn HeaderConverter> {
        Box::new(JavaHeaderConverter(self.instance(true)))
    }

    fn instance(&self, header: bool) -> JavaConverter {
        JavaConverter {
            plugin: self.clone(),
            header,
            state: Mutex::new(State {
                running: None,
                encoder: Encoder::new(),
                decoder: Decoder::new(),
            }),
        }
    }
}

/// One Java instance: its id in the host and its codec streams.
struct State {
    running: Option<(String, ControlConn)>,
    encoder: Encoder,
    decoder: Decoder,
}

/// A Java converter; its calls are serialized (one task converts in order).
struct JavaConverter {
    plugin: JavaConverterPlugin,
    /// A header converter (its calls carry the header's key).
    header: bool,
    state: Mutex<State>,
}

/// A Java header converter.
struct JavaHeaderConverter(JavaConverter);

impl JavaConverter {
    fn what(&self) -> String {
        let kind = if self.header {
            "header converter"
        } else {
            "converter"
        };
        format!("Java {kind} {}", self.plugin.java.class)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends `body` (after the id, the topic and a header's `key`) with `kind`; the answer.
    fn call(
        &self,
        state: &mut State,
        kind: MessageType,
        topic: &str,
        key: Option<&str>,
        body: impl FnOnce(&mut State, &mut Vec<u8>) -> Result<(), codec::CodecError>,
    ) -> Result<Vec<u8>, ConnectError> {
        let Some((id, conn)) = &state.running else {
            return Err(ConnectError::Other(format!(
                "the {} was not configured",
                self.what()
            )));
        };
        let conn = conn.clone();
        let mut payload = Vec::with_capacity(256);
        codec::put_str(&mut payload, id);
        codec::put_str(&mut payload, topic);
        if let Some(key) = key {
            codec::put_str(&mut payload, key);
        }
        body(state, &mut payload).map_err(|e| {
            ConnectError::Data(format!(
                "a value of topic {topic} cannot be sent to the {}: {e}",
                self.what()
            ))
        })?;
        let answer = block(async move { conn.request(kind, payload).await })?;
        answer.map_err(|e| {
            // The host starts fresh codec streams after a failed call: so does this side.
            state.encoder = Encoder::new();
            state.decoder = Decoder::new();
            match e {
                HostError::Remote(j) => ConnectError::Data(j.trace.clone()),
                other => connect_error(&self.what(), other),
            }
        })
    }

    fn close(state: &mut State) {
        if let Some((id, conn)) = state.running.take() {
            close_in_background(conn, MessageType::CONV_CLOSE, id);
        }
    }
}

impl Drop for JavaConverter {
    fn drop(&mut self) {
        Self::close(&mut self.state());
    }
}

impl JavaConverter {
    /// Makes and configures the instance in the JVM (`is_key` for a converter).
    fn start(&mut self, props: &ConfigMap, is_key: bool) -> connect_api::Result<()> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let what = self.what();
        let state = self
            .state
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Self::close(state);
        let id = format!("conv-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let java = &self.plugin.java;
        let payload = json_payload(&json!({
            "id": id,
            "class": java.class,
            "version": java.version,
            "location": java.location,
            "urls": java.urls(),
            "props": props,
            "is_key": is_key,
            "header": self.header,
        }));
        let host = self.plugin.host.clone();
        let started = block(async move {
            let conn = host.control().await?;
            conn.request(MessageType::CONV_START, payload).await?;
            Ok::<_, HostError>(conn)
        })?;
        match started {
            Ok(conn) => {
                state.running = Some((id, conn));
                state.encoder = Encoder::new();
                state.decoder = Decoder::new();
                Ok(())
            }
            Err(e) => Err(config_error(&format!("configuring the {what}"), e)),
        }
    }

    /// `fromConnectData` (or a header's `fromConnectHeader`, with its `key`).
    fn serialize(
        &self,
        topic: &str,
        key: Option<&str>,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> connect_api::Result<Option<Vec<u8>>> {
        let mut state = self.state();
        let answer = self.call(
            &mut state,
            MessageType::CONV_FROM_CONNECT,
            topic,
            key,
            |s, out| s.encoder.schema_and_value(schema, value, out),
        )?;
        let bad = |e: codec::CodecError| {
            ConnectError::Data(format!(
                "the bytes the {} returned cannot be read: {e}",
                self.what()
            ))
        };
        let mut r = Reader::new(&answer);
        match r.u8("a null marker").map_err(bad)? {
            0 => Ok(None),
            _ => Ok(Some(r.bytes("the serialized data").map_err(bad)?.to_vec())),
        }
    }

    /// `toConnectData` (or a header's `toConnectHeader`, with its `key`).
    fn deserialize(
        &self,
        topic: &str,
        key: Option<&str>,
        data: Option<&[u8]>,
    ) -> connect_api::Result<SchemaAndValue> {
        let mut state = self.state();
        let answer = self.call(
            &mut state,
            MessageType::CONV_TO_CONNECT,
            topic,
            key,
            |_, out| {
                match data {
                    None => out.push(0),
                    Some(bytes) => {
                        out.push(1);
                        codec::put_bytes(out, bytes);
                    }
                }
                Ok(())
            },
        )?;
        let mut r = Reader::new(&answer);
        let (schema, value) = state.decoder.schema_and_value(&mut r).map_err(|e| {
            ConnectError::Data(format!(
                "the data the {} returned cannot be read: {e}",
                self.what()
            ))
        })?;
        Ok(SchemaAndValue { schema, value })
    }
}

impl Converter for JavaConverter {
    fn configure(&mut self, props: &ConfigMap, is_key: bool) -> connect_api::Result<()> {
        self.start(props, is_key)
    }

    fn from_connect(
        &self,
        topic: &str,
        _headers: &Headers,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> connect_api::Result<Option<Vec<u8>>> {
        self.serialize(topic, None, schema, value)
    }

    fn to_connect(
        &self,
        topic: &str,
        _headers: &Headers,
        data: Option<&[u8]>,
    ) -> connect_api::Result<SchemaAndValue> {
        self.deserialize(topic, None, data)
    }
}

impl HeaderConverter for JavaHeaderConverter {
    fn configure(&mut self, props: &ConfigMap) -> connect_api::Result<()> {
        self.0.start(props, false)
    }

    fn from_connect_header(
        &self,
        topic: &str,
        key: &str,
        schema: Option<&SchemaRef>,
        value: &Value,
    ) -> connect_api::Result<Option<Vec<u8>>> {
        self.0.serialize(topic, Some(key), schema, value)
    }

    fn to_connect_header(
        &self,
        topic: &str,
        key: &str,
        data: Option<&[u8]>,
    ) -> connect_api::Result<SchemaAndValue> {
        self.0.deserialize(topic, Some(key), data)
    }
}
