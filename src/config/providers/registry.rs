//! The worker's configured providers: `config.providers=<names>`,
//! `config.providers.<name>.class` (Kafka's class name or one of its aliases) and
//! `config.providers.<name>.param.<p>`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::allowed_paths::AllowedPaths;
use super::directory::DirectoryConfigProvider;
use super::env::EnvVarConfigProvider;
use super::file::FileConfigProvider;
use super::provider::ConfigProvider;
use crate::config::{ConfigProblem, ConfigWarning, RawConfig};

/// The worker key listing the provider names.
pub const CONFIG_PROVIDERS: &str = "config.providers";

/// Kafka's `FileConfigProvider`.
pub const FILE_CONFIG_PROVIDER: &str = "org.apache.kafka.common.config.provider.FileConfigProvider";
/// Kafka's `EnvVarConfigProvider`.
pub const ENV_VAR_CONFIG_PROVIDER: &str =
    "org.apache.kafka.common.config.provider.EnvVarConfigProvider";
/// Kafka's `DirectoryConfigProvider`.
pub const DIRECTORY_CONFIG_PROVIDER: &str =
    "org.apache.kafka.common.config.provider.DirectoryConfigProvider";

/// The built-in provider classes and the parameters each one takes.
const CLASSES: [(&str, &[&str]); 3] = [
    (FILE_CONFIG_PROVIDER, &["allowed.paths"]),
    (ENV_VAR_CONFIG_PROVIDER, &["allowlist.pattern"]),
    (DIRECTORY_CONFIG_PROVIDER, &["allowed.paths"]),
];

/// The class `name` stands for: the class name, its simple name, or the simple name without
/// `ConfigProvider` (Kafka's plugin aliases: `FileConfigProvider`, `File`).
fn class_of(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    CLASSES.iter().copied().find(|(class, _)| {
        let simple = class.rsplit('.').next().unwrap_or(class);
        let short = simple.strip_suffix("ConfigProvider").unwrap_or(simple);
        name == *class || name == simple || name == short
    })
}

/// The built-in provider classes, each with its aliases (simple name, and simple name without
/// `ConfigProvider`), in class-name order.
pub fn builtin_provider_classes() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut out: Vec<_> = CLASSES
        .iter()
        .map(|(class, _)| {
            let simple = class.rsplit('.').next().unwrap_or(class);
            let mut aliases = vec![simple];
            if let Some(short) = simple.strip_suffix("ConfigProvider") {
                aliases.push(short);
            }
            (*class, aliases)
        })
        .collect();
    out.sort_unstable();
    out
}

/// The providers a worker configured, by name.
#[derive(Clone, Default)]
pub struct ConfigProviders {
    providers: BTreeMap<String, Arc<dyn ConfigProvider>>,
}

impl fmt::Debug for ConfigProviders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.providers.keys()).finish()
    }
}

/// Equal when the same names are configured (providers have no other identity).
impl PartialEq for ConfigProviders {
    fn eq(&self, other: &Self) -> bool {
        self.providers.keys().eq(other.providers.keys())
    }
}

impl Eq for ConfigProviders {}

impl ConfigProviders {
    /// No providers: any placeholder is an error.
    pub fn none() -> Self {
        Self::default()
    }

    /// These providers (tests, embedding).
    pub fn with(providers: impl IntoIterator<Item = (String, Arc<dyn ConfigProvider>)>) -> Self {
        Self {
            providers: providers.into_iter().collect(),
        }
    }

    /// The providers configured by the `config.providers*` keys of the worker file `raw`,
    /// with every problem (a listed provider without a known class, a bad parameter value) and
    /// warnings for keys that do nothing (unknown parameters, unlisted providers).
    pub fn from_worker(raw: &RawConfig) -> (Self, Vec<ConfigProblem>, Vec<ConfigWarning>) {
        let mut problems = Vec::new();
        let mut warnings = Vec::new();
        let mut providers = BTreeMap::new();
        let names: Vec<String> = raw
            .get(CONFIG_PROVIDERS)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        for name in &names {
            let class_key = format!("{CONFIG_PROVIDERS}.{name}.class");
            let Some(class) = raw.get(&class_key).map(str::trim) else {
                problems.push(ConfigProblem::for_key(
                    raw.origin_or_source(&class_key),
                    &class_key,
                    format!(
                        "Missing required configuration \"{class_key}\" which has no default value \
                         (config provider '{name}' is listed in {CONFIG_PROVIDERS})."
                    ),
                ));
                continue;
            };
            let Some((class, known_params)) = class_of(class) else {
                problems.push(ConfigProblem::for_key(
                    raw.origin_or_source(&class_key),
                    &class_key,
                    format!(
                        "Invalid value {class} for configuration {class_key}: Failed to find any \
                         class that implements ConfigProvider and which name matches {class}, \
                         available ConfigProviders are: {}",
                        CLASSES.map(|(c, _)| c).join(", ")
                    ),
                ));
                continue;
            };
            let prefix = format!("{CONFIG_PROVIDERS}.{name}.param.");
            let param = |p: &str| raw.get(&format!("{prefix}{p}"));
            for (key, entry) in raw.iter() {
                if let Some(p) = key.strip_prefix(&prefix) {
                    if !known_params.contains(&p) {
                        warnings.push(ConfigWarning {
                            origin: entry.origin.clone(),
                            key: key.to_owned(),
                            message: format!(
                                "'{p}' is not a parameter of {class} (known: {}); it is ignored.",
                                known_params.join(", ")
                            ),
                        });
                    }
                }
            }
            let bad_param = |p: &str, reason: String| {
                let key = format!("{prefix}{p}");
                ConfigProblem::for_key(
                    raw.origin_or_source(&key),
                    &key,
                    format!(
                        "Invalid value {} for configuration {key}: {reason}",
                        param(p).unwrap_or_default()
                    ),
                )
            };
            let provider: Result<Arc<dyn ConfigProvider>, ConfigProblem> = match class {
                ENV_VAR_CONFIG_PROVIDER => {
                    EnvVarConfigProvider::from_env(param("allowlist.pattern"))
                        .map(|p| Arc::new(p) as Arc<dyn ConfigProvider>)
                        .map_err(|e| bad_param("allowlist.pattern", e))
                }
                _ => AllowedPaths::parse(param("allowed.paths"))
                    .map(|allowed| -> Arc<dyn ConfigProvider> {
                        if class == FILE_CONFIG_PROVIDER {
                            Arc::new(FileConfigProvider::new(allowed))
                        } else {
                            Arc::new(DirectoryConfigProvider::new(allowed))
                        }
                    })
                    .map_err(|e| bad_param("allowed.paths", e)),
            };
            match provider {
                Ok(p) => {
                    providers.insert(name.clone(), p);
                }
                Err(problem) => problems.push(problem),
            }
        }
        // Keys of providers that are not listed, and keys that are neither class nor param.
        let prefix = format!("{CONFIG_PROVIDERS}.");
        for (key, entry) in raw.iter() {
            let Some(rest) = key.strip_prefix(&prefix) else {
                continue;
            };
            let listed = names.iter().find(|n| {
                rest.strip_prefix(n.as_str())
                    .is_some_and(|r| r == ".class" || r.starts_with(".param."))
            });
            if listed.is_none() {
                warnings.push(ConfigWarning {
                    origin: entry.origin.clone(),
                    key: key.to_owned(),
                    message: format!(
                        "Ignored: no config provider listed in {CONFIG_PROVIDERS} uses it \
                         (keys are {CONFIG_PROVIDERS}.<name>.class and \
                         {CONFIG_PROVIDERS}.<name>.param.<parameter>)."
                    ),
                });
            }
        }
        (Self { providers }, problems, warnings)
    }

    /// The provider called `name`.
    pub fn get(&self, name: &str) -> Option<&dyn ConfigProvider> {
        self.providers.get(name).map(AsRef::as_ref)
    }

    /// The configured names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.providers.keys().map(String::as_str)
    }

    /// Whether no provider is configured.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(pairs: &[(&str, &str)]) -> RawConfig {
        let mut raw = RawConfig::new("worker.properties");
        for (i, (k, v)) in pairs.iter().enumerate() {
            raw.insert(*k, *v, Some(i + 1));
        }
        raw
    }

    #[test]
    fn class_names_and_aliases() {
        for name in [FILE_CONFIG_PROVIDER, "FileConfigProvider", "File"] {
            assert_eq!(
                class_of(name).map(|c| c.0),
                Some(FILE_CONFIG_PROVIDER),
                "{name}"
            );
        }
        assert_eq!(
            class_of("EnvVar").map(|c| c.0),
            Some(ENV_VAR_CONFIG_PROVIDER)
        );
        assert_eq!(
            class_of("DirectoryConfigProvider").map(|c| c.0),
            Some(DIRECTORY_CONFIG_PROVIDER)
        );
        assert!(class_of("Env").is_none());
        assert!(class_of("ConfigProvider").is_none());
    }

    #[test]
    fn listed_providers_are_built() {
        let (p, problems, warnings) = ConfigProviders::from_worker(&worker(&[
            ("config.providers", "file, env,dir"),
            ("config.providers.file.class", FILE_CONFIG_PROVIDER),
            ("config.providers.env.class", "EnvVarConfigProvider"),
            ("config.providers.env.param.allowlist.pattern", "APP_.*"),
            ("config.providers.dir.class", "Directory"),
        ]));
        assert!(problems.is_empty(), "{problems:?}");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(p.names().collect::<Vec<_>>(), ["dir", "env", "file"]);
    }

    #[test]
    fn unknown_class_and_missing_class_are_problems_naming_the_key() {
        let (p, problems, _) = ConfigProviders::from_worker(&worker(&[
            ("config.providers", "vault,file"),
            (
                "config.providers.vault.class",
                "com.example.VaultConfigProvider",
            ),
        ]));
        assert!(p.is_empty());
        assert_eq!(problems.len(), 2);
        assert_eq!(
            problems[0].key.as_deref(),
            Some("config.providers.vault.class")
        );
        assert_eq!(problems[0].origin.line, Some(2));
        assert!(problems[0].message.starts_with(
            "Invalid value com.example.VaultConfigProvider for configuration config.providers.vault.class: Failed to find any class"
        ));
        assert!(problems[0].message.contains(FILE_CONFIG_PROVIDER));
        assert_eq!(
            problems[1].key.as_deref(),
            Some("config.providers.file.class")
        );
        assert!(problems[1]
            .message
            .starts_with("Missing required configuration"));
    }

    #[test]
    fn bad_parameters_are_problems_and_unknown_ones_warnings() {
        let (_, problems, warnings) = ConfigProviders::from_worker(&worker(&[
            ("config.providers", "file,env"),
            ("config.providers.file.class", "File"),
            ("config.providers.file.param.allowed.paths", "relative"),
            ("config.providers.file.param.allowlist.pattern", "x"),
            ("config.providers.env.class", "EnvVar"),
            ("config.providers.env.param.allowlist.pattern", "("),
            ("config.providers.other.class", "File"),
        ]));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(
            problems[0].message,
            "Invalid value relative for configuration config.providers.file.param.allowed.paths: Path relative is not absolute"
        );
        assert_eq!(
            problems[1].key.as_deref(),
            Some("config.providers.env.param.allowlist.pattern")
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(
            warnings[0].key,
            "config.providers.file.param.allowlist.pattern"
        );
        assert!(warnings[0].message.contains("not a parameter of"));
        assert_eq!(warnings[1].key, "config.providers.other.class");
    }
}
