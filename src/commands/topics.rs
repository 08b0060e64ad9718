//! `connect-rs topics`: list and read the embedded log's topics, as kafka-topics and
//! kafka-console-consumer do for Kafka. Opens the log read-only, so it works while a worker
//! runs; `repair-journal` (the worker stopped) rebuilds a damaged commit journal.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, Context};
use tokio::time::Instant;

use super::{CommandError, EXIT_STARTUP, EXIT_USAGE};
use crate::cli::{TopicsAction, TopicsArgs};
use crate::config::load_file;
use crate::topics::local::{repair_journal, JournalRepair, LocalLog};
use crate::topics::{ConsumedRecord, TopicPartition};

/// Records read per partition per round.
const READ_BATCH: usize = 1000;
/// Pause between rounds when following a topic that has no new records.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(100);

/// Runs `topics`.
///
/// # Errors
/// Without `--worker`, or on a worker whose topics are in Kafka (exit 1). When the worker file
/// or the log cannot be read (exit 2; also a corrupt record met by `read`, after the records
/// before it were printed, and damage `list` finds: a partition whose records stop at a
/// corrupt one, a commit journal the next start would refuse), or the topic does not exist
/// (1).
pub async fn run(args: TopicsArgs) -> Result<(), CommandError> {
    let worker = args.worker.ok_or_else(|| {
        CommandError::new(
            EXIT_USAGE,
            anyhow!(
                "topics needs the worker file: --worker WORKER_FILE (before or after the action, e.g. `connect-rs topics list --worker worker.properties`)"
            ),
        )
    })?;
    let raw = load_file(&worker).map_err(|e| CommandError::new(EXIT_STARTUP, e))?;
    if let Some(servers) = raw
        .get("bootstrap.servers")
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        return Err(CommandError::new(
            EXIT_USAGE,
            anyhow!(in_kafka(&worker, servers)),
        ));
    }
    let dir = PathBuf::from(
        raw.get("embedded.log.dir")
            .unwrap_or(crate::config::DEFAULT_EMBEDDED_LOG_DIR),
    );
    if matches!(args.action, TopicsAction::RepairJournal) {
        return repair(&dir);
    }
    let log = LocalLog::open_read_only(&dir)
        .with_context(|| format!("Could not open the embedded log {}", dir.display()))
        .map_err(|e| CommandError::new(EXIT_STARTUP, e))?;
    let mut out = std::io::stdout().lock();
    match args.action {
        TopicsAction::List => {
            let topics = log.topics();
            let damaged = log.damaged_partitions();
            let is_damaged = |topic: &str, partition: i32| {
                damaged
                    .iter()
                    .any(|(tp, _)| tp.topic == topic && tp.partition == partition)
            };
            for topic in &topics {
                for p in &topic.partitions {
                    // A damaged partition's end offset is only where reading stops: not shown.
                    if !is_damaged(&topic.name, p.partition) {
                        let _ = writeln!(out, "{}\t{}\t{}", topic.name, p.partition, p.end_offset);
                    }
                }
            }
            let _ = out.flush();
            let mut problems: Vec<String> = damaged
                .iter()
                .map(|(_, e)| format!("{e}; its records after that one are not counted (the partition is damaged)"))
                .collect();
            if let Err(e) = LocalLog::check_journal(&dir) {
                problems.push(format!(
                    "{e} (the next start of the worker refuses to open the log)"
                ));
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(CommandError::new(
                    EXIT_STARTUP,
                    anyhow!(problems.join("\nerror: ")),
                ))
            }
        }
        TopicsAction::RepairJournal => Ok(()),
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

/// Why `topics` does not look at a worker with `bootstrap.servers`, and what does.
fn in_kafka(worker: &Path, servers: &str) -> String {
    let first = servers.split(',').next().unwrap_or(servers).trim();
    format!(
        "The topics of {} are in Kafka (bootstrap.servers={servers}), not in an embedded log: \
         `connect-rs topics` reads only the embedded log. Use Kafka's tools, e.g. \
         `kafka-topics.sh --bootstrap-server {first} --list` and \
         `kafka-console-consumer.sh --bootstrap-server {first} --topic TOPIC --from-beginning` \
         (with --command-config / --consumer.config holding the worker's security settings).",
        worker.display()
    )
}

/// `topics repair-journal`: rebuilds a damaged commit journal, saying what it did.
fn repair(dir: &Path) -> Result<(), CommandError> {
    let outcome = repair_journal(dir)
        .with_context(|| format!("Could not repair the commit journal of {}", dir.display()))
        .map_err(|e| CommandError::new(EXIT_STARTUP, e))?;
    let mut out = std::io::stdout().lock();
    match outcome {
        JournalRepair::NoJournal => {
            let _ = writeln!(
                out,
                "{} has no commit journal: nothing to repair.",
                dir.display()
            );
        }
        JournalRepair::Intact => {
            let _ = writeln!(
                out,
                "The commit journal of {} is intact: nothing changed.",
                dir.display()
            );
        }
        JournalRepair::Rebuilt {
            damage,
            saved,
            kept,
            source_offsets,
        } => {
            let _ = writeln!(
                out,
                "The commit journal of {} was {damage}; the damaged file is saved as {}.",
                dir.display(),
                saved.display()
            );
            for (partition, committed, end) in &kept {
                let _ = writeln!(
                    out,
                    "Kept {partition} up to offset {end} (the undamaged entries recorded {committed}; {} records kept that the next start would have cut).",
                    end - committed
                );
            }
            let _ = writeln!(
                out,
                "Rebuilt the journal from the partitions, every record kept, with the source offsets of {source_offsets} source partition(s) from before the damage: sources may produce again what they produced after it."
            );
        }
    }
    Ok(())
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
