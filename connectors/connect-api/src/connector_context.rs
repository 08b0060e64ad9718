//! What a running connector gets from the runtime (Kafka Connect's `ConnectorContext`): a way
//! to ask for its tasks to be planned again, e.g. when a JDBC source sees a new table.

use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::error::ConnectError;
use crate::OffsetMap;

/// The runtime side of a [`ConnectorContext`]: what the herder does on a connector's request.
pub trait ConnectorControl: Send + Sync {
    /// The connector `connector` asks for `task_configs` to be called again and, when the
    /// configurations differ, for its tasks to be replaced.
    fn request_task_reconfiguration(&self, connector: &str);
    /// The connector `connector` failed in the background (outside a call of the runtime).
    fn raise_error(&self, connector: &str, error: ConnectError);
    /// The instance of connector `connector` was lost (the process that ran it died) and a
    /// new one may work: the runtime restarts the connector's instance, and replaces its tasks
    /// only when the new instance plans other configurations (connect-rs). By default, a
    /// background failure.
    fn instance_lost(&self, connector: &str, error: ConnectError) {
        self.raise_error(connector, error);
    }
    /// The last committed source offset of `partition` for connector `connector` (Kafka
    /// Connect's `SourceConnectorContext.offsetStorageReader()`); `None` when there is none or
    /// the runtime keeps no offsets here.
    fn offset(&self, _connector: &str, _partition: &OffsetMap) -> Option<OffsetMap> {
        None
    }
}

/// Given to a connector by [`SourceConnector::initialize`](crate::SourceConnector::initialize)
/// and [`SinkConnector::initialize`](crate::SinkConnector::initialize), before `start`. Cheap
/// to clone; a connector may keep it in a background task it spawns (which should end when
/// [`cancel`](Self::cancel) fires or the connector stops).
#[derive(Clone)]
pub struct ConnectorContext {
    connector: String,
    control: Arc<dyn ConnectorControl>,
    cancel: CancellationToken,
}

impl fmt::Debug for ConnectorContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectorContext")
            .field("connector", &self.connector)
            .finish_non_exhaustive()
    }
}

impl ConnectorContext {
    /// A context for connector `connector`, answered by `control`; `cancel` fires when the
    /// connector is stopped.
    pub fn new(
        connector: impl Into<String>,
        control: Arc<dyn ConnectorControl>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            connector: connector.into(),
            control,
            cancel,
        }
    }

    /// A context whose requests go nowhere (for tests and tools that plan tasks once).
    pub fn detached(connector: impl Into<String>) -> Self {
        Self::new(connector, Arc::new(Detached), CancellationToken::new())
    }

    /// The connector's name.
    pub fn connector(&self) -> &str {
        &self.connector
    }

    /// Asks the runtime to call `task_configs` again and restart the tasks if their
    /// configurations changed (Kafka Connect's `requestTaskReconfiguration`).
    pub fn request_task_reconfiguration(&self) {
        self.control.request_task_reconfiguration(&self.connector);
    }

    /// Reports that the connector failed in the background: the runtime marks it FAILED
    /// (Kafka Connect's `raiseError`).
    pub fn raise_error(&self, error: ConnectError) {
        self.control.raise_error(&self.connector, error);
    }

    /// Reports that this connector instance was lost (the process that ran it died, e.g. the
    /// Java plugin host): the runtime starts a new instance (connect-rs; Kafka Connect has no
    /// such call, its connectors run in the worker's own JVM).
    pub fn instance_lost(&self, error: ConnectError) {
        self.control.instance_lost(&self.connector, error);
    }

    /// The connector's last committed source offset of `partition` (Kafka Connect's
    /// `SourceConnectorContext.offsetStorageReader().offset(partition)`).
    pub fn offset(&self, partition: &OffsetMap) -> Option<OffsetMap> {
        self.control.offset(&self.connector, partition)
    }

    /// Fires when the connector is stopped.
    pub fn cancel(&self) -> &CancellationToken {
        &self.cancel
    }
}

/// The control of [`ConnectorContext::detached`].
struct Detached;

impl ConnectorControl for Detached {
    fn request_task_reconfiguration(&self, _connector: &str) {}
    fn raise_error(&self, _connector: &str, _error: ConnectError) {}
}
