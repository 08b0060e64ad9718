//! Java connectors of command-line connector files validated by their plugin before anything
//! starts, as Kafka Connect's standalone worker validates each connector before creating it
//! (`validateConnectorConfig`): a connector file with an invalid value stops the start with
//! exit 3, naming the file, with Kafka's message. (A watched file's later edits are checked
//! the same way by [`super::reconcile`], which refuses an invalid one.)

use anyhow::anyhow;

use super::ValidFile;
use crate::commands::{CommandError, EXIT_CONNECTOR};
use crate::config::WorkerConfig;
use crate::herder::validate::before_write::{check_java_connector, RefusedConfig};
use crate::plugins::PluginRegistry;

/// Checks the Java connectors of `files` with their plugins (built-in ones were checked when
/// the files were read).
///
/// # Errors
/// Exit 3 with every file's problems.
pub async fn check_java_connectors(
    files: &[ValidFile],
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Result<(), CommandError> {
    let converters = worker.converter_classes();
    let mut problems = Vec::new();
    for file in files {
        let checked = check_java_connector(
            plugins,
            &converters,
            worker.providers(),
            &file.spec.raw_props,
        )
        .await;
        match checked {
            Ok(()) => {}
            Err(RefusedConfig::Invalid(message)) => {
                problems.push(format!("  {}: {message}", file.path.display()));
            }
            Err(RefusedConfig::NotValidated(e)) => problems.push(format!(
                "  {}: the connector's plugin could not validate it: {e}",
                file.path.display()
            )),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CommandError::new(
            EXIT_CONNECTOR,
            anyhow!("Invalid connector configuration:\n{}", problems.join("\n")),
        ))
    }
}
