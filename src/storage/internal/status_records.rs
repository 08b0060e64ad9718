//! Records of the status topic (`status.storage.topic`), as Kafka Connect's
//! `KafkaStatusBackingStore` writes and reads them, and [`StatusState`], the cache it keeps.
//!
//! | key | value |
//! |---|---|
//! | `status-connector-<name>` | `{"state":S,"trace":T,"worker_id":W,"generation":G}` |
//! | `status-task-<name>-<n>` | the same shape |
//! | `status-topic-<topic>:connector-<name>` | `{"topic":{"name":..,"connector":..,"task":n,"discoverTimestamp":ms}}` |
//!
//! `trace` and `version` are always written (`null` when there is none); DESTROYED is written as
//! a tombstone. `version` (the plugin version, KIP-891) is in the schema of Kafka Connect 4.x
//! (checked against the 4.3.1 jars); records of older workers have none.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use connect_api::{Schema, SchemaBuilder, SchemaRef, SchemaType, Value};

use super::json::{self, java_parse_int, java_split_dash, type_name, Obj};
use super::RecordError;

/// Key prefix of connector statuses.
pub const CONNECTOR_STATUS_PREFIX: &str = "status-connector-";
/// Key prefix of task statuses.
pub const TASK_STATUS_PREFIX: &str = "status-task-";
/// Key prefix of topic statuses (KIP-558 active topics).
pub const TOPIC_STATUS_PREFIX: &str = "status-topic-";
/// Separator between the topic and the connector in a topic-status key.
pub const TOPIC_STATUS_SEPARATOR: &str = ":connector-";

/// The state of a connector or task instance (Kafka's `AbstractStatus.State`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentState {
    /// Not assigned to a worker, or not started yet.
    Unassigned,
    /// Running.
    Running,
    /// Paused.
    Paused,
    /// Failed; the trace says why.
    Failed,
    /// Deleted; written as a tombstone, never shown.
    Destroyed,
    /// Being restarted.
    Restarting,
    /// Stopped (connectors only).
    Stopped,
}

impl ComponentState {
    /// Kafka's name (`UNASSIGNED`, `RUNNING`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Unassigned => "UNASSIGNED",
            Self::Running => "RUNNING",
            Self::Paused => "PAUSED",
            Self::Failed => "FAILED",
            Self::Destroyed => "DESTROYED",
            Self::Restarting => "RESTARTING",
            Self::Stopped => "STOPPED",
        }
    }

    /// The state of a name (`State.valueOf`: exact, case-sensitive).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "UNASSIGNED" => Self::Unassigned,
            "RUNNING" => Self::Running,
            "PAUSED" => Self::Paused,
            "FAILED" => Self::Failed,
            "DESTROYED" => Self::Destroyed,
            "RESTARTING" => Self::Restarting,
            "STOPPED" => Self::Stopped,
            _ => return None,
        })
    }
}

/// A connector's or task's status as stored (Kafka's `ConnectorStatus` / `TaskStatus`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The state.
    pub state: ComponentState,
    /// The failure's stack trace, when there is one.
    pub trace: Option<String>,
    /// `host:port` of the worker that wrote it.
    pub worker_id: String,
    /// The group generation of that worker when it wrote it (0 in standalone mode).
    pub generation: i32,
    /// The version of the plugin running the instance (KIP-891), when known.
    pub version: Option<String>,
}

/// A topic a connector's task used (Kafka's `TopicStatus`, KIP-558).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicStatus {
    /// The topic.
    pub topic: String,
    /// The connector.
    pub connector: String,
    /// The task that used it first.
    pub task: i32,
    /// When it was first used, in epoch milliseconds.
    pub discover_timestamp: i64,
}

/// One record of the status topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusRecord {
    /// `status-connector-<connector>`; `None` is a tombstone.
    Connector {
        /// Connector name.
        connector: String,
        /// The status, or `None` when deleted.
        status: Option<Status>,
    },
    /// `status-task-<connector>-<task>`; `None` is a tombstone.
    Task {
        /// Connector name.
        connector: String,
        /// Task number.
        task: u32,
        /// The status, or `None` when deleted.
        status: Option<Status>,
    },
    /// `status-topic-<topic>:connector-<connector>`; `None` is a tombstone (topic reset).
    Topic {
        /// The topic.
        topic: String,
        /// Connector name.
        connector: String,
        /// The topic status, or `None` when reset.
        status: Option<TopicStatus>,
    },
    /// A key of no known kind; Kafka logs and discards it.
    Unknown {
        /// The key.
        key: String,
    },
}

/// Kafka's `STATUS_SCHEMA_V0`.
fn status_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field("state", Schema::required(SchemaType::String))
            .field("trace", Schema::optional(SchemaType::String))
            .field("worker_id", Schema::required(SchemaType::String))
            .field("generation", Schema::required(SchemaType::Int32))
            .field("version", Schema::optional(SchemaType::String))
            .build()
    })
}

/// Kafka's `TOPIC_STATUS_SCHEMA_V0`: a map from `"topic"` to `TOPIC_STATUS_VALUE_SCHEMA_V0`.
fn topic_status_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        let value = SchemaBuilder::struct_()
            .field("name", Schema::required(SchemaType::String))
            .field("connector", Schema::required(SchemaType::String))
            .field("task", Schema::required(SchemaType::Int32))
            .field("discoverTimestamp", Schema::required(SchemaType::Int64))
            .build();
        SchemaBuilder::map(Schema::required(SchemaType::String), value).build()
    })
}

fn encode_status(status: Option<&Status>) -> Option<Vec<u8>> {
    let s = status.filter(|s| s.state != ComponentState::Destroyed)?;
    Some(json::write_struct(
        status_v0(),
        vec![
            Value::String(s.state.name().to_owned()),
            // A trace never carries a value a config provider resolved into the status topic.
            s.trace.as_deref().map_or(Value::Null, |t| {
                Value::String(crate::config::providers::secrets::redact(t).into_owned())
            }),
            Value::String(s.worker_id.clone()),
            Value::Int32(s.generation),
            s.version.clone().map_or(Value::Null, Value::String),
        ],
    ))
}

fn encode_topic_status(status: &TopicStatus) -> Vec<u8> {
    let schema = topic_status_v0();
    let inner = schema
        .value_schema
        .clone()
        .expect("the topic status schema is a map with a value schema");
    let inner = connect_api::Struct::from_values(
        inner,
        vec![
            Value::String(status.topic.clone()),
            Value::String(status.connector.clone()),
            Value::Int32(status.task),
            Value::Int64(status.discover_timestamp),
        ],
    )
    .expect("topic status values are in field order");
    json::internal_converter()
        .serialize(
            Some(schema),
            &Value::Map(vec![(
                Value::String("topic".to_owned()),
                Value::Struct(inner),
            )]),
        )
        .expect("topic status values fit their schema")
        .unwrap_or_default()
}

impl StatusRecord {
    /// The record's key, as `KafkaStatusBackingStore` builds it.
    pub fn key(&self) -> String {
        match self {
            Self::Connector { connector, .. } => format!("{CONNECTOR_STATUS_PREFIX}{connector}"),
            Self::Task {
                connector, task, ..
            } => format!("{TASK_STATUS_PREFIX}{connector}-{task}"),
            Self::Topic {
                topic, connector, ..
            } => format!("{TOPIC_STATUS_PREFIX}{topic}{TOPIC_STATUS_SEPARATOR}{connector}"),
            Self::Unknown { key } => key.clone(),
        }
    }

    /// The key and value bytes exactly as Kafka Connect writes them; `None` is a tombstone
    /// (also for a DESTROYED status). An [`StatusRecord::Unknown`] record has no value.
    pub fn encode(&self) -> (String, Option<Vec<u8>>) {
        let value = match self {
            Self::Connector { status, .. } | Self::Task { status, .. } => {
                encode_status(status.as_ref())
            }
            Self::Topic { status, .. } => status.as_ref().map(encode_topic_status),
            Self::Unknown { .. } => None,
        };
        (self.key(), value)
    }

    /// Reads a record of the status topic as `KafkaStatusBackingStore.read` does; keys of no
    /// known kind give [`StatusRecord::Unknown`].
    ///
    /// # Errors
    /// [`RecordError::Key`] for a key Kafka discards (empty connector, task key without a
    /// task id, topic key without `:`), [`RecordError::Conversion`] / [`RecordError::Value`]
    /// for a value Kafka fails to parse (e.g. an unknown state or a non-integer generation).
    pub fn decode(key: &[u8], value: Option<&[u8]>) -> Result<Self, RecordError> {
        let key = String::from_utf8_lossy(key);
        let key = key.as_ref();
        if let Some(connector) = key.strip_prefix(CONNECTOR_STATUS_PREFIX) {
            if connector.is_empty() {
                return Err(RecordError::key(key, "the connector name is empty"));
            }
            Ok(Self::Connector {
                connector: connector.to_owned(),
                status: value.map(|v| decode_status(key, v)).transpose()?,
            })
        } else if key.starts_with(TASK_STATUS_PREFIX) {
            let parts = java_split_dash(key);
            let task = (parts.len() >= 4)
                .then(|| java_parse_int(parts[parts.len() - 1]))
                .flatten()
                .and_then(|t| u32::try_from(t).ok())
                .ok_or_else(|| RecordError::key(key, "it is not a task status key"))?;
            Ok(Self::Task {
                connector: parts[2..parts.len() - 1].join("-"),
                task,
                status: value.map(|v| decode_status(key, v)).transpose()?,
            })
        } else if key.starts_with(TOPIC_STATUS_PREFIX) {
            let (topic, connector) = parse_topic_key(key)?;
            Ok(Self::Topic {
                topic,
                connector,
                status: value.map(|v| decode_topic_status(key, v)).transpose()?,
            })
        } else {
            Ok(Self::Unknown {
                key: key.to_owned(),
            })
        }
    }
}

/// Kafka's topic-status key parsing: the topic runs to the first `:`, the connector starts
/// `":connector-".length()` characters after it (the separator's text is not checked).
fn parse_topic_key(key: &str) -> Result<(String, String), RecordError> {
    let begin = TOPIC_STATUS_PREFIX.len();
    let delimiter = key
        .find(':')
        .filter(|d| *d >= begin)
        .ok_or_else(|| RecordError::key(key, "it has no ':' after the topic"))?;
    let topic = &key[begin..delimiter];
    if topic.is_empty() {
        return Err(RecordError::key(key, "the topic is empty"));
    }
    // Skip as many UTF-16 units as the separator has (Java indexes strings by them).
    let mut units = 0;
    let mut start = None;
    for (i, c) in key[delimiter..].char_indices() {
        if units == TOPIC_STATUS_SEPARATOR.len() {
            start = Some(delimiter + i);
            break;
        }
        units += c.len_utf16();
    }
    let connector = match start {
        Some(s) => &key[s..],
        None if units == TOPIC_STATUS_SEPARATOR.len() => "",
        None => return Err(RecordError::key(key, "it is too short")),
    };
    if connector.is_empty() {
        return Err(RecordError::key(key, "the connector name is empty"));
    }
    Ok((topic.to_owned(), connector.to_owned()))
}

fn decode_status(key: &str, bytes: &[u8]) -> Result<Status, RecordError> {
    let value = json::read(key, Some(bytes))?;
    let obj = Obj::of(&value).ok_or_else(|| {
        RecordError::value(
            key,
            format!("expected a JSON object, found {}", type_name(Some(&value))),
        )
    })?;
    let state = obj
        .str("state")
        .and_then(ComponentState::parse)
        .ok_or_else(|| RecordError::value(key, "'state' is not a known state"))?;
    let optional_text = |name: &str| match obj.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(RecordError::value(
            key,
            format!(
                "'{name}' should be a string but is {}",
                type_name(Some(other))
            ),
        )),
    };
    let trace = optional_text("trace")?;
    let version = optional_text("version")?;
    let worker_id = obj.str("worker_id").ok_or_else(|| {
        RecordError::value(
            key,
            format!(
                "'worker_id' should be a string but is {}",
                type_name(obj.get("worker_id"))
            ),
        )
    })?;
    let generation = obj.long("generation").ok_or_else(|| {
        RecordError::value(
            key,
            format!(
                "'generation' should be an integer but is {}",
                type_name(obj.get("generation"))
            ),
        )
    })?;
    Ok(Status {
        state,
        trace,
        worker_id: worker_id.to_owned(),
        // Java reads a Long and keeps its `intValue()`.
        #[allow(clippy::cast_possible_truncation)]
        generation: generation as i32,
        version,
    })
}

fn decode_topic_status(key: &str, bytes: &[u8]) -> Result<TopicStatus, RecordError> {
    let value = json::read(key, Some(bytes))?;
    let inner = Obj::of(&value)
        .and_then(|o| o.get("topic"))
        .and_then(Obj::of)
        .ok_or_else(|| RecordError::value(key, "expected an object with a 'topic' object"))?;
    let text = |name: &str| {
        inner.str(name).map(str::to_owned).ok_or_else(|| {
            RecordError::value(
                key,
                format!(
                    "'{name}' should be a string but is {}",
                    type_name(inner.get(name))
                ),
            )
        })
    };
    let long = |name: &str| {
        inner.long(name).ok_or_else(|| {
            RecordError::value(
                key,
                format!(
                    "'{name}' should be an integer but is {}",
                    type_name(inner.get(name))
                ),
            )
        })
    };
    Ok(TopicStatus {
        topic: text("name")?,
        connector: text("connector")?,
        #[allow(clippy::cast_possible_truncation)]
        task: long("task")? as i32,
        discover_timestamp: long("discoverTimestamp")?,
    })
}

/// The statuses read from the status topic, with Kafka Connect's rules (its
/// `KafkaStatusBackingStore` cache). A status becomes visible only when read back.
#[derive(Debug, Clone, Default)]
pub struct StatusState {
    connectors: BTreeMap<String, Status>,
    tasks: BTreeMap<String, BTreeMap<u32, Status>>,
    topics: BTreeMap<String, BTreeMap<String, TopicStatus>>,
}

impl StatusState {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes and applies one record read from the topic.
    ///
    /// # Errors
    /// The decoding error, for the caller to log; the record is discarded.
    pub fn apply_raw(&mut self, key: &[u8], value: Option<&[u8]>) -> Result<bool, RecordError> {
        Ok(self.apply(StatusRecord::decode(key, value)?))
    }

    /// Applies one record read from the topic; `false` when it was ignored. A connector
    /// tombstone also forgets the connector's task statuses; an UNASSIGNED task status is
    /// ignored while the cached one is RUNNING with a generation at least as new (a stale
    /// write racing a rebalance).
    pub fn apply(&mut self, record: StatusRecord) -> bool {
        match record {
            StatusRecord::Connector {
                connector,
                status: None,
            } => {
                self.connectors.remove(&connector);
                self.tasks.remove(&connector);
            }
            StatusRecord::Connector {
                connector,
                status: Some(status),
            } => {
                self.connectors.insert(connector, status);
            }
            StatusRecord::Task {
                connector,
                task,
                status: None,
            } => {
                if let Some(tasks) = self.tasks.get_mut(&connector) {
                    tasks.remove(&task);
                    if tasks.is_empty() {
                        self.tasks.remove(&connector);
                    }
                }
            }
            StatusRecord::Task {
                connector,
                task,
                status: Some(status),
            } => {
                let tasks = self.tasks.entry(connector).or_default();
                if let Some(cached) = tasks.get(&task) {
                    if status.state == ComponentState::Unassigned
                        && cached.state == ComponentState::Running
                        && cached.generation >= status.generation
                    {
                        return false;
                    }
                }
                tasks.insert(task, status);
            }
            StatusRecord::Topic {
                topic,
                connector,
                status: None,
            } => {
                if let Some(topics) = self.topics.get_mut(&connector) {
                    topics.remove(&topic);
                }
            }
            StatusRecord::Topic {
                topic,
                connector,
                status: Some(status),
            } => {
                self.topics
                    .entry(connector)
                    .or_default()
                    .insert(topic, status);
            }
            StatusRecord::Unknown { .. } => return false,
        }
        true
    }

    /// Whether a "safe" write (`putSafe`: failures, shutdowns, UNASSIGNED) of `status` may go
    /// out: there is no cached status, or it was written by the same worker, or by a
    /// generation no newer than `status`'s.
    pub fn is_safe_to_write(cached: Option<&Status>, status: &Status) -> bool {
        cached.is_none_or(|c| c.worker_id == status.worker_id || c.generation <= status.generation)
    }

    /// [`is_safe_to_write`](Self::is_safe_to_write) against the connector's cached status.
    pub fn connector_safe_to_write(&self, connector: &str, status: &Status) -> bool {
        Self::is_safe_to_write(self.connector(connector), status)
    }

    /// [`is_safe_to_write`](Self::is_safe_to_write) against the task's cached status.
    pub fn task_safe_to_write(&self, connector: &str, task: u32, status: &Status) -> bool {
        Self::is_safe_to_write(self.task(connector, task), status)
    }

    /// The connector's status.
    pub fn connector(&self, connector: &str) -> Option<&Status> {
        self.connectors.get(connector)
    }

    /// Connectors with a status, sorted.
    pub fn connectors(&self) -> Vec<String> {
        self.connectors.keys().cloned().collect()
    }

    /// A task's status.
    pub fn task(&self, connector: &str, task: u32) -> Option<&Status> {
        self.tasks.get(connector)?.get(&task)
    }

    /// The statuses of the connector's tasks, by task number.
    pub fn tasks(&self, connector: &str) -> Vec<(u32, &Status)> {
        self.tasks
            .get(connector)
            .map(|t| t.iter().map(|(n, s)| (*n, s)).collect())
            .unwrap_or_default()
    }

    /// One topic the connector used.
    pub fn topic(&self, connector: &str, topic: &str) -> Option<&TopicStatus> {
        self.topics.get(connector)?.get(topic)
    }

    /// The topics the connector used, by name.
    pub fn topics(&self, connector: &str) -> Vec<&TopicStatus> {
        self.topics
            .get(connector)
            .map(|t| t.values().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
#[path = "status_records_tests.rs"]
mod tests;
