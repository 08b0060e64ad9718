//! Task activity: whether each task is busy, idle (and since when) or failed. Read by the
//! `--exit-when-idle` watcher.

use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// The shared activity cell of one task.
#[derive(Debug)]
pub struct TaskActivity {
    /// `<connector>-<task>`.
    pub name: String,
    state: Mutex<Activity>,
    error: Mutex<Option<String>>,
    /// Topics the task produced to or consumed from (KIP-558 topic tracking).
    topics: Mutex<std::collections::BTreeSet<String>>,
    /// Why the task's input is missing, while it is (see `SourceTask::input_unavailable`).
    unavailable: Mutex<Option<String>>,
    /// Records and bytes moved, for the final log line.
    pub throughput: super::throughput::Throughput,
}

impl TaskActivity {
    /// A busy task called `name`.
    pub fn new(name: String) -> Self {
        Self {
            name,
            state: Mutex::new(Activity::Busy),
            error: Mutex::new(None),
            topics: Mutex::new(std::collections::BTreeSet::new()),
            unavailable: Mutex::new(None),
            throughput: super::throughput::Throughput::new(),
        }
    }

    /// Records why the task's input is missing (`None`: it is not).
    pub fn set_unavailable(&self, reason: Option<String>) {
        *self.unavailable.lock().unwrap_or_else(|e| e.into_inner()) = reason;
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

    /// The task failed with `error`.
    pub fn failed(&self, error: String) {
        *self.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
        self.set(|_| Activity::Failed);
    }

    /// The task failed with a retriable error (`error`) and will be started again.
    pub fn restarting(&self, error: String) {
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

    /// The current activity.
    pub fn get(&self) -> Activity {
        *self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the task has been idle (or has ended) for at least `d`.
    pub fn idle_for(&self, d: Duration) -> bool {
        match self.get() {
            Activity::Busy | Activity::Restarting => false,
            Activity::Idle(since) => since.elapsed() >= d,
            Activity::Failed | Activity::Stopped => true,
        }
    }
}
