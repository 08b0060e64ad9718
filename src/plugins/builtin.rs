//! The one explicit list of built-in plugins.

use std::sync::Arc;

use super::registry::PluginRegistry;

/// A registry holding every plugin compiled into this binary.
pub fn registry() -> PluginRegistry {
    PluginRegistry::new(
        vec![
            Arc::new(connect_file::FileStreamSourcePlugin),
            Arc::new(connect_jdbc::JdbcSourcePlugin),
        ],
        vec![
            Arc::new(connect_file::FileStreamSinkPlugin),
            Arc::new(connect_jdbc::sink::JdbcSinkPlugin),
        ],
        crate::converters::builtin_converters(),
        crate::transforms::builtin_transformations(),
        crate::transforms::builtin_predicates(),
    )
}
