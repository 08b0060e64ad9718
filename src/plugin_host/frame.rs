//! Frames of the plugin host's wire protocol: `u32 len (LE) | u8 type | u32 corr_id (LE) |
//! payload`, where `len` counts type, corr_id and payload and is at most [`MAX_FRAME`]. Odd
//! correlation ids are Rust's requests, even ones Java's, 0 a one-way notify. A request is
//! answered by a frame of the same id with type [`MessageType::OK`] or [`MessageType::ERR`].

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest `len` of a frame (16 MiB); a longer one is a protocol error.
pub const MAX_FRAME: usize = 16 * 1024 * 1024;
/// Bytes of type and corr_id, the smallest `len`.
const HEADER: usize = 5;

/// A message type number: the one table on the Rust side, kept equal to Java's
/// `io.connectrs.host.wire.MessageType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MessageType(pub u8);

impl MessageType {
    /// First frame of every connection (Java to Rust): `{"token","role","protocol","pid","java"}`.
    pub const HELLO: Self = Self(1);
    /// A response: the request succeeded, the payload is its answer.
    pub const OK: Self = Self(2);
    /// A response: the request failed, the payload is `{"class","message","trace","retriable"}`.
    pub const ERR: Self = Self(3);
    /// Liveness (Rust to Java), answered with an empty `OK`.
    pub const PING: Self = Self(4);
    /// The JVM's version and pid: `{"java","vendor","pid"}`.
    pub const VERSION: Self = Self(5);
    /// Plugin scan (ph-scan).
    pub const SCAN: Self = Self(10);
    /// A plugin's config keys (ph-scan).
    pub const CONFIG_KEYS: Self = Self(11);
    /// A plugin's config validation (ph-scan).
    pub const VALIDATE: Self = Self(12);

    /// Start a connector: `{"conn","class","version","location","urls","props"}` →
    /// `{"task_class"}`.
    pub const CONN_START: Self = Self(20);
    /// A started connector's task configurations: `{"conn","max_tasks"}` → `{"configs":[..]}`.
    pub const CONN_TASK_CONFIGS: Self = Self(21);
    /// Stop a connector: `{"conn"}`.
    pub const CONN_STOP: Self = Self(22);
    /// Notify (Java to Rust), target the connector: `requestTaskReconfiguration()`.
    pub const CONN_RECONFIGURE: Self = Self(23);
    /// Notify (Java to Rust), target the connector: `raiseError(e)`, body the `ERR` JSON.
    pub const CONN_RAISE_ERROR: Self = Self(24);
    /// A fresh (not started) source connector's `exactlyOnceSupport(props)`:
    /// `{"class","version","location","urls","props"}` → `{"support": "SUPPORTED" |
    /// "UNSUPPORTED" | null}`.
    pub const CONN_EOS_SUPPORT: Self = Self(48);
    /// A fresh connector's `alterOffsets(props, offsets)`: `{"class","version","location",
    /// "urls","props","source":[{"partition","offset"}]}` (maps or nulls) or `...,"sink":
    /// [{"topic","partition","offset"}]}` (offset a number or null) → `{"handled": bool}`.
    pub const CONN_ALTER_OFFSETS: Self = Self(49);
    /// The plugins' KIP-877 metrics: `{}` → `[{"name","tags","value"}]`, each numeric metric
    /// of group `plugins`.
    pub const PLUGIN_METRICS: Self = Self(50);
    /// Start a source task: `{"task","conn","class","version","location","urls","props"}`.
    pub const TASK_START: Self = Self(30);
    /// A source task's `poll()`: `{"task"}` → varint count, then that many `SOURCE_RECORD`
    /// items (one codec stream per task).
    pub const TASK_POLL: Self = Self(31);
    /// A source task's `commit()`: `{"task"}`.
    pub const TASK_COMMIT: Self = Self(32);
    /// Stop a source task: `{"task"}`.
    pub const TASK_STOP: Self = Self(33);
    /// A source task's `commitRecord(record, metadata)` for polled records, numbered in the
    /// order `TASK_POLL` answers gave them (from 0 since the task started): `{"task","records":
    /// [{"n","topic","partition","offset","timestamp"} | {"n"} (dropped: null metadata)]}`.
    /// Sent only to a task whose `TASK_START` answer said `"commit_record": true`.
    pub const TASK_COMMIT_RECORDS: Self = Self(39);
    /// Request (Java to Rust), target the task: its `OffsetStorageReader`; body varint count +
    /// `OFFSET_MAP` items (partitions), answered by varint count + `OFFSET_MAP` items (offsets).
    pub const OFFSETS_READ: Self = Self(34);
    /// Start a sink task: `{"task","conn","class","version","location","urls","props"}`.
    pub const SINK_START: Self = Self(25);
    /// A sink task's `open(partitions)`: `{"task","partitions":[{"topic","partition"}]}`.
    pub const SINK_OPEN: Self = Self(26);
    /// A sink task's `put(records)`: the task id (string), a varint count, then that many
    /// `SINK_RECORD` items (one codec stream per task).
    pub const SINK_PUT: Self = Self(27);
    /// A sink task's `preCommit(offsets)`: `{"task","offsets":[{"topic","partition","offset"}]}`
    /// → `{"offsets":[..]}`, the offsets safe to commit.
    pub const SINK_PRE_COMMIT: Self = Self(28);
    /// A sink task's `close(partitions)`: `{"task","partitions":[..]}`.
    pub const SINK_CLOSE: Self = Self(29);
    /// Stop a sink task: `{"task"}`.
    pub const SINK_STOP: Self = Self(35);
    /// Notify (Java to Rust), target the sink task: `SinkTaskContext.requestCommit()`.
    pub const SINK_REQUEST_COMMIT: Self = Self(36);
    /// Notify (Java to Rust), target the sink task: its `ErrantRecordReporter.report(record,
    /// error)` during `put`: `{"index","error"}`, the record's index in the put batch (-1 when
    /// it was none of the batch) and the error as in an `ERR` payload.
    pub const SINK_ERRANT_RECORD: Self = Self(37);
    /// Notify (Java to Rust), target the sink task: its `SinkTaskContext.offset`, `pause` or
    /// `resume`: `{"op":"rewind"|"pause"|"resume","partitions":[{"topic","partition"
    /// [,"offset"]}]}`.
    pub const SINK_CONSUMER: Self = Self(38);
    /// Make and configure a Java transformation or predicate of a chain:
    /// `{"id","kind","class","version","location","urls","props"}`.
    pub const SMT_START: Self = Self(40);
    /// A Java transformation's `apply(record)`: the stage id (string), a kind byte (0 source,
    /// 1 sink record), the record item → 0 (dropped), or 1 + a source record, or 2 + a sink
    /// record.
    pub const SMT_APPLY: Self = Self(41);
    /// A Java predicate's `test(record)`: as [`Self::SMT_APPLY`] → 0 or 1.
    pub const SMT_TEST: Self = Self(42);
    /// Close a Java transformation or predicate: `{"id"}`.
    pub const SMT_CLOSE: Self = Self(43);
    /// Make and configure a Java converter: `{"id","class","version","location","urls",
    /// "props","is_key"}`.
    pub const CONV_START: Self = Self(44);
    /// A Java converter's `fromConnectData`: the id (string), the topic (string), a schema
    /// and value item → 0 (null), or 1 + the bytes.
    pub const CONV_FROM_CONNECT: Self = Self(45);
    /// A Java converter's `toConnectData`: the id, the topic, 0 (null) or 1 + the bytes → a
    /// schema and value item.
    pub const CONV_TO_CONNECT: Self = Self(46);
    /// Close a Java converter: `{"id"}`.
    pub const CONV_CLOSE: Self = Self(47);

    /// The protocol version both sides speak (in `HELLO`).
    pub const PROTOCOL_VERSION: u32 = 1;

    /// A readable name, for errors and logs.
    pub fn name(self) -> String {
        match self {
            Self::HELLO => "HELLO".into(),
            Self::OK => "OK".into(),
            Self::ERR => "ERR".into(),
            Self::PING => "PING".into(),
            Self::VERSION => "VERSION".into(),
            Self::SCAN => "SCAN".into(),
            Self::CONFIG_KEYS => "CONFIG_KEYS".into(),
            Self::VALIDATE => "VALIDATE".into(),
            Self::CONN_START => "CONN_START".into(),
            Self::CONN_TASK_CONFIGS => "CONN_TASK_CONFIGS".into(),
            Self::CONN_STOP => "CONN_STOP".into(),
            Self::CONN_RECONFIGURE => "CONN_RECONFIGURE".into(),
            Self::CONN_RAISE_ERROR => "CONN_RAISE_ERROR".into(),
            Self::TASK_START => "TASK_START".into(),
            Self::TASK_POLL => "TASK_POLL".into(),
            Self::TASK_COMMIT => "TASK_COMMIT".into(),
            Self::TASK_STOP => "TASK_STOP".into(),
            Self::OFFSETS_READ => "OFFSETS_READ".into(),
            Self::SINK_START => "SINK_START".into(),
            Self::SINK_OPEN => "SINK_OPEN".into(),
            Self::SINK_PUT => "SINK_PUT".into(),
            Self::SINK_PRE_COMMIT => "SINK_PRE_COMMIT".into(),
            Self::SINK_CLOSE => "SINK_CLOSE".into(),
            Self::SINK_STOP => "SINK_STOP".into(),
            Self::SINK_REQUEST_COMMIT => "SINK_REQUEST_COMMIT".into(),
            Self::SINK_ERRANT_RECORD => "SINK_ERRANT_RECORD".into(),
            Self::SINK_CONSUMER => "SINK_CONSUMER".into(),
            Self::TASK_COMMIT_RECORDS => "TASK_COMMIT_RECORDS".into(),
            Self::CONN_EOS_SUPPORT => "CONN_EOS_SUPPORT".into(),
            Self::CONN_ALTER_OFFSETS => "CONN_ALTER_OFFSETS".into(),
            Self::PLUGIN_METRICS => "PLUGIN_METRICS".into(),
            Self::SMT_START => "SMT_START".into(),
            Self::SMT_APPLY => "SMT_APPLY".into(),
            Self::SMT_TEST => "SMT_TEST".into(),
            Self::SMT_CLOSE => "SMT_CLOSE".into(),
            Self::CONV_START => "CONV_START".into(),
            Self::CONV_FROM_CONNECT => "CONV_FROM_CONNECT".into(),
            Self::CONV_TO_CONNECT => "CONV_TO_CONNECT".into(),
            Self::CONV_CLOSE => "CONV_CLOSE".into(),
            Self(n) => format!("type {n}"),
        }
    }
}

/// One frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Its type.
    pub kind: MessageType,
    /// Its correlation id.
    pub corr_id: u32,
    /// Its payload.
    pub payload: Vec<u8>,
}

/// A frame that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The channel failed, or ended inside a frame.
    #[error("plugin host connection: {0}")]
    Io(#[from] std::io::Error),
    /// A frame longer than [`MAX_FRAME`] or shorter than its header.
    #[error("plugin host connection: a frame of {len} bytes was refused (a frame holds {HEADER} to {MAX_FRAME} bytes)")]
    BadLength {
        /// The length it announced (or would have had).
        len: u64,
    },
}

/// Encodes one frame.
///
/// # Errors
/// [`FrameError::BadLength`] when the payload does not fit in a frame.
pub fn encode(kind: MessageType, corr_id: u32, payload: &[u8]) -> Result<Vec<u8>, FrameError> {
    let len = HEADER + payload.len();
    if len > MAX_FRAME {
        return Err(FrameError::BadLength { len: len as u64 });
    }
    let mut out = Vec::with_capacity(4 + len);
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
    out.push(kind.0);
    out.extend_from_slice(&corr_id.to_le_bytes());
    out.extend_from_slice(payload);
    Ok(out)
}

/// Writes one frame and flushes.
///
/// # Errors
/// The I/O error, or a payload too large for a frame.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    out: &mut W,
    kind: MessageType,
    corr_id: u32,
    payload: &[u8],
) -> Result<(), FrameError> {
    let bytes = encode(kind, corr_id, payload)?;
    out.write_all(&bytes).await?;
    out.flush().await?;
    Ok(())
}

/// The next frame; `None` when the stream ends between frames. Reads that return any number of
/// bytes are fine; the length is checked before the body is read, so an oversized frame costs
/// no memory.
///
/// # Errors
/// The stream ended inside a frame, failed, or announced a bad length.
pub async fn read_frame<R: AsyncRead + Unpin>(input: &mut R) -> Result<Option<Frame>, FrameError> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < len.len() {
        let n = input.read(&mut len[got..]).await?;
        if n == 0 {
            if got == 0 {
                return Ok(None);
            }
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "end of stream inside a frame's length",
            )
            .into());
        }
        got += n;
    }
    let len = u32::from_le_bytes(len) as usize;
    if !(HEADER..=MAX_FRAME).contains(&len) {
        return Err(FrameError::BadLength { len: len as u64 });
    }
    let mut body = vec![0u8; len];
    input.read_exact(&mut body).await?;
    let corr_id = u32::from_le_bytes([body[1], body[2], body[3], body[4]]);
    let kind = MessageType(body[0]);
    body.drain(..HEADER);
    Ok(Some(Frame {
        kind,
        corr_id,
        payload: body,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::ReadBuf;

    /// Gives its bytes `chunk` at a time, as a socket may.
    struct Trickle {
        data: Vec<u8>,
        pos: usize,
        chunk: usize,
    }

    impl AsyncRead for Trickle {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let end = (self.pos + self.chunk)
                .min(self.data.len())
                .min(self.pos + buf.remaining());
            let pos = self.pos;
            buf.put_slice(&self.data[pos..end]);
            self.pos = end;
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn frames_round_trip_through_reads_of_any_size() {
        let mut data = encode(MessageType::VERSION, 7, b"{\"a\":1}").unwrap();
        data.extend(encode(MessageType::OK, 0xffff_fff1, b"").unwrap());
        // Fixed bytes shared with Java's FrameIO: len 12 (5 + 7), type 5, corr 7 LE.
        assert_eq!(&data[..9], &[12, 0, 0, 0, 5, 7, 0, 0, 0]);
        for chunk in [1, 2, 3, 5, 1000] {
            let mut r = Trickle {
                data: data.clone(),
                pos: 0,
                chunk,
            };
            let a = read_frame(&mut r).await.unwrap().unwrap();
            assert_eq!(
                a,
                Frame {
                    kind: MessageType::VERSION,
                    corr_id: 7,
                    payload: b"{\"a\":1}".to_vec()
                }
            );
            let b = read_frame(&mut r).await.unwrap().unwrap();
            assert_eq!(
                (b.kind, b.corr_id, b.payload.len()),
                (MessageType::OK, 0xffff_fff1, 0)
            );
            assert!(read_frame(&mut r).await.unwrap().is_none(), "clean end");
        }
    }

    #[tokio::test]
    async fn an_end_inside_a_frame_is_an_error_not_a_clean_end() {
        let data = encode(MessageType::PING, 1, b"xyz").unwrap();
        for cut in [2, 4, 8, data.len() - 1] {
            let mut r = Trickle {
                data: data[..cut].to_vec(),
                pos: 0,
                chunk: 1,
            };
            let e = read_frame(&mut r).await.unwrap_err();
            assert!(matches!(e, FrameError::Io(_)), "{cut}: {e}");
        }
    }

    #[tokio::test]
    async fn oversized_and_undersized_frames_are_refused_before_reading_their_body() {
        let too_long = ((MAX_FRAME + 1) as u32).to_le_bytes().to_vec();
        let mut r = Trickle {
            data: too_long,
            pos: 0,
            chunk: 4,
        };
        let e = read_frame(&mut r).await.unwrap_err();
        assert!(
            matches!(e, FrameError::BadLength { len } if len == MAX_FRAME as u64 + 1),
            "{e}"
        );
        assert!(e.to_string().contains("16777217 bytes was refused"), "{e}");
        let mut r = Trickle {
            data: vec![4, 0, 0, 0, 1, 0, 0, 0],
            pos: 0,
            chunk: 8,
        };
        assert!(matches!(
            read_frame(&mut r).await.unwrap_err(),
            FrameError::BadLength { len: 4 }
        ));
        let big = vec![0u8; MAX_FRAME - HEADER + 1];
        assert!(matches!(
            encode(MessageType::OK, 1, &big),
            Err(FrameError::BadLength { .. })
        ));
        assert!(
            encode(MessageType::OK, 1, &big[1..]).is_ok(),
            "exactly MAX_FRAME fits"
        );
    }
}
