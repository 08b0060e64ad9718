//! Which columns a record becomes (Confluent's `FieldsMetadata`): the primary key columns per
//! `pk.mode` / `pk.fields`, the other columns from the value per `fields.whitelist`.

use std::collections::BTreeSet;

use connect_api::{ConnectError, Result, Schema, SchemaRef, SchemaType};

use crate::sink::config::PkMode;

/// Default column names of `pk.mode=kafka`.
pub const KAFKA_PK_NAMES: [&str; 3] =
    ["__connect_topic", "__connect_partition", "__connect_offset"];

/// Where a column's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The record's topic.
    Topic,
    /// The record's partition.
    Partition,
    /// The record's offset.
    Offset,
    /// The whole (primitive) key.
    Key,
    /// A field of the key Struct, by index.
    KeyField(usize),
    /// A field of the value Struct, by index.
    ValueField(usize),
}

/// One column of the destination table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The column (field) name.
    pub name: String,
    /// The field's schema.
    pub schema: SchemaRef,
    /// Part of the primary key.
    pub is_key: bool,
    /// Where the value comes from.
    pub source: Source,
}

/// The columns of records with one key and value schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields {
    /// Primary key columns, in key order.
    pub keys: Vec<Column>,
    /// The other columns, in value-schema order.
    pub values: Vec<Column>,
}

impl Fields {
    /// Every column, in table order (Kafka coordinates, then value-schema order, then the rest
    /// by name), for CREATE TABLE and schema checks.
    pub fn table_order(&self) -> Vec<&Column> {
        let mut ordered: Vec<&Column> = Vec::new();
        ordered.extend(
            self.keys
                .iter()
                .filter(|c| matches!(c.source, Source::Topic | Source::Partition | Source::Offset)),
        );
        let mut value_cols: Vec<&Column> = self
            .keys
            .iter()
            .chain(&self.values)
            .filter(|c| matches!(c.source, Source::ValueField(_)))
            .collect();
        value_cols.sort_by_key(|c| match c.source {
            Source::ValueField(i) => i,
            _ => usize::MAX,
        });
        ordered.extend(value_cols);
        let mut rest: Vec<&Column> = self
            .keys
            .iter()
            .filter(|c| matches!(c.source, Source::Key | Source::KeyField(_)))
            .collect();
        rest.sort_by(|a, b| a.name.cmp(&b.name));
        ordered.extend(rest);
        ordered
    }

    /// The columns of `key_schema` / `value_schema` (either may be absent: a tombstone has no
    /// value schema).
    ///
    /// # Errors
    /// A data error when the schemas cannot give the configured key (e.g. a primitive key with
    /// more than one `pk.fields` name, a `pk.fields` name the schema lacks).
    pub fn extract(
        table: &str,
        pk_mode: PkMode,
        pk_fields: &[String],
        whitelist: &[String],
        key_schema: Option<&SchemaRef>,
        value_schema: Option<&SchemaRef>,
    ) -> Result<Self> {
        if let Some(v) = value_schema {
            if v.schema_type != SchemaType::Struct {
                return Err(ConnectError::data(format!(
                    "Value schema must be of type Struct for table {table}, was {}",
                    v.schema_type.name()
                )));
            }
        }
        let mut keys = Vec::new();
        match pk_mode {
            PkMode::None => {}
            PkMode::Kafka => {
                let names: Vec<&str> = if pk_fields.is_empty() {
                    KAFKA_PK_NAMES.to_vec()
                } else if pk_fields.len() == 3 {
                    pk_fields.iter().map(String::as_str).collect()
                } else {
                    return Err(ConnectError::data(format!(
                        "PK mode for table '{table}' is kafka so there should either be no field \
                         names defined for defaults {} to be applicable, or exactly 3, defined \
                         fields are: {}",
                        KAFKA_PK_NAMES.join(","),
                        pk_fields.join(",")
                    )));
                };
                let kinds = [
                    (Source::Topic, SchemaType::String),
                    (Source::Partition, SchemaType::Int32),
                    (Source::Offset, SchemaType::Int64),
                ];
                for (name, (source, t)) in names.into_iter().zip(kinds) {
                    keys.push(Column {
                        name: name.to_owned(),
                        schema: Schema::required(t),
                        is_key: true,
                        source,
                    });
                }
            }
            PkMode::RecordKey => {
                let Some(ks) = key_schema else {
                    return Err(ConnectError::data(format!(
                        "PK mode for table '{table}' is record_key, but record key schema is \
                         missing"
                    )));
                };
                if ks.schema_type.is_primitive() {
                    if pk_fields.len() != 1 {
                        return Err(ConnectError::data(format!(
                            "Need exactly one PK column defined since the key schema for records \
                             is a primitive type, defined columns are: {}",
                            pk_fields.join(",")
                        )));
                    }
                    keys.push(Column {
                        name: pk_fields[0].clone(),
                        schema: ks.clone(),
                        is_key: true,
                        source: Source::Key,
                    });
                } else if ks.schema_type == SchemaType::Struct {
                    let chosen = pick(table, "key", ks, pk_fields)?;
                    keys.extend(chosen.into_iter().map(|i| Column {
                        name: ks.fields[i].name.clone(),
                        schema: ks.fields[i].schema.clone(),
                        is_key: true,
                        source: Source::KeyField(i),
                    }));
                } else {
                    return Err(ConnectError::data(format!(
                        "Key schema must be primitive type or Struct, but is of type: {}",
                        ks.schema_type.name()
                    )));
                }
            }
            PkMode::RecordValue => {
                let Some(vs) = value_schema else {
                    return Err(ConnectError::data(format!(
                        "PK mode for table '{table}' is record_value, but record value schema is \
                         missing"
                    )));
                };
                let chosen = pick(table, "value", vs, pk_fields)?;
                keys.extend(chosen.into_iter().map(|i| Column {
                    name: vs.fields[i].name.clone(),
                    schema: vs.fields[i].schema.clone(),
                    is_key: true,
                    source: Source::ValueField(i),
                }));
            }
        }
        let key_names: BTreeSet<&str> = keys.iter().map(|c| c.name.as_str()).collect();
        let mut values = Vec::new();
        if let Some(vs) = value_schema {
            for f in &vs.fields {
                if key_names.contains(f.name.as_str()) {
                    continue;
                }
                if !whitelist.is_empty() && !whitelist.contains(&f.name) {
                    continue;
                }
                values.push(Column {
                    name: f.name.clone(),
                    schema: f.schema.clone(),
                    is_key: false,
                    source: Source::ValueField(f.index),
                });
            }
        }
        if keys.is_empty() && values.is_empty() {
            return Err(ConnectError::data(format!(
                "No fields found using key and value schemas for table: {table}"
            )));
        }
        Ok(Self { keys, values })
    }
}

/// The indexes of the struct fields named in `names` (all fields when empty).
fn pick(table: &str, what: &str, schema: &Schema, names: &[String]) -> Result<Vec<usize>> {
    if names.is_empty() {
        return Ok((0..schema.fields.len()).collect());
    }
    names
        .iter()
        .map(|n| {
            schema.field(n).map(|f| f.index).ok_or_else(|| {
                ConnectError::data(format!(
                    "PK mode for table '{table}' is record_{what} with configured PK fields {}, \
                     but record {what} schema does not contain field: {n}",
                    names.join(",")
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use connect_api::SchemaBuilder;

    use super::*;

    fn value() -> SchemaRef {
        SchemaBuilder::struct_()
            .field("id", Schema::required(SchemaType::Int64))
            .field("name", Schema::optional(SchemaType::String))
            .field("score", Schema::optional(SchemaType::Float64))
            .build()
    }

    fn names(cols: &[Column]) -> Vec<&str> {
        cols.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn kafka_mode_uses_the_coordinates() {
        let f = Fields::extract("t", PkMode::Kafka, &[], &[], None, Some(&value())).unwrap();
        assert_eq!(names(&f.keys), KAFKA_PK_NAMES);
        assert_eq!(names(&f.values), ["id", "name", "score"]);
        let e = Fields::extract("t", PkMode::Kafka, &["a".into()], &[], None, Some(&value()));
        assert!(e.is_err());
    }

    #[test]
    fn record_key_primitive_needs_one_name() {
        let k = Schema::required(SchemaType::Int64);
        let e = Fields::extract("t", PkMode::RecordKey, &[], &[], Some(&k), Some(&value()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Need exactly one PK column"), "{e}");
        let f = Fields::extract(
            "t",
            PkMode::RecordKey,
            &["id".into()],
            &[],
            Some(&k),
            Some(&value()),
        )
        .unwrap();
        assert_eq!(names(&f.keys), ["id"]);
        assert_eq!(f.keys[0].source, Source::Key);
        // The value's own `id` is not written twice.
        assert_eq!(names(&f.values), ["name", "score"]);
    }

    #[test]
    fn record_key_struct_and_record_value_take_all_or_the_listed_fields() {
        let k = SchemaBuilder::struct_()
            .field("b", Schema::required(SchemaType::String))
            .field("a", Schema::required(SchemaType::Int32))
            .build();
        let f =
            Fields::extract("t", PkMode::RecordKey, &[], &[], Some(&k), Some(&value())).unwrap();
        assert_eq!(names(&f.keys), ["b", "a"]);
        let order: Vec<_> = f.table_order().iter().map(|c| c.name.clone()).collect();
        assert_eq!(order, ["id", "name", "score", "a", "b"]);
        let f = Fields::extract(
            "t",
            PkMode::RecordValue,
            &["id".into()],
            &["score".into()],
            None,
            Some(&value()),
        )
        .unwrap();
        assert_eq!(names(&f.keys), ["id"]);
        assert_eq!(names(&f.values), ["score"]);
        let f = Fields::extract("t", PkMode::RecordValue, &[], &[], None, Some(&value())).unwrap();
        assert_eq!(names(&f.keys), ["id", "name", "score"]);
        assert!(f.values.is_empty());
        let e = Fields::extract(
            "t",
            PkMode::RecordValue,
            &["nope".into()],
            &[],
            None,
            Some(&value()),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("does not contain field: nope"), "{e}");
    }
}
