//! Test support of connect-membership: the repository's Kafka harness (a real KRaft broker)
//! and the Apache Kafka Connect jars for differential tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The repository root (two levels above this crate).
pub fn repo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The pids that hold the broker (`KAFKA_HARNESS_LEASE`): this process and, when started by
/// cargo, cargo, so the harness's watchdog stops the broker after the run.
fn lease_holders() -> String {
    let me = std::process::id();
    let parent = std::os::unix::process::parent_id();
    let parent_is_cargo = std::fs::read_to_string(format!("/proc/{parent}/comm"))
        .is_ok_and(|comm| comm.trim() == "cargo");
    if parent_is_cargo {
        format!("{me} {parent}")
    } else {
        me.to_string()
    }
}

/// Runs `scripts/kafka-harness.sh COMMAND` for `instance` under this process's lease; returns
/// its stdout. Panics with the script's output on failure: no broker means the test fails.
pub fn harness(instance: &str, command: &str, envs: &[(&str, &str)]) -> String {
    let script = repo_dir().join("scripts/kafka-harness.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(command)
        .envs(envs.iter().copied())
        .env("KAFKA_HARNESS_INSTANCE", instance)
        .env("KAFKA_HARNESS_LEASE", lease_holders())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "this test needs a real Kafka broker; {} {command} (instance {instance}) failed: {}{stdout}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The `KEY=` value of a harness output or state file.
pub fn field(text: &str, key: &str) -> String {
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .map(|b| b.trim().to_owned())
        .unwrap_or_else(|| panic!("no {key}= in: {text}"))
}

/// `HOST:PORT` of the shared harness broker, started (or reused) once per test process.
pub fn bootstrap() -> String {
    static BOOTSTRAP: OnceLock<String> = OnceLock::new();
    BOOTSTRAP
        .get_or_init(|| field(&harness("default", "start", &[]), "bootstrap"))
        .clone()
}

/// A group name of its own for one test.
pub fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{name}-{}-{nanos}", std::process::id())
}

/// Apache Kafka Connect's jars (`scripts/kafka-connect-jars.sh`): the `libs=` folder.
pub fn connect_libs() -> PathBuf {
    let script = repo_dir().join("scripts/kafka-connect-jars.sh");
    let out = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} failed: {}{stdout}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("libs="))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no libs= in: {stdout}"))
}

/// A JDK tool (`java`, `javac`): from `JAVA_HOME` when set, else from PATH.
pub fn java_tool(name: &str) -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) if !home.is_empty() => PathBuf::from(home).join("bin").join(name),
        _ => PathBuf::from(name),
    }
}
