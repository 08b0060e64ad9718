//! `org.apache.kafka.connect.transforms.DropHeaders`: removes every header whose key is listed
//! in `headers`.

use std::collections::HashSet;

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectRecord, Importance, RecordContext, Result,
    Transformation, TransformationPlugin,
};

use crate::transforms::config::parse_checked;

/// The DropHeaders transform.
#[derive(Debug, Default)]
pub struct DropHeaders {
    headers: HashSet<String>,
}

fn config_def() -> ConfigDef {
    ConfigDef::new().define(ConfigKey::new(
        "headers",
        ConfigType::List,
        Def::Required,
        Importance::High,
        "The name of the headers to be removed.",
    ))
}

impl Transformation for DropHeaders {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        // Kafka 4.x validates with `ValidList` (duplicates allowed, not empty).
        let values = parse_checked(&config_def(), props, |key, raw| {
            (key == "headers" && raw.trim().is_empty()).then(|| {
                "Configuration 'headers' must not be empty. Valid values include: any non-empty \
                 value"
                    .to_owned()
            })
        })?;
        self.headers = values.list("headers").iter().cloned().collect();
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        record.headers.0.retain(|h| !self.headers.contains(&h.key));
        Ok(Some(record))
    }
}

/// The plugin descriptor.
pub const PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.DropHeaders",
    config_def,
    new: || Box::<DropHeaders>::default(),
};

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::Value;

    fn configured(headers: Option<&str>) -> Result<Box<dyn Transformation>> {
        let mut t = (PLUGIN.new)();
        let mut props = ConfigMap::new();
        if let Some(h) = headers {
            props.insert("headers".into(), h.into());
        }
        t.configure(&props).map(|()| t)
    }

    fn keys(record: &ConnectRecord) -> Vec<&str> {
        record.headers.iter().map(|h| h.key.as_str()).collect()
    }

    #[test]
    fn removes_every_listed_header_and_keeps_the_order_of_the_rest() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("a", &["a", "b", "a", "c"], &["b", "c"]),
            ("a, c", &["a", "b", "a", "c"], &["b"]),
            ("x", &["a", "b"], &["a", "b"]),
            ("a", &[], &[]),
        ];
        for (config, input, expected) in cases {
            let mut t = configured(Some(config)).unwrap();
            let mut record = ConnectRecord::default();
            for k in *input {
                record.headers.add(*k, None, Value::Null);
            }
            let out = t.apply(record, &RecordContext::source()).unwrap().unwrap();
            assert_eq!(keys(&out), *expected, "{config}");
        }
    }

    #[test]
    fn headers_is_required_and_non_empty() {
        let e = configured(None).err().unwrap().to_string();
        assert!(
            e.contains("Missing required configuration \"headers\" which has no default value."),
            "{e}"
        );
        let e = configured(Some("")).err().unwrap().to_string();
        assert!(
            e.ends_with(
                "Configuration 'headers' must not be empty. Valid values include: any non-empty value"
            ),
            "{e}"
        );
    }
}
