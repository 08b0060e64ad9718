//! How a put's rows are cut into statements (`batch.size`): consecutive writes of the same
//! statement share one multi-row statement, up to `batch.size` rows and the database's limit
//! of bind parameters; a delete, another table or schema, or (where the database refuses it)
//! a key already in the statement starts the next one, so effects keep the record order.

use std::collections::HashSet;
use std::ops::Range;

use crate::dialect::Dialect;
use crate::sink::bind::SqlValue;

/// The most bind parameters one statement may carry: PostgreSQL's and MySQL's wire protocols
/// count them in 16 bits; SQLite's `SQLITE_MAX_VARIABLE_NUMBER` is 32766 since 3.32.
pub fn max_params(dialect: Dialect) -> usize {
    match dialect {
        Dialect::Postgres | Dialect::MySql => 65_535,
        Dialect::Sqlite => 32_766,
    }
}

/// Rows one statement may take: `batch.size`, cut to what the parameter limit allows, at
/// least one.
pub fn rows_per_statement(batch_size: usize, params_per_row: usize, dialect: Dialect) -> usize {
    let by_params = max_params(dialect) / params_per_row.max(1);
    batch_size.min(by_params).max(1)
}

/// What [`split`] needs to know of operation `i`.
pub struct Op {
    /// Operations with the same group and `Some(max)` may share a statement of up to `max`
    /// rows; `None` runs alone.
    pub group: usize,
    /// Rows its statement may take; `None`: it runs alone (a delete, an UPDATE).
    pub max_rows: Option<usize>,
    /// Its key, when a statement must not hold the same key twice (PostgreSQL's
    /// `ON CONFLICT` refuses to change a row twice in one statement).
    pub key: Option<Vec<u8>>,
}

/// Cuts `ops` (in record order) into consecutive ranges, one statement each.
pub fn split(ops: &[Op]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut keys: HashSet<&[u8]> = HashSet::new();
    while start < ops.len() {
        let first = &ops[start];
        let mut end = start + 1;
        if let Some(max) = first.max_rows {
            keys.clear();
            if let Some(k) = &first.key {
                keys.insert(k);
            }
            while end < ops.len() && end - start < max {
                let op = &ops[end];
                if op.group != first.group || op.max_rows.is_none() {
                    break;
                }
                if let Some(k) = &op.key {
                    if !keys.insert(k) {
                        break;
                    }
                }
                end += 1;
            }
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// A byte string equal for key values the database takes as the same key: numbers by value
/// (`-0.0` as `0.0`, decimals without trailing zeros), text and bytes as they are.
pub fn key_bytes(values: &[SqlValue]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 9);
    for v in values {
        let mut tagged = |tag: u8, bytes: &[u8]| {
            out.push(tag);
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            out.extend_from_slice(bytes);
        };
        match v {
            SqlValue::Null(_) => tagged(0, &[]),
            SqlValue::Bool(b) => tagged(1, &[u8::from(*b)]),
            SqlValue::I8(x) => tagged(2, &i64::from(*x).to_le_bytes()),
            SqlValue::I16(x) => tagged(2, &i64::from(*x).to_le_bytes()),
            SqlValue::I32(x) => tagged(2, &i64::from(*x).to_le_bytes()),
            SqlValue::I64(x) => tagged(2, &x.to_le_bytes()),
            SqlValue::F32(x) => tagged(3, &(f64::from(*x) + 0.0).to_le_bytes()),
            SqlValue::F64(x) => tagged(3, &(x + 0.0).to_le_bytes()),
            SqlValue::Text(s) => tagged(4, s.as_bytes()),
            SqlValue::Bytes(b) => tagged(5, b),
            SqlValue::Decimal(d) => tagged(6, d.normalized().to_string().as_bytes()),
            SqlValue::Date(d) => tagged(7, d.to_string().as_bytes()),
            SqlValue::Time(t) => tagged(8, t.to_string().as_bytes()),
            SqlValue::Timestamp(t) => tagged(9, t.to_string().as_bytes()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(group: usize, max_rows: Option<usize>, key: Option<i64>) -> Op {
        Op {
            group,
            max_rows,
            key: key.map(|k| key_bytes(&[SqlValue::I64(k)])),
        }
    }

    #[test]
    fn runs_break_at_size_group_lone_ops_and_repeated_keys() {
        let ops = [
            op(0, Some(3), None),
            op(0, Some(3), None),
            op(0, Some(3), None),
            op(0, Some(3), None), // size
            op(1, Some(3), None), // group
            op(1, None, None),    // a delete runs alone
            op(1, Some(3), None),
        ];
        assert_eq!(split(&ops), [0..3, 3..4, 4..5, 5..6, 6..7]);
        let keyed = [
            op(0, Some(9), Some(1)),
            op(0, Some(9), Some(2)),
            op(0, Some(9), Some(1)), // 1 again: the next statement
            op(0, Some(9), Some(3)),
            op(0, Some(9), Some(2)),
        ];
        assert_eq!(split(&keyed), [0..2, 2..5]);
    }

    #[test]
    fn parameter_limits_cut_the_batch() {
        assert_eq!(rows_per_statement(3000, 5, Dialect::Postgres), 3000);
        assert_eq!(rows_per_statement(100_000, 12, Dialect::Postgres), 5461);
        assert_eq!(rows_per_statement(100_000, 12, Dialect::Sqlite), 2730);
        assert_eq!(rows_per_statement(10, 100_000, Dialect::MySql), 1);
    }

    #[test]
    fn equal_numbers_are_the_same_key() {
        let d = |s: &str| SqlValue::Decimal(s.parse().unwrap());
        assert_eq!(key_bytes(&[d("1.50")]), key_bytes(&[d("1.5")]));
        assert_eq!(
            key_bytes(&[SqlValue::F64(-0.0)]),
            key_bytes(&[SqlValue::F64(0.0)])
        );
        assert_ne!(
            key_bytes(&[SqlValue::Text("ab".into()), SqlValue::Text("c".into())]),
            key_bytes(&[SqlValue::Text("a".into()), SqlValue::Text("bc".into())])
        );
    }
}
