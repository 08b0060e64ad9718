//! The leader's assignment of connectors and tasks to workers (reference §10.3): eager
//! round-robin for `default`, incremental cooperative (KIP-415) for `compatible`/`sessioned`.
//! Pure logic: the caller supplies members, the config snapshot, the clock and its memory.

use std::collections::{BTreeMap, BTreeSet};

use crate::protocol::{Assignment, ConnectProtocol, TaskId, WorkItems, CONFIG_MISMATCH, NO_ERROR};

/// A member as the leader sees it in JoinGroup: REST URL, config offset, current assignment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberState {
    /// REST URL.
    pub url: String,
    /// The config topic offset it has read up to.
    pub config_offset: i64,
    /// What it currently runs (from its metadata allocation; empty for eager members).
    pub assignment: WorkItems,
}

/// The leader's view of the configuration: offset, connectors and their task counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigSnapshot {
    /// The config topic offset of this snapshot.
    pub offset: i64,
    /// Connector name → number of tasks (task ids `0..n`).
    pub connectors: BTreeMap<String, u32>,
}

impl ConfigSnapshot {
    /// All configured connectors and tasks.
    pub fn items(&self) -> WorkItems {
        let mut items = WorkItems::default();
        for (c, &n) in &self.connectors {
            items.connectors.insert(c.clone());
            for t in 0..n {
                items.tasks.insert(TaskId::new(c.clone(), t as i32));
            }
        }
        items
    }
}

/// What one member is told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberAssignment {
    /// Newly assigned items (incremental) or the whole assignment (eager).
    pub assigned: WorkItems,
    /// Items to stop.
    pub revoked: WorkItems,
    /// Scheduled rebalance delay in ms.
    pub delay: i32,
}

/// The outcome of one assignment round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignmentPlan {
    /// Per member id, its assignment.
    Assigned(BTreeMap<String, MemberAssignment>),
    /// The leader's snapshot is behind `max_offset` (a member's config offset): every member
    /// gets `CONFIG_MISMATCH`, re-reads the config topic and rejoins.
    ConfigMismatch {
        /// The highest config offset among the members.
        max_offset: i64,
    },
}

impl AssignmentPlan {
    /// The SyncGroup assignments of this plan in the wire form of `protocol`.
    pub fn to_wire(
        &self,
        protocol: ConnectProtocol,
        members: &BTreeMap<String, MemberState>,
        leader: &str,
        leader_url: &str,
        config_offset: i64,
    ) -> BTreeMap<String, Assignment> {
        let base = |error, offset| Assignment {
            version: protocol.version(),
            error,
            leader: leader.to_owned(),
            leader_url: leader_url.to_owned(),
            config_offset: offset,
            assigned: Some(Vec::new()),
            revoked: protocol.is_incremental().then(Vec::new),
            delay: 0,
        };
        match self {
            Self::ConfigMismatch { max_offset } => members
                .keys()
                .map(|m| (m.clone(), base(CONFIG_MISMATCH, *max_offset)))
                .collect(),
            Self::Assigned(plan) => members
                .keys()
                .map(|m| {
                    let mut a = base(NO_ERROR, config_offset);
                    if let Some(p) = plan.get(m) {
                        a.assigned = Some(p.assigned.to_entries());
                        if protocol.is_incremental() {
                            a.revoked = Some(p.revoked.to_entries());
                            a.delay = p.delay;
                        }
                    }
                    (m.clone(), a)
                })
                .collect(),
        }
    }
}

/// The leader's memory between rounds (KIP-415): its last assignment and a pending delay.
#[derive(Debug, Clone, Default)]
pub struct AssignorState {
    previous: BTreeMap<String, WorkItems>,
    previous_generation: Option<i32>,
    previous_members: BTreeSet<String>,
    /// When the pending scheduled rebalance expires (ms since the epoch).
    scheduled_deadline: Option<i64>,
    candidates: BTreeSet<String>,
    previous_revocation: WorkItems,
    revoked_last_round: bool,
    successive_revoking_rounds: u32,
}

impl AssignorState {
    fn reset_delay(&mut self) {
        self.scheduled_deadline = None;
        self.candidates.clear();
    }
}

/// One assignment round's inputs.
#[derive(Debug, Clone)]
pub struct AssignorInput<'a> {
    /// Members by id with their metadata.
    pub members: &'a BTreeMap<String, MemberState>,
    /// The leader's config snapshot.
    pub snapshot: &'a ConfigSnapshot,
    /// The sub-protocol the coordinator chose.
    pub protocol: ConnectProtocol,
    /// The generation of this round.
    pub generation: i32,
    /// The last generation this leader completed (SyncGroup succeeded), if any.
    pub last_completed_generation: Option<i32>,
    /// The current time in ms.
    pub now_ms: i64,
    /// `scheduled.rebalance.max.delay.ms`.
    pub max_delay_ms: i32,
}

/// Computes one round: eager or incremental per `input.protocol`.
pub fn assign(state: &mut AssignorState, input: &AssignorInput<'_>) -> AssignmentPlan {
    let max_offset = input
        .members
        .values()
        .map(|m| m.config_offset)
        .max()
        .unwrap_or(input.snapshot.offset);
    if max_offset > input.snapshot.offset {
        return AssignmentPlan::ConfigMismatch { max_offset };
    }
    if input.protocol.is_incremental() {
        incremental(state, input)
    } else {
        *state = AssignorState::default();
        AssignmentPlan::Assigned(eager(input.members.keys(), &input.snapshot.items()))
    }
}

/// Eager: round-robin over members sorted by id, connectors first, then tasks, continuing the
/// same iterator.
fn eager<'a>(
    members: impl Iterator<Item = &'a String>,
    configured: &WorkItems,
) -> BTreeMap<String, MemberAssignment> {
    let ids: Vec<&String> = members.collect();
    let mut out: BTreeMap<String, MemberAssignment> = ids
        .iter()
        .map(|m| ((*m).clone(), MemberAssignment::default()))
        .collect();
    if ids.is_empty() {
        return out;
    }
    let mut i = 0;
    for c in &configured.connectors {
        if let Some(a) = out.get_mut(ids[i % ids.len()]) {
            a.assigned.connectors.insert(c.clone());
        }
        i += 1;
    }
    for t in &configured.tasks {
        if let Some(a) = out.get_mut(ids[i % ids.len()]) {
            a.assigned.tasks.insert(t.clone());
        }
        i += 1;
    }
    out
}

fn union(items: impl Iterator<Item = WorkItems>) -> WorkItems {
    let mut all = WorkItems::default();
    for i in items {
        all.extend(&i);
    }
    all
}

fn difference(a: &WorkItems, b: &WorkItems) -> WorkItems {
    let mut d = a.clone();
    d.remove_all(b);
    d
}

fn incremental(state: &mut AssignorState, input: &AssignorInput<'_>) -> AssignmentPlan {
    let members = input.members;
    let configured = input.snapshot.items();
    let active = union(members.values().map(|m| m.assignment.clone()));
    if state.previous_generation.is_none()
        || state.previous_generation != input.last_completed_generation
    {
        // The leader's memory is stale (new leader, or a round did not complete).
        state.previous.clear();
    }
    // A revocation of the last round that did not take effect: start from what is running.
    let previous_revocation = std::mem::take(&mut state.previous_revocation);
    if !difference(
        &previous_revocation,
        &difference(&previous_revocation, &active),
    )
    .is_empty()
    {
        state.previous = members
            .iter()
            .map(|(id, m)| (id.clone(), m.assignment.clone()))
            .collect();
    }
    let previous = union(state.previous.values().cloned());

    let mut plan: BTreeMap<String, MemberAssignment> = members
        .keys()
        .map(|m| (m.clone(), MemberAssignment::default()))
        .collect();
    // What each member will hold after this round.
    let mut next: BTreeMap<String, WorkItems> = members
        .iter()
        .map(|(id, m)| (id.clone(), m.assignment.clone()))
        .collect();

    // Deleted (held but no longer configured) and duplicated (held by more than one member)
    // items are revoked from every holder.
    let mut holders: BTreeMap<Item, usize> = BTreeMap::new();
    for m in members.values() {
        for item in items_of(&m.assignment) {
            *holders.entry(item).or_default() += 1;
        }
    }
    let mut duplicated = WorkItems::default();
    for (item, n) in &holders {
        if *n > 1 {
            item.clone().insert_into(&mut duplicated);
        }
    }
    for (id, held) in next.iter_mut() {
        let mut revoke = difference(held, &configured);
        revoke.extend(&difference(held, &difference(held, &duplicated)));
        if !revoke.is_empty() {
            held.remove_all(&revoke);
            if let Some(p) = plan.get_mut(id) {
                p.revoked.extend(&revoke);
            }
        }
    }

    // Lost: in the previous assignment, no longer held by anyone, still configured.
    let lost = difference(
        &difference(&previous, &active),
        &difference(&previous, &configured),
    );
    let created = difference(&difference(&configured, &previous), &active);
    let departed = state
        .previous_members
        .iter()
        .any(|m| !members.contains_key(m));

    let mut to_assign = created;
    let mut delay = 0;
    let mut lost_pending = false;
    let now = input.now_ms;
    if lost.is_empty() && !state.revoked_last_round {
        state.reset_delay();
    } else if state.scheduled_deadline.is_none() && !departed {
        // Nobody left: the work was merely not picked up; hand it out at once.
        to_assign.extend(&lost);
    } else if input.max_delay_ms <= 0 {
        to_assign.extend(&lost);
    } else if state.scheduled_deadline.is_some_and(|d| now >= d) {
        // The delay is over: lost work goes to the workers that joined empty meanwhile, or
        // else to the least loaded; revocations are allowed again.
        let candidates: Vec<String> = state
            .candidates
            .iter()
            .filter(|c| members.contains_key(*c))
            .cloned()
            .collect();
        if candidates.is_empty() {
            to_assign.extend(&lost);
        } else {
            round_robin(&lost, &candidates, &mut next, &mut plan);
        }
        state.reset_delay();
        state.revoked_last_round = false;
    } else {
        for (id, held) in &next {
            if held.is_empty() {
                state.candidates.insert(id.clone());
            }
        }
        delay = match state.scheduled_deadline {
            Some(deadline) => {
                i32::try_from((deadline - now).min(i64::from(input.max_delay_ms))).unwrap_or(0)
            }
            None => input.max_delay_ms,
        };
        state.scheduled_deadline = Some(now + i64::from(delay));
        lost_pending = !lost.is_empty();
    }

    // Load-balancing revocations (against the configured totals), unless a delay is active;
    // consecutive revoking rounds back off exponentially (1 ms × 40ⁿ, at most the max delay).
    if delay == 0 {
        let revocations = balance_revocations(&next, &configured);
        if !revocations.is_empty() && state.revoked_last_round {
            state.successive_revoking_rounds += 1;
            let backoff = if input.max_delay_ms <= 0 {
                0.0
            } else {
                40f64
                    .powi(state.successive_revoking_rounds.min(16) as i32)
                    .min(f64::from(input.max_delay_ms))
            };
            delay = backoff as i32;
            if delay == 0 {
                apply_revocations(revocations, &mut next, &mut plan, &mut to_assign);
            } else {
                state.scheduled_deadline = Some(now + i64::from(delay));
            }
        } else if !revocations.is_empty() {
            apply_revocations(revocations, &mut next, &mut plan, &mut to_assign);
            state.revoked_last_round = true;
        } else if state.revoked_last_round {
            state.revoked_last_round = false;
            state.successive_revoking_rounds = 0;
        }
    } else {
        state.revoked_last_round = false;
    }

    // New and reassigned work to the least loaded (connectors and tasks separately).
    assign_least_loaded(&to_assign, &mut next, &mut plan);

    for p in plan.values_mut() {
        p.delay = delay;
        state.previous_revocation.extend(&p.revoked);
    }
    // Remember the assignment after this round; work still lost under a delay stays in it
    // (attributed to no member) so the next round sees it lost again.
    state.previous = next;
    if lost_pending {
        state.previous.insert(String::new(), lost);
    }
    state.previous_members = members.keys().cloned().collect();
    state.previous_generation = Some(input.generation);
    AssignmentPlan::Assigned(plan)
}

/// Takes the revocations out of `next`: items the member already ran are revoked from it;
/// items it was only given this round go back to the pool to hand out.
fn apply_revocations(
    revocations: BTreeMap<String, WorkItems>,
    next: &mut BTreeMap<String, WorkItems>,
    plan: &mut BTreeMap<String, MemberAssignment>,
    to_assign: &mut WorkItems,
) {
    for (id, revoke) in revocations {
        if let Some(held) = next.get_mut(&id) {
            held.remove_all(&revoke);
        }
        if let Some(p) = plan.get_mut(&id) {
            let fresh = difference(&revoke, &difference(&revoke, &p.assigned));
            p.assigned.remove_all(&fresh);
            to_assign.extend(&fresh);
            p.revoked.extend(&difference(&revoke, &fresh));
        }
    }
}

/// A connector or a task.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Connector(String),
    Task(TaskId),
}

impl Item {
    fn insert_into(self, items: &mut WorkItems) {
        match self {
            Item::Connector(c) => {
                items.connectors.insert(c);
            }
            Item::Task(t) => {
                items.tasks.insert(t);
            }
        }
    }
}

fn items_of(w: &WorkItems) -> Vec<Item> {
    w.connectors
        .iter()
        .cloned()
        .map(Item::Connector)
        .chain(w.tasks.iter().cloned().map(Item::Task))
        .collect()
}

fn round_robin(
    items: &WorkItems,
    to: &[String],
    current: &mut BTreeMap<String, WorkItems>,
    plan: &mut BTreeMap<String, MemberAssignment>,
) {
    for (i, item) in items_of(items).into_iter().enumerate() {
        let id = &to[i % to.len()];
        if let Some(held) = current.get_mut(id) {
            item.clone().insert_into(held);
        }
        if let Some(p) = plan.get_mut(id) {
            item.insert_into(&mut p.assigned);
        }
    }
}

fn assign_least_loaded(
    items: &WorkItems,
    current: &mut BTreeMap<String, WorkItems>,
    plan: &mut BTreeMap<String, MemberAssignment>,
) {
    if current.is_empty() {
        return;
    }
    for c in &items.connectors {
        if let Some(id) = least_loaded(current, |w| w.connectors.len()) {
            if let Some(held) = current.get_mut(&id) {
                held.connectors.insert(c.clone());
            }
            if let Some(p) = plan.get_mut(&id) {
                p.assigned.connectors.insert(c.clone());
            }
        }
    }
    for t in &items.tasks {
        if let Some(id) = least_loaded(current, |w| w.tasks.len()) {
            if let Some(held) = current.get_mut(&id) {
                held.tasks.insert(t.clone());
            }
            if let Some(p) = plan.get_mut(&id) {
                p.assigned.tasks.insert(t.clone());
            }
        }
    }
}

fn least_loaded(
    current: &BTreeMap<String, WorkItems>,
    load: impl Fn(&WorkItems) -> usize,
) -> Option<String> {
    current
        .iter()
        .min_by_key(|(id, w)| (load(w), (*id).clone()))
        .map(|(id, _)| id.clone())
}

/// Per member, what to revoke so that connectors and tasks (separately) can end at
/// ⌊N/W⌋ or ⌊N/W⌋+1 per worker, N the configured count; only the excess of over-loaded workers
/// moves, and the most loaded keep the +1 slots.
fn balance_revocations(
    current: &BTreeMap<String, WorkItems>,
    configured: &WorkItems,
) -> BTreeMap<String, WorkItems> {
    let mut out: BTreeMap<String, WorkItems> = BTreeMap::new();
    let workers = current.len();
    if workers == 0 || current.values().all(WorkItems::is_empty) {
        return out;
    }
    for connectors in [true, false] {
        let load = |w: &WorkItems| {
            if connectors {
                w.connectors.len()
            } else {
                w.tasks.len()
            }
        };
        let total = load(configured);
        let floor = total / workers;
        let mut extra = total % workers;
        // The most loaded workers keep the ⌊N/W⌋+1 slots.
        let mut by_load: Vec<(&String, &WorkItems)> = current.iter().collect();
        by_load.sort_by(|a, b| load(b.1).cmp(&load(a.1)).then(a.0.cmp(b.0)));
        for (id, held) in by_load {
            let allowed = if extra > 0 && load(held) > floor {
                extra -= 1;
                floor + 1
            } else {
                floor
            };
            let excess = load(held).saturating_sub(allowed);
            if excess == 0 {
                continue;
            }
            let revoke = out.entry(id.clone()).or_default();
            if connectors {
                revoke
                    .connectors
                    .extend(held.connectors.iter().rev().take(excess).cloned());
            } else {
                revoke
                    .tasks
                    .extend(held.tasks.iter().rev().take(excess).cloned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
