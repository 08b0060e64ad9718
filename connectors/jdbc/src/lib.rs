//! JDBC source and sink connectors for connect-rs, as users know them from the Confluent JDBC
//! connector (`io.confluent.connect.jdbc.JdbcSourceConnector` / `JdbcSinkConnector`): the same
//! keys, JDBC URLs (`jdbc:postgresql://…`, `jdbc:mysql://…`, `jdbc:mariadb://…`,
//! `jdbc:sqlite:…`), offsets and SQL shapes, on sqlx instead of JDBC drivers.
//!
//! * [`url`] reads a JDBC URL into a [`url::ConnectionSpec`] and its [`dialect::Dialect`].
//! * [`connection`] opens a [`connection::Database`] from it.
//! * [`source`] is the JDBC source connector ([`source::JdbcSourcePlugin`]).
//! * [`sink`] is the JDBC sink connector.

pub mod connection;
pub mod dialect;
pub mod sink;
pub mod source;
pub mod url;

pub use source::JdbcSourcePlugin;
