//! The keys of a connector's own Java converters in `config/validate`, as Kafka Connect's
//! `AbstractHerder.validateConverterConfig` adds them: for each of `header.converter`,
//! `key.converter` and `value.converter` the connector sets (and whose class and version have
//! no error), the converter's `config().validate(...)` of its prefixed keys (with
//! `converter.type`), every key and value named with the prefix, groups and errors as the
//! plugin gives them; appended after the connector's keys. A built-in converter's keys are
//! not listed (docs/compatibility.md).

use super::entities::{ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo};
use super::{remote, ValidateError};
use crate::plugins::PluginRegistry;

/// Appends the keys of the connector's Java converters to `result`.
///
/// # Errors
/// As [`remote::validate`].
pub(super) async fn append_java_converters<'a>(
    plugins: &PluginRegistry,
    given: impl Fn(&str) -> Option<&'a str>,
    props: &[(String, Option<String>)],
    result: &mut ConfigInfos,
) -> Result<(), ValidateError> {
    for (key, converter_type) in [
        ("header.converter", "header"),
        ("key.converter", "key"),
        ("value.converter", "value"),
    ] {
        let Some(class) = given(key).map(str::trim) else {
            continue;
        };
        let version_key = format!("{key}.plugin.version");
        let has_errors = |name: &str| {
            result.configs.iter().any(|c| {
                c.value
                    .as_ref()
                    .is_some_and(|v| v.name == name && !v.errors.is_empty())
            })
        };
        if has_errors(key) || has_errors(&version_key) {
            continue;
        }
        let header = converter_type == "header";
        let Some(desc) = plugins.java_converter_desc(class, given(&version_key), header) else {
            continue;
        };
        let prefix = format!("{key}.");
        let mut stage: Vec<(String, Option<String>)> = props
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?.to_owned(), v.clone())))
            .collect();
        if !stage.iter().any(|(k, _)| k == "converter.type") {
            stage.push(("converter.type".to_owned(), Some(converter_type.to_owned())));
        }
        let part = remote::validate_ordered(plugins, &desc, &stage, true).await?;
        for c in part.configs {
            let definition = c.definition.map(|d| {
                let mut d = ConfigKeyInfo::from(d);
                d.name = format!("{prefix}{}", d.name);
                d.dependents = d
                    .dependents
                    .iter()
                    .map(|x| format!("{prefix}{x}"))
                    .collect();
                d
            });
            let value = c.value.map(|v| {
                let mut v = ConfigValueInfo::from(v);
                v.name = format!("{prefix}{}", v.name);
                v
            });
            result.error_count += value.as_ref().map_or(0, |v| v.errors.len());
            result.configs.push(ConfigInfo { definition, value });
        }
        for group in part.groups {
            if !result.groups.contains(&group) {
                result.groups.push(group);
            }
        }
    }
    Ok(())
}
