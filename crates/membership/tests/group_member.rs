//! `GroupMember` against a real Kafka broker: workers join one Connect group, the leader
//! assigns, a newcomer takes only some work, a crashed worker's work moves after its session.

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use connect_membership::assignor::ConfigSnapshot;
use connect_membership::protocol::{ConnectProtocol, WorkItems};
use connect_membership::{ClusterView, GroupMember, MemberConfig, MemberEvent};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::timeout;

/// A fixed configuration: connectors "a" (6 tasks) and "b" (2 tasks).
struct Fixed;

#[async_trait::async_trait]
impl ClusterView for Fixed {
    fn config_offset(&self) -> i64 {
        5
    }
    async fn snapshot(&self, _max_member_offset: i64) -> ConfigSnapshot {
        ConfigSnapshot {
            offset: 5,
            connectors: BTreeMap::from([("a".into(), 6), ("b".into(), 2)]),
        }
    }
}

/// A test worker: its membership, events, and what it runs (as a herder would track it).
struct Worker {
    member: Option<GroupMember>,
    events: UnboundedReceiver<MemberEvent>,
    running: WorkItems,
    generation: i32,
    leader: bool,
    protocol: Option<ConnectProtocol>,
}

impl Worker {
    fn start(bootstrap: &str, group: &str, name: &str) -> Self {
        let mut config = MemberConfig::new(bootstrap, group, &format!("http://{name}:8083/"));
        config.session_timeout = Duration::from_secs(6);
        config.heartbeat_interval = Duration::from_millis(500);
        config.rebalance_timeout = Duration::from_secs(20);
        let (member, events) = GroupMember::join(config, Arc::new(Fixed)).expect("join");
        Worker {
            member: Some(member),
            events,
            running: WorkItems::default(),
            generation: -1,
            leader: false,
            protocol: None,
        }
    }

    /// Applies one pending event if there is one; true if it did.
    fn poll(&mut self) -> bool {
        let Ok(event) = self.events.try_recv() else {
            return false;
        };
        match event {
            MemberEvent::Assigned(a) => {
                assert_eq!(a.error, 0, "{a:?}");
                self.running.remove_all(&a.revoked);
                self.running.extend(&a.assigned);
                assert_eq!(self.running, a.assignment);
                self.generation = a.generation;
                self.leader = a.is_leader;
                self.protocol = Some(a.protocol);
                if a.is_leader {
                    assert!(a.member_urls.values().all(|u| u.starts_with("http://")));
                }
                if !a.revoked.is_empty() && a.protocol.is_incremental() {
                    if let Some(m) = &self.member {
                        m.request_rejoin();
                    }
                }
            }
            MemberEvent::Revoked(items) => self.running.remove_all(&items),
            MemberEvent::MembershipLost { .. } => self.running = WorkItems::default(),
        }
        true
    }
}

/// Drives the workers' events until `done` holds (all in one generation), or panics.
async fn settle(workers: &mut [&mut Worker], what: &str, done: impl Fn(&[&mut Worker]) -> bool) {
    let result = timeout(Duration::from_secs(60), async {
        loop {
            let mut any = false;
            for w in workers.iter_mut() {
                any |= w.poll();
            }
            if !any {
                let generations: Vec<i32> = workers.iter().map(|w| w.generation).collect();
                if generations.iter().all(|g| *g == generations[0] && *g >= 0) && done(workers) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    })
    .await;
    if result.is_err() {
        let state: Vec<_> = workers
            .iter()
            .map(|w| (w.generation, w.leader, w.running.clone()))
            .collect();
        panic!("{what}: no settled assignment within 60 s: {state:?}");
    }
}

fn all_configured() -> WorkItems {
    let mut items = WorkItems::default();
    items.connectors.extend(["a".to_string(), "b".to_string()]);
    for t in 0..6 {
        items
            .tasks
            .insert(connect_membership::protocol::TaskId::new("a", t));
    }
    for t in 0..2 {
        items
            .tasks
            .insert(connect_membership::protocol::TaskId::new("b", t));
    }
    items
}

/// Everything configured runs exactly once, and each worker has a fair share of tasks.
fn covered_once_and_balanced(workers: &[&mut Worker]) -> bool {
    let mut union = WorkItems::default();
    let mut total = 0;
    for w in workers {
        total += w.running.len();
        union.extend(&w.running);
    }
    let n = workers.len();
    let balanced = workers
        .iter()
        .all(|w| w.running.tasks.len() == 8 / n || w.running.tasks.len() == 8 / n + 1);
    union == all_configured() && total == union.len() && balanced
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_share_the_work_a_newcomer_takes_some_and_a_crashed_leader_s_work_moves() {
    let bootstrap = support::bootstrap();
    let group = support::unique("connect-membership");
    let mut w1 = Worker::start(&bootstrap, &group, "w1");
    let mut w2 = Worker::start(&bootstrap, &group, "w2");

    settle(
        &mut [&mut w1, &mut w2],
        "two workers",
        covered_once_and_balanced,
    )
    .await;
    assert_eq!(
        [w1.leader, w2.leader].iter().filter(|l| **l).count(),
        1,
        "exactly one leader"
    );
    assert_eq!(w1.protocol, Some(ConnectProtocol::Sessioned));

    // A third worker: it gets work, and the others keep most of theirs.
    let before = (w1.running.clone(), w2.running.clone());
    let mut w3 = Worker::start(&bootstrap, &group, "w3");
    settle(&mut [&mut w1, &mut w2, &mut w3], "three workers", |ws| {
        covered_once_and_balanced(ws) && !ws[2].running.is_empty()
    })
    .await;
    let kept = |old: &WorkItems, new: &WorkItems| {
        old.connectors.intersection(&new.connectors).count()
            + old.tasks.intersection(&new.tasks).count()
    };
    let kept_total = kept(&before.0, &w1.running) + kept(&before.1, &w2.running);
    assert_eq!(
        kept_total,
        10 - w3.running.len(),
        "only what the newcomer runs moved"
    );

    // The leader crashes (no LeaveGroup): after its session times out, a new leader (with no
    // memory of the last assignment) gives its work to the two others.
    let mut workers = vec![w1, w2, w3];
    let victim = workers
        .iter()
        .position(|w| w.leader)
        .expect("a leader among the workers");
    let mut dead = workers.remove(victim);
    assert!(!dead.running.is_empty());
    dead.member.take().expect("leader's member").abort();
    let mut survivors: Vec<&mut Worker> = workers.iter_mut().collect();
    settle(
        &mut survivors,
        "after the leader crashed",
        covered_once_and_balanced,
    )
    .await;
    assert!(survivors.iter().all(|w| w.generation > dead.generation));
    assert_eq!(
        survivors.iter().filter(|w| w.leader).count(),
        1,
        "a new leader"
    );

    for w in workers.iter_mut() {
        if let Some(m) = w.member.take() {
            m.leave().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_eager_worker_downgrades_the_group_to_default() {
    let bootstrap = support::bootstrap();
    let group = support::unique("connect-eager");
    // w1 runs everything under the sessioned protocol first; when the eager worker joins, the
    // group falls back to eager and w1 must be told what it no longer runs.
    let mut w1 = Worker::start(&bootstrap, &group, "w1");
    settle(&mut [&mut w1], "one sessioned worker", |ws| {
        covered_once_and_balanced(ws) && ws[0].protocol == Some(ConnectProtocol::Sessioned)
    })
    .await;
    let mut config = MemberConfig::new(&bootstrap, &group, "http://w2:8083/");
    config.protocol = ConnectProtocol::Eager;
    config.session_timeout = Duration::from_secs(6);
    config.heartbeat_interval = Duration::from_millis(500);
    let (member, events) = GroupMember::join(config, Arc::new(Fixed)).expect("join");
    let mut w2 = Worker {
        member: Some(member),
        events,
        running: WorkItems::default(),
        generation: -1,
        leader: false,
        protocol: None,
    };
    settle(&mut [&mut w1, &mut w2], "eager group", |ws| {
        covered_once_and_balanced(ws)
            && ws
                .iter()
                .all(|w| w.protocol == Some(ConnectProtocol::Eager))
    })
    .await;
    for w in [&mut w1, &mut w2] {
        if let Some(m) = w.member.take() {
            m.leave().await;
        }
    }
}
