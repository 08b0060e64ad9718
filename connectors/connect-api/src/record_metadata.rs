//! Where a source record was written, as its topic acknowledged it (Kafka's
//! `RecordMetadata`, handed to `SourceTask.commitRecord`).

/// Where one source record was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMetadata {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The record's offset in the partition.
    pub offset: i64,
    /// The record's timestamp in epoch milliseconds (`-1` when unknown).
    pub timestamp: i64,
}

/// One polled record's fate for `SourceTask::commit_records`: its number in poll order
/// (counting from 0 over the task instance's life) and where it was written, `None` when it
/// never will be (dropped by a transformation, or skipped by `errors.tolerance`).
pub type RecordCommit = (u64, Option<RecordMetadata>);
