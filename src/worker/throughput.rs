//! What a task moved: records and bytes counted as they go, summarised in its final log line,
//! e.g. `produced 1000 records, 100.0 KB in 0.52 s (1923 records/s)`. The counters are the
//! task's metric handles (`source-record-write-total` or `sink-record-send-total`, and
//! `connect_rs_task_record_bytes_total`): `GET /metrics` and the log line read the same counts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;

/// Record and byte counters of one task (shared by its restarts).
#[derive(Debug)]
pub struct Throughput {
    started: Instant,
    verb: OnceLock<&'static str>,
    records: Counter,
    bytes: Counter,
    /// Nanoseconds from `started` to the last `add`: how long the task was moving records.
    active_nanos: AtomicU64,
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
            active_nanos: AtomicU64::new(0),
        }
    }

    /// Counts `records` records of `bytes` bytes (keys, values, header names and values);
    /// `verb` says what happened to them (`produced`, `put`).
    pub fn add(&self, verb: &'static str, records: u64, bytes: u64) {
        let _ = self.verb.set(verb);
        self.records.inc_by(records);
        self.bytes.inc_by(bytes);
        let active = u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.active_nanos.fetch_max(active, Ordering::Relaxed);
    }

    /// What happened to the records counted (`produced`, `put`), once any were.
    pub fn verb(&self) -> Option<&'static str> {
        self.verb.get().copied()
    }

    /// How long the task was moving records: from its start to the last records counted.
    pub fn active(&self) -> Duration {
        Duration::from_nanos(self.active_nanos.load(Ordering::Relaxed))
    }

    /// Records counted so far.
    pub fn records(&self) -> u64 {
        self.records.get()
    }

    /// Bytes counted so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.get()
    }

    /// `produced 1000 records, 100.0 KB in 0.52 s (1923 records/s)`.
    pub fn summary(&self) -> String {
        summary(
            self.verb().unwrap_or("copied"),
            self.records(),
            self.bytes(),
            self.started.elapsed(),
        )
    }
}

/// The summary line for `records` records of `bytes` bytes moved in `elapsed`.
pub fn summary(verb: &str, records: u64, bytes: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    #[allow(clippy::cast_precision_loss)]
    let rate = if secs > 0.0 {
        records as f64 / secs
    } else {
        0.0
    };
    format!(
        "{verb} {records} record{}, {} in {secs:.2} s ({rate:.0} records/s)",
        if records == 1 { "" } else { "s" },
        human_bytes(bytes)
    )
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
}
