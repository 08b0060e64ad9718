//! Shutdown signals: the first SIGINT/SIGTERM asks for a graceful stop; a second one exits at
//! once, saying what the next start will process again.

use tokio::signal::unix::{signal, SignalKind};
use tracing::{error, info};

/// Resolves at the first SIGINT or SIGTERM; after that, a second signal exits the process
/// immediately with status 130, after logging the lines `repeated` returns: what the next
/// start will process again (records whose offsets are not committed).
///
/// # Errors
/// When the signal handlers cannot be installed.
pub async fn first_signal(
    repeated: impl FnOnce() -> Vec<String> + Send + 'static,
) -> std::io::Result<()> {
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    let name = tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    };
    info!(
        signal = name,
        "Stopping gracefully; send the signal again to exit at once."
    );
    tokio::spawn(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        error!("Second signal: exiting without waiting for tasks. On the next start:");
        for line in repeated() {
            error!("{line}");
        }
        std::process::exit(130);
    });
    Ok(())
}
