use super::*;
use proptest::prelude::*;

/// A simulated cluster: members' current assignments and the leader's memory.
struct Cluster {
    held: BTreeMap<String, WorkItems>,
    state: AssignorState,
    generation: i32,
    snapshot: ConfigSnapshot,
    max_delay_ms: i32,
    now_ms: i64,
}

impl Cluster {
    fn new(workers: &[&str], connectors: &[(&str, u32)]) -> Self {
        Cluster {
            held: workers
                .iter()
                .map(|w| (w.to_string(), WorkItems::default()))
                .collect(),
            state: AssignorState::default(),
            generation: 0,
            snapshot: ConfigSnapshot {
                offset: 10,
                connectors: connectors
                    .iter()
                    .map(|(c, n)| (c.to_string(), *n))
                    .collect(),
            },
            max_delay_ms: 0,
            now_ms: 1_000,
        }
    }

    /// One round; applies revocations then assignments; returns the plan.
    fn round(&mut self) -> BTreeMap<String, MemberAssignment> {
        self.generation += 1;
        let members: BTreeMap<String, MemberState> = self
            .held
            .iter()
            .map(|(id, a)| {
                (
                    id.clone(),
                    MemberState {
                        url: format!("http://{id}/"),
                        config_offset: 10,
                        assignment: a.clone(),
                    },
                )
            })
            .collect();
        let plan = assign(
            &mut self.state,
            &AssignorInput {
                members: &members,
                snapshot: &self.snapshot,
                protocol: ConnectProtocol::Sessioned,
                generation: self.generation,
                last_completed_generation: Some(self.generation - 1).filter(|g| *g > 0),
                now_ms: self.now_ms,
                max_delay_ms: self.max_delay_ms,
            },
        );
        let AssignmentPlan::Assigned(plan) = plan else {
            panic!("unexpected {plan:?}");
        };
        // Revocations first (every member), then check nobody is given what another holds.
        for (id, p) in &plan {
            let held = self.held.get_mut(id).unwrap();
            assert!(
                difference(&p.revoked, held).is_empty(),
                "{id} told to revoke what it does not hold"
            );
            held.remove_all(&p.revoked);
        }
        for (id, p) in &plan {
            for (other, held) in &self.held {
                if other != id {
                    let overlap = difference(&p.assigned, &difference(&p.assigned, held));
                    assert!(
                        overlap.is_empty(),
                        "{id} assigned {overlap:?} held by {other}"
                    );
                }
            }
            self.held.get_mut(id).unwrap().extend(&p.assigned);
        }
        self.assert_no_duplicates();
        plan
    }

    /// Rounds until nothing is revoked or delayed (as members rejoin after revocations, and
    /// after a scheduled delay, which the clock skips).
    fn settle(&mut self) -> usize {
        let mut moved = 0;
        for _ in 0..10 {
            let plan = self.round();
            moved += plan.values().map(|p| p.revoked.len()).sum::<usize>();
            let delay = plan.values().map(|p| p.delay).max().unwrap_or(0);
            self.now_ms += i64::from(delay);
            if delay == 0 && plan.values().all(|p| p.revoked.is_empty()) {
                return moved;
            }
        }
        panic!("no stable assignment after 10 rounds: {:?}", self.held);
    }

    fn assert_no_duplicates(&self) {
        let mut seen = WorkItems::default();
        for held in self.held.values() {
            let both = difference(held, &difference(held, &seen));
            assert!(both.is_empty(), "assigned twice: {both:?}");
            seen.extend(held);
        }
    }

    fn assert_complete_and_balanced(&self) {
        assert_eq!(union(self.held.values().cloned()), self.snapshot.items());
        let w = self.held.len();
        for counts in [
            self.held
                .values()
                .map(|h| h.connectors.len())
                .collect::<Vec<_>>(),
            self.held
                .values()
                .map(|h| h.tasks.len())
                .collect::<Vec<_>>(),
        ] {
            let n: usize = counts.iter().sum();
            for c in counts {
                assert!(c == n / w || c == n / w + 1, "unbalanced: {:?}", self.held);
            }
        }
    }
}

#[test]
fn three_workers_two_connectors_spread_evenly() {
    let mut c = Cluster::new(&["w1", "w2", "w3"], &[("a", 6), ("b", 0)]);
    assert_eq!(c.settle(), 0);
    c.assert_complete_and_balanced();
    let tasks: Vec<usize> = c.held.values().map(|h| h.tasks.len()).collect();
    assert_eq!(tasks, [2, 2, 2]);
}

#[test]
fn a_fourth_worker_takes_only_the_minimum() {
    let mut c = Cluster::new(&["w1", "w2", "w3"], &[("a", 6), ("b", 0)]);
    c.settle();
    let before = c.held.clone();
    c.held.insert("w4".into(), WorkItems::default());
    let moved = c.settle();
    c.assert_complete_and_balanced();
    // 6 tasks over 4 workers: 2,2,1,1 → exactly one or two tasks move, no connector needed
    // (2 connectors over 4 workers fit 1,1,0,0).
    let w4 = &c.held["w4"];
    assert_eq!(moved, w4.len(), "only what w4 now runs was revoked");
    assert!(w4.tasks.len() == 1 || w4.tasks.len() == 2);
    for (id, held) in &before {
        let kept = difference(held, &difference(held, &c.held[id]));
        assert!(held.len() - kept.len() <= 1, "{id} lost more than one item");
    }
}

#[test]
fn a_lost_worker_s_work_goes_to_the_others_at_once_without_delay() {
    let mut c = Cluster::new(&["w1", "w2", "w3"], &[("a", 6), ("b", 0)]);
    c.settle();
    let gone = c.held.remove("w2").unwrap();
    assert!(!gone.is_empty());
    let plan = c.round();
    let reassigned = union(plan.values().map(|p| p.assigned.clone()));
    assert_eq!(reassigned, gone);
    c.settle();
    c.assert_complete_and_balanced();
}

#[test]
fn lost_work_waits_for_the_scheduled_delay() {
    let mut c = Cluster::new(&["w1", "w2", "w3"], &[("a", 6)]);
    c.max_delay_ms = 5_000;
    c.settle();
    let gone = c.held.remove("w3").unwrap();
    let plan = c.round();
    assert!(plan
        .values()
        .all(|p| p.assigned.is_empty() && p.delay == 5_000));
    c.now_ms += 2_000;
    let plan = c.round();
    assert!(plan
        .values()
        .all(|p| p.assigned.is_empty() && p.delay == 3_000));
    // w3 comes back empty (a restart) before the delay ends, and gets its work back.
    c.held.insert("w3b".into(), WorkItems::default());
    c.now_ms += 3_000;
    let plan = c.round();
    assert_eq!(plan["w3b"].assigned, gone);
    assert!(plan.values().all(|p| p.delay == 0));
    c.assert_complete_and_balanced();
}

#[test]
fn consecutive_revoking_rounds_back_off() {
    let mut c = Cluster::new(&["w1"], &[("a", 6)]);
    c.max_delay_ms = 10_000;
    c.settle();
    c.held.insert("w2".into(), WorkItems::default());
    let plan = c.round();
    assert_eq!(plan["w1"].revoked.tasks.len(), 3);
    // Another worker joins before the revoked tasks were handed out: the leader would revoke
    // again, so it waits 40 ms (1 ms × 40) instead, handing out only the free tasks.
    c.held.insert("w3".into(), WorkItems::default());
    let plan = c.round();
    assert!(
        plan.values().all(|p| p.revoked.is_empty() && p.delay == 40),
        "{plan:?}"
    );
    assert_eq!(plan["w2"].assigned.len() + plan["w3"].assigned.len(), 3);
    c.now_ms += 40;
    c.settle();
    c.assert_complete_and_balanced();

    // With scheduled.rebalance.max.delay.ms=0 there is no backoff.
    let mut c = Cluster::new(&["w1"], &[("a", 6)]);
    c.settle();
    c.held.insert("w2".into(), WorkItems::default());
    c.round();
    c.held.insert("w3".into(), WorkItems::default());
    let plan = c.round();
    assert!(plan.values().all(|p| p.delay == 0));
    assert_eq!(plan["w1"].revoked.tasks.len(), 1, "{plan:?}");
}

#[test]
fn deleted_and_duplicated_work_is_revoked() {
    let mut c = Cluster::new(&["w1", "w2"], &[("a", 2)]);
    c.settle();
    c.snapshot.connectors.insert("a".into(), 1);
    let plan = c.round();
    let revoked = union(plan.values().map(|p| p.revoked.clone()));
    assert_eq!(revoked.tasks, BTreeSet::from([TaskId::new("a", 1)]));

    // Two members report the same task (e.g. after a zombie): both are told to stop it.
    let mut c = Cluster::new(&["w1", "w2"], &[("a", 2)]);
    c.settle();
    let t = TaskId::new("a", 0);
    for held in c.held.values_mut() {
        held.tasks.insert(t.clone());
    }
    c.state = AssignorState::default();
    let plan = c.round();
    assert!(plan.values().all(|p| p.revoked.tasks.contains(&t)));
    c.settle();
    c.assert_complete_and_balanced();
}

#[test]
fn config_mismatch_when_a_member_is_ahead() {
    let members = BTreeMap::from([(
        "w1".to_string(),
        MemberState {
            url: "u".into(),
            config_offset: 11,
            assignment: WorkItems::default(),
        },
    )]);
    let snapshot = ConfigSnapshot {
        offset: 10,
        connectors: BTreeMap::new(),
    };
    let plan = assign(
        &mut AssignorState::default(),
        &AssignorInput {
            members: &members,
            snapshot: &snapshot,
            protocol: ConnectProtocol::Compatible,
            generation: 1,
            last_completed_generation: None,
            now_ms: 0,
            max_delay_ms: 0,
        },
    );
    assert_eq!(plan, AssignmentPlan::ConfigMismatch { max_offset: 11 });
    let wire = plan.to_wire(ConnectProtocol::Compatible, &members, "w1", "u", 10);
    assert_eq!(wire["w1"].error, CONFIG_MISMATCH);
    assert_eq!(wire["w1"].config_offset, 11);
}

#[test]
fn eager_round_robin_connectors_then_tasks() {
    let members: BTreeMap<String, MemberState> = ["w1", "w2"]
        .iter()
        .map(|w| (w.to_string(), MemberState::default()))
        .collect();
    let snapshot = ConfigSnapshot {
        offset: 0,
        connectors: BTreeMap::from([("a".into(), 2), ("b".into(), 1)]),
    };
    let AssignmentPlan::Assigned(plan) = assign(
        &mut AssignorState::default(),
        &AssignorInput {
            members: &members,
            snapshot: &snapshot,
            protocol: ConnectProtocol::Eager,
            generation: 1,
            last_completed_generation: None,
            now_ms: 0,
            max_delay_ms: 0,
        },
    ) else {
        panic!()
    };
    // a→w1, b→w2, a-0→w1, a-1→w2, b-0→w1
    assert_eq!(
        plan["w1"].assigned.to_entries(),
        WorkItems {
            connectors: BTreeSet::from(["a".into()]),
            tasks: BTreeSet::from([TaskId::new("a", 0), TaskId::new("b", 0)]),
        }
        .to_entries()
    );
    assert_eq!(
        plan["w2"].assigned.tasks,
        BTreeSet::from([TaskId::new("a", 1)])
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Any sequence of joins, losses and config changes: never two owners, and the cluster
    /// settles complete and balanced.
    #[test]
    fn never_two_owners_and_settles_balanced(
        ops in proptest::collection::vec((0u8..4, 0u32..8), 1..12),
        delayed in any::<bool>(),
    ) {
        let mut c = Cluster::new(&["w0"], &[("a", 3), ("b", 2)]);
        c.max_delay_ms = if delayed { 5_000 } else { 0 };
        c.settle();
        let mut next = 1;
        for (op, n) in ops {
            match op {
                0 => { c.held.insert(format!("w{next}"), WorkItems::default()); next += 1; }
                1 if c.held.len() > 1 => {
                    let victim = c.held.keys().nth(n as usize % c.held.len()).cloned().unwrap();
                    c.held.remove(&victim);
                }
                2 => { c.snapshot.connectors.insert(format!("c{n}"), n); c.snapshot.offset += 0; }
                _ => { c.snapshot.connectors.remove(&format!("c{n}")); }
            }
            c.round();
            c.now_ms += 1_000;
        }
        c.settle();
        c.assert_complete_and_balanced();
    }
}
