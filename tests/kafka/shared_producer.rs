//! Source tasks share the worker's producer (issue 33): the number of librdkafka clients no
//! longer grows with the number of source connectors, while a connector with
//! `producer.override.*` gets a producer of its own, and every record still arrives, in order.

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;
use support::kafka::{broker, Broker};
use support::rest::{start, wait_running};
use support::*;

/// librdkafka clients alive in process `pid`: each has one thread named `rdk:main`.
fn librdkafka_clients(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "rdk:main")
        .count()
}

/// The values in `topic`, grouped by the source that wrote them (the text before `-`), once
/// `total` records are there.
fn lines_by_source(broker: &Broker, topic: &str, total: usize) -> BTreeMap<String, Vec<String>> {
    let out = broker.consume_from_beginning(topic, total, 30_000, &[]);
    let mut by_source: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let source = line.split('-').next().unwrap_or_default().to_owned();
        by_source.entry(source).or_default().push(line.to_owned());
    }
    by_source
}

/// What source `source` writes: `LINES` lines `source-j`.
fn source_lines(source: &str) -> Vec<String> {
    (0..LINES).map(|j| format!("{source}-{j}")).collect()
}

const LINES: usize = 10;

#[test]
fn source_tasks_share_one_producer_unless_their_connector_overrides_its_settings() {
    const SOURCES: usize = 30;
    let broker = broker();
    let w = Workdir::new();
    let topic = Broker::unique("shared");
    broker.create_topic(&topic, 1);
    let worker = w.write(
        "worker.properties",
        format!(
            "bootstrap.servers={}\nlisteners=http://127.0.0.1:0\n\
             key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             offset.storage.file.filename={}\n",
            broker.bootstrap(),
            w.path("offsets.json").display()
        ),
    );
    let mut files = vec![worker];
    let mut expected = BTreeMap::new();
    for i in 0..SOURCES {
        let name = format!("s{i}");
        let input = w.write(
            &format!("{name}.txt"),
            source_lines(&name).join("\n") + "\n",
        );
        files.push(w.source(&name, &input, &topic));
        expected.insert(name.clone(), source_lines(&name));
    }
    let files: Vec<_> = files.iter().map(|f| f.as_path()).collect();
    let run = start(&w, &files);
    let pid = run.child.id();
    assert_eq!(lines_by_source(&broker, &topic, SOURCES * LINES), expected);
    let shared = librdkafka_clients(pid);
    assert!(
        shared <= 2,
        "{SOURCES} source tasks use {shared} librdkafka clients: they do not share a producer"
    );

    // One more source with the worker's settings: no new client.
    let post = |name: &str, extra: serde_json::Value| {
        let input = w.write(&format!("{name}.txt"), source_lines(name).join("\n") + "\n");
        let mut config = json!({
            "connector.class": "FileStreamSource",
            "file": input.display().to_string(),
            "topic": topic,
        });
        config
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let r = run
            .client
            .post("/connectors", &json!({"name": name, "config": config}));
        assert_eq!(r.status, 201, "{}", r.body);
        wait_running(&run.client, name, Duration::from_secs(30));
    };
    post("plain", json!({}));
    expected.insert("plain".to_owned(), source_lines("plain"));
    assert_eq!(
        lines_by_source(&broker, &topic, (SOURCES + 1) * LINES),
        expected
    );
    assert_eq!(
        librdkafka_clients(pid),
        shared,
        "a plain source added a client"
    );

    // A connector that overrides its producer's settings gets a producer of its own.
    post("overriding", json!({"producer.override.linger.ms": "7"}));
    expected.insert("overriding".to_owned(), source_lines("overriding"));
    assert_eq!(
        lines_by_source(&broker, &topic, (SOURCES + 2) * LINES),
        expected
    );
    assert_eq!(
        librdkafka_clients(pid),
        shared + 1,
        "the overriding connector's task has no producer of its own"
    );
}
