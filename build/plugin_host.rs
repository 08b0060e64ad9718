//! The Java plugin host, built from source by the build (issue 28, plugin-host-design.md §4.7).
//!
//! Compiles `plugin-host/src/main/java/**/*.java` with `javac --release 17` against Kafka's
//! connect-api, kafka-clients and slf4j-api only, jars it as `connect-rs-plugin-host.jar`, and
//! writes `OUT_DIR/plugin_host_bundle.rs`: a table of that jar and the Kafka jars plugins expect
//! on their parent class path (`include_bytes!`, with a content hash), which only `src/main.rs`
//! includes. The Kafka jars come from `$CONNECT_RS_KAFKA_LIBS`, else
//! `$KAFKA_CONNECT_JARS_DIR/libs`, else `target/kafka-connect/libs`; when they are missing,
//! `scripts/kafka-connect-jars.sh` fetches them once (Maven Central, with mvn). Without javac,
//! jar or the Kafka jars the build still succeeds: the table then records why there is no host,
//! and the binary says so whenever a Java plugin is needed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The jar of the host's own classes.
const HOST_JAR: &str = "connect-rs-plugin-host.jar";
/// The host's main class (documentation of the bundle; the Rust side names it too).
const MAIN_CLASS: &str = "io.connectrs.host.Main";
/// The jars on the compile class path (file name prefixes, followed by `-<version>.jar`).
const COMPILE_JARS: &[&str] = &["connect-api", "kafka-clients", "slf4j-api"];
/// The jars bundled for the parent class path plugins expect from Kafka Connect's `libs/`.
const BUNDLED_JARS: &[&str] = &[
    "connect-api",
    "connect-transforms",
    "connect-json",
    "kafka-clients",
    "jackson-annotations",
    "jackson-core",
    "jackson-databind",
    "jackson-datatype-jdk8",
    // connect-json's JsonConverter registers it (Kafka Connect's libs/ has it).
    "jackson-module-blackbird",
    "slf4j-api",
];

/// Builds the host and writes `OUT_DIR/plugin_host_bundle.rs`, or an empty bundle with the
/// reason (also a `cargo:warning`).
pub fn build_plugin_host() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    for var in [
        "JAVA_HOME",
        "CONNECT_RS_KAFKA_LIBS",
        "KAFKA_CONNECT_JARS_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("plugin-host/src").display()
    );
    let table = match build(&manifest, &out) {
        Ok(files) => {
            let (hash, table) = bundle_table(&files);
            // For the tests that run the host through the library (they read the files from
            // this directory instead of embedding them).
            println!("cargo:rustc-env=CONNECT_RS_PLUGIN_HOST_BUNDLE_HASH={hash}");
            table
        }
        Err(reason) => {
            println!("cargo:warning=connect-rs is built without the Java plugin host: {reason}");
            println!("cargo:rustc-env=CONNECT_RS_PLUGIN_HOST_BUNDLE_HASH=none");
            // A path that never exists: the next build tries again (after a JDK was installed).
            println!(
                "cargo:rerun-if-changed={}",
                out.join("plugin-host-retry-until-built").display()
            );
            missing_table(&reason)
        }
    };
    let generated = out.join("plugin_host_bundle.rs");
    if let Err(e) = std::fs::write(&generated, table) {
        panic!("cannot write {}: {e}", generated.display());
    }
    println!(
        "cargo:rustc-env=CONNECT_RS_PLUGIN_HOST_BUNDLE_DIR={}",
        out.join("plugin-host-bundle").display()
    );
}

/// One file of the bundle: its name and where the build put it.
struct Built {
    name: String,
    path: PathBuf,
    hash: String,
}

fn build(manifest: &Path, out: &Path) -> Result<Vec<Built>, String> {
    let javac = tool("javac")?;
    let jar = tool("jar")?;
    let libs = kafka_libs(manifest)?;
    let find = |prefix: &str| -> Result<PathBuf, String> {
        find_jar(&libs, prefix).ok_or_else(|| {
            format!(
                "{prefix}-<version>.jar is missing in {} (run scripts/kafka-connect-jars.sh)",
                libs.display()
            )
        })
    };
    let compile_cp = COMPILE_JARS
        .iter()
        .map(|p| find(p))
        .collect::<Result<Vec<_>, _>>()?;
    let bundled = BUNDLED_JARS
        .iter()
        .map(|p| find(p))
        .collect::<Result<Vec<_>, _>>()?;
    for jar in &bundled {
        println!("cargo:rerun-if-changed={}", jar.display());
    }

    let src = manifest.join("plugin-host/src/main/java");
    let mut sources = Vec::new();
    walk(&src, &mut |p| {
        if p.extension().is_some_and(|e| e == "java") {
            sources.push(p.to_path_buf());
        }
    })
    .map_err(|e| format!("cannot read {}: {e}", src.display()))?;
    if sources.is_empty() {
        return Err(format!("no Java sources in {}", src.display()));
    }
    sources.sort();

    let classes = out.join("plugin-host-classes");
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes).map_err(|e| format!("{}: {e}", classes.display()))?;
    let argfile = out.join("plugin-host-sources.txt");
    let list: String = sources
        .iter()
        .map(|s| format!("\"{}\"\n", s.display()))
        .collect();
    std::fs::write(&argfile, list).map_err(|e| format!("{}: {e}", argfile.display()))?;
    let cp = std::env::join_paths(&compile_cp).map_err(|e| e.to_string())?;
    run(Command::new(&javac)
        .args(["--release", "17", "-nowarn", "-encoding", "UTF-8", "-d"])
        .arg(&classes)
        .arg("-cp")
        .arg(&cp)
        .arg(format!("@{}", argfile.display())))?;
    let resources = manifest.join("plugin-host/src/main/resources");
    if resources.is_dir() {
        copy_tree(&resources, &classes).map_err(|e| format!("{}: {e}", resources.display()))?;
    }

    let bundle_dir = out.join("plugin-host-bundle");
    let _ = std::fs::remove_dir_all(&bundle_dir);
    std::fs::create_dir_all(&bundle_dir).map_err(|e| format!("{}: {e}", bundle_dir.display()))?;
    let host_jar = bundle_dir.join(HOST_JAR);
    // Fixed entry dates make the jar (and so the bundle's hash and extraction directory) change
    // only with its classes; a `jar` without `--date` (before 17.0.3) builds it as is.
    let create = |date: bool| {
        let mut cmd = Command::new(&jar);
        cmd.args(["--create", "--file"]).arg(&host_jar);
        if date {
            cmd.arg("--date=2000-01-01T00:00:02Z");
        }
        cmd.args(["--main-class", MAIN_CLASS, "-C"])
            .arg(&classes)
            .arg(".");
        run(&mut cmd)
    };
    create(true).or_else(|_| create(false))?;

    let mut files = Vec::new();
    for path in bundled.iter().chain(std::iter::once(&host_jar)) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("jar name is not UTF-8: {}", path.display()))?
            .to_owned();
        let target = bundle_dir.join(&name);
        if *path != target {
            std::fs::copy(path, &target).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let bytes = std::fs::read(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        files.push(Built {
            hash: format!("{:016x}", fnv1a(&bytes)),
            name,
            path: target,
        });
    }
    Ok(files)
}

/// `javac`/`jar`: `$JAVA_HOME/bin/<name>`, else the first on `PATH`.
fn tool(name: &str) -> Result<PathBuf, String> {
    let java_home = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty());
    if let Some(home) = &java_home {
        let p = Path::new(home).join("bin").join(name);
        if p.is_file() {
            return Ok(p);
        }
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "`{name}` was found neither in $JAVA_HOME/bin ({}) nor on PATH",
                java_home
                    .as_ref()
                    .map_or("JAVA_HOME unset".to_owned(), |h| h
                        .to_string_lossy()
                        .into_owned())
            )
        })
}

/// The directory of Kafka's jars, fetched by `scripts/kafka-connect-jars.sh` once when the
/// default directory lacks them.
fn kafka_libs(manifest: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CONNECT_RS_KAFKA_LIBS").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        return Ok(dir);
    }
    let base = std::env::var_os("KAFKA_CONNECT_JARS_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| manifest.join("target/kafka-connect"), PathBuf::from);
    let libs = base.join("libs");
    println!("cargo:rerun-if-changed={}", libs.display());
    if BUNDLED_JARS.iter().all(|p| find_jar(&libs, p).is_some()) {
        return Ok(libs);
    }
    let script = manifest.join("scripts/kafka-connect-jars.sh");
    let output = Command::new("bash")
        .arg(&script)
        .env("KAFKA_CONNECT_JARS_DIR", &base)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        return Err(format!(
            "Kafka's jars are missing in {} and {} failed ({}): {}",
            libs.display(),
            script.display(),
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ));
    }
    Ok(libs)
}

/// `<dir>/<prefix>-<digit>...jar`.
fn find_jar(dir: &Path, prefix: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(".jar")
                    && n.strip_prefix(prefix)
                        .and_then(|rest| rest.strip_prefix('-'))
                        .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
            })
        })
        .collect();
    found.sort();
    found.pop()
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{:?} failed ({}): {}{}",
        cmd.get_program(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, f)?;
        } else {
            f(&path);
        }
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        let target = to.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            std::fs::create_dir_all(&target)?;
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}

/// FNV-1a (64 bits): names the extraction directory and tells bundles apart; the runtime
/// compares extracted files byte for byte, so this is no integrity check of its own.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn bundle_table(files: &[Built]) -> (String, String) {
    let mut all = String::new();
    for f in files {
        let _ = write!(all, "{}:{};", f.name, f.hash);
    }
    let hash = format!("{:016x}", fnv1a(all.as_bytes()));
    let mut out = String::from(
        "// Generated by build/plugin_host.rs: the Java plugin host and Kafka's API jars.\n\
         /// The Java plugin host bundled into this binary.\n\
         static PLUGIN_HOST_BUNDLE: connect_rs::plugin_host::bundle::Bundle =\n    \
         connect_rs::plugin_host::bundle::Bundle::Built {\n",
    );
    let _ = writeln!(out, "        hash: {hash:?},\n        files: &[");
    for f in files {
        let _ = writeln!(
            out,
            "            connect_rs::plugin_host::bundle::BundleFile {{ name: {:?}, hash: {:?}, bytes: include_bytes!({:?}) }},",
            f.name,
            f.hash,
            f.path.display().to_string()
        );
    }
    out.push_str("        ],\n    };\n");
    (hash, out)
}

fn missing_table(reason: &str) -> String {
    format!(
        "// Generated by build/plugin_host.rs: no Java plugin host could be built.\n\
         /// Why this binary has no Java plugin host.\n\
         static PLUGIN_HOST_BUNDLE: connect_rs::plugin_host::bundle::Bundle =\n    \
         connect_rs::plugin_host::bundle::Bundle::Missing {{ reason: {reason:?} }};\n"
    )
}
