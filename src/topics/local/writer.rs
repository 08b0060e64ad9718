//! The group-commit writer: one thread appends every queued batch, fsyncs each touched
//! partition once, publishes the new durable ends to readers, and only then resolves the
//! batches' deliveries. A pipelining producer thus gets many batches per fsync.
//!
//! With the commit journal (exactly-once sources), the round's new partition ends and the
//! source offsets its batches complete are appended to the journal, which is fsynced while the
//! partitions are, before anything is published or acknowledged (`journal.rs`).
//!
//! After a failed write or fsync the writer refuses everything that follows (what reached the
//! disk is unknown; the next open recovers by CRC).

use std::fs::File;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use tokio::sync::{oneshot, watch, OwnedSemaphorePermit};

use super::journal::{Journal, Pending};
use super::partition::Partition;
use crate::topics::{SourceOffsets, TopicError};

/// Encoded frames of consecutive offsets `first..first + count` of one partition.
pub(crate) struct Chunk {
    pub(crate) partition: Arc<Partition>,
    pub(crate) first: i64,
    pub(crate) count: i64,
    pub(crate) bytes: Vec<u8>,
}

/// What the writer thread is asked to do.
pub(crate) enum Command {
    /// Append a producer batch; `done` resolves once it is durable.
    Write {
        chunks: Vec<Chunk>,
        /// The source offsets the batch completes, committed with it (commit journal only).
        offsets: Option<SourceOffsets>,
        done: oneshot::Sender<Result<(), TopicError>>,
        /// Released once the batch is durable (bounds the bytes in flight).
        permit: OwnedSemaphorePermit,
    },
    /// Finish what is queued before, hand back the directory lock (`None` after a write
    /// failure), and stop.
    Close { done: oneshot::Sender<Option<File>> },
}

/// Starts the writer thread.
pub(crate) fn spawn(
    rx: Receiver<Command>,
    segment_bytes: u64,
    changes: Arc<watch::Sender<u64>>,
    poisoned: Arc<Mutex<Option<String>>>,
    lock: Option<File>,
    journal: Option<Journal>,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("embedded-log-writer".to_string())
        .spawn(move || run(rx, segment_bytes, &changes, &poisoned, lock, journal))
}

struct Write {
    chunks: Vec<Chunk>,
    offsets: Option<SourceOffsets>,
    done: oneshot::Sender<Result<(), TopicError>>,
    _permit: OwnedSemaphorePermit,
}

fn run(
    rx: Receiver<Command>,
    segment_bytes: u64,
    changes: &watch::Sender<u64>,
    poisoned: &Mutex<Option<String>>,
    mut lock: Option<File>,
    mut journal: Option<Journal>,
) {
    let mut failure: Option<String> = None;
    while let Ok(first) = rx.recv() {
        let mut writes = Vec::new();
        let mut close = None;
        let mut command = Some(first);
        while let Some(c) = command.take() {
            match c {
                Command::Write {
                    chunks,
                    offsets,
                    done,
                    permit,
                } => writes.push(Write {
                    chunks,
                    offsets,
                    done,
                    _permit: permit,
                }),
                Command::Close { done } => {
                    close = Some(done);
                    break;
                }
            }
            command = rx.try_recv().ok();
        }
        if !writes.is_empty() {
            let result = match &failure {
                Some(f) => Err(f.clone()),
                None => write_round(&mut writes, segment_bytes, journal.as_mut())
                    .map_err(|e| e.to_string()),
            };
            match result {
                Ok(()) => {
                    changes.send_modify(|v| *v = v.wrapping_add(1));
                    for w in writes {
                        let _ = w.done.send(Ok(()));
                    }
                }
                Err(reason) => {
                    if failure.is_none() {
                        tracing::error!(error = %reason, "the embedded log cannot write; refusing further batches");
                        *poisoned.lock().unwrap_or_else(PoisonError::into_inner) =
                            Some(reason.clone());
                        failure = Some(reason.clone());
                    }
                    for w in writes {
                        let _ = w.done.send(Err(TopicError::Unavailable(format!(
                            "the embedded log failed: {reason}"
                        ))));
                    }
                }
            }
        }
        if let Some(done) = close {
            let lock = lock.take().filter(|_| failure.is_none());
            let _ = done.send(lock);
            return;
        }
    }
}

/// Appends every chunk, fsyncs each touched partition once, commits the round to the journal
/// (when there is one), then publishes the partitions. A chunk's bytes are freed once they are
/// in the file: the fsyncs can take a while, and the page cache holds them meanwhile.
fn write_round(
    writes: &mut [Write],
    segment_bytes: u64,
    journal: Option<&mut Journal>,
) -> Result<(), TopicError> {
    let mut dirty: Vec<Arc<Partition>> = Vec::new();
    for chunk in writes.iter_mut().flat_map(|w| &mut w.chunks) {
        if chunk
            .partition
            .append(chunk.first, chunk.count, &chunk.bytes, segment_bytes)?
        {
            dirty.push(chunk.partition.clone());
        }
        chunk.bytes = Vec::new();
    }
    let sync_partitions = || -> Result<(), TopicError> {
        for partition in &dirty {
            partition.sync()?;
        }
        Ok(())
    };
    let offsets = writes.iter().filter_map(|w| w.offsets.as_ref());
    match journal {
        Some(journal) if !dirty.is_empty() || offsets.clone().next().is_some() => {
            let ends: Vec<(String, i64)> =
                dirty.iter().map(|p| (p.name(), p.written_end())).collect();
            match journal.write(&ends, offsets)? {
                // The journal's fsync (on its own thread) overlaps the partitions' (recovery
                // checks the last entry against the data).
                Pending::Sync => {
                    journal.start_sync()?;
                    let partitions = sync_partitions();
                    // Always collected, so the next round's sync does not see this one's.
                    let journal = journal.wait_sync();
                    partitions.and(journal)?;
                }
                Pending::Rewrite => {
                    sync_partitions()?;
                    journal.rewrite()?;
                }
            }
        }
        _ => sync_partitions()?,
    }
    for partition in &dirty {
        partition.publish();
    }
    Ok(())
}
