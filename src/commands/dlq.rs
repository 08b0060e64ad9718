//! `connect-rs dlq replay`: re-publishes the records of a dead letter queue topic, once the
//! cause of their failure is fixed, to their original topic (or `--to`), without the
//! `__connect.errors.*` context headers. Works on the embedded log (while no worker holds it)
//! and on Kafka alike, through the worker's own topic backend. What was replayed is committed
//! as consumer group `connect-rs-dlq-replay-<DLQ>`, so every record is replayed once.

use std::time::Duration;

use anyhow::{anyhow, Context};
use tokio::time::Instant;

use super::standalone::Topics;
use super::{CommandError, EXIT_STARTUP, EXIT_USAGE};
use crate::cli::{DlqAction, DlqArgs};
use crate::plugins::PluginRegistry;
use crate::topics::{
    ClientSpec, ConsumedRecord, PartitionOffsets, ProducerRecord, Subscription, TopicPartition,
};
use crate::worker::dead_letter::{HEADER_ORIG_TOPIC, HEADER_PREFIX};

/// Records read per poll.
const BATCH: usize = 1000;
/// How long one poll waits.
const POLL_TIMEOUT: Duration = Duration::from_millis(500);
/// Gives up waiting for a partition assignment after this long without records.
const QUIET_LIMIT: Duration = Duration::from_secs(20);

/// The consumer group that remembers what was replayed from `dlq`.
pub fn replay_group(dlq: &str) -> String {
    format!("connect-rs-dlq-replay-{dlq}")
}

/// The record to publish for a dead-lettered one: to `to`, else its original topic.
///
/// # Errors
/// When it names no original topic and no `--to` is given.
pub fn replayed(r: &ConsumedRecord, to: Option<&str>) -> anyhow::Result<ProducerRecord> {
    let topic = match to {
        Some(t) => t.to_owned(),
        None => r
            .headers
            .iter()
            .find(|(k, _)| k == HEADER_ORIG_TOPIC)
            .and_then(|(_, v)| v.as_deref())
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .ok_or_else(|| {
                anyhow!(
                    "Record at {} partition {} offset {} has no {HEADER_ORIG_TOPIC} header \
                     (the connector needs errors.deadletterqueue.context.headers.enable=true); \
                     give the target topic with --to",
                    r.topic,
                    r.partition,
                    r.offset
                )
            })?,
    };
    Ok(ProducerRecord {
        topic,
        partition: None,
        key: r.key.clone(),
        value: r.value.clone(),
        timestamp: Some(r.timestamp),
        headers: r
            .headers
            .iter()
            .filter(|(k, _)| !k.starts_with(HEADER_PREFIX))
            .cloned()
            .collect(),
    })
}

/// Runs `dlq`.
///
/// # Errors
/// A worker file or topic access problem (exit 2); a topic that does not exist, or a record
/// without an original topic (1).
pub async fn run(args: DlqArgs) -> Result<(), CommandError> {
    let DlqAction::Replay { worker, topic, to } = args.action;
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let plugins = PluginRegistry::builtin();
    let config =
        super::standalone::load_worker(&worker, crate::config::WorkerMode::Standalone, &plugins)
            .map_err(startup)?;
    let topics = super::standalone::open_topics(&config).map_err(startup)?;
    // As `topics read`: an unknown topic is refused before anything is created (subscribing to
    // it would create it, on the embedded log and on a broker that auto-creates topics).
    let missing = match &topics {
        Topics::Local(log) => (!log.topics().iter().any(|t| t.name == topic))
            .then(|| config.embedded_log_dir().display().to_string()),
        Topics::Kafka(kafka) => {
            let (lookup, name) = (kafka.clone(), topic.clone());
            let exists = tokio::task::spawn_blocking(move || lookup.topic_exists(&name))
                .await
                .map_err(|e| startup(anyhow!("The topic lookup failed: {e}")))
                .and_then(|r| r.map_err(|e| startup(e.into())));
            match exists {
                Ok(true) => None,
                Ok(false) => Some(format!("Kafka at {}", kafka.bootstrap_servers())),
                Err(e) => return Err(e),
            }
        }
    };
    if let Some(place) = missing {
        topics.close().await;
        return Err(CommandError::new(
            EXIT_USAGE,
            anyhow!("Topic {topic} does not exist in {place}"),
        ));
    }
    let result = replay(&topics.backend(), &topic, to.as_deref()).await;
    topics.close().await;
    let n = result?;
    println!(
        "Replayed {n} record(s) from {topic} to {}.",
        to.as_deref().unwrap_or("their original topics")
    );
    Ok(())
}

async fn replay(
    backend: &std::sync::Arc<dyn crate::topics::TopicBackend>,
    dlq: &str,
    to: Option<&str>,
) -> Result<u64, CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let spec = ClientSpec {
        connector: "dlq-replay".into(),
        ..ClientSpec::default()
    };
    let mut consumer = backend
        .consumer(&spec, &replay_group(dlq), 0, 1)
        .context("Could not create the consumer")
        .map_err(startup)?;
    let producer = backend
        .producer(&spec)
        .context("Could not create the producer")
        .map_err(startup)?;
    consumer
        .subscribe(Subscription::Topics(vec![dlq.to_owned()]))
        .await
        .with_context(|| format!("Could not read {dlq}"))
        .map_err(startup)?;
    let mut replayed = 0u64;
    let mut last_record = Instant::now();
    loop {
        let polled = consumer
            .poll(BATCH, POLL_TIMEOUT)
            .await
            .with_context(|| format!("Could not read {dlq}"))
            .map_err(startup)?;
        if polled.is_empty() {
            if consumer.at_end() || last_record.elapsed() > QUIET_LIMIT {
                return Ok(replayed);
            }
            continue;
        }
        last_record = Instant::now();
        let mut next = PartitionOffsets::new();
        let mut records = Vec::with_capacity(polled.len());
        for r in &polled {
            records.push(replayed_or_usage(r, to)?);
            next.insert(
                TopicPartition {
                    topic: r.topic.clone(),
                    partition: r.partition,
                },
                r.offset + 1,
            );
        }
        let count = records.len() as u64;
        let delivery = producer
            .send_batch(records)
            .await
            .context("Could not publish the replayed records")
            .map_err(startup)?;
        delivery
            .await
            .context("Could not publish the replayed records")
            .map_err(startup)?;
        consumer
            .commit(&next)
            .await
            .context("Could not commit the replay progress")
            .map_err(startup)?;
        replayed += count;
    }
}

fn replayed_or_usage(r: &ConsumedRecord, to: Option<&str>) -> Result<ProducerRecord, CommandError> {
    replayed(r, to).map_err(|e| CommandError::new(EXIT_USAGE, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_goes_to_the_original_topic_without_context_headers() {
        let r = ConsumedRecord {
            topic: "dlq".into(),
            partition: 0,
            offset: 3,
            timestamp: 99,
            key: Some(b"k".to_vec()),
            value: Some(b"v".to_vec()),
            headers: vec![
                ("app".into(), Some(b"x".to_vec())),
                (HEADER_ORIG_TOPIC.into(), Some(b"orders".to_vec())),
                (
                    "__connect.errors.stage".into(),
                    Some(b"VALUE_CONVERTER".to_vec()),
                ),
            ],
        };
        let p = replayed(&r, None).unwrap();
        assert_eq!(p.topic, "orders");
        assert_eq!(p.headers, vec![("app".to_owned(), Some(b"x".to_vec()))]);
        assert_eq!(
            (p.key, p.value, p.timestamp),
            (r.key.clone(), r.value.clone(), Some(99))
        );
        assert_eq!(replayed(&r, Some("other")).unwrap().topic, "other");
        let mut bare = r.clone();
        bare.headers.clear();
        let e = replayed(&bare, None).unwrap_err().to_string();
        assert!(e.contains("--to"), "{e}");
    }
}
