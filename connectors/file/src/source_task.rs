//! The FileStream source task: tails a file (or stdin) and emits one record per line.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use connect_api::{
    ConfigMap, ConnectError, ConnectRecord, Headers, InputProgress, OffsetMap, Result, Schema,
    SchemaRef, SchemaType, SourceOffset, SourceRecord, SourceTask, SourceTaskContext, Value,
};
use tokio::net::unix::pipe;
use tokio::task::JoinHandle;

use crate::config::SourceSettings;
use crate::line_reader::{read_into, LineBuffer, DEFAULT_CAPACITY};

/// Key of the source partition map.
pub const FILENAME_FIELD: &str = "filename";
/// Key of the source offset map.
pub const POSITION_FIELD: &str = "position";

/// How long an empty `poll` waits for new data (or for the file to appear) before returning.
const TAIL_WAIT: Duration = Duration::from_millis(200);

/// Something to read lines from: a file or stdin.
type Input = Box<dyn Read + Send + Sync>;

/// What a background read hands back.
struct ReadOutcome {
    input: Input,
    buf: Vec<u8>,
    result: io::Result<usize>,
}

/// The input's state. A read in flight is kept here, so dropping a `poll` future never loses
/// the data it brings.
enum InputState {
    /// Not opened yet (or the file does not exist yet).
    Closed,
    /// Open, no read in flight.
    Ready(Input),
    /// A blocking read runs on the blocking pool.
    Reading(JoinHandle<ReadOutcome>),
    /// A FIFO (named pipe), opened without waiting for a writer and read without blocking a
    /// thread: a FIFO no process writes to must not hold a thread (or the task) forever.
    Fifo(Box<Fifo>),
}

/// An open FIFO and what its reads have shown so far.
struct Fifo {
    /// The FIFO, non-blocking, registered with the reactor: it says when data comes.
    receiver: pipe::Receiver,
    /// The same open FIFO (a duplicate descriptor), read directly: a read tells "no writer"
    /// (end of data) from "no data yet" (`WouldBlock`) even when the reactor reported nothing
    /// (it reports no event before the first writer comes).
    file: File,
    /// Bytes still to skip to reach the committed position (a FIFO cannot seek).
    skip: u64,
    /// Whether any byte was ever read from it.
    had_data: bool,
}

impl Fifo {
    /// One read without blocking. Through the reactor when it reported data, so a
    /// `WouldBlock` clears its readiness (and the next wait really waits); else directly.
    fn read(&self, dest: &mut [u8]) -> io::Result<usize> {
        match self.receiver.try_io(|| (&self.file).read(dest)) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => (&self.file).read(dest),
            other => other,
        }
    }
}

/// What [`open_at`] found.
enum Opened {
    /// A file (regular or not, e.g. a character device), at the position.
    File(File, bool),
    /// A FIFO: opened by the task without blocking.
    Fifo,
}

/// What happened while a `poll` waited.
enum Waited {
    Read(std::result::Result<ReadOutcome, tokio::task::JoinError>),
    TimedOut,
}

/// Kafka's `FileStreamSourceTask`.
///
/// * Source partition `{"filename": <file>}` (`{"filename": null}` for stdin), shared by all
///   records; source offset `{"position": <byte position after the line's terminator>}`
///   (`None` for stdin). Positions are **bytes**, so resuming after multi-byte UTF-8 is exact
///   (Kafka advances by characters but skips bytes on restart).
/// * Value: the line without its terminator as a required `STRING`; invalid UTF-8 is replaced
///   with U+FFFD (as Java's decoder does); key null; timestamp = wall clock.
/// * Terminators `\n`, `\r\n`, lone `\r`; an unterminated last line waits for its terminator.
/// * A missing file is waited for (empty batches); an unreadable one fails with an I/O error.
/// * A FIFO is opened without waiting for a writer and read without blocking: while no
///   process has written to it, the input counts as unavailable (as a missing file); once a
///   writer closes it, the task waits for the next one, as it tails a file.
/// * `poll` is cancel-safe: reads in flight and extracted records are kept in the task.
pub struct FileStreamSourceTask {
    settings: Option<SourceSettings>,
    ctx: Option<SourceTaskContext>,
    partition: Arc<OffsetMap>,
    value_schema: SchemaRef,
    input: InputState,
    /// Whether the input is a regular file (reads never block for long).
    regular_file: bool,
    lines: LineBuffer,
    /// Records extracted but not returned yet (survive a dropped `poll`).
    pending: Vec<SourceRecord>,
    /// Byte position to start reading the file at (from the committed offset).
    start_position: u64,
    missing_logged: bool,
    /// Whether the input is a FIFO that no process has written to yet (it showed end of data
    /// before any byte).
    fifo_without_writer: bool,
    /// Whether the input was opened since `start`.
    opened: bool,
    /// Initial line buffer size.
    read_capacity: usize,
}

impl Default for FileStreamSourceTask {
    fn default() -> Self {
        Self::new()
    }
}

impl FileStreamSourceTask {
    /// A task that is not started yet.
    pub fn new() -> Self {
        Self {
            settings: None,
            ctx: None,
            partition: Arc::new(OffsetMap::new()),
            value_schema: Schema::required(SchemaType::String),
            input: InputState::Closed,
            regular_file: false,
            lines: LineBuffer::new(0, 0),
            pending: Vec::new(),
            start_position: 0,
            missing_logged: false,
            fifo_without_writer: false,
            opened: false,
            read_capacity: DEFAULT_CAPACITY,
        }
    }

    fn name(&self) -> &str {
        self.settings
            .as_ref()
            .and_then(|s| s.filename.as_deref())
            .unwrap_or("stdin")
    }

    /// Moves complete lines from the buffer into `pending`, up to the batch size.
    fn drain(&mut self, settings: &SourceSettings) {
        let room = settings.batch_size.saturating_sub(self.pending.len());
        if room == 0 || self.lines.buffered() == 0 {
            return;
        }
        let tracked = settings.filename.is_some();
        let now = now_ms();
        // One allocation for the batch instead of doubling (each growth moves every record):
        // a line takes at least one byte, so the buffer bounds the count.
        self.pending.reserve(room.min(self.lines.buffered()));
        let mut taken = 0;
        while taken < room {
            let Some((line, position)) = self.lines.next_line() else {
                break;
            };
            let text = match std::str::from_utf8(line) {
                Ok(s) => s.to_owned(),
                Err(_) => String::from_utf8_lossy(line).into_owned(),
            };
            // No map per record: the worker builds one for the offsets it stores.
            let source_offset = tracked.then_some(SourceOffset::Position {
                field: POSITION_FIELD,
                value: position,
            });
            self.pending.push(SourceRecord {
                source_partition: Arc::clone(&self.partition),
                source_offset,
                record: ConnectRecord {
                    topic: settings.topic.clone(),
                    kafka_partition: None,
                    key_schema: None,
                    key: Value::Null,
                    value_schema: Some(Arc::clone(&self.value_schema)),
                    value: Value::String(text),
                    timestamp: Some(now),
                    headers: Headers::new(),
                },
            });
            taken += 1;
        }
    }

    fn take_batch(&mut self, batch_size: usize) -> Vec<SourceRecord> {
        if self.pending.len() <= batch_size {
            std::mem::take(&mut self.pending)
        } else {
            let rest = self.pending.split_off(batch_size);
            std::mem::replace(&mut self.pending, rest)
        }
    }

    /// Opens the input. `Ok(false)` when the file does not exist yet.
    async fn open(&mut self, settings: &SourceSettings) -> Result<bool> {
        let Some(path) = settings.filename.clone() else {
            self.input = InputState::Ready(Box::new(io::stdin()));
            self.opened = true;
            self.regular_file = false;
            self.lines = LineBuffer::new(self.read_capacity, 0);
            return Ok(true);
        };
        let position = self.start_position;
        let opened = tokio::task::spawn_blocking({
            let path = path.clone();
            move || open_at(&path, position)
        })
        .await
        .map_err(|e| ConnectError::Other(format!("Opening file {path} failed: {e}")))?;
        match opened {
            Ok(Opened::File(file, regular)) => {
                tracing::info!(file = %path, position, "FileStreamSourceTask opened file");
                self.input = InputState::Ready(Box::new(file));
                self.regular_file = regular;
                self.lines = LineBuffer::new(self.read_capacity, position);
                self.missing_logged = false;
                self.opened = true;
                Ok(true)
            }
            Ok(Opened::Fifo) => {
                // Opened non-blocking: no waiting for a writer here.
                let opened = pipe::OpenOptions::new()
                    .open_receiver(&path)
                    .and_then(|receiver| {
                        let fd = std::os::fd::AsFd::as_fd(&receiver).try_clone_to_owned()?;
                        Ok((receiver, File::from(fd)))
                    });
                let (receiver, file) = opened.map_err(|e| {
                    ConnectError::io(
                        format!("Couldn't open the FIFO {path} for FileStreamSourceTask"),
                        e,
                    )
                })?;
                tracing::info!(file = %path, position, "FileStreamSourceTask opened FIFO");
                self.input = InputState::Fifo(Box::new(Fifo {
                    receiver,
                    file,
                    skip: position,
                    had_data: false,
                }));
                self.regular_file = false;
                self.lines = LineBuffer::new(self.read_capacity, position);
                self.missing_logged = false;
                self.fifo_without_writer = false;
                self.opened = true;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !self.missing_logged {
                    tracing::info!(
                        "Couldn't find file {path} for FileStreamSourceTask, sleeping to wait \
                         for it to be created"
                    );
                    self.missing_logged = true;
                }
                Ok(false)
            }
            Err(e) => Err(ConnectError::io(
                format!("Couldn't open file {path} for FileStreamSourceTask"),
                e,
            )),
        }
    }

    /// One read of the FIFO input without blocking: `None` when data was read (extract it and
    /// read on), else the batch to hand out after waiting for a writer or for data.
    async fn read_fifo(&mut self, batch_size: usize) -> Result<Option<Vec<SourceRecord>>> {
        let InputState::Fifo(fifo) = &mut self.input else {
            return Ok(None);
        };
        let result = loop {
            let read = if fifo.skip > 0 {
                // Skipping to the committed position: the bytes are read and dropped.
                let len = usize::try_from(fifo.skip)
                    .unwrap_or(usize::MAX)
                    .min(64 * 1024);
                let mut scratch = vec![0u8; len];
                let read = fifo.read(&mut scratch);
                if let Ok(n) = read {
                    fifo.skip -= n as u64;
                }
                read
            } else {
                let (mut buf, offset) = self.lines.begin_read();
                let read = match buf.get_mut(offset..) {
                    Some(dest) => fifo.read(dest),
                    None => Ok(0),
                };
                self.lines.end_read(buf, *read.as_ref().unwrap_or(&0));
                read
            };
            match read {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match result {
            Ok(0) => {
                // No writer has it open: none came yet, or the last one closed it. Tail, as
                // at the end of a file; a FIFO never written to is an input not available.
                if !fifo.had_data {
                    self.fifo_without_writer = true;
                }
                if self.pending.is_empty() {
                    self.tail_wait().await;
                }
                Ok(Some(self.take_batch(batch_size)))
            }
            Ok(_) => {
                fifo.had_data = true;
                self.fifo_without_writer = false;
                Ok(None)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                // A writer has it open but wrote nothing new: wait for data (readiness, no
                // thread held), the tailing interval at most.
                self.fifo_without_writer = false;
                let cancel = self
                    .ctx
                    .as_ref()
                    .map(|c| c.cancel.clone())
                    .unwrap_or_default();
                let ready = tokio::select! {
                    r = fifo.receiver.readable() => Some(r),
                    _ = cancel.cancelled() => None,
                    _ = tokio::time::sleep(TAIL_WAIT) => None,
                };
                match ready {
                    // Read again: the data (or the writer's leaving) is seen by the read.
                    Some(Ok(())) => Ok(None),
                    Some(Err(e)) => Err(ConnectError::io(
                        format!("Error waiting for data from {}", self.name()),
                        e,
                    )),
                    None => Ok(Some(self.take_batch(batch_size))),
                }
            }
            Err(e) => Err(ConnectError::io(
                format!("Error reading from {}", self.name()),
                e,
            )),
        }
    }

    /// Waits the tailing interval, or less when the task is asked to stop.
    async fn tail_wait(&self) {
        match &self.ctx {
            Some(ctx) => {
                tokio::select! {
                    _ = tokio::time::sleep(TAIL_WAIT) => {}
                    _ = ctx.cancel.cancelled() => {}
                }
            }
            None => tokio::time::sleep(TAIL_WAIT).await,
        }
    }
}

/// Opens `path` and moves to byte `position`; returns the file and whether it is regular, or
/// that `path` is a FIFO (not opened: opening one blocks until a writer comes).
fn open_at(path: &str, position: u64) -> io::Result<Opened> {
    use std::os::unix::fs::FileTypeExt as _;
    if std::fs::metadata(path)?.file_type().is_fifo() {
        return Ok(Opened::Fifo);
    }
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    let regular = meta.is_file();
    if position > 0 {
        if regular {
            if position > meta.len() {
                tracing::warn!(
                    file = path,
                    position,
                    length = meta.len(),
                    "Committed position is beyond the end of the file; waiting for it to grow"
                );
            }
            file.seek(SeekFrom::Start(position))?;
        } else {
            io::copy(&mut (&mut file).take(position), &mut io::sink())?;
        }
    }
    Ok(Opened::File(file, regular))
}

/// Reads the committed position of `partition`: 0 when none.
fn committed_position(ctx: &SourceTaskContext, partition: &OffsetMap, path: &str) -> Result<u64> {
    let Some(offset) = ctx.offsets.offset(partition) else {
        return Ok(0);
    };
    match offset.get(POSITION_FIELD) {
        None | Some(serde_json::Value::Null) => Ok(0),
        Some(v) => v.as_u64().ok_or_else(|| {
            ConnectError::Other(format!(
                "Invalid committed offset for file {path}: \"{POSITION_FIELD}\" must be a \
                 non-negative integer, got {v}"
            ))
        }),
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[async_trait]
impl SourceTask for FileStreamSourceTask {
    async fn start(&mut self, ctx: SourceTaskContext, props: &ConfigMap) -> Result<()> {
        let settings = SourceSettings::parse(props)?;
        let mut partition = OffsetMap::new();
        partition.insert(
            FILENAME_FIELD.to_owned(),
            settings
                .filename
                .clone()
                .map_or(serde_json::Value::Null, serde_json::Value::String),
        );
        self.start_position = match &settings.filename {
            Some(path) => committed_position(&ctx, &partition, path)?,
            None => 0,
        };
        self.partition = Arc::new(partition);
        self.input = InputState::Closed;
        self.pending.clear();
        self.missing_logged = false;
        self.fifo_without_writer = false;
        self.opened = false;
        self.settings = Some(settings);
        self.ctx = Some(ctx);
        Ok(())
    }

    async fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        let Some(settings) = self.settings.clone() else {
            return Err(ConnectError::Other(
                "FileStreamSourceTask polled before start".to_owned(),
            ));
        };
        let batch_size = settings.batch_size;
        loop {
            self.drain(&settings);
            if self.pending.len() >= batch_size {
                return Ok(self.take_batch(batch_size));
            }
            // Reads of stdin or pipes may block: hand out what we have first.
            if !self.pending.is_empty() && !self.regular_file {
                return Ok(self.take_batch(batch_size));
            }
            match &mut self.input {
                InputState::Closed => {
                    if !self.open(&settings).await? {
                        self.tail_wait().await;
                        return Ok(self.take_batch(batch_size));
                    }
                }
                InputState::Ready(_) => {
                    let InputState::Ready(mut input) =
                        std::mem::replace(&mut self.input, InputState::Closed)
                    else {
                        continue;
                    };
                    let (mut buf, offset) = self.lines.begin_read();
                    self.input = InputState::Reading(tokio::task::spawn_blocking(move || {
                        let result = read_into(&mut *input, &mut buf, offset);
                        ReadOutcome { input, buf, result }
                    }));
                }
                InputState::Fifo(_) => {
                    if let Some(batch) = self.read_fifo(batch_size).await? {
                        return Ok(batch);
                    }
                }
                InputState::Reading(handle) => {
                    let waited = match &self.ctx {
                        Some(ctx) => tokio::select! {
                            biased;
                            r = handle => Waited::Read(r),
                            _ = ctx.cancel.cancelled() => Waited::TimedOut,
                            _ = tokio::time::sleep(TAIL_WAIT) => Waited::TimedOut,
                        },
                        None => Waited::Read(handle.await),
                    };
                    let outcome = match waited {
                        // The read stays in flight; the next poll picks it up.
                        Waited::TimedOut => return Ok(self.take_batch(batch_size)),
                        Waited::Read(r) => r.map_err(|e| {
                            self.input = InputState::Closed;
                            ConnectError::Other(format!("Reading {} failed: {e}", self.name()))
                        })?,
                    };
                    let ReadOutcome { input, buf, result } = outcome;
                    self.lines.end_read(buf, *result.as_ref().unwrap_or(&0));
                    self.input = InputState::Ready(input);
                    match result {
                        Ok(0) => {
                            // End of data for now: tail.
                            if self.pending.is_empty() {
                                self.tail_wait().await;
                            }
                            return Ok(self.take_batch(batch_size));
                        }
                        Ok(_) => {}
                        Err(e) => {
                            return Err(ConnectError::io(
                                format!("Error reading from {}", self.name()),
                                e,
                            ))
                        }
                    }
                }
            }
        }
    }

    async fn stop(&mut self) -> Result<()> {
        // A read of stdin in flight cannot be interrupted; it is detached.
        self.input = InputState::Closed;
        self.pending.clear();
        Ok(())
    }

    fn input_unavailable(&self) -> Option<String> {
        if self.fifo_without_writer {
            return Some(format!(
                "the FIFO {} has no writer (nothing was ever written to it)",
                self.name()
            ));
        }
        (!self.opened && self.missing_logged)
            .then(|| format!("the file {} does not exist", self.name()))
    }

    /// A regular file's read position (lines extracted, a batch ahead of the records
    /// acknowledged at most) against its current size.
    fn progress(&self) -> Option<InputProgress> {
        if !self.opened || !self.regular_file {
            return None;
        }
        let path = self.settings.as_ref()?.filename.as_deref()?;
        let total = std::fs::metadata(path).ok()?.len();
        Some(InputProgress {
            done: self.lines.position().min(total),
            total,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::path::Path;

    use connect_api::OffsetReader;

    use super::*;

    /// Committed offsets for one partition.
    struct TestOffsets(Option<(OffsetMap, OffsetMap)>);

    impl OffsetReader for TestOffsets {
        fn offset(&self, partition: &OffsetMap) -> Option<OffsetMap> {
            self.0
                .as_ref()
                .filter(|(p, _)| p == partition)
                .map(|(_, o)| o.clone())
        }
    }

    fn partition_of(path: &Path) -> OffsetMap {
        let mut p = OffsetMap::new();
        p.insert(FILENAME_FIELD.into(), path.to_str().unwrap().into());
        p
    }

    fn position(n: serde_json::Value) -> OffsetMap {
        let mut o = OffsetMap::new();
        o.insert(POSITION_FIELD.into(), n);
        o
    }

    fn context(offsets: Option<(OffsetMap, OffsetMap)>) -> SourceTaskContext {
        SourceTaskContext {
            connector: "file-source".into(),
            task: 0,
            offsets: Arc::new(TestOffsets(offsets)),
            cancel: Default::default(),
        }
    }

    fn props(file: Option<&Path>, batch: usize) -> ConfigMap {
        let mut props = ConfigMap::new();
        props.insert("topic".into(), "lines".into());
        props.insert("batch.size".into(), batch.to_string());
        if let Some(f) = file {
            props.insert("file".into(), f.to_str().unwrap().into());
        }
        props
    }

    async fn started(
        file: &Path,
        batch: usize,
        offsets: Option<(OffsetMap, OffsetMap)>,
    ) -> FileStreamSourceTask {
        let mut task = FileStreamSourceTask::new();
        task.start(context(offsets), &props(Some(file), batch))
            .await
            .unwrap();
        task
    }

    /// Polls until `n` records arrived (bounded).
    async fn poll_n(task: &mut FileStreamSourceTask, n: usize) -> Vec<SourceRecord> {
        let mut out = Vec::new();
        for _ in 0..200 {
            if out.len() >= n {
                break;
            }
            out.extend(task.poll().await.unwrap());
        }
        assert_eq!(out.len(), n, "records received");
        out
    }

    fn lines_and_positions(records: &[SourceRecord]) -> Vec<(String, u64)> {
        records
            .iter()
            .map(|r| {
                let pos = r.source_offset.as_ref().unwrap().get(POSITION_FIELD);
                let pos = pos.and_then(|p| p.as_u64()).unwrap();
                (r.record.value.as_str().unwrap().to_owned(), pos)
            })
            .collect()
    }

    fn append(path: &Path, data: &[u8]) {
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(data).unwrap();
    }

    use std::fs::OpenOptions;

    #[tokio::test]
    async fn lines_with_all_terminators_and_record_shape() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        std::fs::write(&path, b"a\nb\r\nc\rd\r\n\ne").unwrap();
        let mut task = started(&path, 100, None).await;
        let records = poll_n(&mut task, 5).await;
        assert_eq!(
            lines_and_positions(&records),
            [
                ("a".into(), 2),
                ("b".into(), 5),
                ("c".into(), 7),
                ("d".into(), 10),
                (String::new(), 11)
            ]
        );
        let r = &records[0];
        assert_eq!(*r.source_partition, partition_of(&path));
        assert!(Arc::ptr_eq(
            &r.source_partition,
            &records[4].source_partition
        ));
        assert_eq!(r.record.topic, "lines");
        assert_eq!(r.record.key, Value::Null);
        assert!(r.record.key_schema.is_none());
        assert_eq!(r.record.kafka_partition, None);
        let schema = r.record.value_schema.as_ref().unwrap();
        assert_eq!(schema.schema_type, SchemaType::String);
        assert!(!schema.optional);
        assert!(r.record.timestamp.unwrap() > 1_600_000_000_000);
        // The unterminated "e" is not emitted.
        assert!(task.poll().await.unwrap().is_empty());
        append(&path, b"\n");
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 1).await),
            [("e".into(), 13)]
        );
        task.stop().await.unwrap();
    }

    #[tokio::test]
    async fn progress_is_the_read_position_against_the_file_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        std::fs::write(&path, b"a\nbb\nccc").unwrap();
        let mut task = started(&path, 100, None).await;
        assert_eq!(task.progress(), None, "not opened yet");
        poll_n(&mut task, 2).await;
        assert_eq!(task.progress(), Some(InputProgress { done: 5, total: 8 }));
        append(&path, b"\n");
        poll_n(&mut task, 1).await;
        assert_eq!(task.progress(), Some(InputProgress { done: 9, total: 9 }));
    }

    #[tokio::test]
    async fn trailing_cr_then_lf_later_is_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        std::fs::write(&path, b"x\r").unwrap();
        let mut task = started(&path, 100, None).await;
        assert!(task.poll().await.unwrap().is_empty());
        append(&path, b"\ny\n");
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 2).await),
            [("x".into(), 3), ("y".into(), 5)]
        );
        assert!(task.poll().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn utf8_byte_positions_and_resume_from_committed_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        let text = "héllo\r\nwörld\n日本語\n🦀\n";
        std::fs::write(&path, text).unwrap();
        let mut task = started(&path, 100, None).await;
        let all = lines_and_positions(&poll_n(&mut task, 4).await);
        assert_eq!(
            all,
            [
                ("héllo".into(), 8),
                ("wörld".into(), 15),
                ("日本語".into(), 25),
                ("🦀".into(), 30)
            ]
        );
        assert_eq!(all[3].1, text.len() as u64);
        task.stop().await.unwrap();

        // Resume after the first line: exactly the remaining lines.
        let committed = Some((partition_of(&path), position(8.into())));
        let mut task = started(&path, 100, committed).await;
        assert_eq!(lines_and_positions(&poll_n(&mut task, 3).await), all[1..]);
        assert!(task.poll().await.unwrap().is_empty());

        // Resume at the end: nothing until new data.
        let committed = Some((partition_of(&path), position(30.into())));
        let mut task = started(&path, 100, committed).await;
        assert!(task.poll().await.unwrap().is_empty());
        append(&path, "ñ\n".as_bytes());
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 1).await),
            [("ñ".into(), 33)]
        );
    }

    #[tokio::test]
    async fn invalid_committed_position_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        for bad in [
            serde_json::json!(-1),
            serde_json::json!("12"),
            serde_json::json!(1.5),
        ] {
            let mut task = FileStreamSourceTask::new();
            let err = task
                .start(
                    context(Some((partition_of(&path), position(bad.clone())))),
                    &props(Some(&path), 10),
                )
                .await
                .unwrap_err()
                .to_string();
            assert!(err.contains("non-negative integer"), "{err}");
            assert!(err.contains(path.to_str().unwrap()), "{err}");
        }
    }

    #[tokio::test]
    async fn invalid_utf8_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        std::fs::write(&path, b"a\xffb\nok\n").unwrap();
        let mut task = started(&path, 100, None).await;
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 2).await),
            [("a\u{fffd}b".into(), 4), ("ok".into(), 7)]
        );
    }

    #[tokio::test]
    async fn huge_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        let mut data = vec![b'a'; DEFAULT_CAPACITY];
        data.push(b'\n');
        data.extend(std::iter::repeat_n(b'b', 3 * DEFAULT_CAPACITY + 5));
        data.extend_from_slice(b"\r\nend\n");
        std::fs::write(&path, &data).unwrap();
        let mut task = started(&path, 100, None).await;
        let records = poll_n(&mut task, 3).await;
        let got = lines_and_positions(&records);
        assert_eq!(got[0].0.len(), DEFAULT_CAPACITY);
        assert!(got[0].0.bytes().all(|b| b == b'a'));
        assert_eq!(got[0].1, DEFAULT_CAPACITY as u64 + 1);
        assert_eq!(got[1].0.len(), 3 * DEFAULT_CAPACITY + 5);
        assert!(got[1].0.bytes().all(|b| b == b'b'));
        assert_eq!(got[2], ("end".into(), data.len() as u64));
    }

    #[tokio::test]
    async fn batch_size_is_respected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        let text: String = (0..10).map(|i| format!("line{i}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        let mut task = started(&path, 3, None).await;
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        for _ in 0..50 {
            let batch = task.poll().await.unwrap();
            assert!(batch.len() <= 3);
            if !batch.is_empty() {
                sizes.push(batch.len());
                all.extend(batch);
            }
            if all.len() == 10 {
                break;
            }
        }
        assert_eq!(sizes, [3, 3, 3, 1]);
        let values: Vec<_> = all
            .iter()
            .map(|r| r.record.value.as_str().unwrap())
            .collect();
        let expect: Vec<_> = (0..10).map(|i| format!("line{i}")).collect();
        assert_eq!(values, expect);
    }

    #[tokio::test]
    async fn appended_data_is_tailed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        std::fs::write(&path, b"one\n").unwrap();
        let mut task = started(&path, 100, None).await;
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 1).await),
            [("one".into(), 4)]
        );
        assert!(task.poll().await.unwrap().is_empty());
        append(&path, b"tw");
        assert!(task.poll().await.unwrap().is_empty());
        append(&path, b"o\nthree\n");
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 2).await),
            [("two".into(), 8), ("three".into(), 14)]
        );
    }

    #[tokio::test]
    async fn missing_file_is_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("later.txt");
        let mut task = started(&path, 100, None).await;
        assert_eq!(task.input_unavailable(), None, "not tried yet");
        assert!(task.poll().await.unwrap().is_empty());
        assert!(task.poll().await.unwrap().is_empty());
        let reason = task.input_unavailable().unwrap_or_default();
        assert!(reason.contains("later.txt does not exist"), "{reason}");
        std::fs::write(&path, b"hello\n").unwrap();
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 1).await),
            [("hello".into(), 6)]
        );
        assert_eq!(task.input_unavailable(), None);
    }

    /// A FIFO at `path` (made with `mkfifo`).
    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Opens the FIFO for writing (a reader has it open, so this does not block).
    fn fifo_writer(path: &Path) -> File {
        OpenOptions::new().write(true).open(path).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fifo_without_writer_never_blocks_and_is_unavailable_until_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.fifo");
        mkfifo(&path);
        let mut task = started(&path, 100, None).await;
        for _ in 0..2 {
            let polled = tokio::time::timeout(Duration::from_secs(5), task.poll()).await;
            assert!(polled.expect("poll returned").unwrap().is_empty());
        }
        let reason = task.input_unavailable().unwrap_or_default();
        assert!(reason.contains("in.fifo has no writer"), "{reason}");

        // A writer comes: everything it writes is read, to the end.
        let mut writer = fifo_writer(&path);
        writer.write_all(b"a\nbb\n").unwrap();
        drop(writer);
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 2).await),
            [("a".into(), 2), ("bb".into(), 5)]
        );
        assert!(task.poll().await.unwrap().is_empty(), "the writer left");
        assert_eq!(task.input_unavailable(), None);

        // The next writer's lines follow.
        let mut writer = fifo_writer(&path);
        writer.write_all(b"c\n").unwrap();
        drop(writer);
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 1).await),
            [("c".into(), 7)]
        );
        task.stop().await.unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fifo_with_an_idle_writer_waits_for_data_and_stops_promptly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.fifo");
        mkfifo(&path);
        let ctx = context(None);
        let cancel = ctx.cancel.clone();
        let mut task = FileStreamSourceTask::new();
        task.start(ctx, &props(Some(&path), 100)).await.unwrap();
        assert!(task.poll().await.unwrap().is_empty());
        let mut writer = fifo_writer(&path);
        // Open, silent: data is awaited, the input is there.
        assert!(task.poll().await.unwrap().is_empty());
        assert_eq!(task.input_unavailable(), None);
        writer.write_all(b"x\n").unwrap();
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 1).await),
            [("x".into(), 2)]
        );
        // Asked to stop while it waits for data: the poll ends at once.
        cancel.cancel();
        let started = std::time::Instant::now();
        assert!(task.poll().await.unwrap().is_empty());
        assert!(started.elapsed() < TAIL_WAIT, "{:?}", started.elapsed());
        task.stop().await.unwrap();
        drop(writer);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fifo_resumes_past_the_committed_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.fifo");
        mkfifo(&path);
        let committed = Some((partition_of(&path), position(2.into())));
        let mut task = started(&path, 100, committed).await;
        assert!(task.poll().await.unwrap().is_empty());
        let mut writer = fifo_writer(&path);
        writer.write_all(b"a\nb\n").unwrap();
        drop(writer);
        assert_eq!(
            lines_and_positions(&poll_n(&mut task, 1).await),
            [("b".into(), 4)]
        );
    }

    #[tokio::test]
    async fn stdin_mode_partition_and_offset_shape() {
        let mut task = FileStreamSourceTask::new();
        task.start(context(None), &props(None, 10)).await.unwrap();
        // Feed the line buffer directly instead of the process's stdin.
        task.lines = LineBuffer::new(64, 0);
        task.lines.fill_from(&mut &b"from stdin\n"[..]).unwrap();
        let settings = task.settings.clone().unwrap();
        task.drain(&settings);
        let batch = task.take_batch(10);
        assert_eq!(batch.len(), 1);
        let mut expect = OffsetMap::new();
        expect.insert(FILENAME_FIELD.into(), serde_json::Value::Null);
        assert_eq!(*batch[0].source_partition, expect);
        assert_eq!(batch[0].source_offset, None);
        assert_eq!(batch[0].record.value, Value::from("from stdin"));
    }

    #[tokio::test]
    async fn unreadable_path_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut task = started(dir.path(), 100, None).await;
        let err = task.poll().await.unwrap_err();
        assert!(matches!(err, ConnectError::Io { .. }), "{err:?}");
        assert!(
            err.to_string().contains(dir.path().to_str().unwrap()),
            "{err}"
        );

        // Permissions (meaningless when running as root, which may read anything).
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.path().join("secret.txt");
        std::fs::write(&path, b"x\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        if File::open(&path).is_err() {
            let mut task = started(&path, 100, None).await;
            let err = task.poll().await.unwrap_err();
            assert!(matches!(err, ConnectError::Io { .. }), "{err:?}");
            assert!(err.to_string().contains("secret.txt"), "{err}");
        }
    }

    #[tokio::test]
    async fn dropped_polls_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.txt");
        let n = 200_000usize;
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("line number {i}\n"));
        }
        std::fs::write(&path, &text).unwrap();
        let mut task = started(&path, 1000, None).await;
        task.read_capacity = 4096; // many reads, so many polls are dropped mid-read
        let mut got = Vec::with_capacity(n);
        let mut round = 0u32;
        let mut dropped = 0u32;
        while got.len() < n && round < 100_000 {
            round += 1;
            match round % 3 {
                // Dropped after its first poll.
                0 => match tokio::time::timeout(Duration::ZERO, task.poll()).await {
                    Ok(batch) => got.extend(batch.unwrap()),
                    Err(_) => dropped += 1,
                },
                // Dropped when another branch wins.
                1 => {
                    tokio::select! {
                        biased;
                        _ = tokio::task::yield_now() => dropped += 1,
                        batch = task.poll() => got.extend(batch.unwrap()),
                    }
                }
                _ => got.extend(task.poll().await.unwrap()),
            }
        }
        assert_eq!(got.len(), n);
        assert!(dropped > 10, "only {dropped} polls were dropped");
        let mut expect_pos = 0u64;
        for (i, r) in got.iter().enumerate() {
            let line = format!("line number {i}");
            expect_pos += line.len() as u64 + 1;
            assert_eq!(r.record.value.as_str(), Some(line.as_str()));
            assert_eq!(
                r.source_offset.as_ref().unwrap().get(POSITION_FIELD),
                Some(expect_pos.into())
            );
        }
    }
}
