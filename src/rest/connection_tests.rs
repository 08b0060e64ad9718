//! The REST listeners' connection handling ([`super::connections`]) on a real socket: idle
//! and slow clients are closed, slow handlers are not, and the connection bound holds.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::connections::ConnectionLimits;
use super::listeners::serve_plain;

/// Serves a test router under `limits` on an ephemeral port.
async fn serve(limits: ConnectionLimits) -> (SocketAddr, CancellationToken) {
    let app = Router::new()
        .route("/", get(|| async { "ok" }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(1500)).await;
                "slow"
            }),
        )
        .route("/echo", post(|body: axum::body::Bytes| async move { body }))
        .layer(axum::middleware::from_fn_with_state(
            limits.idle_timeout,
            super::connections::body_deadline,
        ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(serve_plain(listener, app, limits, stop.clone()));
    (addr, stop)
}

/// One request on a fresh connection (`Connection: close`): the whole answer.
async fn request(addr: SocketAddr, path: &str) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_string(&mut out))
        .await
        .expect("answered in time")
        .unwrap();
    out
}

/// Reads until the server closes `s`; how long that took (fails after `limit`).
async fn closed_within(s: &mut TcpStream, limit: Duration) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout(limit, s.read(&mut buf)).await {
            Err(_) => panic!("the connection is still open after {limit:?}"),
            Ok(Ok(0)) | Ok(Err(_)) => return start.elapsed(),
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test]
async fn silent_and_slow_header_clients_are_closed_while_others_are_served() {
    let timeout = Duration::from_millis(600);
    let (addr, stop) = serve(ConnectionLimits::new(timeout, 64)).await;

    let mut silent = TcpStream::connect(addr).await.unwrap();
    // One header byte every 100 ms: never a whole head within the timeout.
    let loris = tokio::spawn(async move {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let start = Instant::now();
        for b in
            b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        {
            if s.write_all(&[*b]).await.is_err() {
                return start.elapsed();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the slow-loris client was never closed");
    });
    // Meanwhile, others are served.
    assert!(request(addr, "/").await.ends_with("ok"));
    let silent_for = closed_within(&mut silent, Duration::from_secs(5)).await;
    assert!(
        silent_for <= timeout + Duration::from_millis(500),
        "{silent_for:?}"
    );
    let loris_for = loris.await.unwrap();
    assert!(loris_for < Duration::from_secs(3), "{loris_for:?}");
    assert!(request(addr, "/").await.ends_with("ok"));
    stop.cancel();
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_but_a_slow_handler_is_not_cut() {
    let timeout = Duration::from_millis(500);
    let (addr, stop) = serve(ConnectionLimits::new(timeout, 64)).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    // The handler takes three times the idle timeout: answered all the same, on a keep-alive
    // connection.
    s.write_all(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = vec![0u8; 1024];
    let mut got = Vec::new();
    while !got.ends_with(b"slow") {
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
            .await
            .expect("answered")
            .unwrap();
        assert!(
            n > 0,
            "closed before the answer: {}",
            String::from_utf8_lossy(&got)
        );
        got.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"));
    // Then idle: closed after the timeout.
    let idle_for = closed_within(&mut s, Duration::from_secs(5)).await;
    assert!(
        idle_for <= timeout + Duration::from_millis(500),
        "{idle_for:?}"
    );
    stop.cancel();
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_gets_408() {
    let timeout = Duration::from_millis(500);
    let (addr, stop) = serve(ConnectionLimits::new(timeout, 64)).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
        .await
        .unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
        .await
        .expect("answered and closed")
        .unwrap();
    let out = String::from_utf8_lossy(&out);
    // axum's `Bytes` extractor answers 400 (the REST API's forwarding layer answers 408 with
    // the error body); either way the connection is answered and closed in time.
    assert!(out.starts_with("HTTP/1.1 4"), "{out}");
    stop.cancel();
}

#[tokio::test]
async fn connections_beyond_the_bound_wait_until_one_closes() {
    let (addr, stop) = serve(ConnectionLimits::new(Duration::from_secs(30), 2)).await;
    let first = TcpStream::connect(addr).await.unwrap();
    let second = TcpStream::connect(addr).await.unwrap();
    // Both slots are taken (the kernel completes the third handshake; the worker does not
    // accept it).
    let waiting = tokio::spawn(request(addr, "/"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "served beyond the bound");
    drop(first);
    let answer = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("served once a slot was free")
        .unwrap();
    assert!(answer.ends_with("ok"), "{answer}");
    drop(second);
    stop.cancel();
}
