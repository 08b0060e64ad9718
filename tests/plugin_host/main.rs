//! Java plugins from `plugin.path` (issue 28): the plugin host JVM and its build, its wire
//! encodings, discovery (checked against Apache Kafka Connect itself), and the acceptance tests
//! on real plugins (Debezium, Kafka's Verifiable connectors), through the real binary and the
//! library. One test binary for the area (each binary links the whole runtime); one file per
//! part.

#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod codec;
mod commit_record;
mod connector_questions;
mod converter;
mod debezium;
mod distributed;
mod errant;
mod exactly_once_kafka;
mod faults;
mod file_edits;
mod host_process;
mod plugin_path;
mod poll_ahead;
mod scan;
mod sink;
mod smt_chain;
mod source;
mod validate;
mod worker_kills;
