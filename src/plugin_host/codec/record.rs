//! Records and the per-connection-direction [`Encoder`] / [`Decoder`].

use std::sync::Arc;

use connect_api::{
    ConnectRecord, Header, Headers, OffsetMap, Schema, SchemaRef, SinkRecord, SourceOffset,
    SourceRecord, TimestampType, Value,
};

use super::error::CodecError;
use super::item;
use super::primitive::{put_i64, put_opt_i32, put_opt_i64, put_str, put_u32, put_uvarint, Reader};
use super::schema::{intern_schema, read_schema_def, read_schema_id, Interner, Table};
use super::value::{
    offset_value_to_json, read_value, write_json_map, write_value, PathError, T_INT64, T_MAP,
    T_NULL, T_STRING,
};
use super::MAX_INTERNED;

/// What a sink record carries besides connect-rs's [`SinkRecord`]: where it was consumed
/// (Kafka's `originalTopic()`/`originalKafkaPartition()`/`originalKafkaOffset()`, KIP-793) and
/// its index in the `Put` batch, which the host keeps so `ErrantRecordReporter.report` finds
/// the consumed record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkRecordMeta {
    /// Topic as consumed.
    pub original_topic: String,
    /// Partition as consumed.
    pub original_partition: Option<i32>,
    /// Offset as consumed.
    pub original_offset: i64,
    /// The record's reference in its batch.
    pub record_ref: u32,
}

impl SinkRecordMeta {
    /// The metadata of a record not transformed since it was consumed.
    pub fn of(record: &SinkRecord, record_ref: u32) -> Self {
        Self {
            original_topic: record.record.topic.clone(),
            original_partition: record.record.kafka_partition,
            original_offset: record.kafka_offset,
            record_ref,
        }
    }
}

fn timestamp_type_code(t: TimestampType) -> u8 {
    match t {
        TimestampType::NoTimestampType => 0,
        TimestampType::CreateTime => 1,
        TimestampType::LogAppendTime => 2,
    }
}

/// The sending side of one connection-direction: gives schemas and source partitions their ids
/// and writes items.
///
/// Every method appends one complete item (preceded by the definitions it needs) to `out`, or,
/// on error, leaves `out` and the tables as they were, so the next item can follow.
#[derive(Debug)]
pub struct Encoder {
    schemas: Interner<Schema>,
    partitions: Interner<OffsetMap>,
    scratch: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Self {
        Self::new()
    }
}

/// Everything an item writer needs: the tables and the place for new definitions.
struct Ctx<'a> {
    schemas: &'a mut Interner<Schema>,
    partitions: &'a mut Interner<OffsetMap>,
    defs: &'a mut Vec<u8>,
}

impl Ctx<'_> {
    fn schema_id(&mut self, schema: Option<&SchemaRef>) -> Result<u32, CodecError> {
        match schema {
            None => Ok(0),
            Some(s) => intern_schema(self.schemas, s, self.defs, 0),
        }
    }

    fn value(&mut self, value: &Value, out: &mut Vec<u8>) -> Result<(), CodecError> {
        write_value(self.schemas, value, out, self.defs, 0)
    }

    /// Topic, partition, key, value, timestamp and headers.
    fn connect_record(&mut self, r: &ConnectRecord, out: &mut Vec<u8>) -> Result<(), CodecError> {
        put_str(out, &r.topic);
        put_opt_i32(out, r.kafka_partition);
        let id = self.schema_id(r.key_schema.as_ref())?;
        put_u32(out, id);
        self.value(&r.key, out)?;
        let id = self.schema_id(r.value_schema.as_ref())?;
        put_u32(out, id);
        self.value(&r.value, out)?;
        put_opt_i64(out, r.timestamp);
        put_uvarint(out, r.headers.0.len() as u64);
        for h in r.headers.iter() {
            put_str(out, &h.key);
            let id = self.schema_id(h.schema.as_ref())?;
            put_u32(out, id);
            self.value(&h.value, out)?;
        }
        Ok(())
    }

    fn partition_id(&mut self, partition: &Arc<OffsetMap>) -> Result<u32, CodecError> {
        if let Some(id) = self.partitions.cached(partition) {
            return Ok(id);
        }
        let mut body = Vec::with_capacity(32);
        write_json_map(&mut body, partition).map_err(|e| e.into_codec("source partition"))?;
        let id = self.partitions.intern(body, self.defs)?;
        self.partitions.remember(partition, id);
        Ok(id)
    }
}

fn write_source_offset(offset: Option<&SourceOffset>, out: &mut Vec<u8>) -> Result<(), PathError> {
    match offset {
        None => out.push(T_NULL),
        Some(SourceOffset::Map(map)) => write_json_map(out, map)?,
        Some(SourceOffset::Position { field, value }) => {
            let v = i64::try_from(*value).map_err(|_| {
                PathError::new_at(
                    field,
                    format!("{value} does not fit a Java long (Kafka Connect reads stored integers as longs)"),
                )
            })?;
            out.push(T_MAP);
            put_uvarint(out, 1);
            out.push(T_STRING);
            put_str(out, field);
            out.push(T_INT64);
            put_i64(out, v);
        }
    }
    Ok(())
}

impl Encoder {
    /// A fresh connection-direction: no definitions sent yet.
    pub fn new() -> Self {
        Self {
            schemas: Interner::new("schema", item::SCHEMA_DEF),
            partitions: Interner::new("source partition", item::PARTITION_DEF),
            scratch: Vec::new(),
        }
    }

    /// Writes one item: a reset when a table is full, the new definitions, then the item's
    /// tag and body. On error nothing is written and the tables are as before.
    fn item(
        &mut self,
        out: &mut Vec<u8>,
        tag: u8,
        body: impl FnOnce(&mut Ctx<'_>, &mut Vec<u8>) -> Result<(), CodecError>,
    ) -> Result<(), CodecError> {
        let start = out.len();
        let marks = (self.schemas.mark(), self.partitions.mark());
        let before_reset =
            if self.schemas.len() > MAX_INTERNED || self.partitions.len() > MAX_INTERNED {
                out.push(item::RESET);
                Some((self.schemas.reset(), self.partitions.reset()))
            } else {
                None
            };
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        scratch.push(tag);
        let result = body(
            &mut Ctx {
                schemas: &mut self.schemas,
                partitions: &mut self.partitions,
                defs: out,
            },
            &mut scratch,
        );
        match result {
            Ok(()) => out.extend_from_slice(&scratch),
            Err(_) => {
                out.truncate(start);
                let (s, p) = match before_reset {
                    Some((s, p)) => (Some(s), Some(p)),
                    None => (None, None),
                };
                self.schemas.rollback(marks.0, s);
                self.partitions.rollback(marks.1, p);
            }
        }
        self.scratch = scratch;
        result
    }

    /// Appends a source record.
    ///
    /// # Errors
    /// A schema that is not a Connect schema, or a source offset that Kafka Connect cannot
    /// store (an integer beyond a Java `long`).
    pub fn source_record(
        &mut self,
        record: &SourceRecord,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        self.item(out, item::SOURCE_RECORD, |ctx, body| {
            ctx.connect_record(&record.record, body)?;
            let id = ctx.partition_id(&record.source_partition)?;
            put_u32(body, id);
            write_source_offset(record.source_offset.as_ref(), body)
                .map_err(|e| e.into_codec("source offset"))
        })
    }

    /// Appends a sink record with its metadata.
    ///
    /// # Errors
    /// A schema that is not a Connect schema.
    pub fn sink_record(
        &mut self,
        record: &SinkRecord,
        meta: &SinkRecordMeta,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        self.item(out, item::SINK_RECORD, |ctx, body| {
            ctx.connect_record(&record.record, body)?;
            put_i64(body, record.kafka_offset);
            body.push(timestamp_type_code(record.timestamp_type));
            put_str(body, &meta.original_topic);
            put_opt_i32(body, meta.original_partition);
            put_i64(body, meta.original_offset);
            put_u32(body, meta.record_ref);
            Ok(())
        })
    }

    /// Appends a schema (or none) and a value (a converter's input or output, a header).
    ///
    /// # Errors
    /// A schema that is not a Connect schema.
    pub fn schema_and_value(
        &mut self,
        schema: Option<&SchemaRef>,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        self.item(out, item::SCHEMA_AND_VALUE, |ctx, body| {
            let id = ctx.schema_id(schema)?;
            put_u32(body, id);
            ctx.value(value, body)
        })
    }

    /// Appends a stored source partition or offset (or null), integers as INT64.
    ///
    /// # Errors
    /// An integer beyond a Java `long`.
    pub fn offset_map(
        &mut self,
        map: Option<&OffsetMap>,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        self.item(out, item::OFFSET_MAP, |_, body| match map {
            None => {
                body.push(T_NULL);
                Ok(())
            }
            Some(map) => write_json_map(body, map).map_err(|e| e.into_codec("offset map")),
        })
    }
}

/// The receiving side of one connection-direction: the definitions seen so far.
#[derive(Debug)]
pub struct Decoder {
    schemas: Table<SchemaRef>,
    partitions: Table<Arc<OffsetMap>>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

const ITEM_TAGS: &str = "0x01 (SCHEMA_DEF), 0x02 (PARTITION_DEF), 0x03 (RESET), 0x10 (SOURCE_RECORD), 0x11 (SINK_RECORD), 0x12 (SCHEMA_AND_VALUE), 0x13 (OFFSET_MAP)";

fn item_name(tag: u8) -> &'static str {
    match tag {
        item::SOURCE_RECORD => "0x10 (SOURCE_RECORD)",
        item::SINK_RECORD => "0x11 (SINK_RECORD)",
        item::SCHEMA_AND_VALUE => "0x12 (SCHEMA_AND_VALUE)",
        _ => "0x13 (OFFSET_MAP)",
    }
}

impl Decoder {
    /// A fresh connection-direction: no definitions seen yet.
    pub fn new() -> Self {
        Self {
            schemas: Table::new("schema"),
            partitions: Table::new("source partition"),
        }
    }

    /// Reads definitions and resets up to the item tag `want`, which it consumes.
    fn prelude(&mut self, r: &mut Reader<'_>, want: u8) -> Result<(), CodecError> {
        loop {
            let offset = r.position();
            match r.u8("an item tag")? {
                item::SCHEMA_DEF => read_schema_def(&mut self.schemas, r)?,
                item::PARTITION_DEF => {
                    let id_offset = r.position();
                    let id = r.u32("a source partition definition's id")?;
                    self.partitions.check_next(id, id_offset)?;
                    let value = read_value(&self.schemas, r, 0)?;
                    let map = offset_value_to_json("source partition", value)?;
                    self.partitions.push(Arc::new(map));
                }
                item::RESET => {
                    self.schemas.reset();
                    self.partitions.reset();
                }
                tag if tag == want => return Ok(()),
                tag => {
                    return Err(CodecError::UnknownTag {
                        kind: "item",
                        tag,
                        offset,
                        expected: if matches!(
                            tag,
                            item::SOURCE_RECORD
                                | item::SINK_RECORD
                                | item::SCHEMA_AND_VALUE
                                | item::OFFSET_MAP
                        ) {
                            item_name(want)
                        } else {
                            ITEM_TAGS
                        },
                    })
                }
            }
        }
    }

    fn connect_record(&self, r: &mut Reader<'_>) -> Result<ConnectRecord, CodecError> {
        let topic = r.str("a record's topic")?.to_owned();
        let kafka_partition = r.opt_i32("a record's Kafka partition")?;
        let key_schema = read_schema_id(&self.schemas, r, "a record's key schema id")?;
        let key = read_value(&self.schemas, r, 0)?;
        let value_schema = read_schema_id(&self.schemas, r, "a record's value schema id")?;
        let value = read_value(&self.schemas, r, 0)?;
        let timestamp = r.opt_i64("a record's timestamp")?;
        let n = r.len("the number of headers")?;
        let mut headers = Vec::with_capacity(n);
        for _ in 0..n {
            let key = r.str("a header key")?.to_owned();
            let schema = read_schema_id(&self.schemas, r, "a header's schema id")?;
            let value = read_value(&self.schemas, r, 0)?;
            headers.push(Header { key, schema, value });
        }
        Ok(ConnectRecord {
            topic,
            kafka_partition,
            key_schema,
            key,
            value_schema,
            value,
            timestamp,
            headers: Headers(headers),
        })
    }

    /// Reads a source record (and the definitions before it). A null source partition (Java
    /// allows one) becomes an empty map.
    ///
    /// # Errors
    /// Malformed input, or a source offset Kafka Connect cannot store.
    pub fn source_record(&mut self, r: &mut Reader<'_>) -> Result<SourceRecord, CodecError> {
        self.prelude(r, item::SOURCE_RECORD)?;
        let record = self.connect_record(r)?;
        let offset = r.position();
        let source_partition = match r.u32("a source partition id")? {
            0 => Arc::new(OffsetMap::new()),
            id => self.partitions.get(id, offset)?,
        };
        let source_offset = match read_value(&self.schemas, r, 0)? {
            Value::Null => None,
            v => Some(SourceOffset::Map(offset_value_to_json("source offset", v)?)),
        };
        Ok(SourceRecord {
            source_partition,
            source_offset,
            record,
        })
    }

    /// Reads a sink record and its metadata.
    ///
    /// # Errors
    /// Malformed input.
    pub fn sink_record(
        &mut self,
        r: &mut Reader<'_>,
    ) -> Result<(SinkRecord, SinkRecordMeta), CodecError> {
        self.prelude(r, item::SINK_RECORD)?;
        let record = self.connect_record(r)?;
        let kafka_offset = r.i64("a sink record's Kafka offset")?;
        let tt_offset = r.position();
        let timestamp_type = match r.u8("a timestamp type")? {
            0 => TimestampType::NoTimestampType,
            1 => TimestampType::CreateTime,
            2 => TimestampType::LogAppendTime,
            tag => {
                return Err(CodecError::UnknownTag {
                    kind: "timestamp type",
                    tag,
                    offset: tt_offset,
                    expected: "0 (none), 1 (create time) or 2 (log append time)",
                })
            }
        };
        let meta = SinkRecordMeta {
            original_topic: r.str("a sink record's original topic")?.to_owned(),
            original_partition: r.opt_i32("a sink record's original partition")?,
            original_offset: r.i64("a sink record's original offset")?,
            record_ref: r.u32("a sink record's record_ref")?,
        };
        Ok((
            SinkRecord {
                record,
                kafka_offset,
                timestamp_type,
            },
            meta,
        ))
    }

    /// Reads a schema (or none) and a value.
    ///
    /// # Errors
    /// Malformed input.
    pub fn schema_and_value(
        &mut self,
        r: &mut Reader<'_>,
    ) -> Result<(Option<SchemaRef>, Value), CodecError> {
        self.prelude(r, item::SCHEMA_AND_VALUE)?;
        let schema = read_schema_id(&self.schemas, r, "a schema id")?;
        let value = read_value(&self.schemas, r, 0)?;
        Ok((schema, value))
    }

    /// Reads a source partition or offset (or null) as the JSON Kafka Connect stores.
    ///
    /// # Errors
    /// Malformed input, or a map Kafka Connect cannot store.
    pub fn offset_map(&mut self, r: &mut Reader<'_>) -> Result<Option<OffsetMap>, CodecError> {
        self.prelude(r, item::OFFSET_MAP)?;
        match read_value(&self.schemas, r, 0)? {
            Value::Null => Ok(None),
            v => offset_value_to_json("offset map", v).map(Some),
        }
    }
}
