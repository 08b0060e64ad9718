//! Standalone source offsets in one JSON file, replaced atomically on every flush:
//! `{"version":1,"connectors":{"<name>":[{"partition":{..},"offset":{..}}]}}`.
//!
//! Kafka Connect rewrites a Java-serialized file in place; a crash mid-write can destroy it.
//! Here the file is written to a temporary file, fsynced, renamed over the old one and the
//! directory fsynced, so the file on disk is always a complete version.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use connect_api::OffsetMap;
use serde_json::{json, Value};

use super::{OffsetEntry, OffsetStore, StorageError};

type Offsets = BTreeMap<String, Vec<(OffsetMap, OffsetMap)>>;

/// Source offsets kept in memory and persisted to a JSON file.
pub struct FileOffsetStore {
    path: PathBuf,
    offsets: Mutex<Offsets>,
    /// Serializes file writes so a later state never loses the race to an earlier one.
    write_lock: tokio::sync::Mutex<()>,
}

impl FileOffsetStore {
    /// Opens the store, loading `path` when it exists.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] when the file is not a valid offsets file (it is left
    /// untouched), [`StorageError::Io`] when it cannot be read, [`StorageError::Unsafe`] when
    /// other users could replace it (its directory is writable by them and not sticky).
    pub fn open(path: &Path) -> Result<Self, StorageError> {
        crate::fs_private::check_file_dir(path)?;
        let offsets = match std::fs::read(path) {
            Ok(bytes) => parse(path, &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Offsets::new(),
            Err(source) => {
                let parent = path.parent().unwrap_or(Path::new("."));
                return Err(StorageError::Io {
                    context: "Could not read the offsets file",
                    path: path.to_owned(),
                    source: crate::fs_hint::explain_dir_error(parent, source),
                });
            }
        };
        Ok(Self {
            path: path.to_owned(),
            offsets: Mutex::new(offsets),
            write_lock: tokio::sync::Mutex::new(()),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> MutexGuard<'_, Offsets> {
        // A poisoned lock only means another thread panicked mid-update of plain data.
        self.offsets.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Offsets, StorageError> {
    let corrupt = |reason: String| StorageError::Corrupt {
        path: path.to_owned(),
        reason,
    };
    if bytes.starts_with(&[0xAC, 0xED]) {
        return Err(corrupt(
            "it is a Java-serialized Kafka Connect offsets file; connect-rs keeps offsets as JSON, \
             so point offset.storage.file.filename at a new file"
                .to_owned(),
        ));
    }
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| corrupt(e.to_string()))?;
    if doc.get("version") != Some(&json!(1)) {
        return Err(corrupt("expected \"version\": 1".to_owned()));
    }
    let connectors = doc
        .get("connectors")
        .and_then(Value::as_object)
        .ok_or_else(|| corrupt("expected a \"connectors\" object".to_owned()))?;
    let mut offsets = Offsets::new();
    for (name, entries) in connectors {
        let entries = entries
            .as_array()
            .ok_or_else(|| corrupt(format!("connector {name:?}: expected an array")))?;
        let mut list = Vec::with_capacity(entries.len());
        for entry in entries {
            let field = |key: &str| {
                entry
                    .get(key)
                    .and_then(Value::as_object)
                    .cloned()
                    .ok_or_else(|| {
                        corrupt(format!(
                            "connector {name:?}: entry without a \"{key}\" object"
                        ))
                    })
            };
            list.push((field("partition")?, field("offset")?));
        }
        offsets.insert(name.clone(), list);
    }
    Ok(offsets)
}

fn render(offsets: &Offsets) -> Vec<u8> {
    let connectors: serde_json::Map<String, Value> = offsets
        .iter()
        .map(|(name, entries)| {
            let list = entries
                .iter()
                .map(|(p, o)| json!({"partition": p, "offset": o}))
                .collect();
            (name.clone(), Value::Array(list))
        })
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&json!({"version": 1, "connectors": connectors}))
        .unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Replaces `path` with `bytes` atomically: temp file, fsync, rename, fsync of the directory.
///
/// # Errors
/// The I/O error, naming the path.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StorageError> {
    let io = |context: &'static str| {
        let path = path.to_owned();
        move |source| StorageError::Io {
            context,
            path,
            source,
        }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    crate::fs_private::create_dir_all(&dir).map_err(io("Could not create the directory of"))?;
    let mut tmp = crate::fs_private::temp_file_in(&dir)
        .map_err(io("Could not create a temporary file for"))?;
    tmp.write_all(bytes).map_err(io("Could not write"))?;
    tmp.as_file().sync_all().map_err(io("Could not fsync"))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .map_err(io("Could not replace"))?;
    std::fs::File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(io("Could not fsync the directory of"))?;
    Ok(())
}

#[async_trait]
impl OffsetStore for FileOffsetStore {
    fn get(&self, connector: &str, partition: &OffsetMap) -> Option<OffsetMap> {
        self.lock()
            .get(connector)?
            .iter()
            .find(|(p, _)| p == partition)
            .map(|(_, o)| o.clone())
    }

    fn connector_offsets(&self, connector: &str) -> Vec<(OffsetMap, OffsetMap)> {
        self.lock().get(connector).cloned().unwrap_or_default()
    }

    async fn put(&self, connector: &str, entries: Vec<OffsetEntry>) -> Result<(), StorageError> {
        if entries.is_empty() {
            return Ok(());
        }
        let _writing = self.write_lock.lock().await;
        let bytes = {
            let mut offsets = self.lock();
            let list = offsets.entry(connector.to_owned()).or_default();
            for (partition, offset) in entries {
                let existing = list.iter().position(|(p, _)| *p == *partition);
                match (existing, offset) {
                    (Some(i), Some(o)) => list[i].1 = o,
                    (None, Some(o)) => list.push((Arc::unwrap_or_clone(partition), o)),
                    (Some(i), None) => {
                        list.remove(i);
                    }
                    (None, None) => {}
                }
            }
            if list.is_empty() {
                offsets.remove(connector);
            }
            render(&offsets)
        };
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || write_atomically(&path, &bytes))
            .await
            .map_err(|e| StorageError::Io {
                context: "Offset writer failed for",
                path: self.path.clone(),
                source: std::io::Error::other(e),
            })?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(v: Value) -> OffsetMap {
        v.as_object().cloned().unwrap()
    }

    #[tokio::test]
    async fn offsets_survive_reopen_in_the_documented_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/offsets.json");
        let store = FileOffsetStore::open(&path).unwrap();
        let p = Arc::new(map(json!({"filename": "in.txt"})));
        store
            .put("src", vec![(p.clone(), Some(map(json!({"position": 10}))))])
            .await
            .unwrap();
        store
            .put("src", vec![(p.clone(), Some(map(json!({"position": 20}))))])
            .await
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            doc,
            json!({"version":1,"connectors":{"src":[{"partition":{"filename":"in.txt"},"offset":{"position":20}}]}})
        );
        let reopened = FileOffsetStore::open(&path).unwrap();
        assert_eq!(reopened.get("src", &p), Some(map(json!({"position": 20}))));
        assert_eq!(reopened.get("other", &p), None);
        // No temporary files are left behind.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }

    #[tokio::test]
    async fn a_null_offset_deletes_the_partition() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("offsets.json");
        let store = FileOffsetStore::open(&path).unwrap();
        let p = Arc::new(map(json!({"filename": "a"})));
        store
            .put("src", vec![(p.clone(), Some(map(json!({"position": 1}))))])
            .await
            .unwrap();
        store.put("src", vec![(p.clone(), None)]).await.unwrap();
        assert_eq!(store.get("src", &p), None);
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(doc, json!({"version":1,"connectors":{}}));
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it_and_is_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("offsets.json");
        for content in [&b"{\"version\":1,\"conn"[..], b"[]", b"\xAC\xED\x00\x05sr"] {
            std::fs::write(&path, content).unwrap();
            let err = FileOffsetStore::open(&path)
                .err()
                .expect("corrupt file must fail");
            let message = err.to_string();
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert!(message.contains("corrupt"), "{message}");
            assert_eq!(std::fs::read(&path).unwrap(), content);
        }
    }
}
