//! `offset.flush.interval.ms` above the restart tolerance. Offsets are committed every
//! interval, so after a crash sources re-deliver, and sinks re-process, up to one interval of
//! records: the rule is interval > `--restart-tolerance` (default 5 minutes), the work one is
//! willing to redo after a crash.

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
    vec![Finding::new(
        Severity::Warning,
        "offset-flush-interval",
        &worker.path,
        format!(
            "Offsets are committed every {}: after a crash, sources re-deliver and sinks \
             re-process up to {} of records, more than the restart tolerance of {}.",
            shown(interval),
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
