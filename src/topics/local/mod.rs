//! The embedded durable log: topic data on local disk when no Kafka is configured.
//!
//! Layout of a log directory:
//!
//! ```text
//! <dir>/.lock                              held (File::try_lock) by the one process that writes
//! <dir>/<topic>-<partition>/<base>.log     segment files, <base> = 20-digit first offset
//! <dir>/__groups/<group>.json              committed offsets of a consumer group
//! <dir>/__topics/<topic>.json              configs of a topic created with configs (internal.rs)
//! <dir>/clean-shutdown.json                last segment of each partition, written by close()
//! <dir>/commit-journal.log                 committed partition ends and source offsets
//! ```
//!
//! Records are appended by one writer thread that group-commits: it writes every queued batch,
//! fsyncs once per touched partition, and only then acknowledges the batches and shows the
//! records to consumers (see `writer.rs`). Frames are length-prefixed and CRC-checked
//! (`segment.rs`); at open the last segment of each partition is scanned and a torn tail cut,
//! unless the previous run closed cleanly (`checkpoint.rs`). With exactly-once sources (the
//! default) every round is also recorded in the commit journal with the source offsets its
//! batches complete, and at open each partition is cut back to its journaled end
//! (`journal.rs`). Dropping a log without
//! [`LocalLog::close`] lets the writer finish what is queued and release the lock on its own.

mod checkpoint;
mod consumer;
mod group_offsets;
mod index;
mod internal;
mod journal;
mod log;
mod partition;
pub mod partitioner;
mod producer;
mod reader;
mod repair;
mod segment;
mod syncer;
mod writer;

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

pub use consumer::LocalConsumer;
pub use producer::LocalProducer;
pub use repair::{repair_journal, JournalRepair};

use log::Log;

use super::{
    ClientSpec, ConsumedRecord, PartitionOffsets, TopicBackend, TopicConsumer, TopicError,
    TopicPartition, TopicProducer,
};

/// Default size at which a partition rolls to a new segment file.
pub const DEFAULT_SEGMENT_BYTES: u64 = 128 * 1024 * 1024;
/// Default bound on the bytes of batches queued but not yet durable.
pub const DEFAULT_MAX_IN_FLIGHT_BYTES: usize = 16 * 1024 * 1024;
/// The most bytes of record data one consumer poll returns, by default.
pub const DEFAULT_MAX_POLL_BYTES: usize = 8 * 1024 * 1024;
/// The most bytes of record data one read of an internal topic returns.
const MAX_POLL_BYTES: usize = DEFAULT_MAX_POLL_BYTES;
/// Name of the lock file.
const LOCK_FILE: &str = ".lock";

/// Options of a writable log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalLogOptions {
    /// Partitions of topics created automatically (on first produce or subscribe).
    pub num_partitions: u32,
    /// Size at which a partition rolls to a new segment file.
    pub segment_bytes: u64,
    /// Bytes of batches queued but not yet durable before `send_batch` waits (back-pressure).
    pub max_in_flight_bytes: usize,
    /// Bytes of record data one consumer poll returns at most (at least one record).
    pub max_poll_bytes: usize,
    /// Exactly-once sources: the commit journal records every round with the source offsets
    /// its batches complete (`embedded.log.exactly.once.source`).
    pub exactly_once_source: bool,
}

impl LocalLogOptions {
    /// Defaults, with `num_partitions` partitions per new topic.
    pub fn new(num_partitions: u32) -> Self {
        Self {
            num_partitions,
            segment_bytes: DEFAULT_SEGMENT_BYTES,
            max_in_flight_bytes: DEFAULT_MAX_IN_FLIGHT_BYTES,
            max_poll_bytes: DEFAULT_MAX_POLL_BYTES,
            exactly_once_source: true,
        }
    }
}

/// A topic and the offsets of its partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicInfo {
    /// Topic name.
    pub name: String,
    /// Its partitions, by number.
    pub partitions: Vec<PartitionInfo>,
}

/// The offsets of one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// Partition number.
    pub partition: i32,
    /// The first offset stored.
    pub start_offset: i64,
    /// The offset after the last durable record (the next offset to be written).
    pub end_offset: i64,
}

/// Maps an I/O error to [`TopicError::Io`] with the context "`what` `path`" (formatted only
/// when there is an error).
pub(crate) fn io_error<'a>(
    what: &'a str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> TopicError + 'a {
    move |source| TopicError::Io {
        context: format!("{what} {}", path.display()),
        source,
    }
}

/// Makes the entries of directory `dir` (created, renamed files) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), TopicError> {
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io_error("cannot sync directory", dir))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
/// An embedded durable log in one directory (see the [module documentation](self)). Producers
/// and consumers come from its [`TopicBackend`] implementation.
#[derive(Debug)]
pub struct LocalLog {
    log: Arc<Log>,
}

impl LocalLog {
    /// Opens (creating it if needed) the log in `dir` for writing, with `num_partitions`
    /// partitions for auto-created topics and default options. Recovers the last segment of
    /// every partition (cutting a torn tail) unless the log was closed cleanly. Fails with
    /// [`TopicError::Unavailable`] when another process (or instance) writes the same directory.
    pub fn open(dir: &Path, num_partitions: u32) -> Result<Arc<Self>, TopicError> {
        Self::open_with(dir, LocalLogOptions::new(num_partitions))
    }

    /// [`Self::open`] with explicit options.
    pub fn open_with(dir: &Path, options: LocalLogOptions) -> Result<Arc<Self>, TopicError> {
        Ok(Arc::new(Self {
            log: Arc::new(Log::open_with(dir, options)?),
        }))
    }

    /// Opens the log in `dir` for reading only, without the lock and without repairing anything,
    /// so a tool can look at a log a running worker writes. Only complete, valid records are
    /// read; [`Self::topics`] and [`Self::read`] pick up what was appended since.
    pub fn open_read_only(dir: &Path) -> Result<Arc<Self>, TopicError> {
        Ok(Arc::new(Self {
            log: Arc::new(Log::open_read_only(dir)?),
        }))
    }

    /// The log directory.
    pub fn dir(&self) -> &Path {
        self.log.dir()
    }

    /// Whether this instance was opened with [`Self::open_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.log.is_read_only()
    }

    /// Every topic with its partitions' offsets, sorted by name. (Read-only: after picking up
    /// what was appended since; a failure to do so is logged.)
    pub fn topics(&self) -> Vec<TopicInfo> {
        self.log.topics()
    }

    /// Read-only: each partition whose readable part ends at a damaged record rather than at
    /// the end of its data ([`TopicError::Corrupt`] naming topic, partition, offset, file and
    /// byte); its end offset in [`Self::topics`] is then only where reading stops. Looks at
    /// the last segment of each partition, as [`Self::topics`] does.
    pub fn damaged_partitions(&self) -> Vec<(TopicPartition, TopicError)> {
        self.log.damaged_partitions()
    }

    /// Checks the commit journal of the log in `dir` as a writable open would, without
    /// changing anything.
    ///
    /// # Errors
    /// [`TopicError::Corrupt`] naming the journal and the byte when the next writable open
    /// would refuse it.
    pub fn check_journal(dir: &Path) -> Result<(), TopicError> {
        Log::check_journal(dir)
    }

    /// The offsets committed by consumer group `group` (next offset to read per partition).
    pub fn committed(&self, group: &str) -> Result<PartitionOffsets, TopicError> {
        self.log.committed(group)
    }

    /// Up to `max` durable records of `tp` from offset `from_offset` (from the start when it
    /// is below it). A corrupt record (CRC mismatch, bad frame, missing offsets) is a
    /// [`TopicError::Corrupt`] naming topic, partition, offset, file and byte position, once it
    /// is the first record to read: the records before it are returned by the call before.
    /// Blocking file I/O: meant for tools such as a `topics` command.
    pub fn read(
        &self,
        tp: &TopicPartition,
        from_offset: i64,
        max: usize,
    ) -> Result<Vec<ConsumedRecord>, TopicError> {
        self.log.read(tp, from_offset, max)
    }

    /// A consumer of group `group`, member `member` of `members` (static assignment: of all
    /// partitions of the subscribed topics sorted by (topic, partition), the k-th is read by
    /// member `k % members`). The concrete type behind [`TopicBackend::consumer`].
    pub fn consumer(&self, group: &str, member: usize, members: usize) -> LocalConsumer {
        LocalConsumer::new(self.log.clone(), group, member, members)
    }

    /// Whether batches and their source offsets are committed together (the commit journal,
    /// `embedded.log.exactly.once.source`).
    pub fn exactly_once_source(&self) -> bool {
        self.log.options.exactly_once_source && !self.log.read_only
    }

    /// The source offset of `partition` of `connector` committed in the commit journal, if it
    /// holds one (newer than, or equal to, the offset flushed to the offsets file or topic).
    pub fn committed_source_offset(
        &self,
        connector: &str,
        partition: &connect_api::OffsetMap,
    ) -> Option<connect_api::OffsetMap> {
        self.log
            .source_offsets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&journal::offset_key(connector, partition))
            .map(|(_, offset)| offset.clone())
    }

    /// Every (connector, source partition, source offset) committed in the commit journal.
    pub fn committed_source_offsets(
        &self,
    ) -> Vec<(String, connect_api::OffsetMap, connect_api::OffsetMap)> {
        self.log
            .source_offsets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|((connector, _), (partition, offset))| {
                (connector.clone(), partition.clone(), offset.clone())
            })
            .collect()
    }

    /// Commits source offsets of `connector` to the commit journal without records (offsets
    /// altered or reset over the REST API), durably when this returns.
    ///
    /// # Errors
    /// When the log has no commit journal, is closed or cannot write.
    pub async fn commit_source_offsets(
        &self,
        offsets: super::SourceOffsets,
    ) -> Result<(), TopicError> {
        LocalProducer::new(self.log.clone())
            .send_batch_with_offsets(Vec::new(), offsets)
            .await?
            .await
    }

    /// Stops accepting batches, waits until everything queued before is durable, stops the
    /// writer, records a clean-shutdown checkpoint (so the next open need not scan) and
    /// releases the directory lock. Later sends fail with `Unavailable`. Dropping the log
    /// without closing it lets the writer finish what is queued and release the lock itself.
    pub async fn close(&self) {
        self.log.close().await;
    }
}

impl TopicBackend for LocalLog {
    fn producer(&self, _spec: &ClientSpec) -> Result<Arc<dyn TopicProducer>, TopicError> {
        Ok(Arc::new(LocalProducer::new(self.log.clone())))
    }

    fn consumer(
        &self,
        _spec: &ClientSpec,
        group: &str,
        member: usize,
        members: usize,
    ) -> Result<Box<dyn TopicConsumer>, TopicError> {
        Ok(Box::new(LocalLog::consumer(self, group, member, members)))
    }

    fn group_offsets(&self, group: &str) -> Result<PartitionOffsets, TopicError> {
        Ok(self.log.committed(group)?.into_iter().collect())
    }

    fn alter_group_offsets(
        &self,
        group: &str,
        changes: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), TopicError> {
        self.log.alter_group_offsets(group, changes)
    }

    fn delete_group(&self, group: &str) -> Result<(), TopicError> {
        self.log.delete_group(group)
    }
}

#[cfg(test)]
mod crash_tests;
#[cfg(test)]
mod tests;
