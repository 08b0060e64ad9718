//! State on temporary storage: the standalone offsets file (`offset.storage.file.filename`) or
//! the embedded log (`embedded.log.dir`, used without `bootstrap.servers`) on a tmpfs or under
//! a temporary directory, where a reboot or a cleaner deletes it (sources then start over).

use std::path::Path;

use super::{Finding, Severity, WorkerFile};
use crate::config::{WorkerConfig, WorkerMode};
use crate::fs_hint::temporary_storage;

/// The check's name in findings.
const CHECK: &str = "temporary-storage";

/// Warnings for the offsets file and the embedded log directory.
pub fn check(worker: &WorkerFile, config: &WorkerConfig) -> Vec<Finding> {
    let mut out = Vec::new();
    let embedded = config.bootstrap_servers().is_none();
    if embedded {
        let dir = config.embedded_log_dir();
        out.extend(finding(
            worker,
            "embedded.log.dir",
            &dir,
            "the embedded log (topics, consumer offsets and, by default, the offsets file)",
        ));
    }
    let explicit = worker
        .raw
        .get("offset.storage.file.filename")
        .is_some_and(|f| !f.trim().is_empty());
    // The default offsets file lies in the embedded log directory, reported above.
    if config.mode() == WorkerMode::Standalone && (explicit || !embedded) {
        out.extend(finding(
            worker,
            "offset.storage.file.filename",
            &config.offset_storage_file(),
            "the source offsets",
        ));
    }
    out
}

fn finding(worker: &WorkerFile, key: &str, path: &Path, holds: &str) -> Option<Finding> {
    let why = temporary_storage(path)?;
    Some(
        Finding::new(
            Severity::Warning,
            CHECK,
            &worker.path,
            format!(
                "{why}. It holds {holds}: once deleted, source connectors start over and \
                 re-deliver everything."
            ),
            format!("Point {key} at a persistent directory (e.g. under /var/lib)."),
        )
        .at(key, worker.raw.line(key)),
    )
}
