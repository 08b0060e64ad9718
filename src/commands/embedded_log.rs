//! The embedded log's options, read from the worker configuration (the topics layer does not
//! read configuration; the commands that open the log build its options here).

use crate::config::WorkerConfig;
use crate::topics::local::LocalLogOptions;

/// The embedded log's options: `num.partitions`, `embedded.log.buffer.memory` (bytes produced
/// but not yet durable), `embedded.log.fetch.max.bytes` (bytes per sink poll) and
/// `embedded.log.exactly.once.source` (default true).
pub fn options(config: &WorkerConfig) -> LocalLogOptions {
    let values = config.values();
    let bytes = |key: &str, default: usize| {
        values
            .long(key)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n > 0)
            .unwrap_or(default)
    };
    let mut options = LocalLogOptions::new(config.num_partitions());
    options.max_in_flight_bytes = bytes("embedded.log.buffer.memory", options.max_in_flight_bytes);
    options.max_poll_bytes = bytes("embedded.log.fetch.max.bytes", options.max_poll_bytes);
    options.exactly_once_source = values
        .boolean("embedded.log.exactly.once.source")
        .unwrap_or(true);
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(pairs: &[(&str, &str)]) -> WorkerConfig {
        WorkerConfig::for_tests(pairs)
    }

    #[test]
    fn embedded_log_byte_bounds_have_defaults() {
        let defaults = options(&worker(&[]));
        assert_eq!(defaults.max_in_flight_bytes, 16 * 1024 * 1024);
        assert_eq!(defaults.max_poll_bytes, 8 * 1024 * 1024);
        assert!(defaults.exactly_once_source);
        let set = options(&worker(&[
            ("num.partitions", "3"),
            ("embedded.log.buffer.memory", "1048576"),
            ("embedded.log.fetch.max.bytes", "65536"),
            ("embedded.log.exactly.once.source", "false"),
        ]));
        assert_eq!(
            (
                set.num_partitions,
                set.max_in_flight_bytes,
                set.max_poll_bytes,
                set.exactly_once_source
            ),
            (3, 1_048_576, 65_536, false)
        );
    }
}
