//! `EnvVarConfigProvider`: `${env:NAME}` is the environment variable `NAME`. Parameter
//! `allowlist.pattern` (a regular expression the whole name must match, default `.*`) limits
//! the variables it gives out. The environment is read once, when the worker starts, as Kafka
//! reads it when the provider is created.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;

use super::provider::{ConfigProvider, ProviderError};

/// Gives out environment variables.
#[derive(Debug, Clone)]
pub struct EnvVarConfigProvider {
    vars: BTreeMap<String, String>,
    allowlist: Option<Regex>,
}

impl EnvVarConfigProvider {
    /// A provider over the process's environment, limited by `allowlist_pattern`.
    ///
    /// # Errors
    /// When the pattern is not a valid regular expression.
    pub fn from_env(allowlist_pattern: Option<&str>) -> Result<Self, String> {
        // Variables whose name or value is not Unicode cannot be configuration values.
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Self::with_vars(vars, allowlist_pattern)
    }

    /// A provider over `vars` (tests), limited by `allowlist_pattern`.
    ///
    /// # Errors
    /// When the pattern is not a valid regular expression.
    pub fn with_vars(
        vars: BTreeMap<String, String>,
        allowlist_pattern: Option<&str>,
    ) -> Result<Self, String> {
        let allowlist = allowlist_pattern
            .map(|p| {
                // Java's `Matcher.matches`: the whole name must match.
                Regex::new(&format!("^(?:{p})$"))
                    .map_err(|e| format!("Invalid regular expression {p}: {e}"))
            })
            .transpose()?;
        Ok(Self { vars, allowlist })
    }

    fn allowed(&self, name: &str) -> bool {
        self.allowlist.as_ref().is_none_or(|r| r.is_match(name))
    }
}

impl ConfigProvider for EnvVarConfigProvider {
    fn get(
        &self,
        path: &str,
        keys: &BTreeSet<String>,
    ) -> Result<BTreeMap<String, String>, ProviderError> {
        if !path.is_empty() {
            // Kafka's message.
            return Err(ProviderError::new(format!(
                "Path is not supported for EnvVarConfigProvider, invalid value '{path}'"
            )));
        }
        Ok(keys
            .iter()
            .filter(|k| self.allowed(k))
            .filter_map(|k| self.vars.get(k).map(|v| (k.clone(), v.clone())))
            .collect())
    }

    fn missing(&self, _path: &str, key: &str) -> String {
        if self.allowed(key) {
            format!("the environment variable {key} is not set")
        } else {
            format!("the environment variable {key} does not match allowlist.pattern")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(k: &[&str]) -> BTreeSet<String> {
        k.iter().map(|s| (*s).to_owned()).collect()
    }

    fn vars() -> BTreeMap<String, String> {
        [("APP_TOKEN", "t0k"), ("HOME", "/home/x")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    #[test]
    fn variables_by_name() {
        let p = EnvVarConfigProvider::with_vars(vars(), None).unwrap();
        let got = p.get("", &keys(&["APP_TOKEN", "NOPE"])).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got["APP_TOKEN"], "t0k");
        assert_eq!(
            p.missing("", "NOPE"),
            "the environment variable NOPE is not set"
        );
    }

    #[test]
    fn allowlist_pattern_must_match_the_whole_name() {
        let p = EnvVarConfigProvider::with_vars(vars(), Some("APP_.*")).unwrap();
        assert_eq!(p.get("", &keys(&["APP_TOKEN", "HOME"])).unwrap().len(), 1);
        assert!(p
            .missing("", "HOME")
            .contains("does not match allowlist.pattern"));
        // `APP` alone matches part of `APP_TOKEN` only: not allowed.
        let p = EnvVarConfigProvider::with_vars(vars(), Some("APP")).unwrap();
        assert!(p.get("", &keys(&["APP_TOKEN"])).unwrap().is_empty());
        assert!(EnvVarConfigProvider::with_vars(vars(), Some("(")).is_err());
    }

    #[test]
    fn a_path_is_refused() {
        let p = EnvVarConfigProvider::with_vars(vars(), None).unwrap();
        assert_eq!(
            p.get("/etc", &keys(&["HOME"])).unwrap_err().0,
            "Path is not supported for EnvVarConfigProvider, invalid value '/etc'"
        );
    }

    #[test]
    fn the_process_environment_is_read() {
        // PATH is set wherever the tests run.
        let p = EnvVarConfigProvider::from_env(None).unwrap();
        assert!(p.get("", &keys(&["PATH"])).unwrap().contains_key("PATH"));
    }
}
