//! Kafka Connect's logger names (Java packages and classes) and the connect-rs tracing targets
//! that do the same work, so that `PUT /admin/loggers/org.apache.kafka.connect.runtime` changes
//! what connect-rs logs for its worker and herder.

/// Kafka logger names that connect-rs knows, each with the tracing targets it stands for,
/// sorted by name.
pub const KAFKA_LOGGERS: &[(&str, &[&str])] = &[
    (
        "org.apache.kafka",
        &["connect_rs", "connect_api", "connect_file", "rdkafka"],
    ),
    (
        "org.apache.kafka.clients",
        &["rdkafka", "connect_rs::topics::kafka"],
    ),
    (
        "org.apache.kafka.connect",
        &["connect_rs", "connect_api", "connect_file"],
    ),
    ("org.apache.kafka.connect.cli", &["connect_rs::commands"]),
    ("org.apache.kafka.connect.file", &["connect_file"]),
    (
        "org.apache.kafka.connect.file.FileStreamSinkTask",
        &["connect_file::sink_task"],
    ),
    (
        "org.apache.kafka.connect.file.FileStreamSourceTask",
        &["connect_file::source_task"],
    ),
    (
        "org.apache.kafka.connect.json",
        &["connect_rs::converters::json"],
    ),
    (
        "org.apache.kafka.connect.runtime",
        &[
            "connect_rs::worker",
            "connect_rs::herder",
            "connect_rs::config",
            "connect_rs::plugins",
            "connect_rs::rest",
        ],
    ),
    (
        "org.apache.kafka.connect.runtime.WorkerSinkTask",
        &["connect_rs::worker::sink_task"],
    ),
    (
        "org.apache.kafka.connect.runtime.WorkerSourceTask",
        &["connect_rs::worker::source_task"],
    ),
    (
        "org.apache.kafka.connect.runtime.isolation",
        &["connect_rs::plugins"],
    ),
    (
        "org.apache.kafka.connect.runtime.rest",
        &["connect_rs::rest"],
    ),
    (
        "org.apache.kafka.connect.runtime.standalone",
        &["connect_rs::herder::standalone"],
    ),
    (
        "org.apache.kafka.connect.runtime.standalone.StandaloneHerder",
        &["connect_rs::herder::standalone"],
    ),
    ("org.apache.kafka.connect.storage", &["connect_rs::storage"]),
];

/// The tracing targets the logger `name` stands for: those of a known Kafka logger name, else
/// the name itself read as a target (Java-style `a.b.c` is `a::b::c`).
pub fn targets_of(name: &str) -> Vec<String> {
    match KAFKA_LOGGERS.iter().find(|(n, _)| *n == name) {
        Some((_, targets)) => targets.iter().map(|t| (*t).to_owned()).collect(),
        None => vec![target_of(name)],
    }
}

/// The tracing target a logger name stands for: Java-style `a.b.c` is `a::b::c`.
pub fn target_of(name: &str) -> String {
    name.replace('.', "::")
}

/// Whether `name` is a class logger name (its last segment starts with an upper-case letter):
/// Log4j has a logger per class that logs, none per package until one is set.
pub fn is_class(name: &str) -> bool {
    name.rsplit('.')
        .next()
        .and_then(|s| s.chars().next())
        .is_some_and(char::is_uppercase)
}

/// The class loggers of [`KAFKA_LOGGERS`]: the Kafka loggers that exist without being set.
pub fn class_loggers() -> impl Iterator<Item = &'static str> {
    KAFKA_LOGGERS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| is_class(n))
}

/// Whether `name` is a logger connect-rs knows without it having been set: a class logger of
/// [`KAFKA_LOGGERS`] or one of the tracing targets of [`KAFKA_LOGGERS`] (in either spelling).
/// A Kafka package name (`org.apache.kafka.connect.runtime`) exists only once set, as in
/// Kafka Connect.
pub fn is_known(name: &str) -> bool {
    let target = target_of(name);
    KAFKA_LOGGERS
        .iter()
        .any(|(n, targets)| (*n == name && is_class(n)) || targets.contains(&target.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_names_map_onto_targets() {
        assert!(KAFKA_LOGGERS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            targets_of("org.apache.kafka.connect.runtime.WorkerSourceTask"),
            ["connect_rs::worker::source_task"]
        );
        assert_eq!(targets_of("connect_rs.worker"), ["connect_rs::worker"]);
        assert!(!is_known("org.apache.kafka.connect.runtime"));
        assert!(is_known(
            "org.apache.kafka.connect.runtime.WorkerSourceTask"
        ));
        assert!(is_known("connect_rs.worker"));
        assert!(is_known("connect_rs::worker::sink_task"));
        assert!(!is_known("org.apache.kafka.connect.runtime.Nope"));
        assert!(!is_known("nothing"));
    }
}
