//! Standalone connector configurations kept in a JSON file (`config.storage.file.filename`),
//! replaced atomically on every change: `{"version":1,"connectors":{"<name>":{"config":{..},
//! "target_state":"STARTED"|"PAUSED"|"STOPPED"}}}`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use connect_api::ConfigMap;
use serde::{Deserialize, Serialize};

use super::offsets_file::write_atomically;
use super::StorageError;

/// One stored connector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredConnector {
    /// Its configuration as submitted.
    pub config: ConfigMap,
    /// `STARTED`, `PAUSED` or `STOPPED`.
    pub target_state: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Document {
    version: u32,
    connectors: BTreeMap<String, StoredConnector>,
}

/// The configurations file.
#[derive(Debug, Clone)]
pub struct ConfigsFile {
    path: PathBuf,
}

impl ConfigsFile {
    /// The file at `path` (it need not exist yet).
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
        }
    }

    /// The stored connectors (none when the file does not exist).
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] naming the file when it cannot be parsed (it is left untouched),
    /// [`StorageError::Unsafe`] when other users could replace it (its directory is writable
    /// by them and not sticky).
    pub fn load(&self) -> Result<BTreeMap<String, StoredConnector>, StorageError> {
        crate::fs_private::check_file_dir(&self.path)?;
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice::<Document>(&bytes)
                .map(|d| d.connectors)
                .map_err(|e| StorageError::Corrupt {
                    path: self.path.clone(),
                    reason: e.to_string(),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(source) => Err(StorageError::Io {
                context: "Could not read the connector configurations file",
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Replaces the file with `connectors`.
    ///
    /// # Errors
    /// The I/O error, naming the file.
    pub fn save(&self, connectors: BTreeMap<String, StoredConnector>) -> Result<(), StorageError> {
        let doc = Document {
            version: 1,
            connectors,
        };
        let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
        bytes.push(b'\n');
        write_atomically(&self.path, &bytes)
    }
}
