//! The shared state of an open log: its topics, the queue to the writer, consumer groups.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError, RwLock};

use tokio::sync::{oneshot, watch, Semaphore};

use super::checkpoint::{self, Checkpoint};
use super::group_offsets::{GroupOffsets, GROUPS_DIR};
use super::journal::{self, CommittedOffsets, Journal, JournalState};
use super::partition::Partition;
use super::reader::Cursor;
use super::writer::{self, Command};
use super::{io_error, sync_dir, LocalLogOptions, PartitionInfo, TopicInfo, LOCK_FILE};
use crate::topics::{ConsumedRecord, PartitionOffsets, TopicError, TopicPartition};

/// A topic of the log.
#[derive(Debug)]
pub(crate) struct Topic {
    pub(crate) name: String,
    pub(crate) partitions: Vec<Arc<Partition>>,
    /// Spreads null-key batches over the partitions.
    pub(crate) round_robin: AtomicU32,
}

/// The state of an open log, shared by the [`LocalLog`](super::LocalLog) handle, producers,
/// consumers and the writer thread.
#[derive(Debug)]
pub(crate) struct Log {
    pub(crate) dir: PathBuf,
    pub(crate) options: LocalLogOptions,
    pub(crate) read_only: bool,
    pub(crate) topics: RwLock<BTreeMap<String, Arc<Topic>>>,
    /// Serializes topic creation.
    pub(crate) create: Mutex<()>,
    /// Bumped whenever a topic appears.
    pub(crate) topics_generation: AtomicU64,
    /// Bumped whenever records became durable or a topic appeared.
    pub(crate) changes: Arc<watch::Sender<u64>>,
    pub(crate) groups: GroupOffsets,
    /// Queue to the writer thread; `None` once closed (or read-only). Held while offsets are
    /// reserved so batches reach the writer in offset order.
    pub(crate) enqueue: Mutex<Option<mpsc::Sender<Command>>>,
    pub(crate) in_flight: Arc<Semaphore>,
    /// Why the writer stopped accepting batches, after an I/O failure.
    pub(crate) poisoned: Arc<Mutex<Option<String>>>,
    /// The source offsets committed in the commit journal (kept current by the writer).
    pub(crate) source_offsets: Arc<Mutex<CommittedOffsets>>,
}

/// Checks a topic name as Kafka does: 1 to 249 of `[A-Za-z0-9._-]`, neither `.` nor `..`.
fn validate_topic_name(name: &str) -> Result<(), TopicError> {
    let legal = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-');
    if name.is_empty() || name.len() > 249 || !legal || name == "." || name == ".." {
        return Err(TopicError::Other(format!(
            "invalid topic name {name:?}: use 1 to 249 of the characters [A-Za-z0-9._-]"
        )));
    }
    Ok(())
}

/// The topics present in `dir`, with the highest partition number found for each.
fn list_topic_dirs(dir: &Path) -> Result<BTreeMap<String, u32>, TopicError> {
    let mut topics = BTreeMap::new();
    let entries = fs::read_dir(dir).map_err(io_error("cannot list", dir))?;
    for entry in entries {
        let entry = entry.map_err(io_error("cannot list", dir))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name == GROUPS_DIR || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Some((topic, partition)) = name.rsplit_once('-') else {
            continue;
        };
        if partition.is_empty()
            || !partition.bytes().all(|b| b.is_ascii_digit())
            || validate_topic_name(topic).is_err()
        {
            continue;
        }
        let Ok(partition) = partition.parse::<u32>() else {
            continue;
        };
        if partition >= i32::MAX as u32 {
            continue;
        }
        let max = topics.entry(topic.to_string()).or_insert(0);
        *max = (*max).max(partition);
    }
    Ok(topics)
}

/// Takes the lock of the log in `dir` (held while the returned file is open) and makes what
/// the log holds private to the worker's user ([`crate::fs_private`]).
///
/// # Errors
/// [`TopicError::Unsafe`] when other users can write `dir` (nothing is written then),
/// [`TopicError::Unavailable`] when another process holds the lock.
pub(crate) fn lock_dir(dir: &Path) -> Result<File, TopicError> {
    crate::fs_private::check_data_dir(dir)?;
    let lock_path = dir.join(LOCK_FILE);
    let lock = crate::fs_private::open_options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io_error("cannot open", &lock_path))?;
    match lock.try_lock() {
        Ok(()) => {
            crate::fs_private::restrict_tree(dir).map_err(|(path, e)| {
                io_error(
                    "cannot make private to the worker's user (chmod go-rwx)",
                    &path,
                )(e)
            })?;
            Ok(lock)
        }
        Err(fs::TryLockError::WouldBlock) => Err(TopicError::Unavailable(format!(
            "the embedded log {} is in use by another process (lock {} is held)",
            dir.display(),
            lock_path.display()
        ))),
        Err(fs::TryLockError::Error(e)) => Err(io_error("cannot lock", &lock_path)(e)),
    }
}

impl Log {
    /// Opens the log in `dir` for writing: lock, recovery, writer thread.
    pub(crate) fn open_with(dir: &Path, options: LocalLogOptions) -> Result<Self, TopicError> {
        crate::fs_private::create_dir_all(dir).map_err(|e| {
            io_error("cannot create the log directory", dir)(crate::fs_hint::explain_dir_error(
                dir, e,
            ))
        })?;
        let lock = lock_dir(dir)?;
        let clean = checkpoint::read(dir);
        let recovered = if options.exactly_once_source {
            let recovered = journal::read(dir)?;
            if let Some(r) = &recovered {
                Self::judge_journal_damage(dir, r, &clean)?;
            }
            recovered
        } else {
            // Stale once records are appended without it: never to be trusted again.
            journal::remove(dir)?;
            None
        };
        let (log, recovered) = Self::recover(dir, options, &clean, recovered)?;
        log.fit_group_offsets()?;
        // Durably gone before anything is appended: a stale checkpoint must never be trusted.
        checkpoint::remove(dir)?;
        let journal = if log.options.exactly_once_source {
            let mut state = JournalState::default();
            for partition in log.partitions() {
                state.ends.insert(partition.name(), partition.end());
            }
            Some(Journal::open(
                dir,
                recovered,
                state,
                log.source_offsets.clone(),
            )?)
        } else {
            None
        };
        let (tx, rx) = mpsc::channel();
        writer::spawn(
            rx,
            log.options.segment_bytes,
            log.changes.clone(),
            log.poisoned.clone(),
            Some(lock),
            journal,
        )
        .map_err(io_error("cannot start the writer of", dir))?;
        *log.enqueue.lock().unwrap_or_else(PoisonError::into_inner) = Some(tx);
        Ok(log)
    }

    /// Loads the topics, each partition cut back to the end the commit journal records. The
    /// journal's last entry counts only when the data it names is on disk (it was fsynced
    /// together with it); otherwise the log is loaded again without it.
    fn recover(
        dir: &Path,
        options: LocalLogOptions,
        clean: &Checkpoint,
        recovered: Option<journal::Recovered>,
    ) -> Result<(Self, Option<journal::Recovered>), TopicError> {
        let Some(mut r) = recovered else {
            return Ok((Self::load(dir, options, false, clean, None)?, None));
        };
        let log = Self::load(
            dir,
            options.clone(),
            false,
            clean,
            Some(&r.ends_with_last()),
        )?;
        let log = match log.short_of_last_entry(&r, clean) {
            None => {
                r.accept_last();
                log
            }
            Some((name, end)) => {
                tracing::warn!(
                    partition = %name,
                    journaled = end,
                    end = log.partition_end(&name).unwrap_or(0),
                    "the last commit journal entry's records did not all reach the disk before the crash; dropping it (its batches were never acknowledged)"
                );
                drop(log);
                r.reject_last();
                Self::load(dir, options, false, clean, Some(&r.state.ends))?
            }
        };
        for (name, end) in &r.state.ends {
            let have = log.partition_end(name).unwrap_or(0);
            if have < *end {
                tracing::warn!(partition = %name, committed = end, end = have, "the commit journal records more records than the partition holds: records acknowledged before were lost (a disk or file system that did not keep fsynced data?)");
            }
        }
        Ok((log, Some(r)))
    }

    /// The partition (and the end the entry records) that holds fewer records than the
    /// journal's last entry says: then the crash came before that round was durable. None after
    /// a clean close (everything was durable); a partition that is gone altogether (its
    /// directory removed by hand) says nothing about the last round.
    pub(super) fn short_of_last_entry(
        &self,
        r: &journal::Recovered,
        clean: &Checkpoint,
    ) -> Option<(String, i64)> {
        r.last_ends().filter(|_| clean.is_empty()).and_then(|ends| {
            ends.iter()
                .find(|(name, end)| self.partition_end(name).is_some_and(|e| e < **end))
                .map(|(name, end)| (name.clone(), *end))
        })
    }

    /// Judges damage the journal read found, before anything is changed. Damage that cannot be
    /// a write a crash interrupted stops the open. Damage that may be one (the last entry) is
    /// cut at open only when no partition holds a record beyond the ends the entries before it
    /// record (looked at read-only): a damaged journal must never make the open cut records
    /// that pass their CRC check, which might have been acknowledged.
    ///
    /// # Errors
    /// [`TopicError::Corrupt`] naming the journal, the byte and what cutting would remove.
    fn judge_journal_damage(
        dir: &Path,
        r: &journal::Recovered,
        clean: &Checkpoint,
    ) -> Result<(), TopicError> {
        let Some(damage) = &r.damage else {
            return Ok(());
        };
        if !damage.may_be_torn {
            return Err(damage.error(""));
        }
        let view = Self::load(dir, LocalLogOptions::new(1), true, &Checkpoint::new(), None)?;
        let ends = match view.short_of_last_entry(r, clean) {
            None => r.ends_with_last(),
            Some(_) => r.state.ends.clone(),
        };
        for partition in view.partitions() {
            let name = partition.name();
            let committed = ends.get(&name).copied().unwrap_or(0);
            if partition.end() > committed {
                return Err(damage.error(&format!(
                    "; opening the log would cut records that pass their CRC check: partition {name} holds records up to offset {}, the entries before the damage record its end as {committed}",
                    partition.end()
                )));
            }
        }
        tracing::warn!(
            path = %damage.path.display(),
            byte = damage.pos,
            reason = %damage.reason,
            "the last commit journal entry is damaged, and no partition holds records beyond the entries before it: the entry of a round a machine crash interrupted (never acknowledged); cutting it"
        );
        Ok(())
    }

    /// The end of partition `name` (`<topic>-<partition>`), when there is such a partition.
    fn partition_end(&self, name: &str) -> Option<i64> {
        let (topic, p) = name.rsplit_once('-')?;
        let p = p.parse::<usize>().ok()?;
        self.topic(topic)
            .and_then(|t| t.partitions.get(p).map(|p| p.end()))
    }

    /// Moves committed offsets that lie beyond the end of their partition (records lost: a
    /// torn tail cut at open, a truncated segment, a removed topic) back to the end, with a
    /// warning giving the count, before anything is appended: otherwise the group would skip the
    /// new records that take those offsets again (or, as Kafka's `auto.offset.reset=earliest`
    /// does, re-read the whole partition).
    fn fit_group_offsets(&self) -> Result<(), TopicError> {
        for (group, offsets) in self.groups.all()? {
            let mut changes = Vec::new();
            for (tp, committed) in offsets {
                let end = self
                    .topic(&tp.topic)
                    .and_then(|t| {
                        let p = usize::try_from(tp.partition).ok()?;
                        t.partitions.get(p).map(|p| p.end())
                    })
                    .unwrap_or(0);
                if committed > end {
                    tracing::warn!(
                        "Consumer group {group} committed offset {committed} of {}-{}, but the log ends at {end}: {} offsets are missing (cut at open or truncated); the group resumes at {end}, the end of the log, instead of reading the partition again.",
                        tp.topic, tp.partition, committed - end
                    );
                    changes.push((tp, Some(end)));
                }
            }
            if !changes.is_empty() {
                self.groups.alter(&group, &changes)?;
            }
        }
        Ok(())
    }

    /// Opens the log in `dir` for reading only: no lock, no repair.
    pub(crate) fn open_read_only(dir: &Path) -> Result<Self, TopicError> {
        if let Some(file) = crate::fs_hint::file_in_the_way(dir) {
            return Err(TopicError::Unavailable(format!(
                "{} is a file, not a directory",
                file.display()
            )));
        }
        if !dir.is_dir() {
            return Err(TopicError::Unavailable(format!(
                "no embedded log directory {}",
                dir.display()
            )));
        }
        Self::load(dir, LocalLogOptions::new(1), true, &Checkpoint::new(), None)
    }

    /// Every partition of every topic.
    pub(crate) fn partitions(&self) -> Vec<Arc<Partition>> {
        self.topics
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .flat_map(|t| t.partitions.iter().cloned())
            .collect()
    }

    pub(super) fn load(
        dir: &Path,
        options: LocalLogOptions,
        read_only: bool,
        clean: &Checkpoint,
        committed: Option<&BTreeMap<String, i64>>,
    ) -> Result<Self, TopicError> {
        let log = Self {
            dir: dir.to_path_buf(),
            read_only,
            topics: RwLock::new(BTreeMap::new()),
            create: Mutex::new(()),
            topics_generation: AtomicU64::new(0),
            changes: Arc::new(watch::channel(0).0),
            groups: GroupOffsets::new(dir, read_only),
            enqueue: Mutex::new(None),
            in_flight: Arc::new(Semaphore::new(
                options.max_in_flight_bytes.clamp(1, u32::MAX as usize),
            )),
            poisoned: Arc::new(Mutex::new(None)),
            source_offsets: Arc::default(),
            options,
        };
        log.load_topics(clean, committed)?;
        Ok(log)
    }

    /// Read-only: loads new topics and picks up appends to known ones.
    pub(crate) fn refresh_topics(&self) -> Result<(), TopicError> {
        self.load_topics(&Checkpoint::new(), None)
    }

    /// Loads topics not known yet (all of them at open) and, read-only, refreshes known ones.
    /// `committed`: the partition ends the commit journal records (a partition it does not
    /// name was created after it and has no committed record).
    fn load_topics(
        &self,
        clean: &Checkpoint,
        committed: Option<&BTreeMap<String, i64>>,
    ) -> Result<(), TopicError> {
        let found = list_topic_dirs(&self.dir)?;
        let mut added = false;
        for (name, max) in found {
            if let Some(topic) = self.topic(&name) {
                if self.read_only {
                    for partition in &topic.partitions {
                        partition.refresh()?;
                    }
                }
                continue;
            }
            let mut partitions = Vec::with_capacity(max as usize + 1);
            for p in 0..=max {
                let dir_name = format!("{name}-{p}");
                let hint = clean.get(&dir_name).copied();
                let end = committed.map(|ends| ends.get(&dir_name).copied().unwrap_or(0));
                partitions.push(Arc::new(Partition::open(
                    self.dir.join(dir_name),
                    &name,
                    p as i32,
                    self.read_only,
                    hint,
                    end,
                )?));
            }
            let topic = Arc::new(Topic {
                name: name.clone(),
                partitions,
                round_robin: AtomicU32::new(0),
            });
            self.topics
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(name, topic);
            added = true;
        }
        if added {
            self.topics_generation.fetch_add(1, Ordering::SeqCst);
            self.changes.send_modify(|v| *v = v.wrapping_add(1));
        }
        Ok(())
    }

    /// The log directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether this instance was opened with [`Self::open_read_only`].
    pub(crate) fn is_read_only(&self) -> bool {
        self.read_only
    }

    pub(crate) fn topic(&self, name: &str) -> Option<Arc<Topic>> {
        self.topics
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    pub(crate) fn topic_names(&self) -> Vec<String> {
        self.topics
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    pub(crate) fn topics_generation(&self) -> u64 {
        self.topics_generation.load(Ordering::SeqCst)
    }

    pub(crate) fn subscribe_changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The topic `name`, created with the configured partition count when absent (writable).
    pub(crate) fn ensure_topic(&self, name: &str) -> Result<Arc<Topic>, TopicError> {
        let count = self.options.num_partitions;
        Ok(self.ensure_topic_with(name, count, |_| Ok(()))?.0)
    }

    /// The topic `name`, created with `count` partitions when absent (writable), and whether it
    /// was created; `before_create` runs (under the creation lock) before its partitions exist.
    pub(crate) fn ensure_topic_with(
        &self,
        name: &str,
        count: u32,
        before_create: impl FnOnce(u32) -> Result<(), TopicError>,
    ) -> Result<(Arc<Topic>, bool), TopicError> {
        if let Some(topic) = self.topic(name) {
            return Ok((topic, false));
        }
        if self.read_only {
            self.refresh_topics()?;
            let topic = self.topic(name).ok_or_else(|| {
                TopicError::Other(format!("no topic {name} in {}", self.dir.display()))
            })?;
            return Ok((topic, false));
        }
        validate_topic_name(name)?;
        let _creating = self.create.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(topic) = self.topic(name) {
            return Ok((topic, false));
        }
        let count = count.clamp(1, i32::MAX as u32);
        before_create(count)?;
        // Highest partition first: after a crash half-way the highest number still tells the
        // count, and the next open creates the missing lower ones.
        for p in (0..count).rev() {
            let path = self.dir.join(format!("{name}-{p}"));
            crate::fs_private::create_dir_all(&path).map_err(io_error("cannot create", &path))?;
        }
        sync_dir(&self.dir)?;
        let mut partitions = Vec::with_capacity(count as usize);
        for p in 0..count {
            let path = self.dir.join(format!("{name}-{p}"));
            partitions.push(Arc::new(Partition::open(
                path, name, p as i32, false, None, None,
            )?));
        }
        let topic = Arc::new(Topic {
            name: name.to_string(),
            partitions,
            round_robin: AtomicU32::new(0),
        });
        self.topics
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_string(), topic.clone());
        self.topics_generation.fetch_add(1, Ordering::SeqCst);
        self.changes.send_modify(|v| *v = v.wrapping_add(1));
        tracing::debug!(topic = name, partitions = count, dir = %self.dir.display(), "created topic");
        Ok((topic, true))
    }

    /// Every topic with its partitions' offsets, sorted by name.
    /// (Read-only: after picking up what was appended; a failure to do so is logged and the
    /// offsets known before are returned.)
    pub(crate) fn topics(&self) -> Vec<TopicInfo> {
        if self.read_only {
            if let Err(e) = self.refresh_topics() {
                tracing::warn!(dir = %self.dir.display(), error = %e, "cannot refresh the embedded log");
            }
        }
        let topics = self.topics.read().unwrap_or_else(PoisonError::into_inner);
        topics
            .values()
            .map(|t| TopicInfo {
                name: t.name.clone(),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| PartitionInfo {
                        partition: p.partition,
                        start_offset: p.start(),
                        end_offset: p.end(),
                    })
                    .collect(),
            })
            .collect()
    }

    /// Read-only: every partition whose readable part ends at a damaged record (not at the
    /// end of its data), as the error reading that record gives (topic, partition, offset,
    /// file, byte, reason).
    pub(crate) fn damaged_partitions(&self) -> Vec<(TopicPartition, TopicError)> {
        self.partitions()
            .iter()
            .filter_map(|p| {
                let d = p.damage()?;
                let tp = TopicPartition {
                    topic: p.topic.clone(),
                    partition: p.partition,
                };
                Some((
                    tp,
                    super::reader::corrupt(p, d.offset, &d.path, d.pos, &d.reason),
                ))
            })
            .collect()
    }

    /// Checks the commit journal of the log in `dir` as a writable open would, changing
    /// nothing (a tool's look at a log a worker may be writing).
    ///
    /// # Errors
    /// [`TopicError::Corrupt`] when the next writable open would refuse the journal.
    pub(crate) fn check_journal(dir: &Path) -> Result<(), TopicError> {
        match journal::read(dir)? {
            Some(r) => Self::judge_journal_damage(dir, &r, &checkpoint::read(dir)),
            None => Ok(()),
        }
    }

    /// The offsets committed by consumer group `group` (next offset to read per partition).
    pub(crate) fn committed(&self, group: &str) -> Result<PartitionOffsets, TopicError> {
        self.groups.committed(group)
    }

    /// The sink positions committed by `group` with its offsets.
    pub(crate) fn committed_positions(
        &self,
        group: &str,
    ) -> Result<crate::topics::SinkPositions, TopicError> {
        self.groups.positions(group)
    }

    /// Durably merges `offsets`, with their sink `positions`, into the committed offsets of
    /// `group` (blocking file I/O).
    pub(crate) fn commit_blocking(
        &self,
        group: &str,
        offsets: &PartitionOffsets,
        positions: &crate::topics::SinkPositions,
    ) -> Result<(), TopicError> {
        self.groups.commit(group, offsets, positions)
    }

    /// Sets or removes committed offsets of `group` (blocking file I/O).
    pub(crate) fn alter_group_offsets(
        &self,
        group: &str,
        changes: &[(crate::topics::TopicPartition, Option<i64>)],
    ) -> Result<(), TopicError> {
        self.groups.alter(group, changes)
    }

    /// Removes consumer group `group` and its committed offsets (blocking file I/O).
    pub(crate) fn delete_group(&self, group: &str) -> Result<(), TopicError> {
        self.groups.delete(group)
    }

    /// Up to `max` durable records of `tp` from offset `from_offset` (from the start when it
    /// is below it). A corrupt record is an error once it is the first to read: the records
    /// before it are returned first. Blocking file I/O: meant for tools such as a `topics`
    /// command.
    pub(crate) fn read(
        &self,
        tp: &TopicPartition,
        from_offset: i64,
        max: usize,
    ) -> Result<Vec<ConsumedRecord>, TopicError> {
        if self.read_only {
            self.refresh_topics()?;
        }
        let partition = self
            .topic(&tp.topic)
            .and_then(|t| {
                usize::try_from(tp.partition)
                    .ok()
                    .and_then(|p| t.partitions.get(p).cloned())
            })
            .ok_or_else(|| {
                TopicError::Other(format!(
                    "no partition {} of topic {} in {}",
                    tp.partition,
                    tp.topic,
                    self.dir.display()
                ))
            })?;
        let mut out = Vec::new();
        Cursor::new(from_offset.max(partition.start())).read(
            &partition,
            max,
            usize::MAX,
            &mut out,
        )?;
        Ok(out)
    }

    /// Stops the writer after everything queued is durable, writes the clean-shutdown
    /// checkpoint and releases the lock.
    pub(crate) async fn close(&self) {
        let tx = self
            .enqueue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(tx) = tx else { return };
        let (done, stopped) = oneshot::channel();
        if tx.send(Command::Close { done }).is_err() {
            return;
        }
        if let Ok(Some(lock)) = stopped.await {
            let mut clean = Checkpoint::new();
            let topics: Vec<Arc<Topic>> = self
                .topics
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .values()
                .cloned()
                .collect();
            for partition in topics.iter().flat_map(|t| &t.partitions) {
                if let Some(last) = partition.last_segment() {
                    clean.insert(format!("{}-{}", partition.topic, partition.partition), last);
                }
            }
            let dir = self.dir.clone();
            let written = tokio::task::spawn_blocking(move || checkpoint::write(&dir, clean)).await;
            if let Ok(Err(e)) = written {
                tracing::warn!(error = %e, "no clean-shutdown checkpoint; the next open scans the last segments");
            }
            drop(lock);
        }
    }
}
