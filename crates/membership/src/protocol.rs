//! The Connect sub-protocol carried inside the group coordinator's JoinGroup metadata and
//! SyncGroup assignments (reference §10.2; apache/kafka `ConnectProtocol`,
//! `IncrementalCooperativeConnectProtocol`).
//!
//! Kafka's classic primitives: big-endian integers, STRING = int16 length + UTF-8,
//! NULLABLE_BYTES = int32 length (-1 null), ARRAY = int32 count (-1 null) + elements.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The task id that stands for the connector instance itself in an assignment entry.
pub const CONNECTOR_TASK: i32 = -1;

/// `error` of an assignment: no error.
pub const NO_ERROR: i16 = 0;
/// `error` of an assignment: the leader's config snapshot is behind a member's.
pub const CONFIG_MISMATCH: i16 = 1;

/// A Connect sub-protocol, as named in JoinGroup, with its version number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConnectProtocol {
    /// `default` (version 0): eager rebalancing, everything revoked on every rebalance.
    Eager,
    /// `compatible` (version 1): incremental cooperative rebalancing (KIP-415).
    Compatible,
    /// `sessioned` (version 2): as `compatible`, with internal request signing (KIP-507).
    Sessioned,
}

impl ConnectProtocol {
    /// The protocol name in JoinGroup (`default`, `compatible`, `sessioned`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Eager => "default",
            Self::Compatible => "compatible",
            Self::Sessioned => "sessioned",
        }
    }

    /// The version written in the metadata and assignment headers (0, 1, 2).
    pub fn version(self) -> i16 {
        match self {
            Self::Eager => 0,
            Self::Compatible => 1,
            Self::Sessioned => 2,
        }
    }

    /// The protocol of a JoinGroup protocol name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Eager, Self::Compatible, Self::Sessioned]
            .into_iter()
            .find(|p| p.name() == name)
    }

    /// The protocol of a `connect.protocol` value (`eager`, `compatible`, `sessioned`,
    /// case-insensitive).
    pub fn from_config(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "eager" => Some(Self::Eager),
            "compatible" => Some(Self::Compatible),
            "sessioned" => Some(Self::Sessioned),
            _ => None,
        }
    }

    /// The protocols a worker configured with `self` offers in JoinGroup, most preferred first
    /// (`sessioned`, `compatible`, `default`, down to what `self` allows).
    pub fn offered(self) -> Vec<Self> {
        match self {
            Self::Eager => vec![Self::Eager],
            Self::Compatible => vec![Self::Compatible, Self::Eager],
            Self::Sessioned => vec![Self::Sessioned, Self::Compatible, Self::Eager],
        }
    }

    /// Whether rebalancing is incremental cooperative (`compatible`, `sessioned`).
    pub fn is_incremental(self) -> bool {
        self != Self::Eager
    }
}

impl fmt::Display for ConnectProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why bytes of the Connect sub-protocol could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The bytes end in the middle of a required field.
    #[error("connect protocol: truncated {0}")]
    Truncated(&'static str),
    /// The header carries a negative version.
    #[error("connect protocol: unsupported version {0}")]
    UnsupportedVersion(i16),
    /// A string is not UTF-8.
    #[error("connect protocol: {0} is not valid UTF-8")]
    InvalidUtf8(&'static str),
    /// A length or count is negative where null is not allowed.
    #[error("connect protocol: invalid length {len} of {what}")]
    InvalidLength {
        /// The field.
        what: &'static str,
        /// The length read.
        len: i32,
    },
    /// A string is longer than an int16 length allows.
    #[error("connect protocol: {0} is longer than 32767 bytes")]
    TooLong(&'static str),
}

/// One connector task: the connector's name and the task number (≥ 0).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId {
    /// The connector.
    pub connector: String,
    /// The task number.
    pub task: i32,
}

impl TaskId {
    /// Task `task` of `connector`.
    pub fn new(connector: impl Into<String>, task: i32) -> Self {
        Self {
            connector: connector.into(),
            task,
        }
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.connector, self.task)
    }
}

/// A set of connector instances and tasks (what a worker runs, or what it must stop).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkItems {
    /// Connector instances.
    pub connectors: BTreeSet<String>,
    /// Tasks.
    pub tasks: BTreeSet<TaskId>,
}

impl WorkItems {
    /// Whether there is neither a connector nor a task.
    pub fn is_empty(&self) -> bool {
        self.connectors.is_empty() && self.tasks.is_empty()
    }

    /// Connectors plus tasks.
    pub fn len(&self) -> usize {
        self.connectors.len() + self.tasks.len()
    }

    /// Adds everything of `other`.
    pub fn extend(&mut self, other: &WorkItems) {
        self.connectors.extend(other.connectors.iter().cloned());
        self.tasks.extend(other.tasks.iter().cloned());
    }

    /// Removes everything of `other`.
    pub fn remove_all(&mut self, other: &WorkItems) {
        self.connectors.retain(|c| !other.connectors.contains(c));
        self.tasks.retain(|t| !other.tasks.contains(t));
    }

    /// The wire entries: per connector (sorted), `-1` for the connector itself first, then its
    /// tasks in order.
    pub fn to_entries(&self) -> Vec<ConnectorTasks> {
        let mut map: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for c in &self.connectors {
            map.entry(c).or_default().push(CONNECTOR_TASK);
        }
        for t in &self.tasks {
            map.entry(&t.connector).or_default().push(t.task);
        }
        map.into_iter()
            .map(|(connector, tasks)| ConnectorTasks {
                connector: connector.to_owned(),
                tasks,
            })
            .collect()
    }

    /// The items of wire entries (`-1` = the connector).
    pub fn from_entries(entries: &[ConnectorTasks]) -> Self {
        let mut items = Self::default();
        for e in entries {
            for &t in &e.tasks {
                if t == CONNECTOR_TASK {
                    items.connectors.insert(e.connector.clone());
                } else {
                    items.tasks.insert(TaskId::new(e.connector.clone(), t));
                }
            }
        }
        items
    }
}

/// One wire entry of an assignment: a connector and task ids (`-1` = the connector itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorTasks {
    /// The connector.
    pub connector: String,
    /// Task ids, in wire order.
    pub tasks: Vec<i32>,
}

/// An assignment sent by the leader in SyncGroup (v0 for `default`, v1/v2 otherwise), also
/// embedded in v1+ member metadata as the worker's current allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// Header version (0, 1 or 2; readers accept any ≥ 0).
    pub version: i16,
    /// [`NO_ERROR`] or [`CONFIG_MISMATCH`].
    pub error: i16,
    /// The leader's member id.
    pub leader: String,
    /// The leader's REST URL.
    pub leader_url: String,
    /// The config topic offset the assignment was computed at.
    pub config_offset: i64,
    /// Newly assigned (incremental) or all (eager) items, in wire order; `None` = null array.
    pub assigned: Option<Vec<ConnectorTasks>>,
    /// Items to stop (v1+), in wire order; `None` = null array (and absent in v0).
    pub revoked: Option<Vec<ConnectorTasks>>,
    /// Scheduled rebalance delay in ms (v1+; 0 when absent).
    pub delay: i32,
}

impl Assignment {
    /// The assigned items as a set.
    pub fn assigned_items(&self) -> WorkItems {
        WorkItems::from_entries(self.assigned.as_deref().unwrap_or_default())
    }

    /// The revoked items as a set.
    pub fn revoked_items(&self) -> WorkItems {
        WorkItems::from_entries(self.revoked.as_deref().unwrap_or_default())
    }

    /// Whether the leader reported an error (e.g. [`CONFIG_MISMATCH`]).
    pub fn failed(&self) -> bool {
        self.error != NO_ERROR
    }

    /// The bytes: v0 layout when `version` is 0 (a null `assigned` is written as an empty
    /// array; no revoked/delay), else the v1 layout with this header version.
    pub fn encode(&self) -> Result<Vec<u8>, ProtocolError> {
        let mut w = Writer::default();
        w.i16(self.version);
        w.i16(self.error);
        w.string(&self.leader, "leader")?;
        w.string(&self.leader_url, "leader url")?;
        w.i64(self.config_offset);
        if self.version == 0 {
            w.entries(Some(self.assigned.as_deref().unwrap_or_default()))?;
        } else {
            w.entries(self.assigned.as_deref())?;
            w.entries(self.revoked.as_deref())?;
            w.i32(self.delay);
        }
        Ok(w.0)
    }

    /// Reads an assignment of any version ≥ 0 with the v1 layout, tolerating missing trailing
    /// fields (assignment, revoked: null; delay: 0).
    pub fn decode(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let mut r = Reader(bytes);
        let version = r.i16("version")?;
        if version < 0 {
            return Err(ProtocolError::UnsupportedVersion(version));
        }
        let error = r.i16("error")?;
        let leader = r.string("leader")?;
        let leader_url = r.string("leader url")?;
        let config_offset = r.i64("config offset")?;
        let assigned = if r.done() {
            None
        } else {
            r.entries("assignment")?
        };
        let revoked = if r.done() {
            None
        } else {
            r.entries("revoked")?
        };
        let delay = if r.done() { 0 } else { r.i32("delay")? };
        Ok(Self {
            version,
            error,
            leader,
            leader_url,
            config_offset,
            assigned,
            revoked,
            delay,
        })
    }
}

/// A worker's JoinGroup metadata: v0 (`default`), v1 (`compatible`), v2 (`sessioned`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerMetadata {
    /// Header version.
    pub version: i16,
    /// The worker's REST URL.
    pub url: String,
    /// The config topic offset the worker has read up to.
    pub config_offset: i64,
    /// The worker's current assignment (v1+); `None` = null (no assignment).
    pub allocation: Option<Assignment>,
}

impl WorkerMetadata {
    /// The bytes: v0 has no allocation field; v1+ writes the allocation as nullable bytes.
    pub fn encode(&self) -> Result<Vec<u8>, ProtocolError> {
        let mut w = Writer::default();
        w.i16(self.version);
        w.string(&self.url, "url")?;
        w.i64(self.config_offset);
        if self.version > 0 {
            match &self.allocation {
                None => w.i32(-1),
                Some(a) => {
                    let bytes = a.encode()?;
                    w.i32(len_i32(bytes.len(), "allocation")?);
                    w.0.extend_from_slice(&bytes);
                }
            }
        }
        Ok(w.0)
    }

    /// Reads metadata of any version ≥ 0, tolerating a missing allocation.
    pub fn decode(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let mut r = Reader(bytes);
        let version = r.i16("version")?;
        if version < 0 {
            return Err(ProtocolError::UnsupportedVersion(version));
        }
        let url = r.string("url")?;
        let config_offset = r.i64("config offset")?;
        let allocation = if r.done() {
            None
        } else {
            match r.nullable_bytes("allocation")? {
                None => None,
                Some(b) => Some(Assignment::decode(b)?),
            }
        };
        Ok(Self {
            version,
            url,
            config_offset,
            allocation,
        })
    }
}

fn len_i32(len: usize, what: &'static str) -> Result<i32, ProtocolError> {
    i32::try_from(len).map_err(|_| ProtocolError::TooLong(what))
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn i16(&mut self, v: i16) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn string(&mut self, s: &str, what: &'static str) -> Result<(), ProtocolError> {
        let len = i16::try_from(s.len()).map_err(|_| ProtocolError::TooLong(what))?;
        self.i16(len);
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
    fn entries(&mut self, entries: Option<&[ConnectorTasks]>) -> Result<(), ProtocolError> {
        let Some(entries) = entries else {
            self.i32(-1);
            return Ok(());
        };
        self.i32(len_i32(entries.len(), "assignment")?);
        for e in entries {
            self.string(&e.connector, "connector")?;
            self.i32(len_i32(e.tasks.len(), "tasks")?);
            for &t in &e.tasks {
                self.i32(t);
            }
        }
        Ok(())
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn done(&self) -> bool {
        self.0.is_empty()
    }
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ProtocolError> {
        if self.0.len() < n {
            return Err(ProtocolError::Truncated(what));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ProtocolError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }
    fn i16(&mut self, what: &'static str) -> Result<i16, ProtocolError> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }
    fn i32(&mut self, what: &'static str) -> Result<i32, ProtocolError> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }
    fn i64(&mut self, what: &'static str) -> Result<i64, ProtocolError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }
    fn string(&mut self, what: &'static str) -> Result<String, ProtocolError> {
        let len = self.i16(what)?;
        let len = usize::try_from(len).map_err(|_| ProtocolError::InvalidLength {
            what,
            len: len.into(),
        })?;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| ProtocolError::InvalidUtf8(what))
    }
    fn nullable_bytes(&mut self, what: &'static str) -> Result<Option<&'a [u8]>, ProtocolError> {
        let len = self.i32(what)?;
        if len < 0 {
            return Ok(None);
        }
        Ok(Some(self.take(len as usize, what)?))
    }
    fn count(&mut self, what: &'static str) -> Result<Option<usize>, ProtocolError> {
        let n = self.i32(what)?;
        if n < 0 {
            return Ok(None);
        }
        let n = n as usize;
        // Every element takes at least 2 bytes: a count beyond that is a truncation.
        if n > self.0.len() {
            return Err(ProtocolError::Truncated(what));
        }
        Ok(Some(n))
    }
    fn entries(
        &mut self,
        what: &'static str,
    ) -> Result<Option<Vec<ConnectorTasks>>, ProtocolError> {
        let Some(n) = self.count(what)? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let connector = self.string("connector")?;
            let Some(m) = self.count("tasks")? else {
                return Err(ProtocolError::InvalidLength {
                    what: "tasks",
                    len: -1,
                });
            };
            let mut tasks = Vec::with_capacity(m);
            for _ in 0..m {
                tasks.push(self.i32("task")?);
            }
            out.push(ConnectorTasks { connector, tasks });
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(c: &str, tasks: &[i32]) -> ConnectorTasks {
        ConnectorTasks {
            connector: c.into(),
            tasks: tasks.to_vec(),
        }
    }

    #[test]
    fn metadata_v0_bytes() {
        let m = WorkerMetadata {
            version: 0,
            url: "http://w:8083/".into(),
            config_offset: 7,
            allocation: None,
        };
        let mut expected = vec![0, 0, 0, 14];
        expected.extend_from_slice(b"http://w:8083/");
        expected.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 7]);
        assert_eq!(m.encode().unwrap(), expected);
        assert_eq!(WorkerMetadata::decode(&expected).unwrap(), m);
    }

    #[test]
    fn metadata_v1_null_allocation_and_v2_with_allocation() {
        let m = WorkerMetadata {
            version: 1,
            url: "u".into(),
            config_offset: -1,
            allocation: None,
        };
        let expected = vec![
            0, 1, 0, 1, b'u', 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        ];
        assert_eq!(m.encode().unwrap(), expected);
        assert_eq!(WorkerMetadata::decode(&expected).unwrap(), m);

        let a = Assignment {
            version: 2,
            error: 0,
            leader: "L".into(),
            leader_url: "".into(),
            config_offset: 3,
            assigned: Some(vec![entry("c", &[-1, 0])]),
            revoked: None,
            delay: 5,
        };
        let m2 = WorkerMetadata {
            version: 2,
            url: "".into(),
            config_offset: 3,
            allocation: Some(a.clone()),
        };
        let inner: Vec<u8> = vec![
            0, 2, // version
            0, 0, // error
            0, 1, b'L', // leader
            0, 0, // leader url
            0, 0, 0, 0, 0, 0, 0, 3, // offset
            0, 0, 0, 1, 0, 1, b'c', 0, 0, 0, 2, 255, 255, 255, 255, 0, 0, 0, 0, // assigned
            255, 255, 255, 255, // revoked null
            0, 0, 0, 5, // delay
        ];
        assert_eq!(a.encode().unwrap(), inner);
        let mut expected = vec![0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3];
        expected.extend_from_slice(&(inner.len() as i32).to_be_bytes());
        expected.extend_from_slice(&inner);
        assert_eq!(m2.encode().unwrap(), expected);
        assert_eq!(WorkerMetadata::decode(&expected).unwrap(), m2);
    }

    #[test]
    fn assignment_v0_has_no_revoked_or_delay() {
        let a = Assignment {
            version: 0,
            error: CONFIG_MISMATCH,
            leader: "".into(),
            leader_url: "".into(),
            config_offset: 1,
            assigned: None,
            revoked: None,
            delay: 0,
        };
        let bytes = a.encode().unwrap();
        assert_eq!(
            bytes,
            vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        );
        let back = Assignment::decode(&bytes).unwrap();
        assert_eq!(back.assigned, Some(vec![]));
        assert_eq!(back.revoked, None);
        assert_eq!(back.delay, 0);
        assert!(back.failed());
    }

    #[test]
    fn readers_tolerate_missing_trailing_fields_and_future_versions() {
        // version 7, error 0, leader "", url "", offset 9, nothing after.
        let bytes = vec![0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9];
        let a = Assignment::decode(&bytes).unwrap();
        assert_eq!(
            (a.version, a.config_offset, a.assigned, a.delay),
            (7, 9, None, 0)
        );
        assert_eq!(
            Assignment::decode(&[0, 1, 0]).unwrap_err(),
            ProtocolError::Truncated("error")
        );
        assert_eq!(
            WorkerMetadata::decode(&[255, 255]).unwrap_err(),
            ProtocolError::UnsupportedVersion(-1)
        );
        let m = WorkerMetadata::decode(&[0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]).unwrap();
        assert_eq!((m.version, m.config_offset, m.allocation), (5, 2, None));
    }

    #[test]
    fn work_items_entries_put_the_connector_first() {
        let mut w = WorkItems::default();
        w.connectors.insert("b".into());
        w.tasks.insert(TaskId::new("b", 1));
        w.tasks.insert(TaskId::new("a", 0));
        w.tasks.insert(TaskId::new("b", 0));
        assert_eq!(
            w.to_entries(),
            vec![entry("a", &[0]), entry("b", &[-1, 0, 1])]
        );
        assert_eq!(WorkItems::from_entries(&w.to_entries()), w);
    }

    #[test]
    fn protocols_offered_in_preference_order() {
        let names: Vec<_> = ConnectProtocol::Sessioned
            .offered()
            .iter()
            .map(|p| p.name())
            .collect();
        assert_eq!(names, ["sessioned", "compatible", "default"]);
        assert_eq!(
            ConnectProtocol::from_config("EAGER"),
            Some(ConnectProtocol::Eager)
        );
        assert_eq!(
            ConnectProtocol::from_name("default"),
            Some(ConnectProtocol::Eager)
        );
    }
}
