//! Java source connectors and tasks run by the plugin host, as connect-rs's own
//! [`SourcePlugin`], [`SourceConnector`] and [`SourceTask`] (issue 28, milestone M2): the
//! worker runs them as built-in ones (converters, transforms, offsets and their commits stay in
//! Rust); each call is a request on the host's control connection, whose Java side runs every
//! connector and task instance on a thread of its own.
//!
//! - [`JavaSourceConnector`]: `CONN_START` (with the location's URLs, so the host loads the
//!   class in that location's loader), then `CONN_TASK_CONFIGS` for `tasks.max`; the
//!   configurations are kept, because [`SourceConnector::task_configs`] cannot wait. A
//!   `requestTaskReconfiguration()` of the Java connector fetches them again before it asks the
//!   worker to reconfigure; `raiseError(e)` fails the connector with the Java trace.
//! - [`JavaSourceTask`]: `TASK_START`, `TASK_POLL` (records in the binary codec, one decoder per
//!   task), `TASK_COMMIT`, `TASK_STOP`; its `OffsetStorageReader` asks back (`OFFSETS_READ`)
//!   and is answered from the task's [`OffsetReader`].
//!
//! A Java exception becomes a [`ConnectError`] whose text is the Java stack trace (retriable
//! when the exception is a `RetriableException`), so a failed task's status `trace` shows it as
//! Kafka Connect does; a JVM that died is retriable: the task's restart starts a new JVM.

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use connect_api::{
    ConfigDef, ConfigMap, ConnectError, ConnectorContext, ExactlyOnceSupport, OffsetMap,
    OffsetReader, PluginDesc, PluginKind, SourceConnector, SourcePlugin, SourceRecord, SourceTask,
    SourceTaskContext,
};
use serde_json::json;

use super::codec::{self, Decoder, Encoder, Reader};
use super::control::Inbound;
use super::{intern::intern, ControlConn, HostError, JavaError, MessageType, PluginHost};

/// Where a Java plugin was found, and which implementation it is.
#[derive(Debug, Clone)]
pub(super) struct JavaClass {
    pub(super) class: String,
    pub(super) version: String,
    pub(super) location: String,
}

impl JavaClass {
    /// The archives (or class directory) of the location's class loader, as Kafka computes
    /// them; none for a location that is no path (the host's own class path).
    pub(super) fn urls(&self) -> Vec<String> {
        let top = Path::new(&self.location);
        if !top.exists() {
            return Vec::new();
        }
        let mut problems = Vec::new();
        match super::locations::plugin_urls(top, &mut problems) {
            Ok((_, urls)) => urls.iter().map(|u| u.display().to_string()).collect(),
            Err(e) => {
                tracing::warn!(target: "connect_rs::plugin_host", "listing plugin location {}: {e}", self.location);
                Vec::new()
            }
        }
    }
}

/// A Java source connector of `plugin.path`, as a [`SourcePlugin`].
pub struct JavaSourcePlugin {
    pub(super) host: PluginHost,
    pub(super) java: JavaClass,
    desc: PluginDesc,
}

impl std::fmt::Debug for JavaSourcePlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaSourcePlugin")
            .field("java", &self.java)
            .finish_non_exhaustive()
    }
}

impl JavaSourcePlugin {
    /// The source connector `class` in `version`, found at `location`, run by `host`.
    pub fn new(host: PluginHost, class: &str, version: &str, location: &str) -> Self {
        Self {
            host,
            desc: PluginDesc {
                class_name: intern(class),
                kind: PluginKind::Source,
                version: intern(version),
                // The Java connector names it when it starts; its task configurations carry it.
                task_class: None,
            },
            java: JavaClass {
                class: class.to_owned(),
                version: version.to_owned(),
                location: location.to_owned(),
            },
        }
    }
}

impl JavaSourcePlugin {
    /// A new connector instance (also the lifecycle of a Java sink connector).
    pub(super) fn new_java_connector(&self) -> JavaSourceConnector {
        JavaSourceConnector {
            host: self.host.clone(),
            java: self.java.clone(),
            ctx: None,
            started: None,
            configs: Arc::new(Mutex::new(Vec::new())),
            watcher: None,
        }
    }
}

impl SourcePlugin for JavaSourcePlugin {
    fn desc(&self) -> PluginDesc {
        self.desc
    }

    /// Empty: the connector's `ConfigDef` lives in Java (its keys are not checked here).
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }

    fn new_connector(&self) -> Box<dyn SourceConnector> {
        Box::new(self.new_java_connector())
    }

    fn new_task(&self) -> Box<dyn SourceTask> {
        Box::new(JavaSourceTask {
            host: self.host.clone(),
            java: self.java.clone(),
            running: None,
            decoder: Decoder::new(),
            in_flight: None,
            commit_record: false,
        })
    }
}

/// Closes the host's instance `id` with `kind` (`SMT_CLOSE`, `CONV_CLOSE`) in the background:
/// a stopping task does not wait for the JVM.
pub(super) fn close_in_background(conn: ControlConn, kind: MessageType, id: String) {
    let payload = json_payload(&json!({ "id": id }));
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        handle.spawn(async move {
            if let Err(e) = conn.request(kind, payload).await {
                tracing::debug!(target: "connect_rs::plugin_host", "closing {id}: {e}");
            }
        });
    }
}

/// A [`ConnectError`] for a failed call: a Java exception is its stack trace (Kafka's status
/// `trace`), other failures say what was being done. A JVM that died took the instance with
/// it: [`ConnectError::InstanceLost`], so that the worker starts a new one (on a new JVM)
/// rather than calling the dead one again.
pub(super) fn connect_error(what: &str, e: HostError) -> ConnectError {
    match e {
        HostError::Remote(j) => java_error(&j),
        e @ HostError::Died(_) => ConnectError::InstanceLost(format!("{what}: {e}")),
        e if e.is_retriable() => ConnectError::Retriable(format!("{what}: {e}")),
        e => ConnectError::Other(format!("{what}: {e}")),
    }
}

/// A Java exception as a [`ConnectError`]: the full `printStackTrace` text.
pub(super) fn java_error(j: &JavaError) -> ConnectError {
    let text = if j.trace.trim().is_empty() {
        j.to_string()
    } else {
        j.trace.trim_end().to_owned()
    };
    if j.retriable {
        ConnectError::Retriable(text)
    } else {
        ConnectError::Other(text)
    }
}

pub(super) fn json_payload(value: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// The task configurations a connector planned, each with `task.class`.
#[derive(serde::Deserialize)]
struct Planned {
    configs: Vec<ConfigMap>,
}

#[derive(serde::Deserialize)]
struct Started {
    task_class: Option<String>,
}

/// Reports the loss of connector `name`'s instance through `ctx` when `conn`'s JVM dies (not
/// when connect-rs closes it); aborted when the connector stops.
fn watch_host(
    name: String,
    conn: ControlConn,
    ctx: ConnectorContext,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let death = tokio::select! {
            death = conn.wait_dead() => death,
            () = ctx.cancel().cancelled() => return,
        };
        if conn.is_closing() {
            return;
        }
        ctx.instance_lost(ConnectError::InstanceLost(format!(
            "Java connector {name}: {death}"
        )));
    })
}

/// A running connector: its name, JVM connection, `tasks.max` and task class.
#[derive(Clone)]
struct RunningConnector {
    name: String,
    conn: ControlConn,
    max_tasks: usize,
    task_class: Option<String>,
}

impl RunningConnector {
    /// Asks the Java connector for its task configurations (`task.class` added, as Kafka's
    /// worker adds it).
    async fn fetch_configs(&self) -> Result<Vec<ConfigMap>, ConnectError> {
        let answer = self
            .conn
            .request(
                MessageType::CONN_TASK_CONFIGS,
                json_payload(&json!({"conn": self.name, "max_tasks": self.max_tasks})),
            )
            .await
            .map_err(|e| connect_error("Java connector taskConfigs", e))?;
        let planned: Planned = serde_json::from_slice(&answer).map_err(|e| {
            ConnectError::Other(format!("the plugin host's task configurations: {e}"))
        })?;
        Ok(planned
            .configs
            .into_iter()
            .map(|mut c| {
                if let Some(class) = &self.task_class {
                    c.entry("task.class".to_owned())
                        .or_insert_with(|| class.clone());
                }
                c
            })
            .collect())
    }
}

/// A Java source connector instance in the plugin host.
pub struct JavaSourceConnector {
    host: PluginHost,
    java: JavaClass,
    ctx: Option<ConnectorContext>,
    started: Option<RunningConnector>,
    /// The last task configurations fetched from Java.
    configs: Arc<Mutex<Vec<ConfigMap>>>,
    /// Reports the JVM's death while the connector runs.
    watcher: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for JavaSourceConnector {
    fn drop(&mut self) {
        if let Some(w) = self.watcher.take() {
            w.abort();
        }
    }
}

/// The host's messages to a connector: reconfiguration requests and raised errors.
struct ConnectorInbound {
    running: RunningConnector,
    ctx: ConnectorContext,
    configs: Arc<Mutex<Vec<ConfigMap>>>,
}

impl Inbound for ConnectorInbound {
    fn request(&self, kind: MessageType, body: &[u8]) -> Result<Vec<u8>, String> {
        connector_request(&self.ctx, kind, body)
    }

    fn notify(&self, kind: MessageType, body: &[u8]) {
        if kind == MessageType::CONN_RAISE_ERROR {
            raise_java_error(&self.ctx, body);
        } else if kind == MessageType::CONN_RECONFIGURE {
            let running = self.running.clone();
            let ctx = self.ctx.clone();
            let configs = self.configs.clone();
            tokio::spawn(async move {
                match running.fetch_configs().await {
                    Ok(fresh) => {
                        *configs.lock().unwrap_or_else(|e| e.into_inner()) = fresh;
                        ctx.request_task_reconfiguration();
                    }
                    Err(e) => ctx.raise_error(e),
                }
            });
        }
    }
}

/// The committed offsets of a connector, read through its context.
struct ContextOffsets<'a>(&'a ConnectorContext);

impl OffsetReader for ContextOffsets<'_> {
    fn offset(&self, partition: &OffsetMap) -> Option<OffsetMap> {
        self.0.offset(partition)
    }
}

/// A connector's request of the host: `OFFSETS_READ` (its `offsetStorageReader()`).
fn connector_request(
    ctx: &ConnectorContext,
    kind: MessageType,
    body: &[u8],
) -> Result<Vec<u8>, String> {
    if kind != MessageType::OFFSETS_READ {
        return Err(format!("connectors take no {} request", kind.name()));
    }
    read_offsets(&ContextOffsets(ctx), body).map_err(|e| e.to_string())
}

/// What a connector's `start` may ask before it is running: its offsets.
struct StartingConnector(ConnectorContext);

impl Inbound for StartingConnector {
    fn request(&self, kind: MessageType, body: &[u8]) -> Result<Vec<u8>, String> {
        connector_request(&self.0, kind, body)
    }

    fn notify(&self, kind: MessageType, body: &[u8]) {
        if kind == MessageType::CONN_RAISE_ERROR {
            raise_java_error(&self.0, body);
        } else {
            // A reconfiguration request: the start plans the tasks right after.
            tracing::debug!(target: "connect_rs::plugin_host", "a starting connector's {} is not needed", kind.name());
        }
    }
}

/// A Java connector's `raiseError`: the connector fails with the Java exception.
fn raise_java_error(ctx: &ConnectorContext, body: &[u8]) {
    let error = match serde_json::from_slice::<JavaError>(body) {
        Ok(j) => java_error(&j),
        Err(e) => ConnectError::Other(format!("the plugin host raised an error: {e}")),
    };
    ctx.raise_error(error);
}

fn tasks_max(props: &ConfigMap) -> usize {
    props
        .get("tasks.max")
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(1)
}

#[async_trait]
impl SourceConnector for JavaSourceConnector {
    fn initialize(&mut self, ctx: ConnectorContext) {
        self.ctx = Some(ctx);
    }

    async fn start(&mut self, props: &ConfigMap) -> connect_api::Result<()> {
        let name = match &self.ctx {
            Some(ctx) => ctx.connector().to_owned(),
            None => props.get("name").cloned().unwrap_or_default(),
        };
        let conn = self
            .host
            .control()
            .await
            .map_err(|e| connect_error(&format!("starting {}", self.java.class), e))?;
        let ctx = self
            .ctx
            .clone()
            .unwrap_or_else(|| ConnectorContext::detached(name.clone()));
        // Its start() may read its offsets already.
        conn.register_target(&name, Arc::new(StartingConnector(ctx.clone())));
        let answer = conn
            .request(
                MessageType::CONN_START,
                json_payload(&json!({
                    "conn": name,
                    "class": self.java.class,
                    "version": self.java.version,
                    "location": self.java.location,
                    "urls": self.java.urls(),
                    "props": props,
                })),
            )
            .await
            .map_err(|e| {
                conn.unregister_target(&name);
                connect_error("Java connector start", e)
            })?;
        let started: Started = serde_json::from_slice(&answer).map_err(|e| {
            ConnectError::Other(format!("the plugin host's CONN_START answer: {e}"))
        })?;
        let running = RunningConnector {
            name: name.clone(),
            conn: conn.clone(),
            max_tasks: tasks_max(props),
            task_class: started.task_class,
        };
        self.started = Some(running.clone());
        let ctx_for_watch = ctx.clone();
        conn.register_target(
            &name,
            Arc::new(ConnectorInbound {
                running: running.clone(),
                ctx,
                configs: self.configs.clone(),
            }),
        );
        match running.fetch_configs().await {
            Ok(configs) => {
                *self.configs.lock().unwrap_or_else(|e| e.into_inner()) = configs;
                self.watcher = Some(watch_host(name, conn, ctx_for_watch));
                Ok(())
            }
            Err(e) => {
                // A connector whose start failed is not stopped by the worker: stop it here.
                let _ = self.stop().await;
                Err(e)
            }
        }
    }

    fn task_configs(&self, max_tasks: usize) -> connect_api::Result<Vec<ConfigMap>> {
        let configs = self.configs.lock().unwrap_or_else(|e| e.into_inner());
        Ok(configs.iter().take(max_tasks).cloned().collect())
    }

    fn exactly_once_support(&self, props: &ConfigMap) -> Option<ExactlyOnceSupport> {
        let answer = self.ask_fresh(MessageType::CONN_EOS_SUPPORT, props, None);
        match answer {
            Ok(a) => match a.get("support").and_then(serde_json::Value::as_str) {
                Some("SUPPORTED") => Some(ExactlyOnceSupport::Supported),
                Some("UNSUPPORTED") => Some(ExactlyOnceSupport::Unsupported),
                _ => None,
            },
            Err(e) => {
                tracing::warn!(error = %e, class = %self.java.class,
                    "Could not ask the Java connector for its exactly-once support.");
                None
            }
        }
    }

    fn alter_offsets(
        &self,
        props: &ConfigMap,
        offsets: &[connect_api::SourceOffsetChange],
    ) -> connect_api::Result<bool> {
        let source: Vec<serde_json::Value> = offsets
            .iter()
            .map(|(partition, offset)| json!({"partition": partition, "offset": offset}))
            .collect();
        let answer = self.ask_fresh(
            MessageType::CONN_ALTER_OFFSETS,
            props,
            Some(("source", source.into())),
        )?;
        Ok(answer.get("handled").and_then(serde_json::Value::as_bool) == Some(true))
    }

    async fn stop(&mut self) -> connect_api::Result<()> {
        if let Some(w) = self.watcher.take() {
            w.abort();
        }
        let Some(running) = self.started.take() else {
            return Ok(());
        };
        running.conn.unregister_target(&running.name);
        if !running.conn.is_alive() {
            // It died with its JVM: nothing is left to stop.
            return Ok(());
        }
        running
            .conn
            .request(
                MessageType::CONN_STOP,
                json_payload(&json!({"conn": running.name})),
            )
            .await
            .map(|_| ())
            .map_err(|e| connect_error("Java connector stop", e))
    }
}

impl JavaSourceConnector {
    /// Asks a fresh instance of the connector's class (never started; Kafka Connect asks its
    /// `exactlyOnceSupport` and `alterOffsets` so) with `props` and, when given, one more
    /// field; the answer's JSON object. Waits for the JVM (see [`super::smt`]).
    pub(super) fn ask_fresh(
        &self,
        kind: MessageType,
        props: &ConfigMap,
        extra: Option<(&str, serde_json::Value)>,
    ) -> connect_api::Result<serde_json::Map<String, serde_json::Value>> {
        let java = &self.java;
        let mut body = json!({
            "class": java.class,
            "version": java.version,
            "location": java.location,
            "urls": java.urls(),
            "props": props,
        });
        if let (Some((key, value)), Some(map)) = (extra, body.as_object_mut()) {
            map.insert(key.to_owned(), value);
        }
        let host = self.host.clone();
        let what = format!("Java connector {}", java.class);
        let answer = super::smt::block(async move {
            let conn = host.control().await?;
            conn.request(kind, json_payload(&body)).await
        })?
        .map_err(|e| match e {
            HostError::Remote(j) => {
                ConnectError::Other(j.message.clone().unwrap_or(j.trace.clone()))
            }
            other => connect_error(&what, other),
        })?;
        match serde_json::from_slice(&answer) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            _ => Err(ConnectError::Other(format!(
                "the plugin host's {} answer is no JSON object",
                kind.name()
            ))),
        }
    }
}

/// A poll sent and not answered yet.
type InFlight = tokio::task::JoinHandle<Result<Vec<u8>, HostError>>;

/// A Java source task instance in the plugin host.
pub struct JavaSourceTask {
    host: PluginHost,
    java: JavaClass,
    /// The task's id in the host (`<connector>-<task>`) and the JVM's connection, once started.
    running: Option<(String, ControlConn)>,
    /// Decodes this task's poll answers (the host keeps one encoder per task).
    decoder: Decoder,
    /// A poll whose answer was not taken yet: a dropped `poll` future leaves it here, and the
    /// next `poll` takes its answer, so no record is lost.
    in_flight: Option<InFlight>,
    /// Whether the Java task overrides `commitRecord` (its `TASK_START` answer said so).
    commit_record: bool,
}

/// The `TASK_START` answer.
#[derive(serde::Deserialize, Default)]
struct TaskStarted {
    #[serde(default)]
    commit_record: bool,
}

/// The host's requests of a task: its `OffsetStorageReader`.
struct TaskInbound {
    offsets: Arc<dyn OffsetReader>,
}

impl Inbound for TaskInbound {
    fn request(&self, kind: MessageType, body: &[u8]) -> Result<Vec<u8>, String> {
        if kind != MessageType::OFFSETS_READ {
            return Err(format!("source tasks take no {} request", kind.name()));
        }
        read_offsets(self.offsets.as_ref(), body).map_err(|e| e.to_string())
    }

    fn notify(&self, _kind: MessageType, _body: &[u8]) {}
}

/// Answers an `OFFSETS_READ`: the stored offset (or null) of each partition asked.
fn read_offsets(reader: &dyn OffsetReader, body: &[u8]) -> Result<Vec<u8>, codec::CodecError> {
    let mut r = Reader::new(body);
    let n = r.len("the number of source partitions")?;
    let mut decoder = Decoder::new();
    let mut encoder = Encoder::new();
    let mut out = Vec::new();
    codec::put_uvarint(&mut out, n as u64);
    for _ in 0..n {
        let partition = decoder.offset_map(&mut r)?;
        let offset: Option<OffsetMap> = partition.as_ref().and_then(|p| reader.offset(p));
        encoder.offset_map(offset.as_ref(), &mut out)?;
    }
    Ok(out)
}

impl JavaSourceTask {
    fn running(&self) -> Result<&(String, ControlConn), ConnectError> {
        self.running
            .as_ref()
            .ok_or_else(|| ConnectError::Other("the Java source task was not started".into()))
    }

    fn decode(&mut self, answer: &[u8]) -> Result<Vec<SourceRecord>, codec::CodecError> {
        let mut r = Reader::new(answer);
        let n = r.len("the number of polled records")?;
        let mut records = Vec::with_capacity(n);
        for _ in 0..n {
            records.push(self.decoder.source_record(&mut r)?);
        }
        Ok(records)
    }
}

#[async_trait]
impl SourceTask for JavaSourceTask {
    async fn start(
        &mut self,
        ctx: SourceTaskContext,
        props: &ConfigMap,
    ) -> connect_api::Result<()> {
        let id = format!("{}-{}", ctx.connector, ctx.task);
        let conn =
            self.host.control().await.map_err(|e| {
                connect_error(&format!("starting a task of {}", self.java.class), e)
            })?;
        conn.register_target(
            &id,
            Arc::new(TaskInbound {
                offsets: ctx.offsets.clone(),
            }),
        );
        let started = conn
            .request(
                MessageType::TASK_START,
                json_payload(&json!({
                    "task": id,
                    "conn": ctx.connector,
                    "class": self.java.class,
                    "version": self.java.version,
                    "location": self.java.location,
                    "urls": self.java.urls(),
                    "props": props,
                })),
            )
            .await;
        let answer = match started {
            Ok(answer) => answer,
            Err(e) => {
                conn.unregister_target(&id);
                return Err(connect_error("Java task start", e));
            }
        };
        self.commit_record = serde_json::from_slice::<TaskStarted>(&answer)
            .unwrap_or_default()
            .commit_record;
        self.running = Some((id, conn));
        Ok(())
    }

    fn wants_record_commits(&self) -> bool {
        self.commit_record
    }

    async fn commit_records(
        &mut self,
        records: Vec<connect_api::RecordCommit>,
    ) -> connect_api::Result<()> {
        let (id, conn) = self.running()?;
        let records: Vec<serde_json::Value> = records
            .into_iter()
            .map(|(n, written)| match written {
                Some(m) => json!({
                    "n": n,
                    "topic": m.topic,
                    "partition": m.partition,
                    "offset": m.offset,
                    "timestamp": m.timestamp,
                }),
                None => json!({ "n": n }),
            })
            .collect();
        conn.request(
            MessageType::TASK_COMMIT_RECORDS,
            json_payload(&json!({ "task": id, "records": records })),
        )
        .await
        .map(|_| ())
        .map_err(|e| connect_error("Java task commitRecord", e))
    }

    async fn poll(&mut self) -> connect_api::Result<Vec<SourceRecord>> {
        let (id, conn) = self.running()?.clone();
        let in_flight = self.in_flight.get_or_insert_with(|| {
            let payload = json_payload(&json!({ "task": id }));
            // A task of its own: the request runs to its end even when this future is dropped.
            tokio::spawn(async move { conn.request(MessageType::TASK_POLL, payload).await })
        });
        let answer = in_flight.await;
        self.in_flight = None;
        let answer = answer
            .map_err(|e| ConnectError::Other(format!("the Java task's poll was lost: {e}")))
            .and_then(|r| {
                r.map_err(|e| {
                    // The host starts a fresh encoder after a failed poll.
                    connect_error("Java task poll", e)
                })
            });
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                self.decoder = Decoder::new();
                return Err(e);
            }
        };
        self.decode(&answer).map_err(|e| {
            ConnectError::Data(format!(
                "the records the plugin host polled cannot be read: {e}"
            ))
        })
    }

    async fn commit(&mut self) -> connect_api::Result<()> {
        let (id, conn) = self.running()?;
        conn.request(
            MessageType::TASK_COMMIT,
            json_payload(&json!({ "task": id })),
        )
        .await
        .map(|_| ())
        .map_err(|e| connect_error("Java task commit", e))
    }

    async fn stop(&mut self) -> connect_api::Result<()> {
        let Some((id, conn)) = self.running.take() else {
            return Ok(());
        };
        if !conn.is_alive() {
            // It died with its JVM: nothing is left to stop.
            conn.unregister_target(&id);
            return Ok(());
        }
        let stopped = conn
            .request(MessageType::TASK_STOP, json_payload(&json!({ "task": id })))
            .await;
        conn.unregister_target(&id);
        stopped
            .map(|_| ())
            .map_err(|e| connect_error("Java task stop", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed;

    impl OffsetReader for Fixed {
        fn offset(&self, partition: &OffsetMap) -> Option<OffsetMap> {
            (partition.get("id") == Some(&json!(0))).then(|| {
                let mut m = OffsetMap::new();
                m.insert("seqno".into(), json!(41));
                m
            })
        }
    }

    #[test]
    fn offset_reads_answer_each_partition_in_order() {
        let mut asked = Vec::new();
        codec::put_uvarint(&mut asked, 2);
        let mut enc = Encoder::new();
        let p = |id: i64| {
            let mut m = OffsetMap::new();
            m.insert("id".into(), json!(id));
            m
        };
        enc.offset_map(Some(&p(0)), &mut asked).unwrap();
        enc.offset_map(Some(&p(1)), &mut asked).unwrap();
        let answer = read_offsets(&Fixed, &asked).unwrap();
        let mut r = Reader::new(&answer);
        let mut dec = Decoder::new();
        assert_eq!(r.len("n").unwrap(), 2);
        let first = dec.offset_map(&mut r).unwrap().unwrap();
        assert_eq!(serde_json::to_string(&first).unwrap(), r#"{"seqno":41}"#);
        assert_eq!(dec.offset_map(&mut r).unwrap(), None);
        assert!(r.is_empty());
    }

    #[test]
    fn java_exceptions_keep_their_trace_and_retriability() {
        let j = JavaError {
            class: "java.lang.IllegalStateException".into(),
            message: Some("boom".into()),
            trace: "java.lang.IllegalStateException: boom\n\tat fixture.T.poll(T.java:9)\n".into(),
            retriable: false,
        };
        let e = java_error(&j);
        assert!(!e.is_retriable());
        assert_eq!(
            e.to_string(),
            "java.lang.IllegalStateException: boom\n\tat fixture.T.poll(T.java:9)"
        );
        assert!(java_error(&JavaError {
            retriable: true,
            ..j
        })
        .is_retriable());
    }
}
