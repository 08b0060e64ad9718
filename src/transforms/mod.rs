//! Single message transforms and predicates, under Kafka Connect's class names. Pure: no I/O.
//! Each transform is one file with its `PLUGIN` descriptor(s); [`builtin_transformations`] and
//! [`builtin_predicates`] are the one list the plugin registry reads.

pub mod cast;
pub mod config;
pub mod date_format;
pub mod drop_headers;
pub mod filter;
pub mod header_from;
pub mod insert_header;
pub mod predicates;
pub mod regex_router;
pub mod timestamp_converter;
pub mod timestamp_router;
pub mod util;

use connect_api::{PredicatePlugin, TransformationPlugin};

/// Every built-in transform.
pub fn builtin_transformations() -> Vec<TransformationPlugin> {
    vec![
        cast::KEY_PLUGIN,
        cast::VALUE_PLUGIN,
        drop_headers::PLUGIN,
        filter::PLUGIN,
        header_from::KEY_PLUGIN,
        header_from::VALUE_PLUGIN,
        insert_header::PLUGIN,
        regex_router::PLUGIN,
        timestamp_converter::KEY_PLUGIN,
        timestamp_converter::VALUE_PLUGIN,
        timestamp_router::PLUGIN,
    ]
}

/// Every built-in predicate.
pub fn builtin_predicates() -> Vec<PredicatePlugin> {
    vec![
        predicates::has_header_key::PLUGIN,
        predicates::record_is_tombstone::PLUGIN,
        predicates::topic_name_matches::PLUGIN,
    ]
}
