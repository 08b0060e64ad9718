//! `key.from.primary.key`, connect-rs's extension (the reference connector emits records without
//! a key): a table's primary-key columns, in key order, form each record's key, a Struct named
//! as the value with one field per key column. Every table read must have a primary key.

use std::sync::Arc;

use connect_api::{ConnectError, SchemaRef, Struct, Value};

use crate::connection::Database;

use super::column_metadata::table_columns;
use super::config::KEY_FROM_PRIMARY_KEY;
use super::schema_mapping::{struct_schema, ColumnMeta, Kind};
use super::table_id::TableId;

/// The primary-key columns among `metas`, in key order.
pub fn primary_key_columns(metas: &[ColumnMeta]) -> Vec<&ColumnMeta> {
    let mut key: Vec<&ColumnMeta> = metas.iter().filter(|m| m.key_position.is_some()).collect();
    key.sort_by_key(|m| m.key_position);
    key
}

/// The error of a table without a primary key.
fn no_primary_key(table: &TableId) -> String {
    format!(
        "{KEY_FROM_PRIMARY_KEY}=true but table {table} has no primary key; give it one, leave \
         it out with the table filters, or set {KEY_FROM_PRIMARY_KEY}=false"
    )
}

/// Checks that every table of `tables` has a primary key.
///
/// # Errors
/// A configuration error on `key.from.primary.key` naming the first table without one; a
/// retriable error when the metadata cannot be read.
pub async fn require_primary_keys(db: &Database, tables: &[TableId]) -> Result<(), ConnectError> {
    for table in tables {
        let metas = table_columns(db, table).await.map_err(|e| {
            ConnectError::Retriable(format!("reading the columns of table {table}: {e}"))
        })?;
        if primary_key_columns(&metas).is_empty() {
            return Err(ConnectError::config(
                KEY_FROM_PRIMARY_KEY,
                no_primary_key(table),
            ));
        }
    }
    Ok(())
}

/// How a record's key is taken from its value.
#[derive(Debug)]
pub struct KeyPlan {
    /// The key schema: a Struct named as the value, the key columns in key order.
    pub schema: SchemaRef,
    /// For each key field, the index of the value field it copies.
    value_fields: Vec<usize>,
}

impl KeyPlan {
    /// The plan of `table`'s key, whose value has `value_fields` (name, kind, optional).
    ///
    /// # Errors
    /// When the table has no primary key, or a key column is not among the value's fields
    /// (its type has no Connect type).
    pub fn new(
        table: &TableId,
        metas: &[ColumnMeta],
        value_fields: &[(String, Kind, bool)],
    ) -> Result<Self, String> {
        let key = primary_key_columns(metas);
        if key.is_empty() {
            return Err(no_primary_key(table));
        }
        let mut fields = Vec::with_capacity(key.len());
        let mut indexes = Vec::with_capacity(key.len());
        for meta in key {
            let position = value_fields
                .iter()
                .position(|(n, ..)| *n == meta.name)
                .or_else(|| {
                    value_fields
                        .iter()
                        .position(|(n, ..)| n.eq_ignore_ascii_case(&meta.name))
                })
                .ok_or_else(|| {
                    format!(
                        "primary-key column {:?} of table {table} (type {}) has no Connect type, \
                         so it cannot be part of the record key ({KEY_FROM_PRIMARY_KEY})",
                        meta.name, meta.type_name
                    )
                })?;
            fields.push(value_fields[position].clone());
            indexes.push(position);
        }
        Ok(Self {
            schema: struct_schema(Some(&table.name), &fields),
            value_fields: indexes,
        })
    }

    /// The key of a record whose value fields are `values`.
    ///
    /// # Errors
    /// When the values do not fit the key schema.
    pub fn key(&self, values: &[Value]) -> Result<Value, String> {
        let picked = self
            .value_fields
            .iter()
            .map(|&i| values.get(i).cloned().unwrap_or(Value::Null))
            .collect();
        Struct::from_values(Arc::clone(&self.schema), picked)
            .map(Value::Struct)
            .map_err(|e| format!("building the record key: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::SchemaType;

    fn col(name: &str, key_position: Option<i64>) -> ColumnMeta {
        ColumnMeta {
            name: name.into(),
            type_name: "int4".into(),
            key_position,
            ..ColumnMeta::default()
        }
    }

    #[test]
    fn the_key_has_the_primary_key_columns_in_key_order_named_as_the_value() {
        let metas = [col("id", Some(2)), col("v", None), col("region", Some(1))];
        let value_fields = [
            ("id".to_owned(), Kind::Int(SchemaType::Int32), false),
            ("v".to_owned(), Kind::String, true),
            ("region".to_owned(), Kind::String, true),
        ];
        let plan = KeyPlan::new(&TableId::new(None, "t"), &metas, &value_fields).unwrap();
        assert_eq!(plan.schema.name.as_deref(), Some("t"));
        let names: Vec<&str> = plan.schema.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["region", "id"]);
        assert!(plan.schema.fields[0].schema.optional && !plan.schema.fields[1].schema.optional);
        let key = plan
            .key(&[Value::Int32(7), Value::Null, Value::String("eu".into())])
            .unwrap();
        let Value::Struct(s) = key else {
            panic!("{key:?}")
        };
        assert_eq!(s.get("region"), Some(&Value::String("eu".into())));
        assert_eq!(s.get("id"), Some(&Value::Int32(7)));
    }

    #[test]
    fn no_primary_key_or_an_unmapped_key_column_is_an_error_naming_the_table() {
        let t = TableId::new(Some("public"), "t");
        let fields = [("id".to_owned(), Kind::Int(SchemaType::Int32), false)];
        let e = KeyPlan::new(&t, &[col("id", None)], &fields).unwrap_err();
        assert!(e.contains("table public.t has no primary key"), "{e}");
        let e = KeyPlan::new(&t, &[col("id", None), col("geo", Some(1))], &fields).unwrap_err();
        assert!(e.contains("\"geo\" of table public.t"), "{e}");
    }
}
