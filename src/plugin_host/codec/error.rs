//! The codec's errors: malformed input (a protocol error: the connection cannot go on) and data
//! that the encoding or Kafka Connect's offset storage cannot hold.

/// What went wrong while encoding or decoding records, schemas or values.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The input ended inside an item.
    #[error("truncated input at byte {offset}: expected {expected}, but only {available} of {needed} byte(s) remain")]
    Truncated {
        /// What was being read.
        expected: &'static str,
        /// Where it starts.
        offset: usize,
        /// How many bytes it needs (at least).
        needed: usize,
        /// How many remained.
        available: usize,
    },
    /// A tag byte that the reader does not know.
    #[error("unknown {kind} tag {tag:#04x} at byte {offset}; expected {expected}")]
    UnknownTag {
        /// Which tag table was used (value, schema type, item, ...).
        kind: &'static str,
        /// The byte read.
        tag: u8,
        /// Where.
        offset: usize,
        /// The tags that are valid there.
        expected: &'static str,
    },
    /// A schema or source-partition id that was never defined on this connection (or belongs to
    /// a generation before the last reset).
    #[error("unknown {kind} id {id} at byte {offset}; defined ids are {first}..{next} (a definition must come before its first use)")]
    UnknownId {
        /// `schema` or `source partition`.
        kind: &'static str,
        /// The id read.
        id: u32,
        /// Where.
        offset: usize,
        /// First id of the current generation.
        first: u32,
        /// The next id to be defined.
        next: u32,
    },
    /// A definition whose id is not the next one expected.
    #[error("{kind} definition at byte {offset} has id {found}, expected the next id {expected}")]
    DefinitionOutOfOrder {
        /// `schema` or `source partition`.
        kind: &'static str,
        /// The id the definition carries.
        found: u32,
        /// The id the reader expected.
        expected: u32,
        /// Where.
        offset: usize,
    },
    /// A varint longer than its type allows.
    #[error("invalid varint at byte {offset}: {expected} does not fit")]
    BadVarint {
        /// What was being read (`u32`, `u64`, ...).
        expected: &'static str,
        /// Where.
        offset: usize,
    },
    /// A string that is not UTF-8.
    #[error("{expected} at byte {offset} is not valid UTF-8")]
    BadUtf8 {
        /// What was being read.
        expected: &'static str,
        /// Where.
        offset: usize,
        /// The cause.
        #[source]
        source: std::str::Utf8Error,
    },
    /// A schema definition that contradicts itself (unknown flag bits, an array without item
    /// schema, ...).
    #[error("invalid schema definition at byte {offset}: {message}")]
    BadSchema {
        /// Where.
        offset: usize,
        /// What is wrong, naming the expected form.
        message: String,
    },
    /// A connect-rs schema that cannot be a Connect schema (an ARRAY without item schema, ...).
    #[error("schema cannot be sent: {message}")]
    InvalidSchema {
        /// What is wrong.
        message: String,
    },
    /// Values or schemas nested deeper than [`super::MAX_DEPTH`].
    #[error("{what} nested deeper than {max} levels")]
    TooDeep {
        /// Values or schemas.
        what: &'static str,
        /// The limit.
        max: usize,
    },
    /// A source partition or offset that Kafka Connect's offset storage (schemaless
    /// JsonConverter) cannot hold, or that Java cannot read back.
    #[error("{what}: {message}")]
    Offset {
        /// `source partition`, `source offset`, with the key path.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// More than `u32::MAX` definitions on one connection.
    #[error("{kind} ids exhausted on this connection")]
    IdsExhausted {
        /// `schema` or `source partition`.
        kind: &'static str,
    },
}

impl CodecError {
    /// Whether this error is about the input's form (a protocol error) rather than about data
    /// the encoding cannot represent.
    pub fn is_malformed_input(&self) -> bool {
        !matches!(
            self,
            Self::Offset { .. } | Self::IdsExhausted { .. } | Self::InvalidSchema { .. }
        )
    }
}
