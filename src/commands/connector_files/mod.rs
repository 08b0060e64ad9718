//! Connector files of `standalone`: which files the command line names (a directory argument
//! stands for the connector files in it), reading and validating them at start, and, unless
//! `--no-watch`, watching them so that a changed, added or removed file is applied to the
//! running worker as the matching REST request would be.
//!
//! * [`listing`]: the arguments, the files they stand for, which paths are worth a rescan;
//! * [`reconcile`]: compares the files with what was last applied and drives the herder;
//! * [`watch`]: the `notify` watcher on the files' directories, debounced.

pub mod java_check;
pub mod listing;
pub mod reconcile;
pub mod watch;

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use tracing::{info, warn};

use super::{CommandError, EXIT_CONNECTOR};
use crate::config::{self, WorkerConfig};
use crate::herder::spec::connector_spec;
use crate::plugins::PluginRegistry;
use crate::worker::ConnectorSpec;
pub use listing::Sources;

/// A connector file as read once: its bytes, and what they define.
pub struct LoadedFile {
    /// The file, as listed.
    pub path: PathBuf,
    /// Its content when it was read (compared with the next read to see a change).
    pub bytes: Vec<u8>,
    /// The `name` it gives, when it could be parsed (even if it is invalid otherwise).
    pub name: Option<String>,
    /// The validated connector, or every problem found (naming the file, line and key).
    pub spec: Result<ConnectorSpec, String>,
}

/// Parses and validates `bytes`, read from `path`, as a connector configuration.
pub fn load(
    path: &Path,
    bytes: Vec<u8>,
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> LoadedFile {
    let mut name = None;
    let spec = config::parse_file_bytes(path, &bytes)
        .map_err(|e| e.to_string())
        .and_then(|(raw, _)| {
            name = raw.get("name").map(|n| n.trim().to_owned());
            connector_spec(&raw, worker, plugins).map_err(|e| e.to_string())
        });
    LoadedFile {
        path: path.to_owned(),
        bytes,
        name,
        spec,
    }
}

/// A connector file that is valid.
pub struct ValidFile {
    /// The file, as listed.
    pub path: PathBuf,
    /// Its content when it was read.
    pub bytes: Vec<u8>,
    /// The connector it defines.
    pub spec: ConnectorSpec,
}

/// Reads and validates every connector file the arguments stand for (all problems at once;
/// a connector name used by two files is refused).
///
/// # Errors
/// Exit 3 with every problem: unreadable files or directories, invalid configurations,
/// duplicate names.
pub fn validate(
    sources: &Sources,
    worker: &WorkerConfig,
    plugins: &PluginRegistry,
) -> Result<Vec<ValidFile>, CommandError> {
    let files = sources
        .list()
        .map_err(|problems| CommandError::new(EXIT_CONNECTOR, anyhow!(problems.join("\n"))))?;
    for (dir, found, other) in sources.directory_contents() {
        let dir = dir.display();
        if found == 0 {
            info!("Connector directory {dir} holds no connector files yet.");
        }
        if !other.is_empty() {
            warn!(
                "Connector directory {dir}: not read: {} (connector files are named *.properties, \
                 *.json or *.toml).",
                other.join(", ")
            );
        }
    }
    let mut valid = Vec::new();
    let mut problems = Vec::new();
    let mut names = Vec::new();
    for file in files {
        let bytes = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(e) => {
                problems.push(config::ConfigError::io(&file, e).to_string());
                continue;
            }
        };
        let loaded = load(&file, bytes, worker, plugins);
        if let Some(name) = &loaded.name {
            names.push((file.clone(), name.clone()));
        }
        match loaded.spec {
            Ok(spec) => valid.push(ValidFile {
                path: loaded.path,
                bytes: loaded.bytes,
                spec,
            }),
            Err(e) => problems.push(e),
        }
    }
    problems.extend(super::unique_names::duplicate_names(&names));
    if !problems.is_empty() {
        return Err(CommandError::new(
            EXIT_CONNECTOR,
            anyhow!(problems.join("\n")),
        ));
    }
    Ok(valid)
}
