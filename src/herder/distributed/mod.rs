//! Parts of the distributed herder (Kafka Connect's `DistributedHerder`): the worker cluster
//! shares connectors and tasks through Kafka's group protocol, keeps configurations, offsets
//! and statuses in internal topics, and signs the requests its workers send each other.

mod active_topics;
pub mod client;
pub mod cluster_loggers;
pub mod cluster_view;
pub mod herder;
pub mod internal_client;
pub mod member_config;
mod operations;
mod reconcile;
pub mod request_signature;
mod session_key;
mod statuses;
#[cfg(test)]
mod task_config_retry_tests;
#[cfg(test)]
mod view_offset_tests;
pub mod zombie_fencing;
