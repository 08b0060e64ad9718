//! A leader whose write of a connector's task configurations fails plans them again and
//! writes them later (as Kafka Connect retries a reconfiguration); the connector does not fail.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use connect_api::ConfigMap;
use futures::future::BoxFuture;

use super::herder::DistributedHerder;
use crate::config::{RawConfig, WorkerConfig, WorkerMode};
use crate::herder::core::HerderCore;
use crate::herder::{HerderHandle, TargetState};
use crate::plugins::PluginRegistry;
use crate::storage::topic_log::{InternalTopicKind, InternalTopicSpec};
use crate::storage::TopicOffsetStore;
use crate::topics::internal_topic::{
    InternalTopicBackend, LogReader, NewTopicSpec, TopicDescription,
};
use crate::topics::local::LocalLog;
use crate::topics::{Delivery, ProducerRecord, TopicError, TopicProducer};
use crate::worker::Worker;

/// The embedded log, whose internal-topic producer refuses the next `failures` batches that
/// carry task configurations (`task-…` keys).
struct TaskConfigWritesFail {
    log: Arc<LocalLog>,
    failures: Arc<AtomicUsize>,
}

#[async_trait]
impl InternalTopicBackend for TaskConfigWritesFail {
    async fn create_topic_if_absent(&self, topic: &NewTopicSpec) -> Result<bool, TopicError> {
        self.log.create_topic_if_absent(topic).await
    }
    async fn describe_topic(&self, name: &str) -> Result<Option<TopicDescription>, TopicError> {
        self.log.describe_topic(name).await
    }
    async fn log_reader(&self, name: &str) -> Result<Box<dyn LogReader>, TopicError> {
        self.log.log_reader(name).await
    }
    fn log_producer(&self, client_id: &str) -> Result<Arc<dyn TopicProducer>, TopicError> {
        Ok(Arc::new(FailingProducer {
            inner: self.log.log_producer(client_id)?,
            failures: self.failures.clone(),
        }))
    }
}

struct FailingProducer {
    inner: Arc<dyn TopicProducer>,
    failures: Arc<AtomicUsize>,
}

impl TopicProducer for FailingProducer {
    fn send_batch(
        &self,
        records: Vec<ProducerRecord>,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
        let task_configs = records
            .iter()
            .any(|r| r.key.as_deref().is_some_and(|k| k.starts_with(b"task-")));
        let fail = task_configs
            && self
                .failures
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
        if fail {
            return Box::pin(async { Err(TopicError::Other("injected write failure".into())) });
        }
        self.inner.send_batch(records)
    }
}

async fn wait_until<F, Fut>(what: &str, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !cond().await {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn file_of_task_0(handle: &HerderHandle) -> Option<String> {
    let configs = handle.task_configs("c").await.ok()?;
    configs.first().and_then(|(_, c)| c.get("file").cloned())
}

#[tokio::test]
async fn a_failed_write_of_task_configs_on_the_leader_is_retried() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
    let failures = Arc::new(AtomicUsize::new(2));
    let backend = TaskConfigWritesFail {
        log: log.clone(),
        failures: failures.clone(),
    };
    let raw = RawConfig::from_pairs(
        "worker.properties",
        [
            ("group.id", "retry"),
            ("config.storage.topic", "connect-configs"),
            ("offset.storage.topic", "connect-offsets"),
            ("status.storage.topic", "connect-status"),
            ("key.converter", "StringConverter"),
            ("value.converter", "StringConverter"),
        ],
    );
    let worker_config = Arc::new(WorkerConfig::from_raw(&raw, WorkerMode::Distributed).unwrap());
    let offsets = Arc::new(
        TopicOffsetStore::open(
            &backend,
            &InternalTopicSpec::new(InternalTopicKind::Offsets, "connect-offsets", 1, 1),
            "retry-offsets",
        )
        .await
        .unwrap(),
    );
    let plugins = Arc::new(PluginRegistry::builtin());
    let worker = Worker::new(
        worker_config.worker_settings(),
        plugins.clone(),
        offsets.clone(),
        log.clone(),
    );
    let core = HerderCore::new(worker, worker_config.clone(), plugins, "w:1".into());
    let mut herder = DistributedHerder::open(core, &backend, &worker_config, offsets, None)
        .await
        .unwrap();
    herder.start().await.unwrap();
    let (handle, task) = herder.spawn();

    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\n").unwrap();
    let config = ConfigMap::from([
        ("name".to_owned(), "c".to_owned()),
        ("connector.class".to_owned(), "FileStreamSource".to_owned()),
        ("file".to_owned(), input.display().to_string()),
        ("topic".to_owned(), "t".to_owned()),
    ]);
    handle
        .create_connector("c", config, TargetState::Started)
        .await
        .unwrap();
    let file = input.display().to_string();
    wait_until("the task configurations are stored", || async {
        file_of_task_0(&handle).await.as_deref() == Some(file.as_str())
    })
    .await;
    assert_eq!(
        failures.load(Ordering::SeqCst),
        0,
        "both injected failures hit"
    );
    wait_until("the connector and its task run", || async {
        handle.connector_status("c").await.is_ok_and(|s| {
            s.connector.state == "RUNNING" && s.tasks.len() == 1 && s.tasks[0].state == "RUNNING"
        })
    })
    .await;
    handle.shutdown().await;
    let _ = task.await;
    log.close().await;
}
