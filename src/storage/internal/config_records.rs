//! Records of the config topic (`config.storage.topic`), as Kafka Connect's
//! `KafkaConfigBackingStore` writes and reads them.
//!
//! | key | value |
//! |---|---|
//! | `connector-<name>` | `{"properties":{..}}`, tombstone = deleted |
//! | `task-<name>-<n>` | `{"properties":{..}}` (applied at the next `commit-<name>`) |
//! | `commit-<name>` | `{"tasks":N}` |
//! | `target-state-<name>` | `{"state":"PAUSED","state.v2":"STOPPED"}`, tombstone = deleted |
//! | `restart-connector-<name>` | `{"include-tasks":b,"only-failed":b}` |
//! | `tasks-fencing-<name>` | `{"task-count":N}` |
//! | `session-key` | `{"key":"<base64>","algorithm":"HmacSHA256","creation-timestamp":ms}` |
//! | `logger-cluster-<namespace>` | `{"level":"DEBUG"}` |
//!
//! Keys are UTF-8 strings; values are written by the internal converter (`JsonConverter`,
//! `schemas.enable=false`) from the same struct schemas Kafka uses, so the bytes are Kafka's.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use connect_api::{Schema, SchemaBuilder, SchemaRef, SchemaType, Value};

use super::json::{self, java_parse_int, java_split_dash, type_name, Obj};
use super::RecordError;
use crate::storage::TargetState;

/// Key prefix of connector configurations.
pub const CONNECTOR_PREFIX: &str = "connector-";
/// Key prefix of task configurations.
pub const TASK_PREFIX: &str = "task-";
/// Key prefix of task-config commits.
pub const COMMIT_TASKS_PREFIX: &str = "commit-";
/// Key prefix of target states.
pub const TARGET_STATE_PREFIX: &str = "target-state-";
/// Key prefix of restart requests (KIP-745).
pub const RESTART_PREFIX: &str = "restart-connector-";
/// Key prefix of task-count records (KIP-618, exactly-once source support).
pub const TASK_COUNT_RECORD_PREFIX: &str = "tasks-fencing-";
/// Key of the session key (KIP-507).
pub const SESSION_KEY_KEY: &str = "session-key";
/// Key prefix of cluster-wide logger levels (KIP-976).
pub const LOGGER_CLUSTER_PREFIX: &str = "logger-cluster-";

/// A connector's or task's raw configuration: Kafka allows `null` values (its schema is a map
/// of string to optional string). Written in key order.
pub type ConfigProps = BTreeMap<String, Option<String>>;

/// A session key (KIP-507) used to sign requests between workers. `Debug` hides the key.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionKey {
    /// The raw key bytes (written as standard base64).
    pub key: Vec<u8>,
    /// The key's algorithm, e.g. `HmacSHA256`.
    pub algorithm: String,
    /// When the key was created, in epoch milliseconds.
    pub creation_timestamp: i64,
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionKey")
            .field("key", &"[hidden]")
            .field("algorithm", &self.algorithm)
            .field("creation_timestamp", &self.creation_timestamp)
            .finish()
    }
}

/// One record of the config topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigRecord {
    /// `connector-<name>`: a connector's configuration; `None` is the tombstone of a deletion.
    Connector {
        /// Connector name.
        name: String,
        /// Its raw configuration, or `None` when deleted.
        props: Option<ConfigProps>,
    },
    /// `task-<connector>-<task>`: one task's configuration, applied at the next commit.
    Task {
        /// Connector name.
        connector: String,
        /// Task number.
        task: u32,
        /// The task's raw configuration.
        props: ConfigProps,
    },
    /// `commit-<connector>`: applies the buffered task configurations; `tasks` is their count.
    Commit {
        /// Connector name.
        connector: String,
        /// Number of tasks (ids `0..tasks`).
        tasks: u32,
    },
    /// `target-state-<connector>`: the connector's target state; `None` is the tombstone.
    TargetState {
        /// Connector name.
        connector: String,
        /// The target state, or `None` when deleted.
        state: Option<TargetState>,
    },
    /// `restart-connector-<connector>`: a restart request (KIP-745).
    RestartConnector {
        /// Connector name.
        connector: String,
        /// Whether the tasks restart too.
        include_tasks: bool,
        /// Whether only failed instances restart.
        only_failed: bool,
    },
    /// `session-key`: the cluster's current session key (KIP-507).
    SessionKey(SessionKey),
    /// `tasks-fencing-<connector>`: the task count recorded after zombie fencing (KIP-618).
    TaskCountFencing {
        /// Connector name.
        connector: String,
        /// Number of tasks fenced.
        task_count: u32,
    },
    /// `logger-cluster-<namespace>`: a cluster-wide logger level (KIP-976).
    LoggerCluster {
        /// The logger namespace.
        namespace: String,
        /// The level, e.g. `DEBUG`.
        level: String,
    },
    /// A key Kafka Connect does not know; it logs and discards such records.
    Unknown {
        /// The key.
        key: String,
    },
}

/// Kafka's `CONNECTOR_CONFIGURATION_V0` (also `TASK_CONFIGURATION_V0`):
/// `struct{properties: map<string, optional string>}`.
fn configuration_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field(
                "properties",
                SchemaBuilder::map(
                    Schema::required(SchemaType::String),
                    Schema::optional(SchemaType::String),
                )
                .build(),
            )
            .build()
    })
}

/// Kafka's `CONNECTOR_TASKS_COMMIT_V0`: `struct{tasks: int32}`.
fn tasks_commit_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field("tasks", Schema::required(SchemaType::Int32))
            .build()
    })
}

/// Kafka's `TARGET_STATE_V1`: `struct{state: string, state.v2: optional string}`.
fn target_state_v1() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field("state", Schema::required(SchemaType::String))
            .field("state.v2", Schema::optional(SchemaType::String))
            .build()
    })
}

/// Kafka's `TASK_COUNT_RECORD_V0`: `struct{task-count: int32}`.
fn task_count_record_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field("task-count", Schema::required(SchemaType::Int32))
            .build()
    })
}

/// Kafka's `SESSION_KEY_V0`: `struct{key: string, algorithm: string, creation-timestamp: int64}`.
fn session_key_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field("key", Schema::required(SchemaType::String))
            .field("algorithm", Schema::required(SchemaType::String))
            .field("creation-timestamp", Schema::required(SchemaType::Int64))
            .build()
    })
}

/// Kafka's `RESTART_REQUEST_V0`: `struct{include-tasks: boolean, only-failed: boolean}`.
fn restart_request_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field("include-tasks", Schema::required(SchemaType::Boolean))
            .field("only-failed", Schema::required(SchemaType::Boolean))
            .build()
    })
}

/// Kafka's `LOGGER_LEVEL_V0`: `struct{level: string}`.
fn logger_level_v0() -> &'static SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| {
        SchemaBuilder::struct_()
            .field("level", Schema::required(SchemaType::String))
            .build()
    })
}

/// Java's `TargetState.name()`.
pub fn target_state_name(state: TargetState) -> &'static str {
    match state {
        TargetState::Started => "STARTED",
        TargetState::Paused => "PAUSED",
        TargetState::Stopped => "STOPPED",
    }
}

/// Java's `TargetState.valueOf(name)` (exact, case-sensitive).
pub fn parse_target_state(name: &str) -> Option<TargetState> {
    match name {
        "STARTED" => Some(TargetState::Started),
        "PAUSED" => Some(TargetState::Paused),
        "STOPPED" => Some(TargetState::Stopped),
        _ => None,
    }
}

fn int32(n: u32) -> Value {
    // Task counts come from `int` in Kafka; larger counts cannot occur.
    Value::Int32(i32::try_from(n).unwrap_or(i32::MAX))
}

fn props_value(props: &ConfigProps) -> Value {
    Value::Map(
        props
            .iter()
            .map(|(k, v)| {
                (
                    Value::String(k.clone()),
                    v.clone().map_or(Value::Null, Value::String),
                )
            })
            .collect(),
    )
}

impl ConfigRecord {
    /// The record's key, as `KafkaConfigBackingStore` builds it.
    pub fn key(&self) -> String {
        match self {
            Self::Connector { name, .. } => format!("{CONNECTOR_PREFIX}{name}"),
            Self::Task {
                connector, task, ..
            } => format!("{TASK_PREFIX}{connector}-{task}"),
            Self::Commit { connector, .. } => format!("{COMMIT_TASKS_PREFIX}{connector}"),
            Self::TargetState { connector, .. } => format!("{TARGET_STATE_PREFIX}{connector}"),
            Self::RestartConnector { connector, .. } => format!("{RESTART_PREFIX}{connector}"),
            Self::SessionKey(_) => SESSION_KEY_KEY.to_owned(),
            Self::TaskCountFencing { connector, .. } => {
                format!("{TASK_COUNT_RECORD_PREFIX}{connector}")
            }
            Self::LoggerCluster { namespace, .. } => format!("{LOGGER_CLUSTER_PREFIX}{namespace}"),
            Self::Unknown { key } => key.clone(),
        }
    }

    /// The record's key and value bytes, exactly as Kafka Connect writes them; `None` is a
    /// tombstone. An [`ConfigRecord::Unknown`] record has no value (it is never written).
    pub fn encode(&self) -> (String, Option<Vec<u8>>) {
        let value = match self {
            Self::Connector { props: None, .. }
            | Self::TargetState { state: None, .. }
            | Self::Unknown { .. } => None,
            Self::Connector {
                props: Some(props), ..
            }
            | Self::Task { props, .. } => Some(json::write_struct(
                configuration_v0(),
                vec![props_value(props)],
            )),
            Self::Commit { tasks, .. } => {
                Some(json::write_struct(tasks_commit_v0(), vec![int32(*tasks)]))
            }
            Self::TargetState {
                state: Some(state), ..
            } => {
                // Workers before KIP-875 know no STOPPED: they read `state`, which says PAUSED.
                let old = match state {
                    TargetState::Stopped => TargetState::Paused,
                    s => *s,
                };
                Some(json::write_struct(
                    target_state_v1(),
                    vec![
                        Value::String(target_state_name(old).to_owned()),
                        Value::String(target_state_name(*state).to_owned()),
                    ],
                ))
            }
            Self::RestartConnector {
                include_tasks,
                only_failed,
                ..
            } => Some(json::write_struct(
                restart_request_v0(),
                vec![Value::Boolean(*include_tasks), Value::Boolean(*only_failed)],
            )),
            Self::SessionKey(k) => Some(json::write_struct(
                session_key_v0(),
                vec![
                    Value::String(STANDARD.encode(&k.key)),
                    Value::String(k.algorithm.clone()),
                    Value::Int64(k.creation_timestamp),
                ],
            )),
            Self::TaskCountFencing { task_count, .. } => Some(json::write_struct(
                task_count_record_v0(),
                vec![int32(*task_count)],
            )),
            Self::LoggerCluster { level, .. } => Some(json::write_struct(
                logger_level_v0(),
                vec![Value::String(level.clone())],
            )),
        };
        (self.key(), value)
    }

    /// Reads a record of the config topic as `KafkaConfigBackingStore` does: the value is
    /// converted first, then the key's prefix picks the record kind. Keys of no known kind give
    /// [`ConfigRecord::Unknown`].
    ///
    /// Lenient where Kafka is: `tasks` / `task-count` may be any JSON integer, `state.v2` is
    /// preferred over `state` (and ignored when it is not a string), a restart request's
    /// missing or non-boolean flags are `false`.
    ///
    /// # Errors
    /// [`RecordError::Conversion`] when the value is not JSON, [`RecordError::Key`] when a
    /// `task-` key has no task id, [`RecordError::Value`] when the value is not in its record
    /// kind's format (including a `null` task config, session key or logger level, which Kafka
    /// also ignores).
    pub fn decode(key: &[u8], value: Option<&[u8]>) -> Result<Self, RecordError> {
        // Kafka reads keys with StringDeserializer (malformed UTF-8 becomes U+FFFD).
        let key = String::from_utf8_lossy(key);
        let key = key.as_ref();
        let value = json::read(key, value)?;
        if let Some(connector) = key.strip_prefix(TARGET_STATE_PREFIX) {
            decode_target_state(key, connector, &value)
        } else if let Some(name) = key.strip_prefix(CONNECTOR_PREFIX) {
            if value.is_null() {
                return Ok(Self::Connector {
                    name: name.to_owned(),
                    props: None,
                });
            }
            Ok(Self::Connector {
                name: name.to_owned(),
                props: Some(decode_properties(key, &value)?),
            })
        } else if key.starts_with(TASK_PREFIX) {
            let (connector, task) = parse_task_key(key).ok_or_else(|| {
                RecordError::key(key, "it couldn't be parsed as a task config key")
            })?;
            if value.is_null() {
                return Err(RecordError::value(
                    key,
                    "the task configuration is unexpectedly null",
                ));
            }
            Ok(Self::Task {
                connector,
                task,
                props: decode_properties(key, &value)?,
            })
        } else if let Some(connector) = key.strip_prefix(COMMIT_TASKS_PREFIX) {
            Ok(Self::Commit {
                connector: connector.to_owned(),
                tasks: count_field(key, &value, "tasks")?,
            })
        } else if let Some(connector) = key.strip_prefix(RESTART_PREFIX) {
            let obj = object(key, &value)?;
            let flag = |name: &str| matches!(obj.get(name), Some(Value::Boolean(true)));
            Ok(Self::RestartConnector {
                connector: connector.to_owned(),
                include_tasks: flag("include-tasks"),
                only_failed: flag("only-failed"),
            })
        } else if let Some(connector) = key.strip_prefix(TASK_COUNT_RECORD_PREFIX) {
            Ok(Self::TaskCountFencing {
                connector: connector.to_owned(),
                task_count: count_field(key, &value, "task-count")?,
            })
        } else if key == SESSION_KEY_KEY {
            decode_session_key(key, &value)
        } else if let Some(namespace) = key.strip_prefix(LOGGER_CLUSTER_PREFIX) {
            let obj = object(key, &value)?;
            let level = obj.str("level").ok_or_else(|| {
                RecordError::value(
                    key,
                    format!(
                        "'level' should be a string but is {}",
                        type_name(obj.get("level"))
                    ),
                )
            })?;
            Ok(Self::LoggerCluster {
                namespace: namespace.to_owned(),
                level: level.to_owned(),
            })
        } else {
            Ok(Self::Unknown {
                key: key.to_owned(),
            })
        }
    }
}

/// `connector` and `task` of a `task-<connector>-<task>` key, parsed as Kafka does: the task id
/// is the last `-`-separated piece, the connector everything between `task-` and it.
pub fn parse_task_key(key: &str) -> Option<(String, u32)> {
    let parts = java_split_dash(key);
    if parts.len() < 3 {
        return None;
    }
    let task = java_parse_int(parts[parts.len() - 1])?;
    let task = u32::try_from(task).ok()?;
    Some((parts[1..parts.len() - 1].join("-"), task))
}

fn object<'a>(key: &str, value: &'a Value) -> Result<Obj<'a>, RecordError> {
    Obj::of(value).ok_or_else(|| {
        RecordError::value(
            key,
            format!("expected a JSON object, found {}", type_name(Some(value))),
        )
    })
}

fn decode_properties(key: &str, value: &Value) -> Result<ConfigProps, RecordError> {
    let obj = object(key, value)?;
    let props = obj.get("properties").and_then(Obj::of).ok_or_else(|| {
        RecordError::value(
            key,
            format!(
                "'properties' should be an object but is {}",
                type_name(obj.get("properties"))
            ),
        )
    })?;
    let mut out = ConfigProps::new();
    for (k, v) in props.entries() {
        let name = k.as_str().unwrap_or_default().to_owned();
        let v = match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => {
                return Err(RecordError::value(
                    key,
                    format!(
                        "property '{name}' should be a string but is {}",
                        type_name(Some(other))
                    ),
                ))
            }
        };
        out.insert(name, v);
    }
    Ok(out)
}

/// A task count as Kafka's `intValue`: an `Integer` or `Long` (cast to `int`).
fn count_field(key: &str, value: &Value, field: &str) -> Result<u32, RecordError> {
    let obj = object(key, value)?;
    let n = obj.long(field).ok_or_else(|| {
        RecordError::value(
            key,
            format!(
                "'{field}' should be an integer but is {}",
                type_name(obj.get(field))
            ),
        )
    })?;
    // Java truncates a Long to int; a negative count cannot describe tasks.
    #[allow(clippy::cast_possible_truncation)]
    let n = n as i32;
    u32::try_from(n).map_err(|_| RecordError::value(key, format!("'{field}' is negative ({n})")))
}

fn decode_target_state(
    key: &str,
    connector: &str,
    value: &Value,
) -> Result<ConfigRecord, RecordError> {
    if value.is_null() {
        return Ok(ConfigRecord::TargetState {
            connector: connector.to_owned(),
            state: None,
        });
    }
    let obj = object(key, value)?;
    // Records of workers before KIP-875 have only `state`; a non-string `state.v2` is ignored.
    let name = match obj.str("state.v2") {
        Some(s) => s,
        None => obj.str("state").ok_or_else(|| {
            RecordError::value(
                key,
                format!(
                    "'state' should be a string but is {}",
                    type_name(obj.get("state"))
                ),
            )
        })?,
    };
    let state = parse_target_state(name)
        .ok_or_else(|| RecordError::value(key, format!("invalid target state {name}")))?;
    Ok(ConfigRecord::TargetState {
        connector: connector.to_owned(),
        state: Some(state),
    })
}

fn decode_session_key(key: &str, value: &Value) -> Result<ConfigRecord, RecordError> {
    if value.is_null() {
        return Err(RecordError::value(
            key,
            "the session key is unexpectedly null",
        ));
    }
    let obj = object(key, value)?;
    let text = obj.str("key").ok_or_else(|| {
        RecordError::value(
            key,
            format!(
                "'key' should be a string but is {}",
                type_name(obj.get("key"))
            ),
        )
    })?;
    // Java's `Base64.getDecoder()`: the basic alphabet, padding accepted but not required.
    const JAVA_BASIC: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let bytes = JAVA_BASIC
        .decode(text)
        .map_err(|e| RecordError::value(key, format!("'key' is not base64: {e}")))?;
    let algorithm = obj.str("algorithm").ok_or_else(|| {
        RecordError::value(
            key,
            format!(
                "'algorithm' should be a string but is {}",
                type_name(obj.get("algorithm"))
            ),
        )
    })?;
    let creation_timestamp = obj.long("creation-timestamp").ok_or_else(|| {
        RecordError::value(
            key,
            format!(
                "'creation-timestamp' should be a long but is {}",
                type_name(obj.get("creation-timestamp"))
            ),
        )
    })?;
    Ok(ConfigRecord::SessionKey(SessionKey {
        key: bytes,
        algorithm: algorithm.to_owned(),
        creation_timestamp,
    }))
}

#[cfg(test)]
#[path = "config_records_tests.rs"]
mod tests;
