//! The Java plugin host (issue 28): one JVM per worker, started only when a Java plugin is
//! needed, that runs Kafka Connect plugins found on `plugin.path` and talks to connect-rs over a
//! Unix socket (frames of [`frame`]). This module sees only `config`, `connect_api`,
//! `fs_private`, `suggest`, std, tokio and serde.
//!
//! - [`PluginHost`]: the handle the worker keeps (cheap to clone). [`PluginHost::control`]
//!   starts the JVM on first use and after it died (generation + 1, with a backoff), and returns
//!   its [`ControlConn`], whose [`ControlConn::request`] sends a message and awaits its answer.
//! - [`bundle`]: the embedded jars (the binary hands them over with [`bundle::set_bundle`]).
//! - [`java`]: which `java` runs it; [`process`]: spawning it; [`control`]: the connection,
//!   heartbeat and death path; [`error`]: [`HostError`].
//! - [`locations`]: `plugin.path` as Kafka reads it; [`scan`]: the discovery and
//!   configuration messages' shapes; [`scan_cache`]: earlier scans' answers, reused while
//!   nothing they depend on changed.
//! - [`codec`]: the binary encoding of schemas, values and records between the two sides.
//! - [`source`]: Java source connectors and tasks as connect-rs's own (`JavaSourcePlugin`);
//!   [`intern`]: the `&'static str`s of their descriptors.
//! - [`smt`]: Java transformations and predicates as connect-rs's own, stages of a
//!   transformation chain (`JavaSmtPlugin`).

pub mod bundle;
pub mod codec;
pub mod control;
pub mod converter;
pub mod discover;
pub mod error;
pub mod frame;
pub mod intern;
pub mod java;
pub mod locations;
pub mod metrics;
pub mod process;
pub mod scan;
pub mod scan_cache;
pub mod sink;
pub mod smt;
pub mod source;

use std::sync::Arc;
use std::time::{Duration, Instant};

pub use control::ControlConn;
pub use converter::JavaConverterPlugin;
pub use error::{Death, HostError, JavaError};
pub use frame::MessageType;
pub use java::JavaInfo;
pub use sink::JavaSinkPlugin;
pub use smt::{JavaSmtPlugin, SmtKind};
pub use source::JavaSourcePlugin;

use crate::config::WorkerConfig;

/// Default of `plugin.host.jvm.options`.
pub use crate::config::DEFAULT_PLUGIN_HOST_JVM_OPTIONS as DEFAULT_JVM_OPTIONS;

/// The worker keys of the plugin host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSettings {
    /// `plugin.host.java`: the java executable (empty: `$JAVA_HOME/bin/java`, else `PATH`).
    pub java: String,
    /// `plugin.host.jvm.options`, split on whitespace.
    pub jvm_options: Vec<String>,
    /// `plugin.host.classpath`: first on the JVM's class path.
    pub classpath: Vec<String>,
    /// `plugin.host.start.timeout.ms`.
    pub start_timeout: Duration,
    /// `plugin.host.heartbeat.interval.ms`.
    pub heartbeat_interval: Duration,
    /// `plugin.host.heartbeat.timeout.ms`.
    pub heartbeat_timeout: Duration,
    /// `plugin.host.restart.backoff.ms`.
    pub restart_backoff: Duration,
    /// `plugin.host.restart.backoff.max.ms`.
    pub restart_backoff_max: Duration,
    /// `plugin.host.scan.cache`: reuse the answer of an earlier identical scan ([`scan_cache`]).
    pub scan_cache: bool,
}

impl Default for HostSettings {
    fn default() -> Self {
        Self {
            java: String::new(),
            jvm_options: DEFAULT_JVM_OPTIONS
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            classpath: Vec::new(),
            start_timeout: Duration::from_millis(60_000),
            heartbeat_interval: Duration::from_millis(2_000),
            heartbeat_timeout: Duration::from_millis(30_000),
            restart_backoff: Duration::from_millis(1_000),
            restart_backoff_max: Duration::from_millis(60_000),
            scan_cache: true,
        }
    }
}

impl HostSettings {
    /// The `plugin.host.*` keys of a worker configuration (defaults for those absent).
    pub fn from_worker_config(config: &WorkerConfig) -> Self {
        let values = config.values();
        let d = Self::default();
        let ms = |key: &str, default: Duration| {
            values
                .long(key)
                .and_then(|v| u64::try_from(v).ok())
                .map_or(default, Duration::from_millis)
        };
        Self {
            java: values
                .string("plugin.host.java")
                .unwrap_or_default()
                .trim()
                .to_owned(),
            jvm_options: values
                .string("plugin.host.jvm.options")
                .map_or(d.jvm_options.clone(), |o| {
                    o.split_whitespace().map(str::to_owned).collect()
                }),
            classpath: values
                .list("plugin.host.classpath")
                .iter()
                .filter(|e| !e.trim().is_empty())
                .map(|e| e.trim().to_owned())
                .collect(),
            start_timeout: ms("plugin.host.start.timeout.ms", d.start_timeout),
            heartbeat_interval: ms("plugin.host.heartbeat.interval.ms", d.heartbeat_interval),
            heartbeat_timeout: ms("plugin.host.heartbeat.timeout.ms", d.heartbeat_timeout),
            restart_backoff: ms("plugin.host.restart.backoff.ms", d.restart_backoff),
            restart_backoff_max: ms("plugin.host.restart.backoff.max.ms", d.restart_backoff_max),
            scan_cache: values
                .boolean("plugin.host.scan.cache")
                .unwrap_or(d.scan_cache),
        }
    }

    /// The delay before the `failures`-th consecutive restart: the backoff, doubled for each
    /// further failure, at most the maximum.
    pub fn backoff(&self, failures: u32) -> Duration {
        let factor = 1u32
            .checked_shl(failures.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.restart_backoff
            .saturating_mul(factor)
            .min(self.restart_backoff_max)
    }
}

/// The plugin host of one worker: at most one JVM at a time, started on first need.
#[derive(Clone)]
pub struct PluginHost {
    inner: Arc<Inner>,
}

struct Inner {
    settings: HostSettings,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    conn: Option<ControlConn>,
    generation: u64,
    /// JVMs that died or failed to start in a row (reset by one that lived long).
    failures: u32,
    last_failure: Option<Instant>,
    java: Option<JavaInfo>,
}

impl std::fmt::Debug for PluginHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginHost")
            .field("settings", &self.inner.settings)
            .finish_non_exhaustive()
    }
}

impl PluginHost {
    /// A host with these settings; no JVM runs until [`Self::control`] is called.
    pub fn new(settings: HostSettings) -> Self {
        Self {
            inner: Arc::new(Inner {
                settings,
                state: tokio::sync::Mutex::new(State::default()),
            }),
        }
    }

    /// Its settings.
    pub fn settings(&self) -> &HostSettings {
        &self.inner.settings
    }

    /// The running JVM's control connection, starting the JVM first when none runs: on first
    /// use, and after a death (the next generation, after the restart backoff since the last
    /// failure). Callers wait for one another, so there is one JVM at a time.
    ///
    /// # Errors
    /// No bundle, no (suitable) Java, a JVM that did not start.
    pub async fn control(&self) -> Result<ControlConn, HostError> {
        let settings = &self.inner.settings;
        let mut state = self.inner.state.lock().await;
        if let Some(conn) = &state.conn {
            if conn.is_alive() {
                return Ok(conn.clone());
            }
            let died = conn.died_at().unwrap_or_else(Instant::now);
            let lived = died.saturating_duration_since(conn.started());
            state.failures = if lived >= settings.restart_backoff_max {
                1
            } else {
                state.failures + 1
            };
            state.last_failure = Some(died);
            state.conn = None;
        }
        if let Some(at) = state.last_failure {
            let wait = settings.backoff(state.failures);
            tokio::time::sleep_until((at + wait).into()).await;
        }
        let java = match &state.java {
            Some(j) => j.clone(),
            None => {
                let j = java::JavaLookup::from_env(&settings.java).find().await?;
                state.java = Some(j.clone());
                j
            }
        };
        // Each start checks the files again: another connect-rs may have replaced them.
        let extracted = bundle::extract()?;
        state.generation += 1;
        let generation = state.generation;
        let launch = process::Launch {
            java: &java,
            jvm_options: &settings.jvm_options,
            classpath: &settings.classpath,
            bundle: &extracted,
            generation,
        };
        let timing = control::Timing {
            start_timeout: settings.start_timeout,
            heartbeat_interval: settings.heartbeat_interval,
            heartbeat_timeout: settings.heartbeat_timeout,
        };
        let started = async {
            let spawned = process::spawn(&launch).await?;
            control::connect(spawned, generation, timing).await
        };
        match started.await {
            Ok(conn) => {
                state.conn = Some(conn.clone());
                Ok(conn)
            }
            Err(e) => {
                state.failures += 1;
                state.last_failure = Some(Instant::now());
                Err(e)
            }
        }
    }

    /// The Java that runs (or would run) the host, found and checked once.
    ///
    /// # Errors
    /// No Java, or one older than 17.
    pub async fn java(&self) -> Result<JavaInfo, HostError> {
        let mut state = self.inner.state.lock().await;
        if let Some(j) = &state.java {
            return Ok(j.clone());
        }
        let j = java::JavaLookup::from_env(&self.inner.settings.java)
            .find()
            .await?;
        state.java = Some(j.clone());
        Ok(j)
    }

    /// The current JVM's connection, if one runs (never starts one).
    pub async fn current(&self) -> Option<ControlConn> {
        let state = self.inner.state.lock().await;
        state.conn.clone().filter(ControlConn::is_alive)
    }

    /// Stops the JVM, if one runs: closes its control connection (it exits at end of stream)
    /// and waits for it, at most `grace`, then kills it.
    pub async fn shutdown(&self, grace: Duration) {
        let conn = self.inner.state.lock().await.conn.take();
        if let Some(conn) = conn {
            conn.close().await;
            if tokio::time::timeout(grace, conn.wait_dead()).await.is_err() {
                conn.kill("the worker stopped and the JVM did not exit");
                conn.wait_dead().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_maximum() {
        let s = HostSettings::default();
        let ms = |n| s.backoff(n).as_millis();
        assert_eq!(
            (ms(1), ms(2), ms(3), ms(7), ms(40)),
            (1000, 2000, 4000, 60000, 60000)
        );
    }

    #[test]
    fn settings_come_from_the_worker_keys() {
        let config = WorkerConfig::for_tests(&[
            ("plugin.host.java", " /opt/jdk/bin/java "),
            ("plugin.host.jvm.options", "-Xmx256m  -Dx=a,b"),
            ("plugin.host.classpath", "/a.jar, /b"),
            ("plugin.host.start.timeout.ms", "5000"),
            ("plugin.host.restart.backoff.max.ms", "8000"),
            ("plugin.host.scan.cache", "false"),
        ]);
        let s = HostSettings::from_worker_config(&config);
        assert_eq!(s.java, "/opt/jdk/bin/java");
        assert_eq!(s.jvm_options, ["-Xmx256m", "-Dx=a,b"]);
        assert_eq!(s.classpath, ["/a.jar", "/b"]);
        assert_eq!(s.start_timeout, Duration::from_secs(5));
        assert_eq!(s.restart_backoff_max, Duration::from_secs(8));
        assert_eq!(s.heartbeat_interval, Duration::from_secs(2));
        assert!(!s.scan_cache);
        let d = HostSettings::from_worker_config(&WorkerConfig::for_tests(&[]));
        assert_eq!(d, HostSettings::default());
    }
}
