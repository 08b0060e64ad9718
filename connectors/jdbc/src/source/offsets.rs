//! Source partitions and offsets, as the reference connector writes them, so stored offsets
//! are readable and alterable through the REST offsets API:
//!
//! * partition `{"protocol": "1", "table": "<unquoted qualified name>"}` in incremental table
//!   modes (looked up first), `{"table": "<name>"}` in bulk mode and as the legacy fallback,
//!   `{"query": "query"}` in query mode;
//! * offset `{"incrementing": n}`, `{"timestamp": epoch ms, "timestamp_nanos": nanos of the
//!   second}`, or all three.

use connect_api::OffsetMap;
use serde_json::Value as Json;
use sqlx::types::chrono::{DateTime, NaiveDateTime};

use super::config::Mode;
use super::table_id::TableId;

/// `incrementing`.
pub const INCREMENTING_FIELD: &str = "incrementing";
/// `timestamp`.
pub const TIMESTAMP_FIELD: &str = "timestamp";
/// `timestamp_nanos`.
pub const TIMESTAMP_NANOS_FIELD: &str = "timestamp_nanos";

/// Where a querier resumes: the last incrementing value and timestamp seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SourceOffset {
    /// The last incrementing value (`None` = none yet, i.e. -1).
    pub incrementing: Option<i64>,
    /// The last timestamp (UTC, nanosecond precision; `None` = epoch 0).
    pub timestamp: Option<NaiveDateTime>,
}

impl SourceOffset {
    /// The last incrementing value, -1 when none.
    pub fn incrementing_or_default(&self) -> i64 {
        self.incrementing.unwrap_or(-1)
    }

    /// The offset map of a record, for `mode` (`None` in bulk mode).
    pub fn encode(&self, mode: Mode) -> Option<OffsetMap> {
        let mut map = OffsetMap::new();
        if mode.uses_incrementing() {
            map.insert(
                INCREMENTING_FIELD.into(),
                self.incrementing_or_default().into(),
            );
        }
        if mode.uses_timestamp() {
            let ts = self.timestamp.unwrap_or_default().and_utc();
            map.insert(TIMESTAMP_FIELD.into(), ts.timestamp_millis().into());
            map.insert(
                TIMESTAMP_NANOS_FIELD.into(),
                i64::from(ts.timestamp_subsec_nanos()).into(),
            );
        }
        (!map.is_empty()).then_some(map)
    }

    /// Reads a stored offset map; `timestamp_nanos` replaces the fraction of `timestamp`'s
    /// second.
    ///
    /// # Errors
    /// A message naming the field that is not an integer.
    pub fn decode(map: &OffsetMap) -> Result<Self, String> {
        let int = |field: &str| -> Result<Option<i64>, String> {
            match map.get(field) {
                None | Some(Json::Null) => Ok(None),
                Some(v) => v
                    .as_i64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                    .map(Some)
                    .ok_or_else(|| format!("offset field {field:?} is not an integer: {v}")),
            }
        };
        let incrementing = int(INCREMENTING_FIELD)?;
        let timestamp = match int(TIMESTAMP_FIELD)? {
            None => None,
            Some(ms) => {
                let secs = ms.div_euclid(1000);
                let nanos = match int(TIMESTAMP_NANOS_FIELD)? {
                    Some(n) if (0..1_000_000_000).contains(&n) => n as u32,
                    Some(n) => {
                        return Err(format!(
                            "offset field \"timestamp_nanos\" is out of range: {n}"
                        ))
                    }
                    None => (ms.rem_euclid(1000) * 1_000_000) as u32,
                };
                Some(
                    DateTime::from_timestamp(secs, nanos)
                        .ok_or_else(|| format!("offset timestamp {ms} is out of range"))?
                        .naive_utc(),
                )
            }
        };
        Ok(Self {
            incrementing,
            timestamp,
        })
    }
}

fn map(pairs: &[(&str, &str)]) -> OffsetMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Json::String((*v).to_owned())))
        .collect()
}

/// The partition a table's records carry in `mode`.
pub fn table_partition(table: &TableId, mode: Mode) -> OffsetMap {
    if mode == Mode::Bulk {
        legacy_table_partition(table)
    } else {
        map(&[("protocol", "1"), ("table", &table.unquoted())])
    }
}

/// The legacy (protocol 0) partition `{"table": "<name>"}`, looked up when the protocol 1
/// partition has no offset.
pub fn legacy_table_partition(table: &TableId) -> OffsetMap {
    map(&[("table", &table.name)])
}

/// The partition of query mode.
pub fn query_partition() -> OffsetMap {
    map(&[("query", "query")])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partitions_as_the_reference_writes_them() {
        let t = TableId::new(Some("public"), "users");
        assert_eq!(
            Json::Object(table_partition(&t, Mode::Incrementing)),
            json!({"protocol": "1", "table": "public.users"})
        );
        assert_eq!(
            Json::Object(table_partition(&t, Mode::Bulk)),
            json!({"table": "users"})
        );
        assert_eq!(Json::Object(query_partition()), json!({"query": "query"}));
    }

    #[test]
    fn offsets_round_trip_with_nanoseconds() {
        let ts = DateTime::from_timestamp(1_700_000_000, 123_456_789)
            .unwrap()
            .naive_utc();
        let o = SourceOffset {
            incrementing: Some(42),
            timestamp: Some(ts),
        };
        let m = o.encode(Mode::TimestampIncrementing).unwrap();
        assert_eq!(
            Json::Object(m.clone()),
            json!({"incrementing": 42, "timestamp": 1_700_000_000_123i64, "timestamp_nanos": 123_456_789})
        );
        assert_eq!(SourceOffset::decode(&m).unwrap(), o);
        assert_eq!(
            Json::Object(o.encode(Mode::Incrementing).unwrap()),
            json!({"incrementing": 42})
        );
        assert_eq!(o.encode(Mode::Bulk), None);
        // Without nanos, the milliseconds give the fraction.
        let m = json!({"timestamp": 1500}).as_object().unwrap().clone();
        let d = SourceOffset::decode(&m).unwrap();
        assert_eq!(d.timestamp.unwrap().and_utc().timestamp_millis(), 1500);
        assert_eq!(d.incrementing, None);
        let bad = json!({"incrementing": "x"}).as_object().unwrap().clone();
        assert!(SourceOffset::decode(&bad)
            .unwrap_err()
            .contains("incrementing"));
        let none = SourceOffset::default().encode(Mode::Incrementing).unwrap();
        assert_eq!(Json::Object(none), json!({"incrementing": -1}));
    }
}
