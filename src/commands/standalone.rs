//! `connect-rs standalone`: Kafka Connect's standalone worker. Validates every file before
//! anything starts, opens the embedded log and the offsets file, starts the connectors, and runs
//! until a signal (or `--exit-when-idle`), then stops gracefully. Unless `--no-watch`, the
//! connector files are watched and their changes applied ([`super::connector_files`]).

use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, Context};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::connector_files::{self, reconcile::Reconciler, Sources};
use super::{CommandError, EXIT_CONNECTOR, EXIT_STARTUP, EXIT_TASK_FAILED};
use crate::cli::StandaloneArgs;
use crate::config::{self, WorkerConfig, WorkerMode};
use crate::herder::standalone::StandaloneHerder;
use crate::herder::HerderHandle;
use crate::metrics::{WorkerMetrics, WorkerMode as MetricsMode};
use crate::plugins::PluginRegistry;
use crate::progress::ProgressDisplay;
use crate::rest::{AppState, RestServer, WorkerInfo};
use crate::storage::{FileOffsetStore, JournaledOffsetStore, OffsetStore};
use crate::topics::kafka::KafkaBackend;
use crate::topics::local::LocalLog;
use crate::topics::{TopicBackend, TopicError};
use crate::worker::{Worker, WorkerSettings};

/// Runs `standalone`.
///
/// # Errors
/// Start-up failures (exit 2), connector creation failures (exit 3), and, with
/// `--exit-when-idle`, failed tasks (exit 4).
pub async fn run(args: StandaloneArgs) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let (worker_config, plugins) =
        load_worker_with_plugins(&args.worker_file, WorkerMode::Standalone).map_err(startup)?;
    let (worker_config, plugins) = (Arc::new(worker_config), Arc::new(plugins));
    if let Some(refusal) = worker_config.standalone_exactly_once_refusal() {
        return Err(startup(anyhow!(refusal)));
    }
    let sources = Sources::new(&args.connector_files);
    // Armed before the files are read, so that no change made after the read is missed.
    let watch = if args.no_watch {
        info!("Connector files are not watched (--no-watch).");
        None
    } else if args.connector_files.is_empty() {
        None
    } else {
        Some(connector_files::watch::arm(&sources).map_err(startup)?)
    };
    // Validate every connector before anything starts.
    let files = connector_files::validate(&sources, &worker_config, &plugins)?;
    connector_files::java_check::check_java_connectors(&files, &worker_config, &plugins).await?;
    let reconciler = watch
        .is_some()
        .then(|| Reconciler::new(sources, &files, worker_config.clone(), plugins.clone()));

    let rest_server = RestServer::bind(&worker_config).await.map_err(startup)?;
    let rest_listeners = rest_server.addresses();
    let rest_addr = rest_listeners
        .first()
        .map(|(_, addr)| *addr)
        .ok_or_else(|| startup(anyhow!("No REST listener could be bound")))?;
    let topics = open_topics(&worker_config).map_err(startup)?;
    // Only `GET /` needs the cluster id: the connectors start while it is looked up.
    let cluster_id = topics.look_up_kafka_cluster_id(worker_config.default_api_timeout());
    let offsets_path = worker_config.offset_storage_file();
    let offsets = FileOffsetStore::open(&offsets_path).map_err(|e| startup(e.into()))?;
    let offsets = journaled_offsets(&topics, Arc::new(offsets))
        .await
        .map_err(startup)?;
    info!(offsets = %offsets_path.display(), "Standalone worker started.");

    let settings = WorkerSettings::from_config(&worker_config);
    let metrics = Arc::new(WorkerMetrics::new(MetricsMode::Standalone));
    let worker = Worker::new(settings, plugins.clone(), offsets, topics.backend())
        .with_metrics(metrics.clone());
    let board = worker.board();
    let worker_id = advertised_worker_id(&worker_config, rest_addr);
    let mut herder =
        StandaloneHerder::new(worker, worker_config.clone(), plugins.clone(), worker_id);
    for file in files {
        if let Err(e) = herder.start(file.spec).await {
            herder.stop().await;
            topics.close().await;
            return Err(CommandError::new(EXIT_CONNECTOR, e));
        }
    }
    if let Err(e) = herder.restore().await {
        herder.stop().await;
        topics.close().await;
        return Err(startup(e.into()));
    }
    let cluster_id = match cluster_id
        .await
        .context("The Kafka cluster id lookup stopped")
    {
        Ok(Ok(id)) => id,
        Ok(Err(e)) | Err(e) => {
            herder.stop().await;
            topics.close().await;
            return Err(startup(e));
        }
    };
    let (handle, herder_task) = herder.spawn();
    let watching = watch
        .zip(reconciler)
        .map(|(watch, reconciler)| watch.spawn(reconciler, handle.clone()));
    let result = serve_until_stopped(
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
    .await;
    if let Some(watching) = watching {
        watching.abort();
    }
    result
}

/// What a running worker needs to serve REST and stop.
pub(crate) struct Running {
    pub(crate) plugins: Arc<PluginRegistry>,
    pub(crate) worker_config: Arc<WorkerConfig>,
    pub(crate) cluster_id: Option<String>,
    pub(crate) board: crate::worker::TaskBoard,
    pub(crate) metrics: Arc<WorkerMetrics>,
    pub(crate) topics: Topics,
    pub(crate) exit_when_idle: Option<std::time::Duration>,
    /// `--quiet`: no live progress lines and no summary table on the terminal.
    pub(crate) quiet: bool,
}

/// Validates connector files (directories stand for their connector files; all problems at
/// once; duplicate names across files refused).
///
/// # Errors
/// Exit 3 with every problem.
pub(crate) fn validate_connector_files(
    files: &[std::path::PathBuf],
    worker_config: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Result<Vec<crate::worker::ConnectorSpec>, CommandError> {
    let valid = connector_files::validate(&Sources::new(files), worker_config, plugins)?;
    Ok(valid.into_iter().map(|f| f.spec).collect())
}

/// Serves REST until a signal (or `--exit-when-idle`), then stops the REST server, the herder
/// and the topics, in Kafka Connect's order.
///
/// # Errors
/// Exit 4 when, stopping on idle, tasks had failed or a source's input never appeared.
pub(crate) async fn serve_until_stopped(
    rest_server: RestServer,
    handle: HerderHandle,
    herder_task: tokio::task::JoinHandle<()>,
    running: Running,
) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let Running {
        plugins,
        worker_config,
        cluster_id,
        board,
        metrics,
        topics,
        exit_when_idle,
        quiet,
    } = running;
    rest_server.log_addresses();
    let plugin_host = plugins.plugin_host().cloned();
    let rest_stop = CancellationToken::new();
    let rest = tokio::spawn(rest_server.serve(
        AppState {
            herder: handle.clone(),
            plugins,
            worker: Arc::new(WorkerInfo::new(&worker_config, cluster_id)),
            metrics,
        },
        rest_stop.clone(),
    ));
    let progress = ProgressDisplay::start(
        board.clone(),
        handle.clone(),
        ProgressDisplay::wanted(quiet),
    );

    let summary_board = board.clone();
    let stopped_by = tokio::select! {
        r = crate::shutdown::first_signal(move || board.repeated_on_next_start()) => {
            r.context("Could not install signal handlers").map_err(startup)?;
            "signal"
        }
        () = idle(&handle, exit_when_idle) => "idle",
    };
    info!(reason = stopped_by, "Stopping the worker.");
    // As Kafka Connect: the REST server stops before the herder.
    rest_stop.cancel();
    if let Ok(Err(e)) = rest.await {
        warn!(error = %e, "The REST server stopped with an error.");
    }
    let report = handle.shutdown().await;
    let _ = herder_task.await;
    if let Some(host) = plugin_host {
        // The Java tasks and connectors stopped with the herder: so does their JVM.
        host.shutdown(std::time::Duration::from_secs(5)).await;
    }
    topics.close().await;
    progress.finish(&summary_board).await;
    if stopped_by == "idle" && !report.failed.is_empty() {
        return Err(CommandError::new(
            EXIT_TASK_FAILED,
            anyhow!(
                "Tasks failed: {} (see the log above)",
                report.failed.join(", ")
            ),
        ));
    }
    if stopped_by == "idle" && !report.input_unavailable.is_empty() {
        return Err(CommandError::new(
            EXIT_TASK_FAILED,
            anyhow!(
                "Nothing was copied: a source's input never became available ({})",
                report.input_unavailable.join("; ")
            ),
        ));
    }
    info!("Worker stopped.");
    Ok(())
}

/// `host:port` for status reports: `rest.advertised.host.name`/`port`, else the bound address.
pub(crate) fn advertised_worker_id(worker: &WorkerConfig, bound: std::net::SocketAddr) -> String {
    let host = worker
        .rest_advertised_host_name()
        .map(str::to_owned)
        .unwrap_or_else(|| bound.ip().to_string());
    let port = worker.rest_advertised_port().unwrap_or(bound.port());
    format!("{host}:{port}")
}

/// Where the worker's topics live.
pub(crate) enum Topics {
    /// The embedded log (no `bootstrap.servers`).
    Local(Arc<LocalLog>),
    /// A Kafka cluster.
    Kafka(Arc<KafkaBackend>),
}

impl Topics {
    pub(crate) fn backend(&self) -> Arc<dyn TopicBackend> {
        match self {
            Self::Local(log) => log.clone(),
            Self::Kafka(kafka) => kafka.clone(),
        }
    }

    /// The Kafka cluster's id (as Kafka Connect reports it in `GET /`); `None` on the
    /// embedded log.
    ///
    /// # Errors
    /// "Kafka unreachable" when no broker answered within `timeout`.
    pub(crate) async fn kafka_cluster_id(
        &self,
        timeout: std::time::Duration,
    ) -> anyhow::Result<Option<String>> {
        self.look_up_kafka_cluster_id(timeout)
            .await
            .context("The Kafka cluster id lookup stopped")?
    }

    /// Starts looking up the Kafka cluster id in the background (`None` on the embedded log),
    /// so that connectors start meanwhile. As Kafka Connect's worker, which reads the id at
    /// start-up and stops when it cannot: a worker whose Kafka never answers fails after
    /// `timeout` instead of retrying forever.
    pub(crate) fn look_up_kafka_cluster_id(
        &self,
        timeout: std::time::Duration,
    ) -> tokio::task::JoinHandle<anyhow::Result<Option<String>>> {
        let kafka = match self {
            Self::Kafka(kafka) => kafka.clone(),
            Self::Local(_) => return tokio::spawn(async { Ok(None) }),
        };
        tokio::task::spawn_blocking(move || match kafka.cluster_id(timeout) {
            Ok(id) => {
                info!(kafka.cluster.id = %id, "Kafka cluster found.");
                Ok(Some(id))
            }
            Err(TopicError::Refused(refusal)) => Err(anyhow!(
                "Kafka at bootstrap.servers={} refused the worker: {refusal}; check the \
                 worker's security settings (security.protocol, sasl.*, ssl.*)",
                kafka.bootstrap_servers()
            )),
            Err(e) => Err(anyhow!(
                "Kafka unreachable: no broker of bootstrap.servers={} answered within {} \
                 (the worker's default.api.timeout.ms; 60 s by default): {e}",
                kafka.bootstrap_servers(),
                humantime::format_duration(timeout)
            )),
        })
    }

    pub(crate) async fn close(&self) {
        if let Self::Local(log) = self {
            log.close().await;
        }
    }
}

/// The source offset store the worker uses: on the embedded log with exactly-once sources, the
/// commit journal's offsets override `store`'s (and are copied into it at once when newer).
pub(crate) async fn journaled_offsets(
    topics: &Topics,
    store: Arc<dyn OffsetStore>,
) -> anyhow::Result<Arc<dyn OffsetStore>> {
    match topics {
        Topics::Local(log) if log.exactly_once_source() => Ok(Arc::new(
            JournaledOffsetStore::open(store, log.clone())
                .await
                .context(
                    "Could not bring the source offsets up to the embedded log's commit journal",
                )?,
        )),
        _ => Ok(store),
    }
}

pub(crate) fn open_topics(worker: &WorkerConfig) -> anyhow::Result<Topics> {
    if let Some(servers) = worker.bootstrap_servers() {
        info!(bootstrap.servers = %servers.join(","), "Topics live in Kafka.");
        let backend = KafkaBackend::new(
            servers,
            &worker.originals_with_prefix(""),
            worker.originals_with_prefix("producer."),
            worker.originals_with_prefix("consumer."),
            &worker.originals_with_prefix("admin."),
        )?;
        return Ok(Topics::Kafka(Arc::new(backend)));
    }
    let dir = worker.embedded_log_dir();
    let log = LocalLog::open_with(&dir, super::embedded_log::options(worker))
        .with_context(|| format!("Could not open the embedded log in {}", dir.display()))?;
    info!(dir = %dir.display(), "Topics live in the embedded log.");
    Ok(Topics::Local(log))
}

async fn idle(herder: &HerderHandle, exit_when_idle: Option<std::time::Duration>) {
    let Some(d) = exit_when_idle else {
        return std::future::pending().await;
    };
    // While a task is busy, look again every tick; once all are idle, wait exactly until
    // the last of them has been idle for `d` (a tick's overshoot would lengthen every run).
    let tick = (d / 10).clamp(
        std::time::Duration::from_millis(10),
        std::time::Duration::from_millis(100),
    );
    loop {
        match herder.idle_left(d).await {
            Some(left) if left.is_zero() => return,
            Some(left) => tokio::time::sleep(left).await,
            None => tokio::time::sleep(tick).await,
        }
    }
}

/// [`load_worker`], and the built-in plugins without the connectors the worker refuses
/// ([`crate::plugins::limit`]), choosing implementations by the worker's
/// `plugin.version.default`.
///
/// # Errors
/// As [`load_worker`], and an entry of `connector.class.allowlist` / `.denylist` that names
/// no connector.
pub(crate) fn load_worker_with_plugins(
    path: &Path,
    mode: WorkerMode,
) -> anyhow::Result<(WorkerConfig, PluginRegistry)> {
    let builtin = PluginRegistry::builtin();
    let worker = load_worker(path, mode, &builtin)?;
    let java = java_plugins(&worker)?;
    let has_java = !java.is_empty();
    let mut plugins = crate::plugins::limit::apply(builtin, &worker)?
        .with_java_plugins(java)
        .with_version_default(worker.plugin_version_default());
    if has_java {
        // A host of its own (the scan's ran on a runtime that is gone); its JVM starts when a
        // Java plugin is first used.
        plugins = plugins.with_plugin_host(crate::plugin_host::PluginHost::new(
            crate::plugin_host::HostSettings::from_worker_config(&worker),
        ));
    }
    Ok((worker, plugins))
}

/// The Java plugins of the worker's `plugin.path`, discovered by the plugin host as Kafka
/// Connect's `Plugins` does at start-up; none, and no JVM started, when `plugin.path` has no
/// location. The scan runs on a thread of its own (callers may be inside or outside the async
/// runtime) and the JVM is stopped after it: nothing runs Java plugins yet.
///
/// # Errors
/// The host cannot start or scan (no Java, ...), or `plugin.discovery=hybrid_fail` finds
/// plugins without ServiceLoader manifests.
fn java_plugins(worker: &WorkerConfig) -> anyhow::Result<Vec<crate::plugins::JavaPluginDesc>> {
    use crate::plugin_host::{discover, HostSettings, PluginHost};
    let plugin_path = worker.plugin_path().join(",");
    if plugin_path.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mode = worker.plugin_discovery();
    let settings = HostSettings::from_worker_config(worker);
    let classpath = settings.classpath.clone();
    let scan = std::thread::scope(|s| {
        s.spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(async {
                let host = PluginHost::new(settings);
                let found = discover::discover(&host, Some(&plugin_path), mode, &classpath).await;
                host.shutdown(std::time::Duration::from_secs(5)).await;
                anyhow::Ok(found?)
            })
        })
        .join()
        .map_err(|_| anyhow!("the plugin.path scan panicked"))?
    })?;
    let Some(scan) = scan else {
        return Ok(Vec::new());
    };
    scan.plugins
        .into_iter()
        .map(|p| {
            Ok(crate::plugins::JavaPluginDesc {
                kind: crate::plugins::JavaPluginKind::from_type_name(p.kind.name())
                    .map_err(|e| anyhow!("plugin {} from {}: {e}", p.class, p.location))?,
                class: p.class,
                version: p.version,
                location: p.location,
            })
        })
        .collect()
}

pub(crate) fn load_worker(
    path: &Path,
    mode: WorkerMode,
    plugins: &PluginRegistry,
) -> anyhow::Result<WorkerConfig> {
    let raw = config::load_file(path)?;
    let worker =
        WorkerConfig::from_raw(&raw, mode).inspect_err(|e| config::log_warnings(e.warnings()))?;
    config::log_warnings(worker.warnings());
    super::worker_converters::check_worker_converters(&worker, plugins)?;
    Ok(worker)
}
