//! Everything about Java plugins: the plugin host, its wire encodings, discovery on
//! `plugin.path`. One test binary for the area (each binary links the whole runtime).

#[path = "../support/mod.rs"]
mod support;

mod codec;
