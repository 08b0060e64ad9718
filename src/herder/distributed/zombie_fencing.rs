//! Zombie fencing rounds of exactly-once source connectors on the leader (KIP-618, Kafka
//! Connect's `DistributedHerder.fenceZombieSourceTasks` and `ZombieFencing`).
//!
//! Every exactly-once source task asks for a round before it claims its transactional id. The
//! leader reads the config topic to its end and decides by the connector's `tasks-fencing-`
//! record (its task count when it was written):
//! - no task configurations were committed since that record: nothing to do;
//! - there is no record yet (the connector never ran with transactions), or the last and the
//!   new generation both have one task (the new task's own `init_transactions` fences the old
//!   one): the record is written with the current task count;
//! - otherwise the transactional ids of tasks `0..record's count` are fenced (in the
//!   background; concurrent requests for the connector wait for the same round), then, unless
//!   new task configurations were committed meanwhile (409), the record is written.
//!
//! A follower's task sends the request to the leader (internal `PUT /connectors/{c}/fence`,
//! signed with the session key).

use std::collections::BTreeMap;

use tokio::sync::{mpsc, oneshot};
use tracing::{debug, info, warn};

use super::herder::DistributedHerder;
use super::internal_client;
use crate::herder::{ConnectorType, FenceOrigin, HerderError, HerderHandle, InternalSignature};
use crate::storage::internal::ConfigRecord;
use crate::topics::ClientSpec;
use crate::worker::exactly_once::transactional_id;
use crate::worker::zombie_fencing::{fence_producers, FencingError, FencingRefused, TaskFencing};

/// A reply to a fencing request.
type Reply = oneshot::Sender<Result<(), HerderError>>;

/// A round under way for one connector.
#[derive(Debug)]
pub(super) struct ActiveFencing {
    /// The task count to record once the ids are fenced.
    to_record: u32,
    /// The task configuration generation the round was started for.
    generation: Option<u32>,
    /// Everyone waiting for the round.
    waiters: Vec<Reply>,
}

/// The rounds under way, and the channel their outcomes come back on.
#[derive(Debug)]
pub(super) struct Fencings {
    active: BTreeMap<String, ActiveFencing>,
    done_tx: mpsc::UnboundedSender<(String, Result<(), FencingError>)>,
    pub(super) done_rx: mpsc::UnboundedReceiver<(String, Result<(), FencingError>)>,
}

impl Default for Fencings {
    fn default() -> Self {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Self {
            active: BTreeMap::new(),
            done_tx,
            done_rx,
        }
    }
}

impl DistributedHerder {
    /// Answers a fencing request from `origin` for connector `name` (now, or once a round
    /// under way ends).
    pub(super) async fn fence_zombies(&mut self, name: String, origin: FenceOrigin, reply: Reply) {
        if let FenceOrigin::Rest(signature) = &origin {
            if let Err(e) = InternalSignature::check(
                signature.as_ref(),
                self.session_key().as_ref(),
                &self.signing.accepted,
            ) {
                let _ = reply.send(Err(e));
                return;
            }
        }
        if !self.is_leader() {
            let leader = self.group.as_ref().and_then(|g| g.leader_url.clone());
            match origin {
                FenceOrigin::Rest(_) => {
                    let _ = reply.send(Err(HerderError::Forward(leader)));
                }
                FenceOrigin::Task => self.forward_fencing(name, leader, reply),
            }
            return;
        }
        if let Err(e) = self.fence_as_leader(&name, reply).await {
            warn!(connector = %name, error = %e, "Zombie fencing failed.");
        }
    }

    /// Sends a task's fencing request to the leader at `leader`, signed with the session key;
    /// answers `reply` with the leader's answer.
    fn forward_fencing(&self, name: String, leader: Option<String>, reply: Reply) {
        let client = self.signing.client.clone();
        let key = self.session_key();
        let algorithm = self.signing.signature_algorithm;
        tokio::spawn(async move {
            let answer = match &leader {
                Some(url) => {
                    debug!(connector = %name, leader = %url, "Forwarding a zombie fencing request to the leader.");
                    internal_client::fence_zombies(
                        &client,
                        url,
                        &name,
                        key.as_ref().map(|k| (k, algorithm)),
                    )
                    .await
                    .map_err(|e| {
                        HerderError::Internal(format!(
                            "Forwarding zombie fencing request to the leader at {url} failed: {e}"
                        ))
                    })
                }
                None => Err(HerderError::Internal(
                    "No leader is known to perform zombie fencing (a rebalance is in progress)"
                        .to_owned(),
                )),
            };
            let _ = reply.send(answer);
        });
    }

    /// The leader's part: `Err` only to log what was also answered.
    async fn fence_as_leader(&mut self, name: &str, reply: Reply) -> Result<(), HerderError> {
        let answer = self.decide_fencing(name).await;
        match answer {
            Ok(Some(round)) => {
                match self.fencings.active.get_mut(name) {
                    Some(active) => active.waiters.push(reply),
                    None => self.start_round(name, round, reply),
                }
                Ok(())
            }
            Ok(None) => {
                let _ = reply.send(Ok(()));
                Ok(())
            }
            Err(e) => {
                let _ = reply.send(Err(e.clone()));
                Err(e)
            }
        }
    }

    /// `Some((ids to fence, count to record))` when a round of fencing is needed; otherwise
    /// writes the task-count record when one is due and answers `None`.
    async fn decide_fencing(&mut self, name: &str) -> Result<Option<(u32, u32)>, HerderError> {
        if !self.configs.snapshot().contains(name) {
            return Err(HerderError::NotFound(format!("Connector {name} not found")));
        }
        let is_source = self
            .core
            .connectors
            .get(name)
            .is_some_and(|e| e.connector_type == ConnectorType::Source);
        if !is_source {
            return Err(HerderError::BadRequest(format!(
                "Connector {name} is not a source connector"
            )));
        }
        self.read_configs().await.map_err(|e| {
            HerderError::Internal(format!(
                "Failed to read to end of config topic before performing zombie fencing: {e}"
            ))
        })?;
        let count = self.configs.snapshot().task_count(name);
        let record = self.configs.snapshot().task_count_record(name);
        if !self.configs.snapshot().pending_fencing(name) {
            debug!(connector = %name, "No zombie fencing needed: every older task generation was fenced out.");
            return Ok(None);
        }
        match record {
            Some(previous) if !(previous == 1 && count == 1) => {
                return Ok(Some((previous, count)));
            }
            Some(_) => info!(
                connector = %name,
                "Skipping zombie fencing (the last and the new task generation have one task each, fenced by its own transactional id); writing the task count record."
            ),
            None => info!(
                connector = %name,
                "Skipping zombie fencing (the connector runs with exactly-once support for the first time); writing the task count record."
            ),
        }
        self.write_task_count(name, count).await?;
        Ok(None)
    }

    async fn write_task_count(&mut self, name: &str, count: u32) -> Result<(), HerderError> {
        self.write(vec![ConfigRecord::TaskCountFencing {
            connector: name.to_owned(),
            task_count: count,
        }])
        .await
        .map_err(|e| {
            HerderError::Internal(format!(
                "Failed to write a task count record for connector {name} to the config topic: {e}"
            ))
        })
    }

    /// Starts fencing the ids of tasks `0..to_fence` of `name` in the background.
    fn start_round(&mut self, name: &str, (to_fence, to_record): (u32, u32), reply: Reply) {
        let spec = match self.current_spec(name) {
            Ok(spec) => spec,
            Err(e) => {
                let _ = reply.send(Err(HerderError::failed(
                    "Failed to perform zombie fencing",
                    e,
                )));
                return;
            }
        };
        let group = self
            .core
            .worker_config
            .group_id()
            .unwrap_or("connect-cluster")
            .to_owned();
        let ids: Vec<String> = (0..to_fence)
            .map(|t| transactional_id(&group, name, t))
            .collect();
        info!(connector = %name, ids = ?ids, "Fencing out the task producers of the previous task generation.");
        let client = ClientSpec {
            connector: name.to_owned(),
            task: 0,
            overrides: spec.producer_overrides.clone(),
            admin_overrides: spec.admin_overrides.clone(),
            topic_creation: None,
        };
        let topics = self.core.worker.topics();
        let done = self.fencings.done_tx.clone();
        let connector = name.to_owned();
        tokio::spawn(async move {
            let outcome = fence_producers(topics, &client, ids).await;
            let _ = done.send((connector, outcome));
        });
        self.fencings.active.insert(
            name.to_owned(),
            ActiveFencing {
                to_record,
                generation: self.configs.snapshot().task_config_generation(name),
                waiters: vec![reply],
            },
        );
    }

    /// A round ended: unless new task configurations were committed meanwhile, writes the
    /// task-count record; answers everyone waiting.
    pub(super) async fn fencing_done(&mut self, name: String, outcome: Result<(), FencingError>) {
        let Some(active) = self.fencings.active.remove(&name) else {
            return;
        };
        let answer = match outcome {
            Err(e) => Err(HerderError::failed("Failed to perform zombie fencing", e)),
            Ok(()) => match self.read_configs().await {
                Err(e) => Err(HerderError::failed("Failed to read to end of config topic", e)),
                Ok(()) if self.configs.snapshot().task_config_generation(&name) != active.generation => {
                    Err(HerderError::Conflict(
                        "Fencing failed because new task configurations were generated for the connector"
                            .to_owned(),
                    ))
                }
                Ok(()) => self.write_task_count(&name, active.to_record).await,
            },
        };
        match &answer {
            Ok(()) => {
                info!(connector = %name, tasks = active.to_record, "Fenced out the previous task generation and wrote the task count record.")
            }
            Err(e) => warn!(connector = %name, error = %e, "Zombie fencing failed."),
        }
        for waiter in active.waiters {
            let _ = waiter.send(answer.clone());
        }
    }

    /// After `init_transactions` of task `task` of `name` (started with task configuration
    /// generation `generation`): Kafka Connect's `verifyTaskGenerationAndOwnership`.
    pub(super) async fn verify_task_generation(
        &mut self,
        name: &str,
        task: u32,
        generation: u32,
    ) -> Result<(), HerderError> {
        self.read_configs()
            .await
            .map_err(|e| HerderError::failed("Failed to read to end of config topic", e))?;
        if self.configs.snapshot().task_config_generation(name) != Some(generation) {
            return Err(HerderError::Internal(format!(
                "Cannot start source task {name}-{task} with exactly-once support as the connector has already generated a new set of task configs"
            )));
        }
        let assigned = self
            .assignment
            .tasks
            .iter()
            .any(|t| t.connector == name && u32::try_from(t.task).ok() == Some(task));
        if !assigned {
            return Err(HerderError::Internal(format!(
                "Cannot start source task {name}-{task} as it has already been revoked from this worker"
            )));
        }
        Ok(())
    }
}

/// The herder's side of [`TaskFencing`]: a task's requests go to the herder actor.
pub struct HerderFencing(pub HerderHandle);

impl TaskFencing for HerderFencing {
    fn fence_zombies<'a>(
        &'a self,
        connector: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<(), FencingRefused>> {
        Box::pin(async move {
            self.0
                .fence_zombies(connector, FenceOrigin::Task)
                .await
                .map_err(FencingRefused::new)
        })
    }

    fn verify_generation<'a>(
        &'a self,
        connector: &'a str,
        task: u32,
        generation: u32,
    ) -> futures::future::BoxFuture<'a, Result<(), FencingRefused>> {
        Box::pin(async move {
            self.0
                .verify_task_generation(connector, task, generation)
                .await
                .map_err(FencingRefused::new)
        })
    }
}
