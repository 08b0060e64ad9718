//! The label sets of the metric families: Kafka Connect's JMX tags (`connector`, `task`) and
//! the labels that carry string-valued metrics (`status="running"`).

use prometheus_client::encoding::EncodeLabelSet;

/// `{connector="c"}`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ConnectorLabels {
    /// The connector's name.
    pub connector: String,
}

/// `{connector="c",task="0"}`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TaskLabels {
    /// The connector's name.
    pub connector: String,
    /// The task number.
    pub task: String,
}

/// `{connector="c",task="0",stage="convert"}`: a stage of a task's record pipeline.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StageLabels {
    /// The connector's name.
    pub connector: String,
    /// The task number.
    pub task: String,
    /// `convert`, `transform` or `produce`.
    pub stage: &'static str,
}

/// A string-valued metric of a connector: `{connector="c",<name>="<value>"}`, the gauge is 1.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ConnectorStatusLabels {
    /// The connector's name.
    pub connector: String,
    /// The lowercase state (`running`, `paused`, `failed`, ...).
    pub status: String,
}

/// The string-valued metrics of a connector's plugin, in one gauge (value 1).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ConnectorInfoLabels {
    /// The connector's name.
    pub connector: String,
    /// `source` or `sink`.
    pub connector_type: String,
    /// The connector's class, as configured.
    pub connector_class: String,
    /// The plugin's version.
    pub connector_version: String,
}

/// A task's lowercase state: `{connector="c",task="0",status="running"}`, the gauge is 1.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TaskStatusLabels {
    /// The connector's name.
    pub connector: String,
    /// The task number.
    pub task: String,
    /// The lowercase state.
    pub status: String,
}

/// The string-valued metrics of the worker group's last rebalance (value 1).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RebalanceInfoLabels {
    /// `eager`, `compatible` or `sessioned` (`none` in a one-worker cluster on the embedded log).
    pub connect_protocol: String,
    /// The leader's REST URL.
    pub leader_name: String,
}
