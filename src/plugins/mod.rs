//! The plugin registry: Java class names and derived aliases → implementations (built in, or
//! Java ones found on `plugin.path`), with Kafka Connect's version rules. The one explicit list
//! of built-in plugins is in [`builtin`].

pub mod builtin;
pub mod info;
pub mod java_desc;
pub mod limit;
pub mod registry;
pub mod version;

pub use info::{plugin_infos, PluginInfo};
pub use java_desc::{JavaPluginDesc, JavaPluginKind};
pub use registry::{
    ChoiceError, ConnectorPlugin, Implementation, PluginChoice, PluginRegistry, Refusal,
    RegistryError, Unavailable, VersionDefault,
};
