//! One connector's counts, added up over its tasks' activity cells.

use std::time::Duration;

use crate::metrics::TaskKind;
use crate::worker::throughput::{earliest, moving_time};
use crate::worker::{Activity, TaskActivity, Uncommitted};

/// What a connector's tasks moved so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectorTotals {
    /// Whether the tasks are sink tasks (they read topics); otherwise source tasks.
    pub sink: bool,
    /// Records taken in: polled from the source, or read from topics.
    pub records_in: u64,
    /// Bytes read from topics (sinks; sources do not know their input's bytes per record).
    pub bytes_in: u64,
    /// Records moved out: produced to topics and acknowledged, or put to the sink.
    pub records_out: u64,
    /// Bytes of the records moved out (keys, values and headers as in the topic).
    pub bytes_out: u64,
    /// Records that ended in an error (`total-record-errors`).
    pub errors: u64,
    /// Tasks that stopped with an error: (task name, error).
    pub failed: Vec<(String, String)>,
    /// Records handled whose progress is not committed: what the next start repeats.
    pub uncommitted: u64,
    /// For sources reading inputs of known size: bytes read and the inputs' size.
    pub input: Option<(u64, u64)>,
    /// For sinks: records left to read to the end of their partitions, when known.
    pub lag: Option<u64>,
    /// The time records were moving: from the first record a task took in to the last one
    /// a task moved out.
    pub active: Duration,
    /// Whether no task is moving records (each is idle, stopped or failed).
    pub idle: bool,
}

impl ConnectorTotals {
    /// The totals of one connector's task cells.
    pub fn of(cells: &[&TaskActivity]) -> Self {
        let mut totals = Self {
            idle: true,
            ..Self::default()
        };
        let (mut first_in, mut last_out) = (None, None);
        for cell in cells {
            totals.sink |= match cell.metrics.kind() {
                Some(kind) => kind == TaskKind::Sink,
                None => cell.inflow.verb() == Some("read") || cell.throughput.verb() == Some("put"),
            };
            totals.records_in += cell.inflow.records();
            totals.bytes_in += cell.inflow.bytes();
            totals.records_out += cell.throughput.records();
            totals.bytes_out += cell.throughput.bytes();
            totals.errors += cell.errors.snapshot().total_record_errors;
            match cell.get() {
                Activity::Failed => {
                    let error = cell.error().unwrap_or_else(|| "unknown error".to_owned());
                    totals.failed.push((cell.name.clone(), error));
                }
                Activity::Busy | Activity::Restarting => totals.idle = false,
                Activity::Idle(_) | Activity::Stopped => {}
            }
            totals.uncommitted += match cell.uncommitted() {
                Some(Uncommitted::Source(n) | Uncommitted::Sink(n)) => n,
                Some(Uncommitted::JournaledSource(_)) | None => 0,
            };
            if let Some(p) = cell.input_progress() {
                let (done, total) = totals.input.unwrap_or((0, 0));
                totals.input = Some((done + p.done, total + p.total));
            }
            if let Some(lag) = cell.lag() {
                totals.lag = Some(totals.lag.unwrap_or(0) + lag);
            }
            first_in = earliest(
                first_in,
                earliest(cell.inflow.first_at(), cell.throughput.first_at()),
            );
            last_out = last_out.max(cell.throughput.last_at());
        }
        totals.active = moving_time(first_in, last_out);
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

    #[test]
    fn a_sink_that_moved_nothing_is_a_sink() {
        let a = TaskActivity::new(
            "c-0".into(),
            TaskMetrics::detached_of(TaskKind::Sink),
            TaskKind::Sink,
        );
        let t = ConnectorTotals::of(&[&a]);
        assert!(t.sink);
        assert_eq!((t.records_out, t.active), (0, Duration::ZERO));
        let s = TaskActivity::new(
            "s-0".into(),
            TaskMetrics::detached_of(TaskKind::Source),
            TaskKind::Source,
        );
        assert!(!ConnectorTotals::of(&[&s]).sink);
    }

    #[test]
    fn failed_tasks_uncommitted_records_and_idleness_are_told() {
        let a = TaskActivity::new("c-0".into(), TaskMetrics::detached(), TaskKind::Sink);
        let b = TaskActivity::new("c-1".into(), TaskMetrics::detached(), TaskKind::Sink);
        assert!(!ConnectorTotals::of(&[&a, &b]).idle, "tasks start busy");
        a.set_uncommitted(Uncommitted::Sink(3));
        a.failed("Task flush failed: disk full".into());
        b.set_uncommitted(Uncommitted::Sink(0));
        b.idle();
        let t = ConnectorTotals::of(&[&a, &b]);
        assert!(t.idle);
        assert_eq!(
            t.failed,
            [("c-0".to_owned(), "Task flush failed: disk full".to_owned())]
        );
        assert_eq!((t.errors, t.uncommitted), (0, 3));
        let j = TaskActivity::new("j-0".into(), TaskMetrics::detached(), TaskKind::Source);
        j.set_uncommitted(Uncommitted::JournaledSource(9));
        assert_eq!(ConnectorTotals::of(&[&j]).uncommitted, 0, "repeats nothing");
    }

    #[test]
    fn the_time_runs_from_the_first_record_in_to_the_last_out_of_any_task() {
        let a = TaskActivity::new("c-0".into(), TaskMetrics::detached(), TaskKind::Source);
        let b = TaskActivity::new("c-1".into(), TaskMetrics::detached(), TaskKind::Source);
        let t0 = std::time::Instant::now() + Duration::from_secs(1);
        let at = |ms| t0 + Duration::from_millis(ms);
        a.inflow.add_at("polled", 5, 0, at(0));
        a.throughput.add_at("produced", 5, 50, at(300));
        b.inflow.add_at("polled", 5, 0, at(100));
        b.throughput.add_at("produced", 5, 50, at(1000));
        let t = ConnectorTotals::of(&[&a, &b]);
        assert_eq!((t.records_out, t.active), (10, Duration::from_secs(1)));
    }
}
