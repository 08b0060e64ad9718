//! Resolving placeholders (Kafka's `ConfigTransformer`), the reverse for task configurations
//! (Kafka's `AbstractHerder.reverseTransform`), and hiding resolved values in messages.
//!
//! Unlike Kafka, which leaves a placeholder it cannot resolve unchanged, every placeholder must
//! resolve: an unknown provider, a missing file, key or variable, or a path outside
//! `allowed.paths` is an error naming the configuration key and the placeholder, never a value.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use connect_api::{ConfigMap, ConnectError};

use super::placeholder::{has_placeholder, placeholders};
use super::registry::{ConfigProviders, CONFIG_PROVIDERS};
use super::secrets::{self, SecretSet};
use crate::config::{ConfigProblem, RawConfig};

/// A configuration with its placeholders resolved.
#[derive(Debug)]
pub struct Resolved {
    /// The values with placeholders replaced (origins unchanged).
    pub raw: RawConfig,
    /// The values the providers gave, to keep out of messages.
    pub redactor: Redactor,
}

impl ConfigProviders {
    /// Resolves the placeholders in every value of `raw` except the keys `skip` selects.
    ///
    /// # Errors
    /// One problem per placeholder that cannot be resolved, on its key:
    /// `Cannot resolve ${file:/p:k} for configuration my.key: the file /p has no key 'k'`.
    pub fn resolve(
        &self,
        raw: &RawConfig,
        skip: impl Fn(&str) -> bool,
    ) -> Result<Resolved, Vec<ConfigProblem>> {
        let redactor = Redactor::default();
        let mut resolved = raw.clone();
        let mut problems = Vec::new();
        let mut cache: HashMap<(String, String, String), Result<String, String>> = HashMap::new();
        for (key, entry) in raw.iter() {
            if skip(key) || !has_placeholder(&entry.value) {
                continue;
            }
            let value = &entry.value;
            let mut out = String::with_capacity(value.len());
            let mut at = 0;
            let mut failed = false;
            for p in placeholders(value) {
                out.push_str(&value[at..p.range.start]);
                at = p.range.end;
                let lookup = cache
                    .entry((p.provider.to_owned(), p.path.to_owned(), p.key.to_owned()))
                    .or_insert_with(|| self.lookup(p.provider, p.path, p.key));
                match lookup {
                    Ok(v) => {
                        redactor.add(v, p.text);
                        out.push_str(v);
                    }
                    Err(reason) => {
                        failed = true;
                        problems.push(ConfigProblem::for_key(
                            entry.origin.clone(),
                            key,
                            format!(
                                "Cannot resolve {} for configuration {key}: {reason}",
                                p.text
                            ),
                        ));
                    }
                }
            }
            out.push_str(&value[at..]);
            if !failed {
                resolved.set_value(key, out);
            }
        }
        if problems.is_empty() {
            Ok(Resolved {
                raw: resolved,
                redactor,
            })
        } else {
            Err(problems)
        }
    }

    /// Resolves a plain map (a task configuration); `source` names it in problems.
    ///
    /// # Errors
    /// As [`ConfigProviders::resolve`].
    pub fn resolve_map(
        &self,
        map: &ConfigMap,
        source: &str,
    ) -> Result<(ConfigMap, Redactor), Vec<ConfigProblem>> {
        if !map.values().any(|v| has_placeholder(v)) {
            return Ok((map.clone(), Redactor::default()));
        }
        let raw = RawConfig::from_pairs(source, map.clone());
        self.resolve(&raw, |_| false)
            .map(|r| (r.raw.to_map(), r.redactor))
    }

    /// Resolves the worker file: every key but the `config.providers*` keys themselves,
    /// which are read as written (as Kafka's `AbstractConfig` does).
    ///
    /// # Errors
    /// As [`ConfigProviders::resolve`].
    pub fn resolve_worker(&self, raw: &RawConfig) -> Result<Resolved, Vec<ConfigProblem>> {
        self.resolve(raw, |k| k.starts_with(CONFIG_PROVIDERS))
    }

    fn lookup(&self, provider: &str, path: &str, key: &str) -> Result<String, String> {
        let Some(p) = self.get(provider) else {
            let names: Vec<&str> = self.names().collect();
            return Err(if names.is_empty() {
                format!("no config provider '{provider}' is configured ({CONFIG_PROVIDERS} of the worker is empty)")
            } else {
                format!(
                    "no config provider '{provider}' is configured ({CONFIG_PROVIDERS}={})",
                    names.join(",")
                )
            });
        };
        let keys = BTreeSet::from([key.to_owned()]);
        let mut data = p.get(path, &keys).map_err(|e| e.0)?;
        data.remove(key).ok_or_else(|| p.missing(path, key))
    }
}

/// Kafka's `reverseTransform`: the task configuration `task` with every key whose value in the
/// connector's raw configuration holds a placeholder set back to that raw value, so task
/// configurations are stored and shown with placeholders, not with what they resolved to.
pub fn reverse_transform(raw_connector: &ConfigMap, task: &ConfigMap) -> ConfigMap {
    let mut out = task.clone();
    for (key, raw) in raw_connector {
        if has_placeholder(raw) {
            if let Some(v) = out.get_mut(key) {
                v.clone_from(raw);
            }
        }
    }
    out
}

/// The values config providers gave for one configuration (a connector and its tasks), each
/// with the placeholder that stands for it; messages (errors, status traces, log lines written
/// by the runtime) pass through [`Redactor::redact`], which puts the placeholder back in place
/// of the value in every form [`SecretSet`] knows. Every value added is also added to the
/// process-wide [`secrets::global`] set that the edges (logging, REST answers, dead letter queue
/// headers, command output) apply.
#[derive(Debug, Default)]
pub struct Redactor {
    secrets: SecretSet,
}

impl Redactor {
    /// Remembers that `placeholder` resolved to `value`, here and process-wide.
    pub fn add(&self, value: &str, placeholder: &str) {
        self.secrets.add(value, placeholder);
        // Unit tests share one process: a value one test resolves must not change what
        // another one sees. The process-wide set is proven with the real binary.
        if !cfg!(test) {
            secrets::global().add(value, placeholder);
        }
    }

    /// Remembers the values `other` knows as well.
    pub fn absorb(&self, other: &Redactor) {
        for (v, p) in other.secrets.entries() {
            self.add(&v, &p);
        }
    }

    /// `text` with every remembered value replaced by its placeholder.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.secrets.redact(text)
    }

    /// `error` as a [`ConnectError::Other`] with its text redacted, or unchanged when its
    /// text shows no remembered value.
    pub fn redact_error(&self, error: ConnectError) -> ConnectError {
        let text = error.to_string();
        match self.redact(&text) {
            Cow::Borrowed(_) => error,
            Cow::Owned(redacted) => ConnectError::Other(redacted),
        }
    }

    /// Whether no value is remembered.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::config::providers::{
        ConfigProvider, DirectoryConfigProvider, EnvVarConfigProvider, FileConfigProvider,
    };

    fn providers() -> ConfigProviders {
        let vars: BTreeMap<String, String> = [("TOPIC", "orders"), ("TOKEN", "env-secret-1")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let env: Arc<dyn ConfigProvider> =
            Arc::new(EnvVarConfigProvider::with_vars(vars, Some("TOPIC|TOKEN")).unwrap());
        ConfigProviders::with([
            ("env".to_owned(), env),
            (
                "file".to_owned(),
                Arc::new(FileConfigProvider::default()) as Arc<dyn ConfigProvider>,
            ),
            (
                "dir".to_owned(),
                Arc::new(DirectoryConfigProvider::default()) as Arc<dyn ConfigProvider>,
            ),
        ])
    }

    fn raw(pairs: &[(&str, &str)]) -> RawConfig {
        let mut raw = RawConfig::new("c.properties");
        for (i, (k, v)) in pairs.iter().enumerate() {
            raw.insert(*k, *v, Some(i + 1));
        }
        raw
    }

    #[test]
    fn every_provider_and_text_around_placeholders() {
        let dir = tempfile::tempdir().unwrap();
        let props = dir.path().join("app.properties");
        std::fs::write(&props, "db.password=file-secret-2\nhost=db.local\n").unwrap();
        std::fs::write(dir.path().join("api-key"), "dir-secret-3").unwrap();
        let p = props.display();
        let d = dir.path().display();
        let config = raw(&[
            ("topic", "${env:TOPIC}"),
            (
                "url",
                &format!("jdbc://${{file:{p}:host}}:5432/${{env:TOPIC}}?x"),
            ),
            ("password", &format!("${{file:{p}:db.password}}")),
            ("api.key", &format!("${{dir:{d}:api-key}}")),
            ("format", "${topic}-${timestamp}"),
            ("plain", "value"),
        ]);
        let resolved = providers().resolve(&config, |_| false).unwrap();
        let r = &resolved.raw;
        assert_eq!(r.get("topic"), Some("orders"));
        assert_eq!(r.get("url"), Some("jdbc://db.local:5432/orders?x"));
        assert_eq!(r.get("password"), Some("file-secret-2"));
        assert_eq!(r.get("api.key"), Some("dir-secret-3"));
        assert_eq!(r.get("format"), Some("${topic}-${timestamp}"));
        assert_eq!(r.get("plain"), Some("value"));
        assert_eq!(r.line("password"), Some(3), "origins are kept");
        assert!(r.duplicate_warnings().is_empty());
        let shown = resolved
            .redactor
            .redact("failed with file-secret-2 and dir-secret-3 on orders");
        assert_eq!(
            shown,
            format!(
                "failed with ${{file:{p}:db.password}} and ${{dir:{d}:api-key}} on ${{env:TOPIC}}"
            )
        );
    }

    #[test]
    fn each_unresolvable_placeholder_is_a_problem_naming_key_and_placeholder() {
        let dir = tempfile::tempdir().unwrap();
        let props = dir.path().join("app.properties");
        std::fs::write(&props, "a=file-secret-2\n").unwrap();
        let p = props.display();
        let config = raw(&[
            ("ok", &format!("${{file:{p}:a}}")),
            ("missing.key", &format!("${{file:{p}:nope}}")),
            ("two", "${vault:x:y}-${env:UNSET}"),
            ("denied", "${env:HOME}"),
            ("path", "${env:/x:TOPIC}"),
        ]);
        let problems = providers().resolve(&config, |_| false).unwrap_err();
        let texts: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                format!("line 2: missing.key: Cannot resolve ${{file:{p}:nope}} for configuration missing.key: the file {p} has no key 'nope'"),
                "line 3: two: Cannot resolve ${vault:x:y} for configuration two: no config provider 'vault' is configured (config.providers=dir,env,file)".to_owned(),
                "line 3: two: Cannot resolve ${env:UNSET} for configuration two: the environment variable UNSET does not match allowlist.pattern".to_owned(),
                "line 4: denied: Cannot resolve ${env:HOME} for configuration denied: the environment variable HOME does not match allowlist.pattern".to_owned(),
                "line 5: path: Cannot resolve ${env:/x:TOPIC} for configuration path: Path is not supported for EnvVarConfigProvider, invalid value '/x'".to_owned(),
            ]
        );
        assert!(texts.iter().all(|t| !t.contains("file-secret-2")));
        let none = ConfigProviders::none()
            .resolve(&raw(&[("k", "${file:/p:k}")]), |_| false)
            .unwrap_err();
        assert!(none[0]
            .message
            .ends_with("(config.providers of the worker is empty)"));
    }

    #[test]
    fn worker_resolution_leaves_provider_keys_alone() {
        let config = raw(&[
            (
                "config.providers.env.param.allowlist.pattern",
                "${env:TOPIC}",
            ),
            ("group.id", "${env:TOPIC}"),
        ]);
        let r = providers().resolve_worker(&config).unwrap().raw;
        assert_eq!(
            r.get("config.providers.env.param.allowlist.pattern"),
            Some("${env:TOPIC}")
        );
        assert_eq!(r.get("group.id"), Some("orders"));
    }

    #[test]
    fn reverse_transform_restores_placeholders_by_key() {
        let connector: ConfigMap = [
            ("file", "${env:FILE}"),
            ("topic", "t"),
            ("secret", "x${env:TOKEN}"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let task: ConfigMap = [
            ("file", "/data/in.txt"),
            ("topic", "t"),
            ("task.class", "T"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let back = reverse_transform(&connector, &task);
        assert_eq!(back["file"], "${env:FILE}");
        assert_eq!(back["topic"], "t");
        assert!(
            !back.contains_key("secret"),
            "keys the task lacks are not added"
        );
        let problems = providers().resolve_map(&back, "task 0").unwrap_err();
        assert_eq!(problems[0].origin.file.display().to_string(), "task 0");
        assert_eq!(problems[0].key.as_deref(), Some("file"));
    }

    #[test]
    fn maps_without_placeholders_are_returned_as_they_are() {
        let task: ConfigMap = [("topic".to_owned(), "${env:TOPIC}".to_owned())].into();
        let (resolved, redactor) = providers().resolve_map(&task, "task 0").unwrap();
        assert_eq!(resolved["topic"], "orders");
        assert_eq!(redactor.redact("to orders"), "to ${env:TOPIC}");
        let plain: ConfigMap = [("topic".to_owned(), "t".to_owned())].into();
        assert_eq!(
            ConfigProviders::none().resolve_map(&plain, "x").unwrap().0,
            plain
        );
    }

    #[test]
    fn short_values_are_not_redacted() {
        let r = Redactor::default();
        r.add("1", "${env:N}");
        r.add("abc", "${env:A}");
        assert_eq!(r.redact("1 abc"), "1 ${env:A}");
        let other = Redactor::default();
        other.absorb(&r);
        assert!(!other.is_empty());
    }
}
