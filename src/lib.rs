//! connect-rs: Apache Kafka Connect rebuilt in Rust.
//!
//! Data flow (see `docs/architecture.md`): config files → [`config`] (validated with
//! ConfigDef) → [`worker`] starts connectors from [`plugins`] and runs their tasks; source tasks
//! produce through [`converters`] into [`topics`] and store offsets in [`storage`] after the
//! topic acknowledged them; sink tasks consume, convert, `put`, flush and commit.

pub mod cli;
pub mod commands;
pub mod config;
pub mod converters;
pub mod fs_hint;
pub mod fs_private;
pub mod herder;
pub mod jaas;
pub mod logging;
pub mod metrics;
pub mod plugin_host;
pub mod plugins;
pub mod progress;
pub mod rest;
pub mod shutdown;
pub mod storage;
pub mod suggest;
pub mod tls;
pub mod topics;
pub mod transforms;
pub mod worker;
