//! The common schema of parsed array and map elements (`Values.SchemaMerger`) and the
//! conversion of each element to it (`Values.convertTo`).

use num_bigint::BigInt;

use super::decimal::{decimal_scale, rescale};
use crate::java_fmt::MILLIS_PER_DAY;
use crate::{logical, Schema, SchemaRef, SchemaType, Value};

/// An element with its own schema (`None` for null), before alignment to a common schema.
pub(super) type Elem = Option<(SchemaRef, Value)>;

#[derive(Default)]
pub(super) struct SchemaMerger {
    pub(super) common: Option<SchemaRef>,
    incompatible: bool,
}

impl SchemaMerger {
    pub(super) fn merge(&mut self, latest: Option<&(SchemaRef, Value)>) {
        let Some((schema, _)) = latest else {
            return;
        };
        if self.incompatible {
            return;
        }
        self.common = match self.common.take() {
            None => Some(schema.clone()),
            Some(prev) => {
                let merged = merge_schemas(&prev, schema);
                self.incompatible = merged.is_none();
                merged
            }
        };
    }
}

fn is_numeric(t: SchemaType) -> bool {
    matches!(
        t,
        SchemaType::Int8
            | SchemaType::Int16
            | SchemaType::Int32
            | SchemaType::Int64
            | SchemaType::Float32
            | SchemaType::Float64
    )
}

fn numeric_rank(t: SchemaType) -> u8 {
    match t {
        SchemaType::Int8 => 0,
        SchemaType::Int16 => 1,
        SchemaType::Int32 => 2,
        SchemaType::Int64 => 3,
        SchemaType::Float32 => 4,
        _ => 5,
    }
}

/// Port of `Values.mergeSchemas`: numeric types widen; equal types keep the later schema.
fn merge_schemas(previous: &SchemaRef, new: &SchemaRef) -> Option<SchemaRef> {
    let (pt, nt) = (previous.schema_type, new.schema_type);
    if pt != nt {
        if !is_numeric(pt) || !is_numeric(nt) {
            return None;
        }
        return Some(if numeric_rank(nt) > numeric_rank(pt) {
            new.clone()
        } else {
            previous.clone()
        });
    }
    if previous.optional == new.optional {
        return Some(if previous.optional {
            previous.clone()
        } else {
            new.clone()
        });
    }
    (previous == new).then(|| previous.clone())
}

fn temporal_name(schema: &Schema) -> Option<&'static str> {
    match (schema.name.as_deref(), schema.schema_type) {
        (Some(logical::DATE), SchemaType::Int32) => Some(logical::DATE),
        (Some(logical::TIME), SchemaType::Int32) => Some(logical::TIME),
        (Some(logical::TIMESTAMP), SchemaType::Int64) => Some(logical::TIMESTAMP),
        _ => None,
    }
}

/// The epoch milliseconds of a temporal element (what its `java.util.Date` holds).
fn temporal_millis(from: &Schema, value: &Value) -> Option<i64> {
    match (temporal_name(from)?, value) {
        (logical::DATE, Value::Int32(d)) => Some(i64::from(*d) * MILLIS_PER_DAY),
        (logical::TIME, Value::Int32(t)) => Some(i64::from(*t)),
        (logical::TIMESTAMP, Value::Int64(t)) => Some(*t),
        _ => None,
    }
}

/// `Number.longValue()` of a numeric element; `Err` for temporal or non-numeric elements.
fn as_long(from: &Schema, value: &Value) -> Result<i64, String> {
    if temporal_name(from).is_some() {
        return Err(format!("Unable to convert {value:?} to a number"));
    }
    Ok(match value {
        Value::Int8(v) => i64::from(*v),
        Value::Int16(v) => i64::from(*v),
        Value::Int32(v) => i64::from(*v),
        Value::Int64(v) => *v,
        Value::Float32(v) => *v as i64,
        Value::Float64(v) => *v as i64,
        _ => return Err(format!("Unable to convert {value:?} to a number")),
    })
}

fn as_double(from: &Schema, value: &Value) -> Result<f64, String> {
    if temporal_name(from).is_some() {
        return Err(format!("Unable to convert {value:?} to a number"));
    }
    Ok(match value {
        Value::Float32(v) => f64::from(*v),
        Value::Float64(v) => *v,
        _ => as_long(from, value)? as f64,
    })
}

/// Port of `Values.convertTo(toSchema, null, value)` for parsed elements: numeric widening,
/// temporal re-interpretation; other values are kept.
pub(super) fn convert_to(to: &SchemaRef, elem: &Elem) -> Result<Value, String> {
    let Some((from, value)) = elem else {
        if to.optional {
            return Ok(Value::Null);
        }
        return Err("Unable to convert a null value to a schema that requires a value".into());
    };
    let temporal = temporal_millis(from, value);
    Ok(match (to.schema_type, temporal_name(to)) {
        (SchemaType::Int32, Some(logical::DATE)) => match temporal {
            Some(ms) => Value::Int32(ms.div_euclid(MILLIS_PER_DAY) as i32),
            None => Value::Int32(as_long(from, value)? as i32),
        },
        (SchemaType::Int32, Some(logical::TIME)) => match temporal {
            Some(ms) => Value::Int32(ms as i32),
            None => {
                let n = as_long(from, value)? as i32;
                if n < 0 || i64::from(n) > MILLIS_PER_DAY {
                    return Err("Time values must use number of milliseconds greater than 0 and less than 86400000".into());
                }
                Value::Int32(n)
            }
        },
        (SchemaType::Int64, Some(logical::TIMESTAMP)) => match temporal {
            Some(ms) => Value::Int64(ms),
            None => Value::Int64(as_long(from, value)?),
        },
        (SchemaType::Int8, _) => match value {
            Value::Int8(_) => value.clone(),
            _ => Value::Int8(as_long(from, value)? as i8),
        },
        (SchemaType::Int16, _) => match value {
            Value::Int16(_) => value.clone(),
            _ => Value::Int16(as_long(from, value)? as i16),
        },
        (SchemaType::Int32, _) => match value {
            Value::Int32(_) if temporal.is_none() => value.clone(),
            _ => Value::Int32(as_long(from, value)? as i32),
        },
        (SchemaType::Int64, _) => match value {
            Value::Int64(_) if temporal.is_none() => value.clone(),
            _ => Value::Int64(as_long(from, value)?),
        },
        (SchemaType::Float32, _) => match value {
            Value::Float32(_) => value.clone(),
            _ => Value::Float32(as_double(from, value)? as f32),
        },
        (SchemaType::Float64, _) => match value {
            Value::Float64(_) => value.clone(),
            _ => Value::Float64(as_double(from, value)?),
        },
        (SchemaType::Bytes, _) if to.name.as_deref() == Some(logical::DECIMAL) => {
            let Value::Bytes(b) = value else {
                return Err(format!("Unable to convert {value:?} to a Decimal"));
            };
            let from_scale = decimal_scale(from).map_err(|e| e.to_string())?;
            let to_scale = decimal_scale(to).map_err(|e| e.to_string())?;
            let unscaled = rescale(
                BigInt::from_signed_bytes_be(b),
                i64::from(from_scale),
                to_scale,
            )
            .map_err(|e| e.to_string())?;
            Value::Bytes(unscaled.to_signed_bytes_be())
        }
        _ => value.clone(),
    })
}
