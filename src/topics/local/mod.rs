//! Embedded durable log (placeholder).
