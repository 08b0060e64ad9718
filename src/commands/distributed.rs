//! `connect-rs distributed WORKER_FILE` (Kafka Connect's `connect-distributed.sh`) and
//! `connect-rs standalone --distributed WORKER_FILE [CONNECTOR_FILE...]`: a worker whose
//! connector configurations, target states and task configurations live in the config topic
//! (`config.storage.topic`), source offsets in the offsets topic (`offset.storage.topic`) and
//! statuses in the status topic (`status.storage.topic`). With `bootstrap.servers` the worker
//! joins the group `group.id` on that Kafka cluster and shares the work with its other
//! members; without, the topics live in the embedded log and the worker is a one-member
//! cluster.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::anyhow;
use tracing::info;

use super::standalone::{
    advertised_worker_id, load_worker_with_plugins, open_topics, serve_until_stopped,
    validate_connector_files, Running, Topics,
};
use super::{CommandError, EXIT_CONNECTOR, EXIT_STARTUP};
use crate::config::WorkerMode;
use crate::herder::core::HerderCore;
use crate::herder::distributed::client::RestClient;
use crate::herder::distributed::herder::DistributedHerder;
use crate::herder::distributed::internal_client;
use crate::herder::distributed::member_config::member_config;
use crate::herder::distributed::zombie_fencing::HerderFencing;
use crate::herder::{HerderError, HerderHandle};
use crate::metrics::{WorkerMetrics, WorkerMode as MetricsMode};
use crate::rest::RestServer;
use crate::storage::topic_log::{InternalTopicKind, InternalTopicSpec};
use crate::storage::topic_offsets::TopicOffsetStore;
use crate::topics::internal_topic::InternalTopicBackend;
use crate::worker::{ExactlyOnceSources, Worker, WorkerSettings};
use connect_api::ConfigMap;

/// What to run.
pub struct DistributedRun {
    /// The worker file.
    pub worker_file: PathBuf,
    /// Connector files submitted to the cluster (created or updated) once the worker runs.
    pub connector_files: Vec<PathBuf>,
    /// `--exit-when-idle`.
    pub exit_when_idle: Option<std::time::Duration>,
    /// `--quiet`: no progress lines on the terminal.
    pub quiet: bool,
}

/// Runs a distributed worker.
///
/// # Errors
/// Start-up failures (exit 2), connector files that do not validate or cannot be submitted
/// (exit 3), and, with `--exit-when-idle`, failed tasks (exit 4).
pub async fn run(args: DistributedRun) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let (worker_config, plugins) =
        load_worker_with_plugins(&args.worker_file, WorkerMode::Distributed).map_err(startup)?;
    let (worker_config, plugins) = (Arc::new(worker_config), Arc::new(plugins));
    let specs = validate_connector_files(&args.connector_files, &worker_config, &plugins)?;
    if !args.connector_files.is_empty() {
        info!(
            "Connector files are submitted once, at start: with --distributed they are not \
             watched for changes (update connectors over the REST API)."
        );
    }

    let rest_server = RestServer::bind(&worker_config).await.map_err(startup)?;
    let (scheme, rest_addr) = rest_server
        .addresses()
        .first()
        .copied()
        .ok_or_else(|| startup(anyhow!("No REST listener could be bound")))?;
    let topics = open_topics(&worker_config).map_err(startup)?;
    let cluster_id = topics
        .kafka_cluster_id(worker_config.default_api_timeout())
        .await
        .map_err(startup)?;
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
    let offsets = Arc::new(
        TopicOffsetStore::open(backend, &offsets_spec, &client_id)
            .await
            .map_err(|e| startup(e.into()))?,
    );
    let mut settings = WorkerSettings::from_config(&worker_config);
    let mut exactly_once = None;
    if worker_config.exactly_once_source_enabled() {
        if matches!(topics, Topics::Local(_)) {
            return Err(startup(anyhow!(
                "{}: exactly.once.source.support=enabled needs Kafka transactions: set \
                 bootstrap.servers (without it the worker keeps its topics in the embedded log)",
                worker_config
                    .origin("exactly.once.source.support")
                    .map_or_else(
                        || args.worker_file.display().to_string(),
                        ToString::to_string
                    )
            )));
        }
        info!("Exactly-once source support is enabled: source tasks run in Kafka transactions.");
        let sources = Arc::new(ExactlyOnceSources {
            group_id: worker_config
                .group_id()
                .unwrap_or("connect-cluster")
                .to_owned(),
            offsets: offsets.clone(),
            fencing: std::sync::OnceLock::new(),
        });
        settings.exactly_once = Some(sources.clone());
        exactly_once = Some(sources);
    }
    let metrics = Arc::new(WorkerMetrics::new(MetricsMode::Distributed));
    let worker_offsets = super::standalone::journaled_offsets(&topics, offsets.clone())
        .await
        .map_err(startup)?;
    let worker = Worker::new(settings, plugins.clone(), worker_offsets, topics.backend())
        .with_metrics(metrics.clone());
    let board = worker.board();
    let worker_id = advertised_worker_id(&worker_config, rest_addr);
    let url = worker_config
        .rest_advertised_listener()
        .map_or(scheme, |l| {
            if l.eq_ignore_ascii_case("https") {
                "https"
            } else {
                "http"
            }
        });
    let url = format!("{url}://{worker_id}/");
    let member_config = match &topics {
        Topics::Local(_) => None,
        Topics::Kafka(_) => {
            Some(member_config(&worker_config, &url).map_err(|e| startup(e.into()))?)
        }
    };
    let clustered = member_config.is_some();
    let core = HerderCore::new(worker, worker_config.clone(), plugins.clone(), worker_id);
    let mut herder = DistributedHerder::open(core, backend, &worker_config, offsets, member_config)
        .await
        .map_err(|e| startup(e.into()))?;
    if let Some(sources) = &exactly_once {
        // Tasks ask the herder for zombie fencing before they claim their transactional ids.
        let _ = sources
            .fencing
            .set(Arc::new(HerderFencing(herder.handle())));
    }
    herder.start().await.map_err(|e| startup(e.into()))?;
    if clustered {
        info!(
            group = worker_config.group_id().unwrap_or_default(),
            url = %url,
            "Distributed worker started; joining the worker group."
        );
    } else {
        info!("Distributed worker started (a one-worker cluster on the embedded log).");
    }
    let (handle, herder_task) = herder.spawn();
    let client = RestClient::new(&worker_config);
    for spec in specs {
        if let Err(e) = submit(&handle, &client, &spec.name, spec.raw_props.clone()).await {
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
            metrics,
            topics,
            exit_when_idle: args.exit_when_idle,
            quiet: args.quiet,
        },
    )
    .await
}

/// How long a connector file's submission waits for the worker to join its group.
const SUBMIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Creates or updates connector `name` in the cluster: through this worker when it leads,
/// through the leader otherwise, once the group has one.
async fn submit(
    handle: &HerderHandle,
    client: &RestClient,
    name: &str,
    config: ConfigMap,
) -> Result<(), HerderError> {
    let deadline = tokio::time::Instant::now() + SUBMIT_TIMEOUT;
    loop {
        match handle
            .put_connector_config(name, config.clone(), true)
            .await
        {
            Err(HerderError::Forward(None)) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            Err(HerderError::Forward(Some(leader))) => {
                return internal_client::put_connector_config(client, &leader, name, &config)
                    .await
                    .map_err(|e| HerderError::Internal(e.to_string()));
            }
            Err(HerderError::Forward(None)) => {
                return Err(HerderError::Internal(format!(
                    "The worker found no group leader within {} s",
                    SUBMIT_TIMEOUT.as_secs()
                )))
            }
            other => return other.map(|_| ()),
        }
    }
}
