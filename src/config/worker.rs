//! `WorkerConfig`: the worker file (`connect-standalone.properties` or
//! `connect-distributed.properties`) with Kafka Connect's keys and defaults, plus connect-rs's
//! own keys (`embedded.log.dir`, `num.partitions`).
//!
//! Differences from Kafka, on purpose:
//! * `bootstrap.servers` has no default in standalone mode: absent means "use the embedded
//!   log in `embedded.log.dir`" instead of a Kafka cluster (distributed mode keeps Kafka's
//!   `localhost:9092`);
//! * `offset.storage.file.filename` defaults to `<embedded.log.dir>/connect.offsets.json`;
//! * `plugin.version.default` (connect-rs's) chooses between a built-in plugin and Java ones
//!   of the same class found on `plugin.path`;
//! * keys removed from Kafka (`rest.port`, `rest.host.name`, `internal.*.converter`) warn.

use std::path::PathBuf;
use std::time::Duration;

use connect_api::{ConfigMap, ConfigValues};

use super::error::{ConfigError, ConfigWarning};
use super::origin::Origin;
use super::providers::ConfigProviders;
use super::raw::RawConfig;
use super::validate::{parse_def, unknown_key_warnings};
use super::worker_def::{
    special_worker_key, worker_def, DEFAULT_EMBEDDED_LOG_DIR, DEFAULT_HEADER_CONVERTER,
    DEFAULT_OFFSETS_FILE_NAME,
};

/// How the worker runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerMode {
    /// One worker, configs from the command line, offsets in a file (`StandaloneConfig`).
    Standalone,
    /// A cluster of workers sharing Kafka topics (`DistributedConfig`).
    Distributed,
}

/// A validated worker configuration with typed accessors.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    mode: WorkerMode,
    values: ConfigValues,
    raw: RawConfig,
    warnings: Vec<ConfigWarning>,
    providers: std::sync::Arc<ConfigProviders>,
}

impl WorkerConfig {
    /// A standalone worker of String converters with `pairs` on top, for unit tests.
    #[cfg(test)]
    pub(crate) fn for_tests(pairs: &[(&str, &str)]) -> Self {
        let mut all = vec![
            ("key.converter", "StringConverter"),
            ("value.converter", "StringConverter"),
        ];
        all.extend_from_slice(pairs);
        let raw = super::RawConfig::from_pairs("worker.properties", all);
        Self::from_raw(&raw, super::WorkerMode::Standalone).expect("a valid worker")
    }

    /// Validates `raw` as a worker configuration for `mode`.
    ///
    /// # Errors
    /// Every problem at once (wrong type, missing required key, bad value), each with file,
    /// line and key. Unknown keys are not errors: see [`WorkerConfig::warnings`].
    ///
    /// Placeholders (`${provider:[path:]key}`) are resolved first with the providers the file
    /// configures (`config.providers`), as Kafka's `AbstractConfig` does: [`WorkerConfig::raw`]
    /// holds the resolved values. A placeholder that cannot be resolved is a problem on its key.
    pub fn from_raw(raw: &RawConfig, mode: WorkerMode) -> Result<Self, ConfigError> {
        let def = worker_def(mode);
        let mut warnings: Vec<ConfigWarning> = raw.duplicate_warnings().to_vec();
        warnings.extend(unknown_key_warnings(raw, &def, special_worker_key));
        let (providers, problems, provider_warnings) = ConfigProviders::from_worker(raw);
        warnings.extend(provider_warnings);
        if !problems.is_empty() {
            return Err(ConfigError::Invalid { problems, warnings });
        }
        let resolved = match providers.resolve_worker(raw) {
            Ok(resolved) => resolved,
            Err(problems) => return Err(ConfigError::Invalid { problems, warnings }),
        };
        let (values, mut problems) = parse_def(&resolved.raw, &def);
        problems.extend(super::plugin_keys::problems(&resolved.raw));
        for p in &mut problems {
            p.message = resolved.redactor.redact(&p.message).into_owned();
        }
        match values {
            Some(values) if problems.is_empty() => Ok(Self {
                mode,
                values,
                raw: resolved.raw,
                warnings,
                providers: std::sync::Arc::new(providers),
            }),
            _ => Err(ConfigError::Invalid { problems, warnings }),
        }
    }

    /// The config providers this worker configured (`config.providers`), which resolve
    /// connector configurations when connectors and tasks start.
    pub fn providers(&self) -> &std::sync::Arc<ConfigProviders> {
        &self.providers
    }

    /// The mode this configuration was validated for.
    pub fn mode(&self) -> WorkerMode {
        self.mode
    }

    /// Unknown, ignored, removed and duplicate keys; log them with
    /// [`log_warnings`](super::log_warnings).
    pub fn warnings(&self) -> &[ConfigWarning] {
        &self.warnings
    }

    /// The parsed values of every defined key.
    pub fn values(&self) -> &ConfigValues {
        &self.values
    }

    /// The configuration as read, with origins, placeholders resolved.
    pub fn raw(&self) -> &RawConfig {
        &self.raw
    }

    /// Where `key` was set, if it was.
    pub fn origin(&self, key: &str) -> Option<&Origin> {
        self.raw.origin(key)
    }

    /// All properties as given.
    pub fn originals(&self) -> &ConfigMap {
        self.values.originals()
    }

    /// Properties starting with `prefix` (e.g. `key.converter.`, `producer.`), prefix removed.
    pub fn originals_with_prefix(&self, prefix: &str) -> ConfigMap {
        self.values.originals_with_prefix(prefix)
    }

    fn millis(&self, key: &str) -> Duration {
        Duration::from_millis(
            self.values
                .long(key)
                .and_then(|ms| u64::try_from(ms).ok())
                .unwrap_or(0),
        )
    }

    /// `bootstrap.servers`; `None` (standalone only) means "use the embedded log".
    pub fn bootstrap_servers(&self) -> Option<&[String]> {
        let list = self.values.list("bootstrap.servers");
        (!list.is_empty()).then_some(list)
    }

    /// `key.converter`.
    pub fn key_converter_class(&self) -> &str {
        self.values.string("key.converter").unwrap_or_default()
    }

    /// `value.converter`.
    pub fn value_converter_class(&self) -> &str {
        self.values.string("value.converter").unwrap_or_default()
    }

    /// `header.converter` (default `SimpleHeaderConverter`).
    pub fn header_converter_class(&self) -> &str {
        self.values
            .string("header.converter")
            .unwrap_or(DEFAULT_HEADER_CONVERTER)
    }

    /// The key, value and header converter classes (what a connector inherits).
    pub fn converter_classes(&self) -> [String; 3] {
        [
            self.key_converter_class().to_owned(),
            self.value_converter_class().to_owned(),
            self.header_converter_class().to_owned(),
        ]
    }

    /// `task.shutdown.graceful.timeout.ms` (default 5 s).
    pub fn task_shutdown_graceful_timeout(&self) -> Duration {
        self.millis("task.shutdown.graceful.timeout.ms")
    }

    /// `connector.start.timeout.ms` (connect-rs, default 60 s): how long a connector's start
    /// may take before it is FAILED.
    pub fn connector_start_timeout(&self) -> Duration {
        self.millis("connector.start.timeout.ms")
    }

    /// `offset.flush.interval.ms` (default 60 s).
    pub fn offset_flush_interval(&self) -> Duration {
        self.millis("offset.flush.interval.ms")
    }

    /// `offset.flush.timeout.ms` (default 5 s).
    pub fn offset_flush_timeout(&self) -> Duration {
        self.millis("offset.flush.timeout.ms")
    }

    /// `embedded.log.dir` (default `connect-rs-data`, relative to the working directory).
    pub fn embedded_log_dir(&self) -> PathBuf {
        PathBuf::from(
            self.values
                .string("embedded.log.dir")
                .unwrap_or(DEFAULT_EMBEDDED_LOG_DIR),
        )
    }

    /// `num.partitions` of topics created in the embedded log (default 1, at least 1).
    pub fn num_partitions(&self) -> u32 {
        self.values
            .int("num.partitions")
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1)
    }

    /// `config.storage.file.filename`: where REST-created connectors are kept, if anywhere.
    pub fn config_storage_file(&self) -> Option<PathBuf> {
        self.values
            .string("config.storage.file.filename")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    }

    /// `offset.storage.file.filename`, or `<embedded.log.dir>/connect.offsets.json`.
    pub fn offset_storage_file(&self) -> PathBuf {
        match self.values.string("offset.storage.file.filename") {
            Some(f) if !f.is_empty() => PathBuf::from(f),
            _ => self.embedded_log_dir().join(DEFAULT_OFFSETS_FILE_NAME),
        }
    }

    /// `listeners` (default `http://:8083`).
    pub fn listeners(&self) -> &[String] {
        self.values.list("listeners")
    }

    /// `admin.listeners`: `None` = on the main listeners, empty = disabled.
    pub fn admin_listeners(&self) -> Option<&[String]> {
        self.raw
            .contains_key("admin.listeners")
            .then(|| self.values.list("admin.listeners"))
    }

    /// `rest.advertised.host.name`.
    pub fn rest_advertised_host_name(&self) -> Option<&str> {
        self.values.string("rest.advertised.host.name")
    }

    /// `default.api.timeout.ms`: how long the worker waits at start-up for Kafka to answer
    /// (Kafka Connect reads the cluster id with an admin client on the worker's settings).
    pub fn default_api_timeout(&self) -> std::time::Duration {
        let ms = self.values.int("default.api.timeout.ms").unwrap_or(60_000);
        std::time::Duration::from_millis(u64::try_from(ms).unwrap_or(0))
    }

    /// `rest.advertised.port`.
    pub fn rest_advertised_port(&self) -> Option<u16> {
        self.values
            .int("rest.advertised.port")
            .and_then(|p| u16::try_from(p).ok())
    }

    /// `rest.advertised.listener`.
    pub fn rest_advertised_listener(&self) -> Option<&str> {
        self.values.string("rest.advertised.listener")
    }

    /// `plugin.path`: where Java plugins are found, as given (trimmed entries).
    pub fn plugin_path(&self) -> &[String] {
        self.values.list(super::plugin_keys::PLUGIN_PATH)
    }

    /// `plugin.discovery`: how Java plugins are found in `plugin.path`.
    pub fn plugin_discovery(&self) -> super::PluginDiscovery {
        (self.values.string(super::plugin_keys::PLUGIN_DISCOVERY))
            .and_then(super::PluginDiscovery::parse)
            .unwrap_or_default()
    }

    /// `plugin.version.default`: which implementation of a class runs when no
    /// `*.plugin.version` is given.
    pub fn plugin_version_default(&self) -> super::VersionDefault {
        (self
            .values
            .string(super::plugin_keys::PLUGIN_VERSION_DEFAULT))
        .and_then(|v| super::VersionDefault::parse(v.trim()))
        .unwrap_or_default()
    }

    /// `config.providers`.
    pub fn config_providers(&self) -> &[String] {
        self.values.list("config.providers")
    }

    /// `connector.client.config.override.policy` (default `All`).
    pub fn connector_client_config_override_policy(&self) -> &str {
        self.values
            .string("connector.client.config.override.policy")
            .unwrap_or("All")
    }

    /// `topic.creation.enable` (default true).
    pub fn topic_creation_enable(&self) -> bool {
        self.values.boolean("topic.creation.enable").unwrap_or(true)
    }

    /// `topic.tracking.enable` (default true).
    pub fn topic_tracking_enable(&self) -> bool {
        self.values.boolean("topic.tracking.enable").unwrap_or(true)
    }

    /// `topic.tracking.allow.reset` (default true).
    pub fn topic_tracking_allow_reset(&self) -> bool {
        self.values
            .boolean("topic.tracking.allow.reset")
            .unwrap_or(true)
    }

    /// `access.control.allow.origin` (empty = CORS disabled).
    pub fn access_control_allow_origin(&self) -> &str {
        self.values
            .string("access.control.allow.origin")
            .unwrap_or_default()
    }

    /// `group.id` (distributed mode).
    pub fn group_id(&self) -> Option<&str> {
        self.values.string("group.id")
    }

    /// `exactly.once.source.support` (`disabled`, `preparing` or `enabled`; distributed mode).
    /// In standalone mode the key is not defined (as in Kafka Connect): the value as written,
    /// for [`WorkerConfig::standalone_exactly_once_refusal`].
    pub fn exactly_once_source_support(&self) -> &str {
        match self.mode {
            WorkerMode::Distributed => self
                .values
                .string("exactly.once.source.support")
                .unwrap_or("disabled"),
            WorkerMode::Standalone => self
                .raw
                .get("exactly.once.source.support")
                .unwrap_or("disabled"),
        }
    }

    /// Whether source tasks run in Kafka transactions (KIP-618): distributed mode with
    /// `exactly.once.source.support=enabled`.
    pub fn exactly_once_source_enabled(&self) -> bool {
        self.mode == WorkerMode::Distributed && self.exactly_once_source_support() == "enabled"
    }

    /// Standalone mode on Kafka keeps source offsets in a file, which cannot join a Kafka
    /// transaction: `exactly.once.source.support` other than `disabled` there is refused, with
    /// this message (naming the file and line).
    pub fn standalone_exactly_once_refusal(&self) -> Option<String> {
        let value = self.exactly_once_source_support();
        if self.mode != WorkerMode::Standalone
            || self.bootstrap_servers().is_none()
            || value.eq_ignore_ascii_case("disabled")
        {
            return None;
        }
        let at = self.raw.origin_or_source("exactly.once.source.support");
        Some(format!(
            "{at}: exactly.once.source.support={value} cannot be honoured by a standalone worker \
             on Kafka: its source offsets are kept in a file (offset.storage.file.filename), which \
             cannot be written in the same Kafka transaction as the records. Run the connectors \
             on a distributed worker (`connect-rs distributed`, or `connect-rs standalone \
             --distributed`), which keeps offsets in the offsets topic, or remove the key."
        ))
    }

    /// `config.storage.topic` (distributed mode).
    pub fn config_storage_topic(&self) -> Option<&str> {
        self.values.string("config.storage.topic")
    }

    /// `offset.storage.topic` (distributed mode).
    pub fn offset_storage_topic(&self) -> Option<&str> {
        self.values.string("offset.storage.topic")
    }

    /// `status.storage.topic` (distributed mode).
    pub fn status_storage_topic(&self) -> Option<&str> {
        self.values.string("status.storage.topic")
    }

    /// `<prefix>.partitions` of an internal topic (`offset.storage`, `status.storage`;
    /// distributed mode); -1 (the cluster's default) when not set.
    pub fn storage_partitions(&self, prefix: &str) -> i32 {
        self.values
            .long(&format!("{prefix}.partitions"))
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(-1)
    }

    /// `<prefix>.replication.factor` of an internal topic (`config.storage`,
    /// `offset.storage`, `status.storage`; distributed mode); -1 (the cluster's default) when
    /// not set.
    pub fn storage_replication_factor(&self, prefix: &str) -> i16 {
        self.values
            .long(&format!("{prefix}.replication.factor"))
            .and_then(|v| i16::try_from(v).ok())
            .unwrap_or(-1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_file;
    use std::io::Write;

    /// Kafka's `config/connect-standalone.properties` (3.x/4.x), verbatim apart from the
    /// license header; with `plugin.path` set as users do.
    const KAFKA_STANDALONE: &str = "\
# These are defaults. This file just demonstrates how to override some settings.
bootstrap.servers=localhost:9092

# The converters specify the format of data in Kafka and how to translate it into Connect data. Every Connect user will
# need to configure these based on the format they want their data in when loaded from or stored into Kafka
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
# Converter-specific settings can be passed in by prefixing the Converter's setting with the converter we want to apply
# it to
key.converter.schemas.enable=true
value.converter.schemas.enable=true

offset.storage.file.filename=/tmp/connect.offsets
# Flush much faster than normal, which is useful for testing/debugging
offset.flush.interval.ms=10000

# Set to a list of filesystem paths separated by commas (,) to enable class loading isolation for plugins
# (connectors, converters, transformations). The list should consist of top level directories that include 
# any combination of: 
# a) directories immediately containing jars with plugins and their dependencies
# b) uber-jars with plugins and their dependencies
# c) directories immediately containing the package directory structure of classes of plugins and their dependencies
# Note: symlinks will be followed to discover dependencies or plugins.
# Examples: 
# plugin.path=/usr/local/share/java,/usr/local/share/kafka/plugins,/opt/connectors,
plugin.path=/usr/local/share/java,/usr/local/share/kafka/plugins
";

    /// The older (2.x) sample, with the `internal.*` converters removed in 3.0.
    const KAFKA_STANDALONE_2X: &str = "\
bootstrap.servers=localhost:9092
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=true
value.converter.schemas.enable=true
internal.key.converter=org.apache.kafka.connect.json.JsonConverter
internal.value.converter=org.apache.kafka.connect.json.JsonConverter
internal.key.converter.schemas.enable=false
internal.value.converter.schemas.enable=false
offset.storage.file.filename=/tmp/connect.offsets
offset.flush.interval.ms=10000
";

    fn file(dir: &tempfile::TempDir, name: &str, content: &str) -> PathBuf {
        let path = dir.path().join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(content.as_bytes()).unwrap();
        path
    }

    fn worker(content: &str, mode: WorkerMode) -> Result<WorkerConfig, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = file(&dir, "worker.properties", content);
        WorkerConfig::from_raw(&load_file(&path).unwrap(), mode)
    }

    #[test]
    fn default_api_timeout_is_60_s_set_in_ms_and_never_negative() {
        let base = "key.converter=StringConverter\nvalue.converter=StringConverter\n";
        let timeout = |extra: &str| {
            worker(&format!("{base}{extra}"), WorkerMode::Standalone)
                .map(|w| w.default_api_timeout())
        };
        assert_eq!(timeout("").unwrap(), std::time::Duration::from_secs(60));
        assert_eq!(
            timeout("default.api.timeout.ms=3000\n").unwrap(),
            std::time::Duration::from_secs(3)
        );
        for bad in [
            "default.api.timeout.ms=-1\n",
            "default.api.timeout.ms=soon\n",
        ] {
            assert!(timeout(bad).is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn embedded_log_byte_bounds_are_validated() {
        // Their defaults and use: `commands::embedded_log`.
        let base = "key.converter=StringConverter\nvalue.converter=StringConverter\n";
        for bad in [
            "embedded.log.buffer.memory=0",
            "embedded.log.fetch.max.bytes=-1",
        ] {
            let err = worker(&format!("{base}{bad}\n"), WorkerMode::Standalone)
                .err()
                .unwrap_or_else(|| panic!("{bad} was accepted"));
            assert!(
                err.to_string().contains(bad.split('=').next().unwrap()),
                "{err}"
            );
        }
    }

    #[test]
    fn placeholders_are_resolved_when_the_worker_file_loads() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = file(&dir, "s.properties", "flush=2500\nlog.dir=/var/lib/x\n");
        let base = format!(
            "key.converter=StringConverter\nvalue.converter=StringConverter\n\
             config.providers=file\nconfig.providers.file.class=FileConfigProvider\n\
             embedded.log.dir=${{file:{p}:log.dir}}\n",
            p = secrets.display()
        );
        let ok = format!(
            "{base}offset.flush.interval.ms=${{file:{}:flush}}\n",
            secrets.display()
        );
        let w = worker(&ok, WorkerMode::Standalone).unwrap();
        assert_eq!(w.offset_flush_interval(), Duration::from_millis(2500));
        assert_eq!(w.embedded_log_dir(), PathBuf::from("/var/lib/x"));
        assert_eq!(w.raw().line("offset.flush.interval.ms"), Some(6));
        assert_eq!(w.providers().names().collect::<Vec<_>>(), ["file"]);
        // A value that resolves but is invalid shows the placeholder, not the value.
        let bad = format!(
            "{base}num.partitions=${{file:{}:log.dir}}\n",
            secrets.display()
        );
        let shown = worker(&bad, WorkerMode::Standalone)
            .unwrap_err()
            .to_string();
        assert!(
            shown.contains("line 6: num.partitions: Invalid value ${file:"),
            "{shown}"
        );
        assert!(!shown.contains("/var/lib/x"), "{shown}");
        // A placeholder that does not resolve names its key, line and placeholder.
        let missing = format!(
            "{base}offset.flush.interval.ms=${{file:{}:nope}}\n",
            secrets.display()
        );
        let shown = worker(&missing, WorkerMode::Standalone)
            .unwrap_err()
            .to_string();
        assert!(
            shown.contains(&format!(
                "line 6: offset.flush.interval.ms: Cannot resolve ${{file:{p}:nope}} for configuration offset.flush.interval.ms: the file {p} has no key 'nope'",
                p = secrets.display()
            )),
            "{shown}"
        );
    }

    #[test]
    fn kafka_sample_loads_and_plugin_path_is_honoured() {
        let w = worker(KAFKA_STANDALONE, WorkerMode::Standalone).unwrap();
        assert_eq!(
            w.bootstrap_servers(),
            Some(&["localhost:9092".to_owned()][..])
        );
        assert_eq!(
            w.key_converter_class(),
            "org.apache.kafka.connect.json.JsonConverter"
        );
        assert_eq!(w.header_converter_class(), DEFAULT_HEADER_CONVERTER);
        assert_eq!(w.offset_flush_interval(), Duration::from_secs(10));
        assert_eq!(w.offset_flush_timeout(), Duration::from_secs(5));
        assert_eq!(w.task_shutdown_graceful_timeout(), Duration::from_secs(5));
        assert_eq!(w.connector_start_timeout(), Duration::from_secs(60));
        assert_eq!(
            w.offset_storage_file(),
            PathBuf::from("/tmp/connect.offsets")
        );
        assert_eq!(w.listeners(), ["http://:8083"]);
        let conv = w.originals_with_prefix("key.converter.");
        assert_eq!(conv.get("schemas.enable").map(String::as_str), Some("true"));
        // `plugin.path` is read, no longer warned about as ignored.
        assert!(w.warnings().is_empty(), "{:?}", w.warnings());
        assert_eq!(
            w.plugin_path(),
            ["/usr/local/share/java", "/usr/local/share/kafka/plugins"]
        );
        assert_eq!(
            w.plugin_discovery(),
            crate::config::PluginDiscovery::HybridWarn
        );
        assert_eq!(
            w.plugin_version_default(),
            crate::config::VersionDefault::Builtin
        );
    }

    #[test]
    fn plugin_discovery_and_version_default_are_read_case_insensitively() {
        let w = worker(
            "key.converter=StringConverter\nvalue.converter=StringConverter\n\
             plugin.discovery=Service_Load\nplugin.version.default=LATEST\n",
            WorkerMode::Standalone,
        )
        .unwrap();
        assert_eq!(
            w.plugin_discovery(),
            crate::config::PluginDiscovery::ServiceLoad
        );
        assert_eq!(
            w.plugin_version_default(),
            crate::config::VersionDefault::Latest
        );
        assert!(w.warnings().is_empty(), "{:?}", w.warnings());
    }

    #[test]
    fn a_bad_plugin_discovery_is_refused_with_kafkas_message() {
        let e = worker(
            "plugin.discovery=scan\nplugin.version.default=newest\n",
            WorkerMode::Standalone,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(
                "line 1: plugin.discovery: Invalid value scan for configuration plugin.discovery: \
                 String must be one of (case insensitive): ONLY_SCAN, SERVICE_LOAD, HYBRID_WARN, \
                 HYBRID_FAIL"
            ),
            "{e}"
        );
        assert!(
            e.contains(
                "line 2: plugin.version.default: Invalid value newest for configuration \
                 plugin.version.default: String must be one of: builtin, latest"
            ),
            "{e}"
        );
    }

    #[test]
    fn kafka_2x_sample_warns_about_internal_converters() {
        let w = worker(KAFKA_STANDALONE_2X, WorkerMode::Standalone).unwrap();
        let keys: Vec<_> = w.warnings().iter().map(|w| w.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "internal.key.converter",
                "internal.value.converter",
                "internal.key.converter.schemas.enable",
                "internal.value.converter.schemas.enable"
            ]
        );
        assert!(w.warnings()[0].message.contains("removed in Kafka 3.0"));
    }

    #[test]
    fn defaults_and_embedded_log() {
        let w = worker(
            "key.converter=StringConverter\nvalue.converter=StringConverter\n\
             consumer.max.poll.records=10\nrest.port=8083\nmy.typo=1\n",
            WorkerMode::Standalone,
        )
        .unwrap();
        assert_eq!(w.bootstrap_servers(), None);
        assert_eq!(w.embedded_log_dir(), PathBuf::from("connect-rs-data"));
        assert_eq!(
            w.offset_storage_file(),
            PathBuf::from("connect-rs-data/connect.offsets.json")
        );
        assert_eq!(w.num_partitions(), 1);
        assert_eq!(w.offset_flush_interval(), Duration::from_secs(60));
        assert!(w.topic_creation_enable());
        assert_eq!(w.admin_listeners(), None);
        let keys: Vec<_> = w
            .warnings()
            .iter()
            .map(|w| (w.key.as_str(), w.origin.line))
            .collect();
        assert_eq!(keys, [("rest.port", Some(4)), ("my.typo", Some(5))]);

        let w = worker(
            "key.converter=A\nvalue.converter=B\nembedded.log.dir=/var/lib/c\nnum.partitions=3\n",
            WorkerMode::Standalone,
        )
        .unwrap();
        assert_eq!(
            w.offset_storage_file(),
            PathBuf::from("/var/lib/c/connect.offsets.json")
        );
        assert_eq!(w.num_partitions(), 3);
    }

    #[test]
    fn a_negative_session_key_ttl_is_refused_as_kafka_connect_does() {
        let err = worker(
            "key.converter=A\nvalue.converter=B\ngroup.id=g\ninter.worker.key.ttl.ms=-1\n",
            WorkerMode::Distributed,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("line 4: inter.worker.key.ttl.ms: Invalid value -1 for configuration inter.worker.key.ttl.ms: Value must be at least 0"),
            "{err}"
        );
    }

    #[test]
    fn every_problem_with_file_line_and_key() {
        let err = worker(
            "value.converter=B\noffset.flush.interval.ms=soon\nnum.partitions=0\ntopic.creation.enable=maybe\n",
            WorkerMode::Standalone,
        )
        .unwrap_err();
        let shown = err.to_string();
        let lines: Vec<_> = shown.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "  line 2: offset.flush.interval.ms: Invalid value soon for configuration offset.flush.interval.ms: Not a number of type LONG",
                "  line 3: num.partitions: Invalid value 0 for configuration num.partitions: Value must be at least 1",
                "  line 4: topic.creation.enable: Invalid value maybe for configuration topic.creation.enable: Expected value to be either true or false",
                "  key.converter: Missing required configuration \"key.converter\" which has no default value.",
            ]
        );
        assert!(shown.starts_with("Invalid configuration in "));
        assert!(shown
            .lines()
            .next()
            .unwrap()
            .ends_with("worker.properties:"));
    }

    #[test]
    fn distributed_mode_requires_group_and_topics() {
        let err = worker(
            "key.converter=A\nvalue.converter=B\n",
            WorkerMode::Distributed,
        )
        .unwrap_err();
        let keys: Vec<_> = err
            .problems()
            .iter()
            .filter_map(|p| p.key.as_deref())
            .collect();
        assert_eq!(
            keys,
            [
                "group.id",
                "config.storage.topic",
                "offset.storage.topic",
                "status.storage.topic"
            ]
        );
        let w = worker(
            "key.converter=A\nvalue.converter=B\ngroup.id=connect-cluster\n\
             config.storage.topic=connect-configs\noffset.storage.topic=connect-offsets\n\
             status.storage.topic=connect-status\n",
            WorkerMode::Distributed,
        )
        .unwrap();
        // No bootstrap.servers: the internal topics live in the embedded log.
        assert_eq!(w.bootstrap_servers(), None);
        assert_eq!(w.storage_partitions("offset.storage"), 25);
        assert_eq!(w.storage_replication_factor("config.storage"), 3);
        assert_eq!(w.group_id(), Some("connect-cluster"));
        assert_eq!(w.mode(), WorkerMode::Distributed);
        assert!(w.warnings().is_empty());
    }
}
