//! What a task moved: records and bytes counted as they go, summarised in its final log line,
//! e.g. `produced 1000 records, 100.0 KB in 0.52 s (1923 records/s)`. The counters are the
//! task's metric handles (`source-record-write-total` or `sink-record-send-total`, and
//! `connect_rs_task_record_bytes_total`): `GET /metrics` and the log line read the same counts.
//!
//! Records count once they are done with, as Kafka Connect counts them: a source's when the
//! topic acknowledged them (a transaction's when it committed), a sink's when `put` returned.
//! The time of a summary is the time the task was moving records: from the first record it took
//! in to the last one it moved out, so the rate is the count over the interval it was made in.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;

/// No `add` yet.
const NEVER: u64 = u64::MAX;

/// Record and byte counters of one task (shared by its restarts).
#[derive(Debug)]
pub struct Throughput {
    started: Instant,
    verb: OnceLock<&'static str>,
    records: Counter,
    bytes: Counter,
    /// Nanoseconds from `started` to the first `add` of records ([`NEVER`]: none yet).
    first_nanos: AtomicU64,
    /// Nanoseconds from `started` to the last `add` of records ([`NEVER`]: none yet).
    last_nanos: AtomicU64,
}

impl Default for Throughput {
    /// Counters in no registry.
    fn default() -> Self {
        Self::new(Counter::default(), Counter::default())
    }
}

impl Throughput {
    /// Counts into `records` and `bytes`, starting now.
    pub fn new(records: Counter, bytes: Counter) -> Self {
        Self {
            started: Instant::now(),
            verb: OnceLock::new(),
            records,
            bytes,
            first_nanos: AtomicU64::new(NEVER),
            last_nanos: AtomicU64::new(NEVER),
        }
    }

    /// Counts `records` records of `bytes` bytes (keys, values, header names and values);
    /// `verb` says what happened to them (`produced`, `put`).
    pub fn add(&self, verb: &'static str, records: u64, bytes: u64) {
        self.add_at(verb, records, bytes, Instant::now());
    }

    /// [`Self::add`] of records done with at `at`.
    pub fn add_at(&self, verb: &'static str, records: u64, bytes: u64, at: Instant) {
        let _ = self.verb.set(verb);
        self.records.inc_by(records);
        self.bytes.inc_by(bytes);
        if records > 0 {
            let nanos = u64::try_from(at.saturating_duration_since(self.started).as_nanos())
                .unwrap_or(NEVER - 1);
            self.first_nanos.fetch_min(nanos, Ordering::Relaxed);
            // `NEVER` is the largest value: the first `add` replaces it through `fetch_min`.
            let _ = self
                .last_nanos
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
                    (last == NEVER || last < nanos).then_some(nanos)
                });
        }
    }

    /// What happened to the records counted (`produced`, `put`), once any were.
    pub fn verb(&self) -> Option<&'static str> {
        self.verb.get().copied()
    }

    fn at(&self, nanos: &AtomicU64) -> Option<Instant> {
        match nanos.load(Ordering::Relaxed) {
            NEVER => None,
            n => Some(self.started + Duration::from_nanos(n)),
        }
    }

    /// When the first records were counted, if any were.
    pub fn first_at(&self) -> Option<Instant> {
        self.at(&self.first_nanos)
    }

    /// When the last records were counted, if any were.
    pub fn last_at(&self) -> Option<Instant> {
        self.at(&self.last_nanos)
    }

    /// Records counted so far.
    pub fn records(&self) -> u64 {
        self.records.get()
    }

    /// Bytes counted so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.get()
    }

    /// `produced 1000 records, 100.0 KB in 0.52 s (1923 records/s)`: what was moved out, over
    /// the time from the first record `taken_in` to the last one moved out; `verb` says what
    /// happened to them while none were counted.
    pub fn summary(&self, taken_in: &Throughput, verb: &'static str) -> String {
        summary(
            self.verb().unwrap_or(verb),
            self.records(),
            self.bytes(),
            moving_time(
                earliest(taken_in.first_at(), self.first_at()),
                self.last_at(),
            ),
        )
    }
}

/// A task's summary, e.g. for its last log line: [`Throughput::summary`] of what it moved out
/// since the first record it took in (`put 0 records` for a sink that moved nothing).
pub fn task_summary(activity: &super::activity::TaskActivity) -> String {
    let verb = match activity.metrics.kind() {
        Some(crate::metrics::TaskKind::Sink) => "put",
        Some(crate::metrics::TaskKind::Source) => "produced",
        None => "copied",
    };
    activity.throughput.summary(&activity.inflow, verb)
}

/// The earlier of two instants that may be unknown.
pub fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The time records were moving: from `first_in` (the first record taken in) to `last_out`
/// (the last one moved out); zero when nothing was moved out.
pub fn moving_time(first_in: Option<Instant>, last_out: Option<Instant>) -> Duration {
    match (first_in, last_out) {
        (Some(first), Some(last)) => last.saturating_duration_since(first),
        _ => Duration::ZERO,
    }
}

/// The summary line for `records` records of `bytes` bytes moved in `elapsed`.
pub fn summary(verb: &str, records: u64, bytes: u64, elapsed: Duration) -> String {
    format!(
        "{verb} {records} record{}, {} in {} ({:.0} records/s)",
        if records == 1 { "" } else { "s" },
        human_bytes(bytes),
        human_duration(elapsed),
        rate(records, elapsed)
    )
}

/// Records per second: `records` over `elapsed` (0 over no time).
pub fn rate(records: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    #[allow(clippy::cast_precision_loss)]
    if secs > 0.0 {
        records as f64 / secs
    } else {
        0.0
    }
}

/// `0.52 s`, `12.30 s`; under 10 ms in milliseconds (`3.86 ms`), so a short copy does not read
/// as taking no time at all.
pub fn human_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if d > Duration::ZERO && d < Duration::from_millis(10) {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{secs:.2} s")
    }
}

/// `512 B`, `100.0 KB`, `1.5 MB`, `2.0 GB` (powers of 1000).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Bytes of a record's key, value and headers (names and values).
pub fn record_bytes(
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: &[(String, Option<Vec<u8>>)],
) -> u64 {
    let headers: usize = headers
        .iter()
        .map(|(k, v)| k.len() + v.as_ref().map_or(0, Vec::len))
        .sum();
    let total = key.map_or(0, <[u8]>::len) + value.map_or(0, <[u8]>::len) + headers;
    u64::try_from(total).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_reads_like_a_person_wrote_it() {
        assert_eq!(
            summary("produced", 1000, 100_000, Duration::from_millis(520)),
            "produced 1000 records, 100.0 KB in 0.52 s (1923 records/s)"
        );
        assert_eq!(
            summary("put", 1, 10, Duration::ZERO),
            "put 1 record, 10 B in 0.00 s (0 records/s)"
        );
        assert_eq!(
            summary("put", 1, 10, Duration::from_micros(3860)),
            "put 1 record, 10 B in 3.86 ms (259 records/s)"
        );
        assert_eq!(human_bytes(1_500_000), "1.5 MB");
        assert_eq!(
            record_bytes(
                Some(b"k"),
                Some(b"vv"),
                &[("h".into(), Some(b"x".to_vec()))]
            ),
            5
        );
    }

    #[test]
    fn a_task_that_moved_nothing_says_what_it_would_have_done() {
        use crate::metrics::{TaskKind, TaskMetrics};
        let sink = super::super::activity::TaskActivity::new(
            "s-0".into(),
            TaskMetrics::detached_of(TaskKind::Sink),
            TaskKind::Sink,
        );
        assert_eq!(
            task_summary(&sink),
            "put 0 records, 0 B in 0.00 s (0 records/s)"
        );
    }

    #[test]
    fn the_time_runs_from_the_first_record_taken_in_to_the_last_moved_out() {
        let taken_in = Throughput::default();
        let moved_out = Throughput::default();
        assert_eq!(
            moving_time(taken_in.first_at(), moved_out.last_at()),
            Duration::ZERO
        );
        let t0 = Instant::now() + Duration::from_secs(5);
        taken_in.add_at("polled", 10, 0, t0);
        moved_out.add_at("produced", 4, 40, t0 + Duration::from_millis(500));
        // Nothing moved: the instants stay.
        moved_out.add_at("produced", 0, 0, t0 + Duration::from_secs(30));
        moved_out.add_at("produced", 6, 60, t0 + Duration::from_secs(2));
        // Records counted out of order do not move the end back.
        moved_out.add_at("produced", 2, 20, t0 + Duration::from_secs(1));
        assert_eq!(moved_out.first_at(), Some(t0 + Duration::from_millis(500)));
        assert_eq!(moved_out.last_at(), Some(t0 + Duration::from_secs(2)));
        assert_eq!(
            moved_out.summary(&taken_in, "copied"),
            "produced 12 records, 120 B in 2.00 s (6 records/s)"
        );
        // Without an inflow (or before it), the outflow's own first instant starts the time.
        assert_eq!(
            moved_out.summary(&Throughput::default(), "copied"),
            "produced 12 records, 120 B in 1.50 s (8 records/s)"
        );
    }
}
