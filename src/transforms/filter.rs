//! `org.apache.kafka.connect.transforms.Filter`: drops every record it is applied to (used
//! with a predicate).

use connect_api::{
    ConfigDef, ConfigMap, ConnectRecord, RecordContext, Result, Transformation,
    TransformationPlugin,
};

/// The Filter transform.
#[derive(Debug, Default)]
pub struct Filter;

impl Transformation for Filter {
    fn configure(&mut self, _props: &ConfigMap) -> Result<()> {
        Ok(())
    }

    fn apply(
        &mut self,
        _record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        Ok(None)
    }
}

/// The plugin descriptor.
pub const PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.Filter",
    config_def: ConfigDef::new,
    new: || Box::new(Filter),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_every_record() {
        let mut f = (PLUGIN.new)();
        f.configure(&ConfigMap::new()).unwrap();
        let record = ConnectRecord {
            topic: "t".into(),
            ..ConnectRecord::default()
        };
        assert_eq!(f.apply(record, &RecordContext::source()).unwrap(), None);
    }
}
