//! `ConnectorConfig`: a connector's configuration validated against Kafka Connect's common
//! connector keys, the sink or source keys, and the connector plugin's own `ConfigDef`, with
//! Kafka's messages. Every problem is reported at once; unknown keys are only warnings.

use std::time::Duration;

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConfigValue, ConfigValues, Importance, Validator,
    Width,
};

use super::error::{ConfigError, ConfigProblem, ConfigWarning};
use super::raw::RawConfig;
use super::validate::{check_dynamic, invalid, parse_def, unknown_key_warnings};

/// Whether a connector is a source or a sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectorKind {
    /// Reads from an external system and writes to topics.
    Source,
    /// Reads from topics and writes to an external system.
    Sink,
}

/// `errors.tolerance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorTolerance {
    /// The first error fails the task (default).
    None,
    /// Problematic records are skipped (logged / dead-lettered).
    All,
}

use ConfigType::{Boolean, Class, Int, List, Long, Short, String as Str};
use Importance::{High, Low};

fn key(
    name: &'static str,
    config_type: ConfigType,
    default: Def,
    importance: Importance,
    doc: &'static str,
) -> ConfigKey {
    ConfigKey::new(name, config_type, default, importance, doc)
}

/// Group names of the connector keys, as Kafka Connect reports them.
const COMMON: &str = "Common";
const ERRORS: &str = "Error Handling";
const EXACTLY_ONCE: &str = "Exactly Once Support";

/// The key naming a connector's plugin (Kafka's `ConnectorConfig.CONNECTOR_CLASS_CONFIG`).
pub const CONNECTOR_CLASS_CONFIG: &str = "connector.class";

/// `connector.plugin.version`: the connector plugin version to use (KIP-891); its default is
/// the version of the connector plugin, filled in by the REST layer.
pub const CONNECTOR_VERSION: &str = "connector.plugin.version";

/// The `*.plugin.version` key of a converter class key (`key.converter` →
/// `key.converter.plugin.version`, KIP-891).
pub fn plugin_version_key(class_key: &str) -> String {
    format!("{class_key}.plugin.version")
}

/// A converter class key and its `.plugin.version` key, at `order` and `order + 1` in `Common`.
fn converter_keys(
    def: ConfigDef,
    class_key: &'static str,
    version_key: &'static str,
    order: i32,
    (class_display, version_display): (&'static str, &'static str),
    (class_doc, version_doc): (&'static str, &'static str),
) -> ConfigDef {
    def.define(
        key(class_key, Class, Def::Null, Low, class_doc)
            .in_group(COMMON, order)
            .display(Width::Short, class_display),
    )
    .define(
        key(version_key, Str, Def::Null, Low, version_doc)
            .in_group(COMMON, order + 1)
            .display(Width::Short, version_display),
    )
}

/// The keys of every connector (Kafka's `ConnectorConfig`, with its groups, orders, widths
/// and display names). `name` is checked separately for emptiness and control characters
/// (Kafka's `NonEmptyStringWithoutControlChars`).
pub fn common_connector_def() -> ConfigDef {
    let def = ConfigDef::new()
        .define(
            key(
                "name",
                Str,
                Def::Required,
                High,
                "Globally unique name of this connector.",
            )
            .in_group(COMMON, 1)
            .display(Width::Medium, "Connector name"),
        )
        .define(
            key(
                CONNECTOR_CLASS_CONFIG,
                Str,
                Def::Required,
                High,
                "Class name or alias of the connector, e.g. FileStreamSource.",
            )
            .in_group(COMMON, 2)
            .display(Width::Long, "Connector class"),
        )
        .define(
            key(
                CONNECTOR_VERSION,
                Str,
                Def::Null,
                Importance::Medium,
                "Version of the connector plugin.",
            )
            .in_group(COMMON, 3)
            .display(Width::Medium, "Connector version"),
        )
        .define(
            key(
                "tasks.max",
                Int,
                Def::Value("1"),
                High,
                "Maximum number of tasks.",
            )
            .validator(Validator::at_least(1.0))
            .in_group(COMMON, 4)
            .display(Width::Short, "Tasks max"),
        )
        .define(
            key(
                "tasks.max.enforce",
                Boolean,
                Def::Value("true"),
                Low,
                "(Deprecated) Fail a connector that generates more than tasks.max tasks.",
            )
            .in_group(COMMON, 5)
            .display(Width::Short, "Enforce tasks max"),
        );
    let def = converter_keys(
        def,
        "key.converter",
        "key.converter.plugin.version",
        6,
        ("Key converter class", "Key converter version"),
        (
            "Key converter; inherited from the worker when unset.",
            "Version of the key converter.",
        ),
    );
    let def = converter_keys(
        def,
        "value.converter",
        "value.converter.plugin.version",
        8,
        ("Value converter class", "Value converter version"),
        (
            "Value converter; inherited from the worker when unset.",
            "Version of the value converter.",
        ),
    );
    converter_keys(
        def,
        "header.converter",
        "header.converter.plugin.version",
        10,
        ("Header converter class", "Header converter version"),
        (
            "Header converter; inherited from the worker when unset.",
            "Version of the header converter.",
        ),
    )
    .define(
        key(
            "transforms",
            List,
            Def::Value(""),
            Low,
            "Aliases of the transformations to apply.",
        )
        .in_group("Transforms", 12)
        .display(Width::Long, "Transforms"),
    )
    .define(
        key(
            "predicates",
            List,
            Def::Value(""),
            Low,
            "Aliases of the predicates used by transformations.",
        )
        .in_group("Predicates", 13)
        .display(Width::Long, "Predicates"),
    )
    .define(
        key(
            "config.action.reload",
            Str,
            Def::Value("restart"),
            Low,
            "What to do when a config provider value changes: none or restart.",
        )
        .validator(Validator::OneOf(&["none", "restart"]))
        .in_group(COMMON, 14)
        .display(Width::Medium, "Reload Action"),
    )
    .define(
        key(
            "errors.retry.timeout",
            Long,
            Def::Value("0"),
            Importance::Medium,
            "Maximum time in ms to retry a failed operation; -1 retries forever.",
        )
        .in_group(ERRORS, 1)
        .display(Width::Medium, "Retry Timeout for Errors"),
    )
    .define(
        key(
            "errors.retry.delay.max.ms",
            Long,
            Def::Value("60000"),
            Importance::Medium,
            "Maximum delay in ms between retries.",
        )
        .in_group(ERRORS, 2)
        .display(Width::Medium, "Maximum Delay Between Retries for Errors"),
    )
    .define(
        key(
            "errors.tolerance",
            Str,
            Def::Value("none"),
            Importance::Medium,
            "none: an error fails the task; all: problematic records are skipped.",
        )
        .validator(Validator::OneOf(&["none", "all"]))
        .in_group(ERRORS, 3)
        .display(Width::Short, "Error Tolerance"),
    )
    .define(
        key(
            "errors.log.enable",
            Boolean,
            Def::Value("false"),
            Importance::Medium,
            "Log each error and the failed operation.",
        )
        .in_group(ERRORS, 4)
        .display(Width::Short, "Log Errors"),
    )
    .define(
        key(
            "errors.log.include.messages",
            Boolean,
            Def::Value("false"),
            Importance::Medium,
            "Include the record in error logs.",
        )
        .in_group(ERRORS, 5)
        .display(Width::Short, "Log Error Details"),
    )
}

/// The keys of sink connectors (Kafka's `SinkConnectorConfig`).
pub fn sink_connector_def() -> ConfigDef {
    common_connector_def()
        .define(
            key("topics", List, Def::Value(""), High, "Topics to consume.")
                .in_group(COMMON, 4)
                .display(Width::Long, "Topics"),
        )
        .define(
            key(
                "topics.regex",
                Str,
                Def::Value(""),
                High,
                "Regex of the topics to consume.",
            )
            .in_group(COMMON, 4)
            .display(Width::Long, "Topics regex"),
        )
        .define(
            key(
                "errors.deadletterqueue.topic.name",
                Str,
                Def::Value(""),
                Importance::Medium,
                "Dead letter queue topic; empty = none.",
            )
            .in_group(ERRORS, 6)
            .display(Width::Medium, "Dead Letter Queue Topic Name"),
        )
        .define(
            key(
                "errors.deadletterqueue.topic.replication.factor",
                Short,
                Def::Value("3"),
                Importance::Medium,
                "Replication factor of the dead letter queue topic.",
            )
            .in_group(ERRORS, 7)
            .display(Width::Medium, "Dead Letter Queue Topic Replication Factor"),
        )
        .define(
            key(
                "errors.deadletterqueue.context.headers.enable",
                Boolean,
                Def::Value("false"),
                Importance::Medium,
                "Add error context headers to dead-lettered records.",
            )
            .in_group(ERRORS, 8)
            .display(Width::Medium, "Enable Error Context Headers"),
        )
}

/// The keys of source connectors (Kafka's `SourceConnectorConfig`, basic keys; the
/// `topic.creation.default.*` keys are checked when any `topic.creation.` key is present).
pub fn source_connector_def() -> ConfigDef {
    common_connector_def()
        .define(
            key(
                "topic.creation.groups",
                List,
                Def::Value(""),
                Low,
                "Topic creation groups besides 'default'.",
            )
            .in_group("Topic Creation", 1)
            .display(Width::Long, "Topic Creation Groups"),
        )
        .define(
            key(
                "exactly.once.support",
                Str,
                Def::Value("requested"),
                Importance::Medium,
                "requested or required.",
            )
            .validator(Validator::OneOf(&["requested", "required"]))
            .in_group(EXACTLY_ONCE, 2)
            .display(Width::Short, "Exactly once support"),
        )
        .define(
            key(
                "transaction.boundary",
                Str,
                Def::Value("poll"),
                Importance::Medium,
                "poll, interval or connector.",
            )
            .validator(Validator::OneOf(&["poll", "interval", "connector"]))
            .in_group(EXACTLY_ONCE, 3)
            .display(Width::Short, "Transaction Boundary"),
        )
        .define(
            key(
                "transaction.boundary.interval.ms",
                Long,
                Def::Null,
                Low,
                "Transaction interval when transaction.boundary=interval.",
            )
            .validator(Validator::at_least(0.0))
            .in_group(EXACTLY_ONCE, 4)
            .display(Width::Short, "Transaction boundary interval"),
        )
        .define(
            key(
                "offsets.storage.topic",
                Str,
                Def::Null,
                Low,
                "Per-connector offsets topic (distributed mode).",
            )
            // Kafka Connect's group name for this key is `offsets.topic`, not a title.
            .in_group("offsets.topic", 1)
            .display(Width::Long, "Offsets topic"),
        )
}

/// The framework definition for `kind`, merged with the plugin's own keys (framework keys win).
pub fn connector_def(kind: ConnectorKind, plugin_def: &ConfigDef) -> ConfigDef {
    match kind {
        ConnectorKind::Source => source_connector_def(),
        ConnectorKind::Sink => sink_connector_def(),
    }
    .merge(plugin_def)
}

/// A validated connector configuration with typed accessors.
#[derive(Debug, Clone)]
pub struct ConnectorConfig {
    kind: ConnectorKind,
    values: ConfigValues,
    raw: RawConfig,
    warnings: Vec<ConfigWarning>,
}

/// Validates `raw` as a connector of `kind` whose plugin defines `plugin_def`.
///
/// # Errors
/// Every problem at once, each with file, line (when the key is present) and key.
pub fn validate(
    raw: &RawConfig,
    kind: ConnectorKind,
    plugin_def: &ConfigDef,
) -> Result<ConnectorConfig, ConfigError> {
    ConnectorConfig::validate(raw, kind, plugin_def)
}

/// Kafka's `NonEmptyStringWithoutControlChars` on `name`.
fn check_name(raw: &RawConfig, problems: &mut Vec<ConfigProblem>) {
    let Some(name) = raw.get("name") else { return };
    let name = name.trim();
    if name.is_empty() {
        problems.push(invalid(raw, "name", name, "String may not be empty"));
        return;
    }
    let controls: Vec<String> = name
        .chars()
        .filter(|c| c.is_control())
        .map(|c| u32::from(c).to_string())
        .collect();
    if !controls.is_empty() {
        problems.push(invalid(
            raw,
            "name",
            name,
            &format!(
                "String may not contain control sequences but had the following ASCII chars: {}",
                controls.join(", ")
            ),
        ));
    }
}

fn list_of(raw: &RawConfig, key: &str) -> Vec<String> {
    match raw.get(key).map(str::trim) {
        Some(s) if !s.is_empty() => s.split(',').map(|a| a.trim().to_owned()).collect(),
        _ => Vec::new(),
    }
}

/// `transforms` / `predicates`: unique aliases, each with a `type`; transform predicates.
fn check_aliases(raw: &RawConfig, problems: &mut Vec<ConfigProblem>) {
    let predicates = list_of(raw, "predicates");
    for (list_key, aliases) in [
        ("transforms", list_of(raw, "transforms")),
        ("predicates", predicates.clone()),
    ] {
        let mut seen = Vec::new();
        for alias in &aliases {
            if seen.contains(alias) {
                problems.push(invalid(
                    raw,
                    list_key,
                    raw.get(list_key).unwrap_or_default(),
                    "Duplicate alias provided.",
                ));
                break;
            }
            seen.push(alias.clone());
        }
        seen.dedup();
        for alias in seen {
            let prefix = format!("{list_key}.{alias}.");
            check_dynamic(raw, &format!("{prefix}type"), Class, true, problems);
            if list_key != "transforms" {
                continue;
            }
            let predicate_key = format!("{prefix}predicate");
            let negate_key = format!("{prefix}negate");
            check_dynamic(raw, &negate_key, Boolean, false, problems);
            if raw.contains_key(&negate_key) && !raw.contains_key(&predicate_key) {
                problems.push(ConfigProblem::for_key(
                    raw.origin_or_source(&negate_key),
                    negate_key.clone(),
                    format!(
                        "Config '{negate_key}' was provided but there is no config \
                         '{predicate_key}' defining a predicate to be negated."
                    ),
                ));
            }
            if let Some(ConfigValue::String(p)) =
                check_dynamic(raw, &predicate_key, Str, false, problems)
            {
                if !p.is_empty() && !predicates.contains(&p) {
                    problems.push(invalid(
                        raw,
                        &predicate_key,
                        &p,
                        &format!("There is no predicate with alias '{p}' in 'predicates'"),
                    ));
                }
            }
        }
    }
}

/// Kafka's `SinkConnectorConfig.validate`.
fn check_sink(raw: &RawConfig, problems: &mut Vec<ConfigProblem>) {
    let non_blank = |k: &str| raw.get(k).is_some_and(|v| !v.trim().is_empty());
    let has_topics = non_blank("topics");
    let has_regex = non_blank("topics.regex");
    if has_topics && has_regex {
        problems.push(ConfigProblem::for_key(
            raw.origin_or_source("topics"),
            "topics",
            "topics and topics.regex are mutually exclusive options, but both are set.",
        ));
    } else if !has_topics && !has_regex {
        problems.push(ConfigProblem::for_key(
            raw.origin_or_source("topics"),
            "topics",
            "Must configure one of topics or topics.regex",
        ));
    }
    let regex =
        raw.get("topics.regex").filter(|_| has_regex).and_then(|r| {
            match regex::Regex::new(&format!("^(?:{r})$")) {
                Ok(re) => Some(re),
                Err(e) => {
                    problems.push(invalid(
                        raw,
                        "topics.regex",
                        r,
                        &format!("Invalid regex: {e}"),
                    ));
                    None
                }
            }
        });
    if let Some(dlq) = raw
        .get("errors.deadletterqueue.topic.name")
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        let topics: Vec<String> = list_of(raw, "topics")
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect();
        if has_topics && topics.iter().any(|t| t == dlq) {
            problems.push(ConfigProblem::for_key(
                raw.origin_or_source("errors.deadletterqueue.topic.name"),
                "errors.deadletterqueue.topic.name",
                format!(
                    "The DLQ topic '{dlq}' may not be included in the list of topics \
                     ('topics.regex=[{}]') consumed by the connector",
                    topics.join(", ")
                ),
            ));
        }
        if let (Some(re), Some(r)) = (regex, raw.get("topics.regex")) {
            if re.is_match(dlq) {
                problems.push(ConfigProblem::for_key(
                    raw.origin_or_source("errors.deadletterqueue.topic.name"),
                    "errors.deadletterqueue.topic.name",
                    format!(
                        "The DLQ topic '{dlq}' may not be included in the regex matching the \
                         topics ('topics.regex={r}') consumed by the connector"
                    ),
                ));
            }
        }
    }
}

/// Kafka's topic name rules on the topics a configuration names literally: each `topics`
/// entry of a sink and the dead letter queue topic (an empty one means none). Kafka Connect
/// does not check them when it validates; the task fails on its first write or subscription.
fn check_topic_names(raw: &RawConfig, kind: ConnectorKind, problems: &mut Vec<ConfigProblem>) {
    let mut check = |key: &str, name: &str| {
        if let Some(message) = connect_api::topic_name_problem(name) {
            problems.push(ConfigProblem::for_key(
                raw.origin_or_source(key),
                key,
                message,
            ));
        }
    };
    if kind == ConnectorKind::Sink {
        for topic in list_of(raw, "topics") {
            check("topics", &topic);
        }
    }
    let dlq = "errors.deadletterqueue.topic.name";
    if let Some(name) = raw.get(dlq).map(str::trim).filter(|d| !d.is_empty()) {
        check(dlq, name);
    }
}

/// The dead letter queue keys a source connector accepts (connect-rs's extension; Kafka
/// Connect has them for sinks only).
pub const SOURCE_DLQ_KEYS: [&str; 3] = [
    "errors.deadletterqueue.topic.name",
    "errors.deadletterqueue.topic.replication.factor",
    "errors.deadletterqueue.context.headers.enable",
];

/// A source's dead letter queue keys, checked as the sink definition checks them.
fn check_source_dlq(raw: &RawConfig, problems: &mut Vec<ConfigProblem>) {
    if let Some(v) = raw.get(SOURCE_DLQ_KEYS[1]) {
        if v.trim().parse::<i16>().map_or(true, |n| n == 0 || n < -1) {
            problems.push(invalid(
                raw,
                SOURCE_DLQ_KEYS[1],
                v,
                "Not a number of type SHORT (1 or more, or -1 for the broker's default)",
            ));
        }
    }
    if let Some(v) = raw.get(SOURCE_DLQ_KEYS[2]) {
        let t = v.trim();
        if !t.eq_ignore_ascii_case("true") && !t.eq_ignore_ascii_case("false") {
            problems.push(invalid(
                raw,
                SOURCE_DLQ_KEYS[2],
                v,
                "Expected value to be either true or false",
            ));
        }
    }
}

/// Kafka's `TopicCreationConfig` for the default group, when topic creation is configured.
fn check_source(raw: &RawConfig, problems: &mut Vec<ConfigProblem>) {
    if !raw.keys().any(|k| k.starts_with("topic.creation.")) {
        return;
    }
    let rf = "topic.creation.default.replication.factor";
    if let Some(ConfigValue::Short(v)) = check_dynamic(raw, rf, Short, true, problems) {
        if v != -1 && v < 1 {
            problems.push(invalid(raw, rf, &v.to_string(),
                "Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, or -1 to use the broker's default"));
        }
    }
    let partitions = "topic.creation.default.partitions";
    if let Some(ConfigValue::Int(v)) = check_dynamic(raw, partitions, Int, true, problems) {
        if v != -1 && v < 1 {
            problems.push(invalid(
                raw,
                partitions,
                &v.to_string(),
                "Number of partitions must be positive, or -1 to use the broker's default",
            ));
        }
    }
}

impl ConnectorConfig {
    /// Validates `raw` as a connector of `kind` whose plugin defines `plugin_def`
    /// (see the free function [`validate`]).
    ///
    /// # Errors
    /// Every problem at once, each with file, line (when the key is present) and key.
    pub fn validate(
        raw: &RawConfig,
        kind: ConnectorKind,
        plugin_def: &ConfigDef,
    ) -> Result<Self, ConfigError> {
        let def = connector_def(kind, plugin_def);
        let mut warnings: Vec<ConfigWarning> = raw.duplicate_warnings().to_vec();
        warnings.extend(
            unknown_key_warnings(raw, &def, |_| None)
                .into_iter()
                .filter(|w| {
                    !(kind == ConnectorKind::Source && SOURCE_DLQ_KEYS.contains(&w.key.as_str()))
                }),
        );
        let (values, mut problems) = parse_def(raw, &def);
        check_name(raw, &mut problems);
        check_aliases(raw, &mut problems);
        match kind {
            ConnectorKind::Sink => check_sink(raw, &mut problems),
            ConnectorKind::Source => check_source(raw, &mut problems),
        }
        if kind == ConnectorKind::Source {
            check_source_dlq(raw, &mut problems);
        }
        check_topic_names(raw, kind, &mut problems);
        match values {
            Some(values) if problems.is_empty() => Ok(Self {
                kind,
                values,
                raw: raw.clone(),
                warnings,
            }),
            _ => Err(ConfigError::Invalid { problems, warnings }),
        }
    }

    /// Source or sink.
    pub fn kind(&self) -> ConnectorKind {
        self.kind
    }

    /// Unknown and duplicate keys; log them with [`log_warnings`](super::log_warnings).
    pub fn warnings(&self) -> &[ConfigWarning] {
        &self.warnings
    }

    /// The parsed values of every defined key (framework and plugin keys).
    pub fn values(&self) -> &ConfigValues {
        &self.values
    }

    /// The configuration as read, with origins.
    pub fn raw(&self) -> &RawConfig {
        &self.raw
    }

    /// All properties as given (what the connector plugin receives).
    pub fn originals(&self) -> &ConfigMap {
        self.values.originals()
    }

    /// Properties starting with `prefix`, prefix removed (e.g. `transforms.route.`).
    pub fn originals_with_prefix(&self, prefix: &str) -> ConfigMap {
        self.values.originals_with_prefix(prefix)
    }

    /// `name`.
    pub fn name(&self) -> &str {
        self.values.string("name").unwrap_or_default()
    }

    /// `connector.class` as given (class name or alias).
    pub fn connector_class(&self) -> &str {
        self.values
            .string(CONNECTOR_CLASS_CONFIG)
            .unwrap_or_default()
    }

    /// `tasks.max` (at least 1).
    pub fn tasks_max(&self) -> u32 {
        self.values
            .int("tasks.max")
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1)
    }

    /// `tasks.max.enforce` (default true).
    pub fn tasks_max_enforce(&self) -> bool {
        self.values.boolean("tasks.max.enforce").unwrap_or(true)
    }

    /// `key.converter`; `None` = the worker's.
    pub fn key_converter_class(&self) -> Option<&str> {
        self.values.string("key.converter")
    }

    /// `value.converter`; `None` = the worker's.
    pub fn value_converter_class(&self) -> Option<&str> {
        self.values.string("value.converter")
    }

    /// `header.converter`; `None` = the worker's.
    pub fn header_converter_class(&self) -> Option<&str> {
        self.values.string("header.converter")
    }

    /// `transforms` aliases, in order.
    pub fn transforms(&self) -> &[String] {
        self.values.list("transforms")
    }

    /// `predicates` aliases.
    pub fn predicates(&self) -> &[String] {
        self.values.list("predicates")
    }

    /// `config.action.reload` (`restart` or `none`).
    pub fn config_action_reload(&self) -> &str {
        self.values
            .string("config.action.reload")
            .unwrap_or("restart")
    }

    /// `errors.retry.timeout`: `None` = retry forever (-1), `Some(0)` = no retries.
    pub fn errors_retry_timeout(&self) -> Option<Duration> {
        match self.values.long("errors.retry.timeout") {
            Some(ms) if ms < 0 => None,
            Some(ms) => Some(Duration::from_millis(u64::try_from(ms).unwrap_or(0))),
            None => Some(Duration::ZERO),
        }
    }

    /// `errors.retry.delay.max.ms` (default 60 s).
    pub fn errors_retry_delay_max(&self) -> Duration {
        Duration::from_millis(
            self.values
                .long("errors.retry.delay.max.ms")
                .and_then(|ms| u64::try_from(ms).ok())
                .unwrap_or(60_000),
        )
    }

    /// `errors.tolerance`.
    pub fn errors_tolerance(&self) -> ErrorTolerance {
        match self.values.string("errors.tolerance") {
            Some(t) if t.eq_ignore_ascii_case("all") => ErrorTolerance::All,
            _ => ErrorTolerance::None,
        }
    }

    /// `errors.log.enable`.
    pub fn errors_log_enable(&self) -> bool {
        self.values.boolean("errors.log.enable").unwrap_or(false)
    }

    /// `errors.log.include.messages`.
    pub fn errors_log_include_messages(&self) -> bool {
        self.values
            .boolean("errors.log.include.messages")
            .unwrap_or(false)
    }

    /// Sink `topics` (empty entries and duplicates removed, as Kafka does).
    pub fn topics(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in self.values.list("topics") {
            if !t.is_empty() && !out.contains(t) {
                out.push(t.clone());
            }
        }
        out
    }

    /// Sink `topics.regex`, when set.
    pub fn topics_regex(&self) -> Option<&str> {
        self.values.string("topics.regex").filter(|r| !r.is_empty())
    }

    /// Sink `errors.deadletterqueue.topic.name`, when set.
    pub fn dlq_topic(&self) -> Option<&str> {
        self.values
            .string("errors.deadletterqueue.topic.name")
            .filter(|t| !t.is_empty())
    }

    /// Sink `errors.deadletterqueue.topic.replication.factor` (default 3).
    pub fn dlq_topic_replication_factor(&self) -> i16 {
        match self
            .values
            .get("errors.deadletterqueue.topic.replication.factor")
        {
            ConfigValue::Short(n) => *n,
            _ => 3,
        }
    }

    /// Sink `errors.deadletterqueue.context.headers.enable`.
    pub fn dlq_context_headers_enable(&self) -> bool {
        self.values
            .boolean("errors.deadletterqueue.context.headers.enable")
            .unwrap_or(false)
    }

    /// Source: whether any `topic.creation.` key is set (topic creation also needs the
    /// worker's `topic.creation.enable`).
    pub fn topic_creation_configured(&self) -> bool {
        self.raw.keys().any(|k| k.starts_with("topic.creation."))
    }

    /// Source `exactly.once.support` (`requested` or `required`).
    pub fn exactly_once_support(&self) -> &str {
        self.values
            .string("exactly.once.support")
            .unwrap_or("requested")
    }

    /// Source `transaction.boundary` (`poll`, `interval` or `connector`).
    pub fn transaction_boundary(&self) -> &str {
        self.values.string("transaction.boundary").unwrap_or("poll")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_file;
    use std::io::Write;
    use std::path::PathBuf;

    /// Kafka's `config/connect-file-source.properties`, without the license header.
    const KAFKA_FILE_SOURCE: &str = "name=local-file-source
connector.class=FileStreamSource
tasks.max=1
file=test.txt
topic=connect-test";

    /// Kafka's `config/connect-file-sink.properties`, without the license header.
    const KAFKA_FILE_SINK: &str = "name=local-file-sink
connector.class=FileStreamSink
tasks.max=1
file=test.sink.txt
topics=connect-test";

    fn file_source_def() -> ConfigDef {
        ConfigDef::new()
            .define(key(
                "file",
                Str,
                Def::Null,
                High,
                "Source file; stdin when unset.",
            ))
            .define(
                key("topic", Str, Def::Required, High, "Topic to write to.")
                    .validator(Validator::NonEmptyString),
            )
            .define(key(
                "batch.size",
                Int,
                Def::Value("2000"),
                Low,
                "Max records per poll.",
            ))
    }

    fn file_sink_def() -> ConfigDef {
        ConfigDef::new().define(key(
            "file",
            Str,
            Def::Null,
            High,
            "Destination file; stdout when unset.",
        ))
    }

    fn write(dir: &tempfile::TempDir, name: &str, content: &str) -> PathBuf {
        let path = dir.path().join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(content.as_bytes()).unwrap();
        path
    }

    fn check(
        content: &str,
        kind: ConnectorKind,
        def: &ConfigDef,
    ) -> Result<ConnectorConfig, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "connector.properties", content);
        validate(&load_file(&path).unwrap(), kind, def)
    }

    fn problem_lines(err: &ConfigError) -> Vec<String> {
        err.to_string().lines().skip(1).map(str::to_owned).collect()
    }

    #[test]
    fn kafka_file_source_and_sink_samples_load() {
        for (text, fqcn) in [
            (KAFKA_FILE_SOURCE, "FileStreamSource"),
            (
                &KAFKA_FILE_SOURCE.replace(
                    "FileStreamSource",
                    "org.apache.kafka.connect.file.FileStreamSourceConnector",
                ),
                "org.apache.kafka.connect.file.FileStreamSourceConnector",
            ),
        ] {
            let c = check(text, ConnectorKind::Source, &file_source_def()).unwrap();
            assert_eq!(c.name(), "local-file-source");
            assert_eq!(c.connector_class(), fqcn);
            assert_eq!(c.tasks_max(), 1);
            assert_eq!(c.values().string("topic"), Some("connect-test"));
            assert_eq!(c.values().int("batch.size"), Some(2000));
            assert!(c.warnings().is_empty(), "{:?}", c.warnings());
        }
        let c = check(KAFKA_FILE_SINK, ConnectorKind::Sink, &file_sink_def()).unwrap();
        assert_eq!(c.topics(), ["connect-test"]);
        assert_eq!(c.topics_regex(), None);
        assert_eq!(c.key_converter_class(), None);
        assert_eq!(c.errors_tolerance(), ErrorTolerance::None);
        assert_eq!(c.errors_retry_timeout(), Some(Duration::ZERO));
        assert_eq!(c.dlq_topic_replication_factor(), 3);
        assert_eq!(c.kind(), ConnectorKind::Sink);
    }

    #[test]
    fn the_documented_example_error() {
        let err = check(
            "# file source\nname=local-file-source\nfile=test.txt\ntasks.max=abc\ntopic=t\n",
            ConnectorKind::Source,
            &file_source_def(),
        )
        .unwrap_err();
        assert_eq!(
            problem_lines(&err),
            [
                "  line 4: tasks.max: Invalid value abc for configuration tasks.max: Not a number of type INT",
                "  connector.class: Missing required configuration \"connector.class\" which has no default value.",
            ]
        );
    }

    #[test]
    fn several_problems_together_with_plugin_keys() {
        let err = check(
            "name=\nconnector.class=X\ntasks.max=0\nbatch.size=lots\nerrors.tolerance=some\ntopic.creatoin=typo\n",
            ConnectorKind::Source,
            &file_source_def(),
        )
        .unwrap_err();
        assert_eq!(
            problem_lines(&err),
            [
                "  line 1: name: Invalid value  for configuration name: String may not be empty",
                "  line 3: tasks.max: Invalid value 0 for configuration tasks.max: Value must be at least 1",
                "  line 4: batch.size: Invalid value lots for configuration batch.size: Not a number of type INT",
                "  line 5: errors.tolerance: Invalid value some for configuration errors.tolerance: String must be one of: none, all",
                "  topic: Missing required configuration \"topic\" which has no default value.",
            ]
        );
        let warned: Vec<_> = err
            .warnings()
            .iter()
            .map(|w| (w.key.as_str(), w.origin.line))
            .collect();
        assert_eq!(warned, [("topic.creatoin", Some(6))]);
    }

    #[test]
    fn name_with_control_characters() {
        let err = check(
            "name=a\\u0007b\nconnector.class=X\ntopics=t\n",
            ConnectorKind::Sink,
            &ConfigDef::new(),
        )
        .unwrap_err();
        assert_eq!(
            err.problems()[0].message,
            "Invalid value a\u{7}b for configuration name: String may not contain control sequences but had the following ASCII chars: 7"
        );
    }

    #[test]
    fn sink_topics_rules_in_kafka_words() {
        let base = "name=s\nconnector.class=FileStreamSink\n";
        let err = check(
            &format!("{base}topics=a\ntopics.regex=a.*\n"),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap_err();
        assert_eq!(
            problem_lines(&err),
            ["  line 3: topics: topics and topics.regex are mutually exclusive options, but both are set."]
        );
        let err = check(base, ConnectorKind::Sink, &file_sink_def()).unwrap_err();
        assert_eq!(
            problem_lines(&err),
            ["  topics: Must configure one of topics or topics.regex"]
        );
        let err = check(
            &format!("{base}topics=a,dlq\nerrors.deadletterqueue.topic.name=dlq\n"),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap_err();
        assert_eq!(
            err.problems()[0].message,
            "The DLQ topic 'dlq' may not be included in the list of topics ('topics.regex=[a, dlq]') consumed by the connector"
        );
        let err = check(
            &format!("{base}topics.regex=d.*\nerrors.deadletterqueue.topic.name=dlq\n"),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap_err();
        assert!(err.problems()[0]
            .message
            .contains("may not be included in the regex"));
        let err = check(
            &format!("{base}topics.regex=(\n"),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap_err();
        assert!(err.problems()[0]
            .message
            .starts_with("Invalid value ( for configuration topics.regex: Invalid regex"));
        let ok = check(
            &format!("{base}topics.regex=logs-.*\n"),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap();
        assert_eq!(ok.topics_regex(), Some("logs-.*"));
        assert!(ok.topics().is_empty());
    }

    #[test]
    fn transforms_and_predicates() {
        let base = "name=s\nconnector.class=FileStreamSink\ntopics=a\n";
        // The alias lists are accepted; the transforms' own keys are checked by the herder
        // against the plugin registry (worker::transform_spec).
        assert!(check(
            &format!("{base}transforms=route\ntransforms.route.type=RegexRouter\ntransforms.route.regex=.*\n\
                      transforms.route.predicate=isA\npredicates=isA\npredicates.isA.type=TopicNameMatches\n"),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .is_ok());
        // An empty list asks for nothing (REST tools send every key with its default).
        assert!(check(
            &format!("{base}transforms=\npredicates=\n"),
            ConnectorKind::Sink,
            &file_sink_def()
        )
        .is_ok());

        // Kafka's own alias checks.
        let err = check(
            &format!("{base}transforms=a,b,a\ntransforms.b.negate=true\ntransforms.a.type=X\ntransforms.a.predicate=nope\n"),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap_err();
        let kafka_checks: Vec<_> = problem_lines(&err);
        assert_eq!(
            kafka_checks,
            [
                "  line 4: transforms: Invalid value a,b,a for configuration transforms: Duplicate alias provided.",
                "  line 5: transforms.b.negate: Config 'transforms.b.negate' was provided but there is no config 'transforms.b.predicate' defining a predicate to be negated.",
                "  line 7: transforms.a.predicate: Invalid value nope for configuration transforms.a.predicate: There is no predicate with alias 'nope' in 'predicates'",
                "  transforms.b.type: Missing required configuration \"transforms.b.type\" which has no default value.",
            ]
        );
    }

    #[test]
    fn source_topic_creation_requires_default_group() {
        let base = "name=s\nconnector.class=FileStreamSource\ntopic=t\n";
        let err = check(
            &format!("{base}topic.creation.default.partitions=0\n"),
            ConnectorKind::Source,
            &file_source_def(),
        )
        .unwrap_err();
        assert_eq!(
            problem_lines(&err),
            [
                "  line 4: topic.creation.default.partitions: Invalid value 0 for configuration topic.creation.default.partitions: Number of partitions must be positive, or -1 to use the broker's default",
                "  topic.creation.default.replication.factor: Missing required configuration \"topic.creation.default.replication.factor\" which has no default value.",
            ]
        );
        let ok = check(
            &format!("{base}topic.creation.default.partitions=-1\ntopic.creation.default.replication.factor=-1\n"),
            ConnectorKind::Source,
            &file_source_def(),
        )
        .unwrap();
        assert!(ok.topic_creation_configured());
        assert_eq!(ok.exactly_once_support(), "requested");
    }

    #[test]
    fn json_and_toml_connector_files_validate_with_lines() {
        let dir = tempfile::tempdir().unwrap();
        let json = write(&dir, "c.json", "{\n \"name\": \"j\",\n \"config\": {\n  \"connector.class\": \"FileStreamSink\",\n  \"tasks.max\": \"x\"\n }\n}");
        let err = validate(
            &load_file(&json).unwrap(),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap_err();
        assert_eq!(
            problem_lines(&err),
            [
                "  line 5: tasks.max: Invalid value x for configuration tasks.max: Not a number of type INT",
                "  topics: Must configure one of topics or topics.regex",
            ]
        );
        let toml = write(&dir, "c.toml", "name = \"t\"\nconnector.class = \"FileStreamSink\"\ntopics = [\"a\", \"b\"]\n[consumer.override]\nmax.poll.records = 5\n");
        let c = validate(
            &load_file(&toml).unwrap(),
            ConnectorKind::Sink,
            &file_sink_def(),
        )
        .unwrap();
        assert_eq!(c.topics(), ["a", "b"]);
        assert_eq!(c.raw().line("consumer.override.max.poll.records"), Some(5));
        assert_eq!(c.warnings().len(), 0);
    }
}
