//! Metrics: Kafka Connect's metric groups (reference §11) as Prometheus families, served by
//! `GET /metrics` in the Prometheus text format 0.0.4. See `docs/metrics.md` for the mapping
//! rule and the full list.
//!
//! One [`WorkerMetrics`] per worker owns the registry: [`task`] holds the per-task groups
//! (handles resolved once per task), [`worker`] the worker-wide groups (set from a snapshot the
//! herder takes at scrape time), [`rebalance`] the distributed-mode group.

pub mod active_count;
pub mod buckets;
pub mod labels;
pub mod rebalance;
pub mod task;
pub mod worker;

use prometheus_client::registry::Registry;

pub use rebalance::{Rebalance, RebalanceMetrics};
pub use task::{ErrorMetrics, TaskFamilies, TaskKind, TaskMetrics};
pub use worker::{ConnectorSnapshot, StartupCounters, WorkerFamilies, WorkerSnapshot};

/// The `Content-Type` of `GET /metrics`: the Prometheus text format 0.0.4.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Which worker the metrics describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerMode {
    /// A standalone worker.
    Standalone,
    /// A distributed worker (with `connect-worker-rebalance-metrics`).
    Distributed,
}

/// A worker's metrics: the registry and its families.
#[derive(Debug)]
pub struct WorkerMetrics {
    registry: Registry,
    tasks: TaskFamilies,
    worker: WorkerFamilies,
    rebalance: Option<RebalanceMetrics>,
    /// Held while a scrape refreshes and encodes, so two scrapes do not interleave.
    scrape: tokio::sync::Mutex<()>,
}

impl WorkerMetrics {
    /// The metrics of a worker running in `mode`, every family registered (empty).
    pub fn new(mode: WorkerMode) -> Self {
        let mut registry = Registry::default();
        let worker = WorkerFamilies::register(&mut registry);
        let tasks = TaskFamilies::register(&mut registry);
        let rebalance =
            (mode == WorkerMode::Distributed).then(|| RebalanceMetrics::register(&mut registry));
        Self {
            registry,
            tasks,
            worker,
            rebalance,
            scrape: tokio::sync::Mutex::new(()),
        }
    }

    /// The handles of task `task` of `connector` (registered until
    /// [`TaskMetrics::unregister`]).
    pub fn task(&self, connector: &str, task: u32, kind: TaskKind) -> TaskMetrics {
        TaskMetrics::new(&self.tasks, connector, task, kind)
    }

    /// The worker-wide families (start-up counters).
    pub fn worker(&self) -> &WorkerFamilies {
        &self.worker
    }

    /// The rebalance metrics, in distributed mode.
    pub fn rebalance(&self) -> Option<&RebalanceMetrics> {
        self.rebalance.as_ref()
    }

    /// Sets the worker-wide counts and states from `snapshot`.
    pub fn refresh(&self, snapshot: &WorkerSnapshot) {
        self.worker.refresh(snapshot);
    }

    /// Held by a scrape from its refresh to its encoding.
    pub async fn scrape_lock(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.scrape.lock().await
    }

    /// Every family in the Prometheus text format 0.0.4.
    ///
    /// # Errors
    /// Formatting failed (it does not with a `String`).
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::with_capacity(16 * 1024);
        prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

impl Default for WorkerMetrics {
    /// A standalone worker's metrics.
    fn default() -> Self {
        Self::new(WorkerMode::Standalone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_series_use_kafka_group_names_and_go_away_when_unregistered() {
        let m = WorkerMetrics::new(WorkerMode::Distributed);
        let t = m.task("c", 0, TaskKind::Source);
        t.source.poll_total.inc_by(3);
        t.source.poll_batch_time.observe(0.002);
        let text = m.encode().unwrap();
        assert!(
            text.contains(
                "kafka_connect_source_task_metrics_source_record_poll_total{connector=\"c\",task=\"0\"} 3"
            ),
            "{text}"
        );
        assert!(text.contains("kafka_connect_source_task_metrics_poll_batch_time_seconds_bucket{"));
        assert!(
            !text.contains("sink_record_read_total{"),
            "a source task has no sink series"
        );
        assert!(text.contains("# TYPE kafka_connect_connect_worker_rebalance_metrics_epoch gauge"));
        t.unregister();
        assert!(!m.encode().unwrap().contains("connector=\"c\""));
    }

    #[test]
    fn a_refresh_replaces_states_and_counts() {
        let m = WorkerMetrics::default();
        let snapshot = |state: &str| WorkerSnapshot {
            connectors: vec![ConnectorSnapshot {
                name: "c".into(),
                state: Some("RUNNING".into()),
                connector_type: "source".into(),
                class: "FileStreamSource".into(),
                version: "1".into(),
                tasks: vec![(0, state.into()), (1, "RUNNING".into())],
            }],
        };
        m.refresh(&snapshot("FAILED"));
        m.refresh(&snapshot("RUNNING"));
        let text = m.encode().unwrap();
        assert!(text.contains(
            "kafka_connect_connect_worker_metrics_connector_running_task_count{connector=\"c\"} 2"
        ));
        assert!(text.contains(
            "kafka_connect_connect_worker_metrics_connector_failed_task_count{connector=\"c\"} 0"
        ));
        assert!(!text.contains("status=\"failed\""), "{text}");
        assert!(text.contains("kafka_connect_connect_worker_metrics_task_count 2"));
        assert!(text.contains(
            "kafka_connect_connector_metrics_status{connector=\"c\",status=\"running\"} 1"
        ));
        assert!(
            !text.contains("rebalance"),
            "standalone has no rebalance group"
        );
    }
}
