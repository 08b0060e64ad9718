//! `offset.flush.interval.ms` above the restart tolerance. Offsets are committed every
//! interval, so after a crash sources re-deliver, and sinks re-process, up to one interval of
//! records: the rule is interval > `--restart-tolerance` (default 5 minutes), the work one is
//! willing to redo after a crash. Exactly-once sources (the embedded log's commit journal, or
//! Kafka transactions) resume exactly: then only the sinks' share is named.

use std::time::Duration;

use super::{Finding, Severity, WorkerFile};
use crate::config::WorkerConfig;

/// The key checked.
const KEY: &str = "offset.flush.interval.ms";

/// A warning when the flush interval exceeds `tolerance`.
pub fn check(worker: &WorkerFile, config: &WorkerConfig, tolerance: Duration) -> Vec<Finding> {
    let interval = config.offset_flush_interval();
    if interval <= tolerance {
        return Vec::new();
    }
    let shown = |d: Duration| humantime::format_duration(d).to_string();
    let redone = if sources_resume_exactly(config) {
        "sinks re-process up to {} of records (sources resume exactly: their offsets are \
         committed with their records)"
    } else {
        "sources re-deliver and sinks re-process up to {} of records"
    }
    .replace("{}", &shown(interval));
    vec![Finding::new(
        Severity::Warning,
        "offset-flush-interval",
        &worker.path,
        format!(
            "Offsets are committed every {}: after a crash, {redone}, more than the restart \
             tolerance of {}.",
            shown(interval),
            shown(tolerance)
        ),
        format!(
            "Set {KEY} to at most {} (or pass a larger --restart-tolerance if that much redone \
             work is fine).",
            tolerance.as_millis()
        ),
    )
    .at(KEY, worker.raw.line(KEY))]
}

/// Whether source offsets are committed atomically with the records: the embedded log's commit
/// journal (`embedded.log.exactly.once.source`, default on) or Kafka transactions
/// (`exactly.once.source.support=enabled`, distributed mode).
fn sources_resume_exactly(config: &WorkerConfig) -> bool {
    match config.bootstrap_servers() {
        None => crate::commands::embedded_log::options(config).exactly_once_source,
        Some(_) => config.exactly_once_source_enabled(),
    }
}
