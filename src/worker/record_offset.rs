//! A source record's place in its source: its partition and its offset as the task gave it.
//! Kept per record through a batch; only the offsets that are stored become maps
//! ([`connect_api::SourceOffset`]).

use std::sync::Arc;

use connect_api::{OffsetMap, SourceOffset};

use crate::storage::OffsetEntry;

/// The source partition and source offset of one polled record.
pub type RecordOffset = (Arc<OffsetMap>, Option<SourceOffset>);

/// The form the offset stores keep: the offset as a map.
pub fn into_entry((partition, offset): RecordOffset) -> OffsetEntry {
    (partition, offset.map(SourceOffset::into_map))
}

/// Whether two records belong to the same source partition (the same map, shared or equal).
pub fn same_partition(a: &Arc<OffsetMap>, b: &Arc<OffsetMap>) -> bool {
    Arc::ptr_eq(a, b) || **a == **b
}
