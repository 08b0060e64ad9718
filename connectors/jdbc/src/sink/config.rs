//! The JDBC sink's configuration keys (Confluent's `JdbcSinkConfig`), parsed into
//! [`SinkConfig`]. Keys of the Confluent connector that connect-rs does not implement are
//! refused when set to anything but their default, never ignored.

use std::time::Duration;

use connect_api::config_def::Default as KeyDefault;
use connect_api::{
    ConfigDef, ConfigIssue, ConfigKey, ConfigMap, ConfigType, ConfigValues, ConnectError,
    Importance, Result, Validator, Width,
};

use crate::dialect::Dialect;
use crate::url::ConnectionSpec;

/// Class name of the sink connector.
pub const CONNECTOR_CLASS: &str = "io.confluent.connect.jdbc.JdbcSinkConnector";
/// Class name of the sink task (`task.class` in its task configurations).
pub const TASK_CLASS: &str = "io.confluent.connect.jdbc.sink.JdbcSinkTask";

/// `connection.url`.
pub const CONNECTION_URL: &str = "connection.url";
/// `connection.user`.
pub const CONNECTION_USER: &str = "connection.user";
/// `connection.password`.
pub const CONNECTION_PASSWORD: &str = "connection.password";
/// `connection.attempts`.
pub const CONNECTION_ATTEMPTS: &str = "connection.attempts";
/// `connection.backoff.ms`.
pub const CONNECTION_BACKOFF: &str = "connection.backoff.ms";
/// `dialect.name`.
pub const DIALECT_NAME: &str = "dialect.name";
/// `insert.mode`.
pub const INSERT_MODE: &str = "insert.mode";
/// `batch.size`.
pub const BATCH_SIZE: &str = "batch.size";
/// `delete.enabled`.
pub const DELETE_ENABLED: &str = "delete.enabled";
/// `table.types`.
pub const TABLE_TYPES: &str = "table.types";
/// `table.name.format`.
pub const TABLE_NAME_FORMAT: &str = "table.name.format";
/// `pk.mode`.
pub const PK_MODE: &str = "pk.mode";
/// `pk.fields`.
pub const PK_FIELDS: &str = "pk.fields";
/// `fields.whitelist`.
pub const FIELDS_WHITELIST: &str = "fields.whitelist";
/// `db.timezone`.
pub const DB_TIMEZONE: &str = "db.timezone";
/// `db.timezone.date`.
pub const DB_TIMEZONE_DATE: &str = "db.timezone.date";
/// `auto.create`.
pub const AUTO_CREATE: &str = "auto.create";
/// `auto.evolve`.
pub const AUTO_EVOLVE: &str = "auto.evolve";
/// `quote.sql.identifiers`.
pub const QUOTE_SQL_IDENTIFIERS: &str = "quote.sql.identifiers";
/// `mssql.use.merge.holdlock`.
pub const MSSQL_USE_MERGE_HOLDLOCK: &str = "mssql.use.merge.holdlock";
/// `max.retries`.
pub const MAX_RETRIES: &str = "max.retries";
/// `retry.backoff.ms`.
pub const RETRY_BACKOFF_MS: &str = "retry.backoff.ms";

/// Keys of the Confluent sink that connect-rs does not implement and that have no default it
/// could honour: refused whenever they are set.
const UNSUPPORTED_KEYS: &[&str] = &[
    "replace.null.with.default",
    "date.timezone",
    "timestamp.fields.list",
    "timestamp.precision.mode",
    "string.output.value.column.name",
    "trim.sensitive.log",
];

/// `insert.mode`: how a record becomes a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertMode {
    /// `INSERT`.
    Insert,
    /// Insert or overwrite by primary key (the dialect's upsert).
    Upsert,
    /// `UPDATE … WHERE <keys>`.
    Update,
}

/// `pk.mode`: where the primary key columns come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PkMode {
    /// No key columns.
    None,
    /// The Kafka coordinates (topic, partition, offset).
    Kafka,
    /// The record key (a primitive or fields of a Struct).
    RecordKey,
    /// Fields of the record value.
    RecordValue,
}

/// `quote.sql.identifiers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteMethod {
    /// Quote every table and column name.
    Always,
    /// Write names as they are.
    Never,
}

/// A fixed UTC offset in seconds (`db.timezone`; region ids are refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbTimeZone {
    /// Seconds east of UTC.
    pub offset_seconds: i32,
}

/// The parsed sink configuration.
#[derive(Debug, Clone)]
pub struct SinkConfig {
    /// The database to write to.
    pub connection: ConnectionSpec,
    /// The dialect (from the URL, or `dialect.name`).
    pub dialect: Dialect,
    /// `connection.attempts`.
    pub connection_attempts: u32,
    /// `connection.backoff.ms`.
    pub connection_backoff: Duration,
    /// `insert.mode`.
    pub insert_mode: InsertMode,
    /// `batch.size`.
    pub batch_size: usize,
    /// `delete.enabled`.
    pub delete_enabled: bool,
    /// `table.name.format`.
    pub table_name_format: String,
    /// `pk.mode`.
    pub pk_mode: PkMode,
    /// `pk.fields`.
    pub pk_fields: Vec<String>,
    /// `fields.whitelist`.
    pub fields_whitelist: Vec<String>,
    /// `db.timezone`.
    pub db_timezone: DbTimeZone,
    /// `auto.create`.
    pub auto_create: bool,
    /// `auto.evolve`.
    pub auto_evolve: bool,
    /// `quote.sql.identifiers`.
    pub quote: QuoteMethod,
    /// `max.retries`.
    pub max_retries: u32,
    /// `retry.backoff.ms`.
    pub retry_backoff: Duration,
}

fn key(
    name: &'static str,
    t: ConfigType,
    default: KeyDefault,
    importance: Importance,
    doc: &'static str,
    (group, order, width, display): (&'static str, i32, Width, &'static str),
) -> ConfigKey {
    ConfigKey::new(name, t, default, importance, doc)
        .in_group(group, order)
        .display(width, display)
}

/// The sink connector's configuration keys, as Confluent's `JdbcSinkConfig.CONFIG_DEF`.
pub fn config_def() -> ConfigDef {
    use ConfigType as T;
    use Importance::{High, Low, Medium};
    use KeyDefault::{Null, Required, Value};
    const CONN: &str = "Connection";
    const WRITES: &str = "Writes";
    const MAPPING: &str = "Data Mapping";
    const DDL: &str = "DDL Support";
    const DML: &str = "DML Support";
    const RETRIES: &str = "Retries";
    ConfigDef::new()
        .define(key(CONNECTION_URL, T::String, Required, High, "JDBC connection URL, e.g. jdbc:postgresql://localhost:5432/db, \
             jdbc:mariadb://localhost:3306/db, jdbc:mysql://localhost/db or \
             jdbc:sqlite:/path/file.db", (CONN, 1, Width::Long, "JDBC URL")).validator(Validator::NonEmptyString))
        .define(key(CONNECTION_USER, T::String, Null, High, "JDBC connection user.", (CONN, 2, Width::Medium, "JDBC User")))
        .define(key(CONNECTION_PASSWORD, T::Password, Null, High, "JDBC connection password.", (CONN, 3, Width::Medium, "JDBC Password")))
        .define(key(DIALECT_NAME, T::String, Value(""), Low, "The database dialect to use (PostgreSqlDatabaseDialect, MySqlDatabaseDialect or \
             SqliteDatabaseDialect); empty chooses it from the JDBC URL.", (CONN, 4, Width::Long, "Database Dialect")))
        .define(key(CONNECTION_ATTEMPTS, T::Int, Value("3"), Low, "Maximum number of attempts to open a database connection.", (CONN, 5, Width::Short, "JDBC connection attempts")).validator(Validator::at_least(1.0)))
        .define(key(CONNECTION_BACKOFF, T::Long, Value("10000"), Low, "Backoff time in milliseconds between connection attempts.", (CONN, 6, Width::Short, "JDBC connection backoff in milliseconds")))
        .define(key(INSERT_MODE, T::String, Value("insert"), High, "The insertion mode: insert (plain INSERT), upsert (the database's insert-or-update \
             by primary key) or update (UPDATE by primary key).", (WRITES, 1, Width::Medium, "Insert Mode"))
            .validator(Validator::OneOf(&["insert", "upsert", "update"])))
        .define(key(BATCH_SIZE, T::Int, Value("3000"), Medium, "How many records to write together into one table, when possible.", (WRITES, 2, Width::Short, "Batch Size")).validator(Validator::at_least(0.0)))
        .define(key(DELETE_ENABLED, T::Boolean, Value("false"), Medium, "Whether to treat null record values (tombstones) as deletes by key. Requires \
             pk.mode to be record_key.", (WRITES, 3, Width::Short, "Enable deletes")))
        .define(key(TABLE_TYPES, T::List, Value("TABLE"), Low, "The types of database tables the sink writes to; connect-rs supports TABLE only.", (WRITES, 4, Width::Medium, "Table Types")))
        .define(key(TABLE_NAME_FORMAT, T::String, Value("${topic}"), Medium, "A format string for the destination table name, which may contain '${topic}' as a \
             placeholder for the record's topic, e.g. kafka_${topic}. A dotted result names \
             schema.table.", (MAPPING, 1, Width::Long, "Table Name Format")).validator(Validator::NonEmptyString))
        .define(key(PK_MODE, T::String, Value("none"), High, "The primary key mode: none (no key columns), kafka (the Kafka coordinates), \
             record_key (fields of the record key, a primitive or a Struct) or record_value \
             (fields of the record value).", (MAPPING, 2, Width::Medium, "Primary Key Mode"))
            .validator(Validator::OneOf(&["none", "kafka", "record_key", "record_value"])))
        .define(key(PK_FIELDS, T::List, Value(""), Medium, "Primary key field names. kafka: three names for topic, partition and offset \
             (default __connect_topic,__connect_partition,__connect_offset); record_key: the \
             key Struct's fields to use (all when empty), or the one column name of a primitive \
             key; record_value: the value's fields to use (all when empty).", (MAPPING, 3, Width::Long, "Primary Key Fields")))
        .define(key(FIELDS_WHITELIST, T::List, Value(""), Medium, "Record value field names to write besides the primary key; all when empty.", (MAPPING, 4, Width::Long, "Fields Whitelist")))
        .define(key(DB_TIMEZONE, T::String, Value("UTC"), Medium, "The time zone Timestamp values are written in: UTC, or a fixed offset such as \
             +02:00 (connect-rs does not take region ids).", (MAPPING, 5, Width::Medium, "DB Time Zone")))
        .define(key(DB_TIMEZONE_DATE, T::String, Value("NONE"), Low, "How Date values are shifted to db.timezone; connect-rs supports NONE only.", (MAPPING, 6, Width::Medium, "DB Time Zone for Date")))
        .define(key(AUTO_CREATE, T::Boolean, Value("false"), Medium, "Whether to create a missing destination table from the record schema (CREATE TABLE).", (DDL, 1, Width::Short, "Auto-Create")))
        .define(key(AUTO_EVOLVE, T::Boolean, Value("false"), Medium, "Whether to add columns missing from the table relative to the record schema \
             (ALTER TABLE … ADD); only optional or defaulted fields can be added.", (DDL, 2, Width::Short, "Auto-Evolve")))
        .define(key(QUOTE_SQL_IDENTIFIERS, T::String, Value("always"), Medium, "When to quote table and column names in SQL statements: always or never.", (DDL, 3, Width::Medium, "Quote Identifiers"))
            .validator(Validator::OneOf(&["always", "never"])))
        .define(key(MSSQL_USE_MERGE_HOLDLOCK, T::Boolean, Value("true"), Low, "SQL Server only (not supported by connect-rs); only the default true is accepted.", (DML, 1, Width::Medium, "SQL Server - Use HOLDLOCK in MERGE")))
        .define(key(MAX_RETRIES, T::Int, Value("10"), Medium, "The maximum number of times to retry on database errors before failing the task.", (RETRIES, 1, Width::Short, "Maximum Retries")).validator(Validator::at_least(0.0)))
        .define(key(RETRY_BACKOFF_MS, T::Int, Value("3000"), Medium, "The time in milliseconds to wait following a database error before a retry.", (RETRIES, 2, Width::Short, "Retry Backoff (millis)")).validator(Validator::at_least(0.0)))
}

/// Cross-key and connect-rs-specific checks (every problem at once); nothing when a key does
/// not parse, as the runtime reports that from [`config_def`] itself.
pub fn validate(props: &ConfigMap) -> Vec<ConfigIssue> {
    match config_def().parse(props) {
        Ok(values) => checks(&values).err().unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

impl SinkConfig {
    /// Parses and checks `props`.
    ///
    /// # Errors
    /// A configuration error naming the first bad key, with every problem in the message.
    pub fn parse(props: &ConfigMap) -> Result<Self> {
        let values = config_def().parse(props).map_err(to_error)?;
        checks(&values).map_err(to_error)
    }
}

fn to_error(issues: Vec<ConfigIssue>) -> ConnectError {
    let key = issues.first().map(|i| i.key.clone()).unwrap_or_default();
    let message = issues
        .iter()
        .map(|i| i.message.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    ConnectError::config(key, message)
}

fn checks(v: &ConfigValues) -> Result<SinkConfig, Vec<ConfigIssue>> {
    let mut issues = Vec::new();
    let s = |k: &str| v.string(k).unwrap_or_default().to_owned();
    let url = s(CONNECTION_URL);
    let connection = match ConnectionSpec::parse(
        &url,
        v.string(CONNECTION_USER),
        v.string(CONNECTION_PASSWORD),
    ) {
        Ok(c) => Some(c),
        Err(e) => {
            issues.push(ConfigIssue::new(CONNECTION_URL, e.to_string()));
            None
        }
    };
    let dialect_name = s(DIALECT_NAME);
    let mut dialect = connection.as_ref().map(|c| c.dialect);
    if !dialect_name.is_empty() {
        match Dialect::from_class_name(&dialect_name) {
            Some(d) if dialect.is_none_or(|u| u == d) => dialect = Some(d),
            Some(d) => issues.push(ConfigIssue::new(
                DIALECT_NAME,
                format!(
                    "Invalid value {dialect_name} for configuration {DIALECT_NAME}: the URL is \
                     a {} database; connect-rs cannot speak {d} to it",
                    dialect.map(|d| d.to_string()).unwrap_or_default()
                ),
            )),
            None => issues.push(ConfigIssue::new(
                DIALECT_NAME,
                format!(
                    "Invalid value {dialect_name} for configuration {DIALECT_NAME}: connect-rs \
                     supports PostgreSqlDatabaseDialect, MySqlDatabaseDialect and \
                     SqliteDatabaseDialect"
                ),
            )),
        }
    }
    let insert_mode = match s(INSERT_MODE).to_ascii_lowercase().as_str() {
        "upsert" => InsertMode::Upsert,
        "update" => InsertMode::Update,
        _ => InsertMode::Insert,
    };
    let pk_mode = match s(PK_MODE).to_ascii_lowercase().as_str() {
        "kafka" => PkMode::Kafka,
        "record_key" => PkMode::RecordKey,
        "record_value" => PkMode::RecordValue,
        _ => PkMode::None,
    };
    let pk_fields = v.list(PK_FIELDS).to_vec();
    let delete_enabled = v.boolean(DELETE_ENABLED).unwrap_or(false);
    if delete_enabled && pk_mode != PkMode::RecordKey {
        issues.push(ConfigIssue::new(
            DELETE_ENABLED,
            "Primary key mode must be 'record_key' when delete support is enabled",
        ));
    }
    if pk_mode == PkMode::Kafka && !pk_fields.is_empty() && pk_fields.len() != 3 {
        issues.push(ConfigIssue::new(
            PK_FIELDS,
            format!(
                "Invalid value {} for configuration {PK_FIELDS}: pk.mode=kafka needs exactly 3 \
                 names (topic, partition, offset) or none",
                pk_fields.join(",")
            ),
        ));
    }
    if pk_mode == PkMode::None && insert_mode != InsertMode::Insert {
        issues.push(ConfigIssue::new(
            INSERT_MODE,
            format!(
                "Invalid value {} for configuration {INSERT_MODE}: upsert and update need \
                 primary key columns, but pk.mode is none",
                s(INSERT_MODE)
            ),
        ));
    }
    let types = v.list(TABLE_TYPES);
    if !(types.len() == 1 && types[0].eq_ignore_ascii_case("TABLE")) {
        issues.push(ConfigIssue::new(
            TABLE_TYPES,
            format!(
                "Invalid value {} for configuration {TABLE_TYPES}: connect-rs writes to TABLE \
                 only",
                types.join(",")
            ),
        ));
    }
    if !s(DB_TIMEZONE_DATE).eq_ignore_ascii_case("NONE") {
        issues.push(ConfigIssue::new(
            DB_TIMEZONE_DATE,
            format!(
                "Invalid value {} for configuration {DB_TIMEZONE_DATE}: connect-rs supports \
                 NONE only (Date values are written as the calendar day they hold)",
                s(DB_TIMEZONE_DATE)
            ),
        ));
    }
    if v.boolean(MSSQL_USE_MERGE_HOLDLOCK) == Some(false) {
        issues.push(ConfigIssue::new(
            MSSQL_USE_MERGE_HOLDLOCK,
            "Invalid value false for configuration mssql.use.merge.holdlock: SQL Server is not \
             supported by connect-rs; leave the key unset",
        ));
    }
    for k in UNSUPPORTED_KEYS {
        if v.originals().contains_key(*k) {
            issues.push(ConfigIssue::new(
                *k,
                format!("Configuration {k} is not supported by connect-rs's JDBC sink; remove it"),
            ));
        }
    }
    let tz = s(DB_TIMEZONE);
    let db_timezone = match parse_timezone(&tz) {
        Some(z) => z,
        None => {
            issues.push(ConfigIssue::new(
                DB_TIMEZONE,
                format!(
                    "Invalid value {tz} for configuration {DB_TIMEZONE}: connect-rs supports \
                     UTC (or GMT, Z) and fixed offsets such as +02:00 or UTC-05:30, not region \
                     ids"
                ),
            ));
            DbTimeZone { offset_seconds: 0 }
        }
    };
    let (Some(connection), Some(dialect), true) = (connection, dialect, issues.is_empty()) else {
        return Err(issues);
    };
    let n = |k: &str| v.long(k).unwrap_or(0).max(0);
    Ok(SinkConfig {
        connection,
        dialect,
        connection_attempts: u32::try_from(n(CONNECTION_ATTEMPTS)).unwrap_or(1).max(1),
        connection_backoff: Duration::from_millis(n(CONNECTION_BACKOFF).unsigned_abs()),
        insert_mode,
        batch_size: usize::try_from(n(BATCH_SIZE)).unwrap_or(usize::MAX),
        delete_enabled,
        table_name_format: s(TABLE_NAME_FORMAT),
        pk_mode,
        pk_fields,
        fields_whitelist: v.list(FIELDS_WHITELIST).to_vec(),
        db_timezone,
        auto_create: v.boolean(AUTO_CREATE).unwrap_or(false),
        auto_evolve: v.boolean(AUTO_EVOLVE).unwrap_or(false),
        quote: if s(QUOTE_SQL_IDENTIFIERS).eq_ignore_ascii_case("never") {
            QuoteMethod::Never
        } else {
            QuoteMethod::Always
        },
        max_retries: u32::try_from(n(MAX_RETRIES)).unwrap_or(u32::MAX),
        retry_backoff: Duration::from_millis(n(RETRY_BACKOFF_MS).unsigned_abs()),
    })
}

/// `UTC`, `GMT`, `Z`, `+HH:MM`, `-HH:MM`, `+HH`, `UTC+HH:MM`, `GMT-HH:MM`.
fn parse_timezone(tz: &str) -> Option<DbTimeZone> {
    let rest = ["UTC", "GMT", "UT", "Z"]
        .iter()
        .find_map(|p| tz.strip_prefix(p))
        .unwrap_or(tz);
    if rest.is_empty() {
        return (!tz.is_empty()).then_some(DbTimeZone { offset_seconds: 0 });
    }
    let (sign, digits) = match rest.as_bytes().first()? {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        _ => return None,
    };
    let (h, m) = digits.split_once(':').unwrap_or((digits, "0"));
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    if !(0..=18).contains(&h) || !(0..60).contains(&m) {
        return None;
    }
    Some(DbTimeZone {
        offset_seconds: sign * (h * 3600 + m * 60),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        let mut m: ConfigMap =
            [(CONNECTION_URL.to_owned(), "jdbc:sqlite::memory:".to_owned())].into();
        for (k, v) in pairs {
            m.insert((*k).to_owned(), (*v).to_owned());
        }
        m
    }

    #[test]
    fn defaults_match_the_confluent_connector() {
        let c = SinkConfig::parse(&props(&[])).unwrap();
        assert_eq!(c.insert_mode, InsertMode::Insert);
        assert_eq!(c.pk_mode, PkMode::None);
        assert_eq!(c.batch_size, 3000);
        assert_eq!(c.max_retries, 10);
        assert_eq!(c.retry_backoff, Duration::from_millis(3000));
        assert_eq!(c.table_name_format, "${topic}");
        assert_eq!(c.quote, QuoteMethod::Always);
        assert_eq!(c.db_timezone.offset_seconds, 0);
        assert!(!c.auto_create && !c.auto_evolve && !c.delete_enabled);
        assert_eq!(c.dialect, Dialect::Sqlite);
    }

    #[test]
    fn delete_enabled_needs_record_key() {
        let e = SinkConfig::parse(&props(&[("delete.enabled", "true"), ("pk.mode", "kafka")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Primary key mode must be 'record_key'"), "{e}");
        SinkConfig::parse(&props(&[
            ("delete.enabled", "true"),
            ("pk.mode", "record_key"),
        ]))
        .unwrap();
    }

    #[test]
    fn unsupported_keys_and_values_are_refused() {
        for (k, v) in [
            ("table.types", "VIEW"),
            ("db.timezone.date", "UTC"),
            ("replace.null.with.default", "true"),
            ("db.timezone", "Europe/Paris"),
            ("dialect.name", "OracleDatabaseDialect"),
            ("dialect.name", "PostgreSqlDatabaseDialect"),
            ("insert.mode", "upsert"),
            ("insert.mode", "merge"),
            ("pk.mode", "whatever"),
        ] {
            let e = SinkConfig::parse(&props(&[(k, v)]))
                .unwrap_err()
                .to_string();
            assert!(e.contains(k), "{k}={v}: {e}");
        }
    }

    #[test]
    fn validate_reports_cross_key_problems_only() {
        let issues = validate(&props(&[("delete.enabled", "true")]));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].key, "delete.enabled");
        assert!(validate(&props(&[("batch.size", "x")])).is_empty());
        assert!(validate(&props(&[])).is_empty());
    }

    #[test]
    fn time_zones_are_utc_or_fixed_offsets() {
        assert_eq!(parse_timezone("UTC").unwrap().offset_seconds, 0);
        assert_eq!(parse_timezone("+02:00").unwrap().offset_seconds, 7200);
        assert_eq!(parse_timezone("UTC-05:30").unwrap().offset_seconds, -19800);
        assert_eq!(parse_timezone("GMT+1").unwrap().offset_seconds, 3600);
        assert!(parse_timezone("America/New_York").is_none());
        assert!(parse_timezone("").is_none());
    }
}
