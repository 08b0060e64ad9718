//! `connect-rs distributed WORKER_FILE` (Kafka Connect's `connect-distributed.sh`) and
//! `connect-rs standalone --distributed WORKER_FILE [CONNECTOR_FILE...]`: a worker whose
//! connector configurations, target states and task configurations live in the config topic
//! (`config.storage.topic`) and source offsets in the offsets topic (`offset.storage.topic`).
//! Without `bootstrap.servers` they live in the embedded log and the worker is a one-member
//! cluster; statuses are not written to `status.storage.topic` yet.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::anyhow;
use tracing::info;

use super::standalone::{
    advertised_worker_id, load_worker, open_topics, serve_until_stopped, validate_connector_files,
    Running, Topics,
};
use super::{CommandError, EXIT_CONNECTOR, EXIT_STARTUP};
use crate::config::WorkerMode;
use crate::herder::core::HerderCore;
use crate::herder::distributed::herder::DistributedHerder;
use crate::plugins::PluginRegistry;
use crate::rest::RestServer;
use crate::storage::topic_log::{InternalTopicKind, InternalTopicSpec};
use crate::storage::topic_offsets::TopicOffsetStore;
use crate::topics::internal_topic::InternalTopicBackend;
use crate::worker::Worker;

/// What to run.
pub struct DistributedRun {
    /// The worker file.
    pub worker_file: PathBuf,
    /// Connector files submitted to the cluster (created or updated) once the worker runs.
    pub connector_files: Vec<PathBuf>,
    /// `--exit-when-idle`.
    pub exit_when_idle: Option<std::time::Duration>,
}

/// Runs a distributed worker.
///
/// # Errors
/// Start-up failures (exit 2), connector files that do not validate or cannot be submitted
/// (exit 3), and, with `--exit-when-idle`, failed tasks (exit 4).
pub async fn run(args: DistributedRun) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let plugins = Arc::new(PluginRegistry::builtin());
    let worker_config = Arc::new(
        load_worker(&args.worker_file, WorkerMode::Distributed, &plugins).map_err(startup)?,
    );
    if worker_config.bootstrap_servers().is_some() {
        return Err(startup(anyhow!(
            "Distributed mode on a Kafka cluster (bootstrap.servers) is not available yet: \
             connect-rs runs distributed mode as a one-worker cluster on the embedded log \
             only. Remove bootstrap.servers to use the embedded log, or run `standalone`."
        )));
    }
    let specs = validate_connector_files(&args.connector_files, &worker_config, &plugins)?;

    let rest_server = RestServer::bind(&worker_config).await.map_err(startup)?;
    let rest_addr = rest_server
        .addresses()
        .first()
        .map(|(_, addr)| *addr)
        .ok_or_else(|| startup(anyhow!("No REST listener could be bound")))?;
    let topics = open_topics(&worker_config).map_err(startup)?;
    let cluster_id = topics.kafka_cluster_id().await;
    let backend: &dyn InternalTopicBackend = match &topics {
        Topics::Local(log) => log.as_ref(),
        Topics::Kafka(kafka) => kafka.as_ref(),
    };
    let offsets_spec = InternalTopicSpec::new(
        InternalTopicKind::Offsets,
        worker_config
            .offset_storage_topic()
            .unwrap_or("connect-offsets"),
        worker_config.storage_partitions("offset.storage"),
        worker_config.storage_replication_factor("offset.storage"),
    );
    let client_id = format!(
        "{}-offsets",
        worker_config.group_id().unwrap_or("connect-cluster")
    );
    let offsets = TopicOffsetStore::open(backend, &offsets_spec, &client_id)
        .await
        .map_err(|e| startup(e.into()))?;
    let worker = Worker::new(
        worker_config.worker_settings(),
        plugins.clone(),
        Arc::new(offsets),
        topics.backend(),
    );
    let board = worker.board();
    let worker_id = advertised_worker_id(&worker_config, rest_addr);
    let core = HerderCore::new(worker, worker_config.clone(), plugins.clone(), worker_id);
    let mut herder = DistributedHerder::open(core, backend, &worker_config)
        .await
        .map_err(|e| startup(e.into()))?;
    info!("Distributed worker started (a one-worker cluster on the embedded log).");
    herder.start_all().await;
    let (handle, herder_task) = herder.spawn();
    for spec in specs {
        if let Err(e) = handle
            .put_connector_config(&spec.name, spec.raw_props.clone(), true)
            .await
        {
            let _ = handle.shutdown().await;
            let _ = herder_task.await;
            topics.close().await;
            return Err(CommandError::new(
                EXIT_CONNECTOR,
                anyhow!("Connector {} could not be submitted: {e}", spec.name),
            ));
        }
    }
    serve_until_stopped(
        rest_server,
        handle,
        herder_task,
        Running {
            plugins,
            worker_config,
            cluster_id,
            board,
            topics,
            exit_when_idle: args.exit_when_idle,
        },
    )
    .await
}
