//! Zombie fencing for exactly-once source tasks (KIP-618, Kafka Connect's
//! `Worker.fenceZombies` and the task's pre- and post-producer checks).
//!
//! Before a new generation of an exactly-once source connector's tasks claims its
//! transactional ids, every transactional id of the previous generation (tasks
//! `0..previous task count`, also those of tasks that no longer exist) is fenced, so no task
//! of an older generation still running somewhere (a zombie) can commit again. Kafka Connect
//! calls `Admin.fenceProducers`, which sends `InitProducerId` for each id; librdkafka has no
//! such admin call, so each id gets a short-lived transactional producer whose
//! `init_transactions` does the same (the id's epoch is bumped, its open transaction aborted).

use std::sync::Arc;
use std::time::Duration;

use futures::future::{join_all, BoxFuture};

use crate::topics::{ClientSpec, TopicBackend, TopicError};

/// How long fencing one connector's producers may take (Kafka Connect bounds its
/// `fenceProducers` call by the REST request timeout, 90 s).
pub const FENCING_TIMEOUT: Duration = Duration::from_secs(90);

/// What an exactly-once source task asks its herder around claiming its transactional id.
pub trait TaskFencing: Send + Sync {
    /// Before the task's producer is initialised: the connector's older task generations are
    /// fenced (by the leader; a no-op when that was done already). Kafka Connect's
    /// pre-producer check.
    ///
    /// # Errors
    /// Why the connector's older generations could not be fenced.
    fn fence_zombies<'a>(&'a self, connector: &'a str)
        -> BoxFuture<'a, Result<(), FencingRefused>>;

    /// After the task's producer was initialised: task `task` of `connector` was started with
    /// task configuration generation `generation`, which must still be current, and the task
    /// must still be assigned to this worker. Kafka Connect's post-producer check.
    ///
    /// # Errors
    /// Why the task may not run with these task configurations here.
    fn verify_generation<'a>(
        &'a self,
        connector: &'a str,
        task: u32,
        generation: u32,
    ) -> BoxFuture<'a, Result<(), FencingRefused>>;
}

/// The herder's answer when it refuses a task's [`TaskFencing`] request: its error, kept as
/// the cause (the worker does not know the herder's error type).
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct FencingRefused {
    /// The herder's error.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl FencingRefused {
    /// The refusal `source` gave.
    pub fn new(source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self {
            source: Box::new(source),
        }
    }
}

/// Why fencing failed.
#[derive(Debug, thiserror::Error)]
pub enum FencingError {
    /// A producer for the id could not be created or its `init_transactions` failed.
    #[error("Could not fence out the transactional id '{id}': {source}")]
    Failed {
        /// The transactional id.
        id: String,
        /// Why: the producer could not be created or initialised.
        #[source]
        source: TopicError,
    },
    /// The ids were not all fenced within [`FENCING_TIMEOUT`].
    #[error("Fencing out the transactional ids {ids:?} did not finish within {} s", FENCING_TIMEOUT.as_secs())]
    TimedOut {
        /// The ids of the round.
        ids: Vec<String>,
    },
}

/// Fences every transactional id of `ids` (all at once), each with a transactional producer
/// made as the tasks' own (`spec`: the connector's client settings), bounded by
/// [`FENCING_TIMEOUT`].
///
/// # Errors
/// The first id that could not be fenced, or the timeout.
pub async fn fence_producers(
    topics: Arc<dyn TopicBackend>,
    spec: &ClientSpec,
    ids: Vec<String>,
) -> Result<(), FencingError> {
    let rounds = ids.iter().map(|id| {
        let topics = topics.clone();
        async move {
            let failed = |source: TopicError| FencingError::Failed {
                id: id.clone(),
                source,
            };
            let producer = topics.transactional_producer(spec, id).map_err(failed)?;
            producer.init().await.map_err(failed)
        }
    });
    match tokio::time::timeout(FENCING_TIMEOUT, join_all(rounds)).await {
        Ok(results) => results.into_iter().collect(),
        Err(_) => Err(FencingError::TimedOut { ids }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failure_names_the_transactional_id() {
        let dir = tempfile::tempdir().unwrap();
        let topics: Arc<dyn TopicBackend> =
            crate::topics::local::LocalLog::open(dir.path(), 1).unwrap();
        let spec = ClientSpec {
            connector: "c".into(),
            task: 0,
            overrides: Default::default(),
            admin_overrides: Default::default(),
            topic_creation: None,
        };
        let e = fence_producers(topics.clone(), &spec, vec!["g-c-1".into()])
            .await
            .unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("Could not fence out the transactional id 'g-c-1': ")
                && text.contains("need Kafka transactions"),
            "{text}"
        );
        // Nothing to fence: done at once.
        fence_producers(topics, &spec, Vec::new()).await.unwrap();
    }

    #[tokio::test]
    async fn a_failure_keeps_the_topic_error_as_its_cause() {
        let dir = tempfile::tempdir().unwrap();
        let topics: Arc<dyn TopicBackend> =
            crate::topics::local::LocalLog::open(dir.path(), 1).unwrap();
        let spec = ClientSpec {
            connector: "c".into(),
            task: 0,
            overrides: Default::default(),
            admin_overrides: Default::default(),
            topic_creation: None,
        };
        let e = fence_producers(topics, &spec, vec!["g-c-0".into()])
            .await
            .unwrap_err();
        let cause = std::error::Error::source(&e).expect("a cause");
        assert!(cause.downcast_ref::<TopicError>().is_some(), "{cause:?}");
    }

    #[test]
    fn a_refusal_fails_the_task_with_the_herders_error_as_its_cause() {
        use crate::worker::TaskError;
        use std::error::Error as _;
        let e = TaskError::Fencing {
            stage: "Exactly-once task start",
            retriable: false,
            source: FencingRefused::new(std::io::Error::other("revoked")),
        };
        assert_eq!(e.to_string(), "Exactly-once task start failed: revoked");
        assert!(!e.is_retriable());
        let refusal = e.source().expect("the refusal");
        let cause = refusal.source().expect("the herder's error");
        assert!(
            cause.downcast_ref::<std::io::Error>().is_some(),
            "{cause:?}"
        );
        let e = TaskError::Fencing {
            stage: "Zombie fencing",
            retriable: true,
            source: FencingRefused::new(std::io::Error::other("busy")),
        };
        assert_eq!(e.to_string(), "Zombie fencing failed: busy");
        assert!(e.is_retriable());
    }
}
