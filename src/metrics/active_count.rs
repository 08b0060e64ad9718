//! `source-record-active-count` / `sink-record-active-count` with their `-max` and `-avg`:
//! the records a task handled whose offsets are not committed yet, the largest value seen and
//! the mean of the values reported (each batch reports one), since the task started.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::labels::TaskLabels;
use super::task::FloatGauge;

/// The three families of one group's active count.
#[derive(Debug, Clone, Default)]
pub struct ActiveCountFamilies {
    current: Family<TaskLabels, Gauge>,
    max: Family<TaskLabels, Gauge>,
    avg: Family<TaskLabels, FloatGauge>,
}

impl ActiveCountFamilies {
    /// Registers `<name>`, `<name>_max` and `<name>_avg` in `group`.
    pub fn register(&self, group: &mut Registry, name: &str, what: &str) {
        group.register(name, what.to_owned(), self.current.clone());
        group.register(
            format!("{name}_max"),
            format!("Largest value of {name} since the task started"),
            self.max.clone(),
        );
        group.register(
            format!("{name}_avg"),
            format!("Mean of the values of {name} reported since the task started"),
            self.avg.clone(),
        );
    }

    /// The handles of the task labelled `l`; `on = false`: handles in no registry.
    pub fn get(&self, l: &TaskLabels, on: bool) -> ActiveCount {
        if !on {
            return ActiveCount::default();
        }
        ActiveCount {
            current: self.current.get_or_create_owned(l),
            max: self.max.get_or_create_owned(l),
            avg: self.avg.get_or_create_owned(l),
            samples: Arc::default(),
        }
    }

    /// Removes the series of the task labelled `l`.
    pub fn remove(&self, l: &TaskLabels) {
        self.current.remove(l);
        self.max.remove(l);
        self.avg.remove(l);
    }
}

/// One task's active count handles.
#[derive(Debug, Clone, Default)]
pub struct ActiveCount {
    current: Gauge,
    max: Gauge,
    avg: FloatGauge,
    /// Sum and number of the values reported.
    samples: Arc<(AtomicU64, AtomicU64)>,
}

impl ActiveCount {
    /// The task reports `n` records not committed yet.
    pub fn record(&self, n: u64) {
        let value = i64::try_from(n).unwrap_or(i64::MAX);
        self.current.set(value);
        if value > self.max.get() {
            // Only the task's own loop reports, so no other writer races this update.
            self.max.set(value);
        }
        let sum = self
            .samples
            .0
            .fetch_add(n, Ordering::Relaxed)
            .saturating_add(n);
        let count = self.samples.1.fetch_add(1, Ordering::Relaxed) + 1;
        #[allow(clippy::cast_precision_loss)]
        self.avg.set(sum as f64 / count as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_and_mean_follow_the_reported_values() {
        let a = ActiveCount::default();
        for n in [4, 10, 1] {
            a.record(n);
        }
        assert_eq!((a.current.get(), a.max.get(), a.avg.get()), (1, 10, 5.0));
    }
}
