//! The worker's `key.converter`, `value.converter` and `header.converter` are created and
//! configured once at start-up, so that a wrong class or setting is a start-up failure blamed
//! on the worker file, even when no connector (which would inherit them) is given yet.

use crate::config::{converter_error, ConfigError, ConfigProblem, WorkerConfig};
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
    let raw = worker.raw();
    // A converter setting's problem is on its own line; the class's otherwise.
    let problem = |class_key: &str, (key, message): (String, String)| {
        let origin = raw
            .origin(&key)
            .cloned()
            .unwrap_or_else(|| raw.origin_or_source(class_key));
        ConfigProblem::for_key(origin, key, message)
    };
    let mut problems = Vec::new();
    for (key, class, is_key) in [
        ("key.converter", worker.key_converter_class(), true),
        ("value.converter", worker.value_converter_class(), false),
    ] {
        let props = worker.originals_with_prefix(&format!("{key}."));
        let error = match plugins.converter(class) {
            Err(e) => Some((key.to_owned(), e.to_string())),
            // A Java converter is configured by its tasks when run outside the worker's runtime.
            Ok(_)
                if plugins.converter_is_java(class, None)
                    && !crate::plugin_host::smt::can_run_here() =>
            {
                None
            }
            Ok(mut c) => c
                .configure(&props, is_key)
                .err()
                .map(|e| converter_error(key, &e)),
        };
        problems.extend(error.map(|e| problem(key, e)));
    }
    let key = "header.converter";
    let props = worker.originals_with_prefix("header.converter.");
    let error = match plugins.header_converter(worker.header_converter_class()) {
        Err(e) => Some((key.to_owned(), e.to_string())),
        Ok(mut c) => c.configure(&props).err().map(|e| converter_error(key, &e)),
    };
    problems.extend(error.map(|e| problem(key, e)));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::invalid(problems))
    }
}
