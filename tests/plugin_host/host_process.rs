//! The plugin host process: the binary says it carries the Java side, `doctor` starts it with
//! the Java found (or names where it looked for one), a JVM killed with SIGKILL fails its
//! requests with `Died` and the next request starts a new generation, and a worker killed with
//! SIGKILL leaves no JVM behind.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use connect_rs::plugin_host::bundle::{self, Bundle, BundleFile};
use connect_rs::plugin_host::{HostError, HostSettings, MessageType, PluginHost};
use serde_json::Value;
use support::*;

/// One cache directory for every run of the tests: the bundle is extracted once.
fn cache_home() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-host-cache");
    std::fs::create_dir_all(&dir).expect("cache dir");
    dir
}

fn run(w: &Workdir, args: &[&str], env: &[(&str, &str)], remove: &[&str]) -> std::process::Output {
    let mut cmd = w.command(args);
    cmd.env("XDG_CACHE_HOME", cache_home());
    for (k, v) in env {
        cmd.env(k, v);
    }
    for k in remove {
        cmd.env_remove(k);
    }
    let out = cmd.output().expect("run connect-rs");
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    out
}

/// The finding of the `plugin-host` check in `doctor --format json`'s output.
fn plugin_host_finding(out: &std::process::Output) -> Value {
    let body: Value = serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("JSON ({e}): {}\n{}", stdout(out), stderr(out)));
    let found: Vec<&Value> = body["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["check"] == "plugin-host")
        .collect();
    assert_eq!(found.len(), 1, "{body:#}");
    found[0].clone()
}

#[test]
fn version_says_the_java_plugin_host_is_bundled() {
    let w = Workdir::new();
    let out = run(&w, &["--version"], &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l == "plugin host: bundled (Java side built from source)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn doctor_starts_the_host_for_a_plugin_path_and_reports_java_17() {
    let w = Workdir::new();
    std::fs::create_dir_all(w.path("plugins")).unwrap();
    let worker = w.worker(&format!("plugin.path={}", w.path("plugins").display()));
    let out = run(
        &w,
        &["doctor", "--format", "json", worker.to_str().unwrap()],
        &[],
        &[],
    );
    let finding = plugin_host_finding(&out);
    assert_eq!(finding["severity"], "note", "{finding:#}");
    let message = finding["message"].as_str().unwrap();
    assert!(
        glob(
            "the plugin host for the Java plugins of plugin.path started in * ms with Java 17.* (*java)",
            message
        ),
        "{message}"
    );
    // No error: 0, or 5 while plugin.path is still warned about as ignored.
    assert!(
        matches!(out.status.code(), Some(0 | 5)),
        "{:?} {}",
        out.status,
        stdout(&out)
    );

    // A plugin.path that does not exist starts no JVM.
    let worker = w.worker("plugin.path=/nonexistent/plugins");
    let out = run(
        &w,
        &["doctor", "--format", "json", worker.to_str().unwrap()],
        &[],
        &[],
    );
    assert!(!stdout(&out).contains("plugin-host"), "{}", stdout(&out));
}

#[test]
fn doctor_without_java_names_where_it_looked_and_exits_3() {
    let w = Workdir::new();
    std::fs::create_dir_all(w.path("plugins")).unwrap();
    std::fs::create_dir_all(w.path("empty-bin")).unwrap();
    let worker = w.worker(&format!("plugin.path={}", w.path("plugins").display()));
    let path = w.path("empty-bin");
    let out = run(
        &w,
        &["doctor", "--format", "json", worker.to_str().unwrap()],
        &[("PATH", path.to_str().unwrap())],
        &["JAVA_HOME"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let finding = plugin_host_finding(&out);
    assert_eq!(finding["severity"], "error");
    assert_eq!(finding["key"], "plugin.path");
    assert_eq!(finding["line"], 5);
    let message = finding["message"].as_str().unwrap();
    for part in [
        "whose Java plugins need the plugin host, but it cannot start: no Java was found",
        "plugin.host.java is not set",
        "JAVA_HOME is not set",
        &format!("no java on PATH ({})", path.display()),
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
    assert!(
        finding["action"]
            .as_str()
            .unwrap()
            .contains("Install Java 17"),
        "{finding:#}"
    );

    // plugin.host.java pointing nowhere is named as such, on its own line.
    let worker = w.worker(&format!(
        "plugin.path={}\nplugin.host.java=/nowhere/bin/java",
        w.path("plugins").display()
    ));
    let out = run(
        &w,
        &["doctor", "--format", "json", worker.to_str().unwrap()],
        &[],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let finding = plugin_host_finding(&out);
    assert_eq!(finding["key"], "plugin.host.java");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("plugin.host.java=/nowhere/bin/java is not an executable file"),
        "{finding:#}"
    );
}

/// The bundle the build made, read from its directory (test binaries do not embed it).
pub(crate) fn use_built_bundle() {
    let dir = Path::new(env!("CONNECT_RS_PLUGIN_HOST_BUNDLE_DIR"));
    let hash = env!("CONNECT_RS_PLUGIN_HOST_BUNDLE_HASH");
    assert_ne!(
        hash, "none",
        "the build made no plugin host (see its warning)"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let files: Vec<BundleFile> = names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            BundleFile {
                name: Box::leak(name.into_boxed_str()),
                hash: "",
                bytes: Box::leak(bytes.into_boxed_slice()),
            }
        })
        .collect();
    bundle::set_cache_root(cache_home().join("connect-rs/plugin-host"));
    bundle::set_bundle(Box::leak(Box::new(Bundle::Built {
        hash,
        files: Box::leak(files.into_boxed_slice()),
    })));
}

pub(crate) fn fast_settings() -> HostSettings {
    HostSettings {
        restart_backoff: Duration::from_millis(50),
        heartbeat_interval: Duration::from_millis(200),
        ..HostSettings::default()
    }
}

fn version(answer: &[u8]) -> Value {
    serde_json::from_slice(answer).expect("VERSION answer is JSON")
}

fn alive(pid: u64) -> bool {
    // A zombie has exited; it only waits for its parent.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

#[tokio::test]
async fn a_jvm_killed_with_sigkill_fails_its_requests_and_the_next_generation_answers() {
    use_built_bundle();
    let host = PluginHost::new(fast_settings());
    let conn = host.control().await.expect("the host starts");
    assert_eq!(conn.generation(), 1);
    let v = version(
        &conn
            .request(MessageType::VERSION, Vec::new())
            .await
            .unwrap(),
    );
    assert!(v["java"].as_str().unwrap().starts_with("17"), "{v}");
    let pid = v["pid"].as_u64().unwrap();
    assert_eq!(u64::from(conn.pid()), pid, "the JVM is the spawned process");
    assert!(
        host.control().await.unwrap().generation() == 1,
        "a live JVM is reused"
    );

    // A type without a handler is a Java exception, as an ERR frame.
    match conn.request(MessageType(99), b"x".to_vec()).await {
        Err(HostError::Remote(e)) => {
            assert_eq!(e.class, "java.lang.UnsupportedOperationException");
            assert!(e.trace.contains("at io.connectrs.host.Main"), "{}", e.trace);
            assert!(!e.retriable);
        }
        other => panic!("{other:?}"),
    }

    let status = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let err = conn
        .request(MessageType::VERSION, Vec::new())
        .await
        .expect_err("a dead JVM does not answer");
    match &err {
        HostError::Died(d) => {
            assert_eq!(d.generation, 1);
            assert_eq!(d.status, "killed by signal 9 (SIGKILL)", "{d}");
        }
        other => panic!("{other:?}"),
    }
    assert!(err.is_retriable());
    assert!(
        err.to_string()
            .starts_with("plugin host JVM (generation 1) exited: killed by signal 9 (SIGKILL)"),
        "{err}"
    );

    let next = host.control().await.expect("a new JVM starts");
    assert_eq!(next.generation(), 2);
    let v = version(
        &next
            .request(MessageType::VERSION, Vec::new())
            .await
            .unwrap(),
    );
    assert_ne!(v["pid"].as_u64().unwrap(), pid);

    host.shutdown(Duration::from_secs(10)).await;
    let d = next.death().expect("stopped");
    assert_eq!(
        d.status, "exit status 0",
        "the JVM exits at its socket's end: {d}"
    );
}

/// The JVM's death signal (`setpriv --pdeathsig`) follows the thread that spawned it: a JVM
/// first needed on a short-lived thread (a `spawn_blocking` thread that ends when idle) must
/// outlive that thread, as it lives as long as the worker.
#[test]
fn a_jvm_started_from_a_short_lived_thread_outlives_it() {
    use_built_bundle();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_keep_alive(Duration::from_millis(50))
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let host = PluginHost::new(fast_settings());
        let handle = tokio::runtime::Handle::current();
        let started = host.clone();
        let (pid, thread) = tokio::task::spawn_blocking(move || {
            let conn = handle.block_on(started.control()).expect("the host starts");
            (conn.pid(), std::thread::current().id())
        })
        .await
        .unwrap();
        // Wait until the blocking thread that asked has ended (idle for its keep-alive).
        let mut other = thread;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            other = tokio::task::spawn_blocking(|| std::thread::current().id())
                .await
                .unwrap();
            if other != thread {
                break;
            }
        }
        assert_ne!(other, thread, "the blocking thread was reused throughout");
        let conn = host.control().await.unwrap();
        assert_eq!(conn.pid(), pid, "the same JVM");
        let v = version(
            &conn
                .request(MessageType::VERSION, Vec::new())
                .await
                .expect("the JVM still answers after its asking thread ended"),
        );
        assert_eq!(v["pid"].as_u64(), Some(u64::from(pid)));
        assert!(alive(u64::from(pid)));
        host.shutdown(Duration::from_secs(10)).await;
    });
}

/// Run by [`a_worker_killed_with_sigkill_leaves_no_jvm`] in a child process: starts the host,
/// prints the JVM's pid, and waits to be killed.
#[tokio::test]
#[ignore = "a helper run by a_worker_killed_with_sigkill_leaves_no_jvm"]
async fn host_child_process() {
    if std::env::var_os("CONNECT_RS_HOST_CHILD").is_none() {
        return;
    }
    use_built_bundle();
    let host = PluginHost::new(fast_settings());
    let conn = host.control().await.expect("the host starts");
    println!("jvm-pid={}", conn.pid());
    tokio::time::sleep(Duration::from_secs(600)).await;
}

#[test]
fn a_worker_killed_with_sigkill_leaves_no_jvm() {
    use std::io::BufRead;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "host_process::host_child_process",
            "--ignored",
            "--nocapture",
        ])
        .env("CONNECT_RS_HOST_CHILD", "1")
        .env("XDG_CACHE_HOME", cache_home())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let pid: u64 = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("jvm-pid=").map(|p| p.parse().unwrap()))
        .expect("the child prints the JVM's pid");
    assert!(alive(pid));
    child.kill().unwrap(); // SIGKILL: no destructor, no kill_on_drop
    child.wait().unwrap();
    wait_for("the JVM to exit", Duration::from_secs(20), || !alive(pid));
}
