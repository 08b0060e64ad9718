//! A source record's offset: Kafka Connect's `Map<String, ?>`, with a compact form for the
//! common one-integer offset.

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::record::OffsetMap;

/// The position in a source partition after a record.
///
/// The worker commits offsets per poll batch: of each partition's records in a batch, only the
/// last one's offset is stored. [`SourceOffset::Position`] lets a source give every record its
/// offset without building a map per record (three allocations): the map is made only for the
/// offsets that are stored or reported.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceOffset {
    /// Any offset.
    Map(OffsetMap),
    /// `{field: value}`: one non-negative integer, e.g. `{"position": 1234}`.
    Position {
        /// The map's only key.
        field: &'static str,
        /// Its value.
        value: u64,
    },
}

impl SourceOffset {
    /// The offset as a map.
    pub fn into_map(self) -> OffsetMap {
        match self {
            Self::Map(map) => map,
            Self::Position { field, value } => {
                let mut map = OffsetMap::with_capacity(1);
                map.insert(field.to_owned(), value.into());
                map
            }
        }
    }

    /// The value of `key`, if the offset has it.
    pub fn get(&self, key: &str) -> Option<serde_json::Value> {
        match self {
            Self::Map(map) => map.get(key).cloned(),
            Self::Position { field, value } => (*field == key).then(|| (*value).into()),
        }
    }
}

impl From<OffsetMap> for SourceOffset {
    fn from(map: OffsetMap) -> Self {
        Self::Map(map)
    }
}

/// Serialized as the map it stands for.
impl Serialize for SourceOffset {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Map(map) => map.serialize(serializer),
            Self::Position { field, value } => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(field, value)?;
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_reads_serializes_and_converts_like_its_map() {
        let position = SourceOffset::Position {
            field: "position",
            value: 1234,
        };
        let mut map = OffsetMap::new();
        map.insert("position".to_owned(), 1234.into());
        assert_eq!(
            serde_json::to_string(&position).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(position.get("position"), Some(1234.into()));
        assert_eq!(position.get("other"), None);
        assert_eq!(position.clone().into_map(), map);
        let from_map = SourceOffset::from(map.clone());
        assert_eq!(from_map.get("position"), Some(1234.into()));
        assert_eq!(from_map.into_map(), map);
    }
}
