//! Sinks with `errors.tolerance=all` and no `errors.deadletterqueue.topic.name`: every record
//! that fails conversion or a transform is skipped, and kept nowhere.

use super::{ConnectorFile, Finding, Severity};
use crate::plugins::ConnectorPlugin;

/// A warning for a sink that tolerates all errors without a dead letter queue.
pub fn check(connector: &ConnectorFile) -> Vec<Finding> {
    let raw = &connector.raw;
    let tolerates_all = raw
        .get("errors.tolerance")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("all"));
    let has_dlq = raw
        .get("errors.deadletterqueue.topic.name")
        .is_some_and(|v| !v.trim().is_empty());
    if !matches!(connector.plugin, ConnectorPlugin::Sink(_)) || !tolerates_all || has_dlq {
        return Vec::new();
    }
    let logged = raw
        .get("errors.log.enable")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let kept = if logged {
        "only a log line tells of them"
    } else {
        "not even a log line tells of them (errors.log.enable is false)"
    };
    vec![Finding::new(
        Severity::Warning,
        "errors-tolerance",
        &connector.path,
        format!(
            "errors.tolerance=all without errors.deadletterqueue.topic.name: records that fail \
             conversion or a transform are skipped and lost; {kept}."
        ),
        "Set errors.deadletterqueue.topic.name to keep them (and replay them later with \
         `connect-rs dlq replay`), or errors.tolerance=none to stop on the first bad record.",
    )
    .at("errors.tolerance", raw.line("errors.tolerance"))]
}
