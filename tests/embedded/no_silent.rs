//! No silent ignoring (issue 7, item 3): what would change the data or the outcome of a run
//! is honoured or refused with a clear error, never accepted and skipped. Driven through the
//! real binary: exit codes, stderr and REST bodies.

use crate::support;

use serde_json::json;
use support::rest::start;
use support::*;

#[test]
fn dead_letter_queue_keys_are_honoured_and_checked_for_sources_too() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "a\n");
    let source = w.write(
        "src.properties",
        format!(
            "name=src\nconnector.class=FileStreamSource\ntopic=t\nfile={}\n\
             errors.deadletterqueue.topic.name=dlq\n\
             errors.deadletterqueue.context.headers.enable=maybe\n",
            input.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 3, "{err}");
    let key = "errors.deadletterqueue.context.headers.enable";
    assert!(
        err.contains(&format!(
            "line 6: {key}: Invalid value maybe for configuration {key}"
        )),
        "{err}"
    );
    // Accepted without an unknown-key warning once valid.
    let source = w.write(
        "src.properties",
        format!(
            "name=src\nconnector.class=FileStreamSource\ntopic=t\nfile={}\n\
             errors.deadletterqueue.topic.name=dlq\n",
            input.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("isn't a known config"), "{err}");
}

#[test]
fn rest_create_and_validate_refuse_an_unknown_transform() {
    let w = Workdir::new();
    let worker = w.worker("");
    let r = start(&w, &[&worker]);
    let config = json!({
        "connector.class": "FileStreamSink",
        "topics": "t",
        "file": w.path("out.txt").display().to_string(),
        "transforms": "route",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRoutr",
    });
    let created = r
        .client
        .post("/connectors", &json!({"name": "s", "config": config}));
    assert_eq!(created.status, 400, "{}", created.body);
    let body = created.json();
    assert_eq!(body["error_code"], 400, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(
            "Connector configuration is invalid and contains the following 1 error(s):"
        ),
        "{message}"
    );
    assert!(
        message.contains("Class org.apache.kafka.connect.transforms.RegexRoutr could not be found"),
        "{message}"
    );
    assert_eq!(r.client.get("/connectors").json(), json!([]));

    let mut with_name = config.clone();
    with_name["name"] = json!("s");
    let validated = r.client.put(
        "/connector-plugins/FileStreamSink/config/validate",
        &with_name,
    );
    assert_eq!(validated.status, 200, "{}", validated.body);
    let infos = validated.json();
    assert_eq!(infos["error_count"], 1, "{infos}");
    let config_of = |key: &str| {
        infos["configs"]
            .as_array()
            .and_then(|a| a.iter().find(|c| c["value"]["name"] == key))
            .cloned()
            .unwrap_or_else(|| panic!("no {key} in {infos}"))
    };
    let route_type = config_of("transforms.route.type");
    assert!(
        route_type["value"]["errors"][0]
            .as_str()
            .is_some_and(|e| e.contains("could not be found")),
        "{infos}"
    );
    assert_eq!(
        route_type["definition"]["group"], "Transforms: route",
        "{infos}"
    );
    assert!(infos["groups"]
        .as_array()
        .is_some_and(|g| g.iter().any(|g| g == "Transforms: route")));
}

#[test]
fn one_connector_name_in_two_files_is_refused_naming_both() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "a\n");
    let first = w.source("first", &input, "t");
    let second = w.write(
        "second.json",
        json!({"name": "first", "config": {"connector.class": "FileStreamSink", "topics": "t",
               "file": w.path("out.txt").display().to_string()}})
        .to_string(),
    );
    let (code, err) = w.run_checked(&[&worker, &first, &second]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(&format!(
            "Connector name 'first' is used by more than one file: {} and {}",
            first.display(),
            second.display()
        )),
        "{err}"
    );
    assert!(!w.path("out.txt").exists(), "nothing may start");

    // The same file twice.
    let (code, err) = w.run_checked(&[&worker, &first, &first]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(&format!(
            "{} is given 2 times on the command line",
            first.display()
        )),
        "{err}"
    );
}

#[test]
fn worker_converters_are_checked_at_start_up_without_connectors() {
    let w = Workdir::new();
    let worker = w.write(
        "worker.properties",
        format!(
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=com.example.AvroConverter\n\
             header.converter=Simpel\n\
             listeners=http://127.0.0.1:0\nembedded.log.dir={}\n",
            w.path("data").display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("Invalid configuration in {}:", worker.display())),
        "{err}"
    );
    assert!(
        err.contains("line 2: value.converter: Failed to find any class that implements Converter and which name matches com.example.AvroConverter"),
        "{err}"
    );
    assert!(
        err.contains(
            "line 3: header.converter: Failed to find any class that implements HeaderConverter"
        ),
        "{err}"
    );
    assert!(!err.contains("REST API listening"), "{err}");
}

#[test]
fn an_invalid_log_level_is_a_usage_error() {
    let w = Workdir::new();
    let worker = w.worker("");
    for bad in ["dbug", "connect_rs=loud", ""] {
        let out = w
            .command(&[
                "--log-level",
                bad,
                "standalone",
                "--exit-when-idle=300ms",
                &worker.display().to_string(),
            ])
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{bad}: {err}");
        assert!(err.contains("--log-level"), "{err}");
        assert!(!err.contains("REST API listening"), "{err}");
    }
    let out = w
        .command(&["--log-level", "dbug", "topics", "--worker", "w", "list"])
        .output()
        .unwrap();
    assert!(
        stderr(&out).contains("'dbug' is not a log level. Did you mean 'debug'?"),
        "{}",
        stderr(&out)
    );
    // A valid filter still works.
    let out = w
        .command(&[
            "--log-level=warn,connect_rs::commands=info",
            "standalone",
            "--exit-when-idle=300ms",
            &worker.display().to_string(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn exit_when_idle_fails_when_a_source_never_found_its_input() {
    let w = Workdir::new();
    let worker = w.worker("");
    let missing = w.path("never-created.txt");
    let source = w.source("src", &missing, "t");
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(&format!(
            "error: Nothing was copied: a source's input never became available (src-0: the file {} does not exist)",
            missing.display()
        )),
        "{err}"
    );

    // An input that exists but is empty copied nothing too, but nothing was missing: success.
    let empty = w.write("empty.txt", "");
    let source = w.source("src", &empty, "t");
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 0, "{err}");
}

/// A FIFO at `path` (made with `mkfifo`).
fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(status.success());
}

#[test]
fn a_fifo_no_process_writes_to_is_an_input_never_available_and_sigterm_stops_it() {
    let w = Workdir::new();
    let worker = w.worker("");
    let fifo = w.path("in.fifo");
    mkfifo(&fifo);
    let source = w.source("src", &fifo, "t");
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(&format!(
            "error: Nothing was copied: a source's input never became available (src-0: the FIFO {} has no writer (nothing was ever written to it))",
            fifo.display()
        )),
        "{err}"
    );

    // Without --exit-when-idle, the worker waits for a writer, and SIGTERM stops it promptly.
    let mut child = w.spawn(&[&worker, &source]);
    wait_for(
        "the source to open the FIFO",
        std::time::Duration::from_secs(60),
        || w.log().contains("FileStreamSourceTask opened FIFO"),
    );
    let status = terminate(&mut child, std::time::Duration::from_secs(10));
    assert!(status.success(), "{status:?}\n{}", w.log());
}

#[test]
fn a_fifo_is_read_to_the_end_of_what_its_writer_wrote() {
    let w = Workdir::new();
    let worker = w.worker("");
    let fifo = w.path("in.fifo");
    mkfifo(&fifo);
    let output = w.path("out.txt");
    let source = w.source("src", &fifo, "t");
    let sink = w.sink("sink", &output, "t");
    let lines = numbered_lines(0, 20_000, WIDTH);
    // The writer's open waits for the worker to open the FIFO for reading, then writes and
    // closes it.
    let writer = std::thread::spawn({
        let fifo = fifo.clone();
        let lines = lines.clone();
        move || {
            use std::io::Write as _;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&fifo)
                .expect("open the FIFO for writing");
            f.write_all(&lines).expect("write to the FIFO");
        }
    });
    let out = w.run_until_idle("2s", &[&worker, &source, &sink]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    writer.join().expect("the writer");
    assert!(
        std::fs::read(&output).unwrap_or_default() == lines,
        "the output is not the FIFO's input:\n{err}"
    );
}
