//! What the herder reports, shaped like Kafka Connect's REST entities (`ConnectorInfo`,
//! `ConnectorStateInfo`, ...), serialized with the same field names.

use connect_api::ConfigMap;
use serde::Serialize;

/// `source`, `sink` or `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConnectorType {
    /// A source connector.
    Source,
    /// A sink connector.
    Sink,
    /// Not known (e.g. its plugin is missing).
    Unknown,
}

/// `{"connector": name, "task": n}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskId {
    /// Connector name.
    pub connector: String,
    /// Task number.
    pub task: u32,
}

/// Kafka Connect's `ConnectorInfo`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConnectorInfo {
    /// Connector name.
    pub name: String,
    /// Its configuration as submitted.
    pub config: ConfigMap,
    /// Its tasks.
    pub tasks: Vec<TaskId>,
    /// `source` / `sink`.
    #[serde(rename = "type")]
    pub connector_type: ConnectorType,
}

/// The state of a connector instance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateInfo {
    /// `UNASSIGNED`, `RUNNING`, `PAUSED`, `FAILED`, `RESTARTING`, `STOPPED`.
    pub state: String,
    /// `host:port` of the worker running it.
    pub worker_id: String,
    /// The failure, when FAILED.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// The version of the plugin running it (KIP-891; left out when not known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The state of one task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskStateInfo {
    /// Task number.
    pub id: u32,
    /// `UNASSIGNED`, `RUNNING`, `PAUSED`, `FAILED`, `RESTARTING`.
    pub state: String,
    /// `host:port` of the worker running it.
    pub worker_id: String,
    /// The failure, when FAILED.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// The version of the plugin running it (KIP-891; left out when not known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// connect-rs's extension: the task's error counters under Kafka's `task-error-metrics`
    /// names (left out when the task does not run on this worker). REST shows them only on
    /// `?errorCounters=true`: Kafka Connect's `TaskState` has no such field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<crate::worker::error_counters::ErrorCounts>,
}

/// Kafka Connect's `ConnectorStateInfo`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConnectorStateInfo {
    /// Connector name.
    pub name: String,
    /// The connector instance's state.
    pub connector: StateInfo,
    /// Its tasks' states, by id.
    pub tasks: Vec<TaskStateInfo>,
    /// `source` / `sink`.
    #[serde(rename = "type")]
    pub connector_type: ConnectorType,
}
