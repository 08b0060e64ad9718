//! What running connectors ask of the runtime through their [`ConnectorContext`]: to plan
//! their tasks again, to be marked failed, or a new instance after theirs was lost; and the end of each connector start the worker
//! began without waiting for it. The worker hands each connector a context that sends here;
//! the herder (standalone or distributed) takes the receiver and answers.

use std::sync::{Arc, Mutex};

use connect_api::{ConnectError, ConnectorContext, ConnectorControl, OffsetMap};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio_util::sync::CancellationToken;

use crate::storage::OffsetStore;

/// A request of a running connector.
#[derive(Debug)]
pub enum ConnectorEvent {
    /// Connector `0` asks for its tasks to be planned again (Kafka Connect's
    /// `requestTaskReconfiguration`).
    Reconfigure(String),
    /// Connector `0` failed in the background with message `1` (Kafka Connect's `raiseError`).
    Failed(String, String),
    /// Connector `0`'s instance was lost for reason `1` (the plugin host JVM that ran it died):
    /// the herder restarts the instance where it runs and replaces its tasks only when the new
    /// instance plans other configurations (the tasks restart on their own, from their
    /// committed offsets).
    InstanceLost(String, String),
    /// A start begun with [`Worker::begin_connector_start`](super::Worker::begin_connector_start)
    /// ended (started, failed, timed out or abandoned); the herder hands it back to
    /// [`Worker::finish_connector_start`](super::Worker::finish_connector_start).
    Started(super::connectors::StartOutcome),
}

/// The channel behind every connector context of one worker.
pub struct ConnectorEvents {
    control: Arc<Sender>,
    receiver: Mutex<Option<UnboundedReceiver<ConnectorEvent>>>,
}

impl Default for ConnectorEvents {
    fn default() -> Self {
        Self::new()
    }
}

impl ConnectorEvents {
    /// A channel nobody reads yet.
    pub fn new() -> Self {
        Self::with_offsets(None)
    }

    /// A channel nobody reads yet, whose contexts read the connectors' committed source
    /// offsets from `offsets`.
    pub fn with_offsets(offsets: Option<Arc<dyn OffsetStore>>) -> Self {
        let (tx, rx) = unbounded_channel();
        Self {
            control: Arc::new(Sender(tx, offsets)),
            receiver: Mutex::new(Some(rx)),
        }
    }

    /// The context of connector `name`, whose requests arrive on this channel; `cancel` fires
    /// when the connector stops.
    pub fn context(&self, name: &str, cancel: CancellationToken) -> ConnectorContext {
        ConnectorContext::new(name, self.control.clone(), cancel)
    }

    /// A sender into the same channel, for the ends of connector starts.
    pub(super) fn sender(&self) -> UnboundedSender<ConnectorEvent> {
        self.control.0.clone()
    }

    /// The receiver, once (the herder's); `None` when already taken.
    pub fn take_receiver(&self) -> Option<UnboundedReceiver<ConnectorEvent>> {
        self.receiver.lock().ok().and_then(|mut r| r.take())
    }
}

/// Sends the contexts' requests (dropped when nobody listens: a worker without a herder), and
/// answers their offset reads from the worker's offset store.
struct Sender(
    UnboundedSender<ConnectorEvent>,
    Option<Arc<dyn OffsetStore>>,
);

impl ConnectorControl for Sender {
    fn request_task_reconfiguration(&self, connector: &str) {
        let _ = self
            .0
            .send(ConnectorEvent::Reconfigure(connector.to_owned()));
    }

    fn raise_error(&self, connector: &str, error: ConnectError) {
        let _ = self.0.send(ConnectorEvent::Failed(
            connector.to_owned(),
            error.to_string(),
        ));
    }

    fn instance_lost(&self, connector: &str, error: ConnectError) {
        let _ = self.0.send(ConnectorEvent::InstanceLost(
            connector.to_owned(),
            error.to_string(),
        ));
    }

    fn offset(&self, connector: &str, partition: &OffsetMap) -> Option<OffsetMap> {
        self.1.as_ref()?.get(connector, partition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn contexts_send_their_connectors_requests_to_the_one_receiver() {
        let events = ConnectorEvents::new();
        let mut rx = events.take_receiver().unwrap();
        assert!(events.take_receiver().is_none());
        let a = events.context("a", CancellationToken::new());
        let b = events.context("b", CancellationToken::new());
        b.request_task_reconfiguration();
        a.raise_error(ConnectError::Other("boom".into()));
        b.instance_lost(ConnectError::InstanceLost("JVM died".into()));
        match rx.recv().await.unwrap() {
            ConnectorEvent::Reconfigure(n) => assert_eq!(n, "b"),
            other => panic!("{other:?}"),
        }
        match rx.recv().await.unwrap() {
            ConnectorEvent::Failed(n, m) => {
                assert_eq!(n, "a");
                assert!(m.contains("boom"), "{m}");
            }
            other => panic!("{other:?}"),
        }
        match rx.recv().await.unwrap() {
            ConnectorEvent::InstanceLost(n, m) => {
                assert_eq!((n.as_str(), m.as_str()), ("b", "JVM died"))
            }
            other => panic!("{other:?}"),
        }
    }
}
