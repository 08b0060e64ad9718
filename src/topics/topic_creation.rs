//! KIP-158 topic creation for source connectors: `topic.creation.groups`, and per group
//! (`default` and named ones) `include`/`exclude` regexes, `partitions`, `replication.factor`
//! and any other topic-level config. The first named group (in `topic.creation.groups` order)
//! whose include matches and whose exclude does not, wins; otherwise `default`.

use connect_api::ConfigMap;
use regex::Regex;

/// The topic settings of one group.
#[derive(Debug, Clone)]
pub struct TopicSettings {
    /// Group name (`default` or one of `topic.creation.groups`).
    pub group: String,
    /// Partitions; -1 = the broker's default.
    pub partitions: i32,
    /// Replication factor; -1 = the broker's default.
    pub replication_factor: i32,
    /// Other topic-level configs (`cleanup.policy`, `retention.ms`, ...).
    pub configs: ConfigMap,
}

#[derive(Debug, Clone)]
struct Group {
    include: Vec<Regex>,
    exclude: Vec<Regex>,
    settings: TopicSettings,
}

/// A connector's topic creation rules.
#[derive(Debug, Clone)]
pub struct TopicCreation {
    named: Vec<Group>,
    default: TopicSettings,
}

fn regexes(list: Option<&String>, key: &str) -> Result<Vec<Regex>, String> {
    list.map(|l| {
        l.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
    })
    .unwrap_or_default()
    .into_iter()
    .map(|p| {
        Regex::new(&format!("^(?:{p})$")).map_err(|e| format!("{key}: invalid regex {p}: {e}"))
    })
    .collect()
}

fn number(props: &ConfigMap, key: &str, fallback: Option<i32>) -> Result<i32, String> {
    match props.get(key) {
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{key}: not a number: {v}")),
        None => fallback.ok_or_else(|| {
            format!("Missing required configuration \"{key}\" which has no default value.")
        }),
    }
}

fn settings(
    props: &ConfigMap,
    group: &str,
    default: Option<&TopicSettings>,
) -> Result<TopicSettings, String> {
    let prefix = format!("topic.creation.{group}.");
    let mut configs = default.map(|d| d.configs.clone()).unwrap_or_default();
    for (k, v) in props {
        if let Some(name) = k.strip_prefix(&prefix) {
            if !matches!(
                name,
                "include" | "exclude" | "partitions" | "replication.factor"
            ) {
                configs.insert(name.to_owned(), v.clone());
            }
        }
    }
    Ok(TopicSettings {
        group: group.to_owned(),
        partitions: number(
            props,
            &format!("{prefix}partitions"),
            default.map(|d| d.partitions),
        )?,
        replication_factor: number(
            props,
            &format!("{prefix}replication.factor"),
            default.map(|d| d.replication_factor),
        )?,
        configs,
    })
}

impl TopicCreation {
    /// The rules of a connector, or `None` when it sets no `topic.creation.` key.
    ///
    /// # Errors
    /// A message naming the bad key.
    pub fn from_connector(props: &ConfigMap) -> Result<Option<Self>, String> {
        if !props.keys().any(|k| k.starts_with("topic.creation.")) {
            return Ok(None);
        }
        let default = settings(props, "default", None)?;
        let mut named = Vec::new();
        for name in props
            .get("topic.creation.groups")
            .map(|g| {
                g.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
        {
            let prefix = format!("topic.creation.{name}.");
            named.push(Group {
                include: regexes(
                    props.get(&format!("{prefix}include")),
                    &format!("{prefix}include"),
                )?,
                exclude: regexes(
                    props.get(&format!("{prefix}exclude")),
                    &format!("{prefix}exclude"),
                )?,
                settings: settings(props, &name, Some(&default))?,
            });
        }
        Ok(Some(Self { named, default }))
    }

    /// The settings for `topic`.
    pub fn settings_for(&self, topic: &str) -> &TopicSettings {
        self.named
            .iter()
            .find(|g| {
                g.include.iter().any(|r| r.is_match(topic))
                    && !g.exclude.iter().any(|r| r.is_match(topic))
            })
            .map_or(&self.default, |g| &g.settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn groups_match_in_order_with_exclusion_winning_and_inherit_the_default() {
        let tc = TopicCreation::from_connector(&props(&[
            ("topic.creation.groups", "compacted, big"),
            ("topic.creation.default.partitions", "3"),
            ("topic.creation.default.replication.factor", "1"),
            ("topic.creation.default.retention.ms", "1000"),
            ("topic.creation.compacted.include", "state-.*"),
            ("topic.creation.compacted.exclude", "state-tmp"),
            ("topic.creation.compacted.cleanup.policy", "compact"),
            ("topic.creation.big.include", "state-tmp, big-.*"),
            ("topic.creation.big.partitions", "12"),
        ]))
        .unwrap()
        .unwrap();
        let s = tc.settings_for("state-users");
        assert_eq!(
            (s.group.as_str(), s.partitions, s.replication_factor),
            ("compacted", 3, 1)
        );
        assert_eq!(
            s.configs.get("cleanup.policy").map(String::as_str),
            Some("compact")
        );
        assert_eq!(
            s.configs.get("retention.ms").map(String::as_str),
            Some("1000")
        );
        assert_eq!(tc.settings_for("state-tmp").group, "big");
        assert_eq!(tc.settings_for("big-data").partitions, 12);
        assert_eq!(tc.settings_for("other").group, "default");
    }

    #[test]
    fn no_topic_creation_keys_means_none_and_a_missing_default_is_named() {
        assert!(TopicCreation::from_connector(&props(&[("topic", "t")]))
            .unwrap()
            .is_none());
        let err =
            TopicCreation::from_connector(&props(&[("topic.creation.default.partitions", "1")]))
                .unwrap_err();
        assert!(
            err.contains("topic.creation.default.replication.factor"),
            "{err}"
        );
    }
}
