//! Kafka Connect worker group membership on Kafka's own group coordinator (reference §10).
//!
//! librdkafka cannot run a custom group protocol, so this crate speaks the Kafka protocol
//! directly (messages from the `kafka-protocol` crate, tokio TCP): [`protocol`] is the Connect
//! sub-protocol's binary formats, [`assignor`] the leader's assignment logic, and
//! [`member::GroupMember`] the JoinGroup/SyncGroup/Heartbeat loop of one worker.

pub mod assignor;
pub mod connection;
pub mod error;
pub mod member;
pub mod protocol;
mod sasl;
pub mod security;

pub use error::MembershipError;
pub use member::{Assigned, ClusterView, GroupMember, MemberConfig, MemberEvent};
