//! Differential tests: connect-rs beside Apache Kafka Connect's own classes and workers.
//! One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod compat_converter;
mod compat_internal_records;
mod compat_rest;
mod compat_transforms;
