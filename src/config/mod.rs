//! Configuration: raw parsing of `.properties`, JSON and TOML files into a [`RawConfig`] that
//! remembers file and line of every key, then typed, validated worker and connector
//! configurations built on `connect_api::ConfigDef`. Every problem is reported at once, with
//! file, line and key ([`ConfigError`]); unknown keys are only warnings ([`ConfigWarning`]).

mod connector;
mod error;
mod json;
mod load;
mod origin;
pub mod plugin_keys;
mod properties;
pub mod providers;
mod raw;
mod toml;
mod validate;
mod worker;
mod worker_def;

pub use self::connector::{
    common_connector_def, connector_def, plugin_version_key, sink_connector_def,
    source_connector_def, validate as validate_connector, ConnectorConfig, ConnectorKind,
    ErrorTolerance, CONNECTOR_CLASS_CONFIG, CONNECTOR_VERSION, SOURCE_DLQ_KEYS,
};
pub use self::error::{format_problems, log_warnings, ConfigError, ConfigProblem, ConfigWarning};
pub use self::json::{parse_json, InitialState, JsonConfig};
pub use self::load::{load_file, load_file_with_warnings, parse_file_bytes, FileFormat};
pub use self::origin::Origin;
pub use self::plugin_keys::{PluginDiscovery, VersionDefault};
pub use self::properties::parse_properties;
pub use self::raw::{RawConfig, RawEntry};
pub use self::toml::parse_toml;
pub use self::validate::{converter_error, has_known_prefix, with_full_key, KNOWN_PREFIXES};
pub use self::worker::{WorkerConfig, WorkerMode};
pub use self::worker_def::{
    common_worker_def, distributed_worker_def, standalone_worker_def, worker_def,
    DEFAULT_EMBEDDED_LOG_DIR, DEFAULT_HEADER_CONVERTER, DEFAULT_OFFSETS_FILE_NAME,
    DEFAULT_PLUGIN_HOST_JVM_OPTIONS,
};
