//! Internal topics on the embedded log: topic configs recorded at creation, and a reader of all
//! partitions of a topic without a group.
//!
//! The configs a topic was created with (e.g. `cleanup.policy=compact`) are kept in
//! `<dir>/__topics/<topic>.json` (`{"configs":{"cleanup.policy":"compact"}}`), written
//! atomically before the topic's partitions exist. A topic without such a file was created
//! automatically and has Kafka's default `cleanup.policy=delete`. The embedded log records the
//! policy but does not compact (yet): a compacted topic keeps every record.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;
use tokio::time::Instant;

use super::log::{Log, Topic};
use super::reader::Cursor;
use super::{io_error, sync_dir, LocalLog, LocalProducer, MAX_POLL_BYTES};
use crate::topics::internal_topic::{
    InternalTopicBackend, LogReader, NewTopicSpec, TopicDescription,
};
use crate::topics::{ConsumedRecord, TopicError, TopicProducer};

/// Directory of the topic config files.
pub(crate) const TOPICS_DIR: &str = "__topics";
/// Kafka's default `cleanup.policy` (`log.cleanup.policy`).
const DEFAULT_CLEANUP_POLICY: &str = "delete";

fn config_path(dir: &Path, topic: &str) -> PathBuf {
    dir.join(TOPICS_DIR).join(format!("{topic}.json"))
}

/// Durably writes the configs of `topic` (temporary file, fsync, rename, fsync of the directory).
fn write_configs(
    dir: &Path,
    topic: &str,
    configs: &BTreeMap<String, String>,
) -> Result<(), TopicError> {
    let topics_dir = dir.join(TOPICS_DIR);
    crate::fs_private::create_dir_all(&topics_dir)
        .map_err(io_error("cannot create", &topics_dir))?;
    let path = config_path(dir, topic);
    let tmp = topics_dir.join(format!("{topic}.json.tmp"));
    let body = serde_json::to_vec(&serde_json::json!({ "configs": configs }))
        .map_err(|e| TopicError::Other(format!("cannot encode the configs of {topic}: {e}")))?;
    let mut file = crate::fs_private::open_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(io_error("cannot create", &tmp))?;
    file.write_all(&body)
        .and_then(|()| file.sync_all())
        .map_err(io_error("cannot write", &tmp))?;
    fs::rename(&tmp, &path).map_err(io_error("cannot rename to", &path))?;
    sync_dir(&topics_dir)?;
    sync_dir(dir)
}

/// The configs `topic` was created with (empty when it was created automatically).
fn read_configs(dir: &Path, topic: &str) -> Result<BTreeMap<String, String>, TopicError> {
    let path = config_path(dir, topic);
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(io_error("cannot read", &path)(e)),
    };
    #[derive(serde::Deserialize)]
    struct File {
        configs: BTreeMap<String, String>,
    }
    serde_json::from_slice::<File>(&bytes)
        .map(|f| f.configs)
        .map_err(|e| {
            TopicError::Corrupt(format!(
                "the topic config file {} is corrupt: {e}",
                path.display()
            ))
        })
}

impl LocalLog {
    fn internal_log(&self) -> Result<&Arc<Log>, TopicError> {
        if self.log.is_read_only() {
            return Err(TopicError::Unavailable(format!(
                "the embedded log {} is opened read-only",
                self.log.dir().display()
            )));
        }
        Ok(&self.log)
    }
}

#[async_trait]
impl InternalTopicBackend for LocalLog {
    async fn create_topic_if_absent(&self, topic: &NewTopicSpec) -> Result<bool, TopicError> {
        let log = self.internal_log()?;
        let count = u32::try_from(topic.partitions).unwrap_or(log.options.num_partitions);
        let dir = log.dir().to_path_buf();
        let (_, created) = log.ensure_topic_with(&topic.name, count, |_| {
            write_configs(&dir, &topic.name, &topic.configs)
        })?;
        Ok(created)
    }

    async fn describe_topic(&self, name: &str) -> Result<Option<TopicDescription>, TopicError> {
        let Some(topic) = self.log.topic(name) else {
            return Ok(None);
        };
        let configs = read_configs(self.log.dir(), name)?;
        let policy = configs
            .get("cleanup.policy")
            .cloned()
            .unwrap_or_else(|| DEFAULT_CLEANUP_POLICY.to_owned());
        Ok(Some(TopicDescription {
            partitions: topic.partitions.len(),
            cleanup_policy: Some(policy),
        }))
    }

    async fn log_reader(&self, name: &str) -> Result<Box<dyn LogReader>, TopicError> {
        let topic = self.log.topic(name).ok_or_else(|| {
            TopicError::Other(format!(
                "no topic {name} in the embedded log {}",
                self.log.dir().display()
            ))
        })?;
        Ok(Box::new(LocalLogReader::new(self.log.clone(), topic)))
    }

    fn log_producer(&self, _client_id: &str) -> Result<Arc<dyn TopicProducer>, TopicError> {
        Ok(Arc::new(LocalProducer::new(self.internal_log()?.clone())))
    }
}

/// Reads every partition of one topic of the embedded log from its start.
struct LocalLogReader {
    topic: Arc<Topic>,
    cursors: Vec<Cursor>,
    changes: watch::Receiver<u64>,
    /// Which partition a poll reads first (rotates for fairness).
    first: usize,
}

impl LocalLogReader {
    fn new(log: Arc<Log>, topic: Arc<Topic>) -> Self {
        let cursors = topic
            .partitions
            .iter()
            .map(|p| Cursor::new(p.start()))
            .collect();
        Self {
            changes: log.subscribe_changes(),
            topic,
            cursors,
            first: 0,
        }
    }

    fn read_available(&mut self) -> Result<Vec<ConsumedRecord>, TopicError> {
        let mut out = Vec::new();
        let n = self.cursors.len();
        let mut bytes = 0;
        for i in 0..n {
            if bytes >= MAX_POLL_BYTES {
                break;
            }
            let k = (self.first + i) % n;
            bytes += self.cursors[k].read(
                &self.topic.partitions[k],
                usize::MAX,
                MAX_POLL_BYTES - bytes,
                &mut out,
            )?;
        }
        self.first = (self.first + 1) % n.max(1);
        Ok(out)
    }
}

#[async_trait]
impl LogReader for LocalLogReader {
    fn partitions(&self) -> Vec<i32> {
        self.topic.partitions.iter().map(|p| p.partition).collect()
    }

    async fn end_offsets(&mut self) -> Result<BTreeMap<i32, i64>, TopicError> {
        Ok(self
            .topic
            .partitions
            .iter()
            .map(|p| (p.partition, p.end()))
            .collect())
    }

    async fn poll(&mut self, timeout: Duration) -> Result<Vec<ConsumedRecord>, TopicError> {
        let deadline = Instant::now() + timeout;
        loop {
            // Mark the current state seen before looking, so no later change is missed.
            self.changes.borrow_and_update();
            let records = self.read_available()?;
            if !records.is_empty() {
                return Ok(records);
            }
            match tokio::time::timeout_at(deadline, self.changes.changed()).await {
                Ok(Ok(())) => continue,
                Ok(Err(_)) => {
                    tokio::time::sleep_until(deadline).await;
                    return Ok(Vec::new());
                }
                Err(_) => return Ok(Vec::new()),
            }
        }
    }

    fn positions(&self) -> BTreeMap<i32, i64> {
        self.topic
            .partitions
            .iter()
            .zip(&self.cursors)
            .map(|(p, c)| (p.partition, c.next_offset()))
            .collect()
    }
}
