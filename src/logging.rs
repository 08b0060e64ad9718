//! Logging set-up and run-time log levels, the model behind Kafka Connect's `/admin/loggers`.
//!
//! Logs are `tracing` events written to stderr. The filter is an [`EnvFilter`] inside a
//! [`reload`] layer, so levels can change while the worker runs. A *logger* is a name, read back
//! as it was set, that stands for tracing targets: a Kafka logger name of [`KAFKA_LOGGERS`]
//! (e.g. `org.apache.kafka.connect.runtime`) stands for the connect-rs targets doing that work,
//! any other name for the target it spells (`.` read as `::`, so `connect_rs.worker` is the
//! target `connect_rs::worker`); `root` is the default level. As log4j's `setAllLevels`,
//! setting a level on a name also sets it on every logger set before whose name starts with
//! that name; setting `root` sets it on every logger.
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

mod kafka_names;

pub use kafka_names::{target_of, targets_of, KAFKA_LOGGERS};

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

/// Whether `name` names the root logger: `root` (any case) or the empty name, as Kafka Connect.
fn is_root(name: &str) -> bool {
    name.is_empty() || name.eq_ignore_ascii_case(ROOT_LOGGER)
}

/// Whether the logger `name` is below (or is) the logger `parent` in the logger hierarchy,
/// comparing tracing targets segment by segment.
fn is_under(name: &str, parent: &str) -> bool {
    let (name, parent) = (target_of(name), target_of(parent));
    name == parent || name.starts_with(&format!("{parent}::"))
}

/// The filter as a model: the root level, the loggers with a level of their own (by the name
/// they were set under, with the sequence number of the change so the latest wins where two
/// names stand for one target), when each logger last changed, and directives with span or
/// field filters, which are kept as given.
#[derive(Debug, Clone)]
struct Model {
    root: LogLevel,
    levels: BTreeMap<String, (LogLevel, u64)>,
    modified: BTreeMap<String, u64>,
    seq: u64,
    other: Vec<Directive>,
}

impl Model {
    /// The model of `EnvFilter` directives, ignoring (with a note on stderr, as
    /// `EnvFilter::new`) those that do not parse. Without a bare level the default is `OFF`,
    /// as in `EnvFilter`.
    fn parse_lossy(spec: &str) -> Self {
        let mut model = Self {
            root: LogLevel::Off,
            levels: BTreeMap::new(),
            modified: BTreeMap::new(),
            seq: 0,
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
            let level = LogLevel::from_filter(level);
            match target {
                None => model.root = level,
                Some(target) => {
                    model.levels.insert(target.to_owned(), (level, 0));
                }
            }
        }
        model
    }

    /// The `EnvFilter` of this model: per tracing target, the level of the logger set last
    /// among those that stand for it.
    fn filter(&self) -> EnvFilter {
        let mut filter = EnvFilter::builder()
            .parse_lossy("")
            .add_directive(self.root.filter().into());
        for directive in &self.other {
            filter = filter.add_directive(directive.clone());
        }
        let mut by_target: BTreeMap<String, (u64, LogLevel)> = BTreeMap::new();
        for (name, (level, seq)) in &self.levels {
            for target in targets_of(name) {
                let slot = by_target.entry(target).or_insert((*seq, *level));
                if *seq >= slot.0 {
                    *slot = (*seq, *level);
                }
            }
        }
        for (target, (_, level)) in by_target {
            if let Ok(d) = directive(&target, level) {
                filter = filter.add_directive(d);
            }
        }
        filter
    }

    /// The effective level of `name`: its own, else that of the closest logger above it with
    /// a level of its own, else the root level.
    fn effective(&self, name: &str) -> LogLevel {
        if is_root(name) {
            return self.root;
        }
        if let Some((level, _)) = self.levels.get(name) {
            return *level;
        }
        self.levels
            .iter()
            .filter(|(parent, _)| is_under(name, parent))
            .max_by_key(|(parent, _)| target_of(parent).len())
            .map_or(self.root, |(_, (level, _))| *level)
    }

    /// The level and last change of `name` as reported.
    fn report(&self, name: &str) -> LoggerLevel {
        let key = if is_root(name) { ROOT_LOGGER } else { name };
        LoggerLevel {
            level: self.effective(name),
            last_modified: self.modified.get(key).copied(),
        }
    }

    /// The loggers that exist: `root`, the Kafka class loggers connect-rs maps, and every
    /// logger with a level of its own (Kafka Connect's "current loggers").
    fn current(&self) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = self.levels.keys().cloned().collect();
        names.extend(kafka_names::class_loggers().map(str::to_owned));
        names.insert(ROOT_LOGGER.to_owned());
        names
    }

    /// The level of `name`, if such a logger exists (see [`current`](Self::current) and
    /// [`kafka_names::is_known`]).
    fn level(&self, name: &str) -> Option<LoggerLevel> {
        (is_root(name) || self.levels.contains_key(name) || kafka_names::is_known(name))
            .then(|| self.report(name))
    }

    /// Sets `name` and every logger with a level of its own whose name starts with `name`
    /// (every logger for `root`) to `level`, as log4j's `Configurator.setAllLevels`; returns
    /// the loggers (of `name` and those below it) whose level changed, sorted, and records
    /// `now` as their last change.
    fn set(
        &mut self,
        name: &str,
        level: LogLevel,
        now: u64,
    ) -> Result<Vec<String>, InvalidLoggerName> {
        check_name(name)?;
        let root = is_root(name);
        let candidates: Vec<String> = if root {
            self.current().into_iter().collect()
        } else {
            let mut c: Vec<String> = self
                .current()
                .into_iter()
                .filter(|n| n.starts_with(name))
                .collect();
            if !c.iter().any(|n| n == name) {
                c.push(name.to_owned());
            }
            c
        };
        let before: Vec<LogLevel> = candidates.iter().map(|n| self.effective(n)).collect();
        self.seq += 1;
        let seq = self.seq;
        if root {
            self.root = level;
        } else {
            self.levels.insert(name.to_owned(), (level, seq));
        }
        for (n, l) in &mut self.levels {
            if root || n.starts_with(name) {
                *l = (level, seq);
            }
        }
        let mut affected: Vec<String> = candidates
            .into_iter()
            .zip(before)
            .filter(|(n, old)| self.effective(n) != *old)
            .map(|(n, _)| n)
            .collect();
        for n in &affected {
            self.modified.insert(n.clone(), now);
        }
        affected.sort();
        Ok(affected)
    }

    /// Every existing logger whose level is not `OFF`, sorted by name (as Kafka Connect's
    /// `GET /admin/loggers`).
    fn all(&self) -> BTreeMap<String, LoggerLevel> {
        self.current()
            .into_iter()
            .map(|n| {
                let r = self.report(&n);
                (n, r)
            })
            .filter(|(_, r)| r.level != LogLevel::Off)
            .collect()
    }
}

/// Checks that `name` can be a logger: `root`, or a name whose tracing targets can be set in
/// a filter directive (a plain target, see [`directive`]). Changes nothing.
///
/// # Errors
/// `name` cannot be a tracing target (e.g. it contains `=` or `[`): Kafka Connect's 404 message
/// `Logger <name> not found.`
pub fn check_name(name: &str) -> Result<(), InvalidLoggerName> {
    if is_root(name) {
        return Ok(());
    }
    for target in targets_of(name) {
        directive(&target, LogLevel::Info).map_err(|()| InvalidLoggerName(name.to_owned()))?;
    }
    Ok(())
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

    /// Every existing logger (`root`, the Kafka logger names connect-rs knows, every logger
    /// set before) whose level is not `OFF`, sorted by name.
    pub fn all(&self) -> BTreeMap<String, LoggerLevel> {
        self.lock().model.all()
    }

    /// The level of the logger `name`, if it exists (`root`, a logger set before, a Kafka
    /// logger name of [`KAFKA_LOGGERS`] or one of their tracing targets); one without a level
    /// of its own has that of the closest logger above it with one, else the root level.
    pub fn level(&self, name: &str) -> Option<LoggerLevel> {
        self.lock().model.level(name)
    }

    /// Sets the level of `name` (`root`: the default level) and of the loggers set before whose
    /// name starts with it, and installs the new filter; returns the loggers whose level
    /// changed, sorted (Kafka Connect's answer to `PUT /admin/loggers/{name}`).
    ///
    /// # Errors
    /// `name` cannot be a tracing target (e.g. it contains `=` or `[`).
    pub fn set(&self, name: &str, level: LogLevel) -> Result<Vec<String>, InvalidLoggerName> {
        check_name(name)?;
        tracing::info!("Setting level of namespace {name} and children to {level}");
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

    /// Sets `name` to the level named `level` (any case), as Kafka Connect's
    /// `setWorkerLoggerLevel` applies a cluster-wide level read from the config topic (KIP-976):
    /// an invalid level, or a name that cannot be a logger, is logged and ignored. Returns the
    /// loggers whose level changed (see [`set`](Self::set)).
    pub fn set_named(&self, name: &str, level: &str) -> Vec<String> {
        let parsed = match level.parse::<LogLevel>() {
            Ok(parsed) => parsed,
            Err(_) => {
                tracing::warn!(
                    "Ignoring request to set invalid level '{level}' for namespace {name}"
                );
                return Vec::new();
            }
        };
        self.set(name, parsed).unwrap_or_else(|e| {
            tracing::warn!("Ignoring request to set level {parsed} for namespace {name}: {e}");
            Vec::new()
        })
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
        .with_writer(crate::progress::log_writer::StderrAboveProgress)
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
        assert!(all.contains_key("connect_rs::worker"));
        assert!(all.contains_key("org.apache.kafka.connect.runtime.WorkerSourceTask"));
        assert!(!all.contains_key("org.apache.kafka.connect.runtime"));
        assert_eq!(all["root"].level, LogLevel::Warn);
        assert_eq!(all["rdkafka"].level, LogLevel::Trace);
        assert_eq!(all["connect_rs::worker"].last_modified, None);
        let level = |n: &str| l.level(n).map(|r| r.level);
        assert_eq!(
            level("connect_rs.worker.source_task"),
            Some(LogLevel::Debug)
        );
        assert_eq!(level("connect_rs::rest"), Some(LogLevel::Warn));
        assert_eq!(level("org.apache.kafka"), None);
        assert_eq!(
            level("org.apache.kafka.connect.runtime.WorkerSinkTask"),
            Some(LogLevel::Warn)
        );
        assert_eq!(level("ROOT"), Some(LogLevel::Warn));
        assert_eq!(level("no.such.logger"), None);
        let off = LogLevels::detached("connect_rs=info");
        assert_eq!(off.level("root").map(|r| r.level), Some(LogLevel::Off));
        assert!(!off.all().contains_key("root"));
    }

    #[test]
    fn setting_a_namespace_sets_the_loggers_below_it() {
        let l = LogLevels::detached("info,connect_rs.worker.sink=warn,rdkafka=error");
        let affected = l.set("connect_rs.worker", LogLevel::Debug).unwrap();
        assert_eq!(
            affected,
            names(&["connect_rs.worker", "connect_rs.worker.sink"])
        );
        let own = l.level("connect_rs.worker").unwrap();
        assert_eq!(own.level, LogLevel::Debug);
        assert!(own.last_modified.is_some());
        assert_eq!(
            l.level("connect_rs.worker.sink").unwrap().level,
            LogLevel::Debug
        );
        assert_eq!(l.level("rdkafka").unwrap().level, LogLevel::Error);
        // Setting the same level again changes nothing and lists nothing.
        assert!(l
            .set("connect_rs.worker", LogLevel::Debug)
            .unwrap()
            .is_empty());

        let affected = l.set("root", LogLevel::Fatal).unwrap();
        assert!(affected.contains(&"root".to_owned()), "{affected:?}");
        assert!(affected.contains(&"rdkafka".to_owned()), "{affected:?}");
        assert!(l.all().values().all(|v| v.level == LogLevel::Fatal));
    }

    #[test]
    fn kafka_logger_names_are_read_back_and_drive_their_targets() {
        let l = LogLevels::detached("info");
        let affected = l
            .set("org.apache.kafka.connect.runtime", LogLevel::Debug)
            .unwrap();
        assert_eq!(
            affected,
            names(&[
                "org.apache.kafka.connect.runtime",
                "org.apache.kafka.connect.runtime.WorkerSinkTask",
                "org.apache.kafka.connect.runtime.WorkerSourceTask",
                "org.apache.kafka.connect.runtime.standalone.StandaloneHerder",
            ])
        );
        let own = l.level("org.apache.kafka.connect.runtime").unwrap();
        assert_eq!(own.level, LogLevel::Debug);
        assert!(own.last_modified.is_some());
        assert!(!l.all().contains_key("org::apache::kafka::connect::runtime"));
        let text = l.lock().model.filter().to_string();
        assert!(text.contains("connect_rs::worker=debug"), "{text}");
        assert!(text.contains("connect_rs::herder=debug"), "{text}");
        // The latest change wins where two names stand for one target.
        l.set("connect_rs.worker", LogLevel::Warn).unwrap();
        let text = l.lock().model.filter().to_string();
        assert!(text.contains("connect_rs::worker=warn"), "{text}");
    }

    #[test]
    fn a_level_by_name_is_set_as_kafka_connect_applies_a_cluster_level() {
        let l = LogLevels::detached("info");
        assert_eq!(
            l.set_named("connect_rs.worker", "debug"),
            ["connect_rs.worker"]
        );
        assert_eq!(
            l.level("connect_rs.worker").map(|r| r.level),
            Some(LogLevel::Debug)
        );
        // An invalid level or a name that is no logger changes nothing.
        assert!(l.set_named("connect_rs.worker", "LOUD").is_empty());
        assert!(l.set_named("a=b", "WARN").is_empty());
        assert_eq!(
            l.level("connect_rs.worker").map(|r| r.level),
            Some(LogLevel::Debug)
        );
        assert!(l.level("a=b").is_none());
        assert_eq!(
            check_name("a[b]"),
            Err(InvalidLoggerName("a[b]".to_owned()))
        );
        assert_eq!(check_name("ROOT"), Ok(()));
        assert_eq!(check_name("org.apache.kafka.connect.runtime"), Ok(()));
    }

    #[test]
    fn builds_the_filter_and_rejects_names_that_are_no_targets() {
        let l = LogLevels::detached("info");
        assert!(l.set("a=b", LogLevel::Info).is_err());
        assert!(l.set("a[b]", LogLevel::Info).is_err());
        assert!(l.set("a,b", LogLevel::Info).is_err());
        let e = l.set(" a", LogLevel::Info).unwrap_err();
        assert_eq!(e.to_string(), "Logger  a not found.");
        assert_eq!(
            l.set("connect_rs::x", LogLevel::Off).unwrap(),
            ["connect_rs::x"]
        );
        let model = l.lock().model.clone();
        let text = model.filter().to_string();
        assert!(text.contains("connect_rs::x=off"), "{text}");
        assert!(text.contains("info"), "{text}");
    }
}
