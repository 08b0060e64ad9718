//! Worker-wide metrics: Kafka Connect's `connect-worker-metrics` (counts, start-up attempts,
//! per-connector task counts by state), `connector-metrics` (status and plugin facts) and the
//! `status` of `connector-task-metrics`. Counts and states are set from a [`WorkerSnapshot`]
//! the herder takes when `/metrics` is scraped; start-up counters are bumped by the worker.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::labels::{
    ConnectorInfoLabels, ConnectorLabels, ConnectorStatusLabels, TaskStatusLabels,
};

/// A connector as this worker runs it, for the worker-wide metrics.
#[derive(Debug, Clone, Default)]
pub struct ConnectorSnapshot {
    /// Its name.
    pub name: String,
    /// Its state (`RUNNING`, `PAUSED`, ...) when its instance runs on this worker.
    pub state: Option<String>,
    /// `source` or `sink`.
    pub connector_type: String,
    /// `connector.class`, as configured.
    pub class: String,
    /// The plugin's version (empty when unknown).
    pub version: String,
    /// The states of its tasks on this worker, by task number.
    pub tasks: Vec<(u32, String)>,
}

/// What runs on this worker, when `/metrics` is scraped.
#[derive(Debug, Clone, Default)]
pub struct WorkerSnapshot {
    /// The connectors with an instance or tasks here.
    pub connectors: Vec<ConnectorSnapshot>,
}

/// The task states counted per connector, with the metric that counts each.
const TASK_STATES: [(&str, &str); 6] = [
    ("RUNNING", "connector_running_task_count"),
    ("PAUSED", "connector_paused_task_count"),
    ("FAILED", "connector_failed_task_count"),
    ("UNASSIGNED", "connector_unassigned_task_count"),
    ("DESTROYED", "connector_destroyed_task_count"),
    ("RESTARTING", "connector_restarting_task_count"),
];

/// Start-up counters of connectors or tasks.
#[derive(Debug, Clone, Default)]
pub struct StartupCounters {
    /// `*-startup-attempts-total`.
    pub attempts: Counter,
    /// `*-startup-success-total`.
    pub success: Counter,
    /// `*-startup-failure-total`.
    pub failure: Counter,
}

/// The worker-wide families.
#[derive(Debug, Clone)]
pub struct WorkerFamilies {
    connector_count: Gauge,
    task_count: Gauge,
    /// Connector start-ups.
    pub connector_startup: StartupCounters,
    /// Task start-ups.
    pub task_startup: StartupCounters,
    total_tasks: Family<ConnectorLabels, Gauge>,
    tasks_by_state: Vec<(&'static str, Family<ConnectorLabels, Gauge>)>,
    connector_status: Family<ConnectorStatusLabels, Gauge>,
    connector_info: Family<ConnectorInfoLabels, Gauge>,
    task_status: Family<TaskStatusLabels, Gauge>,
}

impl WorkerFamilies {
    /// The families, registered in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let f = Self {
            connector_count: Gauge::default(),
            task_count: Gauge::default(),
            connector_startup: StartupCounters::default(),
            task_startup: StartupCounters::default(),
            total_tasks: Family::default(),
            tasks_by_state: TASK_STATES
                .iter()
                .map(|(state, _)| (*state, Family::default()))
                .collect(),
            connector_status: Family::default(),
            connector_info: Family::default(),
            task_status: Family::default(),
        };
        let g = registry.sub_registry_with_prefix("kafka_connect_connect_worker_metrics");
        g.register(
            "connector_count",
            "Connectors run in this worker",
            f.connector_count.clone(),
        );
        g.register(
            "task_count",
            "Tasks run in this worker",
            f.task_count.clone(),
        );
        for (what, c) in [
            ("connector", &f.connector_startup),
            ("task", &f.task_startup),
        ] {
            g.register(
                format!("{what}_startup_attempts"),
                format!("{what} starts this worker attempted"),
                c.attempts.clone(),
            );
            g.register(
                format!("{what}_startup_success"),
                format!("{what} starts that succeeded (success-percentage = success / attempts)"),
                c.success.clone(),
            );
            g.register(
                format!("{what}_startup_failure"),
                format!("{what} starts that failed (failure-percentage = failure / attempts)"),
                c.failure.clone(),
            );
        }
        g.register(
            "connector_total_task_count",
            "Tasks of the connector run in this worker",
            f.total_tasks.clone(),
        );
        for ((state, name), (_, family)) in TASK_STATES.iter().zip(&f.tasks_by_state) {
            g.register(
                *name,
                format!("Tasks of the connector in state {state} in this worker"),
                family.clone(),
            );
        }
        let g = registry.sub_registry_with_prefix("kafka_connect_connector_metrics");
        g.register(
            "status",
            "The connector's lowercase state in the status label (value 1)",
            f.connector_status.clone(),
        );
        g.register(
            "connector_info",
            "The connector's type, class and version in labels (value 1)",
            f.connector_info.clone(),
        );
        let g = registry.sub_registry_with_prefix("kafka_connect_connector_task_metrics");
        g.register(
            "status",
            "The task's lowercase state in the status label (value 1)",
            f.task_status.clone(),
        );
        f
    }

    /// Sets the counts and states from `snapshot`, forgetting connectors and tasks no longer
    /// in it.
    pub fn refresh(&self, snapshot: &WorkerSnapshot) {
        self.total_tasks.clear();
        for (_, family) in &self.tasks_by_state {
            family.clear();
        }
        self.connector_status.clear();
        self.connector_info.clear();
        self.task_status.clear();
        let mut connectors = 0i64;
        let mut tasks = 0i64;
        for c in &snapshot.connectors {
            let connector = ConnectorLabels {
                connector: c.name.clone(),
            };
            if let Some(state) = &c.state {
                connectors += 1;
                self.connector_status
                    .get_or_create(&ConnectorStatusLabels {
                        connector: c.name.clone(),
                        status: state.to_lowercase(),
                    })
                    .set(1);
                self.connector_info
                    .get_or_create(&ConnectorInfoLabels {
                        connector: c.name.clone(),
                        connector_type: c.connector_type.clone(),
                        connector_class: c.class.clone(),
                        connector_version: c.version.clone(),
                    })
                    .set(1);
            }
            let count = i64::try_from(c.tasks.len()).unwrap_or(i64::MAX);
            tasks += count;
            self.total_tasks.get_or_create(&connector).set(count);
            for (state, family) in &self.tasks_by_state {
                let n = c.tasks.iter().filter(|(_, s)| s == state).count();
                family
                    .get_or_create(&connector)
                    .set(i64::try_from(n).unwrap_or(i64::MAX));
            }
            for (id, state) in &c.tasks {
                self.task_status
                    .get_or_create(&TaskStatusLabels {
                        connector: c.name.clone(),
                        task: id.to_string(),
                        status: state.to_lowercase(),
                    })
                    .set(1);
            }
        }
        self.connector_count.set(connectors);
        self.task_count.set(tasks);
    }
}
