//! End to end on the embedded log: FileStreamSource → topic → FileStreamSink, with restarts.

use crate::support;

use std::time::Duration;

use support::*;

/// Copies the example job (`worker`, `source`, `sink` and `input.txt`) into `w/examples/` with a
/// free REST port (tests run in parallel), runs it until idle, and returns the output's bytes.
/// The example files name their paths relative to the working directory, as Kafka's do.
fn run_example(
    w: &Workdir,
    [worker, source, sink]: [&str; 3],
    listeners: &str,
    output: &str,
) -> Vec<u8> {
    copy_examples(w, [worker, source, sink, "input.txt"]);
    let worker_path = w.path(&format!("examples/{worker}"));
    let content = std::fs::read_to_string(&worker_path).unwrap();
    // A top-level key goes first (in TOML, later keys belong to the last table).
    std::fs::write(&worker_path, format!("{listeners}\n{content}")).unwrap();
    let out = w.run_until_idle(
        "300ms",
        &[
            &worker_path,
            &w.path(&format!("examples/{source}")),
            &w.path(&format!("examples/{sink}")),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_warns_nothing(&out);
    std::fs::read(w.path(&format!("examples/{output}"))).unwrap()
}

/// Copies the named files of the repository's `examples/` into `w/examples/`, and its
/// `examples/examples` link as it is in the repository (a link to `examples/` itself).
fn copy_examples(w: &Workdir, names: [&str; 4]) {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    std::fs::create_dir_all(w.path("examples")).unwrap();
    for name in names {
        std::fs::copy(examples.join(name), w.path(&format!("examples/{name}"))).unwrap();
    }
    let link = std::fs::read_link(examples.join("examples"))
        .expect("examples/examples is a link, so the examples run from inside examples/");
    std::os::unix::fs::symlink(link, w.path("examples/examples")).unwrap();
}

/// The bundled examples are clean: a run warns about nothing.
fn assert_warns_nothing(out: &std::process::Output) {
    let err = stderr(out);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(" WARN ") || l.contains("warning"))
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn the_readme_example_copies_the_input_to_the_output() {
    let w = Workdir::new();
    let output = run_example(
        &w,
        [
            "worker.properties",
            "file-source.properties",
            "file-sink.properties",
        ],
        "listeners=http://127.0.0.1:0",
        "output.txt",
    );
    assert_eq!(output, std::fs::read(w.path("examples/input.txt")).unwrap());
    // The embedded log lives where the worker file says.
    assert!(w
        .path("examples/connect-rs-data/connect.offsets.json")
        .exists());
}

#[test]
fn the_readme_example_runs_from_inside_examples_on_the_same_files() {
    let w = Workdir::new();
    let names = [
        "worker.properties",
        "file-source.properties",
        "file-sink.properties",
    ];
    let output = run_example(&w, names, "listeners=http://127.0.0.1:0", "output.txt");
    assert_eq!(output, std::fs::read(w.path("examples/input.txt")).unwrap());
    // Lines appended, then the same job from inside examples/ with the files' own names: it
    // reads the same input and data directory, so it copies only the new lines.
    let mut input = std::fs::read(w.path("examples/input.txt")).unwrap();
    input.extend_from_slice(b"appended line 1\nappended line 2\n");
    std::fs::write(w.path("examples/input.txt"), &input).unwrap();
    let mut args = vec!["standalone", "--exit-when-idle=300ms"];
    args.extend(names);
    let run = w.path("run-inside");
    std::fs::create_dir_all(&run).unwrap();
    let out = w
        .command(&args)
        .current_dir(w.path("examples"))
        .stdout(std::fs::File::create(run.join("stdout")).unwrap())
        .stderr(std::fs::File::create(run.join("stderr")).unwrap())
        .status()
        .expect("run connect-rs");
    let err = std::fs::read_to_string(run.join("stderr")).unwrap();
    assert!(out.success(), "{err}");
    assert_eq!(std::fs::read(w.path("examples/output.txt")).unwrap(), input);
    // The same data directory: the source resumed after the lines the first run copied.
    assert!(err.contains("produced 2 records"), "{err}");
    assert!(!w.path("connect-rs-data").exists());
}

#[test]
fn the_toml_example_runs_the_same_job() {
    let w = Workdir::new();
    let output = run_example(
        &w,
        ["worker.toml", "file-source.toml", "file-sink.toml"],
        "listeners = \"http://127.0.0.1:0\"",
        "output-toml.txt",
    );
    assert_eq!(output, std::fs::read(w.path("examples/input.txt")).unwrap());
}

#[test]
fn a_million_lines_copy_byte_identical_and_a_restart_adds_only_the_new_lines() {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, 1_000_000, 100));
    let output = w.path("out.txt");
    let worker = w.worker("");
    let source = w.source("src", &input, "lines");
    let sink = w.sink("dst", &output, "lines");

    let out = w.run_until_idle("500ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::read(&output).unwrap() == std::fs::read(&input).unwrap(),
        "output differs from input"
    );

    // Append 1,000 lines and run again: exactly those are added.
    let more = numbered_lines(1_000_000, 1_000, 100);
    let mut all = std::fs::read(&input).unwrap();
    all.extend_from_slice(&more);
    std::fs::write(&input, &all).unwrap();
    let out = w.run_until_idle("500ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::read(&output).unwrap() == all,
        "second run did not add exactly the new lines"
    );

    // The offsets file records the byte position of the end of the input.
    let offsets: serde_json::Value =
        serde_json::from_slice(&std::fs::read(w.path("data/connect.offsets.json")).unwrap())
            .unwrap();
    assert_eq!(
        offsets["connectors"]["src"][0]["offset"]["position"].as_u64(),
        Some(all.len() as u64)
    );
    assert_eq!(
        offsets["connectors"]["src"][0]["partition"]["filename"].as_str(),
        Some(input.to_str().unwrap())
    );
}

#[test]
fn non_ascii_crlf_and_a_one_mib_line_survive_a_restart_unchanged() {
    let w = Workdir::new();
    let big = "é".repeat(512 * 1024); // 1 MiB of two-byte characters
    let first = format!("grüße 世界 🚀\r\nplain\r\n{big}\nκαλημέρα\rlast-of-first\n");
    let input = w.write("in.txt", &first);
    let output = w.path("out.txt");
    let worker = w.worker("");
    let source = w.source("src", &input, "t");
    let sink = w.sink("dst", &output, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected_first = format!("grüße 世界 🚀\nplain\n{big}\nκαλημέρα\nlast-of-first\n");
    assert_eq!(std::fs::read_to_string(&output).unwrap(), expected_first);

    // Resume after multi-byte content: the byte position must land exactly after it.
    let second = "ñandú ☃\r\nend\n";
    std::fs::write(&input, format!("{first}{second}")).unwrap();
    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        format!("{expected_first}ñandú ☃\nend\n")
    );
}

#[test]
fn sigterm_stops_gracefully_with_a_final_offset_flush() {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, 10_000, 50));
    let output = w.path("out.txt");
    // A flush interval far beyond the test: only the shutdown flush can write offsets.
    let worker = w.worker("offset.flush.interval.ms=3600000");
    let source = w.source("src", &input, "t");
    let sink = w.sink("dst", &output, "t");
    let mut child = w.spawn(&[&worker, &source, &sink]);
    // The sink writes at its flush (as Kafka's does): wait until the topic holds every line.
    let w_arg = worker.display().to_string();
    wait_for("all lines in the topic", Duration::from_secs(30), || {
        let out = w
            .command(&["topics", "--worker", &w_arg, "list"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).contains("t\t0\t10000")
    });
    // And until the sink task has read them all: a stop does not read on (as in Kafka
    // Connect), so a SIGTERM before that would rightly leave the output short.
    let mut port = None;
    wait_for("the REST API to listen", Duration::from_secs(30), || {
        port = support::rest::rest_port(&w.log());
        port.is_some()
    });
    let client = support::http::Client::local(port.unwrap_or_else(|| unreachable!()));
    wait_for(
        "the sink to read every line",
        Duration::from_secs(30),
        || {
            client.get("/metrics").body.lines().any(|l| {
                l.starts_with("kafka_connect_sink_task_metrics_sink_record_read_total{")
                    && l.contains("connector=\"dst\"")
                    && l.ends_with(" 10000")
            })
        },
    );
    let status = terminate(&mut child, Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}");
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&input).unwrap()
    );
    let offsets: serde_json::Value =
        serde_json::from_slice(&std::fs::read(w.path("data/connect.offsets.json")).unwrap())
            .unwrap();
    assert_eq!(
        offsets["connectors"]["src"][0]["offset"]["position"].as_u64(),
        Some(500_000)
    );
    let groups = std::fs::read_to_string(w.path("data/__groups/connect-dst.json")).unwrap();
    assert!(
        groups.contains("10000"),
        "sink group committed last+1 = 10000: {groups}"
    );
}

#[test]
fn the_topics_command_lists_and_reads_the_embedded_log() {
    let w = Workdir::new();
    let input = w.write("in.txt", "alpha\nbeta\ngamma\n");
    let worker = w.worker("");
    let source = w.source("src", &input, "greek");
    let sink = w.sink("dst", &w.path("out.txt"), "greek");
    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));

    let w_arg = worker.display().to_string();
    let list = w
        .command(&["topics", "--worker", &w_arg, "list"])
        .output()
        .unwrap();
    assert!(list.status.success(), "{}", stderr(&list));
    let text = String::from_utf8(list.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["greek", "0", "3"]),
        "{text}"
    );

    let read = w
        .command(&[
            "topics",
            "--worker",
            &w_arg,
            "read",
            "greek",
            "--from-beginning",
            "--max",
            "2",
        ])
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", stderr(&read));
    assert_eq!(
        String::from_utf8(read.stdout).unwrap(),
        "Partition:0\tOffset:0\tNO_HEADERS\tnull\talpha\nPartition:0\tOffset:1\tNO_HEADERS\tnull\tbeta\n"
    );
}

#[test]
fn a_task_that_does_not_stop_is_aborted_after_the_graceful_timeout_and_named() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a\nb\n");
    // Opening a FIFO for writing blocks until a reader comes: the sink task never starts.
    let fifo = w.path("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let worker = w.worker("task.shutdown.graceful.timeout.ms=500");
    let source = w.source("src", &input, "t");
    let sink = w.sink("stuck", &fifo, "t");
    let mut child = w.spawn(&[&worker, &source, &sink]);
    let w_arg = worker.display().to_string();
    wait_for(
        "the source's records in the topic",
        Duration::from_secs(30),
        || {
            let out = w
                .command(&["topics", "--worker", &w_arg, "list"])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).contains("t\t0\t2")
        },
    );
    let status = terminate(&mut child, Duration::from_secs(10));
    assert!(status.success(), "exit status {status:?}");
    let err = w.log();
    assert!(err.contains("timed out"), "{err}");
    assert!(err.contains("stuck-0"), "the straggler is named: {err}");
    // The healthy source still flushed its offsets.
    let offsets = std::fs::read_to_string(w.path("data/connect.offsets.json")).unwrap();
    assert!(offsets.contains("\"position\": 4"), "{offsets}");
}

#[test]
fn the_source_reads_stdin_when_no_file_is_set() {
    let w = Workdir::new();
    let worker = w.worker("");
    let source = w.write(
        "src.properties",
        "name=src\nconnector.class=FileStreamSource\ntopic=t\n",
    );
    let output = w.path("out.txt");
    let sink = w.sink("dst", &output, "t");
    let mut child = w
        .command(&[
            "standalone",
            "--exit-when-idle=300ms",
            worker.to_str().unwrap(),
            source.to_str().unwrap(),
            sink.to_str().unwrap(),
        ])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        "from stdin\nsecond ünïcode line\n".as_bytes(),
    )
    .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        "from stdin\nsecond ünïcode line\n"
    );
}

#[test]
fn json_converter_writes_kafka_connects_envelope_to_the_topic() {
    let w = Workdir::new();
    let input = w.write("in.txt", "alpha\n{\"quoted\": 1}\n");
    let worker = w.write(
        "worker.properties",
        format!(
            "key.converter=org.apache.kafka.connect.json.JsonConverter\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n\
             embedded.log.dir={}\n",
            w.path("data").display()
        ),
    );
    let source = w.source("src", &input, "json");
    let output = w.path("out.txt");
    let sink = w.sink("dst", &output, "json");
    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    let w_arg = worker.display().to_string();
    let read = w
        .command(&[
            "topics",
            "--worker",
            &w_arg,
            "read",
            "json",
            "--from-beginning",
            "--max",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(read.stdout).unwrap(),
        "Partition:0\tOffset:0\tNO_HEADERS\tnull\t{\"schema\":{\"type\":\"string\",\"optional\":false},\"payload\":\"alpha\"}\n\
         Partition:0\tOffset:1\tNO_HEADERS\tnull\t{\"schema\":{\"type\":\"string\",\"optional\":false},\"payload\":\"{\\\"quoted\\\": 1}\"}\n"
    );
    // The sink reads the envelope back into the original strings.
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        "alpha\n{\"quoted\": 1}\n"
    );
}

/// The worker's state is private to its user: after a run over REST (so the configurations
/// file is written) every file and directory under the embedded log, the offsets file and the
/// configurations file (with the directories connect-rs created for them) is 0600 / 0700; a
/// data directory an older version left readable (0644 files, 0755 directories) is made
/// private when the log is opened again.
#[test]
fn every_file_and_directory_of_the_workers_state_is_private_to_its_user() {
    let w = Workdir::new();
    support::chmod(w.dir.path(), 0o755);
    let offsets = w.path("state/offsets/connect.offsets");
    let configs = w.path("state/configs/connect.configs");
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nconfig.storage.file.filename={}\noffset.flush.interval.ms=100",
        offsets.display(),
        configs.display()
    ));
    let input = w.write("in.txt", numbered_lines(0, 100, 40));
    let output = w.path("out.txt");
    let running = rest::start(&w, &[&worker]);
    for (name, class, key, file) in [
        ("src", "FileStreamSource", "topic", &input),
        ("dst", "FileStreamSink", "topics", &output),
    ] {
        let created = running.client.post(
            "/connectors",
            &serde_json::json!({"name": name, "config": {
                "connector.class": class, "tasks.max": "1", key: "lines",
                "file": file.display().to_string()}}),
        );
        assert_eq!(created.status, 201, "{}", created.body);
    }
    wait_for("100 lines copied", Duration::from_secs(60), || {
        line_count(&output) == 100
    });
    let mut running = running;
    assert!(terminate(&mut running.child, Duration::from_secs(30)).success());
    let data = w.path("data");
    assert!(data.join("lines-0").exists());
    assert_eq!(not_private(&data), Vec::<String>::new());
    assert_eq!(not_private(&w.path("state")), Vec::<String>::new());
    assert!(offsets.exists() && configs.exists());

    // As an older version left it: readable by everyone.
    let chmod_r = std::process::Command::new("chmod")
        .args(["-R", "go+rX"])
        .arg(&data)
        .status()
        .unwrap();
    assert!(chmod_r.success());
    chmod(&data, 0o700);
    assert_ne!(not_private(&data), Vec::<String>::new());
    let (code, err) = w.run_checked(&[&worker]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(not_private(&data), Vec::<String>::new());
}
