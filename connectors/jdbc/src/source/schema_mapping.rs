//! Column types to Connect schemas, as the reference connector maps JDBC types: integers by
//! width, floats, NUMERIC per `numeric.mapping`, DECIMAL as Decimal, text, bytes, boolean,
//! Date/Time/Timestamp logical types; columns of other types are dropped (with a warning).

use connect_api::logical;
use connect_api::{SchemaBuilder, SchemaRef, SchemaType};

use crate::dialect::Dialect;

use super::config::NumericMapping;

/// Decimal parameter carrying the column's precision.
pub const DECIMAL_PRECISION: &str = "connect.decimal.precision";
/// The scale used when the database does not give one (JDBC's unset scale).
pub const SCALE_UNSET_HIGH: i32 = 127;

/// What the database says about one result column.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnMeta {
    /// Column name (label).
    pub name: String,
    /// The database's type name, lower case (`int4`, `varchar`, `bigint`, `datetime`, …).
    pub type_name: String,
    /// Whether NULL is allowed; `None` = unknown (treated as nullable).
    pub nullable: Option<bool>,
    /// Numeric precision, when known.
    pub precision: Option<i64>,
    /// Numeric scale, when known.
    pub scale: Option<i64>,
    /// MySQL `UNSIGNED`.
    pub unsigned: bool,
    /// An auto-increment / serial / identity column.
    pub auto_increment: bool,
    /// Bit length of BIT columns.
    pub bit_length: Option<i64>,
    /// Where the column stands in the table's primary key (smaller first; `None` = not a
    /// primary-key column, or unknown as for query results).
    pub key_position: Option<i64>,
}

/// How a column's values are read and represented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// BOOLEAN.
    Boolean,
    /// An integer type (INT8..INT64), read as the database's integer.
    Int(SchemaType),
    /// FLOAT32.
    Float32,
    /// FLOAT64.
    Float64,
    /// Decimal with this scale and precision (0 = unknown).
    Decimal {
        /// Scale of the Connect Decimal.
        scale: i32,
        /// Precision, for the `connect.decimal.precision` parameter.
        precision: i64,
    },
    /// A NUMERIC read as an integer of this type (numeric.mapping).
    NumericInt(SchemaType),
    /// A NUMERIC read as FLOAT64 (numeric.mapping).
    NumericFloat64,
    /// STRING (text, JSON, UUID as text).
    String,
    /// BYTES.
    Bytes,
    /// Date logical type.
    Date,
    /// Time logical type.
    Time,
    /// Timestamp logical type.
    Timestamp,
}

/// The integer type of a NUMERIC of `precision` digits.
fn int_for_precision(precision: i64) -> SchemaType {
    if precision > 9 {
        SchemaType::Int64
    } else if precision > 4 {
        SchemaType::Int32
    } else if precision > 2 {
        SchemaType::Int16
    } else {
        SchemaType::Int8
    }
}

/// The kind of a NUMERIC(p,s) under `mapping`; `None` precision/scale = unknown.
pub fn numeric_kind(precision: Option<i64>, scale: Option<i64>, mapping: NumericMapping) -> Kind {
    let p = precision.unwrap_or(0);
    let decimal = |s: Option<i64>| Kind::Decimal {
        scale: s.map_or(SCALE_UNSET_HIGH, |s| s as i32),
        precision: p,
    };
    let Some(s) = scale else {
        return decimal(None);
    };
    match mapping {
        NumericMapping::None => decimal(Some(s)),
        NumericMapping::PrecisionOnly if s == 0 && p <= 18 => {
            Kind::NumericInt(int_for_precision(p))
        }
        NumericMapping::BestFit if p <= 18 && (-84..=0).contains(&s) => {
            Kind::NumericInt(int_for_precision(p))
        }
        NumericMapping::BestFit if p <= 18 && s > 0 => Kind::NumericFloat64,
        NumericMapping::BestFitEagerDouble if p <= 18 && (-84..=0).contains(&s) => {
            Kind::NumericInt(int_for_precision(p))
        }
        NumericMapping::BestFitEagerDouble if s > 0 => Kind::NumericFloat64,
        _ => decimal(Some(s)),
    }
}

/// The kind of a column of `dialect`; `None` when the reference drops such columns.
pub fn kind_of(dialect: Dialect, col: &ColumnMeta, mapping: NumericMapping) -> Option<Kind> {
    let t = col.type_name.as_str();
    match dialect {
        Dialect::Postgres => postgres_kind(t, col, mapping),
        Dialect::MySql => mysql_kind(t, col, mapping),
        Dialect::Sqlite => Some(sqlite_kind(t, col, mapping)),
    }
}

fn postgres_kind(t: &str, col: &ColumnMeta, mapping: NumericMapping) -> Option<Kind> {
    Some(match t {
        "bool" | "boolean" => Kind::Boolean,
        "int2" | "smallint" | "smallserial" => Kind::Int(SchemaType::Int16),
        "int4" | "integer" | "int" | "serial" => Kind::Int(SchemaType::Int32),
        "int8" | "bigint" | "bigserial" | "oid" => Kind::Int(SchemaType::Int64),
        "float4" | "real" => Kind::Float32,
        "float8" | "double precision" => Kind::Float64,
        "numeric" | "decimal" => match (col.precision, col.scale) {
            // Unconstrained numeric (JDBC precision 0, scale 0): Decimal of scale 127.
            (None | Some(0), None | Some(0)) => Kind::Decimal {
                scale: SCALE_UNSET_HIGH,
                precision: 0,
            },
            (p, s) => numeric_kind(p, s, mapping),
        },
        "bit" => match col.bit_length.unwrap_or(1) {
            1 => Kind::Boolean,
            _ => return None,
        },
        "text" | "varchar" | "character varying" | "bpchar" | "char" | "character" | "name"
        | "json" | "jsonb" | "uuid" | "xml" | "citext" => Kind::String,
        "bytea" => Kind::Bytes,
        "date" => Kind::Date,
        "time" | "time without time zone" => Kind::Time,
        "timestamp"
        | "timestamptz"
        | "timestamp without time zone"
        | "timestamp with time zone" => Kind::Timestamp,
        _ => return None,
    })
}

fn mysql_kind(t: &str, col: &ColumnMeta, mapping: NumericMapping) -> Option<Kind> {
    let (base, unsigned) = match t.strip_suffix(" unsigned") {
        Some(b) => (b, true),
        None => (t, col.unsigned),
    };
    let int =
        |signed: SchemaType, wider: SchemaType| Kind::Int(if unsigned { wider } else { signed });
    Some(match base {
        "boolean" | "bool" => Kind::Boolean,
        "tinyint" => int(SchemaType::Int8, SchemaType::Int16),
        "smallint" => int(SchemaType::Int16, SchemaType::Int32),
        "mediumint" => Kind::Int(SchemaType::Int32),
        "int" | "integer" => int(SchemaType::Int32, SchemaType::Int64),
        "bigint" => Kind::Int(SchemaType::Int64),
        "float" => Kind::Float32,
        "double" | "real" => Kind::Float64,
        // DECIMAL is JDBC DECIMAL: numeric.mapping never applies.
        "decimal" | "numeric" => numeric_kind(col.precision, col.scale, NumericMapping::None),
        "bit" => match col.bit_length.or(col.precision).unwrap_or(1) {
            1 => Kind::Boolean,
            _ => Kind::Bytes,
        },
        "char" | "varchar" | "tinytext" | "text" | "mediumtext" | "longtext" | "enum" | "set"
        | "json" => Kind::String,
        "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob" => Kind::Bytes,
        "date" => Kind::Date,
        "time" => Kind::Time,
        "datetime" | "timestamp" => Kind::Timestamp,
        _ => {
            let _ = mapping;
            return None;
        }
    })
}

/// SQLite: from the declared type, with SQLite's affinity rules; integers are INT64 (SQLite
/// stores 64-bit integers).
fn sqlite_kind(t: &str, col: &ColumnMeta, mapping: NumericMapping) -> Kind {
    let t = t.to_ascii_lowercase();
    if t.contains("bool") {
        Kind::Boolean
    } else if t.starts_with("tinyint") {
        Kind::Int(SchemaType::Int8)
    } else if t.starts_with("smallint") {
        Kind::Int(SchemaType::Int16)
    } else if t.contains("int") {
        Kind::Int(SchemaType::Int64)
    } else if t.contains("char") || t.contains("clob") || t.contains("text") {
        Kind::String
    } else if t.contains("blob") || t.is_empty() {
        Kind::Bytes
    } else if t.contains("real") || t.contains("floa") || t.contains("doub") {
        Kind::Float64
    } else if t.starts_with("datetime") || t.starts_with("timestamp") {
        Kind::Timestamp
    } else if t.starts_with("date") {
        Kind::Date
    } else if t.starts_with("time") {
        Kind::Time
    } else if t.starts_with("decimal") {
        numeric_kind(col.precision, col.scale, NumericMapping::None)
    } else if t.starts_with("numeric") {
        numeric_kind(col.precision, col.scale, mapping)
    } else {
        Kind::String
    }
}

/// `(p,s)` or `(p)` of a declared type such as `DECIMAL(10,2)`.
pub fn declared_precision_scale(declared: &str) -> (Option<i64>, Option<i64>) {
    let Some(inner) = declared
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(inner, _)| inner)
    else {
        return (None, None);
    };
    let mut parts = inner.split(',').map(|s| s.trim().parse::<i64>().ok());
    let p = parts.next().flatten();
    let s = parts.next().flatten().or(p.map(|_| 0));
    (p, s)
}

/// The Connect schema of a column of `kind`.
pub fn field_schema(kind: Kind, optional: bool) -> SchemaRef {
    let b = match kind {
        Kind::Boolean => SchemaBuilder::new(SchemaType::Boolean),
        Kind::Int(t) | Kind::NumericInt(t) => SchemaBuilder::new(t),
        Kind::Float32 => SchemaBuilder::new(SchemaType::Float32),
        Kind::Float64 | Kind::NumericFloat64 => SchemaBuilder::new(SchemaType::Float64),
        Kind::Decimal { scale, precision } => {
            logical::decimal(scale).parameter(DECIMAL_PRECISION, precision.to_string())
        }
        Kind::String => SchemaBuilder::new(SchemaType::String),
        Kind::Bytes => SchemaBuilder::new(SchemaType::Bytes),
        Kind::Date => logical::date(),
        Kind::Time => logical::time(),
        Kind::Timestamp => logical::timestamp(),
    };
    if optional {
        b.optional().build()
    } else {
        b.build()
    }
}

/// The value schema of a result: a struct named `name` (unnamed in query mode) with one field
/// per kept column.
pub fn struct_schema(name: Option<&str>, fields: &[(String, Kind, bool)]) -> SchemaRef {
    let mut b = SchemaBuilder::struct_();
    if let Some(n) = name {
        b = b.name(n);
    }
    for (field, kind, optional) in fields {
        b = b.field(field.clone(), field_schema(*kind, *optional));
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(t: &str) -> ColumnMeta {
        ColumnMeta {
            name: "c".into(),
            type_name: t.into(),
            ..ColumnMeta::default()
        }
    }

    #[test]
    fn numeric_mapping_rules() {
        use NumericMapping::{BestFit, BestFitEagerDouble, PrecisionOnly};
        let d = |s, p| Kind::Decimal {
            scale: s,
            precision: p,
        };
        assert_eq!(
            numeric_kind(Some(10), Some(2), NumericMapping::None),
            d(2, 10)
        );
        assert_eq!(
            numeric_kind(Some(5), Some(0), PrecisionOnly),
            Kind::NumericInt(SchemaType::Int32)
        );
        assert_eq!(
            numeric_kind(Some(10), Some(0), PrecisionOnly),
            Kind::NumericInt(SchemaType::Int64)
        );
        assert_eq!(
            numeric_kind(Some(2), Some(0), PrecisionOnly),
            Kind::NumericInt(SchemaType::Int8)
        );
        assert_eq!(
            numeric_kind(Some(3), Some(0), PrecisionOnly),
            Kind::NumericInt(SchemaType::Int16)
        );
        assert_eq!(numeric_kind(Some(19), Some(0), PrecisionOnly), d(0, 19));
        assert_eq!(numeric_kind(Some(10), Some(2), PrecisionOnly), d(2, 10));
        assert_eq!(
            numeric_kind(Some(10), Some(2), BestFit),
            Kind::NumericFloat64
        );
        assert_eq!(numeric_kind(Some(30), Some(2), BestFit), d(2, 30));
        assert_eq!(
            numeric_kind(Some(30), Some(2), BestFitEagerDouble),
            Kind::NumericFloat64
        );
        assert_eq!(
            numeric_kind(Some(8), Some(-2), BestFit),
            Kind::NumericInt(SchemaType::Int32)
        );
        assert_eq!(numeric_kind(Some(8), None, BestFit), d(127, 8));
    }

    #[test]
    fn dialect_types() {
        let m = NumericMapping::None;
        assert_eq!(
            kind_of(Dialect::Postgres, &col("int4"), m),
            Some(Kind::Int(SchemaType::Int32))
        );
        assert_eq!(
            kind_of(Dialect::Postgres, &col("jsonb"), m),
            Some(Kind::String)
        );
        assert_eq!(
            kind_of(Dialect::Postgres, &col("timestamptz"), m),
            Some(Kind::Timestamp)
        );
        assert_eq!(kind_of(Dialect::Postgres, &col("_int4"), m), None);
        assert_eq!(
            kind_of(Dialect::Postgres, &col("numeric"), NumericMapping::BestFit),
            Some(Kind::Decimal {
                scale: 127,
                precision: 0
            })
        );
        assert_eq!(
            kind_of(Dialect::MySql, &col("int unsigned"), m),
            Some(Kind::Int(SchemaType::Int64))
        );
        assert_eq!(
            kind_of(Dialect::MySql, &col("tinyint"), m),
            Some(Kind::Int(SchemaType::Int8))
        );
        assert_eq!(
            kind_of(Dialect::MySql, &col("datetime"), m),
            Some(Kind::Timestamp)
        );
        assert_eq!(
            kind_of(Dialect::Sqlite, &col("integer"), m),
            Some(Kind::Int(SchemaType::Int64))
        );
        assert_eq!(
            kind_of(Dialect::Sqlite, &col("varchar(20)"), m),
            Some(Kind::String)
        );
        assert_eq!(
            kind_of(Dialect::Sqlite, &col("datetime"), m),
            Some(Kind::Timestamp)
        );
        assert_eq!(
            declared_precision_scale("DECIMAL(10, 2)"),
            (Some(10), Some(2))
        );
        assert_eq!(declared_precision_scale("NUMERIC(5)"), (Some(5), Some(0)));
        assert_eq!(declared_precision_scale("NUMERIC"), (None, None));
    }

    #[test]
    fn schemas_carry_scale_precision_and_optionality() {
        let s = field_schema(
            Kind::Decimal {
                scale: 2,
                precision: 10,
            },
            true,
        );
        assert_eq!(s.name.as_deref(), Some(logical::DECIMAL));
        assert_eq!(s.parameter("scale"), Some("2"));
        assert_eq!(s.parameter(DECIMAL_PRECISION), Some("10"));
        assert!(s.optional);
        let st = struct_schema(
            Some("users"),
            &[("id".into(), Kind::Int(SchemaType::Int64), false)],
        );
        assert_eq!(st.name.as_deref(), Some("users"));
        assert!(!st.fields[0].schema.optional);
        assert_eq!(
            field_schema(Kind::Timestamp, false).name.as_deref(),
            Some(logical::TIMESTAMP)
        );
    }
}
