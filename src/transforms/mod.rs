//! Single message transforms and predicates, under Kafka Connect's class names. Pure: no I/O.
//! Each transform is one file with its `PLUGIN` descriptor(s); [`builtin_transformations`] and
//! [`builtin_predicates`] are the one list the plugin registry reads.

pub mod config;
pub mod filter;
pub mod predicates;
pub mod util;

use connect_api::{PredicatePlugin, TransformationPlugin};

/// Every built-in transform.
pub fn builtin_transformations() -> Vec<TransformationPlugin> {
    vec![filter::PLUGIN]
}

/// Every built-in predicate.
pub fn builtin_predicates() -> Vec<PredicatePlugin> {
    vec![
        predicates::has_header_key::PLUGIN,
        predicates::record_is_tombstone::PLUGIN,
        predicates::topic_name_matches::PLUGIN,
    ]
}
