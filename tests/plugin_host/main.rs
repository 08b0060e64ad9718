//! The Java plugin host (issue 28): plugin discovery, isolation and the host's services, each
//! checked against Apache Kafka Connect itself. One test binary for the area.

#[path = "../support/mod.rs"]
mod support;

mod scan;
