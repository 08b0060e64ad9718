//! The worker's `ConfigDef` table: Kafka Connect's `WorkerConfig`, `StandaloneConfig` and
//! `DistributedConfig` keys with their types, defaults, importance and documentation, plus
//! connect-rs's own keys. [`super::WorkerConfig`] validates a worker file against it.

use connect_api::config_def::Default as Def;
use connect_api::{ConfigDef, ConfigKey, ConfigType, Importance, Validator};

use super::worker::WorkerMode;

/// Default of `header.converter`.
pub const DEFAULT_HEADER_CONVERTER: &str = "org.apache.kafka.connect.storage.SimpleHeaderConverter";
/// Default of `embedded.log.dir`.
pub const DEFAULT_EMBEDDED_LOG_DIR: &str = "connect-rs-data";
/// File name of the offsets file inside `embedded.log.dir` when
/// `offset.storage.file.filename` is not set.
pub const DEFAULT_OFFSETS_FILE_NAME: &str = "connect.offsets.json";
/// Default of `plugin.host.jvm.options`: the serial collector and a small initial heap keep the
/// plugin host JVM's memory low, `ExitOnOutOfMemoryError` turns an out-of-memory into a death
/// the worker sees and recovers from (the JVM is started again).
pub const DEFAULT_PLUGIN_HOST_JVM_OPTIONS: &str =
    "-XX:+UseSerialGC -Xms32m -Xmx1g -XX:+ExitOnOutOfMemoryError -XX:ReservedCodeCacheSize=96m";

fn key(
    name: &'static str,
    config_type: ConfigType,
    default: Def,
    importance: Importance,
    doc: &'static str,
) -> ConfigKey {
    ConfigKey::new(name, config_type, default, importance, doc)
}

use ConfigType::{Boolean, Class, Int, List, Long, Short, String as Str};
use Importance::{High, Low, Medium};

/// The keys common to both modes (Kafka's `WorkerConfig` and the REST server's keys).
pub fn common_worker_def() -> ConfigDef {
    ConfigDef::new()
        .define(
            key(
                "bootstrap.servers",
                List,
                Def::Null,
                High,
                "Kafka brokers (host:port,...). Absent in standalone mode: use the embedded log.",
            )
            .validator(Validator::NonEmptyList),
        )
        .define(
            key(
                "client.dns.lookup",
                Str,
                Def::Value("use_all_dns_ips"),
                Medium,
                "How the client uses DNS lookups.",
            )
            .validator(Validator::OneOf(&[
                "use_all_dns_ips",
                "resolve_canonical_bootstrap_servers_only",
            ])),
        )
        .define(key(
            "key.converter",
            Class,
            Def::Required,
            High,
            "Converter class for record keys.",
        ))
        .define(key(
            "value.converter",
            Class,
            Def::Required,
            High,
            "Converter class for record values.",
        ))
        .define(key(
            "header.converter",
            Class,
            Def::Value(DEFAULT_HEADER_CONVERTER),
            Low,
            "HeaderConverter class for record headers.",
        ))
        .define(
            key(
                "task.shutdown.graceful.timeout.ms",
                Long,
                Def::Value("5000"),
                Low,
                "Total time to wait for tasks to shut down gracefully.",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(
            key(
                "connector.start.timeout.ms",
                Long,
                Def::Value("60000"),
                Low,
                "connect-rs: how long a connector's start may take; a connector that has not started by then is FAILED with the reason, and its instance is stopped.",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(
            key(
                "offset.flush.interval.ms",
                Long,
                Def::Value("60000"),
                Low,
                "Interval at which to commit task offsets.",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(
            key(
                "offset.flush.timeout.ms",
                Long,
                Def::Value("5000"),
                Low,
                "Maximum time to wait for records to flush and offsets to commit.",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(key(
            "plugin.path",
            List,
            Def::Null,
            Low,
            "Directories and archives where Java plugins are found (directories of jars, \
             uber-jars, directories of classes), comma-separated.",
        ))
        .define(key(
            "plugin.version.default",
            Str,
            Def::Value("builtin"),
            Low,
            "connect-rs: the implementation of a class that runs when a connector \
             configuration gives no *.plugin.version: builtin (the built-in one when there \
             is one, else the latest Java one) or latest (the highest version; a built-in on \
             equal versions).",
        ))
        .define(key(
            "connector.class.allowlist",
            List,
            Def::Value(""),
            Medium,
            "connect-rs: when set, the only connectors this worker runs (class names or \
             aliases); the others are refused by name and not listed.",
        ))
        .define(key(
            "connector.class.denylist",
            List,
            Def::Value(""),
            Medium,
            "connect-rs: connectors this worker refuses (class names or aliases), e.g. \
             FileStreamSource,FileStreamSink; wins over connector.class.allowlist.",
        ))
        // Checked with Kafka's case-insensitive message by `plugin_keys::problems`.
        .define(key(
            "plugin.discovery",
            Str,
            Def::Value("hybrid_warn"),
            Low,
            "How Java plugins are discovered in plugin.path: only_scan, hybrid_warn, \
             hybrid_fail or service_load (case-insensitive).",
        ))
        .define(key(
            "plugin.host.java",
            Str,
            Def::Value(""),
            Low,
            "connect-rs: the java executable that runs the plugin host JVM for Java plugins; \
             empty: $JAVA_HOME/bin/java, else java on PATH (Java 17 or later).",
        ))
        .define(key(
            "plugin.host.jvm.options",
            Str,
            Def::Value(DEFAULT_PLUGIN_HOST_JVM_OPTIONS),
            Low,
            "connect-rs: options of the plugin host JVM, separated by whitespace (as \
             KAFKA_HEAP_OPTS and KAFKA_OPTS), e.g. -Xmx2g.",
        ))
        .define(key(
            "plugin.host.classpath",
            List,
            Def::Value(""),
            Low,
            "connect-rs: jars and directories put first on the plugin host's class path (Kafka \
             Connect's CLASSPATH), before the bundled Kafka API jars.",
        ))
        .define(key(
            "plugin.host.scan.cache",
            Boolean,
            Def::Value("true"),
            Low,
            "connect-rs: reuse the plugin.path scan of an earlier start when nothing it depends \
             on changed (every scanned file's path, size and modification time, the scan's \
             settings, the Java and the plugin host's build), so such a start runs no JVM to \
             scan; false: scan at every start, as Kafka Connect does.",
        ))
        .define(
            key(
                "plugin.host.start.timeout.ms",
                Long,
                Def::Value("60000"),
                Low,
                "connect-rs: how long the plugin host JVM may take to start and connect.",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(
            key(
                "plugin.host.heartbeat.interval.ms",
                Long,
                Def::Value("2000"),
                Low,
                "connect-rs: how often the worker pings the plugin host JVM.",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(
            key(
                "plugin.host.heartbeat.timeout.ms",
                Long,
                Def::Value("30000"),
                Low,
                "connect-rs: a plugin host JVM that leaves a ping unanswered this long (a hung \
                 JVM; GC pauses are shorter) is killed and started again.",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(
            key(
                "plugin.host.restart.backoff.ms",
                Long,
                Def::Value("1000"),
                Low,
                "connect-rs: delay before the plugin host JVM is started again after it died; \
                 doubled for each further death in a row.",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(
            key(
                "plugin.host.restart.backoff.max.ms",
                Long,
                Def::Value("60000"),
                Low,
                "connect-rs: longest delay before the plugin host JVM is started again.",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(
            key(
                "metrics.sample.window.ms",
                Long,
                Def::Value("30000"),
                Low,
                "The window of time a metrics sample is computed over.",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(
            key(
                "metrics.num.samples",
                Int,
                Def::Value("2"),
                Low,
                "The number of samples maintained to compute metrics.",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(
            key(
                "metrics.recording.level",
                Str,
                Def::Value("INFO"),
                Low,
                "The highest recording level for metrics.",
            )
            .validator(Validator::OneOf(&["INFO", "DEBUG", "TRACE"])),
        )
        .define(key(
            "metric.reporters",
            List,
            Def::Value("org.apache.kafka.common.metrics.JmxReporter"),
            Low,
            "Metrics reporter classes.",
        ))
        .define(key(
            "config.providers",
            List,
            Def::Value(""),
            Low,
            "Names of ConfigProvider instances (config.providers.<name>.class).",
        ))
        .define(key(
            "connector.client.config.override.policy",
            Str,
            Def::Value("All"),
            Medium,
            "Which client overrides connectors may set: All, None or Principal.",
        ))
        .define(key(
            "topic.creation.enable",
            Boolean,
            Def::Value("true"),
            Low,
            "Whether source connectors may create topics (topic.creation.* in connector configs).",
        ))
        .define(key(
            "topic.tracking.enable",
            Boolean,
            Def::Value("true"),
            Low,
            "Track the set of active topics per connector.",
        ))
        .define(key(
            "topic.tracking.allow.reset",
            Boolean,
            Def::Value("true"),
            Low,
            "Allow resetting the set of active topics.",
        ))
        .define(key(
            "listeners",
            List,
            Def::Value("http://:8083"),
            Low,
            "REST listeners, as protocol://host:port.",
        ))
        .define(key(
            "rest.advertised.host.name",
            Str,
            Def::Null,
            Low,
            "Host name given to other workers.",
        ))
        .define(key(
            "rest.advertised.port",
            Int,
            Def::Null,
            Low,
            "Port given to other workers.",
        ))
        .define(key(
            "rest.advertised.listener",
            Str,
            Def::Null,
            Low,
            "Listener (http or https) given to other workers.",
        ))
        .define(key(
            "rest.extension.classes",
            List,
            Def::Value(""),
            Low,
            "ConnectRestExtension classes.",
        ))
        .define(key(
            "access.control.allow.origin",
            Str,
            Def::Value(""),
            Low,
            "Value of the Access-Control-Allow-Origin header for REST requests.",
        ))
        .define(key(
            "access.control.allow.methods",
            Str,
            Def::Value(""),
            Low,
            "Methods allowed for cross-origin requests.",
        ))
        .define(key(
            "admin.listeners",
            List,
            Def::Null,
            Low,
            "Listeners for the admin endpoints; unset = main listeners, empty = disabled.",
        ))
        .define(
            key(
                "rest.idle.timeout.ms",
                Long,
                Def::Value("30000"),
                Low,
                "connect-rs: how long a REST connection may wait for the client (a request's \
                 head or body, an idle keep-alive connection, an unread answer) before it is \
                 closed; Jetty's idle timeout in Kafka Connect, 30 s.",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(key(
            "response.http.headers.config",
            Str,
            Def::Value(""),
            Low,
            "Rules for REST response headers.",
        ))
        .define(
            key(
                "ssl.client.auth",
                Str,
                Def::Value("none"),
                Low,
                "Client authentication for the HTTPS REST listener.",
            )
            .validator(Validator::OneOf(&["required", "requested", "none"])),
        )
        .define(
            key(
                "security.protocol",
                Str,
                Def::Value("PLAINTEXT"),
                Medium,
                "Protocol used to talk to brokers.",
            )
            .validator(Validator::OneOf(&[
                "PLAINTEXT",
                "SSL",
                "SASL_PLAINTEXT",
                "SASL_SSL",
            ])),
        )
        .define(key(
            "client.id",
            Str,
            Def::Value(""),
            Low,
            "Client id prefix of the worker's Kafka clients.",
        ))
        .define(
            key(
                "default.api.timeout.ms",
                Int,
                Def::Value("60000"),
                Medium,
                "How long the worker waits for Kafka at start-up (its cluster id lookup).",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(
            key(
                "embedded.log.dir",
                Str,
                Def::Value(DEFAULT_EMBEDDED_LOG_DIR),
                High,
                "connect-rs: directory of the embedded log used when bootstrap.servers is absent.",
            )
            .validator(Validator::NonEmptyString),
        )
        .define(
            key(
                "num.partitions",
                Int,
                Def::Value("1"),
                Medium,
                "connect-rs: partitions of topics created in the embedded log.",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(
            key(
                "embedded.log.buffer.memory",
                Long,
                Def::Value(EMBEDDED_LOG_BUFFER_MEMORY_DEFAULT),
                Medium,
                "connect-rs: bytes of produced records the embedded log holds until they are \
                 durable; a source task's send waits beyond it (as a producer's buffer.memory).",
            )
            .validator(Validator::at_least(1.0)),
        )
        .define(key(
            "embedded.log.exactly.once.source",
            Boolean,
            Def::Value("true"),
            Medium,
            "connect-rs: commit each source batch's records and source offsets in one atomic \
             step of the embedded log (its commit journal), so a source resumes exactly after \
             the last durable batch; false: at-least-once, offsets only as flushed.",
        ))
        .define(
            key(
                "embedded.log.fetch.max.bytes",
                Long,
                Def::Value(EMBEDDED_LOG_FETCH_MAX_BYTES_DEFAULT),
                Medium,
                "connect-rs: most bytes of records (as stored) one sink task poll of the \
                 embedded log returns, at least one record (as a consumer's fetch.max.bytes).",
            )
            .validator(Validator::at_least(1.0)),
        )
}

/// Default of `embedded.log.buffer.memory` (16 MiB).
const EMBEDDED_LOG_BUFFER_MEMORY_DEFAULT: &str = "16777216";
/// Default of `embedded.log.fetch.max.bytes` (8 MiB).
const EMBEDDED_LOG_FETCH_MAX_BYTES_DEFAULT: &str = "8388608";

/// The keys of standalone mode (Kafka's `StandaloneConfig`).
pub fn standalone_worker_def() -> ConfigDef {
    common_worker_def().define(key("offset.storage.file.filename", Str, Def::Null, High,
        "File to store source connector offsets in; default <embedded.log.dir>/connect.offsets.json."))
        .define(key("task.restart.auto.enable", Boolean, Def::Value("true"), Medium,
            "connect-rs: restart a task that failed with a retriable error, with exponential backoff."))
        .define(key("task.restart.max.attempts", Int, Def::Value("10"), Low,
            "connect-rs: automatic restarts after consecutive retriable failures, at most.")
            .validator(Validator::at_least(0.0)))
        .define(key("task.restart.initial.backoff.ms", Long, Def::Value("1000"), Low,
            "connect-rs: delay before the first automatic restart; doubled for each further one.")
            .validator(Validator::at_least(0.0)))
        .define(key("task.restart.max.backoff.ms", Long, Def::Value("60000"), Low,
            "connect-rs: longest delay between automatic restarts.")
            .validator(Validator::at_least(0.0)))
        .define(key("config.storage.file.filename", Str, Def::Null, Medium,
            "connect-rs: file keeping connectors created over REST (JSON, replaced atomically) so they survive a restart; absent: in memory, as Kafka Connect's standalone mode."))
}

/// The keys of distributed mode (Kafka's `DistributedConfig`).
pub fn distributed_worker_def() -> ConfigDef {
    common_worker_def()
        .define(
            key(
                "bootstrap.servers",
                List,
                Def::Null,
                High,
                "Kafka brokers (host:port,...). Absent: the internal topics live in the \
                 embedded log (a one-worker cluster).",
            )
            .validator(Validator::NonEmptyList),
        )
        .define(key(
            "group.id",
            Str,
            Def::Required,
            High,
            "The Connect cluster (a Kafka group) this worker belongs to.",
        ))
        .define(key(
            "session.timeout.ms",
            Int,
            Def::Value("10000"),
            High,
            "Group session timeout.",
        ))
        .define(key(
            "heartbeat.interval.ms",
            Int,
            Def::Value("3000"),
            High,
            "Group heartbeat interval.",
        ))
        .define(key(
            "rebalance.timeout.ms",
            Int,
            Def::Value("60000"),
            High,
            "Group rebalance timeout.",
        ))
        .define(key(
            "worker.sync.timeout.ms",
            Int,
            Def::Value("3000"),
            Medium,
            "Time to catch up with the config topic before leaving the group.",
        ))
        .define(key(
            "worker.unsync.backoff.ms",
            Int,
            Def::Value("300000"),
            Medium,
            "Back-off after leaving the group out of sync.",
        ))
        .define(key(
            "config.storage.topic",
            Str,
            Def::Required,
            High,
            "Topic of connector configs.",
        ))
        .define(key(
            "config.storage.replication.factor",
            Short,
            Def::Value("3"),
            Low,
            "Replication factor of the config topic (-1: broker default).",
        ))
        .define(key(
            "offset.storage.topic",
            Str,
            Def::Required,
            High,
            "Topic of source offsets.",
        ))
        .define(key(
            "offset.storage.partitions",
            Int,
            Def::Value("25"),
            Low,
            "Partitions of the offsets topic (-1: broker default).",
        ))
        .define(key(
            "offset.storage.replication.factor",
            Short,
            Def::Value("3"),
            Low,
            "Replication factor of the offsets topic (-1: broker default).",
        ))
        .define(key(
            "status.storage.topic",
            Str,
            Def::Required,
            High,
            "Topic of statuses.",
        ))
        .define(key(
            "status.storage.partitions",
            Int,
            Def::Value("5"),
            Low,
            "Partitions of the status topic (-1: broker default).",
        ))
        .define(key(
            "status.storage.replication.factor",
            Short,
            Def::Value("3"),
            Low,
            "Replication factor of the status topic (-1: broker default).",
        ))
        .define(
            key(
                "connect.protocol",
                Str,
                Def::Value("sessioned"),
                Low,
                "Group sub-protocol.",
            )
            .validator(Validator::OneOf(&["eager", "compatible", "sessioned"])),
        )
        .define(
            key(
                "scheduled.rebalance.max.delay.ms",
                Int,
                Def::Value("0"),
                Low,
                "Delay before reassigning the work of a departed worker (connect-rs: 0, at once; Kafka Connect: 300000).",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(
            key(
                "exactly.once.source.support",
                Str,
                Def::Value("disabled"),
                High,
                "Exactly-once support for source connectors.",
            )
            .validator(Validator::OneOf(&["disabled", "preparing", "enabled"])),
        )
        .define(key(
            "inter.worker.key.generation.algorithm",
            Str,
            Def::Value("HmacSHA256"),
            Low,
            "Algorithm of the session key.",
        ))
        .define(key(
            "inter.worker.key.size",
            Int,
            Def::Null,
            Low,
            "Size of the session key.",
        ))
        .define(
            key(
                "inter.worker.key.ttl.ms",
                Int,
                Def::Value("3600000"),
                Low,
                "Lifetime of the session key (0: it never expires).",
            )
            .validator(Validator::at_least(0.0)),
        )
        .define(key(
            "inter.worker.signature.algorithm",
            Str,
            Def::Value("HmacSHA256"),
            Low,
            "Algorithm signing internal requests.",
        ))
        .define(key(
            "inter.worker.verification.algorithms",
            List,
            Def::Value("HmacSHA256"),
            Low,
            "Algorithms accepted for internal requests.",
        ))
        .define(key(
            "metadata.max.age.ms",
            Long,
            Def::Value("300000"),
            Low,
            "Metadata refresh period.",
        ))
        .define(key(
            "send.buffer.bytes",
            Int,
            Def::Value("131072"),
            Medium,
            "TCP send buffer.",
        ))
        .define(key(
            "receive.buffer.bytes",
            Int,
            Def::Value("32768"),
            Medium,
            "TCP receive buffer.",
        ))
        .define(key(
            "reconnect.backoff.ms",
            Long,
            Def::Value("50"),
            Low,
            "Reconnect back-off.",
        ))
        .define(key(
            "reconnect.backoff.max.ms",
            Long,
            Def::Value("1000"),
            Low,
            "Maximum reconnect back-off.",
        ))
        .define(key(
            "request.timeout.ms",
            Int,
            Def::Value("40000"),
            Medium,
            "Request timeout.",
        ))
        .define(key(
            "connections.max.idle.ms",
            Long,
            Def::Value("540000"),
            Medium,
            "Idle connection timeout.",
        ))
        .define(key(
            "metadata.recovery.strategy",
            Str,
            Def::Null,
            Low,
            "Metadata recovery strategy.",
        ))
}

/// The worker's definition for `mode`.
pub fn worker_def(mode: WorkerMode) -> ConfigDef {
    match mode {
        WorkerMode::Standalone => standalone_worker_def(),
        WorkerMode::Distributed => distributed_worker_def(),
    }
}

/// Warnings for worker keys that are accepted but do nothing, or that Kafka removed.
pub(super) fn special_worker_key(key: &str) -> Option<String> {
    match key {
        "rest.port" | "rest.host.name" | "rest.advertised.host.port" => Some(format!(
            "'{key}' was removed in Kafka 3.0 and is ignored; use 'listeners' instead."
        )),
        k if k.starts_with("internal.key.converter")
            || k.starts_with("internal.value.converter") =>
        {
            Some(format!(
                "'{key}' was removed in Kafka 3.0 and is ignored: internal data always uses \
                 JsonConverter with schemas.enable=false."
            ))
        }
        _ => None,
    }
}
