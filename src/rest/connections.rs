//! How long the REST listeners keep a connection and how many they keep at once.
//!
//! Kafka Connect's Jetty connectors close a connection that has been idle for 30 s (Jetty's
//! `ServerConnector` idle timeout, which Kafka Connect leaves at its default). connect-rs keeps
//! that bound, [`DEFAULT_IDLE_TIMEOUT`] (worker key `rest.idle.timeout.ms`, a connect-rs
//! extension), and applies it where a client, not the worker, is the one to act:
//!
//! - a request's head (request line and headers) must arrive within the timeout of the moment
//!   the connection starts waiting for it — after the accept, and after each answer on a
//!   keep-alive connection — so a silent socket or one sending a header byte a second is closed
//!   (hyper's `header_read_timeout`; the whole head, not the time between two bytes, which is
//!   stricter than Jetty against slow-loris clients);
//! - a request's body must arrive within the timeout of the handler asking for it
//!   ([`body_deadline`]): 408 with the error body;
//! - a write the client does not read for the timeout fails and closes the connection
//!   ([`Limited`]).
//!
//! The time a handler takes to answer is not bounded here: a connector creation may wait on the
//! herder up to the REST request timeout (90 s), and the connection stays open meanwhile.
//!
//! The number of open connections over all REST listeners is bounded ([`connection_limit`]): a
//! quarter of the process's file-descriptor limit (`RLIMIT_NOFILE`), between
//! [`MIN_CONNECTIONS`] and [`MAX_CONNECTIONS`], so that connections can never take the file
//! descriptors the embedded log needs for its segments. At the bound, listeners stop accepting
//! and new connections wait in the kernel's backlog until one closes; Jetty (and so Kafka
//! Connect) has no such bound.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Body as HttpBody, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;

/// The worker key of the idle timeout (a connect-rs extension).
pub const IDLE_TIMEOUT_KEY: &str = "rest.idle.timeout.ms";

/// Jetty's default idle timeout of a `ServerConnector`, which Kafka Connect keeps: 30 s.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// The fewest connections the listeners accept at once, however low the file limit.
pub const MIN_CONNECTIONS: usize = 8;

/// The most connections the listeners accept at once, however high the file limit.
pub const MAX_CONNECTIONS: usize = 4096;

/// The limits every REST listener of one worker shares.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// How long the worker waits for a client (see the module documentation).
    pub idle_timeout: Duration,
    permits: Arc<Semaphore>,
    limit: usize,
    last_warning: Arc<AtomicU64>,
    started: Instant,
}

impl ConnectionLimits {
    /// Limits with `idle_timeout` and at most `max_connections` open connections.
    pub fn new(idle_timeout: Duration, max_connections: usize) -> Self {
        let limit = max_connections.max(1);
        Self {
            idle_timeout,
            permits: Arc::new(Semaphore::new(limit)),
            limit,
            last_warning: Arc::new(AtomicU64::new(0)),
            started: Instant::now(),
        }
    }

    /// The limits of `worker`: its `rest.idle.timeout.ms` and [`connection_limit`].
    pub fn from_worker(worker: &crate::config::WorkerConfig) -> Self {
        let idle = worker
            .values()
            .long(IDLE_TIMEOUT_KEY)
            .and_then(|ms| u64::try_from(ms).ok())
            .map_or(DEFAULT_IDLE_TIMEOUT, Duration::from_millis);
        Self::new(idle, connection_limit())
    }

    /// How many connections may be open at once.
    pub fn max_connections(&self) -> usize {
        self.limit
    }

    /// Waits for a free connection slot (warning at most once a minute when none is free).
    async fn acquire(&self) -> OwnedSemaphorePermit {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return permit;
        }
        let now = self.started.elapsed().as_secs() + 60;
        let last = self.last_warning.load(Ordering::Relaxed);
        if now >= last + 60
            && self
                .last_warning
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(
                limit = self.limit,
                "The REST listeners have {} connections open, their limit (a quarter of the \
                 process's open-file limit); new connections wait until one closes.",
                self.limit
            );
        }
        loop {
            // The semaphore is never closed; a closed one would only mean retrying.
            if let Ok(permit) = self.permits.clone().acquire_owned().await {
                return permit;
            }
            tokio::task::yield_now().await;
        }
    }
}

/// The connection bound of this process: a quarter of its soft open-file limit, between
/// [`MIN_CONNECTIONS`] and [`MAX_CONNECTIONS`] (1024 files, a common default, give 256).
pub fn connection_limit() -> usize {
    let files = open_file_limit().unwrap_or(1024);
    usize::try_from(files / 4)
        .unwrap_or(MAX_CONNECTIONS)
        .clamp(MIN_CONNECTIONS, MAX_CONNECTIONS)
}

/// The soft `RLIMIT_NOFILE` (`None`: unlimited or unknown).
#[cfg(unix)]
fn open_file_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<u64> {
    None
}

/// The peer address of a connection on a bounded listener (axum-server's address type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// A listener that accepts only while a connection slot is free.
#[derive(Debug)]
pub struct LimitedListener {
    listener: TcpListener,
    limits: ConnectionLimits,
}

impl LimitedListener {
    /// `listener` under `limits`.
    pub fn new(listener: TcpListener, limits: ConnectionLimits) -> Self {
        Self { listener, limits }
    }
}

impl axum_server::Address for Peer {
    type Stream = Limited;
    type Listener = LimitedListener;
}

impl axum_server::AddrListener<Limited, Peer> for LimitedListener {
    async fn bind_to(addr: Peer) -> io::Result<Self> {
        // Not used: the REST server binds its listeners itself (to report bind errors).
        let listener = TcpListener::bind(addr.0).await?;
        Ok(Self::new(
            listener,
            ConnectionLimits::new(DEFAULT_IDLE_TIMEOUT, connection_limit()),
        ))
    }

    async fn accept_stream(&self) -> io::Result<(Limited, Peer)> {
        // The slot first: at the limit the connection stays in the kernel's backlog and holds
        // no file descriptor of this process.
        let permit = self.limits.acquire().await;
        let (stream, peer) = self.listener.accept().await?;
        // Answers are small and written whole: no Nagle delay.
        let _ = stream.set_nodelay(true);
        Ok((
            Limited {
                stream,
                _permit: permit,
                write_timeout: self.limits.idle_timeout,
                stalled: None,
            },
            Peer(peer),
        ))
    }

    fn get_local_addr(&self) -> io::Result<Peer> {
        self.listener.local_addr().map(Peer)
    }
}

/// An accepted connection: holds its slot until it is closed, and fails a write the client has
/// not let through for the idle timeout.
#[derive(Debug)]
pub struct Limited {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    write_timeout: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl Limited {
    /// `Pending` while a blocked write may still wait; an error once it waited too long.
    fn stall(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let timeout = self.write_timeout;
        let sleep = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client read nothing for {} ms",
                    self.write_timeout.as_millis()
                ),
            )),
            Poll::Pending => Poll::Pending,
        }
    }

    fn written<T>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match result {
            Poll::Pending => self.stall(cx).map(Err),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl AsyncRead for Limited {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Limited {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.written(cx, result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.written(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.stream).poll_flush(cx);
        self.written(cx, result)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.written(cx, result)
    }
}

/// The error of a request body that did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {} ms", .0.as_millis())]
pub struct BodyTimeout(pub Duration);

/// The middleware (for `axum::middleware::from_fn_with_state`) that gives every request body
/// `timeout` to arrive, from the moment a handler first asks for it.
pub async fn body_deadline(
    State(timeout): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    let body = Body::new(TimedBody {
        inner: body,
        timeout,
        deadline: None,
    });
    next.run(Request::from_parts(parts, body)).await
}

/// A request body that fails with [`BodyTimeout`] when it is not complete in time.
struct TimedBody {
    inner: Body,
    timeout: Duration,
    deadline: Option<Pin<Box<Sleep>>>,
}

impl HttpBody for TimedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        let timeout = this.timeout;
        let deadline = this
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(axum::Error::new(BodyTimeout(timeout))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
