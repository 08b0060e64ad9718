//! Task configurations whose write fails: the leader plans them again and writes them later
//! (as Kafka Connect retries a reconfiguration), the connector does not fail, and a running task
//! keeps the configuration it runs with until the new task configurations are written.

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

/// A distributed herder on the embedded log in `dir`, whose task-configuration writes fail
/// while `failures` is above zero (each failure counts it down).
struct Cluster {
    log: Arc<LocalLog>,
    handle: HerderHandle,
    task: tokio::task::JoinHandle<()>,
}

impl Cluster {
    async fn start(dir: &std::path::Path, failures: Arc<AtomicUsize>) -> Self {
        let log = LocalLog::open(&dir.join("log"), 1).unwrap();
        let backend = TaskConfigWritesFail {
            log: log.clone(),
            failures,
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
        let worker_config =
            Arc::new(WorkerConfig::from_raw(&raw, WorkerMode::Distributed).unwrap());
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
            crate::worker::WorkerSettings::from_config(&worker_config),
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
        Self { log, handle, task }
    }

    /// Creates connector `c` on a new file `in.txt` in `dir` holding the line `a`; its path.
    async fn create_source(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let input = dir.join("in.txt");
        std::fs::write(&input, "a\n").unwrap();
        self.handle
            .create_connector("c", source_config(&input, &[]), TargetState::Started)
            .await
            .unwrap();
        input
    }

    async fn task_runs(&self) {
        wait_until("the connector and its task run", || async {
            self.handle.connector_status("c").await.is_ok_and(|s| {
                s.connector.state == "RUNNING"
                    && s.tasks.len() == 1
                    && s.tasks[0].state == "RUNNING"
            })
        })
        .await;
    }

    /// The values in `topic` (none when it does not exist).
    async fn values(&self, topic: &str) -> Vec<String> {
        let Ok(mut reader) = self.log.log_reader(topic).await else {
            return Vec::new();
        };
        let mut values = Vec::new();
        loop {
            let polled = reader.poll(Duration::ZERO).await.unwrap();
            if polled.is_empty() {
                return values;
            }
            values.extend(
                polled
                    .into_iter()
                    .map(|r| String::from_utf8(r.value.unwrap_or_default()).unwrap()),
            );
        }
    }

    async fn stop(self) {
        self.handle.shutdown().await;
        let _ = self.task.await;
        self.log.close().await;
    }
}

/// FileStreamSource `c` reading `input` into topic `t`, with `extra` settings.
fn source_config(input: &std::path::Path, extra: &[(&str, &str)]) -> ConfigMap {
    let mut config = ConfigMap::from([
        ("name".to_owned(), "c".to_owned()),
        ("connector.class".to_owned(), "FileStreamSource".to_owned()),
        ("file".to_owned(), input.display().to_string()),
        ("topic".to_owned(), "t".to_owned()),
    ]);
    config.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    config
}

fn append(path: &std::path::Path, line: &str) {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

#[tokio::test]
async fn a_failed_write_of_task_configs_on_the_leader_is_retried() {
    let dir = tempfile::tempdir().unwrap();
    let failures = Arc::new(AtomicUsize::new(2));
    let cluster = Cluster::start(dir.path(), failures.clone()).await;
    let input = cluster.create_source(dir.path()).await;
    let file = input.display().to_string();
    wait_until("the task configurations are stored", || async {
        file_of_task_0(&cluster.handle).await.as_deref() == Some(file.as_str())
    })
    .await;
    assert_eq!(
        failures.load(Ordering::SeqCst),
        0,
        "both injected failures hit"
    );
    cluster.task_runs().await;
    cluster.stop().await;
}

/// As in Kafka Connect, a connector configuration change reaches a running task with the task
/// configurations planned from it: until they are written, the task runs on with the old
/// configuration (here: no RegexRouter); once they are, it restarts with the new one, also when
/// the planned task configurations are the same as before.
#[tokio::test]
async fn a_running_task_keeps_its_configuration_until_new_task_configs_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let failures = Arc::new(AtomicUsize::new(0));
    let cluster = Cluster::start(dir.path(), failures.clone()).await;
    let input = cluster.create_source(dir.path()).await;
    cluster.task_runs().await;
    wait_until("line a in t", || async {
        cluster.values("t").await == ["a"]
    })
    .await;

    const BLOCKED: usize = 1_000_000;
    failures.store(BLOCKED, Ordering::SeqCst);
    let routed = source_config(
        &input,
        &[
            ("transforms", "route"),
            (
                "transforms.route.type",
                "org.apache.kafka.connect.transforms.RegexRouter",
            ),
            ("transforms.route.regex", "t"),
            ("transforms.route.replacement", "u"),
        ],
    );
    cluster
        .handle
        .put_connector_config("c", routed, true)
        .await
        .unwrap();
    wait_until("a write of the new task configurations failed", || async {
        failures.load(Ordering::SeqCst) < BLOCKED
    })
    .await;
    append(&input, "b");
    wait_until("line b copied", || async {
        cluster.values("t").await.len() + cluster.values("u").await.len() == 2
    })
    .await;
    assert_eq!(
        cluster.values("t").await,
        ["a", "b"],
        "the old configuration"
    );
    assert!(cluster.values("u").await.is_empty());

    // Once a write succeeds the task restarts: the lines appended until then stay in t, the
    // first one in u is the last one appended.
    failures.store(0, Ordering::SeqCst);
    let mut expected_t = vec!["a".to_owned(), "b".to_owned()];
    for i in 0..200 {
        let line = format!("c{i}");
        append(&input, &line);
        wait_until("the line copied", || async {
            cluster.values("t").await.len() + cluster.values("u").await.len() == 3 + i
        })
        .await;
        if !cluster.values("u").await.is_empty() {
            assert_eq!(cluster.values("u").await, [line]);
            assert_eq!(cluster.values("t").await, expected_t);
            return cluster.stop().await;
        }
        expected_t.push(line);
    }
    panic!("the task never restarted with the new configuration");
}
