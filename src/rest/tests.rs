//! Router tests against an in-memory fake herder actor, over real HTTP on 127.0.0.1.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

use connect_api::ConfigMap;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{serve, AppState, WorkerInfo};
use crate::herder::{
    ConnectorInfo, ConnectorStateInfo, ConnectorType, HerderError, HerderHandle, Request,
    StateInfo, TaskId, TaskStateInfo,
};
use crate::plugins::{JavaPluginDesc, JavaPluginKind, PluginRegistry};

const WORKER: &str = "127.0.0.1:8083";
const CLUSTER_ID: &str = "test-cluster-id";

fn info(name: &str, config: &ConfigMap) -> ConnectorInfo {
    ConnectorInfo {
        name: name.to_owned(),
        config: config.clone(),
        tasks: vec![TaskId {
            connector: name.to_owned(),
            task: 0,
        }],
        connector_type: ConnectorType::Source,
    }
}

fn not_found(name: &str) -> HerderError {
    HerderError::NotFound(format!("Connector {name} not found"))
}

/// A herder actor keeping configurations in memory; every connector has one RUNNING task.
fn fake_herder() -> HerderHandle {
    let (tx, mut rx) = mpsc::channel::<Request>(16);
    tokio::spawn(async move {
        let mut connectors: BTreeMap<String, ConfigMap> = BTreeMap::new();
        while let Some(request) = rx.recv().await {
            match request {
                Request::Connectors(reply) => {
                    let _ = reply.send(connectors.keys().cloned().collect());
                }
                Request::Info(name, reply) => {
                    let r = connectors.get(&name).map(|c| info(&name, c));
                    let _ = reply.send(r.ok_or_else(|| not_found(&name)));
                }
                Request::Config(name, reply) => {
                    let r = connectors.get(&name).cloned();
                    let _ = reply.send(r.ok_or_else(|| not_found(&name)));
                }
                Request::Status(name, reply) => {
                    let r = connectors.get(&name).map(|_| ConnectorStateInfo {
                        name: name.clone(),
                        connector: StateInfo {
                            state: "RUNNING".into(),
                            worker_id: WORKER.into(),
                            trace: None,
                            version: None,
                        },
                        tasks: vec![TaskStateInfo {
                            id: 0,
                            state: "RUNNING".into(),
                            worker_id: WORKER.into(),
                            trace: None,
                            version: None,
                            errors: None,
                        }],
                        connector_type: ConnectorType::Source,
                    });
                    let _ = reply.send(r.ok_or_else(|| {
                        HerderError::NotFound(format!("No status found for connector {name}"))
                    }));
                }
                Request::TaskConfigs(name, reply) => {
                    let r = connectors.get(&name).map(|c| {
                        let mut t = c.clone();
                        t.insert("task.class".into(), "Task".into());
                        vec![(
                            TaskId {
                                connector: name.clone(),
                                task: 0,
                            },
                            t,
                        )]
                    });
                    let _ = reply.send(r.ok_or_else(|| not_found(&name)));
                }
                Request::PutConfig {
                    name,
                    config,
                    allow_replace,
                    reply,
                    ..
                } => {
                    let exists = connectors.contains_key(&name);
                    let r = if !config.contains_key("connector.class") || name.is_empty() {
                        Err(HerderError::BadRequest(
                            "Connector configuration is invalid and contains the following 1 \
                             error(s):\nMissing required configuration \"connector.class\" which \
                             has no default value.\nYou can also find the above list of errors at \
                             the endpoint `/connector-plugins/{connectorType}/config/validate`"
                                .into(),
                        ))
                    } else if exists && !allow_replace {
                        Err(HerderError::Conflict(format!(
                            "Connector {name} already exists"
                        )))
                    } else {
                        connectors.insert(name.clone(), config.clone());
                        Ok((!exists, info(&name, &config)))
                    };
                    let _ = reply.send(r);
                }
                Request::Delete(name, reply) => {
                    let r = connectors
                        .remove(&name)
                        .map(|_| ())
                        .ok_or_else(|| not_found(&name));
                    let _ = reply.send(r);
                }
                #[allow(unreachable_patterns)]
                _ => {}
            }
        }
    });
    HerderHandle::new(tx, WORKER.to_owned())
}

struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn start() -> Server {
    start_with(PluginRegistry::builtin()).await
}

async fn start_with(plugins: PluginRegistry) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState {
        herder: fake_herder(),
        metrics: Arc::default(),
        plugins: Arc::new(plugins),
        worker: Arc::new(WorkerInfo {
            kafka_cluster_id: Some(CLUSTER_ID.to_owned()),
            converters: [
                "org.apache.kafka.connect.json.JsonConverter".to_owned(),
                "org.apache.kafka.connect.storage.StringConverter".to_owned(),
                "org.apache.kafka.connect.storage.SimpleHeaderConverter".to_owned(),
            ],
            providers: Arc::default(),
            rest_client: crate::herder::distributed::client::RestClient::default(),
        }),
    };
    let shutdown = CancellationToken::new();
    tokio::spawn(serve(listener, state, shutdown.clone()));
    Server { addr, shutdown }
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request with `Connection: close`; a body is sent as JSON unless
/// `content_type` says otherwise.
async fn send(s: &Server, method: &str, path: &str, body: Option<(&str, &str)>) -> Reply {
    let mut stream = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    if let Some((content_type, body)) = body {
        req.push_str(&format!(
            "Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
    } else {
        req.push_str("\r\n");
    }
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_owned(),
    }
}

async fn get(s: &Server, path: &str) -> Reply {
    send(s, "GET", path, None).await
}

async fn with_json(s: &Server, method: &str, path: &str, body: &Value) -> Reply {
    send(
        s,
        method,
        path,
        Some(("application/json", &body.to_string())),
    )
    .await
}

fn error(code: u16, message: &str) -> Value {
    json!({"error_code": code, "message": message})
}

#[tokio::test]
async fn root_and_health() {
    let s = start().await;
    let r = get(&s, "/").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json(),
        json!({"version": env!("CARGO_PKG_VERSION"), "commit": "unknown", "kafka_cluster_id": CLUSTER_ID})
    );
    let r = get(&s, "/health").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        json!({"status": "healthy", "message": "Worker has completed startup and is ready to handle requests."})
    );
}

#[tokio::test]
async fn unknown_paths_and_methods_have_the_error_body() {
    let s = start().await;
    let r = get(&s, "/nope").await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json(), error(404, "HTTP 404 Not Found"));
    let r = get(&s, "/connectors/a/tasks/x/status").await;
    assert_eq!(
        (r.status, r.json()),
        (404, error(404, "HTTP 404 Not Found"))
    );
    let r = send(&s, "DELETE", "/connectors", None).await;
    assert_eq!(r.status, 405);
    assert_eq!(r.json(), error(405, "HTTP 405 Method Not Allowed"));
    let r = send(&s, "POST", "/health", None).await;
    assert_eq!(
        (r.status, r.json()),
        (405, error(405, "HTTP 405 Method Not Allowed"))
    );
}

#[tokio::test]
async fn malformed_bodies_are_400_with_the_error_body() {
    let s = start().await;
    let r = send(
        &s,
        "POST",
        "/connectors",
        Some(("application/json", "{nope")),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error_code"], 400);
    let r = send(
        &s,
        "PUT",
        "/connectors/a/config",
        Some(("application/json", "[1]")),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error_code"], 400);
    let r = send(&s, "POST", "/connectors", Some(("text/plain", "{}"))).await;
    assert_eq!(r.status, 415);
    assert_eq!(r.json()["error_code"], 415);
}

#[tokio::test]
async fn connector_lifecycle() {
    let s = start().await;
    let r = get(&s, "/connectors").await;
    assert_eq!((r.status, r.json()), (200, json!([])));

    let create =
        json!({"name": " src ", "config": {"connector.class": "FileStreamSource", "tasks.max": 1}});
    let r = with_json(&s, "POST", "/connectors", &create).await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(
        r.header("location"),
        Some("http://localhost/connectors/src")
    );
    let config = json!({"connector.class": "FileStreamSource", "tasks.max": "1", "name": "src"});
    let expected_info = json!({
        "name": "src", "config": config, "tasks": [{"connector": "src", "task": 0}], "type": "source"
    });
    assert_eq!(r.json(), expected_info);

    let r = with_json(&s, "POST", "/connectors", &create).await;
    assert_eq!(
        (r.status, r.json()),
        (409, error(409, "Connector src already exists"))
    );

    let mismatch = json!({"name": "a", "config": {"name": "b"}});
    let r = with_json(&s, "POST", "/connectors", &mismatch).await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            error(
                400,
                "Connector name configuration (b) doesn't match connector name in the URL (a)"
            )
        )
    );

    let r = with_json(&s, "POST", "/connectors", &json!({"config": {}})).await;
    assert_eq!(r.status, 400);
    assert!(r.json()["message"]
        .as_str()
        .unwrap()
        .starts_with("Connector configuration is invalid"));

    let r = get(&s, "/connectors/src").await;
    assert_eq!((r.status, r.json()), (200, expected_info.clone()));
    let r = get(&s, "/connectors/src/config").await;
    assert_eq!((r.status, r.json()), (200, config.clone()));
    let status = json!({
        "name": "src",
        "connector": {"state": "RUNNING", "worker_id": WORKER},
        "tasks": [{"id": 0, "state": "RUNNING", "worker_id": WORKER}],
        "type": "source"
    });
    let r = get(&s, "/connectors/src/status").await;
    assert_eq!((r.status, r.json()), (200, status.clone()));
    let r = get(&s, "/connectors/src/tasks").await;
    let mut task_config = config.clone();
    task_config["task.class"] = json!("Task");
    assert_eq!(
        (r.status, r.json()),
        (
            200,
            json!([{"id": {"connector": "src", "task": 0}, "config": task_config}])
        )
    );
    let r = get(&s, "/connectors/src/tasks/0/status").await;
    assert_eq!(
        (r.status, r.json()),
        (
            200,
            json!({"id": 0, "state": "RUNNING", "worker_id": WORKER})
        )
    );
    let r = get(&s, "/connectors/src/tasks/1/status").await;
    assert_eq!(
        (r.status, r.json()),
        (404, error(404, "No status found for task src-1"))
    );
    let r = get(&s, "/connectors/src/tasks/-1/status").await;
    assert_eq!(
        (r.status, r.json()),
        (404, error(404, "No status found for task src--1"))
    );

    let r = get(&s, "/connectors?expand=status&expand=info&expand=bogus").await;
    assert_eq!(
        (r.status, r.json()),
        (
            200,
            json!({"src": {"status": status, "info": expected_info}})
        )
    );
    let r = get(&s, "/connectors?expand=bogus").await;
    assert_eq!((r.status, r.json()), (200, json!({"src": {}})));
    let r = get(&s, "/connectors").await;
    assert_eq!((r.status, r.json()), (200, json!(["src"])));

    // PUT: update (200) and create (201 + Location), names checked and inserted.
    let update = json!({"connector.class": "FileStreamSource", "tasks.max": "2"});
    let r = with_json(&s, "PUT", "/connectors/src/config", &update).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("location"), None);
    assert_eq!(r.json()["config"]["tasks.max"], "2");
    assert_eq!(r.json()["config"]["name"], "src");
    let r = with_json(&s, "PUT", "/connectors/my%20conn/config", &update).await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(
        r.header("location"),
        Some("http://localhost/connectors/my%20conn")
    );
    assert_eq!(r.json()["name"], "my conn");
    let r = with_json(&s, "PUT", "/connectors/x/config", &json!({"name": "y"})).await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            error(
                400,
                "Connector name configuration (y) doesn't match connector name in the URL (x)"
            )
        )
    );

    let r = send(&s, "DELETE", "/connectors/src", None).await;
    assert_eq!((r.status, r.body.as_str()), (204, ""));
    let r = send(&s, "DELETE", "/connectors/src", None).await;
    assert_eq!(
        (r.status, r.json()),
        (404, error(404, "Connector src not found"))
    );
    for (path, message) in [
        ("/connectors/src", "Connector src not found"),
        ("/connectors/src/config", "Connector src not found"),
        ("/connectors/src/tasks", "Connector src not found"),
        (
            "/connectors/src/status",
            "No status found for connector src",
        ),
        (
            "/connectors/src/tasks/0/status",
            "No status found for task src-0",
        ),
    ] {
        let r = get(&s, path).await;
        assert_eq!((r.status, r.json()), (404, error(404, message)), "{path}");
    }
}

#[tokio::test]
async fn connector_plugins() {
    let s = start().await;
    let connectors = json!([
        {"class": "io.confluent.connect.jdbc.JdbcSinkConnector", "type": "sink", "version": env!("CARGO_PKG_VERSION")},
        {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "type": "sink", "version": env!("CARGO_PKG_VERSION")},
        {"class": "io.confluent.connect.jdbc.JdbcSourceConnector", "type": "source", "version": env!("CARGO_PKG_VERSION")},
        {"class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "type": "source", "version": env!("CARGO_PKG_VERSION")},
    ]);
    for path in [
        "/connector-plugins",
        "/connector-plugins?connectorsOnly=true",
    ] {
        let r = get(&s, path).await;
        assert_eq!(r.status, 200);
        let mut got = r.json();
        // The connectors' versions are their crate's; compare the rest.
        for p in got.as_array_mut().unwrap() {
            p["version"] = json!(env!("CARGO_PKG_VERSION"));
        }
        assert_eq!(got, connectors, "{path}");
    }
    let r = get(&s, "/connector-plugins?connectorsOnly=false").await;
    assert_eq!(r.status, 200);
    let all = r.json();
    let types: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert_eq!(&types[..3], ["sink", "sink", "source"]);
    assert!(types.contains(&"converter") && types.contains(&"header_converter"));
}

/// The built-ins plus synthetic Java plugins found on `plugin.path`: two versions of the
/// built-in FileStreamSource class, a Java-only connector and a Java transformation.
fn with_java_plugins() -> PluginRegistry {
    let java = |class: &str, kind: &str, version: &str, location: &str| JavaPluginDesc {
        class: class.to_owned(),
        kind: JavaPluginKind::from_type_name(kind).unwrap(),
        version: version.to_owned(),
        location: location.to_owned(),
    };
    PluginRegistry::builtin().with_java_plugins([
        java(FILE_SOURCE, "source", "99.0", "/plugins/file-new"),
        java(FILE_SOURCE, "source", "3.9.0", "/plugins/file-old"),
        java(
            "io.debezium.connector.postgresql.PostgresConnector",
            "source",
            "3.6.1.Final",
            "/plugins/debezium",
        ),
        java(
            "io.debezium.transforms.ExtractNewRecordState",
            "transformation",
            "3.6.1.Final",
            "/plugins/debezium",
        ),
        java(
            "com.example.Hidden",
            "configprovider",
            "1.0",
            "/plugins/example",
        ),
    ])
}

const FILE_SOURCE: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";

#[tokio::test]
async fn connector_plugins_list_java_implementations_per_version_in_kafkas_order() {
    let s = start_with(with_java_plugins()).await;
    let v = env!("CARGO_PKG_VERSION");
    let r = get(&s, "/connector-plugins").await;
    assert_eq!(r.status, 200);
    let sources: Vec<Value> = (r.json().as_array().unwrap().iter())
        .filter(|p| p["type"] == "source")
        .cloned()
        .collect();
    assert_eq!(
        sources,
        [
            json!({"class": "io.confluent.connect.jdbc.JdbcSourceConnector", "type": "source", "version": v}),
            json!({"class": "io.debezium.connector.postgresql.PostgresConnector", "type": "source", "version": "3.6.1.Final"}),
            json!({"class": FILE_SOURCE, "type": "source", "version": v}),
            json!({"class": FILE_SOURCE, "type": "source", "version": "3.9.0"}),
            json!({"class": FILE_SOURCE, "type": "source", "version": "99.0"}),
        ]
    );
    let all = get(&s, "/connector-plugins?connectorsOnly=false")
        .await
        .json();
    let classes: Vec<&str> = (all.as_array().unwrap().iter())
        .map(|p| p["class"].as_str().unwrap())
        .collect();
    assert!(classes.contains(&"io.debezium.transforms.ExtractNewRecordState"));
    // Kafka lists no config providers.
    assert!(!classes.contains(&"com.example.Hidden"));
}

#[tokio::test]
async fn plugin_config_picks_an_implementation_by_version() {
    let s = start_with(with_java_plugins()).await;
    let v = env!("CARGO_PKG_VERSION");
    let builtin = get(&s, "/connector-plugins/FileStreamSource/config").await;
    assert_eq!(builtin.status, 200, "{}", builtin.body);
    for path in [
        format!("/connector-plugins/FileStreamSource/config?version={v}"),
        "/connector-plugins/FileStreamSource/config?version=%28%2C1.0%29".to_owned(),
        "/connector-plugins/FileStreamSource/config?version=latest".to_owned(),
    ] {
        let r = get(&s, &path).await;
        assert_eq!(
            (r.status, r.body.as_str()),
            (200, builtin.body.as_str()),
            "{path}"
        );
    }
    let r = get(
        &s,
        "/connector-plugins/FileStreamSource/config?version=%5B1.0%2C%29",
    )
    .await;
    assert_eq!(r.status, 500, "{}", r.body);
    assert_eq!(
        r.json()["message"],
        format!(
            "source {FILE_SOURCE} (version 99.0) is a Java plugin from /plugins/file-new, and \
             the plugin host could not answer for it: this worker has no plugin host (no \
             plugin.path location with Java plugins)"
        )
    );
    let r = get(&s, "/connector-plugins/FileStreamSource/config?version=4.0").await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["message"],
        format!(
            "Plugin {FILE_SOURCE} not found that matches the version range [4.0,4.0], \
             available versions: [{v}, 3.9.0, 99.0]"
        )
    );
    let r = get(
        &s,
        "/connector-plugins/FileStreamSource/config?version=%5B4.0",
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["message"], "Invalid version specification: [4.0");
    let r = get(&s, "/connector-plugins/ExtractNewRecordState/config").await;
    assert_eq!(r.status, 500, "{}", r.body);
}
