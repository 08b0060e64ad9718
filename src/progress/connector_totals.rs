//! One connector's counts, added up over its tasks' activity cells.

use std::time::Duration;

use crate::worker::TaskActivity;

/// What a connector's tasks moved so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectorTotals {
    /// Whether the tasks are sink tasks (they read topics); otherwise source tasks.
    pub sink: bool,
    /// Records taken in: polled from the source, or read from topics.
    pub records_in: u64,
    /// Bytes read from topics (sinks; sources do not know their input's bytes per record).
    pub bytes_in: u64,
    /// Records moved out: produced to topics, or put to the sink.
    pub records_out: u64,
    /// Bytes of the records moved out (keys, values and headers as in the topic).
    pub bytes_out: u64,
    /// Records that ended in an error (`total-record-errors`).
    pub errors: u64,
    /// For sources reading inputs of known size: bytes read and the inputs' size.
    pub input: Option<(u64, u64)>,
    /// For sinks: records left to read to the end of their partitions, when known.
    pub lag: Option<u64>,
    /// The longest time a task was moving records.
    pub active: Duration,
}

impl ConnectorTotals {
    /// The totals of one connector's task cells.
    pub fn of(cells: &[&TaskActivity]) -> Self {
        let mut totals = Self::default();
        for cell in cells {
            totals.sink |=
                cell.inflow.verb() == Some("read") || cell.throughput.verb() == Some("put");
            totals.records_in += cell.inflow.records();
            totals.bytes_in += cell.inflow.bytes();
            totals.records_out += cell.throughput.records();
            totals.bytes_out += cell.throughput.bytes();
            totals.errors += cell.errors.snapshot().total_record_errors;
            if let Some(p) = cell.input_progress() {
                let (done, total) = totals.input.unwrap_or((0, 0));
                totals.input = Some((done + p.done, total + p.total));
            }
            if let Some(lag) = cell.lag() {
                totals.lag = Some(totals.lag.unwrap_or(0) + lag);
            }
            totals.active = totals.active.max(cell.throughput.active());
        }
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{TaskKind, TaskMetrics};

    #[test]
    fn a_connector_adds_up_its_tasks() {
        let a = TaskActivity::new("c-0".into(), TaskMetrics::detached(), TaskKind::Sink);
        let b = TaskActivity::new("c-1".into(), TaskMetrics::detached(), TaskKind::Sink);
        a.inflow.add("read", 3, 30);
        a.throughput.add("put", 3, 30);
        b.inflow.add("read", 2, 20);
        b.throughput.add("put", 1, 10);
        a.set_lag(Some(5));
        b.set_lag(Some(7));
        b.errors.error();
        let t = ConnectorTotals::of(&[&a, &b]);
        assert!(t.sink);
        assert_eq!(
            (
                t.records_in,
                t.bytes_in,
                t.records_out,
                t.bytes_out,
                t.errors,
                t.lag
            ),
            (5, 50, 4, 40, 1, Some(12))
        );
        assert_eq!(t.input, None);

        let s = TaskActivity::new("s-0".into(), TaskMetrics::detached(), TaskKind::Source);
        s.inflow.add("polled", 4, 0);
        s.throughput.add("produced", 4, 40);
        s.set_input_progress(Some(connect_api::InputProgress {
            done: 10,
            total: 40,
        }));
        let t = ConnectorTotals::of(&[&s]);
        assert!(!t.sink);
        assert_eq!(t.input, Some((10, 40)));
    }
}
