//! `plugin.path` on a worker: the Java plugins there (Kafka's Verifiable connectors, Debezium)
//! join the built-in ones in `connect-rs plugins --worker` and in the worker's
//! `GET /connector-plugins`, with the type and version the plugin itself reports; a Java sink
//! connector named by its alias runs.

use crate::support;

use serde_json::Value;
use support::plugin_jars::plugin_jars;
use support::*;

/// A standalone worker file with `plugin.path` naming the fetched plugins.
fn worker_file(w: &Workdir) -> std::path::PathBuf {
    let jars = plugin_jars();
    w.write(
        "worker.properties",
        format!(
            "offset.storage.file.filename={}\nlisteners=http://127.0.0.1:0\n\
             key.converter=org.apache.kafka.connect.json.JsonConverter\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n\
             plugin.path={}\nplugin.host.classpath={}\n",
            w.path("offsets").display(),
            jars.plugin_path.display(),
            jars.classpath_string(),
        ),
    )
}

/// The entry of `class` in a `/connector-plugins?connectorsOnly=false` body.
fn entry<'a>(list: &'a [Value], class: &str) -> &'a Value {
    list.iter()
        .find(|p| p["class"] == class)
        .unwrap_or_else(|| panic!("{class} is not listed: {list:#?}"))
}

#[test]
fn java_plugins_of_plugin_path_are_listed_beside_the_builtins() {
    let jars = plugin_jars();
    let w = Workdir::new();
    let worker = worker_file(&w);
    let out = w
        .command(&[
            "plugins",
            "--worker",
            &worker.display().to_string(),
            "--format",
            "json",
        ])
        .output()
        .expect("run connect-rs plugins");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The host's SLF4J events reach connect-rs's log at their level, in Kafka's pattern.
    let log = stderr(&out);
    assert!(
        log.lines().any(
            |l| l.contains(" INFO connect-rs plugin host started: Java ")
                && l.ends_with("(io.connectrs.host.Main)")
        ),
        "{log}"
    );
    assert!(!log.contains("SLF4J(W)"), "{log}");
    let listed: Vec<Value> = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("JSON ({e}): {}", stdout(&out)));
    let verifiable = entry(
        &listed,
        "org.apache.kafka.connect.tools.VerifiableSourceConnector",
    );
    assert_eq!(verifiable["type"], "source");
    assert_eq!(verifiable["version"], jars.kafka_version.as_str());
    let sink = entry(
        &listed,
        "org.apache.kafka.connect.tools.VerifiableSinkConnector",
    );
    assert_eq!(sink["type"], "sink");
    let pg = entry(
        &listed,
        "io.debezium.connector.postgresql.PostgresConnector",
    );
    assert_eq!(pg["type"], "source");
    assert_eq!(pg["version"], jars.debezium_version.as_str());
    let unwrap = entry(&listed, "io.debezium.transforms.ExtractNewRecordState");
    assert_eq!(unwrap["type"], "transformation");
    // The built-ins are still there.
    entry(
        &listed,
        "org.apache.kafka.connect.file.FileStreamSourceConnector",
    );

    // The worker lists the same, and runs a Java sink connector named by its alias.
    let running = support::rest::start(&w, &[&worker]);
    let served = running
        .client
        .get("/connector-plugins?connectorsOnly=false");
    assert_eq!(served.status, 200, "{}", served.body);
    assert_eq!(served.json(), Value::Array(listed.clone()));
    let created = running.client.post(
        "/connectors",
        &serde_json::json!({"name": "v", "config": {
            "connector.class": "VerifiableSink", "tasks.max": "1", "topics": "t"}}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    support::rest::wait_running(&running.client, "v", std::time::Duration::from_secs(120));
    let status = running.client.get("/connectors/v/status").json();
    assert_eq!(status["tasks"][0]["state"], "RUNNING", "{status:#}");
}
