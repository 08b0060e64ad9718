//! The forwarding layer over real HTTP: a worker whose herder says "served elsewhere" forwards
//! to a second real listener and answers with its answer.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::header::{HeaderMap, HeaderValue};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{CONFLICTING_OPERATION, NO_LEADER_URL};
use crate::herder::distributed::client::{ClientResponse, RestClient};
use crate::herder::{HerderError, HerderHandle, Request as HerderRequest};
use crate::plugins::PluginRegistry;
use crate::rest::{serve, AppState, WorkerInfo};

/// A herder that says every request must be served by the worker at `target`.
fn forwarding_herder(target: Option<String>) -> HerderHandle {
    let (tx, mut rx) = mpsc::channel::<HerderRequest>(16);
    tokio::spawn(async move {
        while let Some(request) = rx.recv().await {
            let e = || HerderError::Forward(target.clone());
            match request {
                HerderRequest::Connectors(r) => drop(r.send(Vec::new())),
                HerderRequest::Info(_, r) => drop(r.send(Err(e()))),
                HerderRequest::Config(_, r) | HerderRequest::RawConfig(_, r) => {
                    drop(r.send(Err(e())));
                }
                HerderRequest::Status(_, r) => drop(r.send(Err(e()))),
                HerderRequest::TaskConfigs(_, r) => drop(r.send(Err(e()))),
                HerderRequest::PutConfig { reply, .. } => drop(reply.send(Err(e()))),
                HerderRequest::Delete(_, r) | HerderRequest::SetTarget(_, _, r) => {
                    drop(r.send(Err(e())));
                }
                HerderRequest::Restart { reply, .. } => drop(reply.send(Err(e()))),
                HerderRequest::Offsets(_, r) => drop(r.send(Err(e()))),
                HerderRequest::AlterOffsets { reply, .. } => drop(reply.send(Err(e()))),
                HerderRequest::RestartTask(_, _, r) => drop(r.send(Err(e()))),
                HerderRequest::Topics(_, _, r) => drop(r.send(Err(e()))),
                HerderRequest::PutTaskConfigs { reply, .. }
                | HerderRequest::FenceZombies { reply, .. }
                | HerderRequest::VerifyTaskGeneration { reply, .. }
                | HerderRequest::SetClusterLoggerLevel { reply, .. } => drop(reply.send(Err(e()))),
                HerderRequest::IdleLeft(_, r) => drop(r.send(Some(std::time::Duration::ZERO))),
                HerderRequest::RefreshMetrics(r) => drop(r.send(())),
                HerderRequest::Shutdown(r) => drop(r.send(Default::default())),
            }
        }
    });
    HerderHandle::new(tx, "127.0.0.1:1".to_owned())
}

struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
}

impl Server {
    fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// A worker's REST API (with the forwarding layer) whose herder forwards to `target`.
async fn forwarding_worker(target: Option<String>) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState {
        herder: forwarding_herder(target),
        metrics: Arc::default(),
        plugins: Arc::new(PluginRegistry::builtin()),
        worker: Arc::new(WorkerInfo {
            kafka_cluster_id: None,
            converters: Default::default(),
            providers: Arc::default(),
            rest_client: RestClient::default(),
        }),
    };
    let shutdown = CancellationToken::new();
    tokio::spawn(serve(listener, state, shutdown.clone()));
    Server { addr, shutdown }
}

/// What the target received.
#[derive(Debug, Clone)]
struct Received {
    method: Method,
    path_and_query: String,
    headers: HeaderMap,
    body: Bytes,
}

/// A plain server standing for the worker that serves requests: records each request and
/// answers with `answer`.
async fn target(answer: fn(&Received) -> Response) -> (Server, Arc<Mutex<Vec<Received>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let app = axum::Router::new().fallback(move |request: Request| {
        let record = record.clone();
        async move {
            let (parts, body) = request.into_parts();
            let received = Received {
                method: parts.method,
                path_and_query: parts
                    .uri
                    .path_and_query()
                    .map(|p| p.as_str().to_owned())
                    .unwrap_or_default(),
                headers: parts.headers,
                body: axum::body::to_bytes(body, usize::MAX).await.unwrap(),
            };
            let response = answer(&received);
            record.lock().unwrap().push(received);
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
    });
    (Server { addr, shutdown }, seen)
}

fn created(r: &Received) -> Response {
    let body = json!({"name": "x", "echo": String::from_utf8_lossy(&r.body)});
    (
        StatusCode::CREATED,
        [(header::LOCATION, "http://leader.example:9999/connectors/x")],
        axum::Json(body),
    )
        .into_response()
}

async fn call(
    server: &Server,
    method: Method,
    path_and_query: &str,
    headers: &[(&'static str, &str)],
    body: &str,
) -> ClientResponse {
    let mut h = HeaderMap::new();
    for (k, v) in headers {
        h.insert(*k, HeaderValue::from_str(v).unwrap());
    }
    let url = format!("http://{}{path_and_query}", server.addr);
    RestClient::default()
        .send(method, &url, h, Bytes::from(body.to_owned()))
        .await
        .unwrap()
}

fn json_of(r: &ClientResponse) -> Value {
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {:?}", r.body))
}

#[tokio::test]
async fn a_write_is_forwarded_with_its_method_path_query_body_and_credentials() {
    let (leader, seen) = target(created).await;
    let follower = forwarding_worker(Some(leader.url())).await;
    let body = r#"{"name":"x","config":{"connector.class":"FileStreamSource"}}"#;
    let r = call(
        &follower,
        Method::POST,
        "/connectors?expand=info",
        &[
            ("content-type", "application/json"),
            ("authorization", "Basic dXNlcjpwdw=="),
            ("x-other", "not forwarded"),
        ],
        body,
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(json_of(&r), json!({"name": "x", "echo": body}));
    assert_eq!(
        r.headers.get(header::CONTENT_TYPE).unwrap(),
        "application/json"
    );
    // The Location is on the host the caller asked, as the follower would give it.
    assert_eq!(
        r.headers.get(header::LOCATION).unwrap().to_str().unwrap(),
        format!("http://{}/connectors/x", follower.addr)
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let got = &seen[0];
    assert_eq!(got.method, Method::POST);
    // Kafka Connect's first hop: forward=true (the next worker may forward once more).
    assert_eq!(got.path_and_query, "/connectors?forward=true&expand=info");
    assert_eq!(got.body, body.as_bytes());
    assert_eq!(
        got.headers.get("authorization").unwrap(),
        "Basic dXNlcjpwdw=="
    );
    assert_eq!(got.headers.get("content-type").unwrap(), "application/json");
    assert_eq!(got.headers.get("user-agent").unwrap(), "kafka-connect");
    assert!(got.headers.get("x-other").is_none());
}

#[tokio::test]
async fn a_request_forwarded_once_is_forwarded_with_forward_false() {
    let (leader, seen) = target(|_| StatusCode::NO_CONTENT.into_response()).await;
    let follower = forwarding_worker(Some(leader.url())).await;
    let r = call(
        &follower,
        Method::DELETE,
        "/connectors/a%20b?forward=TRUE",
        &[],
        "",
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert!(r.body.is_empty());
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].method, Method::DELETE);
    assert_eq!(seen[0].path_and_query, "/connectors/a%20b?forward=false");
}

#[tokio::test]
async fn two_hops_reach_the_serving_worker_and_a_third_is_refused() {
    let (leader, seen) = target(created).await;
    // User → first → second → leader.
    let second = forwarding_worker(Some(leader.url())).await;
    let first = forwarding_worker(Some(second.url())).await;
    let r = call(
        &first,
        Method::PUT,
        "/connectors/x/config",
        &[("content-type", "application/json")],
        "{}",
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(
        seen.lock().unwrap()[0].path_and_query,
        "/connectors/x/config?forward=false"
    );

    // User → first → second → third, which may not forward again: its 409 comes back.
    let third = forwarding_worker(Some(leader.url())).await;
    let second = forwarding_worker(Some(third.url())).await;
    let first = forwarding_worker(Some(second.url())).await;
    let r = call(&first, Method::POST, "/connectors/x/restart", &[], "").await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(
        json_of(&r),
        json!({"error_code": 409, "message": CONFLICTING_OPERATION})
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "the leader saw the third hop"
    );
}

#[tokio::test]
async fn forward_false_is_a_conflict() {
    let (leader, seen) = target(created).await;
    let follower = forwarding_worker(Some(leader.url())).await;
    for query in ["forward=false", "forward=nonsense"] {
        let path = format!("/connectors/x/restart?includeTasks=true&{query}");
        let r = call(&follower, Method::POST, &path, &[], "").await;
        assert_eq!(r.status, StatusCode::CONFLICT);
        assert_eq!(
            json_of(&r),
            json!({"error_code": 409, "message": CONFLICTING_OPERATION})
        );
    }
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn no_known_leader_is_a_conflict() {
    let follower = forwarding_worker(None).await;
    let r = call(&follower, Method::PUT, "/connectors/x/pause", &[], "").await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(
        json_of(&r),
        json!({"error_code": 409, "message": NO_LEADER_URL})
    );
}

#[tokio::test]
async fn the_serving_workers_error_is_the_answer() {
    let (leader, _) = target(|_| {
        (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"error_code": 404, "message": "Unknown connector: x"})),
        )
            .into_response()
    })
    .await;
    let follower = forwarding_worker(Some(leader.url())).await;
    let r = call(
        &follower,
        Method::POST,
        "/connectors/x/tasks/0/restart",
        &[],
        "",
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(
        json_of(&r),
        json!({"error_code": 404, "message": "Unknown connector: x"})
    );
}

#[tokio::test]
async fn odd_answers_and_unreachable_workers_are_500s() {
    let (leader, _) = target(|_| {
        (
            StatusCode::TEMPORARY_REDIRECT,
            [(header::LOCATION, "http://elsewhere/")],
        )
            .into_response()
    })
    .await;
    let follower = forwarding_worker(Some(leader.url())).await;
    let r = call(&follower, Method::PUT, "/connectors/x/resume", &[], "").await;
    assert_eq!(r.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        json_of(&r),
        json!({"error_code": 500, "message": "Unexpected status code when handling forwarded request: 307"})
    );

    let gone = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gone_url = format!("http://{}/", gone.local_addr().unwrap());
    drop(gone);
    let follower = forwarding_worker(Some(gone_url.clone())).await;
    let r = call(&follower, Method::DELETE, "/connectors/x", &[], "").await;
    assert_eq!(r.status, StatusCode::INTERNAL_SERVER_ERROR);
    let message = json_of(&r)["message"].as_str().unwrap().to_owned();
    assert!(
        message.starts_with("IO Error trying to forward REST request: cannot connect to "),
        "{message}"
    );
    assert!(
        message.contains(gone_url.trim_end_matches('/')),
        "{message}"
    );
}

#[tokio::test]
async fn internal_requests_keep_their_signature_when_forwarded() {
    let (leader, seen) = target(|_| StatusCode::NO_CONTENT.into_response()).await;
    let follower = forwarding_worker(Some(leader.url())).await;
    let body = r#"[{"task.class":"T"}]"#;
    let r = call(
        &follower,
        Method::POST,
        "/connectors/x/tasks",
        &[
            ("content-type", "application/json"),
            ("x-connect-authorization", "c2lnbmF0dXJl"),
            ("x-connect-request-signature-algorithm", "HmacSHA256"),
        ],
        body,
    )
    .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].path_and_query, "/connectors/x/tasks?forward=true");
    assert_eq!(seen[0].body, body.as_bytes());
    assert_eq!(
        seen[0].headers.get("x-connect-authorization").unwrap(),
        "c2lnbmF0dXJl"
    );
    assert_eq!(
        seen[0]
            .headers
            .get("x-connect-request-signature-algorithm")
            .unwrap(),
        "HmacSHA256"
    );
}

#[tokio::test]
async fn answers_that_need_no_forwarding_pass_unchanged() {
    let follower = forwarding_worker(None).await;
    let r = call(&follower, Method::GET, "/connectors", &[], "").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(json_of(&r), json!([]));
    let r = call(&follower, Method::GET, "/nowhere", &[], "").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[test]
fn forward_urls_keep_the_path_and_other_parameters() {
    let uri = "/connectors/a%2Fb/restart?includeTasks=true&forward=true&onlyFailed=false"
        .parse()
        .unwrap();
    assert_eq!(
        super::forward_url("http://10.0.0.1:8083/", &uri, false),
        "http://10.0.0.1:8083/connectors/a%2Fb/restart?forward=false&includeTasks=true&onlyFailed=false"
    );
    let uri = "/connectors".parse().unwrap();
    assert_eq!(
        super::forward_url("https://h:8443", &uri, true),
        "https://h:8443/connectors?forward=true"
    );
}

#[test]
fn location_paths() {
    assert_eq!(
        super::location_path("http://h:1/connectors/x"),
        "/connectors/x"
    );
    assert_eq!(super::location_path("/connectors/x"), "/connectors/x");
    assert_eq!(super::location_path("http://h:1"), "/");
}
