//! `RecordIsTombstone`: the record's value is null.

use connect_api::{ConfigDef, ConfigMap, ConnectRecord, Predicate, PredicatePlugin, Result};

/// The RecordIsTombstone predicate.
#[derive(Debug, Default)]
pub struct RecordIsTombstone;

impl Predicate for RecordIsTombstone {
    fn configure(&mut self, _props: &ConfigMap) -> Result<()> {
        Ok(())
    }

    fn test(&self, record: &ConnectRecord) -> bool {
        record.value.is_null()
    }
}

/// The plugin descriptor.
pub const PLUGIN: PredicatePlugin = PredicatePlugin {
    class_name: "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    config_def: ConfigDef::new,
    new: || Box::new(RecordIsTombstone),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_values_are_tombstones() {
        let p = RecordIsTombstone;
        let mut r = ConnectRecord::default();
        assert!(p.test(&r));
        r.value = "x".into();
        assert!(!p.test(&r));
    }
}
