//! Source offsets on the embedded log with exactly-once sources: the commit journal of the
//! log holds the offsets committed with their records, the wrapped store (offsets file or
//! offsets topic) the readable view, flushed as before. Reads prefer the journal (it is never
//! older); alterations over the REST API go to both, the journal first.

use std::sync::Arc;

use async_trait::async_trait;
use connect_api::OffsetMap;

use super::{OffsetEntry, OffsetStore, StorageError};
use crate::topics::local::LocalLog;
use crate::topics::SourceOffsets;

/// An [`OffsetStore`] whose offsets the embedded log's commit journal overrides.
pub struct JournaledOffsetStore {
    inner: Arc<dyn OffsetStore>,
    log: Arc<LocalLog>,
}

impl JournaledOffsetStore {
    /// Wraps `inner`, first copying into it every offset of the journal it does not hold yet
    /// (the journal is newer after a crash), so the readable view is current from the start.
    ///
    /// # Errors
    /// When `inner` cannot store them.
    pub async fn open(
        inner: Arc<dyn OffsetStore>,
        log: Arc<LocalLog>,
    ) -> Result<Self, StorageError> {
        let mut newer: std::collections::BTreeMap<String, Vec<OffsetEntry>> = Default::default();
        for (connector, partition, offset) in log.committed_source_offsets() {
            if inner.get(&connector, &partition).as_ref() != Some(&offset) {
                newer
                    .entry(connector)
                    .or_default()
                    .push((Arc::new(partition), Some(offset)));
            }
        }
        for (connector, entries) in newer {
            tracing::info!(
                connector = %connector,
                partitions = entries.len(),
                "Source offsets committed with their records in the embedded log are newer than the flushed ones; resuming from them."
            );
            inner.put(&connector, entries).await?;
        }
        Ok(Self { inner, log })
    }
}

#[async_trait]
impl OffsetStore for JournaledOffsetStore {
    fn get(&self, connector: &str, partition: &OffsetMap) -> Option<OffsetMap> {
        self.log
            .committed_source_offset(connector, partition)
            .or_else(|| self.inner.get(connector, partition))
    }

    fn connector_offsets(&self, connector: &str) -> Vec<(OffsetMap, OffsetMap)> {
        let mut offsets = self.inner.connector_offsets(connector);
        for (c, partition, offset) in self.log.committed_source_offsets() {
            if c != connector {
                continue;
            }
            match offsets.iter_mut().find(|(p, _)| *p == partition) {
                Some(slot) => slot.1 = offset,
                None => offsets.push((partition, offset)),
            }
        }
        offsets
    }

    async fn put(&self, connector: &str, entries: Vec<OffsetEntry>) -> Result<(), StorageError> {
        if entries.is_empty() {
            return Ok(());
        }
        self.log
            .commit_source_offsets(SourceOffsets {
                connector: connector.to_string(),
                offsets: entries.clone(),
            })
            .await
            .map_err(|e| StorageError::Topic {
                context: format!(
                    "Could not commit the source offsets of connector {connector} to the embedded log's commit journal"
                ),
                reason: e.to_string(),
            })?;
        self.inner.put(connector, entries).await
    }

    async fn put_committed(
        &self,
        connector: &str,
        entries: Vec<OffsetEntry>,
    ) -> Result<(), StorageError> {
        self.inner.put(connector, entries).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::FileOffsetStore;
    use serde_json::json;

    fn map(v: serde_json::Value) -> OffsetMap {
        v.as_object().cloned().unwrap()
    }

    #[tokio::test]
    async fn the_journal_wins_over_an_older_file_and_alterations_go_to_both() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("offsets.json");
        let p = Arc::new(map(json!({"filename": "in.txt"})));
        {
            let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
            log.commit_source_offsets(SourceOffsets {
                connector: "src".into(),
                offsets: vec![(p.clone(), Some(map(json!({"position": 30}))))],
            })
            .await
            .unwrap();
            log.close().await;
        }
        let inner = Arc::new(FileOffsetStore::open(&file).unwrap());
        inner
            .put("src", vec![(p.clone(), Some(map(json!({"position": 10}))))])
            .await
            .unwrap();
        let log = LocalLog::open(&dir.path().join("log"), 1).unwrap();
        let store = JournaledOffsetStore::open(inner, log.clone())
            .await
            .unwrap();
        assert_eq!(store.get("src", &p), Some(map(json!({"position": 30}))));
        let on_disk = FileOffsetStore::open(&file).unwrap();
        assert_eq!(
            on_disk.get("src", &p),
            Some(map(json!({"position": 30}))),
            "the readable view was brought up to the journal at open"
        );
        // A flush of committed offsets touches the view only.
        store
            .put_committed("src", vec![(p.clone(), Some(map(json!({"position": 20}))))])
            .await
            .unwrap();
        assert_eq!(store.get("src", &p), Some(map(json!({"position": 30}))));
        // A reset goes to the journal and the view.
        store.put("src", vec![(p.clone(), None)]).await.unwrap();
        assert_eq!(store.get("src", &p), None);
        assert!(store.connector_offsets("src").is_empty());
        assert_eq!(FileOffsetStore::open(&file).unwrap().get("src", &p), None);
        log.close().await;
    }
}
