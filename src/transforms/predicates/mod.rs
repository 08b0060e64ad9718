//! Transform predicates (`org.apache.kafka.connect.transforms.predicates.*`).

pub mod has_header_key;
pub mod record_is_tombstone;
pub mod topic_name_matches;
