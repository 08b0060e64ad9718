//! Whether idle sink tasks have really read everything: a sink connector is done only when
//! its tasks together are assigned every partition of their subscribed topics (and each is at
//! the end of its own). A partition the group gave to a member elsewhere — a process killed
//! before its session expired, another worker, a rebalance in progress — is read by nobody
//! here, however idle the tasks look.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::activity::{Activity, TaskActivity};
use crate::topics::TopicPartition;

/// Why a worker whose tasks all look idle has not read everything yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// The connector's partitions were not looked up since its tasks went idle.
    NotLookedUp {
        /// The sink connector.
        connector: String,
    },
    /// Partitions of the connector's topics that no task here is assigned.
    Unassigned {
        /// The sink connector.
        connector: String,
        /// The partitions, sorted.
        partitions: Vec<TopicPartition>,
    },
}

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotLookedUp { connector } => write!(
                f,
                "sink connector {connector}: the partitions of its topics are being looked up"
            ),
            Self::Unassigned {
                connector,
                partitions,
            } => {
                let names: Vec<String> = partitions
                    .iter()
                    .map(|tp| format!("{}-{}", tp.topic, tp.partition))
                    .collect();
                write!(
                    f,
                    "sink connector {connector}: partitions {} are not assigned to its tasks \
                     here (the group is rebalancing, or another member of the group holds \
                     them, e.g. a killed process whose session has not expired yet)",
                    names.join(", ")
                )
            }
        }
    }
}

/// The first sink connector (by name) whose idle tasks do not cover every partition of their
/// topics, among the connectors for which `whole` says that all their tasks run here.
/// Connectors with a task that failed or stopped are left out (they end the run otherwise).
pub fn unread_partitions<'a>(
    tasks: impl IntoIterator<Item = &'a TaskActivity>,
    whole: &dyn Fn(&str) -> bool,
) -> Option<Unread> {
    #[derive(Default)]
    struct Seen {
        assigned: BTreeSet<TopicPartition>,
        subscribed: BTreeSet<TopicPartition>,
        looked_up: bool,
        ended: bool,
    }
    let mut connectors: BTreeMap<&str, Seen> = BTreeMap::new();
    for task in tasks {
        let Some(coverage) = task.sink_coverage() else {
            continue;
        };
        let (connector, _) = task.connector_and_task();
        if !whole(connector) {
            continue;
        }
        let seen = connectors.entry(connector).or_insert_with(|| Seen {
            looked_up: true,
            ..Seen::default()
        });
        match task.get() {
            Activity::Idle(since) => match coverage.subscribed {
                Some(s) if s.looked_up >= since => seen.subscribed.extend(s.partitions),
                _ => seen.looked_up = false,
            },
            Activity::Busy | Activity::Restarting => seen.looked_up = false,
            Activity::Failed | Activity::Stopped => seen.ended = true,
        }
        seen.assigned.extend(coverage.assigned);
    }
    connectors.into_iter().find_map(|(connector, seen)| {
        if seen.ended {
            return None;
        }
        if !seen.looked_up {
            return Some(Unread::NotLookedUp {
                connector: connector.to_owned(),
            });
        }
        let partitions: Vec<_> = seen
            .subscribed
            .difference(&seen.assigned)
            .cloned()
            .collect();
        (!partitions.is_empty()).then(|| Unread::Unassigned {
            connector: connector.to_owned(),
            partitions,
        })
    })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::metrics::{TaskKind, TaskMetrics};
    use crate::topics::SubscribedPartitions;
    use crate::worker::activity::SinkCoverage;

    fn tp(p: i32) -> TopicPartition {
        TopicPartition {
            topic: "t".to_owned(),
            partition: p,
        }
    }

    fn sink(name: &str, assigned: &[i32], subscribed: Option<(&[i32], Instant)>) -> TaskActivity {
        let task = TaskActivity::new(name.to_owned(), TaskMetrics::detached(), TaskKind::Sink);
        let idle_since = Instant::now() - Duration::from_secs(1);
        task.idle_since(idle_since);
        task.set_sink_coverage(SinkCoverage {
            assigned: assigned.iter().copied().map(tp).collect(),
            subscribed: subscribed.map(|(ps, at)| SubscribedPartitions {
                partitions: ps.iter().copied().map(tp).collect(),
                looked_up: at,
            }),
        });
        task
    }

    fn all(_: &str) -> bool {
        true
    }

    #[test]
    fn idle_tasks_that_together_hold_every_partition_have_read_everything() {
        let now = Instant::now();
        let tasks = [
            sink("dst-0", &[0], Some((&[0, 1], now))),
            sink("dst-1", &[1], Some((&[0, 1], now))),
        ];
        assert_eq!(unread_partitions(&tasks, &all), None);
    }

    #[test]
    fn a_partition_held_by_a_member_elsewhere_is_unread() {
        let now = Instant::now();
        // One partition, and the group gave it to another member: this task has none.
        let tasks = [sink("dst-0", &[], Some((&[0], now)))];
        let unread = unread_partitions(&tasks, &all).expect("unread");
        assert_eq!(
            unread,
            Unread::Unassigned {
                connector: "dst".to_owned(),
                partitions: vec![tp(0)]
            }
        );
        assert!(unread
            .to_string()
            .contains("partitions t-0 are not assigned"));
        // Unless the connector has tasks elsewhere (distributed mode).
        assert_eq!(unread_partitions(&tasks, &|_| false), None);
    }

    #[test]
    fn partitions_looked_up_before_the_task_went_idle_prove_nothing() {
        let stale = Instant::now() - Duration::from_secs(5);
        let tasks = [sink("dst-0", &[0], Some((&[0], stale)))];
        assert!(matches!(
            unread_partitions(&tasks, &all),
            Some(Unread::NotLookedUp { .. })
        ));
        let never = [sink("dst-0", &[0], None)];
        assert!(matches!(
            unread_partitions(&never, &all),
            Some(Unread::NotLookedUp { .. })
        ));
    }

    #[test]
    fn sources_and_ended_sinks_are_left_out() {
        let now = Instant::now();
        let failed = sink("dst-0", &[], Some((&[0], now)));
        failed.failed("boom".to_owned());
        let source = TaskActivity::new(
            "src-0".to_owned(),
            TaskMetrics::detached(),
            TaskKind::Source,
        );
        assert_eq!(unread_partitions([&failed, &source], &all), None);
    }
}
