//! `connect-rs topics`: list and read the embedded log's topics, as kafka-topics and
//! kafka-console-consumer do for Kafka. Opens the log read-only, so it works while a worker
//! runs.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use tokio::time::Instant;

use super::{CommandError, EXIT_STARTUP, EXIT_USAGE};
use crate::cli::{TopicsAction, TopicsArgs};
use crate::config::load_file;
use crate::topics::local::LocalLog;
use crate::topics::{ConsumedRecord, TopicPartition};

/// Records read per partition per round.
const READ_BATCH: usize = 1000;
/// Pause between rounds when following a topic that has no new records.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(100);

/// Runs `topics`.
///
/// # Errors
/// When the worker file or the log cannot be read (exit 2; also a corrupt record met by `read`,
/// after the records before it were printed), or the topic does not exist (1).
pub async fn run(args: TopicsArgs) -> Result<(), CommandError> {
    let raw = load_file(&args.worker).map_err(|e| CommandError::new(EXIT_STARTUP, e))?;
    let dir = PathBuf::from(
        raw.get("embedded.log.dir")
            .unwrap_or(crate::config::DEFAULT_EMBEDDED_LOG_DIR),
    );
    let log = LocalLog::open_read_only(&dir)
        .with_context(|| format!("Could not open the embedded log {}", dir.display()))
        .map_err(|e| CommandError::new(EXIT_STARTUP, e))?;
    let mut out = std::io::stdout().lock();
    match args.action {
        TopicsAction::List => {
            for topic in log.topics() {
                for p in &topic.partitions {
                    let _ = writeln!(out, "{}\t{}\t{}", topic.name, p.partition, p.end_offset);
                }
            }
            Ok(())
        }
        TopicsAction::Read {
            topic,
            from_beginning,
            offset,
            max,
            partition,
            timeout_ms,
        } => {
            let info = log
                .topics()
                .into_iter()
                .find(|t| t.name == topic)
                .ok_or_else(|| {
                    CommandError::new(
                        EXIT_USAGE,
                        anyhow::anyhow!("Topic {topic} does not exist in {}", dir.display()),
                    )
                })?;
            let mut positions: Vec<(TopicPartition, i64)> = info
                .partitions
                .iter()
                .filter(|p| partition.is_none_or(|want| want == p.partition))
                .map(|p| {
                    let tp = TopicPartition {
                        topic: topic.clone(),
                        partition: p.partition,
                    };
                    let start = match offset {
                        Some(o) => o.clamp(p.start_offset, p.end_offset),
                        None if from_beginning => p.start_offset,
                        None => p.end_offset,
                    };
                    (tp, start)
                })
                .collect();
            if positions.is_empty() {
                return Err(CommandError::new(
                    EXIT_USAGE,
                    anyhow::anyhow!(
                        "Topic {topic} has no partition {}",
                        partition.unwrap_or_default()
                    ),
                ));
            }
            let mut printed = 0u64;
            let mut last_record = Instant::now();
            loop {
                let mut any = false;
                for (tp, next) in &mut positions {
                    let room = max.map_or(READ_BATCH, |m| READ_BATCH.min((m - printed) as usize));
                    if room == 0 {
                        return Ok(());
                    }
                    // A bad record ends the read non-zero; the good ones before it were
                    // returned (and printed) by the previous call.
                    let records = log.read(tp, *next, room).map_err(|e| {
                        let _ = out.flush();
                        CommandError::new(EXIT_STARTUP, e)
                    })?;
                    for r in &records {
                        print_record(&mut out, r);
                        *next = r.offset + 1;
                        printed += 1;
                    }
                    any |= !records.is_empty();
                }
                if max.is_some_and(|m| printed >= m) {
                    return Ok(());
                }
                if any {
                    last_record = Instant::now();
                } else {
                    if timeout_ms.is_some_and(|t| last_record.elapsed() >= Duration::from_millis(t))
                    {
                        return Ok(());
                    }
                    let _ = out.flush();
                    tokio::time::sleep(FOLLOW_INTERVAL).await;
                }
            }
        }
    }
}

fn text(bytes: Option<&[u8]>) -> std::borrow::Cow<'_, str> {
    bytes.map_or(std::borrow::Cow::Borrowed("null"), String::from_utf8_lossy)
}

fn print_record(out: &mut impl Write, r: &ConsumedRecord) {
    let headers = if r.headers.is_empty() {
        "NO_HEADERS".to_owned()
    } else {
        r.headers
            .iter()
            .map(|(k, v)| format!("{k}:{}", text(v.as_deref())))
            .collect::<Vec<_>>()
            .join(",")
    };
    let _ = writeln!(
        out,
        "Partition:{}\tOffset:{}\t{headers}\t{}\t{}",
        r.partition,
        r.offset,
        text(r.key.as_deref()),
        text(r.value.as_deref())
    );
}
