//! The librdkafka clients a worker's tasks share (issue 33): every client carries its own
//! threads, connections, metadata and buffers, so at-least-once source tasks whose settings are
//! the worker's own share one producer, and topic creation one admin client, instead of a
//! client per task. A connector with `producer.override.*` (or `admin.override.*`) and an
//! exactly-once task (its `transactional.id`) keep clients of their own.

use std::sync::{Arc, Mutex, Weak};

use rdkafka::admin::AdminClient;
use rdkafka::client::DefaultClientContext;

use super::producer::ProducerClient;
use crate::topics::TopicError;

/// `client.id` of the shared producer, unless the worker sets `producer.client.id`.
pub const SHARED_PRODUCER_CLIENT_ID: &str = "connect-rs-producer";
/// `client.id` of the shared admin client that creates source topics.
pub const SHARED_ADMIN_CLIENT_ID: &str = "connect-rs-adminclient";

/// One client made on first use and dropped with its last user.
pub struct SharedSlot<T> {
    slot: Mutex<Weak<T>>,
}

impl<T> Default for SharedSlot<T> {
    fn default() -> Self {
        Self {
            slot: Mutex::new(Weak::new()),
        }
    }
}

impl<T> SharedSlot<T> {
    /// The client, made by `make` when no user holds one now.
    ///
    /// # Errors
    /// `make`'s error.
    pub fn get_or_make(
        &self,
        make: impl FnOnce() -> Result<T, TopicError>,
    ) -> Result<Arc<T>, TopicError> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = slot.upgrade() {
            return Ok(client);
        }
        let client = Arc::new(make()?);
        *slot = Arc::downgrade(&client);
        Ok(client)
    }

    /// Whether a client is alive now (held by a user).
    pub fn is_alive(&self) -> bool {
        self.slot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .strong_count()
            > 0
    }
}

/// The clients of one worker's Kafka backend that its tasks share.
#[derive(Default)]
pub struct SharedClients {
    /// The producer of at-least-once source tasks (and dead letter queues) without overrides.
    pub producer: SharedSlot<ProducerClient>,
    /// The admin client that creates the topics of source connectors without
    /// `admin.override.*`.
    pub admin: SharedSlot<AdminClient<DefaultClientContext>>,
}

impl std::fmt::Debug for SharedClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedClients")
            .field("producer", &self.producer.is_alive())
            .field("admin", &self.admin.is_alive())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_hands_out_one_client_until_its_last_user_drops_it() {
        let slot = SharedSlot::<String>::default();
        let mut made = 0;
        let a = slot
            .get_or_make(|| {
                made += 1;
                Ok("a".to_owned())
            })
            .unwrap();
        let b = slot
            .get_or_make(|| unreachable!("a user holds one"))
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        drop((a, b));
        assert!(!slot.is_alive());
        let c = slot
            .get_or_make(|| {
                made += 1;
                Ok("c".to_owned())
            })
            .unwrap();
        assert_eq!((made, c.as_str()), (2, "c"));
        assert!(slot
            .get_or_make(|| Err(TopicError::Other("x".into())))
            .is_ok());
    }
}
