//! Logging set-up and run-time log levels, the model behind Kafka Connect's `/admin/loggers`.
//!
//! Logs are `tracing` events written to stderr. The filter is an [`EnvFilter`] inside a
//! [`reload`] layer, so levels can change while the worker runs. A *logger* is a tracing target
//! (a module path such as `connect_rs::worker`), plus `root`, the default level. Kafka's
//! Java-style names are accepted too: `.` is read as `::`, so `connect_rs.worker` is the logger
//! `connect_rs::worker`. As in log4j (and as `EnvFilter` matches targets), setting a level on a
//! name also sets it on every explicitly set logger whose name starts with that name; setting
//! `root` sets it on every logger.
//!
//! [`init`] installs the subscriber and makes its filter reachable through [`levels`], a
//! process-wide [`LogLevels`]; without [`init`] (e.g. in unit tests) [`levels`] is a detached
//! model that changes no filter.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Serialize, Serializer};
use tracing_subscriber::filter::{Directive, LevelFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt as tfmt, reload, EnvFilter, Registry};

/// The name of the root logger, whose level is the default level.
pub const ROOT_LOGGER: &str = "root";

/// The filter directives used when neither `--log-level` nor a valid `RUST_LOG` is given.
pub const DEFAULT_DIRECTIVES: &str = "info";

/// A log level by its Kafka (log4j) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogLevel {
    /// `TRACE`.
    Trace,
    /// `DEBUG`.
    Debug,
    /// `INFO`.
    Info,
    /// `WARN`.
    Warn,
    /// `ERROR`.
    Error,
    /// `FATAL`: tracing has no such level, it filters as `ERROR`.
    Fatal,
    /// `OFF`: nothing is logged.
    Off,
}

impl LogLevel {
    /// The level's upper-case log4j name, as the REST API reports it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Trace => "TRACE",
            Self::Debug => "DEBUG",
            Self::Info => "INFO",
            Self::Warn => "WARN",
            Self::Error => "ERROR",
            Self::Fatal => "FATAL",
            Self::Off => "OFF",
        }
    }

    /// The tracing filter level this level stands for.
    pub fn filter(self) -> LevelFilter {
        match self {
            Self::Trace => LevelFilter::TRACE,
            Self::Debug => LevelFilter::DEBUG,
            Self::Info => LevelFilter::INFO,
            Self::Warn => LevelFilter::WARN,
            Self::Error | Self::Fatal => LevelFilter::ERROR,
            Self::Off => LevelFilter::OFF,
        }
    }

    /// The level of a tracing filter level.
    pub fn from_filter(filter: LevelFilter) -> Self {
        match filter {
            LevelFilter::TRACE => Self::Trace,
            LevelFilter::DEBUG => Self::Debug,
            LevelFilter::INFO => Self::Info,
            LevelFilter::WARN => Self::Warn,
            LevelFilter::ERROR => Self::Error,
            _ => Self::Off,
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A string that is no log4j level name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidLogLevel(pub String);

impl fmt::Display for InvalidLogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid log level '{}'.", self.0)
    }
}

impl std::error::Error for InvalidLogLevel {}

impl FromStr for LogLevel {
    type Err = InvalidLogLevel;

    /// A log4j level name, case-insensitive: TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Self::Trace,
            Self::Debug,
            Self::Info,
            Self::Warn,
            Self::Error,
            Self::Fatal,
            Self::Off,
        ]
        .into_iter()
        .find(|l| l.name().eq_ignore_ascii_case(s))
        .ok_or_else(|| InvalidLogLevel(s.to_owned()))
    }
}

impl Serialize for LogLevel {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A logger's level and when it was last set through [`LogLevels::set`], as Kafka Connect's
/// `LoggerLevel`: `{"level": "INFO", "last_modified": <epoch ms>|null}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LoggerLevel {
    /// The (effective) level.
    pub level: LogLevel,
    /// Milliseconds since the epoch of the last change at run time; `None` if never changed.
    pub last_modified: Option<u64>,
}

/// A logger name that cannot be a tracing target (it would not parse as a filter directive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidLoggerName(pub String);

impl fmt::Display for InvalidLoggerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Logger {} not found.", self.0)
    }
}

impl std::error::Error for InvalidLoggerName {}

/// The tracing target a logger name stands for: Java-style `a.b.c` is `a::b::c`.
pub fn target_of(name: &str) -> String {
    name.replace('.', "::")
}

/// The filter as a model: the default level, the per-target levels, and directives with span
/// or field filters, which are kept as given.
#[derive(Debug, Clone)]
struct Model {
    root: LoggerLevel,
    targets: BTreeMap<String, LoggerLevel>,
    other: Vec<Directive>,
}

impl Model {
    /// The model of `EnvFilter` directives, ignoring (with a note on stderr, as
    /// `EnvFilter::new`) those that do not parse. Without a bare level the default is `OFF`,
    /// as in `EnvFilter`.
    fn parse_lossy(spec: &str) -> Self {
        let mut model = Self {
            root: LoggerLevel {
                level: LogLevel::Off,
                last_modified: None,
            },
            targets: BTreeMap::new(),
            other: Vec::new(),
        };
        for part in spec.split(',').filter(|s| !s.is_empty()) {
            let directive = match Directive::from_str(part) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("ignoring `{part}`: {e}");
                    continue;
                }
            };
            let part = part.trim();
            if part.contains('[') {
                model.other.push(directive);
                continue;
            }
            let (target, level) = match part.split_once('=') {
                Some((target, level)) => (Some(target), level),
                None => match LevelFilter::from_str(part) {
                    Ok(_) => (None, part),
                    Err(_) => (Some(part), ""),
                },
            };
            let level = if level.is_empty() {
                LevelFilter::TRACE
            } else {
                LevelFilter::from_str(level).unwrap_or(LevelFilter::TRACE)
            };
            let level = LoggerLevel {
                level: LogLevel::from_filter(level),
                last_modified: None,
            };
            match target {
                None => model.root = level,
                Some(target) => {
                    model.targets.insert(target.to_owned(), level);
                }
            }
        }
        model
    }

    /// The `EnvFilter` of this model.
    fn filter(&self) -> EnvFilter {
        let mut filter = EnvFilter::builder()
            .parse_lossy("")
            .add_directive(self.root.level.filter().into());
        for directive in &self.other {
            filter = filter.add_directive(directive.clone());
        }
        for (target, level) in &self.targets {
            // Every target was checked by `directive` before it was stored.
            if let Ok(d) = directive(target, level.level) {
                filter = filter.add_directive(d);
            }
        }
        filter
    }

    /// The effective level of `name`: its own, else that of the longest explicitly set
    /// logger its target starts with (as `EnvFilter` matches), else the root level.
    fn level(&self, name: &str) -> LoggerLevel {
        if name == ROOT_LOGGER {
            return self.root;
        }
        let target = target_of(name);
        if let Some(own) = self.targets.get(&target) {
            return *own;
        }
        let level = self
            .targets
            .iter()
            .filter(|(t, _)| target.starts_with(t.as_str()))
            .max_by_key(|(t, _)| t.len())
            .map_or(self.root.level, |(_, l)| l.level);
        LoggerLevel {
            level,
            last_modified: None,
        }
    }

    /// Sets `name` and the explicitly set loggers below it (every logger for `root`) to
    /// `level`; returns the affected logger names, sorted.
    fn set(
        &mut self,
        name: &str,
        level: LogLevel,
        now: u64,
    ) -> Result<Vec<String>, InvalidLoggerName> {
        let set = LoggerLevel {
            level,
            last_modified: Some(now),
        };
        let mut affected = BTreeSet::new();
        if name == ROOT_LOGGER {
            self.root = set;
            affected.insert(ROOT_LOGGER.to_owned());
            for (target, l) in &mut self.targets {
                *l = set;
                affected.insert(target.clone());
            }
        } else {
            let target = target_of(name);
            directive(&target, level).map_err(|()| InvalidLoggerName(name.to_owned()))?;
            for (t, l) in &mut self.targets {
                if t.starts_with(target.as_str()) {
                    *l = set;
                    affected.insert(t.clone());
                }
            }
            self.targets.insert(target.clone(), set);
            affected.insert(target);
        }
        Ok(affected.into_iter().collect())
    }

    /// `root` and every explicitly set logger, sorted by name.
    fn all(&self) -> BTreeMap<String, LoggerLevel> {
        let mut all = self.targets.clone();
        all.insert(ROOT_LOGGER.to_owned(), self.root);
        all
    }
}

/// The directive `target=level`, if `target` is a plain target (no span or field filter, no
/// separator that would change how the directive parses).
fn directive(target: &str, level: LogLevel) -> Result<Directive, ()> {
    let plain = target
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || ['-', ':', '_'].contains(&c))
        && !target
            .chars()
            .any(|c| c.is_whitespace() || ['=', '[', ']', '{', '}', ',', '"'].contains(&c));
    if !plain {
        return Err(());
    }
    let text = format!("{target}={}", level.filter());
    let d = Directive::from_str(&text).map_err(|_| ())?;
    // A directive that reads back differently is not the plain target asked for.
    if d.to_string() == text {
        Ok(d)
    } else {
        Err(())
    }
}

type FilterHandle = reload::Handle<EnvFilter, Registry>;

struct Inner {
    model: Model,
    handle: Option<FilterHandle>,
}

/// The process's log levels: the filter model and, after [`init`], the handle that swaps the
/// installed filter when a level changes.
pub struct LogLevels {
    inner: Mutex<Inner>,
}

impl LogLevels {
    /// Levels from `EnvFilter` directives (e.g. `info,connect_rs::worker=debug`) that change
    /// no installed filter.
    pub fn detached(directives: &str) -> Self {
        Self {
            inner: Mutex::new(Inner {
                model: Model::parse_lossy(directives),
                handle: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `root` and every logger with an explicitly set level, sorted by name.
    pub fn all(&self) -> BTreeMap<String, LoggerLevel> {
        self.lock().model.all()
    }

    /// The effective level of the logger `name` (any name: one without a level of its own has
    /// that of the closest explicitly set logger above it, else the root level).
    pub fn level(&self, name: &str) -> LoggerLevel {
        self.lock().model.level(name)
    }

    /// Sets the level of `name` (`root`: the default level) and of the explicitly set loggers
    /// below it, and installs the new filter; returns the affected logger names, sorted.
    ///
    /// # Errors
    /// `name` cannot be a tracing target (e.g. it contains `=` or `[`).
    pub fn set(&self, name: &str, level: LogLevel) -> Result<Vec<String>, InvalidLoggerName> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut inner = self.lock();
        let affected = inner.model.set(name, level, now)?;
        if let Some(handle) = &inner.handle {
            if let Err(e) = handle.reload(inner.model.filter()) {
                tracing::warn!(error = %e, "Could not change the log filter.");
            }
        }
        Ok(affected)
    }
}

static LEVELS: OnceLock<LogLevels> = OnceLock::new();

/// The process-wide log levels: those installed by [`init`], or detached `info` levels if
/// logging was not set up.
pub fn levels() -> &'static LogLevels {
    LEVELS.get_or_init(|| LogLevels::detached(DEFAULT_DIRECTIVES))
}

/// The filter directives to start with: `level` (from `--log-level`), else `RUST_LOG` if it is
/// set and valid, else [`DEFAULT_DIRECTIVES`].
pub fn initial_directives(level: Option<&str>) -> String {
    if let Some(level) = level {
        return level.to_owned();
    }
    match std::env::var(EnvFilter::DEFAULT_ENV) {
        Ok(env) if EnvFilter::builder().parse(&env).is_ok() => env,
        _ => DEFAULT_DIRECTIVES.to_owned(),
    }
}

/// Installs the global subscriber: events to stderr without their target, ANSI colours only
/// on a terminal and without `NO_COLOR`, filtered by `directives` (`EnvFilter` syntax) through a reloadable filter
/// that [`levels`] changes. Does nothing if a global subscriber is already installed.
pub fn init(directives: &str) {
    // Start with everything enabled so that `log` records (e.g. from rdkafka) are forwarded at
    // every level, then install the real filter: raising a level later reaches them too.
    let (filter, handle) = reload::Layer::new(EnvFilter::builder().parse_lossy("trace"));
    let fmt_layer = tfmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()) && !no_color())
        .with_target(false);
    if tracing_subscriber::registry()
        .with(filter)
        .with(fmt_layer)
        .try_init()
        .is_err()
    {
        return;
    }
    let model = Model::parse_lossy(directives);
    if handle.reload(model.filter()).is_err() {
        return;
    }
    let installed = Inner {
        model,
        handle: Some(handle),
    };
    *levels().lock() = installed;
}

/// Whether `NO_COLOR` asks for no colours (set and not empty, see no-color.org).
fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_log4j_level_names_case_insensitively() {
        assert_eq!("debug".parse::<LogLevel>(), Ok(LogLevel::Debug));
        assert_eq!("Fatal".parse::<LogLevel>(), Ok(LogLevel::Fatal));
        assert_eq!(LogLevel::Fatal.filter(), LevelFilter::ERROR);
        assert_eq!("OFF".parse::<LogLevel>(), Ok(LogLevel::Off));
        let e = "verbose".parse::<LogLevel>().unwrap_err();
        assert_eq!(e.to_string(), "invalid log level 'verbose'.");
        assert!("".parse::<LogLevel>().is_err());
    }

    #[test]
    fn models_env_filter_directives() {
        let l = LogLevels::detached("warn,connect_rs::worker=debug,rdkafka,[span]=trace,bad=x");
        let all = l.all();
        assert_eq!(
            all.keys().cloned().collect::<Vec<_>>(),
            names(&["connect_rs::worker", "rdkafka", "root"])
        );
        assert_eq!(all["root"].level, LogLevel::Warn);
        assert_eq!(all["rdkafka"].level, LogLevel::Trace);
        assert_eq!(all["connect_rs::worker"].last_modified, None);
        assert_eq!(
            l.level("connect_rs.worker.source_task").level,
            LogLevel::Debug
        );
        assert_eq!(l.level("connect_rs::rest").level, LogLevel::Warn);
        assert_eq!(l.level("org.apache.kafka").level, LogLevel::Warn);
        assert_eq!(
            LogLevels::detached("connect_rs=info").level("root").level,
            LogLevel::Off
        );
    }

    #[test]
    fn setting_a_namespace_sets_the_loggers_below_it() {
        let l = LogLevels::detached("info,connect_rs::worker::sink=warn,rdkafka=error");
        let affected = l.set("connect_rs.worker", LogLevel::Debug).unwrap();
        assert_eq!(
            affected,
            names(&["connect_rs::worker", "connect_rs::worker::sink"])
        );
        let own = l.level("connect_rs::worker");
        assert_eq!(own.level, LogLevel::Debug);
        assert!(own.last_modified.is_some());
        assert_eq!(l.level("connect_rs::worker::sink").level, LogLevel::Debug);
        assert_eq!(l.level("rdkafka").level, LogLevel::Error);
        assert_eq!(l.level("connect_rs::worker::x").last_modified, None);

        let affected = l.set("root", LogLevel::Fatal).unwrap();
        assert_eq!(
            affected,
            names(&[
                "connect_rs::worker",
                "connect_rs::worker::sink",
                "rdkafka",
                "root"
            ])
        );
        assert!(l.all().values().all(|v| v.level == LogLevel::Fatal));
    }

    #[test]
    fn builds_the_filter_and_rejects_names_that_are_no_targets() {
        let l = LogLevels::detached("info");
        assert!(l.set("a=b", LogLevel::Info).is_err());
        assert!(l.set("a[b]", LogLevel::Info).is_err());
        assert!(l.set("a,b", LogLevel::Info).is_err());
        let e = l.set(" a", LogLevel::Info).unwrap_err();
        assert_eq!(e.to_string(), "Logger  a not found.");
        l.set("connect_rs::x", LogLevel::Off).unwrap();
        let model = l.lock().model.clone();
        let text = model.filter().to_string();
        assert!(text.contains("connect_rs::x=off"), "{text}");
        assert!(text.contains("info"), "{text}");
    }
}
