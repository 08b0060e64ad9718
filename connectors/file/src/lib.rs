//! FileStreamSource and FileStreamSink connectors for connect-rs (Kafka Connect's
//! `connect-file`).
//!
//! * [`FileStreamSourcePlugin`] (`org.apache.kafka.connect.file.FileStreamSourceConnector`)
//!   tails a file (or stdin) and emits each line as a `STRING` record. Its offsets are **byte**
//!   positions, so resuming after multi-byte UTF-8 text is exact (Kafka counts characters but
//!   skips bytes on restart).
//! * [`FileStreamSinkPlugin`] (`org.apache.kafka.connect.file.FileStreamSinkConnector`)
//!   appends `String.valueOf(value)` of each record plus `\n` to a file (or stdout). With
//!   `exactly.once=true` (unset: the default on the embedded log, for one task writing a file)
//!   it commits the file's length with its offsets and cuts the file back to it on start (see
//!   [`position`]).

pub mod config;
pub mod line_reader;
pub mod plugin;
pub mod position;
pub mod render;
pub mod sink_connector;
pub mod sink_task;
pub mod source_connector;
pub mod source_task;

pub use config::{
    sink_config_def, source_config_def, DEFAULT_TASK_BATCH_SIZE, EXACTLY_ONCE_CONFIG, FILE_CONFIG,
    SINK_CONNECTOR_CLASS, SOURCE_CONNECTOR_CLASS, TASK_BATCH_SIZE_CONFIG, TOPIC_CONFIG,
};
pub use plugin::{FileStreamSinkPlugin, FileStreamSourcePlugin};
pub use render::write_java_string;
pub use sink_connector::FileStreamSinkConnector;
pub use sink_task::FileStreamSinkTask;
pub use source_connector::FileStreamSourceConnector;
pub use source_task::FileStreamSourceTask;
