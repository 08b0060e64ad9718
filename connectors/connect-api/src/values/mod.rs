//! Kafka's `org.apache.kafka.connect.data.Values` string forms, as used by
//! `SimpleHeaderConverter` and by connectors: [`convert_to_string`] and [`parse_string`].
//!
//! [`format`] renders values, [`parse`] reads them (over the [`tokenizer`]), [`literal`] reads
//! single-token numbers and temporals, [`infer`] finds the common schema of array and map
//! elements, and [`decimal`] holds the Decimal arithmetic the converters share.
//!
//! Differences from Java, all forced by the raw data model or chosen for determinism:
//! * Dates are formatted and parsed in UTC (Java uses the JVM default time zone).
//! * Logical values are recognised by their schema (Java looks at the runtime class), so a
//!   Date/Time/Timestamp/Decimal value must come with its schema to be rendered as such.
//! * Parsed Date values are whole days and parsed Time values are milliseconds, as the raw
//!   representations require; mixed-scale decimals in one array are rescaled to the common
//!   scale (or the input is read as a plain string when that is not exact).
//! * Only ASCII digits count as digits.

pub mod decimal;
mod format;
mod infer;
mod literal;
mod parse;
mod tokenizer;

#[cfg(test)]
mod tests;

pub use format::convert_to_string;
pub use parse::{parse_string, Parsed};
