//! `connect-rs doctor` against the real binary: each mistake it knows is flagged on a file that
//! has it (output bytes and exit code asserted), a clean set-up gives no output and exit 0, and
//! the compaction of internal topics is checked against the real broker of the harness.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};
use support::kafka::{broker, Broker};
use support::*;

fn run(w: &Workdir, args: &[&str]) -> Output {
    let out = w.command(args).output().expect("run connect-rs");
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    out
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A work dir outside the temporary directories, so that the embedded log and offsets file
/// of its worker files are not flagged as temporary storage: in cargo's target directory, or
/// under `$HOME/.cache` when the checkout itself lives under a temporary directory.
fn persistent_workdir() -> Workdir {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let tmpdir = std::env::var_os("TMPDIR").filter(|t| !t.is_empty());
    let temporary = ["/tmp", "/var/tmp", "/dev/shm"]
        .iter()
        .any(|t| target.starts_with(t))
        || tmpdir.is_some_and(|t| target.starts_with(t));
    let base = if temporary {
        Path::new(&std::env::var_os("HOME").expect("HOME")).join(".cache/connect-rs-tests")
    } else {
        target.to_path_buf()
    };
    std::fs::create_dir_all(&base).expect("work dir base");
    Workdir {
        dir: tempfile::tempdir_in(base).expect("temp dir"),
    }
}

const FIX_WARNING: &str = "Remove the key or correct its name: as written the worker ignores \
                           it (or a later line overrides it).";

#[test]
fn a_clean_set_up_prints_nothing_and_exits_0() {
    let w = persistent_workdir();
    let worker = w.worker("offset.flush.interval.ms=60000");
    let source = w.source("src", &w.path("in.txt"), "t");
    let sink = w.write(
        "sink.properties",
        "name=sink\nconnector.class=FileStreamSink\ntasks.max=3\nfile=out.txt\ntopics=t\n\
         errors.tolerance=all\nerrors.deadletterqueue.topic.name=dlq\n",
    );
    let out = run(&w, &["doctor", s(&worker), s(&source), s(&sink)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");

    let out = run(
        &w,
        &[
            "doctor",
            "--format",
            "json",
            s(&worker),
            s(&source),
            s(&sink),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let body: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(
        body,
        json!({"findings": [], "errors": 0, "warnings": 0, "notes": 0})
    );
}

#[test]
fn the_bundled_examples_are_clean() {
    let w = persistent_workdir();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    std::fs::create_dir_all(w.path("examples")).unwrap();
    for entry in std::fs::read_dir(&examples).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), w.path("examples").join(entry.file_name())).unwrap();
        }
    }
    for set in [
        [
            "worker.properties",
            "file-source.properties",
            "file-sink.properties",
        ],
        ["worker.toml", "file-source.toml", "file-sink.toml"],
        [
            "worker-distributed.properties",
            "file-source.properties",
            "file-sink.properties",
        ],
    ] {
        let files: Vec<String> = set.iter().map(|f| format!("examples/{f}")).collect();
        let mut args = vec!["doctor"];
        args.extend(files.iter().map(String::as_str));
        let out = run(&w, &args);
        assert_eq!(out.status.code(), Some(0), "{set:?}: {}", stdout(&out));
        assert_eq!(stdout(&out), "", "{set:?}");
    }
}

#[test]
fn without_exactly_once_sources_the_flush_warning_says_sources_re_deliver() {
    let w = persistent_workdir();
    let worker =
        w.worker("offset.flush.interval.ms=900000\nembedded.log.exactly.once.source=false");
    let out = run(&w, &["doctor", s(&worker)]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "{}:5: warning: offset.flush.interval.ms: Offsets are committed every 15m: after a \
             crash, sources re-deliver and sinks re-process up to 15m of records, more than the \
             restart tolerance of 5m.\n  fix: Set offset.flush.interval.ms to at most 300000 \
             (or pass a larger --restart-tolerance if that much redone work is fine).\n\
             0 errors, 1 warning\n",
            worker.display()
        )
    );
}

#[test]
fn warnings_only_exit_5_with_every_finding_spelled_out() {
    let w = persistent_workdir();
    let worker = w.worker("offset.flush.interval.ms=900000\nembeded.log.dir=x");
    let source = w.write(
        "src.properties",
        "name=src\nconnector.class=FileStreamSource\ntasks.max=4\nfile=in.txt\ntopic=t\n",
    );
    let sink = w.write(
        "sink.properties",
        "name=sink\nconnector.class=FileStreamSink\ntasks.max=1\nfile=out.txt\ntopics=t\n\
         errors.tolerance=all\ntpoic=x\n",
    );
    let out = run(&w, &["doctor", s(&worker), s(&source), s(&sink)]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let (wf, sf, kf) = (
        worker.display().to_string(),
        source.display().to_string(),
        sink.display().to_string(),
    );
    let expected = format!(
        "{wf}:6: warning: embeded.log.dir: The configuration 'embeded.log.dir' was supplied but \
         isn't a known config. Did you mean 'embedded.log.dir'?\n  fix: {FIX_WARNING}\n\
         {wf}:5: warning: offset.flush.interval.ms: Offsets are committed every 15m: after a \
         crash, sinks re-process up to 15m of records (sources resume exactly: their offsets \
         are committed with their records), more than the restart tolerance of 5m.\n  fix: Set offset.flush.interval.ms to at most 300000 (or \
         pass a larger --restart-tolerance if that much redone work is fine).\n\
         {sf}:3: warning: tasks.max: tasks.max is 4 but FileStreamSource splits this \
         configuration into 1 task: 3 tasks would never run.\n  fix: Set tasks.max=1; more \
         tasks do not make this connector faster.\n\
         {kf}:7: warning: tpoic: The configuration 'tpoic' was supplied but isn't a known \
         config.\n  fix: {FIX_WARNING}\n\
         {kf}:6: warning: errors.tolerance: errors.tolerance=all without \
         errors.deadletterqueue.topic.name: records that fail conversion or a transform are \
         skipped and lost; not even a log line tells of them (errors.log.enable is false).\n  \
         fix: Set errors.deadletterqueue.topic.name to keep them (and replay them later with \
         `connect-rs dlq replay`), or errors.tolerance=none to stop on the first bad record.\n\
         0 errors, 5 warnings\n"
    );
    assert_eq!(stdout(&out), expected);
    assert_eq!(stderr(&out), "", "the findings are not repeated on stderr");

    // A larger restart tolerance accepts the flush interval.
    let out = run(
        &w,
        &[
            "doctor",
            "--restart-tolerance",
            "20m",
            "--format",
            "json",
            s(&worker),
        ],
    );
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let body: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(body["warnings"], json!(1), "{body}");
    assert_eq!(
        body["findings"][0],
        json!({
            "severity": "warning",
            "check": "config-key",
            "file": wf,
            "line": 6,
            "key": "embeded.log.dir",
            "message": "The configuration 'embeded.log.dir' was supplied but isn't a known config. Did you mean 'embedded.log.dir'?",
            "action": FIX_WARNING,
        })
    );
}

#[test]
fn invalid_files_and_duplicate_names_are_errors_exit_3() {
    let w = persistent_workdir();
    let worker = w.worker("");
    let bad = w.write(
        "bad.properties",
        "name=a\nconnector.class=FileStreamSink\ntasks.max=abc\nfile=out.txt\ntopics=t\n",
    );
    let again = w.source("a", &w.path("in.txt"), "t");
    let out = run(&w, &["doctor", s(&worker), s(&bad), s(&again)]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "{}:3: error: tasks.max: Invalid value abc for configuration tasks.max",
            bad.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{}:1: error: name: Connector name 'a' is used by more than one file: {} and {}.",
            again.display(),
            bad.display(),
            again.display()
        )),
        "{text}"
    );
    assert!(text.ends_with("2 errors, 0 warnings\n"), "{text}");

    // A worker file with an error is reported, not refused.
    let broken = w.write("broken.properties", "key.converter=NoSuchConverter\n");
    let out = run(&w, &["doctor", s(&broken)]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("{}: error: value.converter: ", broken.display())),
        "{}",
        stdout(&out)
    );
    // A file that cannot be read: exit 2, naming it.
    let out = run(&w, &["doctor", s(&w.path("absent.properties"))]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("absent.properties"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn state_on_temporary_storage_is_flagged() {
    // The usual work dir is under the system's temporary directory.
    let w = Workdir::new();
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}",
        w.path("offsets.json").display()
    ));
    let out = run(&w, &["doctor", s(&worker)]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    let wf = worker.display();
    assert!(
        lines[0].starts_with(&format!(
            "{wf}:4: warning: embedded.log.dir: {} is ",
            w.path("data").display()
        )),
        "{text}"
    );
    assert!(
        lines[0].ends_with(
            "It holds the embedded log (topics, consumer offsets and, by default, the offsets \
             file): once deleted, source connectors start over and re-deliver everything."
        ),
        "{text}"
    );
    assert_eq!(
        lines[1],
        "  fix: Point embedded.log.dir at a persistent directory (e.g. under /var/lib)."
    );
    assert!(
        lines[2].starts_with(&format!(
            "{wf}:5: warning: offset.storage.file.filename: {} is ",
            w.path("offsets.json").display()
        )),
        "{text}"
    );
    assert!(lines[2].contains("It holds the source offsets"), "{text}");
    assert_eq!(lines[4], "0 errors, 2 warnings");
}

#[test]
fn internal_topics_with_one_replica_and_kafka_unreachable() {
    let w = persistent_workdir();
    let worker = w.write(
        "distributed.properties",
        "bootstrap.servers=127.0.0.1:1\ngroup.id=g\nkey.converter=JsonConverter\n\
         value.converter=JsonConverter\nconfig.storage.topic=c\noffset.storage.topic=o\n\
         status.storage.topic=s\nconfig.storage.replication.factor=1\n\
         offset.storage.replication.factor=3\nstatus.storage.replication.factor=1\n\
         listeners=http://127.0.0.1:0\n",
    );
    let out = run(&w, &["doctor", s(&worker)]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let wf = worker.display();
    let fix = "  fix: Use 3 (or -1, the brokers' default.replication.factor) on a cluster of \
               three brokers or more; keep 1 only for a one-broker test cluster.\n";
    let expected_head = format!(
        "{wf}:8: warning: config.storage.replication.factor: The topic of the connector \
         configurations is created with one replica: when that broker's disk is lost, so are \
         the connector configurations.\n{fix}\
         {wf}:10: warning: status.storage.replication.factor: The topic of the connector and \
         task statuses is created with one replica: when that broker's disk is lost, so are the \
         connector and task statuses.\n{fix}\
         {wf}:1: note: bootstrap.servers: Could not check that the internal topics are \
         compacted: Kafka at 127.0.0.1:1 "
    );
    let text = stdout(&out);
    assert!(text.starts_with(&expected_head), "{text}");
    assert!(text.ends_with("\n0 errors, 2 warnings, 1 note\n"), "{text}");
}

#[test]
fn an_internal_topic_that_is_not_compacted_is_an_error() {
    let broker = broker();
    let config_topic = Broker::unique("doctor-configs");
    broker.create_topic(&config_topic, 1);
    let w = persistent_workdir();
    let worker = w.write(
        "distributed.properties",
        format!(
            "bootstrap.servers={}\ngroup.id={}\nkey.converter=JsonConverter\n\
             value.converter=JsonConverter\nconfig.storage.topic={config_topic}\n\
             offset.storage.topic={}\nstatus.storage.topic={}\n\
             config.storage.replication.factor=-1\noffset.storage.replication.factor=-1\n\
             status.storage.replication.factor=-1\n",
            broker.bootstrap(),
            Broker::unique("doctor-group"),
            Broker::unique("doctor-offsets"),
            Broker::unique("doctor-status"),
        ),
    );
    let out = run(&w, &["doctor", s(&worker)]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let expected = format!(
        "{wf}:5: error: config.storage.topic: Topic '{config_topic}' holds the connector \
         configurations but its cleanup.policy is 'delete', not 'compact': the worker refuses \
         to start on it, and old records would be deleted with their segments.\n  fix: Make it \
         compacted (kafka-configs.sh --bootstrap-server {bootstrap} --alter --entity-type \
         topics --entity-name {config_topic} --add-config cleanup.policy=compact), or point \
         config.storage.topic at a new topic, which the worker creates compacted.\n\
         1 error, 0 warnings\n",
        wf = worker.display(),
        bootstrap = broker.bootstrap(),
    );
    assert_eq!(stdout(&out), expected);
}

/// The FileStream connectors reachable through a REST listener that is not loopback-only and
/// has no authentication are a warning on `listeners`; refused connectors, loopback listeners,
/// basic authentication or required client certificates make it go away.
#[test]
fn file_connectors_on_an_open_listener_are_flagged() {
    let w = persistent_workdir();
    let worker = |extra: &str| {
        w.write(
            "worker.properties",
            format!(
                "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
                 value.converter=org.apache.kafka.connect.storage.StringConverter\n\
                 embedded.log.dir={}\n{extra}\n",
                w.path("data").display()
            ),
        )
    };
    let open = worker("listeners=http://127.0.0.1:8083,http://0.0.0.0:8083");
    let out = run(&w, &["doctor", "--format", "json", s(&open)]);
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    let body: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(
        body["findings"],
        json!([{
            "severity": "warning",
            "check": "exposed-file-connectors",
            "file": open.display().to_string(),
            "line": 4,
            "key": "listeners",
            "message": "FileStreamSource and FileStreamSink can be created by anyone who \
                        reaches http://0.0.0.0:8083 (not loopback-only, no authentication): \
                        such a connector reads or writes any file this worker can.",
            "action": "Refuse them with connector.class.denylist=FileStreamSource,FileStreamSink \
                       (Kafka Connect has not offered them by default since 3.2), listen on \
                       127.0.0.1 only, or require authentication \
                       (rest.extension.classes=BasicAuthSecurityRestExtension, or https \
                       listeners with ssl.client.auth=required).",
        }]),
    );
    // Kafka's default listener form `http://:8083` binds every interface too; one of the two
    // FileStream connectors refused leaves the other one reachable.
    let kafka_default = worker("listeners=http://:8083\nconnector.class.denylist=FileStreamSink");
    let out = run(&w, &["doctor", s(&kafka_default)]);
    assert_eq!(out.status.code(), Some(5), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(
            "warning: listeners: FileStreamSource can be created by anyone who reaches \
             http://:8083"
        ),
        "{}",
        stdout(&out)
    );
    for safe in [
        "listeners=http://0.0.0.0:8083\nconnector.class.denylist=FileStreamSource,FileStreamSink",
        "listeners=http://0.0.0.0:8083\nconnector.class.allowlist=JdbcSource,JdbcSink",
        "listeners=http://127.0.0.1:8083,http://[::1]:8084,http://localhost:8085",
        "listeners=http://0.0.0.0:8083\n\
         rest.extension.classes=BasicAuthSecurityRestExtension",
        "listeners=https://0.0.0.0:8443\nssl.client.auth=required",
        "listeners=https://0.0.0.0:8443\nlisteners.https.ssl.client.auth=required",
        "",
    ] {
        let file = worker(safe);
        let out = run(&w, &["doctor", s(&file)]);
        assert_eq!(out.status.code(), Some(0), "{safe}: {}", stdout(&out));
        assert_eq!(stdout(&out), "", "{safe}");
    }
}
