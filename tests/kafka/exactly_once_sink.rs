//! FileStreamSink with `exactly.once=true`: a sink-only connector over a pre-filled topic is
//! SIGKILLed at random moments, restarted each time, and finally run to the end; the output
//! file is byte-identical to the input (nothing lost, nothing twice). The file's committed
//! length travels with the group offsets: in the embedded log's group file, and as Kafka commit
//! metadata (read back from the real broker here).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use support::kafka::{broker, Broker};
use support::rest::{start, STARTUP};
use support::rng::Rng;
use support::*;

/// A FileStreamSink connector file with `exactly.once=true`.
fn exact_sink(w: &Workdir, name: &str, output: &Path, topic: &str) -> PathBuf {
    w.write(
        &format!("{name}.properties"),
        format!(
            "name={name}\nconnector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics={topic}\n\
             exactly.once=true\n",
            output.display()
        ),
    )
}

/// The file length in a FileStreamSink position (`file-length=N;path-hash=H;file-id=I`).
fn position_length(metadata: &str) -> u64 {
    metadata
        .strip_prefix("file-length=")
        .and_then(|rest| rest.split(';').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not a FileStreamSink position: {metadata:?}"))
}

fn seed() -> u64 {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("seed {seed}");
    seed
}

/// What one killed run left: the file's length and the length committed with the offsets.
struct Kill {
    file_length: u64,
    committed_length: Option<u64>,
}

/// SIGKILLs sink-only runs `rounds` times, each a random delay after its first commit, so the
/// kill lands anywhere between two commits; `committed` reads the committed length.
fn kill_rounds(
    w: &Workdir,
    files: &[&Path],
    output: &Path,
    lines: usize,
    rounds: usize,
    committed: impl Fn() -> Option<u64>,
) -> Vec<Kill> {
    let mut rng = Rng(seed());
    let mut kills = Vec::new();
    let total = (lines * WIDTH) as u64;
    for round in 0..rounds {
        let mut child = w.spawn(files);
        // Once this run committed past its predecessor (it restored the file and got going),
        // a random delay: the sink copies tens of MB per 100 ms, with a commit every 50 ms.
        let from = kills.last().and_then(|k: &Kill| k.committed_length);
        wait_for("a commit of this run", Duration::from_secs(120), || {
            committed().is_some_and(|c| from.is_none_or(|f| c > f) || c == total)
                || child.try_wait().ok().flatten().is_some()
        });
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "round {round}: connect-rs exited early ({status}): {}",
                w.log()
            );
        }
        let delay = rng.below(150);
        std::thread::park_timeout(Duration::from_millis(delay));
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        let log = w.log();
        assert!(!log.contains("panicked"), "{log}");
        let kill = Kill {
            file_length: std::fs::metadata(output).map_or(0, |m| m.len()),
            committed_length: committed(),
        };
        eprintln!(
            "round {round}: killed {delay} ms after a commit: file {} bytes, committed {:?}; restore: {}",
            kill.file_length,
            kill.committed_length,
            log.lines()
                .filter(|l| l.contains("Cut ") || l.contains("committed position"))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        if let Some(c) = kill.committed_length {
            assert!(
                kill.file_length >= c,
                "the file is shorter than its committed length"
            );
        }
        kills.push(kill);
    }
    kills
}

/// The final run's output must be exactly the input, and some kill must have left output after
/// the last commit (so the test did exercise the cut).
fn check_exact(output: &Path, lines: usize, kills: &[Kill]) {
    let got = std::fs::read(output).unwrap();
    let expected = numbered_lines(0, lines, WIDTH);
    if got != expected {
        let n = got.split(|&b| b == b'\n').count().saturating_sub(1);
        let duplicates = check_replays(&got, lines);
        panic!(
            "output differs from the input: {} bytes ({n} lines, {duplicates} duplicated) for {}",
            got.len(),
            expected.len()
        );
    }
    assert!(
        kills
            .iter()
            .any(|k| k.committed_length.is_some_and(|c| k.file_length > c)),
        "no kill left uncommitted output to cut back"
    );
}

#[test]
fn embedded_log_sink_output_is_exact_after_random_sigkills() {
    const LINES: usize = 1_000_000;
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, LINES, WIDTH));
    let output = w.path("out.txt");
    let worker = w.worker("offset.flush.interval.ms=50");
    // Fill the topic first: the source runs alone to the end.
    let source = w.source("src", &input, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sink = exact_sink(&w, "dst", &output, "t");
    let group = w.path("data/__groups/connect-dst.json");
    let committed = || -> Option<u64> {
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&group).ok()?)
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", group.display()));
        doc["offsets"][0]["metadata"].as_str().map(position_length)
    };
    let kills = kill_rounds(&w, &[&worker, &sink], &output, LINES, 8, committed);
    let out = w.run_until_idle("500ms", &[&worker, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    check_exact(&output, LINES, &kills);
    // After the clean end, the committed length is the whole file.
    assert_eq!(committed(), Some(std::fs::metadata(&output).unwrap().len()));
}

/// A client that reads `group`'s committed offsets (it never joins the group).
fn offsets_reader(broker: &Broker, group: &str) -> BaseConsumer {
    rdkafka::ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap())
        .set("group.id", group)
        .create()
        .expect("a consumer to read committed offsets")
}

/// The metadata Kafka returns with the committed offset of partition 0 of `topic`.
fn kafka_committed_metadata(consumer: &BaseConsumer, topic: &str) -> Option<String> {
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition(topic, 0);
    let committed = consumer
        .committed_offsets(tpl, Duration::from_secs(30))
        .expect("committed offsets from Kafka");
    let elements = committed.elements();
    let e = elements.first()?;
    match e.offset() {
        Offset::Offset(_) if !e.metadata().is_empty() => Some(e.metadata().to_owned()),
        _ => None,
    }
}

#[test]
fn kafka_sink_output_is_exact_after_random_sigkills() {
    const LINES: usize = 200_000;
    let broker = broker();
    let w = Workdir::new();
    let topic = Broker::unique("eos-sink");
    let (src, dst) = (Broker::unique("src"), Broker::unique("dst"));
    let input = w.write("in.txt", numbered_lines(0, LINES, WIDTH));
    let output = w.path("out.txt");
    // A killed process's consumer stays in the group until its session times out: the broker's
    // minimum (6 s) keeps each restart short, and the last run's idle window outlasts it.
    let worker = w.write(
        "worker.properties",
        format!(
            "bootstrap.servers={}\n\
             listeners=http://127.0.0.1:0\n\
             key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             offset.storage.file.filename={}\n\
             offset.flush.interval.ms=100\nconsumer.session.timeout.ms=6000\n",
            broker.bootstrap(),
            w.path("offsets.json").display()
        ),
    );
    let source = w.source(&src, &input, &topic);
    let out = w.run_until_idle("2s", &[&worker, &source]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sink = exact_sink(&w, &dst, &output, &topic);
    let reader = offsets_reader(&broker, &format!("connect-{dst}"));
    let committed = || {
        kafka_committed_metadata(&reader, &topic).map(|m| {
            assert!(
                m.contains(&format!(
                    ";path-hash={:016x};",
                    fnv1a(output.to_str().unwrap().as_bytes())
                )),
                "{m}"
            );
            position_length(&m)
        })
    };
    let kills = kill_rounds(&w, &[&worker, &sink], &output, LINES, 4, committed);
    let out = w.run_until_idle("15s", &[&worker, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    check_exact(&output, LINES, &kills);
    assert_eq!(
        committed(),
        Some(std::fs::metadata(&output).unwrap().len()),
        "Kafka returns the final length with the final offset"
    );
}

/// FNV-1a (64 bit), as FileStreamSink hashes its `file` setting.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn exactly_once_is_refused_with_several_tasks_or_without_a_file() {
    let w = Workdir::new();
    let worker = w.worker("");
    let output = w.path("out.txt");
    let sink = w.write(
        "multi.properties",
        format!(
            "name=multi\nconnector.class=FileStreamSink\ntasks.max=2\nfile={}\ntopics=t\n\
             exactly.once=true\n",
            output.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &sink]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("exactly.once=true needs tasks.max=1 (it is 2)"),
        "{err}"
    );
    let sink = w.write(
        "stdout.properties",
        "name=stdout\nconnector.class=FileStreamSink\ntasks.max=1\ntopics=t\nexactly.once=true\n",
    );
    let (code, err) = w.run_checked(&[&worker, &sink]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("exactly.once=true needs a file"), "{err}");
    assert!(!output.exists());

    // Over REST the connector's own check answers before anything is stored or started.
    let run = start(&w, &[&worker]);
    let config = serde_json::json!({
        "name": "multi", "connector.class": "FileStreamSink", "tasks.max": "2", "topics": "t",
        "file": output.display().to_string(), "exactly.once": "true"
    });
    let created = run.client.post(
        "/connectors",
        &serde_json::json!({"name": "multi", "config": config}),
    );
    assert_eq!(created.status, 400, "{}", created.body);
    assert!(
        created.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("exactly.once=true needs tasks.max=1 (it is 2)")),
        "{}",
        created.body
    );
    assert_eq!(run.client.get("/connectors/multi").status, 404);
    let validated = run
        .client
        .put("/connector-plugins/FileStreamSink/config/validate", &config);
    assert_eq!(validated.status, 200, "{}", validated.body);
    assert_eq!(validated.json()["error_count"], 1, "{}", validated.body);
    assert!(!output.exists());
}

/// Altering a sink's offsets through REST clears its committed position: the next start cuts
/// nothing and re-delivers from the altered offset, appending.
#[test]
fn altered_offsets_clear_the_committed_position() {
    const LINES: usize = 1000;
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, LINES, WIDTH));
    let output = w.path("out.txt");
    let worker = w.worker("offset.flush.interval.ms=50");
    let source = w.source("src", &input, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sink = exact_sink(&w, "dst", &output, "t");
    let group = w.path("data/__groups/connect-dst.json");
    let entry = || -> serde_json::Value {
        std::fs::read(&group)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .map_or(serde_json::Value::Null, |doc| doc["offsets"][0].clone())
    };
    let total = (LINES * WIDTH) as u64;
    let mut run = start(&w, &[&worker, &sink]);
    let c = run.client;
    wait_for("everything committed with its length", STARTUP, || {
        entry()["offset"] == LINES
            && entry()["metadata"].as_str().map(position_length) == Some(total)
    });
    assert_eq!(c.send("PUT", "/connectors/dst/stop", None).status, 204);
    let rewind = r#"{"offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 500}}]}"#;
    let altered = c.send(
        "PATCH",
        "/connectors/dst/offsets",
        Some(("application/json", rewind)),
    );
    assert_eq!(altered.status, 200, "{}", altered.body);
    assert_eq!(entry()["offset"], 500);
    assert!(entry().get("metadata").is_none(), "{}", entry());
    assert_eq!(c.send("PUT", "/connectors/dst/resume", None).status, 202);
    let mut expected = numbered_lines(0, LINES, WIDTH);
    expected.extend(numbered_lines(500, LINES - 500, WIDTH));
    wait_for("lines 500.. appended again", STARTUP, || {
        std::fs::read(&output).unwrap_or_default() == expected
    });
    wait_for("a new position committed", STARTUP, || {
        entry()["metadata"].as_str().map(position_length) == Some(expected.len() as u64)
    });
    assert!(terminate(&mut run.child, Duration::from_secs(20)).success());
    assert_eq!(std::fs::read(&output).unwrap(), expected);
}
