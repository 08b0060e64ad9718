//! `errors.*` handling and dead letter queues, driven through the real binary on the embedded
//! log and on Kafka.
//!
//! The scenario: a FileStreamSource writes 10,000 lines to a topic; 137 of them are not JSON.
//! A FileStreamSink reads the topic with the JsonConverter:
//! - `errors.tolerance=all` with a DLQ: 9,863 lines reach the file, the 137 records are in the
//!   DLQ with Kafka's `__connect.errors.*` context headers, and the task's REST status counts
//!   them;
//! - `errors.tolerance=none`: the task FAILS naming topic, partition and offset of the first bad
//!   record, and commits nothing past it;
//! - the fix: the sink is switched to the StringConverter (the bad records are text), and
//!   `connect-rs dlq replay` re-publishes the dead-lettered records to their original topic:
//!   the sink reaches 10,000 lines; a second replay publishes nothing.
//!
//! The same for a source whose transform fails on some records (its DLQ is connect-rs's
//! extension).

use crate::support;

use std::path::{Path, PathBuf};

use support::kafka::{broker, Broker};
use support::*;

/// Lines `0..10_000`; 137 of them (every 73rd from 5) are `bad` versions.
fn input(bad: impl Fn(usize) -> String) -> (String, Vec<String>) {
    let mut lines = Vec::new();
    for i in 0..10_000 {
        let is_bad = i % 73 == 5 && i / 73 < 137;
        lines.push(if is_bad { bad(i) } else { i.to_string() });
    }
    (lines.join("\n") + "\n", lines)
}

/// Where the topics live: the embedded log, or a broker (with unique topic names).
struct Env<'a> {
    kafka: Option<&'a Broker>,
    topic: String,
    dlq: String,
}

impl<'a> Env<'a> {
    fn new(kafka: Option<&'a Broker>) -> Self {
        let name = |p: &str| match kafka {
            Some(_) => Broker::unique(p),
            None => p.to_owned(),
        };
        Self {
            kafka,
            topic: name("in"),
            dlq: name("dlq"),
        }
    }

    fn worker(&self, w: &Workdir) -> PathBuf {
        match self.kafka {
            None => w.worker(""),
            Some(b) => w.write(
                "worker.properties",
                format!(
                    "bootstrap.servers={}\nlisteners=http://127.0.0.1:0\n\
                     key.converter=org.apache.kafka.connect.storage.StringConverter\n\
                     value.converter=org.apache.kafka.connect.storage.StringConverter\n\
                     offset.storage.file.filename={}\n",
                    b.bootstrap(),
                    w.path("offsets.json").display()
                ),
            ),
        }
    }

    /// The DLQ's records as text, headers included.
    fn read_dlq(&self, w: &Workdir, worker: &Path, expected: usize) -> String {
        match self.kafka {
            None => {
                let out = w
                    .command(&[
                        "topics",
                        "--worker",
                        &worker.display().to_string(),
                        "read",
                        &self.dlq,
                        "--from-beginning",
                        "--timeout-ms",
                        "1000",
                    ])
                    .output()
                    .unwrap();
                stdout(&out)
            }
            Some(b) => {
                let out = b.consume_from_beginning(
                    &self.dlq,
                    expected,
                    30_000,
                    &["--property", "print.headers=true"],
                );
                String::from_utf8_lossy(&out.stdout).into_owned()
            }
        }
    }

    fn replay(&self, w: &Workdir, worker: &Path) -> String {
        let out = w
            .command(&[
                "dlq",
                "replay",
                "--worker",
                &worker.display().to_string(),
                "--topic",
                &self.dlq,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    }
}

fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn sink_file(w: &Workdir, env: &Env, name: &str, output: &Path, extra: &str) -> PathBuf {
    w.write(
        &format!("{name}.properties"),
        format!(
            "name={name}\nconnector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics={}\n{extra}",
            output.display(),
            env.topic
        ),
    )
}

const JSON: &str = "value.converter=org.apache.kafka.connect.json.JsonConverter\n\
                    value.converter.schemas.enable=false\n";

fn dlq_keys(env: &Env) -> String {
    format!(
        "errors.tolerance=all\nerrors.log.enable=true\n\
         errors.deadletterqueue.topic.name={}\n\
         errors.deadletterqueue.topic.replication.factor=1\n\
         errors.deadletterqueue.context.headers.enable=true\n",
        env.dlq
    )
}

fn sink_tolerates_dead_letters_and_replays(env: &Env) {
    let w = Workdir::new();
    let (text, mut expected) = input(|i| format!("{{\"n\":{i}"));
    let data = w.write("in.txt", text);
    let output = w.path("out.txt");
    let worker = env.worker(&w);
    let name = Broker::unique("dst");
    let source = w.source(&Broker::unique("src"), &data, &env.topic);
    let sink = sink_file(&w, env, &name, &output, &format!("{JSON}{}", dlq_keys(env)));
    let mut running = rest::start(&w, &[&worker, &source, &sink]);
    wait_for("9,863 lines in the sink", RUN_TIMEOUT, || {
        line_count(&output) >= 9_863
    });
    let status = running
        .client
        .get(&format!("/connectors/{name}/status?errorCounters=true"))
        .json();
    let errors = &status["tasks"][0]["errors"];
    assert_eq!(errors["total-records-skipped"], 137, "{status}");
    assert_eq!(errors["total-record-errors"], 137, "{status}");
    assert_eq!(errors["deadletterqueue-produce-requests"], 137, "{status}");
    assert_eq!(errors["deadletterqueue-produce-failures"], 0, "{status}");
    let task = running
        .client
        .get(&format!(
            "/connectors/{name}/tasks/0/status?errorCounters=true"
        ))
        .json();
    assert_eq!(task["errors"]["total-records-skipped"], 137, "{task}");
    terminate(&mut running.child, std::time::Duration::from_secs(30));
    let log = w.log();
    assert!(
        log.contains(&format!(
            "Error encountered in task {name}-0. Executing stage 'VALUE_CONVERTER' with class \
             'org.apache.kafka.connect.json.JsonConverter'."
        )),
        "{log}"
    );
    assert_eq!(line_count(&output), 9_863);

    let dlq = env.read_dlq(&w, &worker, 137);
    for (header, count) in [
        ("__connect.errors.stage:VALUE_CONVERTER".to_owned(), 137),
        (format!("__connect.errors.topic:{}", env.topic), 137),
        ("__connect.errors.partition:0".to_owned(), 137),
        (format!("__connect.errors.connector.name:{name}"), 137),
        ("__connect.errors.task.id:0".to_owned(), 137),
        (
            "__connect.errors.class.name:org.apache.kafka.connect.json.JsonConverter".to_owned(),
            137,
        ),
        (
            "__connect.errors.exception.class.name:org.apache.kafka.connect.errors.DataException"
                .to_owned(),
            137,
        ),
        ("__connect.errors.offset:5,".to_owned(), 1),
        ("__connect.errors.exception.stacktrace:".to_owned(), 137),
    ] {
        assert_eq!(dlq.matches(&header).count(), count, "{header} in:\n{dlq}");
    }

    // The fix: the bad records are text; the sink takes text. Then replay, once.
    let replayed = env.replay(&w, &worker);
    assert!(replayed.contains("Replayed 137 record(s)"), "{replayed}");
    let again = env.replay(&w, &worker);
    assert!(again.contains("Replayed 0 record(s)"), "{again}");
    let fixed = sink_file(
        &w,
        env,
        &name,
        &output,
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n",
    );
    let (code, err) = w.run_checked(&[&worker, &source, &fixed]);
    assert_eq!(code, 0, "{err}");
    expected.sort();
    assert_eq!(sorted_lines(&output), expected);
}

fn sink_without_tolerance_fails_at_the_first_bad_record(env: &Env) {
    let w = Workdir::new();
    let (text, mut expected) = input(|i| format!("{{\"n\":{i}"));
    let data = w.write("in.txt", text);
    let output = w.path("out.txt");
    let worker = env.worker(&w);
    let name = Broker::unique("dst");
    let source = w.source(&Broker::unique("src"), &data, &env.topic);
    let sink = sink_file(&w, env, &name, &output, JSON);
    let (code, err) = w.run_checked(&[&worker, &source, &sink]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(&format!(
            "Tolerance exceeded in error handler: stage VALUE_CONVERTER with class \
             'org.apache.kafka.connect.json.JsonConverter' failed for topic '{}' partition 0 \
             offset 5",
            env.topic
        )),
        "{err}"
    );
    // Nothing past the bad record was committed: with the fix, every line arrives.
    let before = line_count(&output);
    assert!(before <= 5, "{before} lines put past offset 5");
    let fixed = sink_file(
        &w,
        env,
        &name,
        &output,
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n",
    );
    let (code, err) = w.run_checked(&[&worker, &source, &fixed]);
    assert_eq!(code, 0, "{err}");
    let mut got = sorted_lines(&output);
    got.dedup();
    expected.sort();
    assert_eq!(got, expected);
}

fn source_dead_letters_what_its_transform_refuses(env: &Env) {
    let w = Workdir::new();
    let (text, mut expected) = input(|i| format!("x{i}"));
    let data = w.write("in.txt", text);
    let output = w.path("out.txt");
    let worker = env.worker(&w);
    let name = Broker::unique("src");
    let source = w.write(
        "src.properties",
        format!(
            "name={name}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n\
             transforms=cast\ntransforms.cast.type=org.apache.kafka.connect.transforms.Cast$Value\n\
             transforms.cast.spec=int32\n{}",
            data.display(),
            env.topic,
            dlq_keys(env)
        ),
    );
    let sink = sink_file(&w, env, &Broker::unique("dst"), &output, "");
    let (code, err) = w.run_checked(&[&worker, &source, &sink]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(line_count(&output), 9_863, "{err}");
    let dlq = env.read_dlq(&w, &worker, 137);
    for header in [
        "__connect.errors.stage:TRANSFORMATION",
        "__connect.errors.class.name:org.apache.kafka.connect.transforms.Cast$Value",
    ] {
        assert_eq!(dlq.matches(header).count(), 137, "{header} in:\n{dlq}");
    }
    assert!(dlq.contains("x5"), "{dlq}");
    let replayed = env.replay(&w, &worker);
    assert!(replayed.contains("Replayed 137 record(s)"), "{replayed}");
    let (code, err) = w.run_checked(&[&worker, &source, &sink]);
    assert_eq!(code, 0, "{err}");
    expected.sort();
    assert_eq!(sorted_lines(&output), expected);
}

/// `dlq replay` of a topic that does not exist is refused (exit 1, as `topics read`), replays
/// nothing and creates nothing.
fn replay_of_an_unknown_topic_is_refused(env: &Env) -> (String, PathBuf, Workdir) {
    let w = Workdir::new();
    let worker = env.worker(&w);
    // A job first, so that the topics exist and the replay is the only one that could add one.
    let input = w.write("in.txt", "1\n2\n");
    let source = w.source("src", &input, &env.topic);
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 0, "{err}");
    let out = w
        .command(&[
            "dlq",
            "replay",
            "--worker",
            &worker.display().to_string(),
            "--topic",
            &env.dlq,
        ])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!stdout(&out).contains("Replayed"), "{}", stdout(&out));
    (err, worker, w)
}

#[test]
fn embedded_replay_of_an_unknown_topic_is_refused() {
    let env = Env::new(None);
    let (err, worker, w) = replay_of_an_unknown_topic_is_refused(&env);
    assert!(
        err.contains(&format!("Topic {} does not exist in ", env.dlq)),
        "{err}"
    );
    let out = w
        .command(&["topics", "--worker", &worker.display().to_string(), "list"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let topics: Vec<String> = stdout(&out)
        .lines()
        .filter_map(|l| l.split('\t').next())
        .map(str::to_owned)
        .collect();
    assert_eq!(topics, [env.topic.as_str()], "{}", stdout(&out));
}

#[test]
fn kafka_replay_of_an_unknown_topic_is_refused() {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let b = broker();
    let env = Env::new(Some(&b));
    let (err, _, _w) = replay_of_an_unknown_topic_is_refused(&env);
    assert!(
        err.contains(&format!(
            "Topic {} does not exist in Kafka at {}",
            env.dlq,
            b.bootstrap()
        )),
        "{err}"
    );
    let client: BaseConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", b.bootstrap())
        .create()
        .unwrap();
    let metadata = client
        .fetch_metadata(None, std::time::Duration::from_secs(30))
        .unwrap();
    assert!(
        metadata.topics().iter().any(|t| t.name() == env.topic),
        "the job's topic is listed"
    );
    assert!(
        !metadata.topics().iter().any(|t| t.name() == env.dlq),
        "{} was created",
        env.dlq
    );
}

#[test]
fn embedded_sink_with_tolerance_all_dead_letters_and_replays() {
    sink_tolerates_dead_letters_and_replays(&Env::new(None));
}

#[test]
fn embedded_sink_with_tolerance_none_fails_naming_the_record() {
    sink_without_tolerance_fails_at_the_first_bad_record(&Env::new(None));
}

#[test]
fn embedded_source_dead_letters_records_its_transform_refuses() {
    source_dead_letters_what_its_transform_refuses(&Env::new(None));
}

#[test]
fn kafka_sink_with_tolerance_all_dead_letters_and_replays() {
    let b = broker();
    sink_tolerates_dead_letters_and_replays(&Env::new(Some(&b)));
}

#[test]
fn kafka_sink_with_tolerance_none_fails_naming_the_record() {
    let b = broker();
    sink_without_tolerance_fails_at_the_first_bad_record(&Env::new(Some(&b)));
}

#[test]
fn kafka_source_dead_letters_records_its_transform_refuses() {
    let b = broker();
    source_dead_letters_what_its_transform_refuses(&Env::new(Some(&b)));
}
