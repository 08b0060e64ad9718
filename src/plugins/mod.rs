//! The plugin registry: Java class names and derived aliases → factories. The one explicit list
//! of built-in plugins is in [`builtin`].

pub mod builtin;
pub mod info;
pub mod limit;
pub mod registry;
pub mod version;

pub use info::{plugin_infos, PluginInfo};
pub use registry::{ConnectorPlugin, PluginRegistry, Refusal, RegistryError};
