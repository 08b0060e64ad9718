//! Distributed mode: workers sharing configs, offsets and status topics, on the embedded log and on Kafka.
//! One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod distributed_embedded;
mod distributed_kafka;
