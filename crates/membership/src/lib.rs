//! Kafka Connect worker group membership on Kafka's own group coordinator (reference §10).
//!
//! librdkafka cannot run a custom group protocol, so this crate speaks the Kafka protocol
//! directly (messages from the `kafka-protocol` crate, tokio TCP, optional TLS and SASL):
//! [`protocol`] is the Connect sub-protocol's binary formats, [`assignor`] the leader's
//! assignment logic, and [`member::GroupMember`] the JoinGroup/SyncGroup/Heartbeat loop of one
//! worker.
//!
//! A herder uses it like this:
//!
//! ```ignore
//! let mut config = MemberConfig::new(&bootstrap, &group_id, &rest_url);
//! config.protocol = ConnectProtocol::from_config(&connect_protocol).unwrap();
//! let (member, mut events) = GroupMember::join(config, Arc::new(my_config_view))?;
//! while let Some(event) = events.recv().await {
//!     match event {
//!         MemberEvent::Assigned(a) if a.error != NO_ERROR => { /* read configs, then */ member.request_rejoin() }
//!         MemberEvent::Assigned(a) => {
//!             stop(&a.revoked);
//!             start(&a.assigned);
//!             if !a.revoked.is_empty() && a.protocol.is_incremental() { member.request_rejoin() }
//!         }
//!         MemberEvent::Revoked(all) => stop(&all),                  // eager protocol
//!         MemberEvent::MembershipLost { .. } => stop_everything(),
//!     }
//! }
//! member.leave().await;
//! ```

pub mod assignor;
pub mod connection;
pub mod error;
pub mod member;
pub mod protocol;
mod sasl;
pub mod security;

pub use error::MembershipError;
pub use member::{Assigned, ClusterView, GroupMember, MemberConfig, MemberEvent};
