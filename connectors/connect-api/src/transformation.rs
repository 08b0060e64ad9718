//! Single message transforms and their predicates (Kafka Connect's `Transformation` and
//! `Predicate`), and the descriptors the plugin registry knows them by.

use crate::config_def::ConfigDef;
use crate::error::Result;
use crate::record::{ConnectRecord, TimestampType};
use crate::ConfigMap;

/// What a transform may know about a record besides its [`ConnectRecord`]: the facts that only
/// consumed (sink) records have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordContext {
    /// The record's offset in its topic partition, for sink records; `None` for source records
    /// (Kafka Connect's `InsertField` refuses `offset.field` there).
    pub kafka_offset: Option<i64>,
    /// How the timestamp was set, for sink records.
    pub timestamp_type: TimestampType,
}

impl RecordContext {
    /// The context of a record produced by a source task.
    pub fn source() -> Self {
        Self::default()
    }

    /// The context of a record consumed at `offset`.
    pub fn sink(offset: i64, timestamp_type: TimestampType) -> Self {
        Self {
            kafka_offset: Some(offset),
            timestamp_type,
        }
    }
}

/// A single message transform. Pure: no I/O. One instance serves one task, so `apply` may keep
/// caches in `self`.
pub trait Transformation: Send {
    /// Configures the transform with its own keys (the `transforms.<alias>.` prefix removed).
    ///
    /// # Errors
    /// A configuration error naming the bad key, with Kafka Connect's message.
    fn configure(&mut self, props: &ConfigMap) -> Result<()>;

    /// Transforms one record; `Ok(None)` drops it.
    ///
    /// # Errors
    /// A data error when the record does not fit what the transform expects.
    fn apply(
        &mut self,
        record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>>;

    /// Transforms one record where it lies; `Ok(false)` drops it. The runtime calls this one:
    /// a transform that edits the record in place overrides it (and implements `apply` with
    /// it), which saves moving the whole record in and out of every stage. After an error the
    /// record's contents are unspecified.
    ///
    /// # Errors
    /// As [`Transformation::apply`].
    fn apply_in_place(&mut self, record: &mut ConnectRecord, ctx: &RecordContext) -> Result<bool> {
        match self.apply(std::mem::take(record), ctx)? {
            Some(r) => {
                *record = r;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// A condition on records that decides whether a transform applies.
pub trait Predicate: Send + Sync {
    /// Configures the predicate with its own keys (the `predicates.<alias>.` prefix removed).
    ///
    /// # Errors
    /// A configuration error naming the bad key.
    fn configure(&mut self, props: &ConfigMap) -> Result<()>;

    /// Whether the record matches.
    fn test(&self, record: &ConnectRecord) -> bool;

    /// Whether the record, seen in `ctx`, matches; the runtime calls this one. A predicate
    /// that can fail (one run by another process) overrides it, so its failure goes through
    /// `errors.tolerance` as a transformation's does.
    ///
    /// # Errors
    /// The predicate could not be evaluated.
    fn try_test(&self, record: &ConnectRecord, ctx: &RecordContext) -> Result<bool> {
        let _ = ctx;
        Ok(self.test(record))
    }
}

/// A transform plugin: its Java class name, its keys and a constructor.
#[derive(Clone, Copy)]
pub struct TransformationPlugin {
    /// Fully qualified Java class name, e.g.
    /// `org.apache.kafka.connect.transforms.InsertField$Value`.
    pub class_name: &'static str,
    /// The transform's configuration keys.
    pub config_def: fn() -> ConfigDef,
    /// A new, unconfigured instance.
    pub new: fn() -> Box<dyn Transformation>,
}

/// A predicate plugin: its Java class name, its keys and a constructor.
#[derive(Clone, Copy)]
pub struct PredicatePlugin {
    /// Fully qualified Java class name, e.g.
    /// `org.apache.kafka.connect.transforms.predicates.HasHeaderKey`.
    pub class_name: &'static str,
    /// The predicate's configuration keys.
    pub config_def: fn() -> ConfigDef,
    /// A new, unconfigured instance.
    pub new: fn() -> Box<dyn Predicate>,
}

impl std::fmt::Debug for TransformationPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.class_name)
    }
}

impl std::fmt::Debug for PredicatePlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.class_name)
    }
}
