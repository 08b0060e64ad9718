//! `connect-rs validate` and `connect-rs plugins` against the real binary: exit codes, text
//! output, and JSON equal to what the REST API of a running standalone worker answers.

mod support;

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};
use support::rest::start;
use support::*;

fn run(w: &Workdir, args: &[&str]) -> Output {
    let out = w.command(args).output().expect("run connect-rs");
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    out
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The config of a properties file as the JSON body of a REST request.
fn body_of(text: &str) -> Value {
    let map: serde_json::Map<String, Value> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), Value::String(v.to_owned())))
        .collect();
    Value::Object(map)
}

const BAD_SINK: &str = "name=bad\nconnector.class=FileStreamSink\ntasks.max=abc\nfile=out.txt\n";

#[test]
fn a_valid_file_is_ok_and_exits_0() {
    let w = Workdir::new();
    let source = w.source("src", &w.path("in.txt"), "t");
    let toml = w.write(
        "sink.toml",
        "name = \"sink\"\nconnector.class = \"FileStreamSink\"\ntasks.max = 1\n\
         file = \"out.txt\"\ntopics = \"t\"\n",
    );
    let out = run(&w, &["validate", path_str(&source), path_str(&toml)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("{}: OK", source.display())),
        "{text}"
    );
    assert!(text.contains(&format!("{}: OK", toml.display())), "{text}");
}

#[test]
fn invalid_files_exit_3_and_name_the_key() {
    let w = Workdir::new();
    let unknown = w.write(
        "unknown.properties",
        "name=u\nconnector.class=NoSuchConnector\n",
    );
    let missing = w.write(
        "missing.properties",
        "name=m\nconnector.class=FileStreamSource\nfile=in.txt\n",
    );
    let bad = w.write("bad.properties", BAD_SINK);
    let good = w.source("good", &w.path("in.txt"), "t");
    let out = run(
        &w,
        &[
            "validate",
            path_str(&good),
            path_str(&unknown),
            path_str(&missing),
            path_str(&bad),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(&format!("{}: OK", good.display())), "{text}");
    assert!(
        text.contains(&format!(
            "{}:2: connector.class: Failed to find any class that implements Connector and \
             which name matches NoSuchConnector",
            unknown.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{}: topic: Missing required configuration \"topic\" which has no default value.",
            missing.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{}:3: tasks.max: Invalid value abc for configuration tasks.max",
            bad.display()
        )),
        "{text}"
    );
}

#[test]
fn unreadable_connector_file_or_bad_worker_file_exit_2() {
    let w = Workdir::new();
    let good = w.source("good", &w.path("in.txt"), "t");
    let out = run(&w, &["validate", path_str(&w.path("absent.properties"))]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("absent.properties"),
        "{}",
        stderr(&out)
    );

    let worker = w.write("worker.properties", "key.converter=NoSuchConverter\n");
    let out = run(
        &w,
        &["validate", "--worker", path_str(&worker), path_str(&good)],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn json_equals_the_rest_validate_body_of_a_running_worker() {
    let w = Workdir::new();
    let worker = w.worker("");
    let bad = w.write("bad.properties", BAD_SINK);
    let good_text = "name=good\nconnector.class=FileStreamSource\ntasks.max=1\nfile=in.txt\n\
                     topic=t\ntransforms=r\ntransforms.r.type=RegexRouter\n\
                     transforms.r.regex=(.*)\ntransforms.r.replacement=$1-x\n";
    let good = w.write("good.properties", good_text);
    let unknown_text = "name=u\nconnector.class=NoSuchConnector\n";
    let unknown = w.write("unknown.properties", unknown_text);

    let out = run(
        &w,
        &[
            "validate",
            "--worker",
            path_str(&worker),
            "--format",
            "json",
            path_str(&bad),
            path_str(&good),
            path_str(&unknown),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let bodies: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON body per line"))
        .collect();
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[0]["error_count"], json!(2), "{}", bodies[0]);
    assert_eq!(bodies[1]["error_count"], json!(0), "{}", bodies[1]);

    let run_worker = start(&w, &[&worker]);
    let rest = |plugin: &str, text: &str| {
        run_worker
            .client
            .put(
                &format!("/connector-plugins/{plugin}/config/validate"),
                &body_of(text),
            )
            .json()
    };
    assert_eq!(bodies[0], rest("FileStreamSink", BAD_SINK));
    assert_eq!(bodies[1], rest("FileStreamSource", good_text));
    assert_eq!(bodies[2], rest("NoSuchConnector", unknown_text));
}

#[test]
fn plugins_json_equals_rest_and_text_lists_aliases_and_providers() {
    let w = Workdir::new();
    let out = run(&w, &["plugins", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let offline: Value = serde_json::from_str(&stdout(&out)).expect("JSON");

    let text_out = run(&w, &["plugins"]);
    assert_eq!(text_out.status.code(), Some(0), "{}", stderr(&text_out));
    let text = stdout(&text_out);
    let line = |class: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(class))
            .unwrap_or_else(|| panic!("no {class} in {text}"))
            .to_owned()
    };
    let source = line("org.apache.kafka.connect.file.FileStreamSourceConnector");
    assert!(source.starts_with("source "), "{source}");
    assert!(
        source.contains("FileStreamSource, FileStreamSourceConnector"),
        "{source}"
    );
    let provider = line("org.apache.kafka.common.config.provider.FileConfigProvider");
    assert!(provider.starts_with("config_provider "), "{provider}");
    assert!(provider.ends_with("FileConfigProvider, File"), "{provider}");

    let worker = w.worker("");
    let run_worker = start(&w, &[&worker]);
    let rest = run_worker
        .client
        .get("/connector-plugins?connectorsOnly=false")
        .json();
    assert_eq!(offline, rest);
    // Every REST plugin is in the text listing too.
    for p in rest.as_array().expect("array") {
        let class = p["class"].as_str().expect("class");
        assert!(text.contains(class), "{class} missing from {text}");
    }
}
