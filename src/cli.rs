//! Command-line interface (clap).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

/// Apache Kafka Connect rebuilt in Rust: one small, fast binary.
#[derive(Debug, Parser)]
#[command(name = "connect-rs", version, about, long_about = None)]
pub struct Cli {
    /// Log level or tracing filter (e.g. `info`, `debug`, `connect_rs=debug`); default from
    /// RUST_LOG, else `info`.
    #[arg(long, global = true, value_name = "LEVEL", value_parser = parse_log_level)]
    pub log_level: Option<String>,
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a standalone worker with the connectors of the given files.
    Standalone(StandaloneArgs),
    /// Run a distributed worker (as `connect-distributed.sh`): connector configurations and
    /// source offsets live in the internal topics; without `bootstrap.servers`, in the
    /// embedded log (a one-worker cluster).
    Distributed(DistributedArgs),
    /// Inspect the topics of the embedded log (and repair its commit journal).
    Topics(TopicsArgs),
    /// Work with dead letter queues.
    Dlq(DlqArgs),
    /// Validate connector files offline, as `PUT /connector-plugins/{plugin}/config/validate`
    /// would (exit 0 when all are valid, 3 when one is not, 2 when a file cannot be read).
    Validate(ValidateArgs),
    /// List the plugins of this binary, as `GET /connector-plugins?connectorsOnly=false`.
    Plugins(PluginsArgs),
    /// Check a worker file and connector files for common mistakes (exit 0 when nothing is
    /// found, 5 warnings only, 3 errors, 2 when a file cannot be read).
    Doctor(DoctorArgs),
    /// Print a shell completion script for bash, zsh, fish, elvish or powershell.
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one page per command into a directory.
    Man(ManArgs),
}

/// Output format of the offline tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// JSON: the REST API's body where the command has a REST counterpart.
    Json,
}

/// Arguments of `validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Worker configuration whose converters and config providers apply (default: a
    /// standalone worker's defaults).
    #[arg(long, value_name = "WORKER_FILE")]
    pub worker: Option<PathBuf>,
    /// Output format: `text`, or `json` (per file the REST validate body).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Connector configurations (.properties, .json or .toml).
    #[arg(value_name = "CONNECTOR_FILE", required = true)]
    pub connector_files: Vec<PathBuf>,
}

/// Arguments of `plugins`.
#[derive(Debug, clap::Args)]
pub struct PluginsArgs {
    /// Worker configuration whose `plugin.path` Java plugins are listed too (default: the
    /// built-in plugins only).
    #[arg(long, value_name = "WORKER_FILE")]
    pub worker: Option<PathBuf>,
    /// Output format: `text`, or `json` (the REST body).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// Arguments of `doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Output format: `text`, or `json` (`{"findings": [..], "errors", "warnings", "notes"}`).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// How much source work you accept to redo after a crash: an `offset.flush.interval.ms`
    /// above it is a warning (sources re-deliver what they read since the last flush).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub restart_tolerance: Duration,
    /// Worker configuration (standalone, or distributed when it sets `group.id`).
    #[arg(value_name = "WORKER_FILE")]
    pub worker_file: PathBuf,
    /// Connector configurations (.properties, .json or .toml).
    #[arg(value_name = "CONNECTOR_FILE")]
    pub connector_files: Vec<PathBuf>,
}

/// Arguments of `completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Arguments of `man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write `connect-rs.1` and one `connect-rs-<command>.1` per subcommand (nested ones too,
    /// e.g. `connect-rs-topics-read.1`) into this directory instead of printing
    /// `connect-rs.1` to stdout.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Arguments of `dlq`.
#[derive(Debug, clap::Args)]
pub struct DlqArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: DlqAction,
}

/// Actions of `dlq`.
#[derive(Debug, Subcommand)]
pub enum DlqAction {
    /// Re-publish the dead-lettered records of a dead letter queue topic, once: each goes to
    /// its original topic (header `__connect.errors.topic`) or to `--to`, with its key, value,
    /// timestamp and headers, without the `__connect.errors.*` headers. Progress is kept as the
    /// consumer group `connect-rs-dlq-replay-<DLQ>`, so a second run replays only new records.
    Replay {
        /// Worker configuration naming the topics (embedded log or `bootstrap.servers`).
        #[arg(long, value_name = "WORKER_FILE")]
        worker: PathBuf,
        /// The dead letter queue topic.
        #[arg(long, value_name = "DLQ")]
        topic: String,
        /// Re-publish every record to this topic instead of its original one.
        #[arg(long, value_name = "TOPIC")]
        to: Option<String>,
    },
}

/// Arguments of `standalone`.
#[derive(Debug, clap::Args)]
pub struct StandaloneArgs {
    /// Exit 0 once every source task has returned no records and every sink has consumed to
    /// the end of its topics for this long (default 2s), after the final offset flush.
    #[arg(
        long,
        value_name = "DURATION",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "2s",
        value_parser = parse_duration
    )]
    pub exit_when_idle: Option<Duration>,
    /// Run the distributed worker (the worker file is a distributed one) and submit the
    /// connector files to its cluster (created, or updated when they exist).
    #[arg(long)]
    pub distributed: bool,
    /// No live progress lines and no summary table on the terminal (the log keeps its lines).
    #[arg(long, short)]
    pub quiet: bool,
    /// Do not watch the connector files: without it, a changed, added or removed connector
    /// file is applied to the running worker (not with `--distributed`, which reads them once).
    #[arg(long)]
    pub no_watch: bool,
    /// Worker configuration (.properties, .json or .toml).
    #[arg(value_name = "WORKER_FILE")]
    pub worker_file: PathBuf,
    /// Connector configurations (.properties, .json or .toml), or directories whose files
    /// named *.properties, *.json or *.toml are connector configurations; none is fine when
    /// connectors are created over the REST API.
    #[arg(value_name = "CONNECTOR_FILE")]
    pub connector_files: Vec<PathBuf>,
}

/// Arguments of `distributed`.
#[derive(Debug, clap::Args)]
pub struct DistributedArgs {
    /// Distributed worker configuration (.properties, .json or .toml): `group.id` and the
    /// three `*.storage.topic` keys are required.
    #[arg(value_name = "WORKER_FILE")]
    pub worker_file: PathBuf,
    /// No live progress lines and no summary table on the terminal (the log keeps its lines).
    #[arg(long, short)]
    pub quiet: bool,
}

/// Arguments of `topics`.
#[derive(Debug, clap::Args)]
pub struct TopicsArgs {
    /// Worker configuration naming the embedded log (`embedded.log.dir`); required, before or
    /// after the action.
    #[arg(long, value_name = "WORKER_FILE", global = true)]
    pub worker: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub action: TopicsAction,
}

/// Actions of `topics`.
#[derive(Debug, Subcommand)]
pub enum TopicsAction {
    /// List topics with their partitions' end offsets.
    List,
    /// Print records of a topic: partition, offset, headers, key and value, tab-separated.
    Read {
        /// Topic name.
        topic: String,
        /// Start at the earliest record instead of the end.
        #[arg(long, conflicts_with = "offset")]
        from_beginning: bool,
        /// Start at this offset (in every partition read).
        #[arg(long, value_name = "OFFSET")]
        offset: Option<i64>,
        /// Exit after printing this many records.
        #[arg(long, value_name = "N")]
        max: Option<u64>,
        /// Read only this partition.
        #[arg(long, value_name = "P")]
        partition: Option<i32>,
        /// Exit when no record arrives for this many milliseconds (default: keep waiting).
        #[arg(long, value_name = "MS")]
        timeout_ms: Option<u64>,
    },
    /// Rebuild a damaged commit journal from the partitions, keeping every record (the worker
    /// must be stopped; the damaged file is kept as `commit-journal.log.damaged`).
    RepairJournal,
}

/// The level names `--log-level` accepts, bare or after `TARGET=`.
const LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];

/// `--log-level`: comma-separated `LEVEL` or `TARGET=LEVEL` directives (tracing's filter
/// syntax, span filters included). Unlike `RUST_LOG`, a bare word must be a level: a
/// misspelled level would otherwise be read as a target name and silence the worker.
fn parse_log_level(s: &str) -> Result<String, String> {
    use std::str::FromStr;
    use tracing_subscriber::filter::{Directive, LevelFilter};
    let hint = "expected a level (trace, debug, info, warn, error, off) or TARGET=LEVEL \
                directives separated by commas, e.g. info,connect_rs::worker=debug";
    let parts: Vec<&str> = s
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        return Err(format!("empty log level; {hint}"));
    }
    for part in parts {
        let level = match part.split_once('=') {
            Some((_, level)) => level,
            None if part.contains('[') => "trace",
            None => part,
        };
        if LevelFilter::from_str(level).is_err() {
            return Err(format!(
                "'{level}' is not a log level.{} ({hint})",
                crate::suggest::did_you_mean(&level.to_lowercase(), LEVELS)
            ));
        }
        Directive::from_str(part)
            .map_err(|e| format!("invalid directive '{part}': {e}; {hint}"))?;
    }
    Ok(s.to_owned())
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    humantime::parse_duration(s)
        .map_err(|e| format!("expected a duration such as 500ms or 2s: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standalone(args: &[&str]) -> StandaloneArgs {
        let mut all = vec!["connect-rs", "standalone"];
        all.extend_from_slice(args);
        match Cli::try_parse_from(all).unwrap().command {
            Command::Standalone(a) => a,
            _ => panic!("wrong subcommand"),
        }
    }

    #[test]
    fn exit_when_idle_bare_means_two_seconds_and_does_not_eat_the_worker_file() {
        let a = standalone(&["--exit-when-idle", "w.properties", "c.properties"]);
        assert_eq!(a.exit_when_idle, Some(Duration::from_secs(2)));
        assert_eq!(a.worker_file, PathBuf::from("w.properties"));
        assert_eq!(a.connector_files, [PathBuf::from("c.properties")]);
    }

    #[test]
    fn exit_when_idle_takes_a_duration() {
        let a = standalone(&["--exit-when-idle=500ms", "w", "c"]);
        assert_eq!(a.exit_when_idle, Some(Duration::from_millis(500)));
        assert_eq!(standalone(&["w", "c"]).exit_when_idle, None);
    }

    #[test]
    fn log_levels_are_checked() {
        for ok in [
            "info",
            "WARN",
            "info,connect_rs::worker=debug",
            "connect_rs=trace",
            "off",
        ] {
            assert_eq!(parse_log_level(ok).as_deref(), Ok(ok));
        }
        let err = parse_log_level("dbug").unwrap_err();
        assert!(
            err.contains("'dbug' is not a log level. Did you mean 'debug'?"),
            "{err}"
        );
        assert!(parse_log_level("connect_rs=loud").is_err());
        assert!(parse_log_level("").is_err());
    }

    #[test]
    fn the_definitions_are_consistent_for_clap_completions_and_man() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
        let doctor = match Cli::try_parse_from(["connect-rs", "doctor", "w", "a", "b"])
            .unwrap()
            .command
        {
            Command::Doctor(a) => a,
            _ => panic!("wrong subcommand"),
        };
        assert_eq!(doctor.restart_tolerance, Duration::from_secs(300));
        assert_eq!(doctor.connector_files.len(), 2);
    }

    #[test]
    fn topics_takes_worker_before_or_after_the_action() {
        for args in [
            &["connect-rs", "topics", "--worker", "w", "list"][..],
            &["connect-rs", "topics", "list", "--worker", "w"][..],
        ] {
            match Cli::try_parse_from(args).unwrap().command {
                Command::Topics(t) => {
                    assert_eq!(t.worker, Some(PathBuf::from("w")), "{args:?}");
                    assert!(matches!(t.action, TopicsAction::List), "{args:?}");
                }
                _ => panic!("wrong subcommand"),
            }
        }
        let read = Cli::try_parse_from(["connect-rs", "topics", "read", "t", "--worker", "w"]);
        match read.unwrap().command {
            Command::Topics(t) => assert_eq!(t.worker, Some(PathBuf::from("w"))),
            _ => panic!("wrong subcommand"),
        }
    }

    #[test]
    fn no_watch_is_a_flag() {
        assert!(standalone(&["--no-watch", "w", "c"]).no_watch);
        assert!(!standalone(&["w", "c"]).no_watch);
    }

    #[test]
    fn connector_files_are_optional_but_the_worker_file_is_not() {
        assert!(standalone(&["w"]).connector_files.is_empty());
        assert!(Cli::try_parse_from(["connect-rs", "standalone"]).is_err());
    }
}
