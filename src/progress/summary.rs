//! The per-connector summary of a run: records, bytes, duration, rate and errors, as a log
//! line and as a table for the terminal.

use std::fmt::Write as _;
use std::time::Duration;

use super::connector_totals::ConnectorTotals;
use crate::worker::throughput::{human_bytes, human_duration, rate, summary};

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
    /// Tasks that stopped with an error: (task name, error).
    pub failed: Vec<(String, String)>,
    /// Records handled whose progress is not committed: what the next start repeats.
    pub uncommitted: u64,
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
            failed: totals.failed.clone(),
            uncommitted: totals.uncommitted,
        }
    }

    /// Errors in all: records that ended in an error, and tasks that failed.
    pub fn all_errors(&self) -> u64 {
        self.errors + u64::try_from(self.failed.len()).unwrap_or(u64::MAX)
    }

    fn verb(&self) -> &'static str {
        if self.kind == "sink" {
            "put"
        } else {
            "produced"
        }
    }

    /// `Connector src (source): produced 1000 records, 100.0 KB in 0.52 s (1923 records/s), 0 errors.`;
    /// records not committed and failed tasks are named, e.g. `…, 1 record not committed,
    /// 1 error (task dst-0 FAILED: …).`
    pub fn log_line(&self) -> String {
        let mut line = format!(
            "Connector {} ({}): {}",
            self.name,
            self.kind,
            summary(self.verb(), self.records, self.bytes, self.duration),
        );
        if self.uncommitted > 0 {
            let _ = write!(
                line,
                ", {} record{} not committed",
                self.uncommitted,
                plural(self.uncommitted)
            );
        }
        let all = self.all_errors();
        let _ = write!(line, ", {all} error{}", plural(all));
        if !self.failed.is_empty() {
            let mut causes = Vec::new();
            if self.errors > 0 {
                causes.push(format!("{} in records", self.errors));
            }
            for (task, error) in &self.failed {
                causes.push(format!("task {task} FAILED: {error}"));
            }
            let _ = write!(line, " ({})", causes.join("; "));
        }
        line.push('.');
        line
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
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
                human_duration(s.duration),
                format!("{:.0} records/s", rate(s.records, s.duration)),
                s.all_errors().to_string(),
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
            failed: Vec::new(),
            uncommitted: 0,
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
            failed: Vec::new(),
            uncommitted: 0,
        };
        assert_eq!(
            table(&[src(), sink]),
            "Summary\n\
             \x20 connector   type   records    bytes duration           rate errors\n\
             \x20 src         source    1000 100.0 KB   0.50 s 2000 records/s      0\n\
             \x20 a-long-sink sink         7     70 B   2.00 s    4 records/s      1\n"
        );
    }

    #[test]
    fn a_failed_task_is_an_error_and_what_it_did_not_commit_is_said() {
        let dst = ConnectorSummary {
            name: "dst".into(),
            kind: "sink",
            records: 1,
            bytes: 1,
            duration: Duration::from_micros(3860),
            errors: 0,
            failed: vec![("dst-0".into(), "Task flush failed: disk full".into())],
            uncommitted: 1,
        };
        assert_eq!(
            dst.log_line(),
            "Connector dst (sink): put 1 record, 1 B in 3.86 ms (259 records/s), 1 record not committed, 1 error (task dst-0 FAILED: Task flush failed: disk full)."
        );
        let both = ConnectorSummary {
            errors: 2,
            uncommitted: 0,
            ..dst
        };
        assert_eq!(
            both.log_line(),
            "Connector dst (sink): put 1 record, 1 B in 3.86 ms (259 records/s), 3 errors (2 in records; task dst-0 FAILED: Task flush failed: disk full)."
        );
        assert!(table(&[both]).contains("259 records/s      3\n"));
    }
}
