//! The FileStream sink task: appends each record's value, as Java prints it, plus `\n`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::sync::Arc;

use async_trait::async_trait;
use connect_api::connector::PartitionOffsets;
use connect_api::{
    ConfigMap, ConnectError, Result, SinkPositions, SinkRecord, SinkTask, SinkTaskContext,
    TopicPartition,
};
use tokio::task::JoinHandle;

use crate::config::SinkSettings;
use crate::position::{file_id, restore, restore_point, FilePosition, Restore};
use crate::render::write_java_string;

/// Buffered bytes that trigger a background write.
const WRITE_THRESHOLD: usize = 1 << 20;

/// Bytes written since the last sync that start an early background sync (see
/// [`FileStreamSinkTask`]).
const EARLY_SYNC_BYTES: u64 = 4 << 20;

/// Where the output goes.
#[derive(Clone)]
enum Output {
    File(Arc<File>),
    Stdout,
}

/// A background write: hands the (cleared) buffer back with the result.
type WriteJob = JoinHandle<(Vec<u8>, io::Result<()>)>;

/// Kafka's `FileStreamSinkTask`.
///
/// Appends `String.valueOf(record.value())` and `\n` per record to `file` (created if needed,
/// opened for append) or to stdout. `put` renders into a 1 MiB buffer; full buffers are
/// written by one background write at a time (in order), while the next one fills. `flush`
/// writes everything and `sync_data`s the file, so committed offsets never point past durable
/// output. See [`crate::render`] for the value format (BYTES are written raw).
///
/// Every [`EARLY_SYNC_BYTES`] written, a background `sync_data` starts (one at a time, not
/// waited for by `put`), so the disk writes while the job runs and the flush that commits
/// offsets (or ends the task) waits only for what was written since; its outcome is checked
/// before the next one starts and by every flush (a failed sync fails the task: the OS
/// reports a write-back error once).
///
/// With `exactly.once=true` every commit stores the file's length (after the flush) with the
/// offsets, and `open_at` cuts the file back to the committed length before anything is
/// written, so the file holds each record exactly once after any crash (see
/// [`crate::position`]). Unset, `exactly.once` is the runtime's default
/// ([`SinkTaskContext::exact_by_default`]: true on the embedded log) where it applies: a
/// regular (or new) file and `tasks.max=1`.
pub struct FileStreamSinkTask {
    filename: Option<String>,
    /// `exactly.once`.
    exact: bool,
    /// Whether this instance has put records (after that, the file is never cut).
    wrote: bool,
    output: Option<Output>,
    buf: Vec<u8>,
    /// A spare buffer, recycled from the last finished write.
    spare: Vec<u8>,
    /// The write in flight, if any (kept here so a dropped future loses nothing).
    in_flight: Option<WriteJob>,
    /// Bytes handed to writes since the last sync started.
    unsynced: u64,
    /// The early background sync, if one was started and its outcome not taken yet.
    syncing: Option<JoinHandle<io::Result<()>>>,
}

impl Default for FileStreamSinkTask {
    fn default() -> Self {
        Self::new()
    }
}

impl FileStreamSinkTask {
    /// A task that is not started yet.
    pub fn new() -> Self {
        Self {
            filename: None,
            exact: false,
            wrote: false,
            output: None,
            buf: Vec::new(),
            spare: Vec::new(),
            in_flight: None,
            unsynced: 0,
            syncing: None,
        }
    }

    fn name(&self) -> &str {
        self.filename.as_deref().unwrap_or("stdout")
    }

    /// Waits for the write in flight and recycles its buffer.
    async fn finish_write(&mut self) -> Result<()> {
        let Some(handle) = &mut self.in_flight else {
            return Ok(());
        };
        let joined = handle.await;
        self.in_flight = None;
        let (buf, result) = joined
            .map_err(|e| ConnectError::Other(format!("Writing to {} failed: {e}", self.name())))?;
        self.spare = buf;
        result.map_err(|e| ConnectError::io(format!("Error writing to {}", self.name()), e))
    }

    /// Starts writing the buffer in the background (after the previous write); with `sync`,
    /// the file is also synced to disk afterwards.
    async fn submit(&mut self, sync: bool) -> Result<()> {
        self.finish_write().await?;
        let Some(output) = self.output.clone() else {
            return Err(ConnectError::Other(
                "FileStreamSinkTask used before start".to_owned(),
            ));
        };
        let spare = std::mem::take(&mut self.spare);
        let mut data = std::mem::replace(&mut self.buf, spare);
        if self.buf.capacity() < WRITE_THRESHOLD {
            self.buf.reserve(WRITE_THRESHOLD + WRITE_THRESHOLD / 4);
        }
        // The writes before this one are done: an early sync covers them.
        if sync {
            self.unsynced = 0;
        } else {
            if self.unsynced >= EARLY_SYNC_BYTES {
                self.start_early_sync(&output).await?;
            }
            self.unsynced += data.len() as u64;
        }
        self.in_flight = Some(tokio::task::spawn_blocking(move || {
            let result = write_out(&output, &data, sync);
            data.clear();
            (data, result)
        }));
        Ok(())
    }

    /// Starts a background sync of what earlier writes handed to the OS, unless the last one
    /// is still running; a finished one's failure is returned.
    async fn start_early_sync(&mut self, output: &Output) -> Result<()> {
        let Output::File(file) = output else {
            return Ok(());
        };
        if self.syncing.as_ref().is_some_and(|s| !s.is_finished()) {
            return Ok(());
        }
        self.finish_sync().await?;
        let file = file.clone();
        self.syncing = Some(tokio::task::spawn_blocking(move || sync_file(&file)));
        self.unsynced = 0;
        Ok(())
    }

    /// Waits for the early background sync, if any, and returns its outcome.
    async fn finish_sync(&mut self) -> Result<()> {
        let Some(handle) = self.syncing.take() else {
            return Ok(());
        };
        let synced = handle
            .await
            .map_err(|e| ConnectError::Other(format!("Syncing {} failed: {e}", self.name())))?;
        synced.map_err(|e| ConnectError::io(format!("Error syncing {}", self.name()), e))
    }

    async fn flush_all(&mut self) -> Result<()> {
        if self.output.is_none() {
            return Ok(());
        }
        self.finish_sync().await?;
        self.submit(true).await?;
        self.finish_write().await
    }

    /// The output file and its name (exactly-once mode always has one).
    fn file(&self) -> Result<(Arc<File>, String)> {
        match (&self.output, &self.filename) {
            (Some(Output::File(f)), Some(name)) => Ok((f.clone(), name.clone())),
            _ => Err(ConnectError::Other(
                "FileStreamSinkTask: exactly.once needs a started task with a file".to_owned(),
            )),
        }
    }

    /// Cuts the file back to the committed length in `positions` (before anything was put).
    async fn restore(&mut self, positions: &SinkPositions) -> Result<()> {
        let (file, name) = self.file()?;
        let id = file
            .metadata()
            .map(|m| file_id(&m))
            .map_err(|e| ConnectError::io(format!("Could not read the metadata of {name}"), e))?;
        let point = restore_point(&name, id, positions);
        if !point.ignored.is_empty() {
            tracing::warn!(
                file = %name,
                ignored = %point.ignored.join("; "),
                "Committed positions that do not belong to this file were ignored."
            );
        }
        let Some(target) = point.length else {
            if !self.wrote {
                tracing::info!(file = %name, "No committed position for this file; appending to it as it is.");
            }
            return Ok(());
        };
        if point.differing {
            tracing::info!(file = %name, length = target, "Partitions were committed at different lengths; restoring the last (largest) one.");
        }
        let wrote = self.wrote;
        let outcome = tokio::task::spawn_blocking(move || restore_file(&file, target, wrote))
            .await
            .map_err(|e| ConnectError::Other(format!("Restoring {name} failed: {e}")))?
            .map_err(|e| {
                ConnectError::io(
                    format!("Could not restore {name} to its committed length"),
                    e,
                )
            })?;
        match outcome {
            (_, Restore::Keep) => {}
            (current, Restore::Truncate { to }) => tracing::warn!(
                file = %name, committed = to, removed = current - to,
                "Cut {} bytes written after the last commit; their records are delivered again.",
                current - to
            ),
            (current, Restore::Shorter { committed }) => tracing::warn!(
                file = %name, length = current, committed,
                "The file is shorter than the length committed with the offsets ({} bytes missing): it was cut or replaced by someone else, and the output committed before is not restored; appending from its end.",
                committed - current
            ),
        }
        Ok(())
    }
}

/// Restores `file` to `target` bytes when it is longer (and `wrote` is false: output this
/// instance wrote is never cut); returns the length found and the action taken.
fn restore_file(file: &File, target: u64, wrote: bool) -> io::Result<(u64, Restore)> {
    let current = file.metadata()?.len();
    let action = restore(current, target);
    match action {
        Restore::Truncate { to } if !wrote => {
            file.set_len(to)?;
            file.sync_data()?;
            Ok((current, action))
        }
        // After this instance wrote, an older position of a partition assigned later is no
        // reason to cut what it wrote and committed since.
        Restore::Truncate { .. } => Ok((current, Restore::Keep)),
        other => Ok((current, other)),
    }
}

fn write_out(output: &Output, data: &[u8], sync: bool) -> io::Result<()> {
    match output {
        Output::File(file) => {
            let mut f: &File = file;
            if !data.is_empty() {
                f.write_all(data)?;
            }
            if sync {
                sync_file(file)?;
            }
            Ok(())
        }
        Output::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(data)?;
            out.flush()
        }
    }
}

/// `sync_data` of the output; pipes and character devices cannot be synced (`EINVAL`), there
/// is nothing to make durable.
fn sync_file(file: &File) -> io::Result<()> {
    match file.sync_data() {
        Err(e) if e.raw_os_error() == Some(22) => Ok(()),
        other => other,
    }
}

#[async_trait]
impl SinkTask for FileStreamSinkTask {
    async fn start(&mut self, ctx: SinkTaskContext, props: &ConfigMap) -> Result<()> {
        let settings = SinkSettings::parse(props)?;
        let exact = settings.exact(ctx.exact_by_default);
        // The default applies to files only: a FIFO or a device cannot be cut back.
        let by_default = settings.exactly_once.is_none();
        let filename = settings.filename;
        let mut exact_now = exact;
        let output = match &filename {
            Some(path) => {
                let opened = tokio::task::spawn_blocking({
                    let path = path.clone();
                    move || {
                        let path = std::path::Path::new(&path);
                        let exact = exact && !(by_default && is_special(path));
                        let file = if exact {
                            open_exact(path)
                        } else {
                            open_for_append(path)
                        };
                        file.map(|f| (f, exact))
                    }
                })
                .await
                .map_err(|e| ConnectError::Other(format!("Opening {path} failed: {e}")))?;
                let (file, exact) = opened.map_err(|e| {
                    ConnectError::io(
                        format!("Couldn't find or create file '{path}' for FileStreamSinkTask"),
                        e,
                    )
                })?;
                exact_now = exact;
                Output::File(Arc::new(file))
            }
            None => Output::Stdout,
        };
        self.filename = filename;
        self.exact = exact_now;
        self.wrote = false;
        self.output = Some(output);
        self.buf = Vec::with_capacity(WRITE_THRESHOLD + WRITE_THRESHOLD / 4);
        Ok(())
    }

    async fn put(&mut self, records: Vec<SinkRecord>) -> Result<()> {
        if self.output.is_none() {
            return Err(ConnectError::Other(
                "FileStreamSinkTask used before start".to_owned(),
            ));
        }
        self.wrote |= !records.is_empty();
        for record in &records {
            let r = &record.record;
            write_java_string(&r.value, r.value_schema.as_deref(), &mut self.buf);
            self.buf.push(b'\n');
            if self.buf.len() >= WRITE_THRESHOLD {
                self.submit(false).await?;
            }
        }
        // Hand the rest to the OS now (as Kafka's sink does per record), so output appears
        // while the job runs; `flush` makes it durable.
        if !self.buf.is_empty() {
            self.submit(false).await?;
        }
        Ok(())
    }

    async fn flush(&mut self, _offsets: &PartitionOffsets) -> Result<()> {
        self.flush_all().await
    }

    async fn stop(&mut self) -> Result<()> {
        let result = self.flush_all().await;
        self.output = None;
        result
    }

    fn keeps_positions(&self) -> bool {
        self.exact
    }

    async fn open_at(
        &mut self,
        _partitions: &[TopicPartition],
        positions: &SinkPositions,
    ) -> Result<()> {
        if self.exact {
            self.restore(positions).await?;
        }
        Ok(())
    }

    async fn pre_commit_at(
        &mut self,
        offsets: PartitionOffsets,
    ) -> Result<(PartitionOffsets, SinkPositions)> {
        self.flush_all().await?;
        if !self.exact {
            return Ok((offsets, SinkPositions::new()));
        }
        let (file, name) = self.file()?;
        // Everything put is written and synced: the length matches exactly these offsets.
        let metadata = file
            .metadata()
            .map_err(|e| ConnectError::io(format!("Could not read the length of {name}"), e))?;
        let position = FilePosition::new(&name, file_id(&metadata), metadata.len()).encode();
        let positions = offsets
            .keys()
            .map(|tp| (tp.clone(), position.clone()))
            .collect();
        Ok((offsets, positions))
    }
}

/// Whether `path` exists and is not a regular file (a FIFO, a device): output that cannot be
/// cut back to a committed length.
fn is_special(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// Opens the output for exactly-once appending: nothing is cut here (`open_at` restores the
/// committed length; a file without a committed position is someone else's and kept whole),
/// and a file created here has its directory entry synced, so the file a commit describes
/// survives a crash.
fn open_exact(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let existed = path.exists();
    let file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    if !existed {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        File::open(dir)?.sync_all()?;
    }
    Ok(file)
}

/// Opens the output for appending. A last line without its newline can only be the torn tail of
/// a write cut short when an earlier process died (every record is written with its newline,
/// and offsets are committed only after a flush), so it is removed: its records were not
/// committed and are delivered again.
fn open_for_append(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::io::{Read, Seek, SeekFrom};
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        // New file, or a FIFO/device: plain append (a FIFO blocks until a reader comes, as in
        // Kafka Connect).
        return OpenOptions::new().create(true).append(true).open(path);
    }
    let mut file = OpenOptions::new().read(true).append(true).open(path)?;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(file);
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    if last[0] == b'\n' {
        return Ok(file);
    }
    // Find the last newline, reading backwards in chunks.
    let mut end = len;
    let mut keep = 0;
    let mut chunk = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let n = usize::try_from(end - start).unwrap_or(chunk.len());
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk[..n])?;
        if let Some(i) = chunk[..n].iter().rposition(|&b| b == b'\n') {
            keep = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    tracing::warn!(
        file = %path.display(),
        bytes = len - keep,
        "Removing an unterminated last line left by an interrupted write; its records are delivered again."
    );
    file.set_len(keep)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use connect_api::{
        logical, ConnectRecord, Schema, SchemaBuilder, SchemaRef, SchemaType, Struct,
        TimestampType, Value,
    };

    use super::*;

    fn ctx() -> SinkTaskContext {
        SinkTaskContext {
            connector: "file-sink".into(),
            task: 0,
            cancel: Default::default(),
            exact_by_default: false,
            commit_request: Default::default(),
            errant_records: Default::default(),
            consumer: Default::default(),
        }
    }

    fn record(value: Value, schema: Option<SchemaRef>, offset: i64) -> SinkRecord {
        SinkRecord {
            record: ConnectRecord {
                topic: "t".into(),
                kafka_partition: Some(0),
                value,
                value_schema: schema,
                ..Default::default()
            },
            kafka_offset: offset,
            timestamp_type: TimestampType::CreateTime,
        }
    }

    async fn started(path: Option<&std::path::Path>) -> FileStreamSinkTask {
        let mut props = ConfigMap::new();
        if let Some(p) = path {
            props.insert("file".into(), p.to_str().unwrap().into());
        }
        let mut task = FileStreamSinkTask::new();
        task.start(ctx(), &props).await.unwrap();
        task
    }

    #[tokio::test]
    async fn writes_java_string_of_each_value() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, b"existing\n").unwrap();
        let mut task = started(Some(&path)).await;
        let schema = SchemaBuilder::struct_()
            .field("a", Schema::required(SchemaType::Int32))
            .field("b", Schema::required(SchemaType::String))
            .build();
        let st = Struct::new(schema)
            .put("a", 1)
            .unwrap()
            .put("b", "x")
            .unwrap();
        let values = vec![
            record("plain ü".into(), None, 0),
            record(Value::Null, None, 1),
            record(Value::Int64(42), None, 2),
            record(Value::Boolean(false), None, 3),
            record(Value::Float64(1.0), None, 4),
            record(Value::Float64(1.0e10), None, 5),
            record(Value::Float32(2.5), None, 6),
            record(Value::Bytes(vec![0, 0xff, b'z']), None, 7),
            record(Value::Struct(st), None, 8),
            record(
                Value::Map(vec![
                    ("k".into(), Value::Int32(1)),
                    ("k2".into(), "v2".into()),
                ]),
                None,
                9,
            ),
            record(Value::Array(vec!["a".into(), "b".into()]), None, 10),
            record(
                Value::Bytes(vec![0x04, 0xd2]),
                Some(logical::decimal(1).build()),
                11,
            ),
        ];
        task.put(values).await.unwrap();
        task.flush(&PartitionOffsets::new()).await.unwrap();
        let mut expect = b"existing\nplain \xc3\xbc\nnull\n42\nfalse\n1.0\n1.0E10\n2.5\n".to_vec();
        expect.extend_from_slice(b"\x00\xffz\nStruct{a=1,b=x}\n{k=1, k2=v2}\n[a, b]\n123.4\n");
        assert_eq!(std::fs::read(&path).unwrap(), expect);
        task.stop().await.unwrap();
    }

    #[tokio::test]
    async fn a_background_sync_starts_every_few_mebibytes_and_the_flush_takes_its_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut task = started(Some(&path)).await;
        let line = "x".repeat(1023);
        let batch = |from: i64| {
            (from..from + 1024)
                .map(|i| record(line.as_str().into(), None, i))
                .collect::<Vec<_>>()
        };
        // 1 MiB per put: no sync until EARLY_SYNC_BYTES were written.
        let below = EARLY_SYNC_BYTES >> 20;
        for n in 0..below {
            task.put(batch(n as i64 * 1024)).await.unwrap();
            assert!(task.syncing.is_none(), "after {} MiB", n + 1);
        }
        task.put(batch(below as i64 * 1024)).await.unwrap();
        assert!(task.syncing.is_some(), "no background sync started");
        assert_eq!(task.unsynced, 1 << 20, "counting starts again");
        task.flush(&PartitionOffsets::new()).await.unwrap();
        assert!(task.syncing.is_none());
        assert_eq!(task.unsynced, 0);
        let written = std::fs::read(&path).unwrap();
        assert_eq!(written.len() as u64, (below + 1) << 20);
        assert!(written
            .chunks(1024)
            .all(|l| l[..1023] == *line.as_bytes() && l[1023] == b'\n'));
        task.stop().await.unwrap();
    }

    #[tokio::test]
    async fn put_hands_records_to_the_os_without_waiting_for_a_flush() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut task = started(Some(&path)).await;
        assert_eq!(std::fs::read(&path).unwrap(), b"");
        task.put(vec![record("one".into(), None, 0)]).await.unwrap();
        // The next put waits for the previous write: "one" is in the file without a flush.
        task.put(vec![record("two".into(), None, 1)]).await.unwrap();
        assert!(std::fs::read(&path).unwrap().starts_with(b"one\n"));
        task.flush(&PartitionOffsets::new()).await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
        task.put(vec![record("three".into(), None, 2)])
            .await
            .unwrap();
        task.stop().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\nthree\n");
    }

    #[tokio::test]
    async fn many_records_stay_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut task = started(Some(&path)).await;
        let n = 300_000;
        let mut expect = String::new();
        for chunk in 0..10 {
            let batch: Vec<_> = (0..n / 10)
                .map(|i| {
                    let k = chunk * (n / 10) + i;
                    expect.push_str(&format!("record {k}\n"));
                    record(Value::String(format!("record {k}")), None, k as i64)
                })
                .collect();
            task.put(batch).await.unwrap();
        }
        task.flush(&PartitionOffsets::new()).await.unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), expect);
    }

    #[tokio::test]
    async fn stdout_mode_works() {
        let mut task = started(None).await;
        task.put(vec![record("to stdout".into(), None, 0)])
            .await
            .unwrap();
        task.flush(&PartitionOffsets::new()).await.unwrap();
        task.stop().await.unwrap();
    }

    #[tokio::test]
    async fn unwritable_path_fails_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let mut props = ConfigMap::new();
        props.insert("file".into(), dir.path().to_str().unwrap().into());
        let err = FileStreamSinkTask::new()
            .start(ctx(), &props)
            .await
            .unwrap_err();
        assert!(matches!(err, ConnectError::Io { .. }), "{err:?}");
        assert!(
            err.to_string().contains(dir.path().to_str().unwrap()),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_torn_last_line_from_an_interrupted_write_is_removed_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, b"complete\ntor").unwrap();
        let mut task = started(Some(&path)).await;
        task.stop().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"complete\n");
        std::fs::write(&path, b"no newline at all").unwrap();
        let mut task = started(Some(&path)).await;
        task.stop().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"");
    }

    async fn exact(path: &std::path::Path) -> FileStreamSinkTask {
        let mut props = ConfigMap::new();
        props.insert("file".into(), path.to_str().unwrap().into());
        props.insert("exactly.once".into(), "true".into());
        let mut task = FileStreamSinkTask::new();
        task.start(ctx(), &props).await.unwrap();
        assert!(task.keeps_positions());
        task
    }

    fn tp(p: i32) -> TopicPartition {
        TopicPartition {
            topic: "t".into(),
            partition: p,
        }
    }

    fn lines(from: i64, to: i64) -> Vec<SinkRecord> {
        (from..to)
            .map(|i| record(Value::String(format!("line {i}")), None, i))
            .collect()
    }

    #[tokio::test]
    async fn exactly_once_cuts_back_output_written_after_the_last_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, b"kept by the user\n").unwrap();
        let mut task = exact(&path).await;
        task.open_at(&[tp(0), tp(1)], &SinkPositions::new())
            .await
            .unwrap();
        task.put(lines(0, 2)).await.unwrap();
        let offsets = PartitionOffsets::from([(tp(0), 2), (tp(1), 0)]);
        let (committed, positions) = task.pre_commit_at(offsets.clone()).await.unwrap();
        assert_eq!(committed, offsets);
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(len, b"kept by the user\nline 0\nline 1\n".len() as u64);
        let id = file_id(&std::fs::metadata(&path).unwrap());
        let expected = FilePosition::new(path.to_str().unwrap(), id, len).encode();
        assert_eq!(
            positions,
            SinkPositions::from([(tp(0), expected.clone()), (tp(1), expected)])
        );
        // Written but never committed, then the process dies (no stop), mid-line even.
        task.put(lines(2, 4)).await.unwrap();
        task.flush_all().await.unwrap();
        drop(task);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"line 4 to").unwrap();

        let mut task = exact(&path).await;
        task.open_at(&[tp(0), tp(1)], &positions).await.unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"kept by the user\nline 0\nline 1\n"
        );
        task.put(lines(2, 5)).await.unwrap();
        task.stop().await.unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "kept by the user\nline 0\nline 1\nline 2\nline 3\nline 4\n"
        );
    }

    #[tokio::test]
    async fn exactly_once_never_cuts_what_it_did_not_commit_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let name = path.to_str().unwrap();
        // No position: the file is someone else's, kept whole (even without a last newline).
        std::fs::write(&path, b"user text, no newline").unwrap();
        let mut task = exact(&path).await;
        task.open_at(&[tp(0)], &SinkPositions::new()).await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"user text, no newline");
        // A position committed for another file is ignored.
        let id = file_id(&std::fs::metadata(&path).unwrap());
        let other = FilePosition::new("/elsewhere", id, 3).encode();
        task.open_at(&[tp(1)], &SinkPositions::from([(tp(1), other)]))
            .await
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"user text, no newline");
        // Once this instance wrote, a later (older) position cuts nothing.
        task.put(lines(0, 1)).await.unwrap();
        task.flush_all().await.unwrap();
        let old = FilePosition::new(name, id, 4).encode();
        task.open_at(&[tp(2)], &SinkPositions::from([(tp(2), old)]))
            .await
            .unwrap();
        task.stop().await.unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"user text, no newlineline 0\n"
        );
        // A file shorter than committed (cut by someone else) is appended to, not padded.
        std::fs::write(&path, b"short\n").unwrap();
        let mut task = exact(&path).await;
        let far = FilePosition::new(name, id, 1000).encode();
        task.open_at(&[tp(0)], &SinkPositions::from([(tp(0), far)]))
            .await
            .unwrap();
        task.put(lines(1, 2)).await.unwrap();
        task.stop().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"short\nline 1\n");
        // A file replaced at the same path (another inode) is not cut to the old file's length.
        let committed = FilePosition::new(name, id, 3).encode();
        // Written beside the old file and renamed over it: both exist at once, so the inodes
        // differ.
        let replacement = dir.path().join("out.txt.new");
        std::fs::write(&replacement, b"a new file\n").unwrap();
        std::fs::rename(&replacement, &path).unwrap();
        let mut task = exact(&path).await;
        task.open_at(&[tp(0)], &SinkPositions::from([(tp(0), committed)]))
            .await
            .unwrap();
        task.stop().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a new file\n");
    }

    #[tokio::test]
    async fn without_exactly_once_no_positions_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut task = started(Some(&path)).await;
        assert!(!task.keeps_positions());
        task.put(lines(0, 1)).await.unwrap();
        let (_, positions) = task
            .pre_commit_at(PartitionOffsets::from([(tp(0), 1)]))
            .await
            .unwrap();
        assert!(positions.is_empty());
        assert_eq!(std::fs::read(&path).unwrap(), b"line 0\n");
    }

    #[tokio::test]
    async fn unset_exactly_once_follows_the_runtime_default_where_it_applies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let keeps = |pairs: &[(&str, &str)], default: bool| {
            let mut props: ConfigMap = pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            props.insert("file".into(), path.to_str().unwrap().into());
            async move {
                let mut task = FileStreamSinkTask::new();
                let ctx = SinkTaskContext {
                    exact_by_default: default,
                    ..ctx()
                };
                task.start(ctx, &props).await.unwrap();
                let keeps = task.keeps_positions();
                task.stop().await.unwrap();
                keeps
            }
        };
        assert!(keeps(&[], true).await, "embedded log: exact by default");
        assert!(keeps(&[("tasks.max", "1")], true).await);
        assert!(!keeps(&[("tasks.max", "3")], true).await, "several tasks");
        assert!(!keeps(&[], false).await, "Kafka: append only by default");
        assert!(!keeps(&[("exactly.once", "false")], true).await);
        assert!(keeps(&[("exactly.once", "true")], false).await);

        // A device cannot be cut back: appended to, unless exactly.once=true says otherwise.
        let mut task = FileStreamSinkTask::new();
        let props: ConfigMap = [("file".to_owned(), "/dev/null".to_owned())].into();
        let ctx = SinkTaskContext {
            exact_by_default: true,
            ..ctx()
        };
        task.start(ctx, &props).await.unwrap();
        assert!(!task.keeps_positions());
    }

    #[tokio::test]
    async fn exactly_once_creates_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        let mut task = exact(&path).await;
        task.open_at(&[tp(0)], &SinkPositions::new()).await.unwrap();
        task.put(lines(0, 1)).await.unwrap();
        task.stop().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"line 0\n");
    }
}
