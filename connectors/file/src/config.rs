//! Configuration keys of the FileStream connectors (Kafka's `FileStreamSourceConnector.CONFIG_DEF`
//! and `FileStreamSinkConnector.CONFIG_DEF`).

use connect_api::config_def::Default as KeyDefault;
use connect_api::{
    ConfigDef, ConfigIssue, ConfigKey, ConfigMap, ConfigType, ConfigValues, ConnectError,
    Importance, Result, Validator,
};

/// Class name of the source connector.
pub const SOURCE_CONNECTOR_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";
/// Class name of the sink connector.
pub const SINK_CONNECTOR_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSinkConnector";
/// Kafka's class name of the source task (`task.class` in its task configurations).
pub const SOURCE_TASK_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSourceTask";
/// Kafka's class name of the sink task (`task.class` in its task configurations).
pub const SINK_TASK_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSinkTask";

/// `file`: the file to read (source) or append to (sink); stdin/stdout when unset.
pub const FILE_CONFIG: &str = "file";
/// `exactly.once` (sink, connect-rs only): keep the output file exact across crashes.
pub const EXACTLY_ONCE_CONFIG: &str = "exactly.once";
/// `tasks.max` (a connector key of the runtime, present in the task configurations).
const TASKS_MAX_CONFIG: &str = "tasks.max";
/// `topic`: the topic the source publishes to.
pub const TOPIC_CONFIG: &str = "topic";
/// `batch.size`: the most records one `poll` returns.
pub const TASK_BATCH_SIZE_CONFIG: &str = "batch.size";
/// Default of `batch.size`.
pub const DEFAULT_TASK_BATCH_SIZE: i32 = 2000;

/// The source connector's configuration keys: `file`, `topic`, `batch.size`.
pub fn source_config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            FILE_CONFIG,
            ConfigType::String,
            KeyDefault::Null,
            Importance::High,
            "Source filename. If not specified, the standard input will be used",
        ))
        .define(
            ConfigKey::new(
                TOPIC_CONFIG,
                ConfigType::String,
                KeyDefault::Required,
                Importance::High,
                "The topic to publish data to",
            )
            .validator(Validator::NonEmptyString),
        )
        .define(
            ConfigKey::new(
                TASK_BATCH_SIZE_CONFIG,
                ConfigType::Int,
                KeyDefault::Value("2000"),
                Importance::Low,
                "The maximum number of records the source task can read from the file each time \
                 it is polled",
            )
            .validator(Validator::at_least(1.0)),
        )
}

/// The sink connector's configuration keys: `file`, and connect-rs's `exactly.once`.
pub fn sink_config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            FILE_CONFIG,
            ConfigType::String,
            KeyDefault::Null,
            Importance::High,
            "Destination filename. If not specified, the standard output will be used",
        ))
        .define(ConfigKey::new(
            EXACTLY_ONCE_CONFIG,
            ConfigType::Boolean,
            KeyDefault::Null,
            Importance::Medium,
            "connect-rs only: store the file's length with each offset commit and, on start, \
             cut the file back to the committed length, so the file holds every record exactly \
             once after any crash. Needs a file and tasks.max=1; only output this connector \
             wrote after its last commit is ever cut. Unset: true on the embedded log (a worker \
             without bootstrap.servers) where it applies (a file and tasks.max=1), false \
             otherwise and always with Kafka; false: append only, as Kafka Connect",
        ))
}

/// Parses `props` with `def`, turning every issue into one configuration error.
pub(crate) fn parse(def: &ConfigDef, props: &ConfigMap) -> Result<ConfigValues> {
    def.parse(props).map_err(|issues: Vec<ConfigIssue>| {
        let key = issues.first().map(|i| i.key.clone()).unwrap_or_default();
        let message = issues
            .iter()
            .map(|i| i.message.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        ConnectError::config(key, message)
    })
}

/// Source settings, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceSettings {
    /// The file, or `None` for stdin.
    pub filename: Option<String>,
    /// Destination topic.
    pub topic: String,
    /// Records per poll, at least 1.
    pub batch_size: usize,
}

impl SourceSettings {
    /// Parses and validates the source configuration.
    pub(crate) fn parse(props: &ConfigMap) -> Result<Self> {
        let values = parse(&source_config_def(), props)?;
        let filename = values
            .string(FILE_CONFIG)
            .filter(|f| !f.is_empty())
            .map(str::to_owned);
        let topic = values.string(TOPIC_CONFIG).unwrap_or_default().to_owned();
        let batch_size = values
            .int(TASK_BATCH_SIZE_CONFIG)
            .and_then(|b| usize::try_from(b).ok())
            .unwrap_or(2000)
            .max(1);
        Ok(Self {
            filename,
            topic,
            batch_size,
        })
    }
}

/// Sink settings, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SinkSettings {
    /// The file, or `None` for stdout.
    pub filename: Option<String>,
    /// `exactly.once` as configured (`None`: unset, see [`SinkSettings::exact`]).
    pub exactly_once: Option<bool>,
    /// `tasks.max` (Kafka Connect's default 1 when absent; `None` when not a number).
    pub tasks_max: Option<i64>,
}

impl SinkSettings {
    /// Parses and validates the sink configuration (`exactly.once=true` needs a file).
    pub(crate) fn parse(props: &ConfigMap) -> Result<Self> {
        let values = parse(&sink_config_def(), props)?;
        let filename = values
            .string(FILE_CONFIG)
            .filter(|f| !f.is_empty())
            .map(str::to_owned);
        let exactly_once = values.boolean(EXACTLY_ONCE_CONFIG);
        let tasks_max = match props.get(TASKS_MAX_CONFIG) {
            None => Some(1),
            Some(v) => v.trim().parse().ok(),
        };
        if exactly_once == Some(true) && filename.is_none() {
            return Err(ConnectError::config(
                EXACTLY_ONCE_CONFIG,
                "exactly.once=true needs a file: output to the standard output cannot be cut \
                 back after a crash",
            ));
        }
        Ok(Self {
            filename,
            exactly_once,
            tasks_max,
        })
    }

    /// Whether the output is kept exact: `exactly.once` when set; unset, `default` (the
    /// runtime's, true on the embedded log) where the mode applies: a file and one task.
    pub(crate) fn exact(&self, default: bool) -> bool {
        self.exactly_once
            .unwrap_or(default && self.filename.is_some() && self.tasks_max == Some(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn source_defaults_and_validation() {
        let s = SourceSettings::parse(&props(&[("topic", "t")])).unwrap();
        assert_eq!(
            s,
            SourceSettings {
                filename: None,
                topic: "t".into(),
                batch_size: 2000
            }
        );
        let err = SourceSettings::parse(&props(&[("topic", " "), ("batch.size", "0")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("String must be non-empty"), "{err}");
        assert!(err.contains("Value must be at least 1"), "{err}");
        let err = SourceSettings::parse(&props(&[])).unwrap_err().to_string();
        assert!(
            err.contains("Missing required configuration \"topic\""),
            "{err}"
        );
    }

    #[test]
    fn sink_exactly_once_defaults_to_the_runtime_where_it_applies_and_needs_a_file() {
        let exact = |pairs: &[(&str, &str)], default: bool| {
            SinkSettings::parse(&props(pairs)).unwrap().exact(default)
        };
        // Unset: the runtime's default, where the mode applies (a file, one task).
        assert!(exact(&[("file", "/tmp/x")], true));
        assert!(exact(&[("file", "/tmp/x"), ("tasks.max", "1")], true));
        assert!(!exact(&[("file", "/tmp/x")], false));
        assert!(!exact(&[("file", "/tmp/x"), ("tasks.max", "2")], true));
        assert!(!exact(&[("file", "/tmp/x"), ("tasks.max", "x")], true));
        assert!(!exact(&[], true), "stdout");
        // Set: as configured, whatever the runtime's default.
        assert!(!exact(
            &[("file", "/tmp/x"), ("exactly.once", "false")],
            true
        ));
        assert!(exact(
            &[("file", "/tmp/x"), ("exactly.once", "true")],
            false
        ));
        let err = SinkSettings::parse(&props(&[("exactly.once", "true")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("exactly.once=true needs a file"), "{err}");
    }

    #[test]
    fn sink_file_is_optional() {
        assert_eq!(SinkSettings::parse(&props(&[])).unwrap().filename, None);
        assert_eq!(
            SinkSettings::parse(&props(&[("file", "/tmp/x")]))
                .unwrap()
                .filename
                .as_deref(),
            Some("/tmp/x")
        );
    }
}
