//! Java sink connectors and tasks run by the plugin host, as connect-rs's own [`SinkPlugin`],
//! [`SinkConnector`] and [`SinkTask`] (issue 28, milestone M3): the worker's sink loop consumes,
//! converts and transforms in Rust and hands each batch to the Java task; offsets are committed
//! by the loop after the Java task's `preCommit` (by default its `flush`) said they are safe.
//!
//! - [`JavaSinkConnector`]: the connector lifecycle is the source one (`CONN_START`,
//!   `CONN_TASK_CONFIGS`, `CONN_STOP`, reconfiguration requests and raised errors), so it wraps
//!   the source adapter's connector.
//! - [`JavaSinkTask`]: `SINK_START` (Java's `initialize` + `start`), `SINK_OPEN`, `SINK_PUT`
//!   (records in the binary codec, one encoder per task, split into frames of about 1 MiB),
//!   `SINK_PRE_COMMIT`, `SINK_CLOSE`, `SINK_STOP`; the task's `requestCommit()` comes back as a
//!   `SINK_REQUEST_COMMIT` notify that sets the task context's [`CommitRequest`], its
//!   `offset`, `pause` and `resume` as `SINK_CONSUMER` notifies recorded in its
//!   [`ConsumerRequests`] (applied by the sink loop before it reads again). Notifies come
//!   before the answer of the call that made them, so a rewind asked in `open` applies to the
//!   records that follow it. `put` is also called with no records after an empty poll, as
//!   Kafka Connect does.
//!
//! A `RetriableException` from `put` is a retriable [`ConnectError`] (the loop redelivers the
//! batch); any other exception fails the task with the Java stack trace.

use std::sync::Arc;

use async_trait::async_trait;
use connect_api::{
    CommitRequest, ConfigDef, ConfigMap, ConnectError, ConnectorContext, ConsumerRequests,
    ErrantRecords, PluginDesc, PluginKind, SinkConnector, SinkPlugin, SinkRecord, SinkTask,
    SinkTaskContext, SourceConnector, SourcePlugin, TopicPartition,
};
use serde_json::json;

/// Offsets per topic partition (the next offset to read).
type PartitionOffsets = std::collections::BTreeMap<TopicPartition, i64>;

use super::codec::{self, Encoder, SinkRecordMeta};
use super::control::Inbound;
use super::source::{connect_error, json_payload, JavaClass};
use super::{ControlConn, JavaSourcePlugin, MessageType, PluginHost};

/// Encoded records per `SINK_PUT` frame, about (a batch is split beyond it).
const PUT_CHUNK_BYTES: usize = 1024 * 1024;

/// A Java sink connector of `plugin.path`, as a [`SinkPlugin`].
pub struct JavaSinkPlugin {
    desc: PluginDesc,
    /// Runs the connector itself (its lifecycle is the source connectors' one), and holds the
    /// host and the class the tasks run with.
    lifecycle: JavaSourcePlugin,
}

impl std::fmt::Debug for JavaSinkPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaSinkPlugin")
            .field("java", &self.lifecycle.java)
            .finish_non_exhaustive()
    }
}

impl JavaSinkPlugin {
    /// The sink connector `class` in `version`, found at `location`, run by `host`.
    pub fn new(host: PluginHost, class: &str, version: &str, location: &str) -> Self {
        let lifecycle = JavaSourcePlugin::new(host, class, version, location);
        Self {
            desc: PluginDesc {
                kind: PluginKind::Sink,
                ..lifecycle.desc()
            },
            lifecycle,
        }
    }
}

impl SinkPlugin for JavaSinkPlugin {
    fn desc(&self) -> PluginDesc {
        self.desc
    }

    /// Empty: the connector's `ConfigDef` lives in Java (its keys are not checked here).
    fn config_def(&self) -> ConfigDef {
        ConfigDef::new()
    }

    fn new_connector(&self) -> Box<dyn SinkConnector> {
        Box::new(JavaSinkConnector {
            inner: self.lifecycle.new_java_connector(),
        })
    }

    fn new_task(&self) -> Box<dyn SinkTask> {
        Box::new(JavaSinkTask {
            host: self.lifecycle.host.clone(),
            java: self.lifecycle.java.clone(),
            running: None,
            encoder: Encoder::new(),
        })
    }
}

/// A Java sink connector instance in the plugin host.
pub struct JavaSinkConnector {
    inner: super::source::JavaSourceConnector,
}

#[async_trait]
impl SinkConnector for JavaSinkConnector {
    fn initialize(&mut self, ctx: ConnectorContext) {
        self.inner.initialize(ctx);
    }

    async fn start(&mut self, props: &ConfigMap) -> connect_api::Result<()> {
        self.inner.start(props).await
    }

    fn task_configs(&self, max_tasks: usize) -> connect_api::Result<Vec<ConfigMap>> {
        self.inner.task_configs(max_tasks)
    }

    async fn stop(&mut self) -> connect_api::Result<()> {
        self.inner.stop().await
    }

    fn alter_offsets(
        &self,
        props: &ConfigMap,
        offsets: &[(TopicPartition, Option<i64>)],
    ) -> connect_api::Result<bool> {
        let sink: Vec<serde_json::Value> = offsets
            .iter()
            .map(|(tp, o)| json!({"topic": tp.topic, "partition": tp.partition, "offset": o}))
            .collect();
        let answer = self.inner.ask_fresh(
            MessageType::CONN_ALTER_OFFSETS,
            props,
            Some(("sink", sink.into())),
        )?;
        Ok(answer.get("handled").and_then(serde_json::Value::as_bool) == Some(true))
    }
}

/// A Java sink task instance in the plugin host.
pub struct JavaSinkTask {
    host: PluginHost,
    java: JavaClass,
    /// The task's id in the host (`<connector>-<task>`) and the JVM's connection, once started.
    running: Option<(String, ControlConn)>,
    /// Encodes this task's records (the host keeps one decoder per task).
    encoder: Encoder,
}

/// The host's messages to a sink task: its `requestCommit()` and the records its
/// `ErrantRecordReporter` reports.
struct SinkTaskInbound {
    commit_request: CommitRequest,
    errant_records: ErrantRecords,
    consumer: ConsumerRequests,
}

/// A `SINK_CONSUMER` body.
#[derive(serde::Deserialize)]
struct ConsumerRequest {
    op: String,
    partitions: Vec<RequestedPartition>,
}

#[derive(serde::Deserialize)]
struct RequestedPartition {
    topic: String,
    partition: i32,
    #[serde(default)]
    offset: Option<i64>,
}

impl SinkTaskInbound {
    /// Records a `SINK_CONSUMER` request (the Java side sends only well-formed ones).
    fn consumer_request(&self, body: &[u8]) -> Result<(), String> {
        let request: ConsumerRequest = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        let partitions = request.partitions.into_iter().map(|p| {
            (
                TopicPartition {
                    topic: p.topic,
                    partition: p.partition,
                },
                p.offset,
            )
        });
        match request.op.as_str() {
            "rewind" => {
                for (tp, offset) in partitions {
                    let offset = offset.ok_or("a rewind without an offset")?;
                    self.consumer.rewind(tp, offset);
                }
            }
            "pause" => self.consumer.pause(partitions.map(|(tp, _)| tp)),
            "resume" => self.consumer.resume(partitions.map(|(tp, _)| tp)),
            other => return Err(format!("unknown operation {other:?}")),
        }
        Ok(())
    }
}

/// A `SINK_ERRANT_RECORD` body.
#[derive(serde::Deserialize)]
struct ErrantReport {
    /// The record's index in the put batch; -1 when it was none of the batch.
    index: i64,
    error: super::JavaError,
}

impl Inbound for SinkTaskInbound {
    fn request(&self, kind: MessageType, _body: &[u8]) -> Result<Vec<u8>, String> {
        Err(format!("sink tasks take no {} request", kind.name()))
    }

    fn notify(&self, kind: MessageType, body: &[u8]) {
        if kind == MessageType::SINK_REQUEST_COMMIT {
            self.commit_request.request();
        } else if kind == MessageType::SINK_CONSUMER {
            if let Err(e) = self.consumer_request(body) {
                tracing::error!(error = %e, "The plugin host sent a SINK_CONSUMER notify that cannot be read.");
            }
        } else if kind == MessageType::SINK_ERRANT_RECORD {
            // An unreadable report still fails the record's batch: none is lost unseen.
            let (index, error) = match serde_json::from_slice::<ErrantReport>(body) {
                Ok(r) => (
                    usize::try_from(r.index).unwrap_or(usize::MAX),
                    super::source::java_error(&r.error),
                ),
                Err(e) => (
                    usize::MAX,
                    ConnectError::Other(format!(
                        "an errant record report that cannot be read: {e}"
                    )),
                ),
            };
            self.errant_records.report(index, error);
        }
    }
}

fn partitions_json(partitions: &[TopicPartition]) -> serde_json::Value {
    partitions
        .iter()
        .map(|tp| json!({"topic": tp.topic, "partition": tp.partition}))
        .collect()
}

/// The offsets of a `SINK_PRE_COMMIT` answer.
#[derive(serde::Deserialize)]
struct Committable {
    offsets: Vec<CommittableOffset>,
}

#[derive(serde::Deserialize)]
struct CommittableOffset {
    topic: String,
    partition: i32,
    offset: i64,
}

/// The `SINK_PUT` payloads of `records`: the task id, a count, that many encoded records, each
/// payload about [`PUT_CHUNK_BYTES`] at most (one record more when a record alone is larger).
fn put_payloads(
    encoder: &mut Encoder,
    id: &str,
    records: &[SinkRecord],
) -> Result<Vec<Vec<u8>>, codec::CodecError> {
    let mut payloads = Vec::new();
    let mut body = Vec::new();
    let mut count = 0u64;
    let finish = |body: &mut Vec<u8>, count: &mut u64, payloads: &mut Vec<Vec<u8>>| {
        let mut p = Vec::with_capacity(body.len() + id.len() + 16);
        codec::put_str(&mut p, id);
        codec::put_uvarint(&mut p, *count);
        p.append(body);
        payloads.push(p);
        *count = 0;
    };
    for (i, r) in records.iter().enumerate() {
        let meta = SinkRecordMeta::of(r, u32::try_from(i).unwrap_or(u32::MAX));
        encoder.sink_record(r, &meta, &mut body)?;
        count += 1;
        if body.len() >= PUT_CHUNK_BYTES {
            finish(&mut body, &mut count, &mut payloads);
        }
    }
    if count > 0 || payloads.is_empty() {
        finish(&mut body, &mut count, &mut payloads);
    }
    Ok(payloads)
}

impl JavaSinkTask {
    fn running(&self) -> Result<&(String, ControlConn), ConnectError> {
        self.running
            .as_ref()
            .ok_or_else(|| ConnectError::Other("the Java sink task was not started".into()))
    }

    async fn call(
        &self,
        kind: MessageType,
        what: &str,
        body: serde_json::Value,
    ) -> connect_api::Result<Vec<u8>> {
        let (_, conn) = self.running()?;
        conn.request(kind, json_payload(&body))
            .await
            .map_err(|e| connect_error(what, e))
    }
}

#[async_trait]
impl SinkTask for JavaSinkTask {
    async fn start(&mut self, ctx: SinkTaskContext, props: &ConfigMap) -> connect_api::Result<()> {
        let id = format!("{}-{}", ctx.connector, ctx.task);
        let conn =
            self.host.control().await.map_err(|e| {
                connect_error(&format!("starting a task of {}", self.java.class), e)
            })?;
        conn.register_target(
            &id,
            Arc::new(SinkTaskInbound {
                commit_request: ctx.commit_request.clone(),
                errant_records: ctx.errant_records.clone(),
                consumer: ctx.consumer.clone(),
            }),
        );
        let started = conn
            .request(
                MessageType::SINK_START,
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
        if let Err(e) = started {
            conn.unregister_target(&id);
            return Err(connect_error("Java sink task start", e));
        }
        self.running = Some((id, conn));
        Ok(())
    }

    async fn open(&mut self, partitions: &[TopicPartition]) -> connect_api::Result<()> {
        let id = self.running()?.0.clone();
        self.call(
            MessageType::SINK_OPEN,
            "Java sink task open",
            json!({"task": id, "partitions": partitions_json(partitions)}),
        )
        .await
        .map(|_| ())
    }

    async fn put(&mut self, records: Vec<SinkRecord>) -> connect_api::Result<()> {
        let (id, conn) = self.running()?.clone();
        let payloads = put_payloads(&mut self.encoder, &id, &records).map_err(|e| {
            self.encoder = Encoder::new();
            ConnectError::Data(format!(
                "the records cannot be sent to the plugin host: {e}"
            ))
        })?;
        for payload in payloads {
            if let Err(e) = conn.request(MessageType::SINK_PUT, payload).await {
                // The host starts a fresh decoder after a failed put: so does the encoder.
                self.encoder = Encoder::new();
                return Err(connect_error("Java sink task put", e));
            }
        }
        Ok(())
    }

    async fn pre_commit(
        &mut self,
        offsets: PartitionOffsets,
    ) -> connect_api::Result<PartitionOffsets> {
        let id = self.running()?.0.clone();
        let current: Vec<serde_json::Value> = offsets
            .iter()
            .map(|(tp, o)| json!({"topic": tp.topic, "partition": tp.partition, "offset": o}))
            .collect();
        let answer = self
            .call(
                MessageType::SINK_PRE_COMMIT,
                "Java sink task preCommit",
                json!({"task": id, "offsets": current}),
            )
            .await?;
        let safe: Committable = serde_json::from_slice(&answer).map_err(|e| {
            ConnectError::Other(format!("the plugin host's SINK_PRE_COMMIT answer: {e}"))
        })?;
        Ok(safe
            .offsets
            .into_iter()
            .map(|o| {
                (
                    TopicPartition {
                        topic: o.topic,
                        partition: o.partition,
                    },
                    o.offset,
                )
            })
            .collect())
    }

    async fn close(&mut self, partitions: &[TopicPartition]) -> connect_api::Result<()> {
        // Nothing to close in a JVM that died (its task died with it).
        if !self.running.as_ref().is_some_and(|(_, c)| c.is_alive()) {
            return Ok(());
        }
        let id = self.running()?.0.clone();
        self.call(
            MessageType::SINK_CLOSE,
            "Java sink task close",
            json!({"task": id, "partitions": partitions_json(partitions)}),
        )
        .await
        .map(|_| ())
    }

    fn puts_when_idle(&self) -> bool {
        true
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
            .request(MessageType::SINK_STOP, json_payload(&json!({ "task": id })))
            .await;
        conn.unregister_target(&id);
        stopped
            .map(|_| ())
            .map_err(|e| connect_error("Java sink task stop", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::{ConnectRecord, Schema, SchemaType, TimestampType, Value};

    fn record(value: &str, offset: i64) -> SinkRecord {
        SinkRecord {
            record: ConnectRecord {
                topic: "t".into(),
                kafka_partition: Some(0),
                key_schema: None,
                key: Value::Null,
                value_schema: Some(Schema::required(SchemaType::String)),
                value: Value::String(value.into()),
                timestamp: Some(1),
                headers: Default::default(),
            },
            kafka_offset: offset,
            timestamp_type: TimestampType::CreateTime,
        }
    }

    #[test]
    fn a_large_batch_is_split_into_frames_that_each_carry_the_task_and_a_count() {
        let big = "x".repeat(PUT_CHUNK_BYTES / 2 + 10);
        let records = vec![record(&big, 0), record(&big, 1), record("small", 2)];
        let payloads = put_payloads(&mut Encoder::new(), "s-0", &records).unwrap();
        assert_eq!(payloads.len(), 2);
        let counts: Vec<usize> = payloads
            .iter()
            .map(|p| {
                let mut r = codec::Reader::new(p);
                assert_eq!(r.str("id").unwrap(), "s-0");
                r.len("n").unwrap()
            })
            .collect();
        assert_eq!(counts, [2, 1]);
        // No records: one empty put (Kafka calls put with an empty batch too).
        let empty = put_payloads(&mut Encoder::new(), "s-0", &[]).unwrap();
        assert_eq!(empty.len(), 1);
    }
}
