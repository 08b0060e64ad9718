//! The internal client against a real worker REST API whose herder checks the signature with
//! `request_signature::verify`, as the distributed herder will.

use std::sync::{Arc, Mutex};

use connect_api::ConfigMap;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::herder::distributed::client::RestClient;
use crate::herder::distributed::internal_client::{
    put_task_configs, task_configs_url, ForwardError,
};
use crate::herder::distributed::request_signature::{MacAlgorithm, SigningKey};
use crate::herder::{HerderError, HerderHandle, InternalSignature, Request};
use crate::plugins::PluginRegistry;
use crate::rest::{serve, AppState, WorkerInfo};

type Written = Arc<Mutex<Vec<(String, Vec<ConfigMap>, Vec<u8>)>>>;

/// A leader that checks signatures against `key` (HmacSHA256 accepted) and records what it
/// writes.
fn leader_herder(key: Option<SigningKey>, written: Written) -> HerderHandle {
    let (tx, mut rx) = mpsc::channel::<Request>(16);
    tokio::spawn(async move {
        let accepted = vec!["HmacSHA256".to_owned()];
        while let Some(request) = rx.recv().await {
            if let Request::PutTaskConfigs {
                name,
                configs,
                signature,
                reply,
            } = request
            {
                let result = InternalSignature::check(signature.as_ref(), key.as_ref(), &accepted)
                    .and_then(|()| {
                        if name == "missing" {
                            return Err(HerderError::NotFound(format!(
                                "Connector {name} not found"
                            )));
                        }
                        let body = signature.map(|s| s.body).unwrap_or_default();
                        written.lock().unwrap().push((name, configs, body));
                        Ok(())
                    });
                let _ = reply.send(result);
            }
        }
    });
    HerderHandle::new(tx, "127.0.0.1:1".to_owned())
}

struct Leader {
    url: String,
    written: Written,
    _stop: tokio_util::sync::DropGuard,
}

async fn leader(key: Option<SigningKey>) -> Leader {
    let written = Written::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let state = AppState {
        herder: leader_herder(key, written.clone()),
        metrics: Arc::default(),
        plugins: Arc::new(PluginRegistry::builtin()),
        worker: Arc::new(WorkerInfo {
            kafka_cluster_id: None,
            converters: Default::default(),
            providers: Arc::default(),
            rest_client: RestClient::default(),
        }),
    };
    let stop = CancellationToken::new();
    tokio::spawn(serve(listener, state, stop.clone()));
    Leader {
        url,
        written,
        _stop: stop.drop_guard(),
    }
}

fn key(byte: u8) -> SigningKey {
    SigningKey {
        key: vec![byte; 32],
        algorithm: MacAlgorithm::HmacSha256,
    }
}

fn configs() -> Vec<ConfigMap> {
    (0..2)
        .map(|i| {
            ConfigMap::from([
                ("task.class".to_owned(), "FileStreamSourceTask".to_owned()),
                ("file".to_owned(), format!("/tmp/in-{i}.txt")),
            ])
        })
        .collect()
}

#[tokio::test]
async fn signed_task_configs_reach_the_leader_byte_for_byte() {
    let session = key(7);
    let leader = leader(Some(session.clone())).await;
    let configs = configs();
    put_task_configs(
        &RestClient::default(),
        &leader.url,
        "a b",
        &configs,
        Some((&session, MacAlgorithm::HmacSha256)),
    )
    .await
    .unwrap();
    let written = leader.written.lock().unwrap().clone();
    assert_eq!(written.len(), 1);
    let (name, got, body) = &written[0];
    assert_eq!(name, "a b");
    assert_eq!(got, &configs);
    assert_eq!(body, &serde_json::to_vec(&configs).unwrap());
}

#[tokio::test]
async fn a_wrong_key_is_refused_with_403() {
    let leader = leader(Some(key(7))).await;
    let other = key(8);
    let e = put_task_configs(
        &RestClient::default(),
        &leader.url,
        "c",
        &configs(),
        Some((&other, MacAlgorithm::HmacSha256)),
    )
    .await
    .unwrap_err();
    assert_eq!(e.status(), Some(403), "{e}");
    let ForwardError::Refused { message, url, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(message, "Internal request contained invalid signature.");
    assert_eq!(url, &format!("{}connectors/c/tasks", leader.url));
    assert!(leader.written.lock().unwrap().is_empty());
}

#[tokio::test]
async fn unsigned_requests_and_unsupported_algorithms_are_refused_with_400() {
    let session = key(7);
    let leader = leader(Some(session.clone())).await;
    let e = put_task_configs(&RestClient::default(), &leader.url, "c", &configs(), None)
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");
    assert!(
        e.to_string()
            .ends_with("Internal request missing required signature"),
        "{e}"
    );
    let e = put_task_configs(
        &RestClient::default(),
        &leader.url,
        "c",
        &configs(),
        Some((&session, MacAlgorithm::HmacSha512)),
    )
    .await
    .unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");
    assert!(e.to_string().contains("'HmacSHA512'"), "{e}");
}

#[tokio::test]
async fn a_leader_without_a_session_key_answers_503_and_unknown_connectors_404() {
    let session = key(7);
    let leader_without_key = leader(None).await;
    let e = put_task_configs(
        &RestClient::default(),
        &leader_without_key.url,
        "c",
        &configs(),
        Some((&session, MacAlgorithm::HmacSha256)),
    )
    .await
    .unwrap_err();
    assert_eq!(e.status(), Some(503), "{e}");

    let leader = leader(Some(session.clone())).await;
    let e = put_task_configs(
        &RestClient::default(),
        &leader.url,
        "missing",
        &configs(),
        Some((&session, MacAlgorithm::HmacSha256)),
    )
    .await
    .unwrap_err();
    assert_eq!(e.status(), Some(404), "{e}");
    assert!(
        e.to_string().ends_with("Connector missing not found"),
        "{e}"
    );
}

#[tokio::test]
async fn an_unreachable_leader_is_an_error_naming_the_url() {
    let gone = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", gone.local_addr().unwrap());
    drop(gone);
    let e = put_task_configs(&RestClient::default(), &url, "c", &configs(), None)
        .await
        .unwrap_err();
    assert!(matches!(e, ForwardError::Request(_)), "{e}");
    assert_eq!(e.status(), None);
    assert!(
        e.to_string().contains(&format!("{url}connectors/c/tasks")),
        "{e}"
    );
}

#[test]
fn the_url_encodes_the_connector_as_one_segment() {
    assert_eq!(
        task_configs_url("http://10.0.0.1:8083/", "a/b c"),
        "http://10.0.0.1:8083/connectors/a%2Fb%20c/tasks"
    );
    assert_eq!(
        task_configs_url("http://10.0.0.1:8083", "x"),
        "http://10.0.0.1:8083/connectors/x/tasks"
    );
}
