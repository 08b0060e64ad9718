//! Helpers for binary-level tests: a temp work dir, config files, spawning the real
//! `connect-rs` binary, and waiting on conditions (never fixed sleeps).

#![allow(dead_code, missing_docs)]

pub mod cluster;
pub mod db;
pub mod debezium;
pub mod http;
pub mod java;
pub mod jdbc;
pub mod kafka;
pub mod kafka_connect;
pub mod plugin_jars;
pub mod rest;
pub mod rng;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// How long one `--exit-when-idle` run may take before the test fails.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// The binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_connect-rs"))
}

/// A temporary working directory for one test.
pub struct Workdir {
    pub dir: tempfile::TempDir,
}

impl Workdir {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes a file and returns its path.
    pub fn write(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, content).unwrap();
        path
    }

    /// A worker file for the embedded log in this dir, with extra lines appended.
    pub fn worker(&self, extra: &str) -> PathBuf {
        self.write(
            "worker.properties",
            format!(
                "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
                 value.converter=org.apache.kafka.connect.storage.StringConverter\n\
                 listeners=http://127.0.0.1:0\n\
                 embedded.log.dir={}\n{extra}\n",
                self.path("data").display()
            ),
        )
    }

    /// A FileStreamSource connector file reading `input` into `topic`.
    pub fn source(&self, name: &str, input: &Path, topic: &str) -> PathBuf {
        self.write(
            &format!("{name}.properties"),
            format!(
                "name={name}\nconnector.class=FileStreamSource\ntasks.max=1\nfile={}\ntopic={topic}\n",
                input.display()
            ),
        )
    }

    /// A FileStreamSink connector file writing `topic` into `output`.
    pub fn sink(&self, name: &str, output: &Path, topic: &str) -> PathBuf {
        self.write(
            &format!("{name}.properties"),
            format!(
                "name={name}\nconnector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics={topic}\n",
                output.display()
            ),
        )
    }

    /// The `connect-rs` command, run in this dir.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(binary());
        // Tests read log lines at the default level, whatever the caller's environment says.
        cmd.args(args)
            .env_remove("RUST_LOG")
            .current_dir(self.dir.path());
        cmd
    }

    /// `run_until_idle` with a 300 ms idle time, checked not to have panicked: (exit code,
    /// stderr).
    pub fn run_checked(&self, files: &[&Path]) -> (i32, String) {
        let out = self.run_until_idle("300ms", files);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{err}");
        (out.status.code().expect("exit code"), err)
    }

    /// Runs `connect-rs standalone --exit-when-idle=IDLE worker files...` to completion; a run
    /// that does not end within [`RUN_TIMEOUT`] is killed and fails the test.
    pub fn run_until_idle(&self, idle: &str, files: &[&Path]) -> Output {
        let mut args = vec!["standalone".to_owned(), format!("--exit-when-idle={idle}")];
        args.extend(files.iter().map(|f| f.display().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run_to_exit(&args)
    }

    /// Runs `connect-rs ARGS` to completion; a run that does not end within [`RUN_TIMEOUT`] is
    /// killed and fails the test.
    pub fn run_to_exit(&self, args: &[&str]) -> Output {
        let out_path = self.path("run.stdout");
        let err_path = self.path("run.stderr");
        let mut child = self
            .command(args)
            .stdout(std::fs::File::create(&out_path).unwrap())
            .stderr(std::fs::File::create(&err_path).unwrap())
            .spawn()
            .expect("run connect-rs");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("try_wait") {
                break status;
            }
            if start.elapsed() > RUN_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "connect-rs did not exit within {RUN_TIMEOUT:?}; its log:\n{}",
                    std::fs::read_to_string(&err_path).unwrap_or_default()
                );
            }
            std::thread::park_timeout(Duration::from_millis(20));
        };
        Output {
            status,
            stdout: std::fs::read(&out_path).unwrap_or_default(),
            stderr: std::fs::read(&err_path).unwrap_or_default(),
        }
    }

    /// Spawns `connect-rs standalone worker files...` in the background; its log goes to
    /// [`Workdir::log`] (a file, so a chatty process never blocks on a full pipe).
    pub fn spawn(&self, files: &[&Path]) -> Child {
        let mut args = vec!["standalone".to_owned()];
        args.extend(files.iter().map(|f| f.display().to_string()));
        self.spawn_args(&args)
    }

    /// Spawns `connect-rs ARGS...` in the background, its log going to [`Workdir::log`].
    pub fn spawn_args(&self, args: &[String]) -> Child {
        let log = std::fs::File::create(self.path("connect-rs.log")).expect("log file");
        let mut cmd = Command::new(binary());
        cmd.args(args)
            .env_remove("RUST_LOG")
            .current_dir(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        cmd.spawn().expect("spawn connect-rs")
    }

    /// The log of the last process started with [`Workdir::spawn`].
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.path("connect-rs.log")).unwrap_or_default()
    }
}

/// Waits until `cond` holds, checking every 20 ms, failing the test after `timeout`.
pub fn wait_for(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < timeout,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::park_timeout(Duration::from_millis(20));
    }
}

/// Sends SIGTERM and waits for the process to exit.
pub fn terminate(child: &mut Child, timeout: Duration) -> ExitStatus {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    wait_exit(child, timeout)
}

/// Waits for a child to exit, failing after `timeout`.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> ExitStatus {
    let mut status = None;
    wait_for("process exit", timeout, || {
        status = child.try_wait().expect("try_wait");
        status.is_some()
    });
    status.unwrap_or_else(|| unreachable!())
}

/// Counts the lines of a file (0 when it does not exist).
pub fn line_count(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

/// How many input lines of a `numbered_lines` copy have reached `path`: one more than the highest
/// line index in it (0 for no complete line). Unlike `line_count`, replays of lines that were not
/// yet committed when a consumer or a process restarted are not counted, so `new_lines(out) ==
/// n` means that line `n - 1` has arrived, not that `n` lines (some of them twice) have.
pub fn new_lines(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap_or_default();
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| line.len() == WIDTH - 1)
        .map(|line| line_index(line) + 1)
        .max()
        .unwrap_or(0)
}

/// `n` lines of exactly `width` bytes (including the newline), each unique.
pub fn numbered_lines(start: usize, n: usize, width: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * width);
    for i in start..start + n {
        let head = format!("line-{i:010}-");
        out.extend_from_slice(head.as_bytes());
        out.extend(std::iter::repeat_n(b'x', width - head.len() - 1));
        out.push(b'\n');
    }
    out
}

/// The entries at and under `root` (not following links) that are not private to the
/// worker's user, as connect-rs keeps its state: "mode path" of every file not 0600 and every
/// directory not 0700.
pub fn not_private(root: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let meta =
        std::fs::symlink_metadata(root).unwrap_or_else(|e| panic!("stat {}: {e}", root.display()));
    let mode = meta.permissions().mode() & 0o7777;
    let mut bad = Vec::new();
    if meta.is_dir() {
        if mode != 0o700 {
            bad.push(format!("{mode:04o} {}", root.display()));
        }
        for entry in std::fs::read_dir(root).unwrap() {
            bad.extend(not_private(&entry.unwrap().path()));
        }
    } else if !meta.file_type().is_symlink() && mode != 0o600 {
        bad.push(format!("{mode:04o} {}", root.display()));
    }
    bad
}

/// `chmod MODE path`.
pub fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {mode:o} {}: {e}", path.display()));
}

/// The permission bits of `path`.
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

/// Whether the tests run as root (then they can act as another user).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `cat path` run as the unprivileged user `nobody` (the tests must run as root).
pub fn cat_as_nobody(path: &Path) -> Output {
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "cat"])
        .arg(path)
        .output()
        .expect("run setpriv")
}

/// stderr of a finished command, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// stdout of a finished command, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Width of the lines `numbered_lines` makes in the copy tests (100 bytes with the newline).
pub const WIDTH: usize = 100;

/// The input line index of a numbered line.
pub fn line_index(line: &[u8]) -> usize {
    std::str::from_utf8(&line[5..15]).unwrap().parse().unwrap()
}

/// Checks that `output` is the input, in order, with replays: every line is complete and is
/// either the next new input line or a line seen before (a replay of what was not yet
/// committed when a process died). A line beyond the next new one is a gap: a loss.
/// Returns the number of duplicated lines.
pub fn check_replays(output: &[u8], total: usize) -> usize {
    let body = output.strip_suffix(b"\n").unwrap_or(output);
    let mut expected = 0usize;
    let mut duplicates = 0;
    for (n, line) in body.split(|&b| b == b'\n').enumerate() {
        assert_eq!(
            line.len(),
            WIDTH - 1,
            "line {n} is torn: {:?}",
            String::from_utf8_lossy(line)
        );
        let idx = line_index(line);
        match idx.cmp(&expected) {
            std::cmp::Ordering::Equal => expected += 1,
            std::cmp::Ordering::Less => duplicates += 1,
            std::cmp::Ordering::Greater => {
                panic!("line {n}: got input line {idx} but line {expected} is missing (gap)")
            }
        }
    }
    assert_eq!(expected, total, "output ends before the input does");
    duplicates
}

/// `pattern` matches `text`, `*` standing for any run of characters.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}
