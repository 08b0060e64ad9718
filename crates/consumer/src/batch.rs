//! Kafka's record batches (message format v2) as a Fetch response carries them: decoded with
//! their codec, control batches and aborted transactions left out for `read_committed`.
//!
//! Decoded here rather than with `kafka-protocol`'s decoder because that one keeps headers in a
//! map (a record's duplicate header keys would be lost) and refuses the partial batch a fetch
//! ends with.

use std::collections::{BTreeSet, VecDeque};
use std::io::Read;

use bytes::{Buf, Bytes};

/// A record read from a partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedRecord {
    /// The record's offset.
    pub offset: i64,
    /// Its timestamp in epoch milliseconds (the log's append time for LogAppendTime topics).
    pub timestamp: i64,
    /// Key bytes (`None`: null).
    pub key: Option<Bytes>,
    /// Value bytes (`None`: null).
    pub value: Option<Bytes>,
    /// Headers in order, duplicates kept.
    pub headers: Vec<(String, Option<Bytes>)>,
}

/// A batch that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("record batch at offset {offset}: {reason}")]
pub struct BatchError {
    /// The batch's base offset (-1 before it was read).
    pub offset: i64,
    /// What is wrong.
    pub reason: String,
}

/// A transaction the partition's leader says was aborted (Fetch's `aborted_transactions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTransaction {
    /// Its producer id.
    pub producer_id: i64,
    /// Its first offset.
    pub first_offset: i64,
}

/// What a partition's record bytes held.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Decoded {
    /// The records to deliver, in offset order.
    pub records: Vec<FetchedRecord>,
    /// The offset after the last whole batch read (`None` when no whole batch was there).
    pub next_offset: Option<i64>,
}

const HEADER_LEN: usize = 61;
const ATTR_COMPRESSION: i16 = 0x07;
const ATTR_LOG_APPEND_TIME: i16 = 0x08;
const ATTR_TRANSACTIONAL: i16 = 0x10;
const ATTR_CONTROL: i16 = 0x20;

/// Decodes the record batches of one partition from `bytes`, dropping records before `from`
/// (a batch may start before the offset fetched), control records, and with `aborted` (given
/// for `read_committed`) the records of aborted transactions. A partial batch at the end (the
/// fetch's size limit cut it) is left for the next fetch.
///
/// # Errors
/// A batch whose checksum, magic byte, codec or records are wrong.
pub fn decode(
    mut bytes: Bytes,
    from: i64,
    aborted: Option<&[AbortedTransaction]>,
) -> Result<Decoded, BatchError> {
    let mut out = Decoded::default();
    let mut pending: VecDeque<AbortedTransaction> = aborted
        .map(|a| {
            let mut v = a.to_vec();
            v.sort_by_key(|t| t.first_offset);
            v.into()
        })
        .unwrap_or_default();
    let mut aborting: BTreeSet<i64> = BTreeSet::new();
    while bytes.len() >= 12 {
        let base_offset = i64::from_be_bytes(bytes[0..8].try_into().unwrap_or_default());
        let length = i32::from_be_bytes(bytes[8..12].try_into().unwrap_or_default());
        let err = |reason: String| BatchError {
            offset: base_offset,
            reason,
        };
        let total = usize::try_from(length)
            .ok()
            .filter(|l| *l >= HEADER_LEN - 12)
            .ok_or_else(|| err(format!("invalid batch length {length}")))?
            + 12;
        if bytes.len() < total {
            break;
        }
        let mut batch = bytes.split_to(total);
        batch.advance(12);
        let _leader_epoch = batch.get_i32();
        let magic = batch.get_i8();
        if magic != 2 {
            return Err(err(format!(
                "message format v{magic} is not supported (only v2, Kafka 0.11 and later)"
            )));
        }
        let crc = batch.get_u32();
        if crc32c::crc32c(&batch) != crc {
            return Err(err("checksum mismatch (corrupt record batch)".to_owned()));
        }
        let attributes = batch.get_i16();
        let last_offset_delta = batch.get_i32();
        let base_timestamp = batch.get_i64();
        let max_timestamp = batch.get_i64();
        let producer_id = batch.get_i64();
        let _producer_epoch = batch.get_i16();
        let _base_sequence = batch.get_i32();
        let count = batch.get_i32();
        let last_offset = base_offset + i64::from(last_offset_delta);
        out.next_offset = Some(last_offset + 1);
        if aborted.is_some() {
            while pending
                .front()
                .is_some_and(|t| t.first_offset <= last_offset)
            {
                if let Some(t) = pending.pop_front() {
                    aborting.insert(t.producer_id);
                }
            }
        }
        let control = attributes & ATTR_CONTROL != 0;
        let transactional = attributes & ATTR_TRANSACTIONAL != 0;
        if control {
            // An ABORT marker (control type 0) ends the producer's aborted transaction.
            let payload = decompress(attributes, batch).map_err(err)?;
            let records = read_records(payload, count, base_offset, 0, false).map_err(err)?;
            if records
                .first()
                .and_then(|r| r.key.as_ref())
                .is_some_and(|k| k.len() >= 4 && i16::from_be_bytes([k[2], k[3]]) == 0)
            {
                aborting.remove(&producer_id);
            }
            continue;
        }
        if aborted.is_some() && transactional && aborting.contains(&producer_id) {
            continue;
        }
        if last_offset < from {
            continue;
        }
        let payload = decompress(attributes, batch).map_err(err)?;
        let append_time = (attributes & ATTR_LOG_APPEND_TIME != 0).then_some(max_timestamp);
        let records =
            read_records(payload, count, base_offset, base_timestamp, true).map_err(err)?;
        out.records.extend(
            records
                .into_iter()
                .filter(|r| r.offset >= from)
                .map(|mut r| {
                    if let Some(t) = append_time {
                        r.timestamp = t;
                    }
                    r
                }),
        );
    }
    Ok(out)
}

/// The records part of a batch, decompressed.
fn decompress(attributes: i16, data: Bytes) -> Result<Bytes, String> {
    let mut out = Vec::new();
    let codec = attributes & ATTR_COMPRESSION;
    let failed = |name: &str, e: std::io::Error| format!("{name} decompression failed: {e}");
    match codec {
        0 => return Ok(data),
        1 => flate2::read::MultiGzDecoder::new(&data[..])
            .read_to_end(&mut out)
            .map(drop)
            .map_err(|e| failed("gzip", e))?,
        2 => out = snappy(&data)?,
        3 => lz4_flex::frame::FrameDecoder::new(&data[..])
            .read_to_end(&mut out)
            .map(drop)
            .map_err(|e| failed("lz4", e))?,
        4 => ruzstd::decoding::StreamingDecoder::new(&data[..])
            .map_err(|e| format!("zstd decompression failed: {e}"))?
            .read_to_end(&mut out)
            .map(drop)
            .map_err(|e| failed("zstd", e))?,
        other => return Err(format!("unknown compression codec {other}")),
    }
    Ok(Bytes::from(out))
}

/// The Java client's snappy framing (snappy-java's stream: a magic header, then chunks each
/// prefixed by its length) or one raw snappy block (librdkafka's).
fn snappy(data: &[u8]) -> Result<Vec<u8>, String> {
    const XERIAL: &[u8] = b"\x82SNAPPY\x00";
    let raw = |block: &[u8]| {
        snap::raw::Decoder::new()
            .decompress_vec(block)
            .map_err(|e| format!("snappy decompression failed: {e}"))
    };
    if !data.starts_with(XERIAL) {
        return raw(data);
    }
    let mut rest = data.get(16..).ok_or("truncated snappy header")?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        let len = rest
            .get(..4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("truncated snappy chunk")?;
        let chunk = rest.get(4..4 + len).ok_or("truncated snappy chunk")?;
        out.extend(raw(chunk)?);
        rest = &rest[4 + len..];
    }
    Ok(out)
}

/// `count` records of a batch.
fn read_records(
    mut data: Bytes,
    count: i32,
    base_offset: i64,
    base_timestamp: i64,
    with_headers: bool,
) -> Result<Vec<FetchedRecord>, String> {
    let count = usize::try_from(count).map_err(|_| format!("invalid record count {count}"))?;
    let mut records = Vec::with_capacity(count.min(100_000));
    for _ in 0..count {
        let length = varint(&mut data)?;
        let length = usize::try_from(length).map_err(|_| "negative record length")?;
        if data.len() < length {
            return Err("truncated record".to_owned());
        }
        let mut r = data.split_to(length);
        if r.is_empty() {
            return Err("empty record".to_owned());
        }
        let _attributes = r.get_i8();
        let timestamp_delta = varint(&mut r)?;
        let offset_delta = varint(&mut r)?;
        let key = bytes_field(&mut r)?;
        let value = bytes_field(&mut r)?;
        let mut headers = Vec::new();
        if with_headers {
            let n = varint(&mut r)?;
            for _ in 0..n.max(0) {
                let k = bytes_field(&mut r)?.ok_or("null header key")?;
                let k = String::from_utf8(k.to_vec()).map_err(|_| "header key is not UTF-8")?;
                headers.push((k, bytes_field(&mut r)?));
            }
        }
        records.push(FetchedRecord {
            offset: base_offset + offset_delta,
            timestamp: base_timestamp + timestamp_delta,
            key,
            value,
            headers,
        });
    }
    Ok(records)
}

/// A length-prefixed (varint) byte field; length -1 is null.
fn bytes_field(data: &mut Bytes) -> Result<Option<Bytes>, String> {
    let len = varint(data)?;
    if len < 0 {
        return Ok(None);
    }
    let len = usize::try_from(len).map_err(|_| "invalid length")?;
    if data.len() < len {
        return Err("truncated field".to_owned());
    }
    Ok(Some(data.split_to(len)))
}

/// A zigzag-encoded variable-length integer (Kafka's varint and varlong).
fn varint(data: &mut Bytes) -> Result<i64, String> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        if !data.has_remaining() {
            return Err("truncated varint".to_owned());
        }
        let b = data.get_u8();
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(((value >> 1) as i64) ^ -((value & 1) as i64));
        }
    }
    Err("varint too long".to_owned())
}

#[cfg(test)]
mod tests;
