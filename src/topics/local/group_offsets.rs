//! Consumer-group offsets: one JSON file per group, `<dir>/__groups/<group>.json`, replaced
//! atomically (temp file, fsync, rename, fsync of the directory) on every commit.
//!
//! ```json
//! {"group":"connect-sink","offsets":[{"topic":"t","partition":0,"offset":42,"metadata":"…"}]}
//! ```
//!
//! `metadata` (absent when empty) is a sink's position committed with the offset, as Kafka
//! stores commit metadata: every commit replaces it, and altering an offset removes it.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::{io_error, sync_dir};
use crate::topics::{PartitionOffsets, SinkPositions, TopicError, TopicPartition};

/// Name of the directory holding the group files.
pub(crate) const GROUPS_DIR: &str = "__groups";

#[derive(Serialize, Deserialize)]
struct GroupFile {
    group: String,
    offsets: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    topic: String,
    partition: i32,
    offset: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<String>,
}

/// The committed state of one group: offsets, and the positions committed with some of them.
#[derive(Debug, Clone, Default)]
struct Group {
    offsets: PartitionOffsets,
    positions: SinkPositions,
}

/// The committed offsets of every group of one log.
#[derive(Debug)]
pub(crate) struct GroupOffsets {
    dir: PathBuf,
    /// Groups read or committed by this process (committing merges into this).
    cache: Mutex<HashMap<String, Group>>,
    read_only: bool,
}

/// The file name of `group`: bytes outside `[A-Za-z0-9._-]` are written `%XX`.
fn file_name(group: &str) -> String {
    let mut name = String::with_capacity(group.len() + 5);
    for b in group.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-' {
            name.push(b as char);
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    name.push_str(".json");
    name
}

impl GroupOffsets {
    /// The groups of the log in `log_dir`; a read-only instance never caches (another process
    /// may commit).
    pub(crate) fn new(log_dir: &Path, read_only: bool) -> Self {
        Self {
            dir: log_dir.join(GROUPS_DIR),
            cache: Mutex::new(HashMap::new()),
            read_only,
        }
    }

    fn path(&self, group: &str) -> Result<PathBuf, TopicError> {
        let name = file_name(group);
        if name.len() > 240 {
            return Err(TopicError::Other(format!(
                "consumer group name too long for a file name: {group}"
            )));
        }
        Ok(self.dir.join(name))
    }

    fn load(&self, group: &str) -> Result<Group, TopicError> {
        let path = self.path(group)?;
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Group::default()),
            Err(e) => return Err(io_error("cannot read", &path)(e)),
        };
        let file: GroupFile = serde_json::from_str(&text).map_err(|e| {
            TopicError::Corrupt(format!(
                "{}: not a consumer-group offsets file: {e}",
                path.display()
            ))
        })?;
        let mut loaded = Group::default();
        for e in file.offsets {
            let tp = TopicPartition {
                topic: e.topic,
                partition: e.partition,
            };
            if let Some(m) = e.metadata {
                loaded.positions.insert(tp.clone(), m);
            }
            loaded.offsets.insert(tp, e.offset);
        }
        Ok(loaded)
    }

    fn group(&self, group: &str) -> Result<Group, TopicError> {
        if self.read_only {
            return self.load(group);
        }
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(g) = cache.get(group) {
            return Ok(g.clone());
        }
        let g = self.load(group)?;
        cache.insert(group.to_string(), g.clone());
        Ok(g)
    }

    /// The committed offsets of `group` (empty when it never committed).
    pub(crate) fn committed(&self, group: &str) -> Result<PartitionOffsets, TopicError> {
        Ok(self.group(group)?.offsets)
    }

    /// The sink positions committed with the offsets of `group`.
    pub(crate) fn positions(&self, group: &str) -> Result<SinkPositions, TopicError> {
        Ok(self.group(group)?.positions)
    }

    /// Every group with committed offsets, from the group files (blocking I/O). A file that
    /// cannot be read is logged and left out.
    pub(crate) fn all(&self) -> Result<Vec<(String, PartitionOffsets)>, TopicError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error("cannot list", &self.dir)(e)),
        };
        let mut groups = Vec::new();
        for entry in entries {
            let path = entry.map_err(io_error("cannot list", &self.dir))?.path();
            if path.extension().is_none_or(|ext| ext != "json") {
                continue;
            }
            let group = fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|text| {
                    serde_json::from_str::<GroupFile>(&text).map_err(|e| e.to_string())
                });
            match group {
                Ok(file) => {
                    let offsets = self.committed(&file.group)?;
                    groups.push((file.group, offsets));
                }
                Err(e) => tracing::warn!(
                    path = %path.display(), error = %e,
                    "not a consumer-group offsets file; left out"
                ),
            }
        }
        Ok(groups)
    }

    /// Durably merges `offsets` into the committed offsets of `group`, each with its position
    /// in `positions` or none (blocking I/O).
    pub(crate) fn commit(
        &self,
        group: &str,
        offsets: &PartitionOffsets,
        positions: &SinkPositions,
    ) -> Result<(), TopicError> {
        if self.read_only {
            return Err(TopicError::Unavailable(format!(
                "{} is opened read-only",
                self.dir.display()
            )));
        }
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let mut merged = match cache.get(group) {
            Some(current) => current.clone(),
            None => self.load(group)?,
        };
        for (tp, o) in offsets {
            merged.offsets.insert(tp.clone(), *o);
            match positions.get(tp) {
                Some(p) => merged.positions.insert(tp.clone(), p.clone()),
                None => merged.positions.remove(tp),
            };
        }
        self.write(group, &merged)?;
        cache.insert(group.to_string(), merged);
        Ok(())
    }

    /// Durably sets (`Some`) or removes (`None`) committed offsets of `group`, removing their
    /// sink positions (blocking I/O).
    pub(crate) fn alter(
        &self,
        group: &str,
        changes: &[(crate::topics::TopicPartition, Option<i64>)],
    ) -> Result<(), TopicError> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let mut merged = match cache.get(group) {
            Some(current) => current.clone(),
            None => self.load(group)?,
        };
        for (tp, offset) in changes {
            match offset {
                Some(o) => {
                    merged.offsets.insert(tp.clone(), *o);
                }
                None => {
                    merged.offsets.remove(tp);
                }
            }
            merged.positions.remove(tp);
        }
        self.write(group, &merged)?;
        cache.insert(group.to_string(), merged);
        Ok(())
    }

    /// Durably removes `group` and its offsets file; an unknown group is no error (blocking I/O).
    pub(crate) fn delete(&self, group: &str) -> Result<(), TopicError> {
        let path = self.path(group)?;
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        match fs::remove_file(&path) {
            Ok(()) => sync_dir(&self.dir)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error("cannot delete", &path)(e)),
        }
        cache.remove(group);
        Ok(())
    }

    fn write(&self, group: &str, state: &Group) -> Result<(), TopicError> {
        let path = self.path(group)?;
        if !self.dir.exists() {
            crate::fs_private::create_dir_all(&self.dir)
                .map_err(io_error("cannot create", &self.dir))?;
            if let Some(parent) = self.dir.parent() {
                sync_dir(parent)?;
            }
        }
        let file = GroupFile {
            group: group.to_string(),
            offsets: state
                .offsets
                .iter()
                .map(|(tp, o)| Entry {
                    topic: tp.topic.clone(),
                    partition: tp.partition,
                    offset: *o,
                    metadata: state.positions.get(tp).cloned(),
                })
                .collect(),
        };
        let json = serde_json::to_vec_pretty(&file).map_err(|e| {
            TopicError::Other(format!("cannot encode the offsets of group {group}: {e}"))
        })?;
        let mut temp =
            crate::fs_private::temp_file_in(&self.dir).map_err(io_error("cannot write", &path))?;
        temp.write_all(&json)
            .map_err(io_error("cannot write", &path))?;
        temp.as_file()
            .sync_all()
            .map_err(io_error("cannot write", &path))?;
        temp.persist(&path)
            .map_err(|e| io_error("cannot write", &path)(e.error))?;
        sync_dir(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_are_escaped() {
        assert_eq!(file_name("connect-my_sink.1"), "connect-my_sink.1.json");
        assert_eq!(file_name("a/b c%"), "a%2Fb%20c%25.json");
    }

    #[test]
    fn commits_merge_and_survive_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let tp = |p| TopicPartition {
            topic: "t".to_string(),
            partition: p,
        };
        let groups = GroupOffsets::new(dir.path(), false);
        let none = SinkPositions::new();
        groups
            .commit("g/1", &PartitionOffsets::from([(tp(0), 5)]), &none)
            .unwrap();
        groups
            .commit("g/1", &PartitionOffsets::from([(tp(1), 7)]), &none)
            .unwrap();
        let reopened = GroupOffsets::new(dir.path(), true);
        assert_eq!(
            reopened.committed("g/1").unwrap(),
            PartitionOffsets::from([(tp(0), 5), (tp(1), 7)])
        );
        assert!(reopened.committed("other").unwrap().is_empty());
        let text = fs::read_to_string(dir.path().join("__groups/g%2F1.json")).unwrap();
        assert!(text.contains("\"group\": \"g/1\""), "{text}");
    }

    #[test]
    fn positions_are_stored_with_offsets_replaced_by_commits_and_cleared_by_alter() {
        let dir = tempfile::tempdir().unwrap();
        let tp = |p| TopicPartition {
            topic: "t".to_string(),
            partition: p,
        };
        let groups = GroupOffsets::new(dir.path(), false);
        let both = PartitionOffsets::from([(tp(0), 5), (tp(1), 7)]);
        groups
            .commit(
                "g",
                &both,
                &SinkPositions::from([(tp(0), "a".into()), (tp(1), "b".into())]),
            )
            .unwrap();
        let reopened = GroupOffsets::new(dir.path(), true);
        assert_eq!(
            reopened.positions("g").unwrap(),
            SinkPositions::from([(tp(0), "a".into()), (tp(1), "b".into())])
        );
        // A commit without a position for a partition removes its old one (Kafka semantics).
        groups
            .commit(
                "g",
                &PartitionOffsets::from([(tp(0), 6)]),
                &SinkPositions::new(),
            )
            .unwrap();
        assert_eq!(
            reopened.positions("g").unwrap(),
            SinkPositions::from([(tp(1), "b".into())])
        );
        groups.alter("g", &[(tp(1), Some(0))]).unwrap();
        assert!(reopened.positions("g").unwrap().is_empty());
        assert_eq!(
            reopened.committed("g").unwrap(),
            PartitionOffsets::from([(tp(0), 6), (tp(1), 0)])
        );
        let text = fs::read_to_string(dir.path().join("__groups/g.json")).unwrap();
        assert!(!text.contains("metadata"), "{text}");
    }
}
