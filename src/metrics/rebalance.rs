//! Distributed mode only: Kafka Connect's `connect-worker-rebalance-metrics` (completed
//! rebalances, whether one is under way, the generation, the leader and protocol) and
//! `connect-coordinator-metrics` (what this member is assigned). The distributed herder sets
//! them as group events arrive, and the assignment when `/metrics` is scraped.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use super::labels::RebalanceInfoLabels;
use super::task::FloatGauge;

/// A completed rebalance, as this worker saw it.
#[derive(Debug, Clone)]
pub struct Rebalance<'a> {
    /// The group generation (0 in a one-worker cluster).
    pub generation: i32,
    /// The leader's REST URL.
    pub leader: &'a str,
    /// The sub-protocol (`eager`, `compatible`, `sessioned`; `none` without a group).
    pub protocol: &'a str,
}

/// The rebalance and coordinator metrics.
#[derive(Debug, Clone)]
pub struct RebalanceMetrics {
    completed: Counter,
    rebalancing: Gauge,
    epoch: Gauge,
    info: Family<RebalanceInfoLabels, Gauge>,
    last_rebalance: FloatGauge,
    assigned_connectors: Gauge,
    assigned_tasks: Gauge,
    /// `rebalance-avg/max-time-ms`: from the start of a rebalance to its completion.
    time: Histogram,
    /// When the rebalance under way began.
    began: Arc<Mutex<Option<Instant>>>,
}

impl RebalanceMetrics {
    /// The metrics, registered in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let m = Self {
            completed: Counter::default(),
            rebalancing: Gauge::default(),
            epoch: Gauge::default(),
            info: Family::default(),
            last_rebalance: FloatGauge::default(),
            assigned_connectors: Gauge::default(),
            assigned_tasks: Gauge::default(),
            // 10 ms to about 5 minutes (a dead member's session timeout, a rebalance timeout).
            time: Histogram::new(exponential_buckets(0.01, 2.0, 16)),
            began: Arc::default(),
        };
        let g = registry.sub_registry_with_prefix("kafka_connect_connect_worker_rebalance_metrics");
        g.register(
            "completed_rebalances",
            "Rebalances this worker completed",
            m.completed.clone(),
        );
        g.register(
            "rebalancing",
            "1 while this worker is rebalancing (joining the group), else 0",
            m.rebalancing.clone(),
        );
        g.register(
            "epoch",
            "The group generation of this worker's assignment",
            m.epoch.clone(),
        );
        g.register(
            "info",
            "The group's connect protocol and leader in labels (value 1)",
            m.info.clone(),
        );
        g.register(
            "rebalance_time_seconds",
            "Time from the start of a rebalance (revocation, lost membership) to its completion; rebalance-avg/max-time-ms",
            m.time.clone(),
        );
        g.register(
            "last_rebalance_timestamp_seconds",
            "When the last rebalance completed, in seconds since the epoch (time-since-last-rebalance-ms = now - this)",
            m.last_rebalance.clone(),
        );
        let g = registry.sub_registry_with_prefix("kafka_connect_connect_coordinator_metrics");
        g.register(
            "assigned_connectors",
            "Connectors assigned to this worker",
            m.assigned_connectors.clone(),
        );
        g.register(
            "assigned_tasks",
            "Tasks assigned to this worker",
            m.assigned_tasks.clone(),
        );
        m
    }

    /// The worker is (re)joining its group.
    pub fn started(&self) {
        self.rebalancing.set(1);
        self.began
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(Instant::now);
    }

    /// A rebalance completed with `r`.
    pub fn completed(&self, r: &Rebalance<'_>) {
        self.completed.inc();
        self.rebalancing.set(0);
        let began = self
            .began
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(began) = began {
            self.time.observe(began.elapsed().as_secs_f64());
        }
        self.epoch.set(i64::from(r.generation));
        self.info.clear();
        self.info
            .get_or_create(&RebalanceInfoLabels {
                connect_protocol: r.protocol.to_owned(),
                leader_name: r.leader.to_owned(),
            })
            .set(1);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        self.last_rebalance.set(now);
    }

    /// This worker is assigned `connectors` connectors and `tasks` tasks.
    pub fn assigned(&self, connectors: usize, tasks: usize) {
        self.assigned_connectors
            .set(i64::try_from(connectors).unwrap_or(i64::MAX));
        self.assigned_tasks
            .set(i64::try_from(tasks).unwrap_or(i64::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebalance_that_began_is_timed_once() {
        let mut registry = Registry::default();
        let m = RebalanceMetrics::register(&mut registry);
        let done = Rebalance {
            generation: 3,
            leader: "http://w1:8083/",
            protocol: "sessioned",
        };
        m.started();
        m.started();
        m.completed(&done);
        // A completion without a start (the first assignment) is not timed.
        m.completed(&done);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        let count = "kafka_connect_connect_worker_rebalance_metrics_rebalance_time_seconds_count 1";
        assert!(text.contains(count), "{text}");
        assert!(
            text.contains(
                "kafka_connect_connect_worker_rebalance_metrics_completed_rebalances_total 2"
            ),
            "{text}"
        );
    }
}
