//! Configuration keys of the JDBC source (the Confluent `JdbcSourceConnectorConfig` keys), and
//! [`SourceSettings`], their parsed and cross-checked form.
//!
//! Keys the reference connector has but connect-rs does not apply are still defined: set to
//! anything but their default they are refused (when they would change the data) or warned
//! about (when they only tune buffering or logging).

use std::time::Duration;

use connect_api::config_def::Default as KeyDefault;
use connect_api::{
    ConfigDef, ConfigIssue, ConfigKey, ConfigMap, ConfigType, ConfigValues, ConnectError,
    Importance, Result, Validator,
};
use regex::Regex;

use crate::dialect::Dialect;
use crate::url::ConnectionSpec;

/// Class name of the source connector.
pub const SOURCE_CONNECTOR_CLASS: &str = "io.confluent.connect.jdbc.JdbcSourceConnector";
/// Class name of its tasks.
pub const SOURCE_TASK_CLASS: &str = "io.confluent.connect.jdbc.source.JdbcSourceTask";

/// `connection.url`.
pub const CONNECTION_URL: &str = "connection.url";
/// `connection.user`.
pub const CONNECTION_USER: &str = "connection.user";
/// `connection.password`.
pub const CONNECTION_PASSWORD: &str = "connection.password";
/// `connection.attempts`.
pub const CONNECTION_ATTEMPTS: &str = "connection.attempts";
/// `connection.backoff.ms`.
pub const CONNECTION_BACKOFF_MS: &str = "connection.backoff.ms";
/// `table.whitelist`.
pub const TABLE_WHITELIST: &str = "table.whitelist";
/// `table.blacklist`.
pub const TABLE_BLACKLIST: &str = "table.blacklist";
/// `table.include.list`.
pub const TABLE_INCLUDE_LIST: &str = "table.include.list";
/// `table.exclude.list`.
pub const TABLE_EXCLUDE_LIST: &str = "table.exclude.list";
/// `catalog.pattern`.
pub const CATALOG_PATTERN: &str = "catalog.pattern";
/// `schema.pattern`.
pub const SCHEMA_PATTERN: &str = "schema.pattern";
/// `table.types`.
pub const TABLE_TYPES: &str = "table.types";
/// `numeric.precision.mapping` (deprecated).
pub const NUMERIC_PRECISION_MAPPING: &str = "numeric.precision.mapping";
/// `numeric.mapping`.
pub const NUMERIC_MAPPING: &str = "numeric.mapping";
/// `dialect.name`.
pub const DIALECT_NAME: &str = "dialect.name";
/// `mode`.
pub const MODE: &str = "mode";
/// `incrementing.column.name`.
pub const INCREMENTING_COLUMN_NAME: &str = "incrementing.column.name";
/// `timestamp.column.name`.
pub const TIMESTAMP_COLUMN_NAME: &str = "timestamp.column.name";
/// `timestamp.initial`.
pub const TIMESTAMP_INITIAL: &str = "timestamp.initial";
/// `validate.non.null`.
pub const VALIDATE_NON_NULL: &str = "validate.non.null";
/// `query`.
pub const QUERY: &str = "query";
/// `query.suffix`.
pub const QUERY_SUFFIX: &str = "query.suffix";
/// `quote.sql.identifiers`.
pub const QUOTE_SQL_IDENTIFIERS: &str = "quote.sql.identifiers";
/// `table.poll.interval.ms`.
pub const TABLE_POLL_INTERVAL_MS: &str = "table.poll.interval.ms";
/// `poll.interval.ms`.
pub const POLL_INTERVAL_MS: &str = "poll.interval.ms";
/// `batch.max.rows`.
pub const BATCH_MAX_ROWS: &str = "batch.max.rows";
/// `topic.prefix`.
pub const TOPIC_PREFIX: &str = "topic.prefix";
/// `timestamp.delay.interval.ms`.
pub const TIMESTAMP_DELAY_INTERVAL_MS: &str = "timestamp.delay.interval.ms";
/// `db.timezone`.
pub const DB_TIMEZONE: &str = "db.timezone";
/// `transaction.isolation.mode`.
pub const TRANSACTION_ISOLATION_MODE: &str = "transaction.isolation.mode";
/// `timestamp.granularity`.
pub const TIMESTAMP_GRANULARITY: &str = "timestamp.granularity";
/// `key.from.primary.key`: connect-rs's extension (the reference emits no key): records get the
/// table's primary-key columns as their key.
pub const KEY_FROM_PRIMARY_KEY: &str = "key.from.primary.key";
/// `tables`: the task configuration key with the task's tables (quoted, comma-joined).
pub const TABLES: &str = "tables";

/// Keys that only tune buffering, retries of the reference implementation or logging: a
/// non-default value is warned about (connect-rs streams each result and has no such knob).
const TUNING_ONLY: &[(&str, &str)] = &[
    (
        "max.buffer.size",
        "connect-rs streams each result set through a bounded queue of batch.max.rows",
    ),
    (
        "poll.linger.ms",
        "connect-rs returns rows as soon as a query yields them",
    ),
    (
        "query.retry.attempts",
        "a failed query fails the task (restart it through REST)",
    ),
    (
        "query.masked",
        "connect-rs never logs query texts with values",
    ),
];

/// Keys that would change the data and are not implemented: refused when set to anything
/// but their default (`None` = any value is refused).
const REFUSED: &[(&str, Option<&str>)] = &[
    ("timestamp.columns.mapping", Some("")),
    ("incrementing.column.mapping", Some("")),
    ("date.calendar.system", Some("LEGACY")),
    ("table.names.qualify", Some("true")),
    ("sql.quote.identifiers", Some("true")),
    ("timestamp.initial.ms", Some("0")),
    ("incrementing.initial", Some("-1")),
];

/// How rows are selected (`mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The whole table on every poll.
    Bulk,
    /// Rows whose incrementing column exceeds the last one seen.
    Incrementing,
    /// Rows whose timestamp exceeds the last one seen.
    Timestamp,
    /// Rows after the last (timestamp, incrementing) pair seen.
    TimestampIncrementing,
}

impl Mode {
    /// Parses `mode`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "bulk" => Some(Self::Bulk),
            "incrementing" => Some(Self::Incrementing),
            "timestamp" => Some(Self::Timestamp),
            "timestamp+incrementing" => Some(Self::TimestampIncrementing),
            _ => None,
        }
    }

    /// Whether the mode uses an incrementing column.
    pub fn uses_incrementing(self) -> bool {
        matches!(self, Self::Incrementing | Self::TimestampIncrementing)
    }

    /// Whether the mode uses timestamp columns.
    pub fn uses_timestamp(self) -> bool {
        matches!(self, Self::Timestamp | Self::TimestampIncrementing)
    }
}

/// How NUMERIC columns map to Connect types (`numeric.mapping`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericMapping {
    /// Always Decimal.
    None,
    /// Integer types when the scale is 0 and the precision fits.
    PrecisionOnly,
    /// Integers or FLOAT64 when the precision fits.
    BestFit,
    /// As best_fit, but FLOAT64 whenever the scale is positive.
    BestFitEagerDouble,
}

/// Which tables a connector reads.
#[derive(Debug, Clone)]
pub enum TableFilter {
    /// Every listed table.
    All,
    /// `table.whitelist`: names (unqualified, or unquoted / quoted qualified).
    Whitelist(Vec<String>),
    /// `table.blacklist`.
    Blacklist(Vec<String>),
    /// `table.include.list` / `table.exclude.list`: full-match regexes on the unquoted
    /// qualified name.
    Regex {
        /// Tables to take.
        include: Vec<Regex>,
        /// Tables to drop among those.
        exclude: Vec<Regex>,
    },
}

/// The JDBC source configuration, parsed and checked.
#[derive(Debug, Clone)]
pub struct SourceSettings {
    /// Where to connect.
    pub connection: ConnectionSpec,
    /// `connection.attempts`.
    pub connection_attempts: u32,
    /// `connection.backoff.ms`.
    pub connection_backoff: Duration,
    /// Which tables.
    pub filter: TableFilter,
    /// `schema.pattern` (a LIKE pattern; `None` = no filter).
    pub schema_pattern: Option<String>,
    /// `table.types`, upper case.
    pub table_types: Vec<String>,
    /// `numeric.mapping` (with the deprecated `numeric.precision.mapping` applied).
    pub numeric_mapping: NumericMapping,
    /// `mode`.
    pub mode: Mode,
    /// `incrementing.column.name` (empty = the auto-increment column).
    pub incrementing_column: String,
    /// `timestamp.column.name`.
    pub timestamp_columns: Vec<String>,
    /// `timestamp.initial` (epoch ms; -1 = the database's current time).
    pub timestamp_initial: Option<i64>,
    /// `validate.non.null`.
    pub validate_non_null: bool,
    /// `query` (`None` = table mode).
    pub query: Option<String>,
    /// `query.suffix`.
    pub query_suffix: String,
    /// `quote.sql.identifiers` = `always`.
    pub quote_identifiers: bool,
    /// `table.poll.interval.ms`.
    pub table_poll_interval: Duration,
    /// `poll.interval.ms`.
    pub poll_interval: Duration,
    /// `batch.max.rows`.
    pub batch_max_rows: usize,
    /// `topic.prefix`.
    pub topic_prefix: String,
    /// `timestamp.delay.interval.ms`.
    pub timestamp_delay: Duration,
    /// `key.from.primary.key`: the record key is the Struct of the primary-key columns.
    pub key_from_primary_key: bool,
}

/// The JDBC source's configuration keys.
pub fn source_config_def() -> ConfigDef {
    use ConfigType as T;
    use Importance::{High, Low, Medium};
    let key = |name, t, d, i, doc| ConfigKey::new(name, t, d, i, doc);
    const DB: &str = "Database";
    const MODE_G: &str = "Mode";
    const CONN: &str = "Connector";
    ConfigDef::new()
        .define(
            key(CONNECTION_URL, T::String, KeyDefault::Required, High,
                "JDBC connection URL: jdbc:postgresql://host:5432/db, jdbc:mysql://host:3306/db, \
                 jdbc:mariadb://host:3306/db or jdbc:sqlite:/path/file.db")
            .validator(Validator::NonEmptyString)
            .in_group(DB, 1),
        )
        .define(key(CONNECTION_USER, T::String, KeyDefault::Null, High, "JDBC connection user.").in_group(DB, 2))
        .define(key(CONNECTION_PASSWORD, T::Password, KeyDefault::Null, High, "JDBC connection password.").in_group(DB, 3))
        .define(
            key(CONNECTION_ATTEMPTS, T::Int, KeyDefault::Value("3"), Low,
                "Maximum number of attempts to open a database connection.")
            .validator(Validator::at_least(1.0))
            .in_group(DB, 4),
        )
        .define(key(CONNECTION_BACKOFF_MS, T::Long, KeyDefault::Value("10000"), Low,
            "Backoff time in milliseconds between connection attempts.").in_group(DB, 5))
        .define(key(TABLE_WHITELIST, T::List, KeyDefault::Value(""), Medium,
            "Tables to copy (unqualified names, or qualified ones, quoted or not). Exclusive with \
             table.blacklist, table.include.list and table.exclude.list.").in_group(DB, 6))
        .define(key(TABLE_BLACKLIST, T::List, KeyDefault::Value(""), Medium,
            "Tables not to copy. Exclusive with table.whitelist.").in_group(DB, 7))
        .define(key(TABLE_INCLUDE_LIST, T::List, KeyDefault::Value(""), Medium,
            "Regular expressions matched against the whole unquoted qualified table name \
             (e.g. public.users); only matching tables are copied.").in_group(DB, 8))
        .define(key(TABLE_EXCLUDE_LIST, T::List, KeyDefault::Value(""), Medium,
            "Regular expressions of tables to leave out of those table.include.list takes \
             (needs table.include.list).").in_group(DB, 9))
        .define(key(CATALOG_PATTERN, T::String, KeyDefault::Null, Medium,
            "Catalog pattern to fetch table metadata (not supported by connect-rs: must stay \
             unset).").in_group(DB, 10))
        .define(key(SCHEMA_PATTERN, T::String, KeyDefault::Null, Medium,
            "Schema pattern (SQL LIKE) of the tables to list; unset = every schema, \"\" = \
             tables without a schema.").in_group(DB, 11))
        .define(key(TABLE_TYPES, T::List, KeyDefault::Value("TABLE"), Low,
            "Table types to copy: TABLE, VIEW (PostgreSQL also MATERIALIZED VIEW, PARTITIONED \
             TABLE, FOREIGN TABLE).").in_group(DB, 12))
        .define(key(NUMERIC_PRECISION_MAPPING, T::Boolean, KeyDefault::Value("false"), Low,
            "Deprecated: true means numeric.mapping=precision_only.").in_group(DB, 13))
        .define(
            key(NUMERIC_MAPPING, T::String, KeyDefault::Null, Low,
                "How NUMERIC columns map to Connect types: none (Decimal), precision_only, \
                 best_fit, best_fit_eager_double.")
            .validator(Validator::OneOf(&["none", "precision_only", "best_fit", "best_fit_eager_double"]))
            .in_group(DB, 14),
        )
        .define(key(DIALECT_NAME, T::String, KeyDefault::Value(""), Low,
            "Database dialect (class simple name); empty = from the URL. It must match the \
             URL's database.").in_group(DB, 15))
        .define(
            key(MODE, T::String, KeyDefault::Value(""), High,
                "How tables are polled: bulk, incrementing, timestamp or timestamp+incrementing.")
            .validator(Validator::OneOf(&["", "bulk", "incrementing", "timestamp", "timestamp+incrementing"]))
            .in_group(MODE_G, 1),
        )
        .define(key(INCREMENTING_COLUMN_NAME, T::String, KeyDefault::Value(""), Medium,
            "Strictly incrementing column; empty = the table's auto-increment column.").in_group(MODE_G, 2))
        .define(key(TIMESTAMP_COLUMN_NAME, T::List, KeyDefault::Value(""), Medium,
            "Timestamp columns of changed rows; with several, the first non-null one \
             (COALESCE) counts.").in_group(MODE_G, 3))
        .define(key(TIMESTAMP_INITIAL, T::Long, KeyDefault::Null, Low,
            "Epoch milliseconds to start timestamp modes at when there is no offset; -1 = the \
             database's current time.").in_group(MODE_G, 4))
        .define(key(VALIDATE_NON_NULL, T::Boolean, KeyDefault::Value("true"), Low,
            "Check that the incrementing and timestamp columns are NOT NULL.").in_group(MODE_G, 5))
        .define(key(QUERY, T::String, KeyDefault::Value(""), Medium,
            "A custom query instead of tables; criteria of incremental modes are appended.").in_group(MODE_G, 6))
        .define(key(QUERY_SUFFIX, T::String, KeyDefault::Value(""), Low,
            "Text appended (after a space) to every query.").in_group(MODE_G, 7))
        .define(
            key(QUOTE_SQL_IDENTIFIERS, T::String, KeyDefault::Value("always"), Medium,
                "Whether to quote table and column names: always or never.")
            .validator(Validator::OneOf(&["always", "never"]))
            .in_group(MODE_G, 8),
        )
        .define(
            key(TRANSACTION_ISOLATION_MODE, T::String, KeyDefault::Value("DEFAULT"), Low,
                "Isolation of the read transactions; connect-rs supports DEFAULT only.")
            .validator(Validator::OneOf(&["DEFAULT", "READ_UNCOMMITTED", "READ_COMMITTED", "REPEATABLE_READ", "SERIALIZABLE", "SQL_SERVER_SNAPSHOT"]))
            .in_group(MODE_G, 9),
        )
        .define(
            key(TIMESTAMP_GRANULARITY, T::String, KeyDefault::Value("connect_logical"), Low,
                "Representation of timestamps; connect-rs supports connect_logical only.")
            .in_group(MODE_G, 10),
        )
        .define(key(TABLE_POLL_INTERVAL_MS, T::Long, KeyDefault::Value("60000"), Low,
            "How often to list the tables again; a change re-plans the tasks.").in_group(CONN, 1))
        .define(
            key(POLL_INTERVAL_MS, T::Int, KeyDefault::Value("5000"), High,
                "Least time in milliseconds between two queries of one table.")
            .validator(Validator::at_least(0.0))
            .in_group(CONN, 2),
        )
        .define(
            key(BATCH_MAX_ROWS, T::Int, KeyDefault::Value("1000"), Low,
                "Most rows one poll returns.")
            .validator(Validator::at_least(1.0))
            .in_group(CONN, 3),
        )
        .define(key(TOPIC_PREFIX, T::String, KeyDefault::Value(""), High,
            "Prefix of the topic names: prefix + table name, or the topic itself in query mode.").in_group(CONN, 4))
        .define(
            key(TIMESTAMP_DELAY_INTERVAL_MS, T::Long, KeyDefault::Value("0"), High,
                "How long after a timestamp a row is published (waits for slower transactions).")
            .validator(Validator::at_least(0.0))
            .in_group(CONN, 5),
        )
        .define(key(DB_TIMEZONE, T::String, KeyDefault::Value("UTC"), Medium,
            "Time zone of timestamps without zone in the database; connect-rs supports UTC only.").in_group(CONN, 6))
        .define(key(KEY_FROM_PRIMARY_KEY, T::Boolean, KeyDefault::Value("false"), Medium,
            "connect-rs extension: key each record with a Struct of its table's primary-key \
             columns (in key order; named as the value). Every table must have a primary key; \
             not with query. Default false: no key, as the Confluent connector.").in_group(CONN, 7))
        .define(key("max.buffer.size", T::Int, KeyDefault::Value("100000"), Low, "Ignored by connect-rs (warned about when set)."))
        .define(key("poll.linger.ms", T::Long, KeyDefault::Value("5000"), Low, "Ignored by connect-rs (warned about when set)."))
        .define(key("query.retry.attempts", T::Int, KeyDefault::Value("-1"), Low, "Ignored by connect-rs (warned about when set)."))
        .define(key("query.masked", T::Boolean, KeyDefault::Value("false"), Low, "Ignored by connect-rs (warned about when set)."))
}

/// Parses `props` with the source ConfigDef, every issue joined into one error.
fn parse_values(props: &ConfigMap) -> Result<ConfigValues> {
    source_config_def().parse(props).map_err(|issues| {
        let key = issues.first().map(|i| i.key.clone()).unwrap_or_default();
        let message = issues
            .iter()
            .map(|i| i.message.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        ConnectError::config(key, message)
    })
}

/// Cross-key problems of `props` (no I/O), as the connector's `validate` reports them.
pub fn validate(props: &ConfigMap) -> Vec<ConfigIssue> {
    match SourceSettings::parse(props) {
        Ok(_) => Vec::new(),
        Err(ConnectError::Config { key, message }) => vec![ConfigIssue::new(key, message)],
        Err(e) => vec![ConfigIssue::new(CONNECTION_URL, e.to_string())],
    }
}

impl SourceSettings {
    /// Parses and checks `props` (connector or task configuration).
    ///
    /// # Errors
    /// A configuration error naming the first bad key and every problem found.
    pub fn parse(props: &ConfigMap) -> Result<Self> {
        let v = parse_values(props)?;
        let s = |k: &str| v.string(k).unwrap_or("").to_owned();
        let long = |k: &str| v.long(k).unwrap_or(0);
        let ms = |k: &str| Duration::from_millis(u64::try_from(long(k)).unwrap_or(0));
        let bad = |k: &str, m: String| Err(ConnectError::config(k, m));

        for (k, default) in REFUSED {
            if let Some(value) = props.get(*k) {
                if default.is_none_or(|d| !value.trim().eq_ignore_ascii_case(d)) {
                    return bad(
                        k,
                        format!(
                            "{k}={value} is not supported by connect-rs's JDBC source; remove it"
                        ),
                    );
                }
            }
        }
        for (k, why) in TUNING_ONLY {
            if props.contains_key(*k) {
                tracing::warn!(key = k, "{k} has no effect in connect-rs: {why}");
            }
        }

        let url = s(CONNECTION_URL);
        let connection = ConnectionSpec::parse(
            &url,
            v.string(CONNECTION_USER),
            v.string(CONNECTION_PASSWORD),
        )
        .map_err(|e| ConnectError::config(CONNECTION_URL, e.to_string()))?;
        let dialect_name = s(DIALECT_NAME);
        if !dialect_name.is_empty() {
            match Dialect::from_class_name(&dialect_name) {
                Some(d) if d == connection.dialect => {}
                Some(_) => {
                    return bad(DIALECT_NAME, format!(
                        "{dialect_name} does not match the database of connection.url ({}); connect-rs \
                         talks to a database with its own dialect only", connection.dialect))
                }
                None => {
                    return bad(DIALECT_NAME, format!(
                        "unknown dialect {dialect_name:?}; expected PostgreSqlDatabaseDialect, \
                         MySqlDatabaseDialect or SqliteDatabaseDialect"))
                }
            }
        }
        if v.string(CATALOG_PATTERN).is_some() {
            return bad(CATALOG_PATTERN, "catalog.pattern is not supported by connect-rs (MySQL/MariaDB list the URL's database; use table filters)".into());
        }
        let tz = s(DB_TIMEZONE);
        if !matches!(tz.as_str(), "UTC" | "Etc/UTC" | "Z" | "GMT") {
            return bad(DB_TIMEZONE, format!("db.timezone={tz} is not supported: connect-rs reads timestamps without zone as UTC only"));
        }
        if s(TRANSACTION_ISOLATION_MODE) != "DEFAULT" {
            return bad(TRANSACTION_ISOLATION_MODE, format!(
                "transaction.isolation.mode={} is not supported: connect-rs uses the database's default isolation",
                s(TRANSACTION_ISOLATION_MODE)));
        }
        if s(TIMESTAMP_GRANULARITY) != "connect_logical" {
            return bad(TIMESTAMP_GRANULARITY, format!(
                "timestamp.granularity={} is not supported: connect-rs emits Connect Timestamp values (connect_logical) only",
                s(TIMESTAMP_GRANULARITY)));
        }

        let list = |k: &str| v.list(k).to_vec();
        let (white, black) = (list(TABLE_WHITELIST), list(TABLE_BLACKLIST));
        let (include, exclude) = (list(TABLE_INCLUDE_LIST), list(TABLE_EXCLUDE_LIST));
        let query = Some(s(QUERY)).filter(|q| !q.trim().is_empty());
        if !white.is_empty() && !black.is_empty() {
            return bad(
                TABLE_WHITELIST,
                "table.whitelist and table.blacklist cannot both be set".into(),
            );
        }
        if (!include.is_empty() || !exclude.is_empty()) && (!white.is_empty() || !black.is_empty())
        {
            return bad(TABLE_INCLUDE_LIST, "table.include.list/table.exclude.list cannot be mixed with table.whitelist/table.blacklist".into());
        }
        if !exclude.is_empty() && include.is_empty() {
            return bad(
                TABLE_EXCLUDE_LIST,
                "table.exclude.list needs table.include.list".into(),
            );
        }
        if query.is_some() && !(white.is_empty() && black.is_empty() && include.is_empty()) {
            return bad(QUERY, "query cannot be combined with table.whitelist, table.blacklist or table.include.list".into());
        }
        let regexes = |key: &str, list: &[String]| -> Result<Vec<Regex>> {
            list.iter()
                .map(|p| {
                    Regex::new(&format!("^(?:{p})$")).map_err(|e| {
                        ConnectError::config(
                            key,
                            format!("{key}: {p:?} is not a valid regular expression: {e}"),
                        )
                    })
                })
                .collect()
        };
        let filter = if !white.is_empty() {
            TableFilter::Whitelist(white)
        } else if !black.is_empty() {
            TableFilter::Blacklist(black)
        } else if !include.is_empty() {
            TableFilter::Regex {
                include: regexes(TABLE_INCLUDE_LIST, &include)?,
                exclude: regexes(TABLE_EXCLUDE_LIST, &exclude)?,
            }
        } else {
            TableFilter::All
        };

        let mode_text = s(MODE);
        let Some(mode) = Mode::parse(&mode_text) else {
            return bad(
                MODE,
                "mode must be set: bulk, incrementing, timestamp or timestamp+incrementing".into(),
            );
        };
        let incrementing_column = s(INCREMENTING_COLUMN_NAME).trim().to_owned();
        let timestamp_columns = list(TIMESTAMP_COLUMN_NAME);
        if mode.uses_timestamp() && timestamp_columns.is_empty() {
            return bad(
                TIMESTAMP_COLUMN_NAME,
                format!("mode={mode_text} needs timestamp.column.name"),
            );
        }
        if mode.uses_incrementing() && query.is_some() && incrementing_column.is_empty() {
            return bad(
                INCREMENTING_COLUMN_NAME,
                format!("mode={mode_text} with a query needs incrementing.column.name"),
            );
        }
        let numeric_mapping = match v.string(NUMERIC_MAPPING) {
            Some("none") => NumericMapping::None,
            Some("precision_only") => NumericMapping::PrecisionOnly,
            Some("best_fit") => NumericMapping::BestFit,
            Some("best_fit_eager_double") => NumericMapping::BestFitEagerDouble,
            _ if v.boolean(NUMERIC_PRECISION_MAPPING) == Some(true) => {
                NumericMapping::PrecisionOnly
            }
            _ => NumericMapping::None,
        };
        let topic_prefix = s(TOPIC_PREFIX);
        if topic_prefix.len() > 249
            || !topic_prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return bad(
                TOPIC_PREFIX,
                format!(
                    "{topic_prefix:?} is not a valid topic prefix (at most 249 of [A-Za-z0-9._-])"
                ),
            );
        }
        if query.is_some() && topic_prefix.is_empty() {
            return bad(
                TOPIC_PREFIX,
                "query mode publishes to topic.prefix, which must be set".into(),
            );
        }
        // In query mode topic.prefix is the whole topic name ("." and ".." are refused too).
        if let Some(problem) = query
            .as_ref()
            .and_then(|_| connect_api::topic_name_problem(&topic_prefix))
        {
            return bad(TOPIC_PREFIX, problem);
        }
        let table_types: Vec<String> = list(TABLE_TYPES)
            .iter()
            .map(|t| t.to_ascii_uppercase())
            .collect();
        let known: &[&str] = match connection.dialect {
            Dialect::Postgres => &[
                "TABLE",
                "VIEW",
                "MATERIALIZED VIEW",
                "PARTITIONED TABLE",
                "FOREIGN TABLE",
            ],
            Dialect::MySql | Dialect::Sqlite => &["TABLE", "VIEW"],
        };
        if let Some(t) = table_types.iter().find(|t| !known.contains(&t.as_str())) {
            return bad(
                TABLE_TYPES,
                format!(
                    "table type {t:?} is not listed by connect-rs for {}; supported: {}",
                    connection.dialect,
                    known.join(", ")
                ),
            );
        }
        let key_from_primary_key = v.boolean(KEY_FROM_PRIMARY_KEY).unwrap_or(false);
        if key_from_primary_key && query.is_some() {
            return bad(
                KEY_FROM_PRIMARY_KEY,
                "key.from.primary.key=true needs tables: a custom query has no primary key \
                 (remove the key, or key the records with a ValueToKey transform)"
                    .into(),
            );
        }
        let attempts = v.int(CONNECTION_ATTEMPTS).unwrap_or(3);
        Ok(Self {
            connection,
            connection_attempts: u32::try_from(attempts).unwrap_or(1).max(1),
            connection_backoff: ms(CONNECTION_BACKOFF_MS),
            filter,
            schema_pattern: v.string(SCHEMA_PATTERN).map(str::to_owned),
            table_types: list(TABLE_TYPES)
                .iter()
                .map(|t| t.to_ascii_uppercase())
                .collect(),
            numeric_mapping,
            mode,
            incrementing_column,
            timestamp_columns,
            timestamp_initial: v.long(TIMESTAMP_INITIAL),
            validate_non_null: v.boolean(VALIDATE_NON_NULL).unwrap_or(true),
            query,
            query_suffix: s(QUERY_SUFFIX),
            quote_identifiers: s(QUOTE_SQL_IDENTIFIERS) == "always",
            table_poll_interval: ms(TABLE_POLL_INTERVAL_MS),
            poll_interval: ms(POLL_INTERVAL_MS),
            batch_max_rows: usize::try_from(v.int(BATCH_MAX_ROWS).unwrap_or(1000))
                .unwrap_or(1)
                .max(1),
            topic_prefix,
            timestamp_delay: ms(TIMESTAMP_DELAY_INTERVAL_MS),
            key_from_primary_key,
        })
    }

    /// The database family.
    pub fn dialect(&self) -> Dialect {
        self.connection.dialect
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn reads_a_table_mode_configuration_with_defaults() {
        let s = SourceSettings::parse(&props(&[
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "incrementing"),
        ]))
        .unwrap();
        assert_eq!(s.mode, Mode::Incrementing);
        assert_eq!(s.batch_max_rows, 1000);
        assert_eq!(s.poll_interval, Duration::from_secs(5));
        assert_eq!(s.table_poll_interval, Duration::from_secs(60));
        assert_eq!(s.table_types, ["TABLE"]);
        assert_eq!(s.numeric_mapping, NumericMapping::None);
        assert!(s.quote_identifiers);
        assert!(matches!(s.filter, TableFilter::All));
        assert!(!s.key_from_primary_key);
    }

    #[test]
    fn key_from_primary_key_is_refused_in_query_mode_naming_the_key() {
        let p = props(&[
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "bulk"),
            ("query", "SELECT 1 AS x"),
            ("topic.prefix", "q"),
            ("key.from.primary.key", "true"),
        ]);
        let issues = validate(&p);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].key, KEY_FROM_PRIMARY_KEY);
        assert!(issues[0]
            .message
            .contains("custom query has no primary key"));
        let mut p = p;
        p.remove(QUERY);
        assert!(SourceSettings::parse(&p).unwrap().key_from_primary_key);
    }

    #[test]
    fn query_mode_topic_prefix_is_a_whole_topic_name() {
        let with_prefix = |prefix: &str| {
            validate(&props(&[
                ("connection.url", "jdbc:sqlite:/tmp/x.db"),
                ("mode", "bulk"),
                ("query", "SELECT 1 AS x"),
                ("topic.prefix", prefix),
            ]))
        };
        assert!(with_prefix("q").is_empty());
        let issues = with_prefix("..");
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].key, TOPIC_PREFIX);
        assert_eq!(
            issues[0].message,
            "Topic name is invalid: '..' is not allowed"
        );
    }

    #[test]
    fn refuses_what_it_cannot_apply_naming_the_key() {
        let base = [
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "bulk"),
        ];
        let with = |k: &'static str, v: &'static str| {
            let mut p = props(&base);
            p.insert(k.to_owned(), v.to_owned());
            SourceSettings::parse(&p).unwrap_err().to_string()
        };
        assert!(with("db.timezone", "Europe/Paris").contains("db.timezone"));
        assert!(with("timestamp.granularity", "nanos_long").contains("timestamp.granularity"));
        assert!(with("catalog.pattern", "x").contains("catalog.pattern"));
        assert!(with("dialect.name", "MySqlDatabaseDialect").contains("does not match"));
        assert!(with("timestamp.columns.mapping", "a:b").contains("not supported"));
        let mut p = props(&base);
        p.insert("table.whitelist".into(), "a".into());
        p.insert("table.blacklist".into(), "b".into());
        assert!(SourceSettings::parse(&p)
            .unwrap_err()
            .to_string()
            .contains("cannot both"));
        let p = props(&[("connection.url", "jdbc:sqlite:/tmp/x.db")]);
        assert!(SourceSettings::parse(&p)
            .unwrap_err()
            .to_string()
            .contains("mode must be set"));
        let p = props(&[
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "timestamp"),
        ]);
        assert!(SourceSettings::parse(&p)
            .unwrap_err()
            .to_string()
            .contains("timestamp.column.name"));
        let p = props(&[
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "bulk"),
            ("table.exclude.list", "a"),
        ]);
        assert!(SourceSettings::parse(&p)
            .unwrap_err()
            .to_string()
            .contains("needs table.include.list"));
        let p = props(&[
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "bulk"),
            ("table.types", "SYSTEM TABLE"),
        ]);
        assert!(SourceSettings::parse(&p)
            .unwrap_err()
            .to_string()
            .contains("table type"));
    }

    #[test]
    fn numeric_precision_mapping_means_precision_only_unless_numeric_mapping_is_set() {
        let s = SourceSettings::parse(&props(&[
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "bulk"),
            ("numeric.precision.mapping", "true"),
        ]))
        .unwrap();
        assert_eq!(s.numeric_mapping, NumericMapping::PrecisionOnly);
        let s = SourceSettings::parse(&props(&[
            ("connection.url", "jdbc:sqlite:/tmp/x.db"),
            ("mode", "bulk"),
            ("numeric.precision.mapping", "true"),
            ("numeric.mapping", "best_fit"),
        ]))
        .unwrap();
        assert_eq!(s.numeric_mapping, NumericMapping::BestFit);
    }
}
