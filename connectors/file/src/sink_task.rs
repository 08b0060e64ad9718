//! The FileStream sink task: appends each record's value, as Java prints it, plus `\n`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::sync::Arc;

use async_trait::async_trait;
use connect_api::connector::PartitionOffsets;
use connect_api::{ConfigMap, ConnectError, Result, SinkRecord, SinkTask, SinkTaskContext};
use tokio::task::JoinHandle;

use crate::config::sink_filename;
use crate::render::write_java_string;

/// Buffered bytes that trigger a background write.
const WRITE_THRESHOLD: usize = 1 << 20;

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
pub struct FileStreamSinkTask {
    filename: Option<String>,
    output: Option<Output>,
    buf: Vec<u8>,
    /// A spare buffer, recycled from the last finished write.
    spare: Vec<u8>,
    /// The write in flight, if any (kept here so a dropped future loses nothing).
    in_flight: Option<WriteJob>,
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
            output: None,
            buf: Vec::new(),
            spare: Vec::new(),
            in_flight: None,
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
        self.in_flight = Some(tokio::task::spawn_blocking(move || {
            let result = write_out(&output, &data, sync);
            data.clear();
            (data, result)
        }));
        Ok(())
    }

    async fn flush_all(&mut self) -> Result<()> {
        if self.output.is_none() {
            return Ok(());
        }
        self.submit(true).await?;
        self.finish_write().await
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
                match f.sync_data() {
                    // Pipes and character devices cannot be synced; there is nothing to make
                    // durable.
                    Err(e) if e.raw_os_error() == Some(22) => {}
                    other => other?,
                }
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

#[async_trait]
impl SinkTask for FileStreamSinkTask {
    async fn start(&mut self, _ctx: SinkTaskContext, props: &ConfigMap) -> Result<()> {
        let filename = sink_filename(props)?;
        let output = match &filename {
            Some(path) => {
                let opened = tokio::task::spawn_blocking({
                    let path = path.clone();
                    move || open_for_append(std::path::Path::new(&path))
                })
                .await
                .map_err(|e| ConnectError::Other(format!("Opening {path} failed: {e}")))?;
                let file = opened.map_err(|e| {
                    ConnectError::io(
                        format!("Couldn't find or create file '{path}' for FileStreamSinkTask"),
                        e,
                    )
                })?;
                Output::File(Arc::new(file))
            }
            None => Output::Stdout,
        };
        self.filename = filename;
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
}
