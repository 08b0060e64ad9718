//! `HasHeaderKey`: the record has at least one header called `name`.

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectRecord, Importance, Predicate,
    PredicatePlugin, Result, Validator,
};

use crate::transforms::config::parse;

/// The HasHeaderKey predicate.
#[derive(Debug, Default)]
pub struct HasHeaderKey {
    name: String,
}

fn config_def() -> ConfigDef {
    ConfigDef::new().define(
        ConfigKey::new(
            "name",
            ConfigType::String,
            Def::Required,
            Importance::Medium,
            "The header name.",
        )
        .validator(Validator::NonEmptyString),
    )
}

impl Predicate for HasHeaderKey {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        self.name = values.string("name").unwrap_or_default().to_owned();
        Ok(())
    }

    fn test(&self, record: &ConnectRecord) -> bool {
        record.headers.iter().any(|h| h.key == self.name)
    }
}

/// The plugin descriptor.
pub const PLUGIN: PredicatePlugin = PredicatePlugin {
    class_name: "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
    config_def,
    new: || Box::<HasHeaderKey>::default(),
};

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::Value;

    fn configured(name: Option<&str>) -> Result<HasHeaderKey> {
        let mut p = HasHeaderKey::default();
        let mut props = ConfigMap::new();
        if let Some(n) = name {
            props.insert("name".into(), n.into());
        }
        p.configure(&props).map(|()| p)
    }

    #[test]
    fn matches_records_with_the_header() {
        let p = configured(Some("h")).unwrap();
        let mut r = ConnectRecord::default();
        assert!(!p.test(&r));
        r.headers.add("other", None, Value::Null);
        assert!(!p.test(&r));
        r.headers.add("h", None, Value::Null);
        assert!(p.test(&r));
    }

    #[test]
    fn name_is_required_and_non_empty() {
        let e = configured(None).unwrap_err().to_string();
        assert!(e.contains("Missing required configuration \"name\""), "{e}");
        let e = configured(Some("")).unwrap_err().to_string();
        assert!(e.contains("String must be non-empty"), "{e}");
    }
}
