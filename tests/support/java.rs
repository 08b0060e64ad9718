//! Java for the plugin-host tests: compile sources with `javac` and pack `jar`s (fixture plugins,
//! the host's own classes), on Kafka Connect's jars from `scripts/kafka-connect-jars.sh`. A test
//! without a JDK FAILS with the reason (never skips).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::kafka_connect::{jars, java_tool, run_tool};

/// The jar of `libs` whose name starts with `prefix` and a version digit (`connect-api-4.3.1.jar`).
pub fn lib(libs: &Path, prefix: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(libs)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", libs.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(prefix))
                .is_some_and(|rest| {
                    rest.starts_with('-')
                        && rest[1..].starts_with(|c: char| c.is_ascii_digit())
                        && rest.ends_with(".jar")
                })
        })
        .collect();
    found.sort();
    found
        .pop()
        .unwrap_or_else(|| panic!("no {prefix}-*.jar in {}", libs.display()))
}

/// The class path the plugin host compiles against: connect-api, kafka-clients, slf4j-api.
pub fn host_api_classpath() -> Vec<PathBuf> {
    let libs = jars().libs;
    ["connect-api", "kafka-clients", "slf4j-api"]
        .iter()
        .map(|p| lib(&libs, p))
        .collect()
}

/// The plugin host's main sources, plus its test sources of the package `test_package`
/// (`plugin-host/src/test/java/io/connectrs/host/<test_package>`) when given: each test
/// compiles only its own test main (they need different class paths).
pub fn host_sources(test_package: Option<&str>) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("plugin-host/src");
    let mut dirs = vec![root.join("main/java")];
    if let Some(package) = test_package {
        dirs.push(root.join("test/java/io/connectrs/host").join(package));
    }
    dirs.iter().flat_map(|d| java_files(d)).collect()
}

/// Every `.java` file below `dir`, sorted.
pub fn java_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot list {}: {e}", d.display()))
        {
            let p = e.expect("directory entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "java") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A class path string of `entries`.
pub fn classpath(entries: &[PathBuf]) -> String {
    entries
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// `javac --release 17` of `srcs` on `classpath` into `out` (created); panics with javac's output.
pub fn javac(srcs: &[PathBuf], classpath: &[PathBuf], out: &Path) {
    std::fs::create_dir_all(out).expect("create the javac output folder");
    run_tool(
        &format!("javac ({} files into {})", srcs.len(), out.display()),
        Command::new(java_tool("javac"))
            .args([
                "--release",
                "17",
                "-nowarn",
                "-Xlint:none",
                "-encoding",
                "UTF-8",
            ])
            .arg("-cp")
            .arg(self::classpath(classpath))
            .arg("-d")
            .arg(out)
            .args(srcs),
    );
}

/// `jar cf out -C dir .`: every file of `dir` (classes and resources) into the jar `out`.
pub fn jar(dir: &Path, out: &Path) {
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).expect("create the jar's folder");
    }
    run_tool(
        &format!("jar ({})", out.display()),
        Command::new(java_tool("jar"))
            .arg("cf")
            .arg(out)
            .arg("-C")
            .arg(dir)
            .arg("."),
    );
}

/// Copies the files below `from` into `to` (resources such as `META-INF/services`).
pub fn copy_tree(from: &Path, to: &Path, filter: impl Fn(&Path) -> bool + Copy) {
    for e in
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot list {}: {e}", from.display()))
    {
        let p = e.expect("directory entry").path();
        let target = to.join(p.file_name().expect("file name"));
        if p.is_dir() {
            copy_tree(&p, &target, filter);
        } else if filter(&p) {
            std::fs::create_dir_all(to).expect("create folder");
            std::fs::copy(&p, &target)
                .unwrap_or_else(|e| panic!("copy {} → {}: {e}", p.display(), target.display()));
        }
    }
}

/// Runs `java -cp CP class args...` and returns its stdout (panics with stderr when it fails).
pub fn run_java(classpath: &[PathBuf], class: &str, args: &[&Path]) -> String {
    let out = Command::new(java_tool("java"))
        .arg("-cp")
        .arg(self::classpath(classpath))
        .arg(class)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run java ({class}): {e}. Install a JDK 17+."));
    assert!(
        out.status.success(),
        "java {class} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
