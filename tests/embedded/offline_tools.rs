//! `connect-rs validate`, `plugins`, `completions`, `man` and `topics` against the real binary:
//! exit codes, text output, JSON equal to what the REST API of a running standalone worker
//! answers, completion scripts a shell accepts, man pages groff renders without warnings,
//! damage `topics list` reports.

use crate::support;

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
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(doc["valid"], json!(false), "{doc}");
    assert_eq!(doc["problems"], json!([]), "{doc}");
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["file"], json!(path_str(&bad)));
    assert_eq!(files[0]["valid"], json!(false));
    assert_eq!(files[1]["valid"], json!(true));
    assert_eq!(files[1]["warnings"], json!([]));
    let bodies: Vec<Value> = files.iter().map(|f| f["body"].clone()).collect();
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

#[test]
fn validate_reports_loader_warnings_and_refuses_duplicate_names() {
    let w = Workdir::new();
    let a = w.write(
        "a.properties",
        "name=same\nconnector.class=FileStreamSource\ntasks.max=1\nfile=in.txt\ntopic=t\n\
         tpoic=x\ntasks.max=1\n",
    );
    let b = w.sink("b", &w.path("out.txt"), "t");
    let c = w.write(
        "c.json",
        r#"{"name": "same", "config": {"connector.class": "FileStreamSink", "topics": "t", "file": "o"}}"#,
    );
    let out = run(&w, &["validate", path_str(&a), path_str(&b)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (af, bf) = (a.display(), b.display());
    assert_eq!(
        stdout(&out),
        format!(
            "{af}: OK\n  {af}:6: warning: tpoic: The configuration 'tpoic' was supplied but \
             isn't a known config. Did you mean 'topic'?\n  {af}:7: warning: tasks.max: \
             Duplicate key: the value on line 3 is overridden\n{bf}: OK\n"
        )
    );

    let out = run(&w, &["validate", path_str(&a), path_str(&c)]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.ends_with(&format!(
            "Connector name 'same' is used by more than one file: {af} and {}. Connector names \
             must be unique; rename one of them.\n",
            c.display()
        )),
        "{text}"
    );
    assert!(
        stderr(&out).contains("connector names not unique"),
        "{}",
        stderr(&out)
    );

    let out = run(
        &w,
        &["validate", "--format", "json", path_str(&a), path_str(&c)],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(doc["valid"], json!(false));
    assert_eq!(doc["files"][0]["valid"], json!(true));
    assert_eq!(
        doc["files"][0]["warnings"][0],
        json!({
            "file": path_str(&a),
            "line": 6,
            "key": "tpoic",
            "message": "The configuration 'tpoic' was supplied but isn't a known config. Did you mean 'topic'?",
        })
    );
    assert_eq!(doc["problems"].as_array().map(Vec::len), Some(1), "{doc}");
}

#[test]
fn plugins_text_gives_every_plugin_a_version() {
    let w = Workdir::new();
    let out = run(&w, &["plugins"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let version = env!("CARGO_PKG_VERSION");
    let mut kinds = std::collections::BTreeSet::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.get(2), Some(&version), "{line}");
        kinds.insert(fields[0].to_owned());
    }
    let expected = [
        "config_provider",
        "converter",
        "header_converter",
        "predicate",
        "sink",
        "source",
        "transformation",
    ];
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), expected);
}

const SUBCOMMANDS: [&str; 9] = [
    "standalone",
    "distributed",
    "topics",
    "dlq",
    "validate",
    "plugins",
    "doctor",
    "completions",
    "man",
];

#[test]
fn completions_for_every_shell_name_the_subcommands() {
    let w = Workdir::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&w, &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell}: no {sub} in\n{script}");
        }
        if shell == "bash" {
            let file = w.write("connect-rs.bash", &script);
            let check = std::process::Command::new("bash")
                .arg("-n")
                .arg(&file)
                .output()
                .expect("bash");
            assert!(check.status.success(), "bash -n: {}", stderr(&check));
        }
    }
    let out = run(&w, &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(1));
}

/// groff's warnings about a page (all warnings on, output discarded).
fn groff_warnings(page: &Path) -> String {
    let out = std::process::Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(page)
        .output()
        .expect("groff (apt package groff-base) is needed to check the man pages");
    assert!(out.status.success(), "groff failed on {}", page.display());
    stderr(&out)
}

#[test]
fn man_pages_render_without_warnings() {
    let w = Workdir::new();
    let out = run(&w, &["man"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = stdout(&out);
    for section in [
        ".TH connect-rs 1",
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH SUBCOMMANDS",
        ".SH VERSION",
    ] {
        assert!(page.contains(section), "no {section} in\n{page}");
    }
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("connect\\-rs\\-{sub}(1)")),
            "no {sub} in\n{page}"
        );
    }
    let top = w.write("stdout.1", &page);
    assert_eq!(groff_warnings(&top), "");

    let dir = w.path("man");
    let out = run(&w, &["man", "--out", path_str(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(listed[0], dir.join("connect-rs.1").display().to_string());
    for name in SUBCOMMANDS
        .iter()
        .map(|s| format!("connect-rs-{s}.1"))
        .chain([
            "connect-rs-topics-read.1".to_owned(),
            "connect-rs-dlq-replay.1".to_owned(),
        ])
    {
        let path = dir.join(&name);
        assert!(
            listed.contains(&path.display().to_string()),
            "{name} not listed"
        );
        assert_eq!(groff_warnings(&path), "", "{name}");
    }
    assert_eq!(
        std::fs::read(dir.join("connect-rs.1")).unwrap(),
        page.as_bytes()
    );
    let doctor = std::fs::read_to_string(dir.join("connect-rs-doctor.1")).unwrap();
    assert!(doctor.contains("restart\\-tolerance"), "{doctor}");
}

#[test]
fn topics_list_reports_a_partition_whose_records_stop_at_a_corrupt_one() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", numbered_lines(0, 1000, WIDTH));
    let source = w.source("src", &input, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source]);
    assert!(out.status.success(), "{}", stderr(&out));
    let worker = path_str(&worker);
    let list = run(&w, &["topics", "--worker", worker, "list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    assert_eq!(stdout(&list), "t\t0\t1000\n");

    // One byte of record 500 changes: its CRC no longer matches.
    let segment = w.path("data/t-0/00000000000000000000.log");
    let mut bytes = std::fs::read(&segment).unwrap();
    let at = bytes
        .windows(15)
        .position(|win| win == b"line-0000000500")
        .unwrap();
    bytes[at + 20] ^= 0x01;
    std::fs::write(&segment, &bytes).unwrap();

    let list = run(&w, &["topics", "--worker", worker, "list"]);
    let err = stderr(&list);
    assert_eq!(list.status.code(), Some(2), "{err}");
    assert!(
        err.contains("corrupt record in topic t partition 0 at offset 500")
            && err.contains(&segment.display().to_string())
            && err.contains("byte ")
            && err.contains("CRC mismatch"),
        "{err}"
    );
    // No short end offset passed off as the partition's end.
    assert_eq!(stdout(&list), "", "{err}");
}

#[test]
fn topics_takes_the_worker_file_after_the_action_and_says_when_the_topics_are_in_kafka() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "a\nb\n");
    let source = w.source("src", &input, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source]);
    assert!(out.status.success(), "{}", stderr(&out));
    let worker = path_str(&worker);
    let list = run(&w, &["topics", "list", "--worker", worker]);
    assert!(list.status.success(), "{}", stderr(&list));
    assert_eq!(stdout(&list), "t\t0\t2\n");
    let read = run(
        &w,
        &[
            "topics",
            "read",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "200",
            "--worker",
            worker,
        ],
    );
    assert!(read.status.success(), "{}", stderr(&read));
    assert_eq!(stdout(&read).lines().count(), 2, "{}", stdout(&read));

    let none = run(&w, &["topics", "list"]);
    assert_eq!(none.status.code(), Some(1), "{}", stderr(&none));
    assert!(
        stderr(&none).contains("--worker WORKER_FILE"),
        "{}",
        stderr(&none)
    );

    let kafka = w.write(
        "kafka.properties",
        "bootstrap.servers=broker-1:9092,broker-2:9092\n\
         key.converter=org.apache.kafka.connect.storage.StringConverter\n\
         value.converter=org.apache.kafka.connect.storage.StringConverter\n",
    );
    for action in [&["list"][..], &["read", "t", "--from-beginning"][..]] {
        let mut args = vec!["topics", "--worker", path_str(&kafka)];
        args.extend_from_slice(action);
        let out = run(&w, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{action:?}: {err}");
        assert!(
            err.contains("are in Kafka (bootstrap.servers=broker-1:9092,broker-2:9092)")
                && err.contains("kafka-topics.sh --bootstrap-server broker-1:9092 --list"),
            "{action:?}: {err}"
        );
    }
}
