//! Link settings of the `connect-rs` binary (GNU/Linux only; other targets link as usual).
//!
//! - Packed relative relocations (`DT_RELR`, glibc 2.36+, lld or GNU ld 2.38+): the dynamic
//!   loader reads about 19 KB of relocations at start-up instead of 1.3 MB, and an idle worker's
//!   resident memory drops by about 3 MiB (17.7 -> 14.8 MiB measured side by side, see
//!   docs/performance.md). `CONNECT_RS_NO_RELR=1` builds without it, for older toolchains.
//! - Start-up functions first (`link/startup-order.txt`, lld's `--symbol-ordering-file`): the
//!   code a worker runs to start, serve REST and idle sits in a few contiguous pages instead of
//!   being spread over the whole text, which the kernel's fault-around then maps in 64 KiB
//!   blocks (idle RSS 16.0 -> 9.4 MiB side by side). Only with lld, Rust's default linker on
//!   x86_64 GNU/Linux since 1.90, and no linker chosen by the build; `CONNECT_RS_NO_LINK_ORDER=1`
//!   builds without it. `scripts/link-order.sh` regenerates the file.
//!
//! It also builds the Java plugin host from source (`build/plugin_host.rs`, every target).

#[path = "build/plugin_host.rs"]
mod plugin_host;

use std::path::Path;
use std::process::Command;

fn main() {
    plugin_host::build_plugin_host();
    println!("cargo:rerun-if-env-changed=CONNECT_RS_NO_RELR");
    println!("cargo:rerun-if-env-changed=CONNECT_RS_NO_LINK_ORDER");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let opted_out = |name: &str| std::env::var_os(name).is_some_and(|v| v == "1");
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    if !opted_out("CONNECT_RS_NO_RELR") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/startup-order.txt");
    println!("cargo:rerun-if-changed={}", order.display());
    if !opted_out("CONNECT_RS_NO_LINK_ORDER") && links_with_default_lld() && order.is_file() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        // Symbols renamed since the file was recorded are skipped, not errors.
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether the binary is linked by the lld that rustc uses by default (x86_64 GNU/Linux, Rust
/// 1.90 and later) and the build did not pick another linker.
fn links_with_default_lld() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_ARCH") != "x86_64" || std::env::var_os("RUSTC_LINKER").is_some() {
        return false;
    }
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    if ["linker", "link-self-contained"]
        .iter()
        .any(|f| flags.contains(f))
    {
        return false;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return false;
    };
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let version = String::from_utf8_lossy(&out.stdout);
    let mut parts = version
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}
