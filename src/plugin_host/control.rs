//! The control connection to a running plugin host JVM: requests matched to their answers by
//! correlation id, a heartbeat, and the death path. When the JVM exits, its socket ends, or it
//! leaves a `PING` unanswered for `plugin.host.heartbeat.timeout.ms` (it is then killed), every
//! request in flight and every later one fails with [`HostError::Died`], naming the exit status
//! or signal and the JVM's last stderr lines.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot};

use super::error::{Death, HostError, JavaError};
use super::frame::{read_frame, write_frame, MessageType};
use super::process::{describe_exit, Spawned};

/// How long a JVM whose socket ended may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);
/// How long the log tasks may take to read the last lines of a JVM that exited.
const LOG_DRAIN: Duration = Duration::from_secs(2);

type Reply = oneshot::Sender<Result<Vec<u8>, HostError>>;

/// Handles the messages the host sends of its own to one target (a connector or a task): its
/// requests (a task's `OFFSETS_READ`) and notifies (a connector's `CONN_RECONFIGURE`). The
/// payload of such a message starts with the target's name (a codec string); `body` is the
/// rest.
pub trait Inbound: Send + Sync {
    /// Answers a request: `Ok` is the `OK` payload, `Err` the message of the `ERR` answer.
    fn request(&self, kind: MessageType, body: &[u8]) -> Result<Vec<u8>, String>;
    /// Takes a one-way message; must not block.
    fn notify(&self, kind: MessageType, body: &[u8]);
}

/// The control connection of one JVM (one generation). Cheap to clone.
#[derive(Clone)]
pub struct ControlConn {
    inner: Arc<Inner>,
}

struct Inner {
    generation: u64,
    pid: u32,
    java_version: String,
    started: Instant,
    writer: tokio::sync::Mutex<Option<OwnedWriteHalf>>,
    /// Requests waiting for their answer; `Err` once the JVM died (under the same lock, so no
    /// request is left waiting).
    pending: Mutex<Result<HashMap<u32, Reply>, Death>>,
    next_corr: AtomicU32,
    died_at: OnceLock<Instant>,
    /// Turns true once every request failed with the JVM's death.
    dead: tokio::sync::watch::Sender<bool>,
    /// Set by [`ControlConn::close`]: the end that follows is expected.
    closing: std::sync::atomic::AtomicBool,
    /// Asks the supervisor to kill the JVM, with the reason.
    kill: mpsc::UnboundedSender<String>,
    /// Who takes the host's own messages, by target name.
    targets: Mutex<HashMap<String, Arc<dyn Inbound>>>,
}

impl std::fmt::Debug for ControlConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlConn")
            .field("generation", &self.inner.generation)
            .field("pid", &self.inner.pid)
            .finish_non_exhaustive()
    }
}

impl ControlConn {
    /// The JVM's generation: 1 for the first JVM of a [`super::PluginHost`], then one more for
    /// each restart.
    pub fn generation(&self) -> u64 {
        self.inner.generation
    }

    /// The JVM's process id.
    pub fn pid(&self) -> u32 {
        self.inner.pid
    }

    /// The JVM's `java.version`, as its `HELLO` said.
    pub fn java_version(&self) -> &str {
        &self.inner.java_version
    }

    /// When the JVM was spawned.
    pub fn started(&self) -> Instant {
        self.inner.started
    }

    /// How the JVM ended, once it did.
    pub fn death(&self) -> Option<Death> {
        match &*lock(&self.inner.pending) {
            Ok(_) => None,
            Err(death) => Some(death.clone()),
        }
    }

    /// When connect-rs saw the JVM end.
    pub fn died_at(&self) -> Option<Instant> {
        self.inner.died_at.get().copied()
    }

    /// Whether connect-rs closed the connection ([`Self::close`]): an end that follows is a stop,
    /// not a death.
    pub fn is_closing(&self) -> bool {
        self.inner.closing.load(Ordering::Relaxed)
    }

    /// Whether the JVM still runs, as far as connect-rs knows.
    pub fn is_alive(&self) -> bool {
        self.death().is_none()
    }

    /// Sends a request and waits for its answer (the `OK` payload).
    ///
    /// Dropping the future leaves the request outstanding; its answer is then discarded.
    ///
    /// # Errors
    /// [`HostError::Remote`] when Java threw, [`HostError::Died`] when the JVM ended first,
    /// [`HostError::Protocol`] for a payload too large for a frame.
    pub async fn request(&self, kind: MessageType, payload: Vec<u8>) -> Result<Vec<u8>, HostError> {
        let corr = self.inner.next_corr.fetch_add(2, Ordering::Relaxed) | 1;
        let (tx, rx) = oneshot::channel();
        match &mut *lock(&self.inner.pending) {
            Ok(pending) => {
                pending.insert(corr, tx);
            }
            Err(death) => return Err(HostError::Died(death.clone())),
        }
        if let Err(e) = self.send(kind, corr, &payload).await {
            if let Ok(pending) = &mut *lock(&self.inner.pending) {
                pending.remove(&corr);
            }
            return Err(e);
        }
        match rx.await {
            Ok(answer) => answer,
            Err(_) => Err(HostError::Died(self.death().unwrap_or_else(|| Death {
                generation: self.inner.generation,
                status: "unknown".into(),
                cause: "the control connection was dropped".into(),
                stderr: Vec::new(),
            }))),
        }
    }

    /// Sends a one-way message (correlation id 0).
    ///
    /// # Errors
    /// The JVM died, or the payload is too large for a frame.
    pub async fn notify(&self, kind: MessageType, payload: &[u8]) -> Result<(), HostError> {
        if let Some(death) = self.death() {
            return Err(HostError::Died(death));
        }
        self.send(kind, 0, payload).await
    }

    async fn send(&self, kind: MessageType, corr: u32, payload: &[u8]) -> Result<(), HostError> {
        let mut writer = self.inner.writer.lock().await;
        let Some(w) = writer.as_mut() else {
            return Err(HostError::Died(self.death().unwrap_or_else(|| Death {
                generation: self.inner.generation,
                status: "still running".into(),
                cause: "connect-rs closed its control connection".into(),
                stderr: Vec::new(),
            })));
        };
        match write_frame(w, kind, corr, payload).await {
            Ok(()) => Ok(()),
            Err(super::frame::FrameError::BadLength { len }) => Err(HostError::Protocol(format!(
                "a {} request of {len} bytes does not fit in a frame (at most {} bytes)",
                kind.name(),
                super::frame::MAX_FRAME
            ))),
            // The socket broke: the supervisor sees the JVM end and fails the request.
            Err(e) => {
                tracing::debug!(target: "connect_rs::plugin_host", "write failed: {e}");
                Ok(())
            }
        }
    }

    /// Routes the host's own messages to `target` (a connector or task name) to `handler`,
    /// replacing an earlier handler of that name.
    pub fn register_target(&self, target: &str, handler: Arc<dyn Inbound>) {
        lock(&self.inner.targets).insert(target.to_owned(), handler);
    }

    /// Stops routing messages to `target`.
    pub fn unregister_target(&self, target: &str) {
        lock(&self.inner.targets).remove(target);
    }

    fn target(&self, name: &str) -> Option<Arc<dyn Inbound>> {
        lock(&self.inner.targets).get(name).cloned()
    }

    /// Closes the control connection: the JVM exits at its end of stream (the supervisor kills
    /// it when it does not within a few seconds).
    pub async fn close(&self) {
        self.inner.closing.store(true, Ordering::Relaxed);
        if let Some(mut w) = self.inner.writer.lock().await.take() {
            use tokio::io::AsyncWriteExt;
            let _ = w.shutdown().await;
        }
    }

    /// Kills the JVM (SIGKILL) for `reason`; requests fail with [`HostError::Died`].
    pub fn kill(&self, reason: impl Into<String>) {
        let _ = self.inner.kill.send(reason.into());
    }

    /// Waits until the JVM has ended and its requests have failed.
    pub async fn wait_dead(&self) -> Death {
        let mut dead = self.inner.dead.subscribe();
        // True once the death is recorded; the sender lives in `self`, so this waits for it.
        let _ = dead.wait_for(|d| *d).await;
        self.death().unwrap_or_else(|| Death {
            generation: self.inner.generation,
            status: "unknown".into(),
            cause: "the control connection was dropped".into(),
            stderr: Vec::new(),
        })
    }

    fn fail_all(&self, death: Death) {
        let _ = self.inner.died_at.set(Instant::now());
        let waiting = std::mem::replace(&mut *lock(&self.inner.pending), Err(death.clone()));
        self.inner.dead.send_replace(true);
        if let Ok(waiting) = waiting {
            for (_, reply) in waiting {
                let _ = reply.send(Err(HostError::Died(death.clone())));
            }
        }
    }

    fn answer(&self, corr: u32, answer: Result<Vec<u8>, HostError>) {
        let reply = match &mut *lock(&self.inner.pending) {
            Ok(pending) => pending.remove(&corr),
            Err(_) => None,
        };
        match reply {
            Some(reply) => {
                let _ = reply.send(answer);
            }
            None => tracing::debug!(
                target: "connect_rs::plugin_host",
                "answer to request {corr} that nobody waits for"
            ),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Timing of a connection.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// How long the JVM may take to connect and say `HELLO`.
    pub start_timeout: Duration,
    /// How often a `PING` is sent.
    pub heartbeat_interval: Duration,
    /// How long a `PING` may stay unanswered before the JVM is killed.
    pub heartbeat_timeout: Duration,
}

#[derive(Deserialize)]
struct Hello {
    token: String,
    #[serde(default)]
    role: String,
    protocol: u32,
    #[serde(default)]
    java: String,
}

/// Waits for the spawned JVM's `HELLO`, answers it, and starts the reader, heartbeat and
/// supervisor tasks.
///
/// # Errors
/// The JVM exited first, did not connect within the start timeout, or spoke another protocol.
pub async fn connect(
    mut spawned: Spawned,
    generation: u64,
    timing: Timing,
) -> Result<ControlConn, HostError> {
    let started = Instant::now();
    let accepted = tokio::select! {
        r = tokio::time::timeout(timing.start_timeout, accept(&spawned.listener, &spawned.token)) => match r {
            Ok(Ok(accepted)) => Ok(accepted),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(HostError::StartTimeout { timeout: timing.start_timeout, stderr: Vec::new() }),
        },
        status = spawned.child.wait() => {
            let status = status.map_or_else(|e| e.to_string(), describe_exit);
            drain_logs(&mut spawned).await;
            Err(HostError::Died(Death {
                generation,
                status,
                cause: "it exited before it connected to connect-rs".into(),
                stderr: spawned.stderr.lines(),
            }))
        }
    };
    let (stream, hello) = match accepted {
        Ok(a) => a,
        Err(mut e) => {
            let _ = spawned.child.start_kill();
            let _ = spawned.child.wait().await;
            drain_logs(&mut spawned).await;
            if let HostError::StartTimeout { stderr, .. } = &mut e {
                *stderr = spawned.stderr.lines();
            }
            return Err(e);
        }
    };
    tracing::info!(
        target: "connect_rs::plugin_host",
        "plugin host JVM connected (generation {generation}, pid {}, Java {}) in {} ms",
        spawned.pid,
        hello.java,
        started.elapsed().as_millis()
    );
    let (mut reader, writer) = stream.into_split();
    let (kill_tx, kill_rx) = mpsc::unbounded_channel();
    let conn = ControlConn {
        inner: Arc::new(Inner {
            generation,
            pid: spawned.pid,
            java_version: hello.java,
            started,
            writer: tokio::sync::Mutex::new(Some(writer)),
            pending: Mutex::new(Ok(HashMap::new())),
            next_corr: AtomicU32::new(1),
            died_at: OnceLock::new(),
            dead: tokio::sync::watch::channel(false).0,
            closing: std::sync::atomic::AtomicBool::new(false),
            kill: kill_tx,
            targets: Mutex::new(HashMap::new()),
        }),
    };

    let (eof_tx, eof_rx) = oneshot::channel::<String>();
    let reading = conn.clone();
    tokio::spawn(async move {
        let why = loop {
            match read_frame(&mut reader).await {
                Ok(Some(frame)) => route(&reading, frame),
                Ok(None) => break "its control connection ended".to_owned(),
                Err(e) => break format!("its control connection failed: {e}"),
            }
        };
        let _ = eof_tx.send(why);
    });
    tokio::spawn(supervise(conn.clone(), spawned, kill_rx, eof_rx));
    tokio::spawn(heartbeat(conn.clone(), timing));
    Ok(conn)
}

/// Accepts connections until one says `HELLO` with the token (others are dropped).
async fn accept(
    listener: &tokio::net::UnixListener,
    token: &str,
) -> Result<(UnixStream, Hello), HostError> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(HostError::io("accepting the plugin host's connection"))?;
        let frame =
            match tokio::time::timeout(Duration::from_secs(10), read_frame(&mut stream)).await {
                Ok(Ok(Some(frame))) if frame.kind == MessageType::HELLO => frame,
                _ => continue,
            };
        let hello: Hello = match serde_json::from_slice(&frame.payload) {
            Ok(h) => h,
            Err(e) => {
                return Err(HostError::Protocol(format!(
                    "unreadable HELLO from the plugin host: {e}"
                )))
            }
        };
        if hello.token != token {
            tracing::warn!(target: "connect_rs::plugin_host", "a connection to the plugin host's socket with a wrong token was dropped");
            continue;
        }
        if hello.protocol != MessageType::PROTOCOL_VERSION || hello.role != "control" {
            return Err(HostError::Protocol(format!(
                "the plugin host speaks protocol {} as '{}', connect-rs expects protocol {} as 'control' (a jar from another build?)",
                hello.protocol,
                hello.role,
                MessageType::PROTOCOL_VERSION
            )));
        }
        write_frame(&mut stream, MessageType::OK, frame.corr_id, b"{}")
            .await
            .map_err(|e| HostError::Protocol(format!("answering the plugin host's HELLO: {e}")))?;
        return Ok((stream, hello));
    }
}

/// One frame from Java: an answer to a request of ours, or a request or notify of the host's
/// own, routed to its target's [`Inbound`].
fn route(conn: &ControlConn, frame: super::frame::Frame) {
    let kind = frame.kind;
    if frame.corr_id % 2 == 1 && (kind == MessageType::OK || kind == MessageType::ERR) {
        let answer = if kind == MessageType::OK {
            Ok(frame.payload)
        } else {
            Err(match serde_json::from_slice::<JavaError>(&frame.payload) {
                Ok(e) => HostError::Remote(e),
                Err(e) => HostError::Protocol(format!(
                    "unreadable ERR payload ({e}): {}",
                    String::from_utf8_lossy(&frame.payload)
                )),
            })
        };
        conn.answer(frame.corr_id, answer);
    } else if kind != MessageType::OK && kind != MessageType::ERR && frame.corr_id.is_multiple_of(2)
    {
        inbound(conn, frame);
    } else {
        tracing::debug!(target: "connect_rs::plugin_host", "unhandled {} frame #{} from the plugin host", kind.name(), frame.corr_id);
    }
}

/// A request (even correlation id) or notify (id 0) of the host, to the target its payload
/// names.
fn inbound(conn: &ControlConn, frame: super::frame::Frame) {
    let kind = frame.kind;
    let mut r = super::codec::Reader::new(&frame.payload);
    let target = r
        .str("the target of a message of the plugin host")
        .map(str::to_owned);
    let body = frame.payload[r.position()..].to_vec();
    let handler = match &target {
        Ok(t) => conn.target(t),
        Err(_) => None,
    };
    if frame.corr_id == 0 {
        match handler {
            Some(h) => h.notify(kind, &body),
            None => {
                tracing::debug!(target: "connect_rs::plugin_host", "{} from the plugin host for {target:?}, which is gone", kind.name())
            }
        }
        return;
    }
    let conn = conn.clone();
    tokio::spawn(async move {
        let answer = match (handler, target) {
            (Some(h), _) => h.request(kind, &body),
            (None, Ok(t)) => Err(format!("{} is not running in connect-rs", t)),
            (None, Err(e)) => Err(e.to_string()),
        };
        let sent = match answer {
            Ok(payload) => conn.send(MessageType::OK, frame.corr_id, &payload).await,
            Err(message) => {
                conn.send(MessageType::ERR, frame.corr_id, message.as_bytes())
                    .await
            }
        };
        if let Err(e) = sent {
            tracing::debug!(target: "connect_rs::plugin_host", "answering the plugin host's {}: {e}", kind.name());
        }
    });
}

/// Owns the JVM: waits for it to exit, its socket to end, or a kill request; then fails every
/// request with how it ended.
async fn supervise(
    conn: ControlConn,
    mut spawned: Spawned,
    mut kill_rx: mpsc::UnboundedReceiver<String>,
    eof_rx: oneshot::Receiver<String>,
) {
    let generation = conn.generation();
    let (status, cause) = tokio::select! {
        status = spawned.child.wait() => (status, "the JVM exited".to_owned()),
        why = eof_rx => {
            let why = why.unwrap_or_else(|_| "its control connection ended".into());
            match tokio::time::timeout(EXIT_GRACE, spawned.child.wait()).await {
                Ok(status) => (status, why),
                Err(_) => {
                    let _ = spawned.child.start_kill();
                    (spawned.child.wait().await, format!("{why}, and it did not exit within {} s, so it was killed", EXIT_GRACE.as_secs()))
                }
            }
        }
        Some(reason) = kill_rx.recv() => {
            let _ = spawned.child.start_kill();
            (spawned.child.wait().await, format!("it was killed: {reason}"))
        }
    };
    let status = status.map_or_else(|e| format!("unknown ({e})"), describe_exit);
    drain_logs(&mut spawned).await;
    let death = Death {
        generation,
        status,
        cause,
        stderr: spawned.stderr.lines(),
    };
    if conn.inner.closing.load(Ordering::Relaxed) {
        tracing::info!(target: "connect_rs::plugin_host", "plugin host JVM (generation {generation}) stopped: {}", death.status);
    } else {
        tracing::warn!(target: "connect_rs::plugin_host", "{death}");
    }
    conn.fail_all(death);
}

/// Lets the log tasks read what the JVM wrote last.
async fn drain_logs(spawned: &mut Spawned) {
    for task in spawned.log_tasks.drain(..) {
        let _ = tokio::time::timeout(LOG_DRAIN, task).await;
    }
}

/// `PING` every interval; a `PING` unanswered for the timeout kills the JVM.
async fn heartbeat(conn: ControlConn, timing: Timing) {
    loop {
        tokio::time::sleep(timing.heartbeat_interval).await;
        if !conn.is_alive() {
            return;
        }
        match tokio::time::timeout(
            timing.heartbeat_timeout,
            conn.request(MessageType::PING, Vec::new()),
        )
        .await
        {
            Ok(Ok(_)) => {}
            Ok(Err(_)) => return,
            Err(_) => {
                conn.kill(format!(
                    "no answer to PING within {} ms (plugin.host.heartbeat.timeout.ms)",
                    timing.heartbeat_timeout.as_millis()
                ));
                return;
            }
        }
    }
}
