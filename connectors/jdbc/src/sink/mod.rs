//! The JDBC sink (Confluent's `JdbcSinkConnector`): records with schemas become rows of
//! PostgreSQL, MySQL/MariaDB or SQLite tables.
//!
//! * [`config`]: keys and their parsing; [`table_id`]: destination table names.
//! * [`fields`]: record schemas to key and value columns (`pk.mode`, `pk.fields`,
//!   `fields.whitelist`).
//! * [`statements`]: INSERT / upsert / UPDATE / DELETE text per dialect; [`ddl`]: CREATE and
//!   ALTER TABLE with the type mapping.
//! * [`bind`]: values to statement parameters; [`metadata`]: existing tables' columns.
//! * [`writer`]: one `put()` in one transaction, rows cut into multi-row statements by
//!   [`batch`]; [`task`], [`connector`], [`plugin`].

pub mod batch;
pub mod bind;
pub mod config;
pub mod connector;
pub mod ddl;
pub mod fields;
pub mod metadata;
pub mod plugin;
pub mod statements;
pub mod table_id;
pub mod task;
pub mod writer;

pub use plugin::JdbcSinkPlugin;
#[cfg(test)]
mod tests;
