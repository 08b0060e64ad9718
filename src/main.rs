//! The `connect-rs` binary: parse the command line, set up logging, run, map errors to exit
//! codes (1 usage, 2 start-up failure, 3 connector creation failure, as Kafka Connect; 4 a
//! task failed under `--exit-when-idle`; 5 `doctor` found warnings only).

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use connect_rs::cli::{Cli, Command};
use connect_rs::commands;

/// mimalloc instead of the system allocator: the record path allocates small buffers per
/// record, and glibc malloc/free took about a quarter of the CPU of a file-to-file copy.
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The Java plugin host and Kafka's API jars (build/plugin_host.rs), embedded in this binary
// only: the test binaries that link the library do not carry them.
include!(concat!(env!("OUT_DIR"), "/plugin_host_bundle.rs"));

/// Threads of the runtime's blocking pool at most.
const BLOCKING_THREADS: usize = 32;

fn main() -> ExitCode {
    connect_rs::plugin_host::bundle::set_bundle(&PLUGIN_HOST_BUNDLE);
    // `--version` also says whether this binary can run Java plugins.
    let long_version: &'static str = Box::leak(
        format!(
            "{}\n{}",
            env!("CARGO_PKG_VERSION"),
            connect_rs::plugin_host::bundle::status_line()
        )
        .into_boxed_str(),
    );
    let parsed = Cli::command()
        .long_version(long_version)
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    commands::init_logging(cli.log_level.as_deref());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Tasks do their file and librdkafka calls on the blocking pool; tokio's default bound
        // (512) let a worker with hundreds of FileStream connectors grow a thread per busy task
        // (issue 33: the threads must not grow with the connectors). Calls queue beyond this.
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: could not start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Standalone(args) if args.distributed => {
                commands::distributed::run(commands::distributed::DistributedRun {
                    worker_file: args.worker_file,
                    connector_files: args.connector_files,
                    exit_when_idle: args.exit_when_idle,
                    quiet: args.quiet,
                })
                .await
            }
            Command::Standalone(args) => commands::standalone::run(args).await,
            Command::Distributed(args) => {
                commands::distributed::run(commands::distributed::DistributedRun {
                    worker_file: args.worker_file,
                    connector_files: Vec::new(),
                    exit_when_idle: None,
                    quiet: args.quiet,
                })
                .await
            }
            Command::Topics(args) => commands::topics::run(args).await,
            Command::Dlq(args) => commands::dlq::run(args).await,
            Command::Validate(args) => commands::validate::run(&args).await,
            Command::Plugins(args) => commands::plugins::run(&args),
            Command::Doctor(args) => commands::doctor::run(&args).await,
            Command::Completions(args) => commands::completions::run(&args),
            Command::Man(args) => commands::man::run(&args),
        }
    });
    // Blocking reads still in flight (stdin, a file on a stuck mount, a FIFO without a reader)
    // must not keep the process alive after the worker stopped.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !e.reported {
                let text = commands::error_text::error_text(&e.error);
                // The error may quote a value a config provider resolved: show its placeholder.
                eprintln!(
                    "error: {}",
                    connect_rs::config::providers::secrets::redact(&text)
                );
            }
            ExitCode::from(e.code)
        }
    }
}
