//! The REST API of `connect-rs standalone`, end to end over HTTP against the real binary:
//! Kafka Connect's paths, status codes and JSON bodies, including the error paths.

use crate::support;

use std::time::Duration;

use serde_json::{json, Value};
use support::http::{parse_response, Client, Response};
use support::rest::{rest_port, start, STARTUP};
use support::*;

const SOURCE_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";
const SINK_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSinkConnector";
const INVALID_SUFFIX: &str = "You can also find the above list of errors at the endpoint \
                              `/connector-plugins/{connectorType}/config/validate`";

fn error(code: u16, message: &str) -> Value {
    json!({"error_code": code, "message": message})
}

#[track_caller]
fn check(r: &Response, status: u16, body: &Value) {
    assert_eq!(r.status, status, "body: {}", r.body);
    assert_eq!(&r.json(), body);
}

/// Every task state of a status body has only the fields of Kafka Connect's `TaskState`.
#[track_caller]
fn assert_kafka_task_states(status: &Value) {
    let tasks = status["tasks"].as_array().expect("tasks");
    assert!(!tasks.is_empty(), "{status}");
    for task in tasks {
        let fields = task.as_object().expect("a task state");
        assert!(
            fields
                .keys()
                .all(|k| ["id", "state", "worker_id", "trace", "version"].contains(&k.as_str())),
            "a field Kafka Connect's TaskState does not have: {task}"
        );
    }
}

/// Waits until the connector and all its tasks are RUNNING; returns the status body.
fn wait_running(c: &Client, name: &str) -> Value {
    let mut last = Value::Null;
    wait_for(&format!("{name} to be RUNNING"), STARTUP, || {
        let r = c.get(&format!("/connectors/{name}/status"));
        if r.status != 200 {
            return false;
        }
        last = r.json();
        let tasks = last["tasks"].as_array().cloned().unwrap_or_default();
        last["connector"]["state"] == "RUNNING"
            && !tasks.is_empty()
            && tasks.iter().all(|t| t["state"] == "RUNNING")
    });
    last
}

#[test]
fn the_rest_api_serves_kafka_connect_paths_codes_and_bodies() {
    let w = Workdir::new();
    let input = w.write("input.txt", "alpha\nbeta\n");
    let output = w.path("output.txt");
    let output2 = w.path("output2.txt");
    let worker = w.worker("");
    let sink = w.sink("file-sink", &output, "rest-topic");
    let mut run = start(&w, &[&worker, &sink]);
    let c = run.client;
    let worker_id = format!("127.0.0.1:{}", run.port);
    let version = env!("CARGO_PKG_VERSION");

    // Server info and health.
    let r = c.get("/");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let info = r.json();
    assert_eq!(info["version"], version);
    assert!(info["commit"].is_string(), "{info}");
    // The embedded log belongs to no Kafka cluster (tests/kafka_*.rs check a broker's id).
    assert_eq!(info["kafka_cluster_id"], Value::Null);
    assert_eq!(
        info.as_object().map(|o| o.len()),
        Some(3),
        "only version, commit and kafka_cluster_id: {info}"
    );
    check(
        &c.get("/health"),
        200,
        &json!({"status": "healthy", "message": "Worker has completed startup and is ready to handle requests."}),
    );

    // The CLI's connector is listed.
    check(&c.get("/connectors"), 200, &json!(["file-sink"]));

    // Create a source by POST: 201, Location, ConnectorInfo with the name inserted.
    let source_config = json!({
        "connector.class": "FileStreamSource",
        "tasks.max": "1",
        "file": input.display().to_string(),
        "topic": "rest-topic",
    });
    let create = json!({"name": "  file-source ", "config": source_config});
    let r = c.post("/connectors", &create);
    let mut stored_config = source_config.clone();
    stored_config["name"] = json!("file-source");
    let source_info = json!({
        "name": "file-source",
        "config": stored_config,
        "tasks": [{"connector": "file-source", "task": 0}],
        "type": "source",
    });
    check(&r, 201, &source_info);
    // Location is absolute, on the host the request named, as Kafka Connect (Jersey) sends it.
    let location = |name: &str| format!("http://{}/connectors/{name}", c.addr);
    assert_eq!(r.header("location"), Some(location("file-source").as_str()));

    // Duplicate POST: 409.
    check(
        &c.post("/connectors", &create),
        409,
        &error(409, "Connector file-source already exists"),
    );

    // Read it back.
    check(&c.get("/connectors/file-source"), 200, &source_info);
    check(
        &c.get("/connectors/file-source/config"),
        200,
        &stored_config,
    );
    let status = wait_running(&c, "file-source");
    assert_eq!(
        status,
        json!({
            "name": "file-source",
            "connector": {"state": "RUNNING", "worker_id": worker_id, "version": version},
            // Exactly Kafka Connect's TaskState: no field a strict client does not know.
            "tasks": [{"id": 0, "state": "RUNNING", "worker_id": worker_id, "version": version}],
            "type": "source",
        })
    );
    check(&c.get("/connectors/file-source/status"), 200, &status);
    // connect-rs's extension, on request only: the task's error counters, all zero on a
    // healthy task.
    let counters = json!({
        "total-record-failures": 0, "total-record-errors": 0,
        "total-records-skipped": 0, "total-retries": 0, "total-errors-logged": 0,
        "deadletterqueue-produce-requests": 0, "deadletterqueue-produce-failures": 0,
        "last-error-timestamp": 0,
    });
    let mut with_counters = status.clone();
    with_counters["tasks"][0]["errors"] = counters.clone();
    check(
        &c.get("/connectors/file-source/status?errorCounters=true"),
        200,
        &with_counters,
    );
    check(
        &c.get("/connectors/file-source/status?errorCounters=false"),
        200,
        &status,
    );
    let r = c.get("/connectors/file-source/tasks");
    assert_eq!(r.status, 200, "{}", r.body);
    let tasks = r.json();
    let tasks = tasks.as_array().expect("an array of tasks");
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    assert_eq!(
        tasks[0]["id"],
        json!({"connector": "file-source", "task": 0})
    );
    let task_config = &tasks[0]["config"];
    assert_eq!(task_config["file"], stored_config["file"], "{task_config}");
    assert_eq!(task_config["topic"], "rest-topic", "{task_config}");
    // Kafka Connect adds the task's Java class name to every task configuration.
    assert_eq!(
        task_config["task.class"], "org.apache.kafka.connect.file.FileStreamSourceTask",
        "{task_config}"
    );
    let sink_tasks = c.get("/connectors/file-sink/tasks").json();
    assert_eq!(
        sink_tasks[0]["config"]["task.class"], "org.apache.kafka.connect.file.FileStreamSinkTask",
        "{sink_tasks}"
    );
    check(
        &c.get("/connectors/file-source/tasks/0/status"),
        200,
        &status["tasks"][0],
    );
    check(
        &c.get("/connectors/file-source/tasks/0/status?errorCounters=TRUE"),
        200,
        &with_counters["tasks"][0],
    );
    check(
        &c.get("/connectors/file-source/tasks/1/status"),
        404,
        &error(404, "No status found for task file-source-1"),
    );

    // The REST-created source feeds the CLI's sink.
    wait_for("the source's lines in the sink's file", STARTUP, || {
        std::fs::read_to_string(&output).unwrap_or_default() == "alpha\nbeta\n"
    });

    // Unknown connector: Kafka's 404 messages.
    for (path, message) in [
        ("/connectors/nope", "Connector nope not found"),
        ("/connectors/nope/config", "Connector nope not found"),
        ("/connectors/nope/tasks", "Connector nope not found"),
        (
            "/connectors/nope/status",
            "No status found for connector nope",
        ),
        (
            "/connectors/nope/tasks/0/status",
            "No status found for task nope-0",
        ),
    ] {
        let r = c.get(path);
        assert_eq!(
            (r.status, r.json()),
            (404, error(404, message)),
            "GET {path}"
        );
    }
    check(
        &c.delete("/connectors/nope"),
        404,
        &error(404, "Connector nope not found"),
    );

    // Invalid configurations: 400 with every problem, and nothing created.
    let bad = json!({"name": "bad", "config": {"connector.class": "FileStreamSource"}});
    check(
        &c.post("/connectors", &bad),
        400,
        &error(
            400,
            &format!(
                "Connector configuration is invalid and contains the following 1 error(s):\n\
                 Missing required configuration \"topic\" which has no default value.\n\
                 {INVALID_SUFFIX}"
            ),
        ),
    );
    check(
        &c.get("/connectors/bad"),
        404,
        &error(404, "Connector bad not found"),
    );
    let r = c.post("/connectors", &json!({"config": source_config}));
    assert_eq!(r.status, 400, "a connector without a name: {}", r.body);
    let message = r.json()["message"].as_str().unwrap_or_default().to_owned();
    assert!(
        message.starts_with("Connector configuration is invalid"),
        "{message}"
    );
    check(
        &c.post(
            "/connectors",
            &json!({"name": "a", "config": {"name": "b", "connector.class": "FileStreamSource"}}),
        ),
        400,
        &error(
            400,
            "Connector name configuration (b) doesn't match connector name in the URL (a)",
        ),
    );
    let r = c.send(
        "POST",
        "/connectors",
        Some(("application/json", "{\"name\": ")),
    );
    assert_eq!(r.status, 400, "malformed JSON: {}", r.body);
    assert_eq!(r.json()["error_code"], 400);
    check(
        &c.get("/connectors"),
        200,
        &json!(["file-sink", "file-source"]),
    );

    // PUT: update (200, no Location) ...
    let mut updated = source_config.clone();
    updated["batch.size"] = json!("10");
    let r = c.put("/connectors/file-source/config", &updated);
    let mut updated_stored = updated.clone();
    updated_stored["name"] = json!("file-source");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("location"), None);
    assert_eq!(r.json()["name"], "file-source");
    assert_eq!(r.json()["config"], updated_stored);
    assert_eq!(r.json()["type"], "source");
    check(
        &c.get("/connectors/file-source/config"),
        200,
        &updated_stored,
    );
    check(
        &c.put(
            "/connectors/file-source/config",
            &json!({"name": "other", "connector.class": "FileStreamSource"}),
        ),
        400,
        &error(
            400,
            "Connector name configuration (other) doesn't match connector name in the URL (file-source)",
        ),
    );
    // ... and create (201 + Location): a second sink of the same topic.
    let sink2_config = json!({
        "connector.class": "FileStreamSink",
        "tasks.max": "1",
        "file": output2.display().to_string(),
        "topics": "rest-topic",
    });
    let r = c.put("/connectors/file-sink-2/config", &sink2_config);
    let mut sink2_stored = sink2_config.clone();
    sink2_stored["name"] = json!("file-sink-2");
    let sink2_info = json!({
        "name": "file-sink-2",
        "config": sink2_stored,
        "tasks": [{"connector": "file-sink-2", "task": 0}],
        "type": "sink",
    });
    check(&r, 201, &sink2_info);
    assert_eq!(r.header("location"), Some(location("file-sink-2").as_str()));
    wait_running(&c, "file-sink-2");
    wait_for("the second sink's file", STARTUP, || {
        std::fs::read_to_string(&output2).unwrap_or_default() == "alpha\nbeta\n"
    });

    // expand: an object keyed by name with the requested parts; unknown values ignored.
    let r = c.get("/connectors?expand=info&expand=status&expand=bogus");
    assert_eq!(r.status, 200, "{}", r.body);
    let expanded = r.json();
    let names: Vec<&String> = expanded.as_object().expect("an object").keys().collect();
    assert_eq!(names.len(), 3, "{expanded}");
    for name in ["file-sink", "file-source", "file-sink-2"] {
        let entry = &expanded[name];
        assert_eq!(entry.as_object().map(|o| o.len()), Some(2), "{entry}");
        assert_eq!(entry["info"], c.get(&format!("/connectors/{name}")).json());
        assert_eq!(entry["status"]["name"], name);
        assert_eq!(entry["status"]["connector"]["state"], "RUNNING");
        assert_eq!(entry["status"]["connector"]["version"], version);
        assert_kafka_task_states(&entry["status"]);
    }
    let r = c.get("/connectors?expand=status&errorCounters=true");
    assert_eq!(
        r.json()["file-source"]["status"]["tasks"][0]["errors"],
        counters
    );
    assert_eq!(expanded["file-sink-2"]["info"], sink2_info);
    let r = c.get("/connectors?expand=info");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["file-sink-2"], json!({"info": sink2_info}));
    let r = c.get("/connectors?expand=bogus");
    check(
        &r,
        200,
        &json!({"file-sink": {}, "file-sink-2": {}, "file-source": {}}),
    );

    // DELETE: 204 without a body, then 404.
    let r = c.delete("/connectors/file-sink-2");
    assert_eq!((r.status, r.body.as_str()), (204, ""));
    check(
        &c.get("/connectors/file-sink-2"),
        404,
        &error(404, "Connector file-sink-2 not found"),
    );
    check(
        &c.delete("/connectors/file-sink-2"),
        404,
        &error(404, "Connector file-sink-2 not found"),
    );
    check(
        &c.get("/connectors"),
        200,
        &json!(["file-sink", "file-source"]),
    );

    // Plugins: connectors only by default (sinks first), everything with connectorsOnly=false.
    let connectors = json!([
        {"class": "io.confluent.connect.jdbc.JdbcSinkConnector", "type": "sink", "version": version},
        {"class": SINK_CLASS, "type": "sink", "version": version},
        {"class": "io.confluent.connect.jdbc.JdbcSourceConnector", "type": "source", "version": version},
        {"class": SOURCE_CLASS, "type": "source", "version": version},
    ]);
    check(&c.get("/connector-plugins"), 200, &connectors);
    check(
        &c.get("/connector-plugins?connectorsOnly=true"),
        200,
        &connectors,
    );
    let r = c.get("/connector-plugins?connectorsOnly=false");
    assert_eq!(r.status, 200, "{}", r.body);
    let converters = [
        "org.apache.kafka.connect.converters.BooleanConverter",
        "org.apache.kafka.connect.converters.ByteArrayConverter",
        "org.apache.kafka.connect.converters.DoubleConverter",
        "org.apache.kafka.connect.converters.FloatConverter",
        "org.apache.kafka.connect.converters.IntegerConverter",
        "org.apache.kafka.connect.converters.LongConverter",
        "org.apache.kafka.connect.converters.ShortConverter",
        "org.apache.kafka.connect.json.JsonConverter",
        "org.apache.kafka.connect.storage.StringConverter",
    ];
    // Every built-in SMT of Kafka Connect (keyed ones as $Key and $Value), then the predicates.
    let transformations = [
        "Cast$Key",
        "Cast$Value",
        "DropHeaders",
        "ExtractField$Key",
        "ExtractField$Value",
        "Filter",
        "Flatten$Key",
        "Flatten$Value",
        "HeaderFrom$Key",
        "HeaderFrom$Value",
        "HoistField$Key",
        "HoistField$Value",
        "InsertField$Key",
        "InsertField$Value",
        "InsertHeader",
        "MaskField$Key",
        "MaskField$Value",
        "RegexRouter",
        "ReplaceField$Key",
        "ReplaceField$Value",
        "SetSchemaMetadata$Key",
        "SetSchemaMetadata$Value",
        "TimestampConverter$Key",
        "TimestampConverter$Value",
        "TimestampRouter",
        "ValueToKey",
    ];
    let predicates = ["HasHeaderKey", "RecordIsTombstone", "TopicNameMatches"];
    let mut expected: Vec<Value> = connectors.as_array().cloned().unwrap_or_default();
    expected.extend(transformations.iter().map(|t| {
        json!({"class": format!("org.apache.kafka.connect.transforms.{t}"),
               "type": "transformation", "version": version})
    }));
    expected.extend(predicates.iter().map(|p| {
        json!({"class": format!("org.apache.kafka.connect.transforms.predicates.{p}"),
               "type": "predicate", "version": version})
    }));
    expected.extend(
        converters
            .iter()
            .map(|c| json!({"class": c, "type": "converter", "version": version})),
    );
    let mut headers: Vec<&str> = converters.to_vec();
    headers.push("org.apache.kafka.connect.storage.SimpleHeaderConverter");
    headers.sort_unstable();
    expected.extend(
        headers
            .iter()
            .map(|c| json!({"class": c, "type": "header_converter", "version": version})),
    );
    assert_eq!(r.json(), Value::Array(expected));

    // Unknown paths and methods.
    check(&c.get("/nope"), 404, &error(404, "HTTP 404 Not Found"));
    check(
        &c.get("/connectors/file-source/tasks/x/status"),
        404,
        &error(404, "HTTP 404 Not Found"),
    );
    check(
        &c.delete("/connectors"),
        405,
        &error(405, "HTTP 405 Method Not Allowed"),
    );
    check(
        &c.post("/connectors/file-source", &json!({})),
        405,
        &error(405, "HTTP 405 Method Not Allowed"),
    );

    // A graceful stop still works with the REST server running.
    let status = terminate(&mut run.child, Duration::from_secs(60));
    assert!(status.success(), "exit {status}; log:\n{}", w.log());
}

#[test]
fn the_test_client_reads_content_length_and_chunked_bodies() {
    let r = parse_response(b"HTTP/1.1 201 Created\r\nLocation: /x\r\ncontent-length: 2\r\n\r\n{}")
        .expect("a response");
    assert_eq!(
        (r.status, r.header("location"), r.body.as_str()),
        (201, Some("/x"), "{}")
    );
    let r = parse_response(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n[1,\r\n2\r\n2]\r\n0\r\n\r\n",
    )
    .expect("a response");
    assert_eq!(r.body, "[1,2]");
}

#[test]
fn the_rest_port_is_read_from_the_log() {
    let log = "2024 INFO connect_rs: REST API listening on http://127.0.0.1:40123\n";
    assert_eq!(rest_port(log), Some(40123));
    assert_eq!(rest_port("nothing yet"), None);
}

#[test]
fn pause_resume_restart_and_stop_over_rest() {
    let w = Workdir::new();
    let worker = w.worker("offset.flush.interval.ms=100");
    let input = w.write("in.txt", "a\nb\n");
    let output = w.path("out.txt");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let created = c.post(
        "/connectors",
        &json!({"name": "src", "config": {"connector.class": "FileStreamSource", "file": input, "topic": "t"}}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let created = c.post(
        "/connectors",
        &json!({"name": "dst", "config": {"connector.class": "FileStreamSink", "file": output, "topics": "t"}}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    wait_for("both lines in the output", STARTUP, || {
        std::fs::read_to_string(&output).unwrap_or_default() == "a\nb\n"
    });

    // Pause: 202, connector and tasks PAUSED.
    assert_eq!(c.send("PUT", "/connectors/src/pause", None).status, 202);
    let status = c.get("/connectors/src/status").json();
    assert_eq!(status["connector"]["state"], "PAUSED", "{status}");
    assert_eq!(status["tasks"][0]["state"], "PAUSED", "{status}");
    assert_eq!(
        c.get("/connectors/src").json()["tasks"],
        json!([{"connector": "src", "task": 0}])
    );

    // Lines appended while paused arrive once resumed, exactly once (the position was kept).
    std::fs::write(&input, "a\nb\nc\n").unwrap();
    assert_eq!(c.send("PUT", "/connectors/src/resume", None).status, 202);
    wait_for("RUNNING after resume", STARTUP, || {
        c.get("/connectors/src/status").json()["tasks"][0]["state"] == "RUNNING"
    });
    wait_for("the appended line", STARTUP, || {
        std::fs::read_to_string(&output).unwrap_or_default() == "a\nb\nc\n"
    });

    // Restart: 204 without flags; 202 with the instances to restart shown as RESTARTING.
    assert_eq!(c.send("POST", "/connectors/src/restart", None).status, 204);
    let restarted = c.send("POST", "/connectors/src/restart?includeTasks=true", None);
    assert_eq!(restarted.status, 202, "{}", restarted.body);
    let body = restarted.json();
    assert_eq!(body["connector"]["state"], "RESTARTING", "{body}");
    assert_eq!(body["tasks"][0]["state"], "RESTARTING", "{body}");
    assert_kafka_task_states(&body);
    let restarted = c.send(
        "POST",
        "/connectors/src/restart?includeTasks=true&errorCounters=true",
        None,
    );
    assert_eq!(restarted.status, 202, "{}", restarted.body);
    let body = restarted.json();
    assert!(body["tasks"][0]["errors"].is_object(), "{body}");
    assert_eq!(
        c.send("POST", "/connectors/src/tasks/0/restart", None)
            .status,
        204
    );
    let unknown_task = c.send("POST", "/connectors/src/tasks/7/restart", None);
    assert_eq!(unknown_task.status, 404);
    assert_eq!(
        unknown_task.json(),
        json!({"error_code": 404, "message": "Task src-7 not found"})
    );
    let unknown = c.send("POST", "/connectors/nope/restart", None);
    assert_eq!(
        unknown.json(),
        json!({"error_code": 404, "message": "Unknown connector: nope"})
    );
    let unknown = c.send("PUT", "/connectors/nope/pause", None);
    assert_eq!(
        unknown.json(),
        json!({"error_code": 404, "message": "Unknown connector nope"})
    );

    // Stop: 204, STOPPED with no tasks; nothing was copied twice by the restarts.
    assert_eq!(c.send("PUT", "/connectors/src/stop", None).status, 204);
    let status = c.get("/connectors/src/status").json();
    assert_eq!(status["connector"]["state"], "STOPPED", "{status}");
    assert_eq!(status["tasks"], json!([]), "{status}");
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "a\nb\nc\n");
    let status = terminate(&mut run.child, Duration::from_secs(20));
    assert!(status.success(), "{status:?}");
}

/// The scripted scenario: create, pause, append, resume, PUT a new topic, stop, PATCH
/// the offsets back to 0, resume — the sink output shows exactly the expected lines.
#[test]
fn scripted_lifecycle_scenario_with_offsets_rewind() {
    let w = Workdir::new();
    let worker = w.worker("offset.flush.interval.ms=100");
    let input = w.write("in.txt", "a\nb\n");
    let output = w.path("out.txt");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let src =
        |topic: &str| json!({"connector.class": "FileStreamSource", "file": input, "topic": topic});
    assert_eq!(
        c.post("/connectors", &json!({"name": "src", "config": src("t1")}))
            .status,
        201
    );
    let sink = json!({"name": "dst", "config": {"connector.class": "FileStreamSink", "file": output, "topics.regex": "t[0-9]"}});
    assert_eq!(c.post("/connectors", &sink).status, 201);
    let out = || std::fs::read_to_string(&output).unwrap_or_default();
    wait_for("RUNNING", STARTUP, || {
        c.get("/connectors/src/status").json()["tasks"][0]["state"] == "RUNNING"
    });
    wait_for("a, b", STARTUP, || out() == "a\nb\n");

    assert_eq!(c.send("PUT", "/connectors/src/pause", None).status, 202);
    std::fs::write(&input, "a\nb\nc\n").unwrap();
    assert_eq!(c.send("PUT", "/connectors/src/resume", None).status, 202);
    wait_for("c after resume", STARTUP, || out() == "a\nb\nc\n");

    // A new topic: the source goes on from its position into t2.
    let updated = c.put("/connectors/src/config", &src("t2"));
    assert_eq!(updated.status, 200, "{}", updated.body);
    std::fs::write(&input, "a\nb\nc\nd\n").unwrap();
    wait_for("d through t2", STARTUP, || out() == "a\nb\nc\nd\n");

    // Offsets can only change while stopped (Kafka's message) ...
    let rewind =
        json!({"offsets": [{"partition": {"filename": input}, "offset": {"position": 0}}]});
    let refused = c.send(
        "PATCH",
        "/connectors/src/offsets",
        Some(("application/json", &rewind.to_string())),
    );
    assert_eq!(refused.status, 400);
    assert!(refused.json()["message"]
        .as_str()
        .unwrap()
        .starts_with("Connectors must be in the STOPPED state"));
    let empty = c.send(
        "PATCH",
        "/connectors/src/offsets",
        Some(("application/json", "{\"offsets\": []}")),
    );
    assert_eq!(
        empty.json(),
        json!({"error_code": 400, "message": "Partitions / offsets need to be provided for an alter offsets request"})
    );
    // ... so stop, rewind to 0, check, and resume: everything is read again.
    assert_eq!(c.send("PUT", "/connectors/src/stop", None).status, 204);
    let altered = c.send(
        "PATCH",
        "/connectors/src/offsets",
        Some(("application/json", &rewind.to_string())),
    );
    assert_eq!(altered.status, 200, "{}", altered.body);
    assert_eq!(
        altered.json(),
        json!({"message": "The offsets for this connector have been altered successfully"})
    );
    assert_eq!(
        c.get("/connectors/src/offsets").json(),
        json!({"offsets": [{"partition": {"filename": input}, "offset": {"position": 0}}]})
    );
    assert_eq!(c.send("PUT", "/connectors/src/resume", None).status, 202);
    wait_for("everything again", STARTUP, || {
        out() == "a\nb\nc\nd\na\nb\nc\nd\n"
    });

    // Sink offsets: committed last + 1 per partition of the group connect-dst.
    wait_for("sink offsets committed", STARTUP, || {
        c.get("/connectors/dst/offsets").json()
            == json!({"offsets": [
                {"partition": {"kafka_topic": "t1", "kafka_partition": 0}, "offset": {"kafka_offset": 3}},
                {"partition": {"kafka_topic": "t2", "kafka_partition": 0}, "offset": {"kafka_offset": 5}}
            ]})
    });
    // Beyond Kafka Connect: auto_stop=true resets a running connector and starts it again.
    let reset = c.send("DELETE", "/connectors/dst/offsets?auto_stop=true", None);
    assert_eq!(
        reset.json(),
        json!({"message": "The offsets for this connector have been reset successfully"})
    );
    assert_eq!(connector_state(&c, "dst"), "RUNNING");
    wait_for("the sink re-read both topics", STARTUP, || {
        out().lines().count() == 8 + 3 + 5
    });
    let status = terminate(&mut run.child, Duration::from_secs(20));
    assert!(status.success(), "{status:?}");
}

/// KIP-875 offsets alterations are checked by the connector (its `alterOffsets`) before
/// anything is stored: FileStreamSource's checks and messages are Kafka Connect's, a refusal is
/// a 500 with the message (Kafka Connect's ConnectException) and leaves the offsets as they
/// were; a stdin source's offsets cannot be altered or reset at all.
#[test]
fn offsets_alterations_are_checked_by_the_connector_and_refusals_store_nothing() {
    let w = Workdir::new();
    let worker = w.worker("offset.flush.interval.ms=100");
    let input = w.write("in.txt", "a\nb\n");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let create = |name: &str, config: serde_json::Value| {
        let body = json!({"name": name, "config": config, "initial_state": "STOPPED"});
        let r = c.post("/connectors", &body);
        assert_eq!(r.status, 201, "{}", r.body);
    };
    create(
        "src",
        json!({"connector.class": "FileStreamSource", "file": input, "topic": "t"}),
    );
    create(
        "stdin-src",
        json!({"connector.class": "FileStreamSource", "topic": "t"}),
    );
    create(
        "dst",
        json!({"connector.class": "FileStreamSink", "file": w.path("out.txt"), "topics": "t"}),
    );
    let patch = |name: &str, body: serde_json::Value| {
        c.send(
            "PATCH",
            &format!("/connectors/{name}/offsets"),
            Some(("application/json", &body.to_string())),
        )
    };
    let stored =
        json!({"offsets": [{"partition": {"filename": input}, "offset": {"position": 2}}]});
    let r = patch("src", stored.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json(),
        json!({"message": "The offsets for this connector have been altered successfully"})
    );
    assert_eq!(c.get("/connectors/src/offsets").json(), stored);

    let refusals = [
        (
            json!({"partition": {"file": input}, "offset": {"position": 0}}),
            "Partition objects should contain the key 'filename'",
        ),
        (
            json!({"partition": null, "offset": {"position": 0}}),
            "Partition objects cannot be null",
        ),
        (
            json!({"partition": {"filename": input}, "offset": {"pos": 0}}),
            "Offset objects should either be null or contain the key 'position'",
        ),
        (
            json!({"partition": {"filename": input}, "offset": {"position": "0"}}),
            "The value for the 'position' key in the offset is expected to be a Long value",
        ),
        (
            json!({"partition": {"filename": input}, "offset": {"position": -1}}),
            "The value for the 'position' key in the offset should be a non-negative value",
        ),
    ];
    for (entry, message) in refusals {
        // With a valid entry first: the whole request is refused, nothing of it stored.
        let valid = json!({"partition": {"filename": "other.txt"}, "offset": {"position": 1}});
        let r = patch("src", json!({"offsets": [valid, entry]}));
        assert_eq!(
            (r.status, r.json()),
            (500, json!({"error_code": 500, "message": message})),
            "{entry}"
        );
        assert_eq!(c.get("/connectors/src/offsets").json(), stored, "{entry}");
    }
    // A null offset is fine whatever its partition: the partition's offset is removed.
    let r = patch(
        "src",
        json!({"offsets": [{"partition": {"filename": input}, "offset": null}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        c.get("/connectors/src/offsets").json(),
        json!({"offsets": []})
    );

    // stdin: offsets are not tracked, so neither altered nor reset.
    let stdin = "Offsets cannot be modified if the 'file' configuration is unspecified. This is because stdin is used for input and offsets are not tracked.";
    let r = patch(
        "stdin-src",
        json!({"offsets": [{"partition": {"filename": null}, "offset": null}]}),
    );
    assert_eq!(
        (r.status, r.json()),
        (500, json!({"error_code": 500, "message": stdin}))
    );
    let r = c.send("DELETE", "/connectors/stdin-src/offsets", None);
    assert_eq!(
        (r.status, r.json()),
        (500, json!({"error_code": 500, "message": stdin}))
    );

    // FileStreamSink accepts any alteration (its alterOffsets returns true).
    let r = patch(
        "dst",
        json!({"offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 1}}]}),
    );
    assert_eq!(
        (r.status, r.json()),
        (
            200,
            json!({"message": "The offsets for this connector have been altered successfully"})
        )
    );
    let status = terminate(&mut run.child, Duration::from_secs(20));
    assert!(status.success(), "{status:?}");
}

/// Sink offsets list every partition the group has committed, also those of a topic the sink
/// no longer reads (Kafka Connect lists the consumer group's offsets, not the assignment).
#[test]
fn sink_offsets_list_every_committed_partition_of_the_group() {
    let w = Workdir::new();
    let worker = w.worker("offset.flush.interval.ms=100");
    let input = w.write("in.txt", "a\nb\n");
    let output = w.path("out.txt");
    let run = start(&w, &[&worker]);
    let c = run.client;
    create(
        &c,
        "src",
        &json!({"connector.class": "FileStreamSource", "file": input, "topic": "old"}),
    );
    let sink = |topics: &str| json!({"connector.class": "FileStreamSink", "file": output, "topics": topics});
    create(&c, "dst", &sink("old"));
    let old = json!({"partition": {"kafka_topic": "old", "kafka_partition": 0}, "offset": {"kafka_offset": 2}});
    wait_for("the sink's offsets in old", STARTUP, || {
        c.get("/connectors/dst/offsets").json() == json!({"offsets": [old]})
    });
    let r = c.put("/connectors/dst/config", &sink("new"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        c.get("/connectors/dst/offsets").json(),
        json!({"offsets": [old]}),
        "the group's offsets in old are still listed"
    );
}

#[test]
fn connectors_created_over_rest_survive_a_restart_with_a_configs_file() {
    let w = Workdir::new();
    let configs = w.path("connectors.json");
    let worker = w.worker(&format!(
        "config.storage.file.filename={}",
        configs.display()
    ));
    let input = w.write("in.txt", "x\n");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let config = json!({"connector.class": "FileStreamSource", "file": input, "topic": "t"});
    create(&c, "kept", &config);
    assert_eq!(c.send("PUT", "/connectors/kept/pause", None).status, 202);
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());
    let stored: Value = serde_json::from_slice(&std::fs::read(&configs).unwrap()).unwrap();
    assert_eq!(
        stored["connectors"]["kept"]["target_state"], "PAUSED",
        "{stored}"
    );
    assert_eq!(
        stored["connectors"]["kept"]["config"]["topic"], "t",
        "{stored}"
    );

    let mut run = start(&w, &[&worker]);
    let c = run.client;
    assert_eq!(c.get("/connectors").json(), json!(["kept"]));
    assert_eq!(connector_state(&c, "kept"), "PAUSED");
    assert_eq!(c.send("DELETE", "/connectors/kept", None).status, 204);
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());
    let stored: Value = serde_json::from_slice(&std::fs::read(&configs).unwrap()).unwrap();
    assert_eq!(stored["connectors"], json!({}));
}

#[test]
fn a_connector_created_paused_starts_only_when_resumed() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "p\n");
    let output = w.path("out.txt");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let sink = json!({"connector.class": "FileStreamSink", "file": output, "topics": "t"});
    create(&c, "dst", &sink);
    let source = json!({"connector.class": "FileStreamSource", "file": input, "topic": "t"});
    let created = c.post(
        "/connectors",
        &json!({"name": "src", "config": source, "initial_state": "paused"}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(connector_state(&c, "src"), "PAUSED");
    let stopped = c.post(
        "/connectors",
        &json!({"name": "off", "config": {"connector.class": "FileStreamSource", "file": input, "topic": "u"}, "initial_state": "STOPPED"}),
    );
    assert_eq!(stopped.status, 201, "{}", stopped.body);
    assert_eq!(connector_state(&c, "off"), "STOPPED");
    // A PUT while paused keeps it paused.
    assert_eq!(c.put("/connectors/src/config", &source).status, 200);
    assert_eq!(connector_state(&c, "src"), "PAUSED");
    assert_eq!(c.send("PUT", "/connectors/src/resume", None).status, 202);
    wait_for("the line once resumed", STARTUP, || {
        std::fs::read_to_string(&output).unwrap_or_default() == "p\n"
    });
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());
}

#[test]
fn topic_tracking_lists_and_resets_the_topics_a_connector_used() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "one\n");
    let output = w.path("out.txt");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let source = json!({"connector.class": "FileStreamSource", "file": input, "topic": "tracked"});
    create(&c, "src", &source);
    let sink = json!({"connector.class": "FileStreamSink", "file": output, "topics": "tracked"});
    create(&c, "dst", &sink);
    wait_for("the line", STARTUP, || {
        std::fs::read_to_string(&output).unwrap_or_default() == "one\n"
    });
    assert_eq!(
        c.get("/connectors/src/topics").json(),
        json!({"src": {"topics": ["tracked"]}})
    );
    assert_eq!(
        c.get("/connectors/dst/topics").json(),
        json!({"dst": {"topics": ["tracked"]}})
    );
    assert_eq!(
        c.get("/connectors/nope/topics").json(),
        json!({"nope": {"topics": []}})
    );
    // A sink records a topic once a record of it is converted, before its transforms and
    // `put` (Kafka Connect's `WorkerSinkTask`): one whose transform fails used the topic too.
    let failing = json!({
        "connector.class": "FileStreamSink", "file": w.path("failing.txt"), "topics": "tracked",
        "transforms": "int", "transforms.int.type": "org.apache.kafka.connect.transforms.Cast$Value",
        "transforms.int.spec": "int32",
    });
    create(&c, "failing", &failing);
    wait_for("the failing sink's task FAILED", STARTUP, || {
        c.get("/connectors/failing/status").json()["tasks"][0]["state"] == "FAILED"
    });
    assert_eq!(
        c.get("/connectors/failing/topics").json(),
        json!({"failing": {"topics": ["tracked"]}})
    );
    assert_eq!(
        c.send("PUT", "/connectors/src/topics/reset", None).status,
        202
    );
    assert_eq!(
        c.get("/connectors/src/topics").json(),
        json!({"src": {"topics": []}})
    );
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());

    let w = Workdir::new();
    let worker = w.worker("topic.tracking.enable=false");
    let mut run = start(&w, &[&worker]);
    let disabled = run.client.get("/connectors/src/topics");
    assert_eq!(disabled.status, 403);
    assert_eq!(
        disabled.json(),
        json!({"error_code": 403, "message": "Topic tracking is disabled."})
    );
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());

    let w = Workdir::new();
    let worker = w.worker("topic.tracking.allow.reset=false");
    let mut run = start(&w, &[&worker]);
    assert_eq!(run.client.get("/connectors/src/topics").status, 200);
    let refused = run.client.send("PUT", "/connectors/src/topics/reset", None);
    assert_eq!(refused.status, 403);
    assert_eq!(
        refused.json(),
        json!({"error_code": 403, "message": "Topic tracking reset is disabled."})
    );
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());
}

#[test]
fn secrets_show_as_hidden_but_are_kept() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "s\n");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let config = json!({
        "connector.class": "FileStreamSource", "file": input, "topic": "t",
        "producer.override.ssl.key.password": "s3cret",
        "producer.override.ssl.keystore.key": "-----BEGIN PRIVATE KEY----- s3cret",
        "producer.override.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required;"
    });
    let created = c.post("/connectors", &json!({"name": "src", "config": config}));
    assert_eq!(created.status, 201, "{}", created.body);
    for body in [
        created.json()["config"].clone(),
        c.get("/connectors/src/config").json(),
        c.get("/connectors/src").json()["config"].clone(),
        c.get("/connectors/src/tasks").json()[0]["config"].clone(),
    ] {
        assert_eq!(
            body["producer.override.ssl.key.password"], "[hidden]",
            "{body}"
        );
        assert_eq!(
            body["producer.override.sasl.jaas.config"], "[hidden]",
            "{body}"
        );
        assert_eq!(
            body["producer.override.ssl.keystore.key"], "[hidden]",
            "{body}"
        );
        assert_eq!(body["topic"], "t", "{body}");
        assert!(!body.to_string().contains("s3cret"), "{body}");
    }
    // PATCH merges onto the real values, not onto "[hidden]".
    assert_eq!(
        c.send(
            "PATCH",
            "/connectors/src/config",
            Some(("application/json", "{\"topic\": \"t2\"}"))
        )
        .status,
        200
    );
    let body = c.get("/connectors/src/config").json();
    assert_eq!(body["topic"], "t2");
    assert_eq!(body["producer.override.ssl.key.password"], "[hidden]");
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());
}

#[test]
fn restarting_one_task_leaves_the_others_running() {
    let w = Workdir::new();
    let worker = w.worker("num.partitions=2");
    let output = w.path("out.txt");
    let mut run = start(&w, &[&worker]);
    let c = run.client;
    let sink = json!({"connector.class": "FileStreamSink", "file": output, "topics": "t", "tasks.max": "2"});
    create(&c, "dst", &sink);
    wait_for("both tasks RUNNING", STARTUP, || {
        let s = c.get("/connectors/dst/status").json();
        s["tasks"][0]["state"] == "RUNNING" && s["tasks"][1]["state"] == "RUNNING"
    });
    assert_eq!(
        c.send("POST", "/connectors/dst/tasks/1/restart", None)
            .status,
        204
    );
    wait_for("task 1 stopped and started again", STARTUP, || {
        w.log()
            .contains("task{connector=dst task=1}: Task stopped: ")
    });
    assert!(
        !w.log()
            .contains("task{connector=dst task=0}: Task stopped: "),
        "{}",
        w.log()
    );
    let s = c.get("/connectors/dst/status").json();
    assert_eq!(s["tasks"][0]["state"], "RUNNING", "{s}");
    assert_eq!(s["tasks"][1]["state"], "RUNNING", "{s}");
    // onlyFailed with nothing failed: 202 and nothing restarts.
    let r = c.send(
        "POST",
        "/connectors/dst/restart?includeTasks=true&onlyFailed=true",
        None,
    );
    assert_eq!(r.status, 202);
    assert_eq!(r.json()["tasks"][0]["state"], "RUNNING");
    assert_eq!(r.json()["connector"]["state"], "RUNNING");
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());
}

/// Creates connector `name` with `config` by POST, expecting 201.
#[track_caller]
/// Kafka Connect's internal `POST /connectors/{c}/tasks` exists on a standalone worker and is
/// refused as its StandaloneHerder refuses it (500); the `forward` parameter of worker-to-worker
/// requests changes nothing on a worker that never forwards.
#[test]
fn internal_task_configs_are_refused_by_a_standalone_worker() {
    let w = Workdir::new();
    let output = w.path("output.txt");
    let worker = w.worker("");
    let sink = w.sink("file-sink", &output, "internal-topic");
    let mut run = start(&w, &[&worker, &sink]);
    let c = &run.client;
    let standalone = error(
        500,
        "Kafka Connect in standalone mode does not support externally setting task configurations.",
    );
    let body = json!([{"task.class": "org.apache.kafka.connect.file.FileStreamSinkTask"}]);
    check(
        &c.post("/connectors/file-sink/tasks", &body),
        500,
        &standalone,
    );
    // Forwarded or not, for a known connector or not: the same refusal.
    let other = c.send(
        "POST",
        "/connectors/other/tasks?forward=false",
        Some(("application/json", "[]")),
    );
    check(&other, 500, &standalone);
    // Not a list of string maps: refused before the herder, 500 as Kafka Connect's parser.
    let r = c.send(
        "POST",
        "/connectors/file-sink/tasks",
        Some(("application/json", "{\"not\": \"a list\"}")),
    );
    assert_eq!(r.status, 500, "{}", r.body);
    assert_eq!(r.json()["error_code"], 500);
    // GET on the same path is still the task list.
    wait_running(c, "file-sink");
    let r = c.get("/connectors/file-sink/tasks?forward=true");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()[0]["id"],
        json!({"connector": "file-sink", "task": 0})
    );
    let status = terminate(&mut run.child, Duration::from_secs(60));
    assert!(status.success(), "exit {status}; log:\n{}", w.log());
}

fn create(c: &Client, name: &str, config: &Value) {
    let r = c.post("/connectors", &json!({"name": name, "config": config}));
    assert_eq!(r.status, 201, "{}", r.body);
}

/// The state of connector `name` in its status.
fn connector_state(c: &Client, name: &str) -> Value {
    c.get(&format!("/connectors/{name}/status")).json()["connector"]["state"].clone()
}

/// A worker with `connector.class.denylist=FileStreamSource,FileStreamSink`: whoever may create
/// connectors cannot read or write the worker's files through them. Create, update and
/// validate are refused by name with the key that refuses them (400), nothing is created or
/// read, and `GET /connector-plugins` does not list them (as Kafka Connect does not list a
/// plugin missing from its plugin path since 3.2).
#[test]
fn a_worker_can_refuse_the_file_connectors() {
    let w = Workdir::new();
    let secret = w.write("secret.txt", "top secret\n");
    let worker = w.worker("connector.class.denylist=FileStreamSource,FileStreamSink");
    let run = start(&w, &[&worker]);
    let c = &run.client;
    let refused = |alias: &str, class: &str| {
        format!(
            "Connector {alias} ({class}) is not allowed on this worker: the worker's \
             connector.class.denylist names it. Allowed: JdbcSinkConnector \
             (io.confluent.connect.jdbc.JdbcSinkConnector), JdbcSourceConnector \
             (io.confluent.connect.jdbc.JdbcSourceConnector)"
        )
    };
    let invalid = |message: String| {
        error(
            400,
            &format!(
                "Connector configuration is invalid and contains the following 1 error(s):\n\
                 {message}\n{INVALID_SUFFIX}"
            ),
        )
    };
    let source = json!({
        "connector.class": "FileStreamSource",
        "file": secret.display().to_string(),
        "topic": "t",
    });
    check(
        &c.post("/connectors", &json!({"name": "steal", "config": source})),
        400,
        &invalid(refused("FileStreamSource", SOURCE_CLASS)),
    );
    let sink = json!({
        "connector.class": SINK_CLASS,
        "file": w.path("planted.txt").display().to_string(),
        "topics": "t",
    });
    check(
        &c.put("/connectors/plant/config", &sink),
        400,
        &invalid(refused(SINK_CLASS, SINK_CLASS)),
    );
    check(
        &c.put(
            "/connector-plugins/FileStreamSource/config/validate",
            &source,
        ),
        400,
        &error(400, &refused("FileStreamSource", SOURCE_CLASS)),
    );
    check(&c.get("/connectors"), 200, &json!([]));
    assert!(!w.path("planted.txt").exists());
    let plugins = c.get("/connector-plugins?connectorsOnly=false");
    assert_eq!(plugins.status, 200, "{}", plugins.body);
    assert!(!plugins.body.contains("FileStream"), "{}", plugins.body);
    assert!(
        plugins.body.contains("JdbcSourceConnector"),
        "{}",
        plugins.body
    );
    assert_eq!(
        c.get("/connector-plugins/FileStreamSink/config").status,
        404
    );
}

/// Issue 34 item 4: a connector whose start hangs (a JDBC source on a database that never
/// answers) blocks neither reads nor other connectors' answers nor its own deletion, and is
/// FAILED with the reason after `connector.start.timeout.ms`.
#[test]
fn a_connector_whose_start_hangs_blocks_no_other_request() {
    let w = Workdir::new();
    let worker = w.worker("connector.start.timeout.ms=4000");
    let input = w.write("in.txt", "a\n");
    let mut run = start(&w, &[&worker]);
    create(
        &run.client,
        "other",
        &json!({"connector.class": "FileStreamSource", "file": input, "topic": "t"}),
    );
    wait_running(&run.client, "other");
    support::rest::check_a_hanging_start_blocks_nothing(run.port, "other", 4000);
    let status = terminate(&mut run.child, Duration::from_secs(30));
    assert!(status.success(), "exit {status}; log:\n{}", w.log());
}
