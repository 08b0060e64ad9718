//! Task activity: whether each task is busy, idle (and since when) or failed, and how much
//! of its work is not committed yet. Read by the `--exit-when-idle` watcher and, through the
//! [`TaskBoard`], by a forced exit that says what the next start will repeat.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;

use crate::metrics::{TaskKind, TaskMetrics};
use crate::topics::{SubscribedPartitions, TopicPartition};

/// What a task is doing, as the idle watcher sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// Moving records.
    Busy,
    /// Nothing to do since the given instant (source: polls return nothing and every batch is
    /// acknowledged; sink: every assigned partition is read to its end and written).
    Idle(Instant),
    /// The task stopped with an error.
    Failed,
    /// The task stopped.
    Stopped,
    /// The task failed with a retriable error and is about to be started again.
    Restarting,
}

/// Records a task handled whose progress is not committed yet: what the next start repeats
/// if the process ends now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncommitted {
    /// A source task: records sent whose source offsets are not stored yet.
    Source(u64),
    /// A source task on the embedded log's commit journal: records sent whose offsets are
    /// not in the offsets file yet. Its records and offsets become durable together, so the
    /// next start repeats none of them.
    JournaledSource(u64),
    /// A sink task: records put whose consumer offsets are not committed yet.
    Sink(u64),
}

/// What a sink task saw of its group's partitions the last time it found nothing to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkCoverage {
    /// The partitions assigned to the task.
    pub assigned: Vec<TopicPartition>,
    /// Every partition of the subscribed topics, if known.
    pub subscribed: Option<SubscribedPartitions>,
}

/// The shared activity cell of one task.
#[derive(Debug)]
pub struct TaskActivity {
    /// `<connector>-<task>`.
    pub name: String,
    state: Mutex<Activity>,
    uncommitted: Mutex<Option<Uncommitted>>,
    error: Mutex<Option<String>>,
    /// Topics the task produced to or consumed from (KIP-558 topic tracking).
    topics: Mutex<std::collections::BTreeSet<String>>,
    /// Why the task's input is missing, while it is (see `SourceTask::input_unavailable`).
    unavailable: Mutex<Option<String>>,
    /// Records and bytes moved out (produced to topics, put to the sink), for the final log
    /// line and progress displays (the counters are the task's metric handles).
    pub throughput: super::throughput::Throughput,
    /// Records (and, for sinks, bytes) taken in: polled from the source, read from topics
    /// (the records counter is the task's `source-record-poll-total` / `sink-record-read-total`).
    pub inflow: super::throughput::Throughput,
    /// How far a source task has read into an input of known size.
    input_progress: Mutex<Option<connect_api::InputProgress>>,
    /// Records a sink task has still to read to reach the end of its partitions.
    lag: Mutex<Option<u64>>,
    /// A sink task's partitions when it last found nothing to read.
    coverage: Mutex<Option<SinkCoverage>>,
    /// Error counters (`errors.*` handling), kept across restarts of the task instance.
    pub errors: Arc<super::error_counters::ErrorCounters>,
    /// The task's metric handles (label sets resolved once), kept across restarts of the task
    /// instance.
    pub metrics: TaskMetrics,
}

impl TaskActivity {
    /// A busy task called `name` whose counts go to `metrics` (records: the source task's
    /// `source-record-write-total` or the sink task's `sink-record-send-total`).
    pub fn new(name: String, metrics: TaskMetrics, kind: TaskKind) -> Self {
        let (records, taken_in) = match kind {
            TaskKind::Source => (
                metrics.source.write_total.clone(),
                metrics.source.poll_total.clone(),
            ),
            TaskKind::Sink => (
                metrics.sink.send_total.clone(),
                metrics.sink.read_total.clone(),
            ),
        };
        Self {
            name,
            state: Mutex::new(Activity::Busy),
            uncommitted: Mutex::new(None),
            error: Mutex::new(None),
            topics: Mutex::new(std::collections::BTreeSet::new()),
            unavailable: Mutex::new(None),
            throughput: super::throughput::Throughput::new(records, metrics.bytes.clone()),
            inflow: super::throughput::Throughput::new(taken_in, Counter::default()),
            input_progress: Mutex::new(None),
            lag: Mutex::new(None),
            coverage: Mutex::new(None),
            errors: Arc::new(super::error_counters::ErrorCounters::new(
                metrics.errors.clone(),
            )),
            metrics,
        }
    }

    /// Records why the task's input is missing (`None`: it is not).
    pub fn set_unavailable(&self, reason: Option<String>) {
        *self.unavailable.lock().unwrap_or_else(|e| e.into_inner()) = reason;
    }

    /// Records how far the task has read into its input (`None`: size unknown).
    pub fn set_input_progress(&self, progress: Option<connect_api::InputProgress>) {
        *self
            .input_progress
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = progress;
    }

    /// How far the task has read into an input of known size, if it reported it.
    pub fn input_progress(&self) -> Option<connect_api::InputProgress> {
        *self
            .input_progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Records the records a sink task has still to read (`None`: not known); also the
    /// task's `sink-record-lag-max`.
    pub fn set_lag(&self, lag: Option<u64>) {
        if let Some(n) = lag {
            self.metrics
                .sink
                .lag
                .set(i64::try_from(n).unwrap_or(i64::MAX));
        }
        *self.lag.lock().unwrap_or_else(|e| e.into_inner()) = lag;
    }

    /// Records a sink task has still to read to the end of its partitions, if known.
    pub fn lag(&self) -> Option<u64> {
        *self.lag.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the partitions a sink task saw when it found nothing to read.
    pub fn set_sink_coverage(&self, coverage: SinkCoverage) {
        *self.coverage.lock().unwrap_or_else(|e| e.into_inner()) = Some(coverage);
    }

    /// A sink task's partitions when it last found nothing to read (`None`: a source task, or
    /// a sink that never did).
    pub fn sink_coverage(&self) -> Option<SinkCoverage> {
        self.coverage
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The connector and task id of this task's name (`<connector>-<task>`).
    pub fn connector_and_task(&self) -> (&str, u32) {
        self.name
            .rsplit_once('-')
            .and_then(|(c, t)| Some((c, t.parse().ok()?)))
            .unwrap_or((self.name.as_str(), 0))
    }

    /// Why the task's input is missing, if it is and the task moved no record at all.
    pub fn unavailable(&self) -> Option<String> {
        if self.throughput.records() > 0 {
            return None;
        }
        self.unavailable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn set(&self, f: impl FnOnce(Activity) -> Activity) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *state = f(*state);
    }

    /// The task moved records.
    pub fn busy(&self) {
        self.set(|_| Activity::Busy);
    }

    /// The task found nothing to do; keeps the earlier instant if it was idle already.
    pub fn idle(&self) {
        self.idle_since(Instant::now());
    }

    /// The task has found nothing to do since `since` (e.g. the start of a poll that returned
    /// nothing); keeps an earlier instant if it was idle already.
    pub fn idle_since(&self, since: Instant) {
        self.set(|s| match s {
            Activity::Idle(t) => Activity::Idle(t.min(since)),
            _ => Activity::Idle(since),
        });
    }

    /// The task failed with `error` (kept with resolved secrets masked: it becomes the trace).
    pub fn failed(&self, error: String) {
        let error = crate::config::providers::secrets::redact(&error).into_owned();
        *self.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
        self.set(|_| Activity::Failed);
    }

    /// The task failed with a retriable error (`error`) and will be started again.
    pub fn restarting(&self, error: String) {
        let error = crate::config::providers::secrets::redact(&error).into_owned();
        *self.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
        self.set(|_| Activity::Restarting);
    }

    /// Records that the task used `topic`.
    pub fn used_topic(&self, topic: &str) {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        if !topics.contains(topic) {
            topics.insert(topic.to_owned());
        }
    }

    /// Takes the topics recorded since the last call.
    pub fn take_topics(&self) -> std::collections::BTreeSet<String> {
        std::mem::take(&mut *self.topics.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Why the task failed, if it did.
    pub fn error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The task stopped.
    pub fn stopped(&self) {
        self.set(|s| {
            if s == Activity::Failed {
                s
            } else {
                Activity::Stopped
            }
        });
    }

    /// Records how many records the task handled without committing them yet (also the
    /// task's `source-record-active-count` / `sink-record-active-count`).
    pub fn set_uncommitted(&self, uncommitted: Uncommitted) {
        let (gauge, n) = match uncommitted {
            Uncommitted::Source(n) | Uncommitted::JournaledSource(n) => {
                (&self.metrics.source.active_count, n)
            }
            Uncommitted::Sink(n) => (&self.metrics.sink.active_count, n),
        };
        gauge.record(n);
        *self.uncommitted.lock().unwrap_or_else(|e| e.into_inner()) = Some(uncommitted);
    }

    /// The records the task handled without committing them yet, once it reported any.
    pub fn uncommitted(&self) -> Option<Uncommitted> {
        *self.uncommitted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current activity.
    pub fn get(&self) -> Activity {
        *self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long the task must stay idle before it has been idle (or ended) for `d`: `None`
    /// while it is busy, zero once it has been idle for `d`.
    pub fn idle_left(&self, d: Duration) -> Option<Duration> {
        match self.get() {
            Activity::Busy | Activity::Restarting => None,
            Activity::Idle(since) => Some(d.saturating_sub(since.elapsed())),
            Activity::Failed | Activity::Stopped => Some(Duration::ZERO),
        }
    }
}

/// The activity cells of the worker's tasks by name, shared with whoever must report on them
/// without asking the worker (a forced exit while the worker is busy stopping).
#[derive(Debug, Clone, Default)]
pub struct TaskBoard(Arc<Mutex<BTreeMap<String, Arc<TaskActivity>>>>);

impl TaskBoard {
    fn cells(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<TaskActivity>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a task's cell (replacing the cell of an earlier instance of the same task).
    pub fn register(&self, activity: &Arc<TaskActivity>) {
        self.cells().insert(activity.name.clone(), activity.clone());
    }

    /// The cells of the tasks running now, by name.
    pub fn cells_now(&self) -> Vec<Arc<TaskActivity>> {
        self.cells().values().cloned().collect()
    }

    /// Forgets the task called `name`.
    pub fn remove(&self, name: &str) {
        self.cells().remove(name);
    }

    /// What the next start will process again if the process exits now: one line per task
    /// with uncommitted records, or one line saying nothing will be repeated.
    pub fn repeated_on_next_start(&self) -> Vec<String> {
        let lines: Vec<String> = self
            .cells()
            .values()
            .filter_map(|cell| match cell.uncommitted()? {
                Uncommitted::Source(0) | Uncommitted::Sink(0) | Uncommitted::JournaledSource(_) => {
                    None
                }
                Uncommitted::Source(n) => Some(format!(
                    "source task {}: {n} records sent since its offsets were last flushed will be produced again",
                    cell.name
                )),
                Uncommitted::Sink(n) => Some(format!(
                    "sink task {}: {n} records put since its last offset commit will be delivered to it again",
                    cell.name
                )),
            })
            .collect();
        if lines.is_empty() {
            vec!["Every task's offsets are committed: the next start repeats nothing.".to_owned()]
        } else {
            lines
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(name: &str, kind: TaskKind, uncommitted: Uncommitted) -> Arc<TaskActivity> {
        let cell = Arc::new(TaskActivity::new(
            name.into(),
            TaskMetrics::detached(),
            kind,
        ));
        cell.set_uncommitted(uncommitted);
        cell
    }

    #[test]
    fn a_forced_exit_names_what_the_next_start_repeats_and_nothing_of_journaled_sources() {
        let board = TaskBoard::default();
        board.register(&cell("file-0", TaskKind::Source, Uncommitted::Source(7)));
        board.register(&cell("sink-0", TaskKind::Sink, Uncommitted::Sink(3)));
        board.register(&cell(
            "journaled-0",
            TaskKind::Source,
            Uncommitted::JournaledSource(1000),
        ));
        assert_eq!(
            board.repeated_on_next_start(),
            [
                "source task file-0: 7 records sent since its offsets were last flushed will be produced again",
                "sink task sink-0: 3 records put since its last offset commit will be delivered to it again",
            ]
        );

        let board = TaskBoard::default();
        board.register(&cell(
            "journaled-0",
            TaskKind::Source,
            Uncommitted::JournaledSource(1000),
        ));
        assert_eq!(
            board.repeated_on_next_start(),
            ["Every task's offsets are committed: the next start repeats nothing."]
        );
    }

    #[test]
    fn idle_left_counts_down_from_the_start_of_the_idle_time() {
        let task = cell("t-0", TaskKind::Source, Uncommitted::Source(0));
        let d = Duration::from_secs(60);
        task.busy();
        assert_eq!(task.idle_left(d), None);
        task.idle_since(Instant::now() - Duration::from_secs(45));
        let left = task.idle_left(d).expect("idle");
        assert!(
            left <= Duration::from_secs(15) && left > Duration::from_secs(10),
            "{left:?}"
        );
        // A later idle instant does not move the start.
        task.idle();
        assert!(task.idle_left(d).expect("idle") <= Duration::from_secs(15));
        task.idle_since(Instant::now() - Duration::from_secs(61));
        assert_eq!(task.idle_left(d), Some(Duration::ZERO));
        task.busy();
        assert_eq!(task.idle_left(d), None);
        task.failed("boom".into());
        assert_eq!(task.idle_left(d), Some(Duration::ZERO));
    }
}
