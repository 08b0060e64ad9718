//! From a connector's raw configuration (a file or a REST request) to a validated
//! [`ConnectorSpec`] the worker can start: plugin, converters, subscription, topic creation.

use std::sync::Arc;

use crate::config::providers::Redactor;
use crate::config::{self, ConnectorConfig, ConnectorKind, RawConfig, WorkerConfig};
use crate::plugins::{ConnectorPlugin, PluginRegistry, RegistryError};
use crate::topics::topic_creation::TopicCreation;
use crate::topics::{Subscription, TopicPattern};
use crate::worker::transform_spec::TransformChainSpec;
use crate::worker::{ConnectorSpec, ConverterConfig, TransactionBoundary};

/// Why a connector configuration cannot be started.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The configuration is invalid (every problem, with file, line and key).
    #[error("{0}")]
    Config(config::ConfigError),
    /// `connector.class` names no known connector.
    #[error("Invalid configuration in {source_label}: connector.class: {error}")]
    Plugin {
        /// The file or request.
        source_label: String,
        /// The registry's error, listing the available connectors.
        error: RegistryError,
    },
    /// Anything else, with its context.
    #[error("{0}")]
    Other(String),
}

impl SpecError {
    /// The individual problems, without file context (for REST's error list).
    pub fn problems(&self) -> Vec<String> {
        match self {
            Self::Config(e) => e.problems().iter().map(|p| p.message.clone()).collect(),
            Self::Plugin { error, .. } => vec![error.to_string()],
            Self::Other(m) => vec![m.clone()],
        }
    }
}

/// Logs the warnings and wraps every problem into one configuration error.
fn invalid(
    problems: Vec<config::ConfigProblem>,
    warnings: Vec<config::ConfigWarning>,
) -> SpecError {
    config::log_warnings(&warnings);
    SpecError::Config(config::ConfigError::Invalid { problems, warnings })
}

impl SpecError {
    /// The error with every value a config provider gave replaced by its placeholder.
    fn redacted(self, redactor: &Redactor) -> Self {
        match self {
            Self::Config(config::ConfigError::Invalid {
                mut problems,
                warnings,
            }) => {
                for p in &mut problems {
                    p.message = redactor.redact(&p.message).into_owned();
                }
                Self::Config(config::ConfigError::Invalid { problems, warnings })
            }
            Self::Other(m) => Self::Other(redactor.redact(&m).into_owned()),
            other => other,
        }
    }
}

/// Resolves and validates one connector's configuration (from a file or a REST request).
///
/// Placeholders are resolved with the worker's config providers before validation (as Kafka's
/// `AbstractHerder.validateConnectorConfig`); the spec's `props` hold the resolved values,
/// `raw_props` the configuration as given. Messages never show a resolved value.
///
/// # Errors
/// Every problem found, naming the file (or request), line and key where there is one; a
/// placeholder that cannot be resolved is a problem on its key.
pub fn connector_spec(
    raw: &RawConfig,
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Result<ConnectorSpec, SpecError> {
    let resolved = worker
        .providers()
        .resolve(raw, |_| false)
        .map_err(|problems| invalid(problems, Vec::new()))?;
    let redactor = Arc::new(resolved.redactor);
    let mut spec =
        resolved_spec(&resolved.raw, worker, plugins).map_err(|e| e.redacted(&redactor))?;
    spec.raw_props = raw.to_map();
    spec.redactor = redactor;
    Ok(spec)
}

/// The warnings [`connector_spec`] logs for `raw` (unknown, deprecated and duplicate keys,
/// remarks on the transform chain), returned instead of logged, for the offline tools. When
/// `connector.class` names no connector only the duplicate keys are given: without the
/// plugin's keys every plugin key would look unknown.
pub fn connector_warnings(raw: &RawConfig, plugins: &PluginRegistry) -> Vec<config::ConfigWarning> {
    let class = raw.get(config::CONNECTOR_CLASS_CONFIG).unwrap_or_default();
    let Ok(plugin) = plugins.connector(class) else {
        return raw.duplicate_warnings().to_vec();
    };
    let kind = match &plugin {
        ConnectorPlugin::Sink(_) => ConnectorKind::Sink,
        ConnectorPlugin::Source(_) => ConnectorKind::Source,
    };
    let mut warnings = match ConnectorConfig::validate(raw, kind, &plugin.config_def()) {
        Ok(config) => config.warnings().to_vec(),
        Err(e) => e.warnings().to_vec(),
    };
    if plugins.runs_java_connector(class) {
        warnings.retain(|w| !is_unknown_key_warning(w));
    }
    warnings.extend(TransformChainSpec::validate(raw, plugins).2);
    warnings
}

/// Whether `w` is the "was supplied but isn't a known config" warning of an unknown key.
fn is_unknown_key_warning(w: &config::ConfigWarning) -> bool {
    w.message.starts_with("The configuration '") && w.message.contains("isn't a known config")
}

/// [`connector_spec`] of a configuration whose placeholders are resolved.
fn resolved_spec(
    raw: &RawConfig,
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Result<ConnectorSpec, SpecError> {
    let file = raw.source();
    let class = raw
        .get(config::CONNECTOR_CLASS_CONFIG)
        .unwrap_or_default()
        .to_owned();
    let plugin = if class.is_empty() {
        None
    } else {
        Some(plugins.connector(&class).map_err(|e| SpecError::Plugin {
            source_label: file.display().to_string(),
            error: e,
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
    let (transforms, chain_problems, chain_warnings) = TransformChainSpec::validate(raw, plugins);
    let config = match ConnectorConfig::validate(raw, kind, &plugin_def) {
        Ok(config) if chain_problems.is_empty() => config,
        Ok(config) => {
            let mut warnings = config.warnings().to_vec();
            warnings.extend(chain_warnings);
            return Err(invalid(chain_problems, warnings));
        }
        Err(config::ConfigError::Invalid {
            mut problems,
            mut warnings,
        }) => {
            problems.extend(chain_problems);
            warnings.extend(chain_warnings);
            return Err(invalid(problems, warnings));
        }
        Err(other) => {
            config::log_warnings(other.warnings());
            return Err(SpecError::Config(other));
        }
    };
    if let Some(plugin) = &plugin {
        let problems: Vec<config::ConfigProblem> = plugin
            .validate(&raw.to_map())
            .into_iter()
            .map(|issue| config::ConfigProblem::from_issue(raw, issue))
            .collect();
        if !problems.is_empty() {
            let mut warnings = config.warnings().to_vec();
            warnings.extend(chain_warnings);
            return Err(invalid(problems, warnings));
        }
    }
    if let Some(ConnectorPlugin::Source(source)) = &plugin {
        let problems = super::exactly_once_preflight::problems(raw, worker, source.as_ref());
        if !problems.is_empty() {
            let mut warnings = config.warnings().to_vec();
            warnings.extend(chain_warnings);
            return Err(invalid(problems, warnings));
        }
    }
    if plugins.runs_java_connector(&class) {
        // A Java connector's own keys are defined by its Java ConfigDef, not known here.
        let warnings: Vec<_> = (config.warnings().iter())
            .filter(|w| !is_unknown_key_warning(w))
            .cloned()
            .collect();
        config::log_warnings(&warnings);
    } else {
        config::log_warnings(config.warnings());
    }
    config::log_warnings(&chain_warnings);
    let Some(plugin) = plugin else {
        // validate() reports the missing connector.class; this is unreachable in practice.
        return Err(SpecError::Other(format!(
            "Missing connector.class in {}",
            file.display()
        )));
    };
    let converter = |key: &str, worker_class: &str| {
        let prefix = format!("{key}.");
        match config.values().string(key) {
            Some(class) => ConverterConfig {
                class: class.to_owned(),
                props: config.values().originals_with_prefix(&prefix),
                version: config
                    .values()
                    .string(&config::plugin_version_key(key))
                    .map(str::to_owned),
            },
            None => ConverterConfig {
                class: worker_class.to_owned(),
                props: worker.originals_with_prefix(&prefix),
                version: worker
                    .originals_with_prefix(&prefix)
                    .get("plugin.version")
                    .cloned(),
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
                Some(pattern) => {
                    Subscription::Pattern(TopicPattern::new(pattern).map_err(|e| {
                        SpecError::Other(format!("Invalid topics.regex in {}: {e}", file.display()))
                    })?)
                }
                None => Subscription::Topics(config.values().list("topics").to_vec()),
            },
        ),
        ConnectorKind::Source => None,
    };
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
        errors: crate::worker::tolerance::ErrorPolicy::from_config(&config, kind),
        subscription,
        transforms: Arc::new(transforms),
        topic_creation: match kind {
            ConnectorKind::Source if worker.topic_creation_enable() => {
                TopicCreation::from_connector(&raw.to_map())
                    .map_err(|e| {
                        SpecError::Other(format!(
                            "Invalid configuration in {}: {e}",
                            file.display()
                        ))
                    })?
                    .map(Arc::new)
            }
            _ => None,
        },
        transaction_boundary: TransactionBoundary::from_config(
            config.transaction_boundary(),
            config
                .values()
                .long("transaction.boundary.interval.ms")
                .and_then(|ms| u64::try_from(ms).ok())
                .map_or_else(
                    || worker.offset_flush_interval(),
                    std::time::Duration::from_millis,
                ),
        ),
        producer_overrides: config.values().originals_with_prefix("producer.override."),
        consumer_overrides: config.values().originals_with_prefix("consumer.override."),
        admin_overrides: config.values().originals_with_prefix("admin.override."),
        props: raw.to_map(),
        raw_props: raw.to_map(),
        providers: worker.providers().clone(),
        redactor: Arc::default(),
        plugin,
    })
}

/// Creates and configures each converter once, so that a wrong class or setting is reported
/// before anything starts, naming the file (connector's or worker's) and the key.
fn check_converters(
    file: &std::path::Path,
    worker: &WorkerConfig,
    config: &ConnectorConfig,
    plugins: &PluginRegistry,
    [key, value, header]: [&ConverterConfig; 3],
) -> Result<(), SpecError> {
    // Where `name` was set: the connector file, else the worker file (inherited converters).
    let origin = |name: &str| {
        config
            .raw()
            .origin(name)
            .or_else(|| worker.origin(name))
            .map(ToString::to_string)
    };
    // A converter setting's problem is on its own line; the class's otherwise.
    let describe = |class_key: &str, (key, message): (String, String)| {
        let at = origin(&key)
            .or_else(|| origin(class_key))
            .unwrap_or_else(|| worker.raw().source().display().to_string());
        format!("  {at}: {key}: {message}")
    };
    let mut problems = Vec::new();
    for (name, conv, is_key) in [
        ("key.converter", key, true),
        ("value.converter", value, false),
    ] {
        let version = conv.version.as_deref();
        let error = match plugins.versioned_converter(&conv.class, version) {
            Err(e) => Some((name.to_owned(), e.to_string())),
            // A Java converter is configured by its tasks when run outside the worker's runtime.
            Ok(_)
                if plugins.converter_is_java(&conv.class, version)
                    && !crate::plugin_host::smt::can_run_here() =>
            {
                None
            }
            Ok(mut c) => c
                .configure(&conv.props, is_key)
                .err()
                .map(|e| config::converter_error(name, &e)),
        };
        problems.extend(error.map(|e| describe(name, e)));
    }
    let name = "header.converter";
    let error = match plugins.versioned_header_converter(&header.class, header.version.as_deref()) {
        Err(e) => Some((name.to_owned(), e.to_string())),
        Ok(mut c) => c
            .configure(&header.props)
            .err()
            .map(|e| config::converter_error(name, &e)),
    };
    problems.extend(error.map(|e| describe(name, e)));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(SpecError::Other(format!(
            "Invalid converter configuration for the connector in {}:\n{}",
            file.display(),
            problems.join("\n")
        )))
    }
}
