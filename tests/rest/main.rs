//! The REST API against the real binary: bodies, loggers, the OpenAPI document, security, validation.
//! One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod rest_api;
mod rest_loggers;
mod rest_openapi;
mod rest_security;
mod rest_validate;
