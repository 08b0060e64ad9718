//! The worker's `key.converter`, `value.converter` and `header.converter` are created and
//! configured once at start-up, so that a wrong class or setting is a start-up failure blamed
//! on the worker file, even when no connector (which would inherit them) is given yet.

use crate::config::{ConfigError, ConfigProblem, WorkerConfig};
use crate::plugins::PluginRegistry;

/// Checks the worker's three converters.
///
/// # Errors
/// [`ConfigError::Invalid`] with one problem per bad converter, each with the worker file,
/// line and key.
pub fn check_worker_converters(
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Result<(), ConfigError> {
    let mut problems = Vec::new();
    for (key, class, is_key) in [
        ("key.converter", worker.key_converter_class(), true),
        ("value.converter", worker.value_converter_class(), false),
    ] {
        let props = worker.originals_with_prefix(&format!("{key}."));
        let result = plugins
            .converter(class)
            .map_err(|e| e.to_string())
            .and_then(|mut c| c.configure(&props, is_key).map_err(|e| e.to_string()));
        if let Err(e) = result {
            problems.push(ConfigProblem::for_key(
                worker.raw().origin_or_source(key),
                key,
                e,
            ));
        }
    }
    let key = "header.converter";
    let props = worker.originals_with_prefix("header.converter.");
    let result = plugins
        .header_converter(worker.header_converter_class())
        .map_err(|e| e.to_string())
        .and_then(|mut c| c.configure(&props).map_err(|e| e.to_string()));
    if let Err(e) = result {
        problems.push(ConfigProblem::for_key(
            worker.raw().origin_or_source(key),
            key,
            e,
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::invalid(problems))
    }
}
