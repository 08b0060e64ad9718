//! Shutdown signals: the first SIGINT/SIGTERM asks for a graceful stop; a second one exits at
//! once.

use tokio::signal::unix::{signal, SignalKind};
use tracing::{error, info};

/// Resolves at the first SIGINT or SIGTERM; after that, a second signal exits the process
/// immediately with status 130.
///
/// # Errors
/// When the signal handlers cannot be installed.
pub async fn first_signal() -> std::io::Result<()> {
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
        error!("Second signal: exiting without waiting for tasks.");
        std::process::exit(130);
    });
    Ok(())
}
