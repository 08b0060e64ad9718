//! Single message transforms and predicates, under Kafka Connect's class names. Pure: no I/O.
//! Each transform is one file with its `PLUGIN` descriptor(s); [`builtin_transformations`] and
//! [`builtin_predicates`] are the one list the plugin registry reads.

pub mod cast;
pub mod config;
pub mod date_format;
pub mod drop_headers;
pub mod extract_field;
pub mod filter;
pub mod flatten;
pub mod header_from;
pub mod hoist_field;
pub mod insert_field;
pub mod insert_header;
pub mod mask_field;
pub mod name_lookup;
pub mod predicates;
pub mod regex_router;
pub mod replace_field;
pub mod set_schema_metadata;
#[cfg(test)]
mod test_support;
pub mod timestamp_converter;
pub mod timestamp_router;
pub mod util;
pub mod value_to_key;

use connect_api::{PredicatePlugin, TransformationPlugin};

/// Every built-in transform.
pub fn builtin_transformations() -> Vec<TransformationPlugin> {
    vec![
        cast::KEY_PLUGIN,
        cast::VALUE_PLUGIN,
        drop_headers::PLUGIN,
        extract_field::KEY_PLUGIN,
        extract_field::VALUE_PLUGIN,
        filter::PLUGIN,
        flatten::KEY_PLUGIN,
        flatten::VALUE_PLUGIN,
        header_from::KEY_PLUGIN,
        header_from::VALUE_PLUGIN,
        hoist_field::KEY_PLUGIN,
        hoist_field::VALUE_PLUGIN,
        insert_field::KEY_PLUGIN,
        insert_field::VALUE_PLUGIN,
        insert_header::PLUGIN,
        mask_field::KEY_PLUGIN,
        mask_field::VALUE_PLUGIN,
        regex_router::PLUGIN,
        replace_field::KEY_PLUGIN,
        replace_field::VALUE_PLUGIN,
        set_schema_metadata::KEY_PLUGIN,
        set_schema_metadata::VALUE_PLUGIN,
        timestamp_converter::KEY_PLUGIN,
        timestamp_converter::VALUE_PLUGIN,
        timestamp_router::PLUGIN,
        value_to_key::PLUGIN,
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
