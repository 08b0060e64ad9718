//! Bad input: each case is a clear one-screen error naming the file, line or key, with Kafka
//! Connect's exit code, no panic, and no file damaged.

use crate::support;

use support::*;

/// Runs the job and returns (exit code, stderr), checking the error is short and panic-free.
fn run_failing(w: &Workdir, files: &[&std::path::Path]) -> (i32, String) {
    let out = w.run_until_idle("300ms", files);
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.lines().count() <= 25,
        "error is longer than one screen:\n{err}"
    );
    (out.status.code().expect("exit code"), err)
}

#[test]
fn a_malformed_properties_line_names_file_and_line() {
    let w = Workdir::new();
    let worker = w.worker("");
    let bad = w.write(
        "bad.properties",
        "name=x\nconnector.class=FileStreamSource\ntopic=t\nfile=\\uZZZZ\n",
    );
    let (code, err) = run_failing(&w, &[&worker, &bad]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("bad.properties"), "{err}");
    assert!(err.contains("line 4"), "{err}");
}

#[test]
fn an_unknown_connector_class_lists_the_available_ones() {
    let w = Workdir::new();
    let worker = w.worker("");
    let bad = w.write(
        "c.properties",
        "name=x\nconnector.class=FileStreamSorce\ntopic=t\n",
    );
    let (code, err) = run_failing(&w, &[&worker, &bad]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("FileStreamSorce"), "{err}");
    assert!(
        err.contains("org.apache.kafka.connect.file.FileStreamSourceConnector"),
        "{err}"
    );
    assert!(err.contains("c.properties"), "{err}");
}

#[test]
fn a_missing_required_key_is_named() {
    let w = Workdir::new();
    let worker = w.worker("");
    let bad = w.write(
        "c.properties",
        "name=x\nconnector.class=FileStreamSource\nfile=in.txt\n",
    );
    let (code, err) = run_failing(&w, &[&worker, &bad]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("c.properties"), "{err}");
    assert!(
        err.contains("Missing required configuration \"topic\""),
        "{err}"
    );
}

#[test]
fn a_wrong_type_names_file_line_and_key_and_all_problems_are_listed() {
    let w = Workdir::new();
    let worker = w.worker("");
    let bad = w.write(
        "c.properties",
        "name=x\nconnector.class=FileStreamSource\ntopic=t\ntasks.max=abc\nbatch.size=-5\n",
    );
    let (code, err) = run_failing(&w, &[&worker, &bad]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("line 4"), "{err}");
    assert!(
        err.contains("Invalid value abc for configuration tasks.max"),
        "{err}"
    );
    assert!(err.contains("line 5"), "{err}");
    assert!(err.contains("batch.size"), "{err}");
}

#[test]
fn a_bad_worker_file_is_a_start_up_failure() {
    let w = Workdir::new();
    let worker = w.write(
        "worker.properties",
        "value.converter=StringConverter\noffset.flush.interval.ms=soon\n",
    );
    let c = w.source("src", &w.path("in.txt"), "t");
    let (code, err) = run_failing(&w, &[&worker, &c]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("worker.properties"), "{err}");
    assert!(err.contains("key.converter"), "{err}");
    assert!(err.contains("offset.flush.interval.ms"), "{err}");
}

#[test]
fn an_unreadable_input_file_is_named() {
    let w = Workdir::new();
    let worker = w.worker("");
    // A directory cannot be read as a file (permissions do not stop root, which CI runs as).
    std::fs::create_dir_all(w.path("in-dir")).unwrap();
    let c = w.source("src", &w.path("in-dir"), "t");
    let (code, err) = run_failing(&w, &[&worker, &c]);
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains(&w.path("in-dir").display().to_string()),
        "{err}"
    );
}

#[test]
fn a_corrupt_offsets_file_stops_start_up_and_is_left_untouched() {
    let w = Workdir::new();
    let worker = w.worker("");
    let corrupt = b"{\"version\":1,\"connectors\":{\"src\":[{\"partition\"".to_vec();
    let offsets = w.write("data/connect.offsets.json", &corrupt);
    let c = w.source("src", &w.write("in.txt", "a\n"), "t");
    let (code, err) = run_failing(&w, &[&worker, &c]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&offsets.display().to_string()), "{err}");
    assert_eq!(std::fs::read(&offsets).unwrap(), corrupt);
}

#[test]
fn usage_errors_exit_1() {
    let w = Workdir::new();
    let out = w.command(&["standalone"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = w
        .command(&["standalone", "--exit-when-idle=soon", "w", "c"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("500ms"), "{}", stderr(&out));
}

/// `tasks.max` at `i32::MAX` is valid (Kafka Connect accepts any int >= 1, and `tasks.max` is
/// only a maximum), but nothing may be sized by it: a FileStreamSource → FileStreamSink job
/// with it copies its file, from files, over REST and under `doctor`, and the worker lives on.
#[test]
fn tasks_max_at_int_max_is_a_maximum_not_an_allocation() {
    const HUGE: &str = "tasks.max=2147483647";
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "alpha\nbeta\ngamma\n");
    let output = w.path("out.txt");
    let with_huge = |path: std::path::PathBuf| {
        let text = std::fs::read_to_string(&path).unwrap();
        w.write(
            path.file_name().unwrap().to_str().unwrap(),
            text.replace("tasks.max=1", HUGE),
        )
    };
    let source = with_huge(w.source("src", &input, "t"));
    let sink = with_huge(w.sink("snk", &output, "t"));

    let out = w.run_to_exit(&[
        "validate",
        "--worker",
        worker.to_str().unwrap(),
        source.to_str().unwrap(),
        sink.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out = w.run_to_exit(&[
        "doctor",
        worker.to_str().unwrap(),
        source.to_str().unwrap(),
        sink.to_str().unwrap(),
    ]);
    let report = stdout(&out) + &stderr(&out);
    assert!(!report.contains("memory allocation"), "{report}");
    assert!(
        report.contains(&format!(
            "tasks.max is 2147483647 but FileStreamSink splits this configuration into {} tasks",
            connect_api::MAX_IDENTICAL_TASKS
        )),
        "{report}"
    );
    assert!(
        report.contains("but FileStreamSource splits this configuration into 1 task"),
        "{report}"
    );

    let (code, err) = w.run_checked(&[&worker, &source, &sink]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        "alpha\nbeta\ngamma\n"
    );

    // Over REST, on a worker that keeps running.
    let r = Workdir::new();
    let worker = r.worker("");
    let input = r.write("in.txt", "one\ntwo\n");
    let output = r.path("out.txt");
    let running = rest::start(&r, &[&worker]);
    let c = &running.client;
    for (name, config) in [
        (
            "src",
            serde_json::json!({"connector.class": "FileStreamSource", "tasks.max": "2147483647",
                "file": input.display().to_string(), "topic": "t"}),
        ),
        (
            "snk",
            serde_json::json!({"connector.class": "FileStreamSink", "tasks.max": "2147483647",
                "file": output.display().to_string(), "topics": "t"}),
        ),
    ] {
        let created = c.post(
            "/connectors",
            &serde_json::json!({"name": name, "config": config}),
        );
        assert_eq!(created.status, 201, "{}", created.body);
    }
    wait_for("the copy over REST", RUN_TIMEOUT, || {
        std::fs::read_to_string(&output).is_ok_and(|t| t == "one\ntwo\n")
    });
    let tasks = c.get("/connectors/snk/tasks").json();
    assert_eq!(
        tasks.as_array().map(Vec::len),
        Some(connect_api::MAX_IDENTICAL_TASKS),
        "{tasks}"
    );
    assert_eq!(c.get("/").status, 200, "{}", r.log());
}

/// A topic name Kafka refuses (`../../../evil`, `a/b`, 300 characters) is refused before
/// anything runs, by `validate` and by a standalone start, naming file, line and key, with
/// exit code 3 as every invalid connector file; nothing is written under the names.
#[test]
fn topic_names_kafka_refuses_are_refused_before_anything_runs() {
    let w = Workdir::new();
    let worker = w.worker("");
    let input = w.write("in.txt", "a\n");
    let long = "x".repeat(300);
    let cases = [
        (
            w.source("evil", &input, "../../../evil"),
            5,
            "topic: Topic name is invalid: '../../../evil' contains one or more characters \
             other than ASCII alphanumerics, '.', '_' and '-'"
                .to_owned(),
        ),
        (
            w.source("long", &input, &long),
            5,
            format!(
                "topic: Topic name is invalid: the length of '{long}' is longer than the max \
                 allowed length 249"
            ),
        ),
        (
            w.sink("slash", &w.path("out.txt"), "ok,a/b"),
            5,
            "topics: Topic name is invalid: 'a/b' contains".to_owned(),
        ),
        (
            w.write(
                "dlq.properties",
                "name=dlq\nconnector.class=FileStreamSink\ntopics=ok\n\
                 errors.deadletterqueue.topic.name=..\n",
            ),
            4,
            "errors.deadletterqueue.topic.name: Topic name is invalid: '..' is not allowed"
                .to_owned(),
        ),
    ];
    for (file, line, message) in &cases {
        let name = file.file_name().unwrap().to_str().unwrap();
        let expected = format!("{name}:{line}: {message}");
        let out = w.run_to_exit(&[
            "validate",
            "--worker",
            worker.to_str().unwrap(),
            file.to_str().unwrap(),
        ]);
        let report = stdout(&out) + &stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{report}");
        assert!(report.contains(&expected), "{expected}\n{report}");

        let (code, err) = run_failing(&w, &[&worker, file]);
        assert_eq!(code, 3, "{err}");
        assert!(
            err.contains(&format!("Invalid configuration in {}", file.display())),
            "{err}"
        );
        assert!(
            err.contains(&format!("line {line}: {message}")),
            "{message}\n{err}"
        );
    }
    assert!(!w.path("evil").exists() && !w.path("data").join("evil").exists());
}

/// `connector.class.denylist` / `connector.class.allowlist`: a connector file of a refused
/// connector stops start-up (exit 3) naming the file, `connector.class` and the worker key that
/// refuses it, before anything runs (its input file is never read, its output never created);
/// `validate` refuses it the same way; an entry naming no connector is a worker file error
/// (exit 2) on its key and line, with "Did you mean".
#[test]
fn a_connector_the_worker_refuses_stops_start_up_naming_file_and_key() {
    let w = Workdir::new();
    let secret = w.write("secret.txt", "top secret\n");
    let source = w.source("src", &secret, "t");
    let sink = w.sink("snk", &w.path("copy.txt"), "t");
    let worker = w.worker("connector.class.denylist=FileStreamSource,FileStreamSink");
    let (code, err) = run_failing(&w, &[&worker, &source, &sink]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(&format!(
            "Invalid configuration in {}: connector.class: Connector FileStreamSource \
             (org.apache.kafka.connect.file.FileStreamSourceConnector) is not allowed on this \
             worker: the worker's connector.class.denylist names it. Allowed: \
             JdbcSinkConnector (io.confluent.connect.jdbc.JdbcSinkConnector), \
             JdbcSourceConnector (io.confluent.connect.jdbc.JdbcSourceConnector)",
            source.display()
        )),
        "{err}"
    );
    assert!(!err.contains("top secret"), "{err}");
    assert!(!w.path("copy.txt").exists());

    let out = w
        .command(&[
            "validate",
            "--worker",
            worker.to_str().unwrap(),
            sink.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "connector.class: Connector FileStreamSink \
             (org.apache.kafka.connect.file.FileStreamSinkConnector) is not allowed on this \
             worker: the worker's connector.class.denylist names it."
        ),
        "{}",
        stdout(&out)
    );

    let worker = w.worker("connector.class.allowlist=JdbcSource");
    let (code, err) = run_failing(&w, &[&worker, &source]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(
            "is not allowed on this worker: the worker's connector.class.allowlist does not \
             name it. Allowed: JdbcSourceConnector (io.confluent.connect.jdbc.JdbcSourceConnector)"
        ),
        "{err}"
    );

    let worker = w.worker("connector.class.denylist=FileStreamSorce");
    let (code, err) = run_failing(&w, &[&worker, &source]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "line 5: connector.class.denylist: Failed to find any class that implements \
             Connector and which name matches FileStreamSorce. Did you mean 'FileStreamSource'?"
        ),
        "{err}"
    );
}

/// As PostgreSQL with its data directory: connect-rs does not start on an embedded log
/// directory other users can write, names it, its mode and the fix, and writes nothing in it.
#[test]
fn a_data_directory_other_users_can_write_is_refused_and_nothing_is_written() {
    let w = Workdir::new();
    let worker = w.worker("");
    let c = w.source("src", &w.write("in.txt", "a\n"), "t");
    let data = w.path("data");
    std::fs::create_dir(&data).unwrap();
    for mode in [0o777, 0o770] {
        chmod(&data, mode);
        let (code, err) = run_failing(&w, &[&worker, &c]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!(
                "The embedded log directory {} can be written by other users (mode {mode:04o})",
                data.display()
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!("Run `chmod 700 {}`", data.display())),
            "{err}"
        );
        assert_eq!(
            std::fs::read_dir(&data).unwrap().count(),
            0,
            "nothing written"
        );
    }
    // Readable by others is the operator's choice: what connect-rs writes in it is private.
    chmod(&data, 0o755);
    let (code, err) = run_failing(&w, &[&worker, &c]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mode(&data), 0o755);
    assert_eq!(not_private(&data.join("t-0")), Vec::<String>::new());
}

/// A state file outside the data directory may live in a sticky directory others can write
/// (as `/tmp`, Kafka Connect's example `offset.storage.file.filename=/tmp/connect.offsets`),
/// not in one where they could replace it.
#[test]
fn an_offsets_file_in_a_directory_others_can_replace_it_in_is_refused() {
    let w = Workdir::new();
    let shared = w.path("shared");
    std::fs::create_dir(&shared).unwrap();
    let offsets = shared.join("connect.offsets");
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}",
        offsets.display()
    ));
    let c = w.source("src", &w.write("in.txt", "a\n"), "t");
    chmod(&shared, 0o777);
    let (code, err) = run_failing(&w, &[&worker, &c]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{} can be written by other users (mode 0777)",
            shared.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("`chmod go-w {}`", shared.display())),
        "{err}"
    );
    assert!(!offsets.exists());
    chmod(&shared, 0o1777);
    let (code, err) = run_failing(&w, &[&worker, &c]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mode(&offsets), 0o600);
}
