//! The validation of a Java connector's configuration before it is created or replaced, as
//! Kafka Connect's `AbstractHerder.validateConnectorConfig` runs before every
//! `putConnectorConfig`: the connector's own `validate` (its keys, often I/O such as a
//! database connection) answers in the plugin host, so callers outside the herder's actor
//! await it here. Built-in connectors are validated by the herder itself
//! (`herder::spec::connector_spec`, pure and synchronous).

use connect_api::ConfigMap;

use super::{validate_config, ConfigInfos, ValidateError};
use crate::config::providers::ConfigProviders;
use crate::config::{CONNECTOR_CLASS_CONFIG, CONNECTOR_VERSION};
use crate::plugins::{PluginChoice, PluginRegistry};

/// Why a Java connector's configuration may not be written.
#[derive(Debug, thiserror::Error)]
pub enum RefusedConfig {
    /// The configuration has errors: Kafka Connect's message listing every one (REST 400).
    #[error("{0}")]
    Invalid(String),
    /// It could not be validated (the plugin host could not answer: REST 500).
    #[error(transparent)]
    NotValidated(ValidateError),
}

/// Checks `config` when its `connector.class` (and `connector.plugin.version`) choose a Java
/// connector; any other configuration passes untouched (the herder validates it).
///
/// # Errors
/// [`RefusedConfig::Invalid`] with Kafka Connect's "Connector configuration is invalid and
/// contains the following N error(s)" message when validation found errors;
/// [`RefusedConfig::NotValidated`] when the plugin host could not validate it.
pub async fn check_java_connector(
    plugins: &PluginRegistry,
    worker_converters: &[String; 3],
    providers: &ConfigProviders,
    config: &ConfigMap,
) -> Result<(), RefusedConfig> {
    let Some(class) = config.get(CONNECTOR_CLASS_CONFIG) else {
        return Ok(());
    };
    let version = config.get(CONNECTOR_VERSION).map(String::as_str);
    if !matches!(
        plugins.choose_connector(class, version),
        Ok(PluginChoice::Java(_))
    ) {
        return Ok(());
    }
    let props: Vec<(String, Option<String>)> = config
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect();
    let infos = validate_config(plugins, worker_converters, providers, class, &props)
        .await
        .map_err(RefusedConfig::NotValidated)?;
    match invalid_config_message(&infos) {
        Some(message) => Err(RefusedConfig::Invalid(message)),
        None => Ok(()),
    }
}

/// Kafka Connect's message for a validation answer with errors (`maybeAddConfigErrors`):
/// every error on a line of its own; `None` without errors.
pub fn invalid_config_message(infos: &ConfigInfos) -> Option<String> {
    let errors: Vec<&str> = infos
        .configs
        .iter()
        .filter_map(|c| c.value.as_ref())
        .flat_map(|v| v.errors.iter().map(String::as_str))
        .collect();
    (!errors.is_empty()).then(|| invalid_config_text(&errors))
}

/// Kafka Connect's message for a configuration with `problems`: their count, then each on a
/// line of its own, then where to find them.
pub fn invalid_config_text(problems: &[impl AsRef<str>]) -> String {
    let mut message = format!(
        "Connector configuration is invalid and contains the following {} error(s):",
        problems.len()
    );
    for problem in problems {
        message.push('\n');
        message.push_str(problem.as_ref());
    }
    message.push_str(
        "\nYou can also find the above list of errors at the endpoint \
         `/connector-plugins/{connectorType}/config/validate`",
    );
    message
}
