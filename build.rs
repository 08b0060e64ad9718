//! Link settings of the `connect-rs` binary.
//!
//! On GNU/Linux the binary is linked with packed relative relocations (`DT_RELR`, glibc 2.36+,
//! GNU ld 2.38+): the dynamic loader then reads about 19 KB of relocations at start-up instead of
//! 1.3 MB, and an idle worker's resident memory drops by about 3 MiB (17.7 -> 14.8 MiB measured
//! side by side, see docs/performance.md). `CONNECT_RS_NO_RELR=1` builds without it, for older
//! toolchains.

fn main() {
    println!("cargo:rerun-if-env-changed=CONNECT_RS_NO_RELR");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let opted_out = std::env::var_os("CONNECT_RS_NO_RELR").is_some_and(|v| v == "1");
    if os == "linux" && env == "gnu" && !opted_out {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
