//! Config providers (KIP-297, KIP-421, KIP-993): `${provider:[path:]key}` placeholders in
//! worker and connector configurations, resolved by the providers the worker configures with
//! `config.providers`. Kafka's built-in providers: [`FileConfigProvider`] (a Java properties
//! file), [`EnvVarConfigProvider`] (environment variables) and [`DirectoryConfigProvider`] (one
//! file per key). Worker values are resolved when the worker file is loaded; connector values
//! only when the connector or a task starts (and for validation); stored and shown
//! configurations keep their placeholders.

mod allowed_paths;
mod directory;
mod env;
mod file;
mod placeholder;
mod provider;
mod registry;
pub mod secrets;
mod transformer;

pub use self::allowed_paths::AllowedPaths;
pub use self::directory::DirectoryConfigProvider;
pub use self::env::EnvVarConfigProvider;
pub use self::file::FileConfigProvider;
pub use self::placeholder::{has_placeholder, only_placeholders, placeholders, Placeholder};
pub use self::provider::{ConfigProvider, ProviderError};
pub use self::registry::{
    builtin_provider_classes, ConfigProviders, CONFIG_PROVIDERS, DIRECTORY_CONFIG_PROVIDER,
    ENV_VAR_CONFIG_PROVIDER, FILE_CONFIG_PROVIDER,
};
pub use self::transformer::{reverse_transform, Redactor, Resolved};
