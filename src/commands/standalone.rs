//! `connect-rs standalone`: Kafka Connect's standalone worker. Validates every file before
//! anything starts, opens the embedded log and the offsets file, starts the connectors, and runs
//! until a signal (or `--exit-when-idle`), then stops gracefully.

use std::path::Path;
use std::sync::Arc;

use anyhow::{anyhow, Context};
use tracing::{info, warn};

use super::{CommandError, EXIT_CONNECTOR, EXIT_STARTUP, EXIT_TASK_FAILED};
use crate::cli::StandaloneArgs;
use crate::config::{self, ConnectorConfig, ConnectorKind, WorkerConfig, WorkerMode};
use crate::plugins::{ConnectorPlugin, PluginRegistry};
use crate::storage::FileOffsetStore;
use crate::topics::kafka::KafkaBackend;
use crate::topics::local::LocalLog;
use crate::topics::topic_creation::TopicCreation;
use crate::topics::{Subscription, TopicBackend};
use crate::worker::{ConnectorSpec, ConverterConfig, Worker, WorkerSettings};

/// Runs `standalone`.
///
/// # Errors
/// Start-up failures (exit 2), connector creation failures (exit 3), and, with
/// `--exit-when-idle`, failed tasks (exit 4).
pub async fn run(args: StandaloneArgs) -> Result<(), CommandError> {
    let startup = |e: anyhow::Error| CommandError::new(EXIT_STARTUP, e);
    let worker_config = load_worker(&args.worker_file).map_err(startup)?;
    let plugins = Arc::new(PluginRegistry::builtin());
    // Validate every connector before anything starts.
    let mut specs = Vec::new();
    let mut problems = Vec::new();
    for file in &args.connector_files {
        match connector_spec(file, &worker_config, &plugins) {
            Ok(spec) => specs.push(spec),
            Err(e) => problems.push(format!("{e:#}")),
        }
    }
    if !problems.is_empty() {
        return Err(CommandError::new(
            EXIT_CONNECTOR,
            anyhow!(problems.join("\n")),
        ));
    }

    let topics = open_topics(&worker_config).map_err(startup)?;
    let offsets_path = worker_config.offset_storage_file();
    let offsets = FileOffsetStore::open(&offsets_path).map_err(|e| startup(e.into()))?;
    info!(offsets = %offsets_path.display(), "Standalone worker started.");

    let settings = WorkerSettings {
        offset_flush_interval: worker_config.offset_flush_interval(),
        offset_flush_timeout: worker_config.offset_flush_timeout(),
        graceful_shutdown_timeout: worker_config.task_shutdown_graceful_timeout(),
    };
    let mut worker = Worker::new(settings, plugins, Arc::new(offsets), topics.backend());
    for spec in specs {
        if let Err(e) = worker.start_connector(spec).await {
            worker.stop().await;
            topics.close().await;
            return Err(CommandError::new(EXIT_CONNECTOR, e));
        }
    }

    let stopped_by = tokio::select! {
        r = crate::shutdown::first_signal() => {
            r.context("Could not install signal handlers").map_err(startup)?;
            "signal"
        }
        () = idle(&worker, args.exit_when_idle) => "idle",
    };
    info!(reason = stopped_by, "Stopping the worker.");
    let report = worker.stop().await;
    topics.close().await;
    if stopped_by == "idle" && !report.failed.is_empty() {
        return Err(CommandError::new(
            EXIT_TASK_FAILED,
            anyhow!(
                "Tasks failed: {} (see the log above)",
                report.failed.join(", ")
            ),
        ));
    }
    info!("Worker stopped.");
    Ok(())
}

/// Where the worker's topics live.
enum Topics {
    /// The embedded log (no `bootstrap.servers`).
    Local(Arc<LocalLog>),
    /// A Kafka cluster.
    Kafka(Arc<KafkaBackend>),
}

impl Topics {
    fn backend(&self) -> Arc<dyn TopicBackend> {
        match self {
            Self::Local(log) => log.clone(),
            Self::Kafka(kafka) => kafka.clone(),
        }
    }

    async fn close(&self) {
        if let Self::Local(log) = self {
            log.close().await;
        }
    }
}

fn open_topics(worker: &WorkerConfig) -> anyhow::Result<Topics> {
    if let Some(servers) = worker.bootstrap_servers() {
        info!(bootstrap.servers = %servers.join(","), "Topics live in Kafka.");
        return Ok(Topics::Kafka(Arc::new(KafkaBackend::new(
            servers,
            worker.originals_with_prefix("producer."),
            worker.originals_with_prefix("consumer."),
        ))));
    }
    let dir = worker.embedded_log_dir();
    let log = LocalLog::open(&dir, worker.num_partitions())
        .with_context(|| format!("Could not open the embedded log in {}", dir.display()))?;
    info!(dir = %dir.display(), "Topics live in the embedded log.");
    Ok(Topics::Local(log))
}

async fn idle(worker: &Worker, exit_when_idle: Option<std::time::Duration>) {
    match exit_when_idle {
        Some(d) => worker.idle_for(d).await,
        None => std::future::pending().await,
    }
}

fn load_worker(path: &Path) -> anyhow::Result<WorkerConfig> {
    let raw = config::load_file(path)?;
    let worker = WorkerConfig::from_raw(&raw, WorkerMode::Standalone)
        .inspect_err(|e| config::log_warnings(e.warnings()))?;
    config::log_warnings(worker.warnings());
    Ok(worker)
}

/// Loads, resolves and validates one connector file.
fn connector_spec(
    file: &Path,
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> anyhow::Result<ConnectorSpec> {
    let raw = config::load_file(file)?;
    let class = raw.get("connector.class").unwrap_or_default().to_owned();
    let plugin = if class.is_empty() {
        None
    } else {
        Some(plugins.connector(&class).with_context(|| {
            format!(
                "Invalid configuration in {}: connector.class",
                file.display()
            )
        })?)
    };
    let kind = match &plugin {
        Some(ConnectorPlugin::Sink(_)) => ConnectorKind::Sink,
        _ => ConnectorKind::Source,
    };
    let plugin_def = plugin
        .as_ref()
        .map(ConnectorPlugin::config_def)
        .unwrap_or_default();
    let config = ConnectorConfig::validate(&raw, kind, &plugin_def)
        .inspect_err(|e| config::log_warnings(e.warnings()))?;
    config::log_warnings(config.warnings());
    let Some(plugin) = plugin else {
        // validate() reports the missing connector.class; this is unreachable in practice.
        return Err(anyhow!("Missing connector.class in {}", file.display()));
    };
    let converter = |key: &str, worker_class: &str| {
        let prefix = format!("{key}.");
        match config.values().string(key) {
            Some(class) => ConverterConfig {
                class: class.to_owned(),
                props: config.values().originals_with_prefix(&prefix),
            },
            None => ConverterConfig {
                class: worker_class.to_owned(),
                props: worker.originals_with_prefix(&prefix),
            },
        }
    };
    let subscription = match kind {
        ConnectorKind::Sink => Some(
            match config
                .values()
                .string("topics.regex")
                .filter(|r| !r.is_empty())
            {
                Some(pattern) => Subscription::Pattern(
                    regex::Regex::new(&format!("^(?:{pattern})$"))
                        .with_context(|| format!("Invalid topics.regex in {}", file.display()))?,
                ),
                None => Subscription::Topics(config.values().list("topics").to_vec()),
            },
        ),
        ConnectorKind::Source => None,
    };
    if config.values().string("errors.tolerance") == Some("all") {
        warn!(connector = %config.name(), "errors.tolerance=all: records that fail conversion are skipped and logged.");
    }
    let key_converter = converter("key.converter", worker.key_converter_class());
    let value_converter = converter("value.converter", worker.value_converter_class());
    let header_converter = converter("header.converter", worker.header_converter_class());
    check_converters(
        file,
        worker,
        &config,
        plugins,
        [&key_converter, &value_converter, &header_converter],
    )?;
    Ok(ConnectorSpec {
        name: config.name().to_owned(),
        tasks_max: usize::try_from(config.values().int("tasks.max").unwrap_or(1)).unwrap_or(1),
        key_converter,
        value_converter,
        header_converter,
        tolerate_errors: config
            .values()
            .string("errors.tolerance")
            .is_some_and(|t| t.eq_ignore_ascii_case("all")),
        subscription,
        topic_creation: match kind {
            ConnectorKind::Source if worker.topic_creation_enable() => {
                TopicCreation::from_connector(&raw.to_map())
                    .map_err(|e| anyhow!("Invalid configuration in {}: {e}", file.display()))?
                    .map(Arc::new)
            }
            _ => None,
        },
        producer_overrides: config.values().originals_with_prefix("producer.override."),
        consumer_overrides: config.values().originals_with_prefix("consumer.override."),
        props: raw.to_map(),
        plugin,
    })
}

/// Creates and configures each converter once, so that a wrong class or setting is reported
/// before anything starts, naming the file (connector's or worker's) and the key.
fn check_converters(
    file: &Path,
    worker: &WorkerConfig,
    config: &ConnectorConfig,
    plugins: &PluginRegistry,
    [key, value, header]: [&ConverterConfig; 3],
) -> anyhow::Result<()> {
    let origin = |name: &str| match config.raw().origin(name) {
        Some(o) => o.to_string(),
        None => worker.origin(name).map_or_else(
            || worker.raw().source().display().to_string(),
            ToString::to_string,
        ),
    };
    let mut problems = Vec::new();
    for (name, conv, is_key) in [
        ("key.converter", key, true),
        ("value.converter", value, false),
    ] {
        let result = plugins
            .converter(&conv.class)
            .map_err(anyhow::Error::from)
            .and_then(|mut c| {
                c.configure(&conv.props, is_key)
                    .map_err(anyhow::Error::from)
            });
        if let Err(e) = result {
            problems.push(format!("  {}: {name}: {e}", origin(name)));
        }
    }
    let result = plugins
        .header_converter(&header.class)
        .map_err(anyhow::Error::from)
        .and_then(|mut c| c.configure(&header.props).map_err(anyhow::Error::from));
    if let Err(e) = result {
        problems.push(format!(
            "  {}: header.converter: {e}",
            origin("header.converter")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(anyhow!(
            "Invalid converter configuration for the connector in {}:\n{}",
            file.display(),
            problems.join("\n")
        ))
    }
}
