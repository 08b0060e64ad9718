//! Source offsets in the `offset.storage.topic` (Kafka Connect's `KafkaOffsetBackingStore`):
//! key `["<connector>",{<source partition>}]`, value the offset object or a tombstone when the
//! offset is reset, both as the schemaless JsonConverter writes them. Lookups are by the exact
//! key bytes; the map is built by reading the topic to its end at open and kept current by
//! tailing it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use connect_api::OffsetMap;
use tracing::warn;

use super::internal::{offset_records, RecordError};
use super::topic_log::{InternalTopicSpec, LogRecord, TopicLog, TopicLogError};
use super::{OffsetEntry, OffsetStore, StorageError, TransactionalOffsets};
use crate::topics::internal_topic::InternalTopicBackend;
use crate::topics::ProducerRecord;

/// One stored offset, decoded.
#[derive(Debug, Clone)]
struct Stored {
    connector: String,
    partition: OffsetMap,
    offset: OffsetMap,
}

type Offsets = HashMap<Vec<u8>, Stored>;

/// Key and value (`None`: a tombstone) bytes of offsets records.
type RecordBytes = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// Source offsets kept in a compacted topic.
pub struct TopicOffsetStore {
    log: TopicLog,
    offsets: Arc<Mutex<Offsets>>,
}

impl std::fmt::Debug for TopicOffsetStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicOffsetStore")
            .field("topic", &self.log.topic())
            .finish_non_exhaustive()
    }
}

fn lock(offsets: &Mutex<Offsets>) -> MutexGuard<'_, Offsets> {
    offsets.lock().unwrap_or_else(|e| e.into_inner())
}

impl TopicOffsetStore {
    /// Opens the offsets topic of `spec` (created if absent, compaction verified) and reads it
    /// to its end.
    ///
    /// # Errors
    /// As [`TopicLog::open`].
    pub async fn open(
        backend: &dyn InternalTopicBackend,
        spec: &InternalTopicSpec,
        client_id: &str,
    ) -> Result<Self, TopicLogError> {
        let offsets = Arc::new(Mutex::new(Offsets::new()));
        let applied = offsets.clone();
        let handler = Box::new(move |record: LogRecord| apply(&mut lock(&applied), record));
        let log = TopicLog::open(backend, spec, client_id, handler).await?;
        Ok(Self { log, offsets })
    }

    /// The underlying log.
    pub fn log(&self) -> &TopicLog {
        &self.log
    }
}

/// Applies one record of the topic to the map; a record that cannot be decoded is skipped with
/// an error log, as Kafka Connect does.
fn apply(offsets: &mut Offsets, record: LogRecord) {
    let Some(key) = record.key else {
        warn!(
            partition = record.partition,
            offset = record.offset,
            "Ignoring an offsets record without a key."
        );
        return;
    };
    let Some(value) = record.value else {
        offsets.remove(&key);
        return;
    };
    match decode(&key, &value) {
        Ok(stored) => {
            offsets.insert(key, stored);
        }
        Err(reason) => warn!(
            partition = record.partition,
            offset = record.offset,
            "Ignoring an offsets record that cannot be read: {reason}"
        ),
    }
}

fn decode(key: &[u8], value: &[u8]) -> Result<Stored, RecordError> {
    let (connector, partition) = offset_records::decode_key(key)?;
    let offset = offset_records::decode_value(&connector, Some(value))?.unwrap_or_default();
    Ok(Stored {
        partition: partition.unwrap_or_default(),
        connector,
        offset,
    })
}

/// The key and value bytes of one offset (`None`: a tombstone), as Kafka Connect writes them.
fn offset_record(
    connector: &str,
    partition: &OffsetMap,
    offset: Option<&OffsetMap>,
) -> Result<(Vec<u8>, Option<Vec<u8>>), RecordError> {
    Ok((
        offset_records::encode_key(connector, Some(partition))?,
        offset_records::encode_value(connector, offset)?,
    ))
}

#[async_trait]
impl OffsetStore for TopicOffsetStore {
    fn get(&self, connector: &str, partition: &OffsetMap) -> Option<OffsetMap> {
        let (key, _) = offset_record(connector, partition, None).ok()?;
        lock(&self.offsets).get(&key).map(|s| s.offset.clone())
    }

    fn connector_offsets(&self, connector: &str) -> Vec<(OffsetMap, OffsetMap)> {
        let offsets = lock(&self.offsets);
        let mut found: Vec<(&Vec<u8>, &Stored)> = offsets
            .iter()
            .filter(|(_, s)| s.connector == connector)
            .collect();
        found.sort_by(|a, b| a.0.cmp(b.0));
        found
            .into_iter()
            .map(|(_, s)| (s.partition.clone(), s.offset.clone()))
            .collect()
    }

    async fn put(&self, connector: &str, entries: Vec<OffsetEntry>) -> Result<(), StorageError> {
        if entries.is_empty() {
            return Ok(());
        }
        let records = Self::encode_all(connector, &entries)?;
        let ack = self
            .log
            .send_all(records.clone())
            .await
            .map_err(|e| write_failed(self.log.topic(), e))?;
        ack.await.map_err(|e| write_failed(self.log.topic(), e))?;
        self.remember(connector, records, entries);
        Ok(())
    }
}

impl TopicOffsetStore {
    /// Puts written offsets into the map, without waiting for the tail to read them back.
    fn remember(&self, connector: &str, records: RecordBytes, entries: Vec<OffsetEntry>) {
        let mut offsets = lock(&self.offsets);
        for ((key, value), (partition, offset)) in records.into_iter().zip(entries) {
            match (value, offset) {
                (Some(_), Some(offset)) => {
                    offsets.insert(
                        key,
                        Stored {
                            connector: connector.to_owned(),
                            partition: (*partition).clone(),
                            offset,
                        },
                    );
                }
                _ => {
                    offsets.remove(&key);
                }
            }
        }
    }

    fn encode_all(connector: &str, entries: &[OffsetEntry]) -> Result<RecordBytes, StorageError> {
        entries
            .iter()
            .map(|(p, o)| offset_record(connector, p, o.as_ref()))
            .collect::<Result<_, _>>()
            .map_err(|e| StorageError::Topic {
                context: format!("Could not write source offsets of connector '{connector}'"),
                reason: e.to_string(),
            })
    }
}

#[async_trait]
impl TransactionalOffsets for TopicOffsetStore {
    fn offset_records(
        &self,
        connector: &str,
        entries: &[OffsetEntry],
    ) -> Result<Vec<ProducerRecord>, StorageError> {
        Ok(Self::encode_all(connector, entries)?
            .into_iter()
            .map(|(key, value)| ProducerRecord {
                topic: self.log.topic().to_owned(),
                key: Some(key),
                value,
                ..ProducerRecord::default()
            })
            .collect())
    }

    async fn read_to_end(&self) -> Result<(), StorageError> {
        self.log
            .read_to_end()
            .await
            .map_err(|e| StorageError::Topic {
                context: format!("Could not read the offsets topic '{}'", self.log.topic()),
                reason: e.to_string(),
            })
    }

    fn committed(&self, connector: &str, entries: Vec<OffsetEntry>) {
        match Self::encode_all(connector, &entries) {
            Ok(records) => self.remember(connector, records, entries),
            // Unreachable in practice: the same entries were encoded for the transaction.
            Err(e) => warn!(error = %e, "Committed source offsets could not be recorded."),
        }
    }
}

fn write_failed(topic: &str, e: TopicLogError) -> StorageError {
    StorageError::Topic {
        context: format!("Could not write source offsets to topic '{topic}'"),
        reason: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(json: &str) -> OffsetMap {
        match serde_json::from_str(json).unwrap() {
            serde_json::Value::Object(m) => m,
            other => panic!("{other}"),
        }
    }

    #[test]
    fn keys_and_values_are_the_schemaless_json_converter_bytes() {
        let (key, value) = offset_record(
            "file-src",
            &map(r#"{"filename":"/data/in.txt"}"#),
            Some(&map(r#"{"position":1234,"ratio":1.5,"done":false}"#)),
        )
        .unwrap();
        assert_eq!(key, br#"["file-src",{"filename":"/data/in.txt"}]"#);
        assert_eq!(
            value.as_deref(),
            Some(&br#"{"position":1234,"ratio":1.5,"done":false}"#[..])
        );
        let (_, tombstone) = offset_record("c", &map("{}"), None).unwrap();
        assert_eq!(tombstone, None);
    }

    #[test]
    fn records_apply_and_tombstones_remove() {
        let mut offsets = Offsets::new();
        let key = br#"["c",{"p":1}]"#.to_vec();
        apply(
            &mut offsets,
            LogRecord {
                partition: 0,
                offset: 0,
                key: Some(key.clone()),
                value: Some(br#"{"o":7}"#.to_vec()),
            },
        );
        assert_eq!(offsets[&key].offset, map(r#"{"o":7}"#));
        assert_eq!(offsets[&key].connector, "c");
        apply(
            &mut offsets,
            LogRecord {
                partition: 0,
                offset: 1,
                key: Some(b"not json".to_vec()),
                value: Some(b"{}".to_vec()),
            },
        );
        assert_eq!(offsets.len(), 1, "an unreadable record is skipped");
        apply(
            &mut offsets,
            LogRecord {
                partition: 0,
                offset: 2,
                key: Some(key.clone()),
                value: None,
            },
        );
        assert!(offsets.is_empty());
    }
}
