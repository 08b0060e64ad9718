//! How the plugin part of a Java connector's validation (the plugin host's answer) joins the
//! framework part connect-rs computed, as Kafka Connect's
//! `AbstractHerder.validateConnectorPluginSpecifiedConfigs` joins them: the plugin's keys are
//! `putAll` over the framework's (a key both define keeps the framework's place and takes the
//! plugin's definition), the plugin's values replace the framework's of the same name (Kafka's
//! `generateResult` keeps the last value of a name), new keys follow the framework's, and the
//! plugin's groups follow the framework's. A key no definition knows is listed only with an
//! error (a JSON null), as Kafka lists it.

use super::entities::{ConfigInfo, ConfigInfos, ConfigValueInfo};
use crate::config::providers::{has_placeholder, Redactor};
use crate::plugin_host::scan::ValidateResult;

/// The number of error messages over all values.
pub(super) fn error_count(configs: &[ConfigInfo]) -> usize {
    configs
        .iter()
        .filter_map(|c| c.value.as_ref())
        .map(|v| v.errors.len())
        .sum()
}

/// `framework` joined with the plugin's `part`. `given` is the value of a key as the request
/// gave it: a value with placeholders is shown as given (the plugin saw it resolved), and
/// `redactor` hides resolved values in the plugin's messages, as for the framework's.
pub(super) fn join<'a>(
    framework: ConfigInfos,
    part: ValidateResult,
    given: impl Fn(&str) -> Option<&'a str>,
    redactor: &Redactor,
) -> ConfigInfos {
    let shown = |v: ConfigValueInfo| {
        let mut v = v;
        if let Some(raw) = given(&v.name).filter(|raw| has_placeholder(raw)) {
            v.value = Some(raw.to_owned());
        }
        v.errors = (v.errors.iter())
            .map(|e| redactor.redact(e).into_owned())
            .collect();
        v
    };
    let plugin: Vec<ConfigInfo> = part
        .configs
        .into_iter()
        .map(|c| ConfigInfo {
            definition: c.definition.map(Into::into),
            value: c.value.map(|v| shown(v.into())),
        })
        .collect();
    let (plugin_defined, plugin_values): (Vec<ConfigInfo>, Vec<ConfigInfo>) =
        plugin.into_iter().partition(|c| c.definition.is_some());
    let plugin_defined: Vec<(String, ConfigInfo)> = plugin_defined
        .into_iter()
        .filter_map(|c| Some((c.definition.as_ref()?.name.clone(), c)))
        .collect();
    let mut plugin_values: Vec<Option<ConfigValueInfo>> =
        plugin_values.into_iter().map(|c| c.value).collect();
    let mut take_value = |name: &str| {
        plugin_values
            .iter_mut()
            .find(|v| v.as_ref().is_some_and(|v| v.name == name))
            .and_then(Option::take)
    };
    let (framework_undefined, framework_defined): (Vec<ConfigInfo>, Vec<ConfigInfo>) = framework
        .configs
        .into_iter()
        .partition(|c| c.definition.is_none());
    let defines = |name: &str| plugin_defined.iter().any(|(n, _)| n == name);
    let framework_defines = |name: &str| {
        framework_defined
            .iter()
            .any(|c| c.definition.as_ref().is_some_and(|d| d.name == name))
    };

    let mut configs = Vec::new();
    // Values no definition knows: the framework's with errors (a null, a placeholder that
    // does not resolve; Kafka lists no other key that neither definition knows) unless the
    // plugin defines the key, or reports a value of its own for it; then the plugin's.
    for c in framework_undefined {
        let name = c.value.as_ref().map(|v| v.name.clone()).unwrap_or_default();
        let has_errors = c.value.as_ref().is_some_and(|v| !v.errors.is_empty());
        if defines(&name) || !has_errors {
            continue;
        }
        let value = take_value(&name).or(c.value);
        configs.push(ConfigInfo {
            definition: None,
            value,
        });
    }
    let mut later = Vec::new();
    for value in plugin_values.iter_mut().filter_map(Option::take) {
        if framework_defines(&value.name) {
            later.push(value);
        } else {
            configs.push(ConfigInfo {
                definition: None,
                value: Some(value),
            });
        }
    }
    // The framework's keys in place: a key the plugin defines too takes its definition (and
    // its value, when it reports one); a value the plugin reports without defining the key
    // replaces the framework's.
    let mut plugin_defined = plugin_defined;
    for mut c in framework_defined {
        let name = c
            .definition
            .as_ref()
            .map(|d| d.name.clone())
            .unwrap_or_default();
        if let Some(i) = plugin_defined.iter().position(|(n, _)| *n == name) {
            let (_, p) = plugin_defined.remove(i);
            c.definition = p.definition;
            if p.value.is_some() {
                c.value = p.value;
            }
        } else if let Some(i) = later.iter().position(|v| v.name == name) {
            c.value = Some(later.remove(i));
        }
        configs.push(c);
    }
    configs.extend(plugin_defined.into_iter().map(|(_, c)| c));

    let mut groups = framework.groups;
    for g in part.groups {
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    ConfigInfos {
        name: framework.name,
        error_count: error_count(&configs),
        groups,
        configs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::herder::validate::entities::ConfigKeyInfo;
    use crate::plugin_host::scan;

    fn key(name: &str, group: Option<&str>) -> ConfigKeyInfo {
        ConfigKeyInfo {
            name: name.to_owned(),
            config_type: "STRING".to_owned(),
            required: false,
            default_value: None,
            importance: "HIGH".to_owned(),
            documentation: Some(format!("doc of {name}")),
            group: group.map(str::to_owned),
            order_in_group: -1,
            width: "NONE".to_owned(),
            display_name: Some(name.to_owned()),
            dependents: Vec::new(),
        }
    }

    fn value(name: &str, v: Option<&str>, errors: &[&str]) -> ConfigValueInfo {
        ConfigValueInfo {
            name: name.to_owned(),
            value: v.map(str::to_owned),
            recommended_values: Vec::new(),
            errors: errors.iter().map(|e| (*e).to_owned()).collect(),
            visible: true,
        }
    }

    fn scan_info(def: Option<ConfigKeyInfo>, v: Option<ConfigValueInfo>) -> scan::ConfigInfo {
        scan::ConfigInfo {
            definition: def.map(|d| scan::ConfigKeyInfo {
                name: d.name,
                kind: d.config_type,
                required: d.required,
                default_value: d.default_value,
                importance: d.importance,
                documentation: d.documentation,
                group: d.group,
                order_in_group: d.order_in_group,
                width: d.width,
                display_name: d.display_name,
                dependents: d.dependents,
            }),
            value: v.map(|v| scan::ConfigValueInfo {
                name: v.name,
                value: v.value,
                recommended_values: v.recommended_values,
                errors: v.errors,
                visible: v.visible,
            }),
        }
    }

    fn names(infos: &ConfigInfos) -> Vec<(bool, String, Vec<String>)> {
        infos
            .configs
            .iter()
            .map(|c| {
                let v = c.value.as_ref().unwrap();
                (c.definition.is_some(), v.name.clone(), v.errors.clone())
            })
            .collect()
    }

    #[test]
    fn plugin_keys_follow_the_framework_and_replace_what_both_define() {
        let framework = ConfigInfos {
            name: "C".to_owned(),
            error_count: 2,
            groups: vec!["Common".to_owned()],
            configs: vec![
                ConfigInfo {
                    definition: None,
                    value: Some(value("topic", Some("t"), &[])),
                },
                ConfigInfo {
                    definition: None,
                    value: Some(value("other", None, &["Null value"])),
                },
                ConfigInfo {
                    definition: Some(key("name", Some("Common"))),
                    value: Some(value("name", None, &["Missing name"])),
                },
                ConfigInfo {
                    definition: Some(key("tasks.max", Some("Common"))),
                    value: Some(value("tasks.max", Some("1"), &["framework"])),
                },
            ],
        };
        let part = ValidateResult {
            error_count: 2,
            groups: vec!["Plugin".to_owned(), "Common".to_owned()],
            configs: vec![
                scan_info(None, Some(value("name", Some("n"), &["from validate"]))),
                scan_info(
                    Some(key("tasks.max", Some("Plugin"))),
                    Some(value("tasks.max", Some("1"), &[])),
                ),
                scan_info(
                    Some(key("topic", Some("Plugin"))),
                    Some(value("topic", Some("t"), &["bad topic"])),
                ),
            ],
        };
        let joined = join(framework, part, |_| None, &Redactor::default());
        assert_eq!(
            names(&joined),
            [
                (false, "other".to_owned(), vec!["Null value".to_owned()]),
                (true, "name".to_owned(), vec!["from validate".to_owned()]),
                (true, "tasks.max".to_owned(), vec![]),
                (true, "topic".to_owned(), vec!["bad topic".to_owned()]),
            ]
        );
        assert_eq!(
            joined.configs[2]
                .definition
                .as_ref()
                .unwrap()
                .group
                .as_deref(),
            Some("Plugin")
        );
        assert_eq!(joined.error_count, 3);
        assert_eq!(joined.groups, ["Common", "Plugin"]);
    }

    #[test]
    fn values_with_placeholders_are_shown_as_given() {
        let framework = ConfigInfos {
            name: "C".to_owned(),
            error_count: 0,
            groups: vec![],
            configs: vec![],
        };
        let part = ValidateResult {
            error_count: 0,
            groups: vec![],
            configs: vec![scan_info(
                Some(key("password", None)),
                Some(value("password", Some("s3cret"), &[])),
            )],
        };
        let given = |k: &str| (k == "password").then_some("${file:/x:p}");
        let joined = join(framework, part, given, &Redactor::default());
        assert_eq!(
            joined.configs[0].value.as_ref().unwrap().value.as_deref(),
            Some("${file:/x:p}")
        );
    }
}
