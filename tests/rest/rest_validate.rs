//! `GET /connector-plugins/{plugin}/config` and `PUT /connector-plugins/{plugin}/config/validate`
//! end to end over HTTP against the real binary: Kafka Connect's `ConfigKeyInfo` and
//! `ConfigInfos` bodies, and the error paths.

use crate::support;

use serde_json::{json, Value};
use support::http::Response;
use support::rest::start;
use support::*;

const SOURCE_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";
const SOURCE_VALIDATE: &str = "/connector-plugins/FileStreamSource/config/validate";

#[track_caller]
fn check(r: &Response, status: u16, body: &Value) {
    assert_eq!(r.status, status, "body: {}", r.body);
    assert_eq!(&r.json(), body);
}

fn error(code: u16, message: &str) -> Value {
    json!({"error_code": code, "message": message})
}

/// The entry of `key` in a `ConfigKeyInfo` array.
#[track_caller]
fn key_info<'a>(infos: &'a Value, key: &str) -> &'a Value {
    infos
        .as_array()
        .and_then(|a| a.iter().find(|i| i["name"] == key))
        .unwrap_or_else(|| panic!("no {key} in {infos}"))
}

/// The `configs` entry of `key` in a `ConfigInfos`.
#[track_caller]
fn config<'a>(infos: &'a Value, key: &str) -> &'a Value {
    infos["configs"]
        .as_array()
        .and_then(|a| a.iter().find(|c| c["value"]["name"] == key))
        .unwrap_or_else(|| panic!("no {key} in {infos}"))
}

fn topic_info() -> Value {
    json!({
        "name": "topic",
        "type": "STRING",
        "required": true,
        "default_value": null,
        "importance": "HIGH",
        "documentation": "The topic to publish data to",
        "group": null,
        "order_in_group": -1,
        "width": "NONE",
        "display_name": "topic",
        "dependents": []
    })
}

fn tasks_max_info() -> Value {
    json!({
        "name": "tasks.max",
        "type": "INT",
        "required": false,
        "default_value": "1",
        "importance": "HIGH",
        "documentation": "Maximum number of tasks.",
        "group": "Common",
        "order_in_group": 4,
        "width": "SHORT",
        "display_name": "Tasks max",
        "dependents": []
    })
}

#[test]
fn plugin_config_lists_plugin_keys_then_framework_keys() {
    let w = Workdir::new();
    let worker = w.worker("");
    let run = start(&w, &[&worker]);
    let c = run.client;

    let r = c.get("/connector-plugins/FileStreamSource/config");
    assert_eq!(r.status, 200, "{}", r.body);
    let infos = r.json();
    let names: Vec<&str> = infos
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(&names[..3], ["file", "topic", "batch.size"], "{names:?}");
    for key in [
        "name",
        "connector.class",
        "tasks.max",
        "transforms",
        "errors.tolerance",
        "exactly.once.support",
        "topic.creation.groups",
    ] {
        assert!(names.contains(&key), "{key} missing from {names:?}");
    }
    assert!(!names.contains(&"topics"), "a source has no topics key");
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "duplicates in {names:?}");

    assert_eq!(key_info(&infos, "topic"), &topic_info());
    assert_eq!(
        key_info(&infos, "batch.size"),
        &json!({
            "name": "batch.size",
            "type": "INT",
            "required": false,
            "default_value": "2000",
            "importance": "LOW",
            "documentation": "The maximum number of records the source task can read from the file each time it is polled",
            "group": null,
            "order_in_group": -1,
            "width": "NONE",
            "display_name": "batch.size",
            "dependents": []
        })
    );
    assert_eq!(
        key_info(&infos, "file"),
        &json!({
            "name": "file",
            "type": "STRING",
            "required": false,
            "default_value": null,
            "importance": "HIGH",
            "documentation": "Source filename. If not specified, the standard input will be used",
            "group": null,
            "order_in_group": -1,
            "width": "NONE",
            "display_name": "file",
            "dependents": []
        })
    );
    assert_eq!(key_info(&infos, "tasks.max"), &tasks_max_info());
    assert_eq!(key_info(&infos, "transforms")["type"], "LIST");
    assert_eq!(key_info(&infos, "transforms")["default_value"], "");
    assert_eq!(key_info(&infos, "key.converter")["type"], "CLASS");

    // Kafka Connect's groups, orders, widths and display names, and the KIP-891 version keys:
    // the connector's defaults to the plugin's version, the converters' to null.
    let display = |key: &str| {
        let i = key_info(&infos, key);
        (
            i["group"].clone(),
            i["order_in_group"].clone(),
            i["width"].clone(),
            i["display_name"].clone(),
        )
    };
    assert_eq!(
        display("name"),
        (
            json!("Common"),
            json!(1),
            json!("MEDIUM"),
            json!("Connector name")
        )
    );
    assert_eq!(
        display("header.converter.plugin.version"),
        (
            json!("Common"),
            json!(11),
            json!("SHORT"),
            json!("Header converter version")
        )
    );
    assert_eq!(
        display("errors.log.include.messages"),
        (
            json!("Error Handling"),
            json!(5),
            json!("SHORT"),
            json!("Log Error Details")
        )
    );
    assert_eq!(
        display("offsets.storage.topic"),
        (
            json!("offsets.topic"),
            json!(1),
            json!("LONG"),
            json!("Offsets topic")
        )
    );
    let version = key_info(&infos, "connector.plugin.version");
    assert_eq!(version["default_value"], env!("CARGO_PKG_VERSION"));
    assert_eq!(version["importance"], "MEDIUM");
    assert_eq!(version["order_in_group"], 3);
    for key in [
        "key.converter",
        "key.converter.plugin.version",
        "value.converter.plugin.version",
        "header.converter",
    ] {
        assert_eq!(key_info(&infos, key)["default_value"], Value::Null, "{key}");
    }
    let common: Vec<&str> = infos
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["group"] == "Common")
        .filter_map(|i| i["name"].as_str())
        .collect();
    assert_eq!(
        common,
        [
            "name",
            "connector.class",
            "connector.plugin.version",
            "tasks.max",
            "tasks.max.enforce",
            "key.converter",
            "key.converter.plugin.version",
            "value.converter",
            "value.converter.plugin.version",
            "header.converter",
            "header.converter.plugin.version",
            "config.action.reload",
        ]
    );

    // The class name and the other alias name the same plugin.
    for name in [SOURCE_CLASS, "FileStreamSourceConnector"] {
        check(
            &c.get(&format!("/connector-plugins/{name}/config")),
            200,
            &infos,
        );
    }

    // A sink: its own `file`, then the sink keys.
    let r = c.get("/connector-plugins/FileStreamSink/config");
    assert_eq!(r.status, 200, "{}", r.body);
    let sink = r.json();
    assert_eq!(sink[0]["name"], "file");
    assert_eq!(
        sink[0]["documentation"],
        "Destination filename. If not specified, the standard output will be used"
    );
    assert_eq!(key_info(&sink, "topics")["type"], "LIST");
    assert_eq!(key_info(&sink, "topics.regex")["type"], "STRING");
    assert_eq!(key_info(&sink, "topics.regex")["order_in_group"], 4);
    assert_eq!(
        key_info(&sink, "topics.regex")["display_name"],
        "Topics regex"
    );
    assert_eq!(
        key_info(&sink, "errors.deadletterqueue.context.headers.enable")["order_in_group"],
        8
    );
    assert!(sink
        .as_array()
        .is_some_and(|a| a.iter().all(|i| i["name"] != "topic.creation.groups")));

    check(
        &c.get("/connector-plugins/NoSuchConnector/config"),
        404,
        &error(404, "Unknown plugin NoSuchConnector."),
    );
}

#[test]
fn validate_reports_every_problem_on_its_key() {
    let w = Workdir::new();
    let worker = w.worker("");
    let run = start(&w, &[&worker]);
    let c = run.client;

    // A valid configuration: no errors, defaults filled in.
    let r = c.put(
        SOURCE_VALIDATE,
        &json!({
            "name": "src",
            "connector.class": "FileStreamSource",
            "topic": "t",
            "file": "/tmp/in.txt"
        }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let infos = r.json();
    assert_eq!(infos["name"], "FileStreamSource");
    assert_eq!(infos["error_count"], 0, "{infos}");
    assert_eq!(
        infos["groups"],
        json!([
            "Common",
            "Transforms",
            "Predicates",
            "Error Handling",
            "Topic Creation",
            "Exactly Once Support",
            "offsets.topic"
        ])
    );
    assert_eq!(
        config(&infos, "topic"),
        &json!({
            "definition": topic_info(),
            "value": {"name": "topic", "value": "t", "recommended_values": [], "errors": [], "visible": true}
        })
    );
    assert_eq!(config(&infos, "batch.size")["value"]["value"], "2000");
    assert_eq!(config(&infos, "tasks.max")["value"]["value"], "1");
    // Converter keys default to the worker's converters and recommend the converter classes;
    // the version keys default to (and recommend) the version of the plugin in effect.
    let key_converter = config(&infos, "key.converter");
    assert_eq!(
        key_converter["definition"]["default_value"],
        "org.apache.kafka.connect.storage.StringConverter"
    );
    assert_eq!(
        key_converter["value"]["value"],
        "org.apache.kafka.connect.storage.StringConverter"
    );
    let recommended = key_converter["value"]["recommended_values"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(recommended.contains(&json!("org.apache.kafka.connect.json.JsonConverter")));
    assert!(!recommended.contains(&json!(
        "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    )));
    let headers = &config(&infos, "header.converter")["value"];
    assert_eq!(
        headers["value"],
        "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    );
    assert!(headers["recommended_values"]
        .as_array()
        .is_some_and(|r| r.contains(&json!(
            "org.apache.kafka.connect.storage.SimpleHeaderConverter"
        ))));
    let version = env!("CARGO_PKG_VERSION");
    for key in [
        "connector.plugin.version",
        "key.converter.plugin.version",
        "header.converter.plugin.version",
    ] {
        let c = config(&infos, key);
        assert_eq!(c["definition"]["default_value"], version, "{key}");
        assert_eq!(c["value"]["value"], version, "{key}");
        assert_eq!(c["value"]["recommended_values"], json!([version]), "{key}");
    }
    assert!(infos["configs"]
        .as_array()
        .is_some_and(|a| a.iter().all(|c| !c["definition"].is_null())));

    // A missing required key and an unparseable number, plus a key no definition knows.
    let r = c.put(
        SOURCE_VALIDATE,
        &json!({
            "name": "src",
            "connector.class": SOURCE_CLASS,
            "tasks.max": "abc",
            "foo.bar": "baz"
        }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let infos = r.json();
    assert_eq!(infos["name"], SOURCE_CLASS);
    assert_eq!(infos["error_count"], 2, "{infos}");
    assert_eq!(
        config(&infos, "topic")["value"]["errors"],
        json!(["Missing required configuration \"topic\" which has no default value."])
    );
    assert_eq!(config(&infos, "topic")["value"]["value"], Value::Null);
    assert_eq!(
        config(&infos, "tasks.max"),
        &json!({
            "definition": tasks_max_info(),
            "value": {
                "name": "tasks.max",
                "value": null,
                "recommended_values": [],
                "errors": ["Invalid value abc for configuration tasks.max: Not a number of type INT"],
                "visible": true
            }
        })
    );
    assert_eq!(
        config(&infos, "foo.bar"),
        &json!({
            "definition": null,
            "value": {"name": "foo.bar", "value": "baz", "recommended_values": [], "errors": [], "visible": true}
        })
    );
    let with_errors: Vec<&str> = infos["configs"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|c| {
                    c["value"]["errors"]
                        .as_array()
                        .is_some_and(|e| !e.is_empty())
                })
                .filter_map(|c| c["value"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    // Framework keys come before the plugin's own, as in Kafka's `ConfigInfos`.
    assert_eq!(with_errors, ["tasks.max", "topic"]);

    // A sink's cross-key check lands on `topics`; a JSON null gets Kafka's null error.
    let r = c.put(
        "/connector-plugins/FileStreamSinkConnector/config/validate",
        &json!({"name": "snk", "connector.class": "FileStreamSink", "file": null}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let infos = r.json();
    assert_eq!(infos["error_count"], 2, "{infos}");
    assert_eq!(
        config(&infos, "topics")["value"]["errors"],
        json!(["Must configure one of topics or topics.regex"])
    );
    assert_eq!(
        config(&infos, "file")["value"]["errors"],
        json!(["Null value can not be supplied as the configuration value."])
    );

    // No connector.class: the map as Java's HashMap prints it.
    check(
        &c.put(
            SOURCE_VALIDATE,
            &json!({"name": "x", "topic": "t", "tasks.max": "1"}),
        ),
        400,
        &error(
            400,
            "Connector config {name=x, topic=t, tasks.max=1} contains no connector type",
        ),
    );
    // A connector.class that is not the plugin of the path.
    check(
        &c.put(
            "/connector-plugins/FileStreamSink/config/validate",
            &json!({"name": "x", "connector.class": "FileStreamSource", "topic": "t"}),
        ),
        400,
        &error(
            400,
            "Included connector type FileStreamSource does not match request type FileStreamSink",
        ),
    );
    // A malformed body is a 400 with the error body.
    let r = c.send(
        "PUT",
        SOURCE_VALIDATE,
        Some(("application/json", "{\"name\": ")),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error_code"], 400);
}

/// Topic names Kafka refuses (`Topic.validate`) are refused at validation: the source's
/// `topic`, each `topics` entry of a sink, and the dead letter queue topic; validate answers
/// them on their key and a create is a 400 with the same message (Kafka Connect accepts them
/// and the task fails on its first write).
#[test]
fn topic_names_kafka_refuses_are_refused_at_validation() {
    let w = Workdir::new();
    let worker = w.worker("");
    let run = start(&w, &[&worker]);
    let c = run.client;
    let chars = |name: &str| {
        format!(
            "Topic name is invalid: '{name}' contains one or more characters other than ASCII \
             alphanumerics, '.', '_' and '-'"
        )
    };
    let long = "x".repeat(300);
    let cases: [(&str, Value, &str, String); 5] = [
        (
            "FileStreamSource",
            json!({"topic": "../../../evil", "file": "/tmp/in.txt"}),
            "topic",
            chars("../../../evil"),
        ),
        (
            "FileStreamSource",
            json!({"topic": long}),
            "topic",
            format!(
                "Topic name is invalid: the length of '{long}' is longer than the max allowed \
                 length 249"
            ),
        ),
        (
            "FileStreamSink",
            json!({"topics": "ok,a/b"}),
            "topics",
            chars("a/b"),
        ),
        (
            "FileStreamSink",
            json!({"topics": "ok", "errors.deadletterqueue.topic.name": ".."}),
            "errors.deadletterqueue.topic.name",
            "Topic name is invalid: '..' is not allowed".to_owned(),
        ),
        (
            "FileStreamSource",
            json!({"topic": "ok", "errors.deadletterqueue.topic.name": "dlq/x"}),
            "errors.deadletterqueue.topic.name",
            chars("dlq/x"),
        ),
    ];
    for (class, extra, key, message) in cases {
        let mut body = json!({"name": "bad", "connector.class": class});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = c.put(
            &format!("/connector-plugins/{class}/config/validate"),
            &body,
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let infos = r.json();
        assert_eq!(infos["error_count"], 1, "{key}: {infos}");
        assert_eq!(config(&infos, key)["value"]["errors"], json!([message]));

        let r = c.post("/connectors", &json!({"name": "bad", "config": body}));
        check(
            &r,
            400,
            &error(
                400,
                &format!(
                    "Connector configuration is invalid and contains the following 1 error(s):\n\
                     {message}\nYou can also find the above list of errors at the endpoint \
                     `/connector-plugins/{{connectorType}}/config/validate`"
                ),
            ),
        );
    }
    check(&c.get("/connectors"), 200, &json!([]));
}
