//! The binary encoding of Connect schemas, values, source records and sink records between
//! connect-rs and the Java plugin host (Java: `io.connectrs.host.wire.codec`, byte-identical).
//!
//! Pure code: no process, no socket. One [`Encoder`] and one [`Decoder`] per connection and
//! direction; they hold the intern tables, so a schema or source partition crosses once per
//! connection-direction and records refer to it by id.
//!
//! # Primitives
//! Unsigned integers (lengths, counts, ids) are LEB128 varints; signed integers (`i16`, `i32`,
//! `i64`) are zig-zag varints; `f32`/`f64` are their IEEE bits, little-endian; strings and byte
//! arrays are a varint length + bytes (UTF-8 for strings); an optional integer is a presence byte
//! (`0`/`1`) + the value; `id` 0 means "no schema" (schemaless) or "null partition".
//!
//! # Items
//! A message carries items; every item starts with its tag. Before a record (or any other top
//! item) come the definitions it needs that this connection-direction has not seen yet, children
//! before parents, and, when a table holds more than [`MAX_INTERNED`] entries, a `RESET`.
//!
//! | tag | item | body |
//! |---|---|---|
//! | `0x01` | SCHEMA_DEF | `id`, type `u8`, flags `u8`, [name], [version `i32`], [doc], [params: n, (key, value)*], then STRUCT: n, (field name, schema id)*; ARRAY: item schema id; MAP: key id, value id; then [default: a value] |
//! | `0x02` | PARTITION_DEF | `id`, a MAP value (the source partition) |
//! | `0x03` | RESET | none: both tables start a new generation; ids keep counting, never reused |
//! | `0x10` | SOURCE_RECORD | topic, partition `opt i32`, key schema id, key value, value schema id, value, timestamp `opt i64`, headers: n, (key, schema id, value)*, source partition id, source offset (MAP or NULL value) |
//! | `0x11` | SINK_RECORD | as SOURCE_RECORD up to the headers, then kafka offset `i64`, timestamp type `u8` (0 none, 1 create, 2 log append), original topic, original partition `opt i32`, original offset `i64`, record_ref `u32` |
//! | `0x12` | SCHEMA_AND_VALUE | schema id, value |
//! | `0x13` | OFFSET_MAP | a MAP or NULL value |
//!
//! Schema flags: `0x01` optional, `0x02` has default, `0x04` has name, `0x08` has version,
//! `0x10` has doc, `0x20` has parameters (in insertion order). Schema types: `0` INT8, `1` INT16,
//! `2` INT32, `3` INT64, `4` FLOAT32, `5` FLOAT64, `6` BOOLEAN, `7` STRING, `8` BYTES, `9` ARRAY,
//! `10` MAP, `11` STRUCT.
//!
//! # Values
//!
//! | tag | value | payload |
//! |---|---|---|
//! | `0` | NULL | none |
//! | `1` | INT8 | one byte |
//! | `2`, `3`, `4` | INT16, INT32, INT64 | zig-zag varint |
//! | `5`, `6` | FLOAT32, FLOAT64 | 4 / 8 bytes LE |
//! | `7`, `8` | false, true | none |
//! | `9` | STRING | length + UTF-8 |
//! | `10` | BYTES | length + bytes |
//! | `11` | ARRAY | n, items |
//! | `12` | MAP | n, (key, value)* in iteration order |
//! | `13` | STRUCT | schema id, one value per field in field order (no names) |
//!
//! Logical types travel in Connect's raw form, which is connect-rs's [`connect_api::Value`]:
//! Decimal = BYTES (big-endian two's-complement unscaled value, scale in the schema's `scale`
//! parameter), Date = INT32 days, Time = INT32 milliseconds, Timestamp = INT64 milliseconds.
//!
//! # Interning
//! An id is given to a definition's body bytes (children referred to by id), so equal schemas
//! get one id whichever object carries them, and both languages assign the same ids to the same
//! sequence of records. A cache by object identity (`Arc` pointer; Java `IdentityHashMap`)
//! avoids re-encoding the body of a schema seen before.
//!
//! # Source partitions and offsets
//! They travel as typed MAP values. connect-rs keeps them as JSON ([`connect_api::OffsetMap`])
//! made with the schemaless JsonConverter's rules, so the offsets connect-rs stores are those
//! Kafka Connect stores: integers as JSON integers, FLOAT32 through its shortest decimal form,
//! BYTES as base64, a map with a non-string key as an array of `[key, value]` pairs; a Struct
//! or a non-finite float is an error. Sent to Java, JSON integers become INT64 (`Long`) and
//! fractions FLOAT64 (`Double`), as Kafka Connect reads stored offsets back.

mod error;
mod primitive;
mod record;
mod schema;
mod value;

pub use error::CodecError;
pub use primitive::{
    put_bytes, put_i32, put_i64, put_opt_i32, put_opt_i64, put_str, put_u32, put_uvarint, Reader,
};
pub use record::{Decoder, Encoder, SinkRecordMeta};
pub use value::{json_to_offset_value, offset_value_to_json};

/// A table (schemas or source partitions) holding more entries than this is reset before the
/// next item.
pub const MAX_INTERNED: usize = 8192;

/// The deepest nesting of values and schemas accepted (a bound for the decoder's recursion).
pub const MAX_DEPTH: usize = 256;

/// Item tags.
pub mod item {
    /// A schema definition.
    pub const SCHEMA_DEF: u8 = 0x01;
    /// A source partition definition.
    pub const PARTITION_DEF: u8 = 0x02;
    /// Start a new generation of both intern tables.
    pub const RESET: u8 = 0x03;
    /// A source record.
    pub const SOURCE_RECORD: u8 = 0x10;
    /// A sink record.
    pub const SINK_RECORD: u8 = 0x11;
    /// A schema id and a value.
    pub const SCHEMA_AND_VALUE: u8 = 0x12;
    /// A source partition or offset map (or null).
    pub const OFFSET_MAP: u8 = 0x13;
}

#[cfg(test)]
mod tests;
