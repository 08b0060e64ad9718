//! Java plugins from `plugin.path` (issue 28): discovery, the plugin host, its wire encodings,
//! and the acceptance tests on real plugins (Debezium, Kafka's Verifiable connectors).
//! One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod codec;
mod debezium;
