//! The plugin contract of connect-rs.
//!
//! Connectors depend on this crate and nothing else of the runtime. It holds the data model
//! ([`Schema`], [`Value`], [`Struct`], [`Headers`], [`SourceRecord`], [`SinkRecord`]), the plugin
//! traits ([`SourceConnector`], [`SourceTask`], [`SinkConnector`], [`SinkTask`], [`Converter`],
//! [`HeaderConverter`], [`Transformation`], [`Predicate`]), the data-driven [`ConfigDef`] and the one error type [`ConnectError`].
//! Names and semantics follow Apache Kafka Connect's `connect-api`.

pub mod config_def;
pub mod connector;
pub mod connector_context;
pub mod consumer_requests;
pub mod converter;
pub mod error;
pub mod headers;
pub mod java_fmt;
pub mod logical;
pub mod plugin;
pub mod record;
pub mod record_metadata;
pub mod schema;
pub mod source_offset;
pub mod topic;
pub mod transformation;
pub mod value;
pub mod values;

pub use config_def::{
    ConfigDef, ConfigIssue, ConfigKey, ConfigType, ConfigValue, ConfigValues, Importance,
    Validator, Width,
};
pub use connector::{
    identical_task_configs, CommitRequest, ErrantRecord, ErrantRecords, ExactlyOnceSupport,
    InputProgress, OffsetReader, SinkConnector, SinkPositions, SinkTask, SinkTaskContext,
    SourceConnector, SourceOffsetChange, SourceTask, SourceTaskContext, TopicPartition,
    MAX_IDENTICAL_TASKS,
};
pub use connector_context::{ConnectorContext, ConnectorControl};
pub use consumer_requests::{ConsumerRequests, PendingConsumerRequests};
pub use converter::{Converter, HeaderConverter, SchemaAndValue};
pub use error::{ConnectError, Result};
pub use headers::{Header, Headers};
pub use plugin::{PluginDesc, PluginKind, SinkPlugin, SourcePlugin};
pub use record::{ConnectRecord, OffsetMap, SinkRecord, SourceRecord, TimestampType};
pub use record_metadata::{RecordCommit, RecordMetadata};
pub use schema::{Field, Schema, SchemaBuilder, SchemaRef, SchemaType};
pub use source_offset::SourceOffset;
pub use topic::topic_name_problem;
pub use transformation::{
    Predicate, PredicatePlugin, RecordContext, Transformation, TransformationPlugin,
};
pub use value::{Struct, Value};

/// A connector's or task's configuration: string keys to string values, as Java's
/// `Map<String, String>`.
pub type ConfigMap = std::collections::BTreeMap<String, String>;
