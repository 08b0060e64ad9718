//! Topic tracking in a cluster (KIP-558), as Kafka Connect's `KafkaStatusBackingStore` keeps
//! it: the first time a task uses a topic its worker writes
//! `status-topic-<topic>:connector-<c>` to the status topic; every worker answers
//! `GET /connectors/{c}/topics` from the records it read (its own, other workers', Java
//! workers'); `PUT /connectors/{c}/topics/reset` and the deletion of a connector write their
//! tombstones.
//!
//! Tasks note the topics they use in their activity cells; the herder takes them at each status
//! tick and before answering, so a record is written within a tick of the first use (its
//! `discoverTimestamp` is the time it is written).

use super::herder::DistributedHerder;
use crate::herder::{topic_tracking, HerderError};

impl DistributedHerder {
    /// Writes the topics this worker's tasks used that have no record yet (Kafka Connect's
    /// `WorkerTask.recordActiveTopic`); nothing with `topic.tracking.enable=false`, and
    /// nothing for a connector deleted meanwhile.
    pub(super) async fn publish_topics(&mut self) {
        let used = self.core.worker.take_used_topics();
        if !self.core.worker_config.topic_tracking_enable() {
            return;
        }
        let snapshot = self.configs.snapshot();
        topic_tracking::record_used(self.statuses.as_ref(), used, |c| snapshot.contains(c)).await;
    }

    /// Writes a tombstone for every topic connector `name` has a record of (Kafka Connect's
    /// `resetConnectorActiveTopics`).
    pub(super) async fn reset_topics(&mut self, name: &str) {
        topic_tracking::reset(self.statuses.as_ref(), name).await;
    }

    /// `GET /connectors/{c}/topics` (the topics of the records read, by name) and, with
    /// `reset`, `PUT /connectors/{c}/topics/reset`. An unknown connector has none, as in
    /// Kafka Connect.
    pub(super) async fn connector_topics(
        &mut self,
        name: &str,
        reset: bool,
    ) -> Result<Vec<String>, HerderError> {
        self.core.check_topic_tracking(reset)?;
        // What this worker's tasks used since the last tick is recorded first: it is active
        // now, and a reset must not be undone by it at the next tick.
        self.publish_topics().await;
        if reset {
            self.reset_topics(name).await;
            return Ok(Vec::new());
        }
        Ok(topic_tracking::recorded(self.statuses.as_ref(), name))
    }
}
