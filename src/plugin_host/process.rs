//! Spawning the plugin host JVM: a private directory (0700) with the Unix socket it connects
//! to, a random token and the socket path written to its stdin (never on the command line), its
//! own process group, `kill_on_drop`, and its stdout/stderr lines logged under the targets
//! `connect_rs::plugin_host::stdout` (INFO) and `connect_rs::plugin_host::stderr` (WARN).
//!
//! The JVM must not outlive the worker, even one killed with SIGKILL: the host exits when its
//! control socket reaches end of stream (the kernel closes the worker's end), when its parent
//! process exits (a watcher thread), and on Linux it also gets `PR_SET_PDEATHSIG=SIGKILL`
//! through util-linux's `setpriv --pdeathsig KILL` when that is installed: connect-rs forbids
//! `unsafe` code, and `pre_exec` with `prctl` would need it. The death signal follows the
//! thread that spawned the JVM (it fires when that thread ends), so every JVM is spawned by one
//! thread that lives as long as the process ([`spawn_from_long_lived_thread`]), whichever
//! thread asks (a runtime worker, a `spawn_blocking` thread, a short-lived runtime).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::net::UnixListener;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use super::bundle::{Extracted, MAIN_CLASS};
use super::error::HostError;
use super::java::JavaInfo;

/// How many stderr lines are kept for error messages.
const STDERR_KEPT: usize = 10;

/// The last stderr lines of a JVM.
#[derive(Debug, Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: String) {
        if let Ok(mut lines) = self.0.lock() {
            if lines.len() == STDERR_KEPT {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }

    /// The lines, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// A JVM just spawned, not yet connected.
pub struct Spawned {
    /// The child process.
    pub child: Child,
    /// Its pid.
    pub pid: u32,
    /// The socket it will connect to.
    pub listener: UnixListener,
    /// The token its `HELLO` must carry.
    pub token: String,
    /// Its last stderr lines.
    pub stderr: StderrTail,
    /// The tasks logging its stdout and stderr (they end at the pipes' end).
    pub log_tasks: Vec<JoinHandle<()>>,
    /// The private directory of the socket (removed when dropped).
    pub socket_dir: tempfile::TempDir,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    /// The Java.
    pub java: &'a JavaInfo,
    /// JVM options (`-Xmx1g`, ...).
    pub jvm_options: &'a [String],
    /// `plugin.host.classpath` entries, first on the class path.
    pub classpath: &'a [String],
    /// The extracted bundle.
    pub bundle: &'a Extracted,
    /// The generation, for logs.
    pub generation: u64,
}

/// Spawns the JVM and hands it its token and socket path.
///
/// # Errors
/// The directory, socket or process could not be made.
pub async fn spawn(launch: &Launch<'_>) -> Result<Spawned, HostError> {
    let socket_dir = socket_dir()?;
    let socket = socket_dir.path().join("host.sock");
    let listener = UnixListener::bind(&socket)
        .map_err(HostError::io(format!("binding {}", socket.display())))?;
    let token = token()?;

    let mut classpath: Vec<PathBuf> = launch.classpath.iter().map(PathBuf::from).collect();
    classpath.extend(launch.bundle.jars.iter().cloned());
    classpath.push(launch.bundle.host_jar.clone());
    let classpath = std::env::join_paths(&classpath).map_err(|e| HostError::Io {
        what: "building the plugin host's class path".into(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e),
    })?;

    let mut cmd = match pdeathsig_wrapper() {
        Some(setpriv) => {
            let mut c = Command::new(setpriv);
            c.args(["--pdeathsig", "KILL", "--"]).arg(&launch.java.path);
            c
        }
        None => Command::new(&launch.java.path),
    };
    cmd.args(launch.jvm_options)
        .arg("-cp")
        .arg(&classpath)
        .arg(MAIN_CLASS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    let mut child = spawn_from_long_lived_thread(cmd)
        .await
        .map_err(HostError::io(format!(
            "starting the plugin host JVM {}",
            launch.java.path.display()
        )))?;
    let pid = child.id().unwrap_or_default();
    tracing::info!(
        target: "connect_rs::plugin_host",
        "plugin host JVM started (generation {}, pid {pid}, {} {})",
        launch.generation,
        launch.java.path.display(),
        launch.java.version
    );

    let stderr = StderrTail::default();
    let mut log_tasks = Vec::new();
    if let Some(out) = child.stdout.take() {
        log_tasks.push(tokio::spawn(log_lines(out, None)));
    }
    if let Some(err) = child.stderr.take() {
        log_tasks.push(tokio::spawn(log_lines(err, Some(stderr.clone()))));
    }
    if let Some(mut stdin) = child.stdin.take() {
        let lines = format!("{token}\n{}\n", socket.display());
        // A JVM that died at once is reported by the caller, with its stderr.
        let _ = stdin.write_all(lines.as_bytes()).await;
        let _ = stdin.shutdown().await;
    }
    Ok(Spawned {
        child,
        pid,
        listener,
        token,
        stderr,
        log_tasks,
        socket_dir,
    })
}

/// A spawn request for the spawner thread.
type SpawnJob = Box<dyn FnOnce() + Send>;

/// Spawns `cmd` from the process's JVM spawner thread, which never ends, so that the death
/// signal `setpriv --pdeathsig` gives the JVM fires only when the worker process dies, never
/// when the thread that asked ends. The child is registered with the caller's runtime.
///
/// # Errors
/// The spawn failed, or the spawner thread could not be started.
async fn spawn_from_long_lived_thread(mut cmd: Command) -> std::io::Result<Child> {
    static SPAWNER: OnceLock<Mutex<std::sync::mpsc::Sender<SpawnJob>>> = OnceLock::new();
    let runtime = tokio::runtime::Handle::current();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: SpawnJob = Box::new(move || {
        let _entered = runtime.enter();
        let _ = tx.send(cmd.spawn());
    });
    let spawner = SPAWNER.get_or_init(|| {
        let (jobs, queue) = std::sync::mpsc::channel::<SpawnJob>();
        let started = std::thread::Builder::new()
            .name("connect-rs-jvm-spawner".into())
            .spawn(move || {
                while let Ok(job) = queue.recv() {
                    job();
                }
            });
        if let Err(e) = started {
            tracing::warn!(target: "connect_rs::plugin_host", "no JVM spawner thread ({e}): JVMs are spawned from the asking thread");
        }
        Mutex::new(jobs)
    });
    let sent = spawner
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .send(job);
    if let Err(std::sync::mpsc::SendError(job)) = sent {
        // No spawner thread: spawn here (the death signal then follows this thread).
        job();
    }
    rx.await.unwrap_or_else(|_| {
        Err(std::io::Error::other(
            "the JVM spawner thread dropped the request",
        ))
    })
}

/// Logs each line of `pipe`: stdout at INFO, stderr at WARN (kept in `tail`), except the
/// plugins' SLF4J events on stderr ([`log_event`]), logged at their own level.
async fn log_lines(pipe: impl AsyncRead + Unpin, tail: Option<StderrTail>) {
    let mut lines = BufReader::new(pipe).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        match &tail {
            None => tracing::info!(target: "connect_rs::plugin_host::stdout", "{line}"),
            Some(_) if log_event(&line) => {}
            Some(tail) => {
                tracing::warn!(target: "connect_rs::plugin_host::stderr", "{line}");
                tail.push(line);
            }
        }
    }
}

/// Logs `line` when it is one SLF4J event of the host (`io.connectrs.host.log.LogLine`:
/// U+001E, level, U+001F, logger, U+001F, message with U+001D for each line break) as Kafka
/// Connect's log pattern shows one (`message (logger)`), under the target
/// `connect_rs::plugin_host::java`; false for any other line.
fn log_event(line: &str) -> bool {
    let Some(event) = line.strip_prefix('\u{1e}') else {
        return false;
    };
    let mut fields = event.splitn(3, '\u{1f}');
    let (Some(level), Some(logger), Some(message)) = (fields.next(), fields.next(), fields.next())
    else {
        return false;
    };
    let message = message.replace('\u{1d}', "\n");
    match level {
        "ERROR" => tracing::error!(target: "connect_rs::plugin_host::java", "{message} ({logger})"),
        "WARN" => tracing::warn!(target: "connect_rs::plugin_host::java", "{message} ({logger})"),
        "INFO" => tracing::info!(target: "connect_rs::plugin_host::java", "{message} ({logger})"),
        "DEBUG" => tracing::debug!(target: "connect_rs::plugin_host::java", "{message} ({logger})"),
        _ => tracing::trace!(target: "connect_rs::plugin_host::java", "{message} ({logger})"),
    }
    true
}

/// A new private directory for the socket, under `$XDG_RUNTIME_DIR` or the temporary directory.
fn socket_dir() -> Result<tempfile::TempDir, HostError> {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute() && d.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let mut builder = tempfile::Builder::new();
    builder
        .prefix("connect-rs-host-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(
            crate::fs_private::DIR_MODE,
        ));
    builder.tempdir_in(&base).map_err(HostError::io(format!(
        "creating a directory in {}",
        base.display()
    )))
}

/// 32 random bytes, in hex.
fn token() -> Result<String, HostError> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(HostError::io(
            "reading /dev/urandom for the plugin host's token",
        ))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// util-linux's `setpriv`, when it knows `--pdeathsig` (checked once).
fn pdeathsig_wrapper() -> Option<&'static Path> {
    static SETPRIV: OnceLock<Option<PathBuf>> = OnceLock::new();
    SETPRIV
        .get_or_init(|| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let setpriv = std::env::split_paths(&path)
                .chain([PathBuf::from("/usr/bin"), PathBuf::from("/bin")])
                .map(|d| d.join("setpriv"))
                .find(|p| p.is_file())?;
            let help = std::process::Command::new(&setpriv)
                .arg("--help")
                .stdin(Stdio::null())
                .output()
                .ok()?;
            String::from_utf8_lossy(&help.stdout)
                .contains("--pdeathsig")
                .then_some(setpriv)
        })
        .as_deref()
}

/// `exit status 1`, `killed by signal 9 (SIGKILL)`.
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    match status.signal() {
        Some(sig) => {
            let name = match sig {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            format!("killed by signal {sig}{name}")
        }
        None => status.to_string(),
    }
}
