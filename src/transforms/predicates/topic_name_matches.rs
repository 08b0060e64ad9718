//! `TopicNameMatches`: the record's topic fully matches the regex `pattern`.

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectError, ConnectRecord, Importance,
    Predicate, PredicatePlugin, Result, Validator,
};
use regex::Regex;

use crate::transforms::config::parse;

/// The TopicNameMatches predicate.
#[derive(Debug, Default)]
pub struct TopicNameMatches {
    pattern: Option<Regex>,
}

fn config_def() -> ConfigDef {
    ConfigDef::new().define(
        ConfigKey::new(
            "pattern",
            ConfigType::String,
            Def::Required,
            Importance::Medium,
            "A Java regular expression matched against the whole topic name.",
        )
        .validator(Validator::NonEmptyString),
    )
}

impl Predicate for TopicNameMatches {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        let pattern = values.string("pattern").unwrap_or_default();
        let regex = Regex::new(&format!("^(?:{pattern})$")).map_err(|e| {
            ConnectError::config(
                "pattern",
                format!("Invalid value {pattern} for configuration pattern: Invalid regex: {e}"),
            )
        })?;
        self.pattern = Some(regex);
        Ok(())
    }

    fn test(&self, record: &ConnectRecord) -> bool {
        self.pattern
            .as_ref()
            .is_some_and(|p| p.is_match(&record.topic))
    }
}

/// The plugin descriptor.
pub const PLUGIN: PredicatePlugin = PredicatePlugin {
    class_name: "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    config_def,
    new: || Box::<TopicNameMatches>::default(),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(pattern: &str) -> Result<TopicNameMatches> {
        let mut p = TopicNameMatches::default();
        let props = ConfigMap::from([("pattern".to_owned(), pattern.to_owned())]);
        p.configure(&props).map(|()| p)
    }

    fn topic(t: &str) -> ConnectRecord {
        ConnectRecord {
            topic: t.into(),
            ..ConnectRecord::default()
        }
    }

    #[test]
    fn the_whole_topic_must_match() {
        let p = configured("a|ab").unwrap();
        assert!(p.test(&topic("a")));
        assert!(p.test(&topic("ab")));
        assert!(!p.test(&topic("abc")));
        assert!(!p.test(&topic("xa")));
    }

    #[test]
    fn a_bad_regex_names_the_key() {
        let e = configured("(").unwrap_err().to_string();
        assert!(e.contains("pattern"), "{e}");
        assert!(e.contains("Invalid regex"), "{e}");
    }
}
