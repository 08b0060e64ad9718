//! Connector keys that Kafka Connect honours and connect-rs does not implement yet, and that
//! would change what data is written: the sink dead letter queue.
//! They are refused (file, line and key named), never accepted and skipped.

use super::connector::ConnectorKind;
use super::error::ConfigProblem;
use super::raw::RawConfig;

/// A family of keys that is not implemented yet.
struct Unsupported {
    /// Whether `key` (with `value`) belongs to the family and would change behaviour.
    applies: fn(&str, &str, ConnectorKind) -> bool,
    /// What connect-rs would silently not do.
    consequence: &'static str,
}

const FAMILIES: &[Unsupported] = &[Unsupported {
    applies: |key, value, kind| {
        kind == ConnectorKind::Sink
            && key.starts_with("errors.deadletterqueue.")
            && !is_dlq_default(key, value)
    },
    consequence: "the dead letter queue is not implemented yet, so failed records would \
                      not be written to it",
}];

/// Whether `value` is Kafka's default for a dead letter queue key (i.e. asks for nothing).
fn is_dlq_default(key: &str, value: &str) -> bool {
    let value = value.trim();
    match key {
        "errors.deadletterqueue.topic.name" => value.is_empty(),
        "errors.deadletterqueue.topic.replication.factor" => value == "3",
        "errors.deadletterqueue.context.headers.enable" => value.eq_ignore_ascii_case("false"),
        _ => false,
    }
}

/// The message for `key`, when it is one that connect-rs refuses.
pub(crate) fn unsupported_message(key: &str, value: &str, kind: ConnectorKind) -> Option<String> {
    FAMILIES
        .iter()
        .find(|f| (f.applies)(key, value, kind))
        .map(|f| {
            format!(
                "'{key}' is not supported yet: {}. Remove it, or run this connector on Apache \
                 Kafka Connect.",
                f.consequence
            )
        })
}

/// One problem per key of `raw` that is not supported yet.
pub(crate) fn check_unsupported(
    raw: &RawConfig,
    kind: ConnectorKind,
    problems: &mut Vec<ConfigProblem>,
) {
    for (key, entry) in raw.iter() {
        if let Some(message) = unsupported_message(key, &entry.value, kind) {
            problems.push(ConfigProblem::for_key(entry.origin.clone(), key, message));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dlq_is_refused_defaults_and_transforms_are_not() {
        let sink = ConnectorKind::Sink;
        assert!(unsupported_message("transforms", "route", sink).is_none());
        assert!(unsupported_message("predicates.p.type", "X", sink).is_none());
        assert!(unsupported_message("errors.deadletterqueue.topic.name", "dlq", sink).is_some());
        assert!(unsupported_message("errors.deadletterqueue.topic.name", "", sink).is_none());
        assert!(unsupported_message(
            "errors.deadletterqueue.context.headers.enable",
            "true",
            sink
        )
        .is_some());
        assert!(
            unsupported_message("errors.deadletterqueue.topic.replication.factor", "3", sink)
                .is_none()
        );
        // Kafka Connect has no dead letter queue for sources either: an unknown key there.
        assert!(unsupported_message(
            "errors.deadletterqueue.topic.name",
            "dlq",
            ConnectorKind::Source
        )
        .is_none());
        assert!(unsupported_message("topics", "a", sink).is_none());
        let m = unsupported_message("errors.deadletterqueue.topic.name", "dlq", sink)
            .unwrap_or_default();
        assert!(
            m.starts_with("'errors.deadletterqueue.topic.name' is not supported yet"),
            "{m}"
        );
    }
}
