//! The per-connector summary of a run: records, bytes, duration, rate and errors, as a log
//! line and as a table for the terminal.

use std::fmt::Write as _;
use std::time::Duration;

use super::connector_totals::ConnectorTotals;
use crate::worker::throughput::{human_bytes, summary};

/// What one connector moved during the run.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorSummary {
    /// Connector name.
    pub name: String,
    /// `source` or `sink`.
    pub kind: &'static str,
    /// Records produced (source) or put (sink).
    pub records: u64,
    /// Bytes of those records.
    pub bytes: u64,
    /// How long its tasks were moving records.
    pub duration: Duration,
    /// Records that ended in an error.
    pub errors: u64,
}

impl ConnectorSummary {
    /// The summary of connector `name` from its totals.
    pub fn of(name: &str, totals: &ConnectorTotals) -> Self {
        Self {
            name: name.to_owned(),
            kind: if totals.sink { "sink" } else { "source" },
            records: totals.records_out,
            bytes: totals.bytes_out,
            duration: totals.active,
            errors: totals.errors,
        }
    }

    fn verb(&self) -> &'static str {
        if self.kind == "sink" {
            "put"
        } else {
            "produced"
        }
    }

    /// `Connector src (source): produced 1000 records, 100.0 KB in 0.52 s (1923 records/s), 0 errors.`
    pub fn log_line(&self) -> String {
        format!(
            "Connector {} ({}): {}, {} error{}.",
            self.name,
            self.kind,
            summary(self.verb(), self.records, self.bytes, self.duration),
            self.errors,
            if self.errors == 1 { "" } else { "s" }
        )
    }

    fn rate(&self) -> f64 {
        let secs = self.duration.as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        if secs > 0.0 {
            self.records as f64 / secs
        } else {
            0.0
        }
    }
}

/// The summaries as an aligned table under a `Summary` heading.
pub fn table(summaries: &[ConnectorSummary]) -> String {
    let header = [
        "connector",
        "type",
        "records",
        "bytes",
        "duration",
        "rate",
        "errors",
    ];
    let rows: Vec<[String; 7]> = summaries
        .iter()
        .map(|s| {
            [
                s.name.clone(),
                s.kind.to_owned(),
                s.records.to_string(),
                human_bytes(s.bytes),
                format!("{:.2} s", s.duration.as_secs_f64()),
                format!("{:.0} records/s", s.rate()),
                s.errors.to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::from("Summary\n");
    let mut line = |cells: Vec<&str>| {
        out.push(' ');
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            // Names and kinds to the left, numbers to the right.
            if i < 2 {
                let _ = write!(out, " {cell:<w$}");
            } else {
                let _ = write!(out, " {cell:>w$}");
            }
        }
        out.push('\n');
    };
    line(header.to_vec());
    for row in &rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> ConnectorSummary {
        ConnectorSummary {
            name: "src".into(),
            kind: "source",
            records: 1000,
            bytes: 100_000,
            duration: Duration::from_millis(500),
            errors: 0,
        }
    }

    #[test]
    fn the_log_line_reads_like_the_task_lines() {
        assert_eq!(
            src().log_line(),
            "Connector src (source): produced 1000 records, 100.0 KB in 0.50 s (2000 records/s), 0 errors."
        );
    }

    #[test]
    fn the_table_aligns_its_columns() {
        let sink = ConnectorSummary {
            name: "a-long-sink".into(),
            kind: "sink",
            records: 7,
            bytes: 70,
            duration: Duration::from_secs(2),
            errors: 1,
        };
        assert_eq!(
            table(&[src(), sink]),
            "Summary\n\
             \x20 connector   type   records    bytes duration           rate errors\n\
             \x20 src         source    1000 100.0 KB   0.50 s 2000 records/s      0\n\
             \x20 a-long-sink sink         7     70 B   2.00 s    4 records/s      1\n"
        );
    }
}
