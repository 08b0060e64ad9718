//! Record headers: ordered, duplicates allowed.

use crate::schema::SchemaRef;
use crate::value::Value;

/// One header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Header key.
    pub key: String,
    /// Schema of the value, if known.
    pub schema: Option<SchemaRef>,
    /// The value.
    pub value: Value,
}

/// The headers of a record, in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Headers(pub Vec<Header>);

impl Headers {
    /// No headers.
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// Appends a header.
    pub fn add(&mut self, key: impl Into<String>, schema: Option<SchemaRef>, value: Value) {
        self.0.push(Header {
            key: key.into(),
            schema,
            value,
        });
    }

    /// The last header with this key.
    pub fn last_with_name(&self, key: &str) -> Option<&Header> {
        self.0.iter().rev().find(|h| h.key == key)
    }

    /// Removes every header with this key.
    pub fn remove(&mut self, key: &str) {
        self.0.retain(|h| h.key != key);
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Iterates over the headers.
    pub fn iter(&self) -> impl Iterator<Item = &Header> {
        self.0.iter()
    }
}
