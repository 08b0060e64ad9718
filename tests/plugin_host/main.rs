//! Java plugins (issue 28): the plugin host JVM, its build, and the plugins it runs, through the
//! real binary and the library. One test binary for the area (each binary links the whole
//! runtime); one file per part.

#[path = "../support/mod.rs"]
mod support;

mod host_process;
