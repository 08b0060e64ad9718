//! The Java plugin host: runs Kafka Connect plugins found on `plugin.path` in one JVM
//! (issue 28). This module sees only `config`, `connect_api`, `fs_private` and `suggest`.

pub mod locations;
pub mod scan;
