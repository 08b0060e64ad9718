//! Exactly-once source tasks on a real Kafka broker (issue 13, items 3 and 4; KIP-618):
//! `exactly.once.source.support=enabled` runs each source task with a transactional producer
//! and writes its offsets in the same transactions, so a `read_committed` reader sees every
//! input line exactly once, even when the workers running the source are SIGKILLed again and
//! again mid-copy. A standalone worker on Kafka refuses the setting (its offsets live in a
//! file), and the preflight checks refuse what cannot be honoured.
//!
//! The sink that writes the output file is a FileStreamSink with `exactly.once=true` in the
//! same cluster, so the kills hit it too: its takeovers cut the file back to its last committed
//! length and resume from the committed offset.

use crate::support;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::cluster::{task_owners, Cluster, ClusterSpec, Runtime, Worker, CONVERGE};
use support::kafka::{broker, Broker};
use support::rng::Rng;
use support::{line_index, numbered_lines, stderr, wait_for, Workdir, WIDTH};

/// How long the whole copy may take.
const COPY: Duration = Duration::from_secs(300);
/// Worker lines that enable exactly-once sources.
const EOS: &str = "exactly.once.source.support=enabled";

/// `POST /connectors` through `worker`, asked again while the cluster answers "not now";
/// returns (status, body) of the first other answer.
fn create(worker: &Worker, name: &str, config: &Value) -> (u16, String) {
    let body = json!({"name": name, "config": config}).to_string();
    let start = Instant::now();
    loop {
        if let Ok(r) =
            worker
                .client
                .try_send("POST", "/connectors", Some(("application/json", &body)))
        {
            if !matches!(r.status, 409 | 500 | 503) || r.body.contains("already exists") {
                return (r.status, r.body);
            }
        }
        assert!(
            start.elapsed() < CONVERGE,
            "POST /connectors ({name}) not accepted within {CONVERGE:?}"
        );
        std::thread::park_timeout(Duration::from_millis(200));
    }
}

fn source(input: &Path, topic: &str) -> Value {
    json!({
        "connector.class": "FileStreamSource",
        "tasks.max": "1",
        "file": input.display().to_string(),
        "topic": topic,
        "exactly.once.support": "required",
    })
}

/// An exactly-once FileStreamSink reading `topic` with `read_committed` (the librdkafka
/// default, set here as a Kafka Connect user sets it) into `output`.
fn sink(topic: &str, output: &Path) -> Value {
    json!({
        "connector.class": "FileStreamSink",
        "tasks.max": "1",
        "file": output.display().to_string(),
        "exactly.once": "true",
        "topics": topic,
        "consumer.override.group.id": format!("{topic}-sink"),
        "consumer.override.isolation.level": "read_committed",
    })
}

fn append(input: &Path, from: usize, n: usize) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(input)
        .expect("open the input");
    f.write_all(&numbered_lines(from, n, WIDTH))
        .expect("append to the input");
}

/// The values of `topic` as a `read_committed` ConsoleConsumer reads them (`expected` of them,
/// at most 60 s).
fn read_committed(broker: &Broker, topic: &str, expected: usize) -> Vec<u8> {
    broker
        .consume_from_beginning(
            topic,
            expected,
            60_000,
            &["--isolation-level", "read_committed"],
        )
        .stdout
}

/// Asserts `bytes` are lines `0..total`, each exactly once (in any order).
fn assert_each_line_once(bytes: &[u8], total: usize, what: &str) {
    let mut seen = vec![0usize; total];
    let mut extra = 0;
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let i = line_index(line);
        if i < total {
            seen[i] += 1;
        } else {
            extra += 1;
        }
    }
    let twice = seen.iter().filter(|&&n| n > 1).count();
    let missing = seen.iter().filter(|&&n| n == 0).count();
    assert!(
        twice == 0 && missing == 0 && extra == 0,
        "{what}: {twice} lines more than once, {missing} missing, {extra} beyond the input"
    );
}

/// The worker that runs task 0 of `connector` with the status RUNNING, as a live worker says.
fn running_on(cluster: &mut Cluster, connector: &str) -> Option<String> {
    let status = cluster.live().first()?.status(connector)?;
    let task = status["tasks"].as_array()?.first()?;
    (task["state"] == "RUNNING").then(|| task_owners(&status)[&0].clone())
}

#[test]
fn a_standalone_worker_on_kafka_refuses_exactly_once_sources() {
    let w = Workdir::new();
    let worker = w.write(
        "worker.properties",
        format!(
            "bootstrap.servers=127.0.0.1:1\n\
             key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             offset.storage.file.filename={}\n\
             listeners=http://127.0.0.1:0\n\
             {EOS}\n",
            w.path("offsets").display()
        ),
    );
    let out = w
        .command(&["standalone", &worker.display().to_string()])
        .output()
        .expect("run connect-rs");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("worker.properties:6")
            && err.contains("exactly.once.source.support=enabled")
            && err.contains("--distributed"),
        "{err}"
    );
}

#[test]
fn transactions_deliver_each_line_once_and_preflight_refuses_what_cannot_hold() {
    const TOTAL: usize = 30_000;
    let broker = broker();
    let data = Workdir::new();
    let input = data.path("in.txt");
    append(&input, 0, TOTAL);
    let topic = Broker::unique("eos");
    broker.create_topic(&topic, 1);
    let spec = ClusterSpec::new(broker.bootstrap(), "eos-one").with_extra(EOS);
    let mut cluster = Cluster::start(spec, Runtime::ConnectRs, 1);
    let worker = &cluster.workers[0];

    // Preflight: connector-defined boundaries, and `required` from a connector that reads stdin.
    let mut bad = source(&input, &topic);
    bad["transaction.boundary"] = json!("connector");
    let (status, body) = create(worker, "bad-boundary", &bad);
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("does not support connector-defined transaction boundaries"),
        "{body}"
    );
    let mut stdin = source(&input, &topic);
    stdin["file"] = json!("");
    let (status, body) = create(worker, "bad-stdin", &stdin);
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("does not support exactly-once semantics"),
        "{body}"
    );

    let (status, body) = create(worker, "src", &source(&input, &topic));
    assert_eq!(status, 201, "{body}");
    // The same input in transactions of 200 ms (transaction.boundary=interval).
    let by_time = Broker::unique("eos-interval");
    broker.create_topic(&by_time, 1);
    let mut interval = source(&input, &by_time);
    interval["transaction.boundary"] = json!("interval");
    interval["transaction.boundary.interval.ms"] = json!("200");
    let (status, body) = create(worker, "src-interval", &interval);
    assert_eq!(status, 201, "{body}");
    let consumed = read_committed(&broker, &topic, TOTAL);
    assert_each_line_once(&consumed, TOTAL, "read_committed consumer");
    assert_eq!(consumed, numbered_lines(0, TOTAL, WIDTH), "in input order");
    let consumed = read_committed(&broker, &by_time, TOTAL);
    assert_eq!(
        consumed,
        numbered_lines(0, TOTAL, WIDTH),
        "transaction.boundary=interval: every line once, in input order"
    );
    let log = cluster.workers[0].log();
    assert!(
        log.contains("Exactly-once source task started"),
        "the source ran in transactions: {log}"
    );
    // The offsets were written in the transactions: the task's offset is the input's end.
    let end = (TOTAL * WIDTH) as u64;
    wait_for(
        "the committed source offset at the input's end",
        CONVERGE,
        || {
            cluster.live()[0]
                .get_json("/connectors/src/offsets")
                .and_then(|v| v["offsets"][0]["offset"]["position"].as_u64())
                == Some(end)
        },
    );
}

/// `PUT /connectors/{name}/config` through `worker`, asked again while the cluster answers
/// "not now"; returns (status, body) of the first other answer.
fn put_config(worker: &Worker, name: &str, config: &Value) -> (u16, String) {
    let body = config.to_string();
    let path = format!("/connectors/{name}/config");
    let start = Instant::now();
    loop {
        if let Ok(r) = worker
            .client
            .try_send("PUT", &path, Some(("application/json", &body)))
        {
            if !matches!(r.status, 409 | 500 | 503) {
                return (r.status, r.body);
            }
        }
        assert!(
            start.elapsed() < CONVERGE,
            "PUT {path} not accepted within {CONVERGE:?}"
        );
        std::thread::park_timeout(Duration::from_millis(200));
    }
}

/// Every `(key, value)` of the config topic `topic`, in order, read to its end.
fn config_records(broker: &Broker, topic: &str) -> Vec<(String, String)> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::Message;
    let consumer: BaseConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap())
        .set("group.id", Broker::unique("config-reader"))
        .set("enable.auto.commit", "false")
        .create()
        .expect("a consumer of the config topic");
    let (_, high) = consumer
        .fetch_watermarks(topic, 0, Duration::from_secs(30))
        .expect("the config topic's end");
    let mut tpl = rdkafka::TopicPartitionList::new();
    tpl.add_partition_offset(topic, 0, rdkafka::Offset::Beginning)
        .expect("partition 0");
    consumer.assign(&tpl).expect("assign the config topic");
    let mut out = Vec::new();
    let start = Instant::now();
    while (out.len() as i64) < high {
        assert!(
            start.elapsed() < CONVERGE,
            "the config topic read to its end"
        );
        if let Some(m) = consumer.poll(Duration::from_millis(500)) {
            let m = m.expect("a config record");
            let text =
                |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
            out.push((text(m.key()), text(m.payload())));
        }
    }
    out
}

/// The value of the last `tasks-fencing-<connector>` record of the config topic.
fn task_count_record(broker: &Broker, topic: &str, connector: &str) -> Option<String> {
    let key = format!("tasks-fencing-{connector}");
    config_records(broker, topic)
        .into_iter()
        .rev()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// KIP-618 zombie fencing: before a new generation of an exactly-once source connector's tasks
/// starts, the leader fences the transactional ids of every task of the previous generation,
/// as counted by the connector's `tasks-fencing-` record, and then writes the record anew.
///
/// FileStreamSource, the only built-in source, always has one task, so the previous
/// generation of two tasks is made by the test: it writes the task-count record a cluster
/// whose connector had two tasks would have written (`{"task-count":2}`), and plays the
/// zombie of the removed task 1 (a producer with task 1's transactional id and an open
/// transaction holding one record). Reconfiguring the connector makes a new generation of one
/// task; the zombie's commit is then refused as fenced and its record never becomes visible.
#[test]
fn a_new_task_generation_fences_the_transactional_ids_of_removed_tasks() {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    const TOTAL: usize = 2_000;
    let broker = broker();
    let data = Workdir::new();
    let input = data.path("in.txt");
    append(&input, 0, TOTAL);
    let topic = Broker::unique("eos-fence");
    broker.create_topic(&topic, 1);
    let spec = ClusterSpec::new(broker.bootstrap(), "eos-fence").with_extra(EOS);
    let (group, config_topic) = (spec.group.clone(), spec.config_topic.clone());
    let cluster = Cluster::start(spec, Runtime::ConnectRs, 2);
    let (status, body) = create(&cluster.workers[0], "src", &source(&input, &topic));
    assert_eq!(status, 201, "{body}");
    let consumed = read_committed(&broker, &topic, TOTAL);
    assert_each_line_once(&consumed, TOTAL, "the first generation");
    // Its first start with exactly-once support wrote the task count record (nothing to fence).
    assert_eq!(
        task_count_record(&broker, &config_topic, "src").as_deref(),
        Some(r#"{"task-count":1}"#)
    );

    // The internal endpoint refuses requests that are not signed with the session key.
    let r = cluster.workers[1]
        .client
        .send("PUT", "/connectors/src/fence", None);
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body
            .contains("Internal request missing required signature"),
        "{}",
        r.body
    );

    // A previous generation of two tasks, and the zombie of its task 1.
    let writer: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap())
        .create()
        .expect("a producer to the config topic");
    writer
        .send(
            BaseRecord::to(&config_topic)
                .key("tasks-fencing-src")
                .payload(r#"{"task-count":2}"#),
        )
        .map_err(|(e, _)| e)
        .expect("queue the task count record");
    writer
        .flush(Duration::from_secs(30))
        .expect("write the task count record");
    let zombie_id = format!("{group}-src-1");
    let zombie: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap())
        .set("transactional.id", &zombie_id)
        .create()
        .expect("the zombie's producer");
    zombie
        .init_transactions(Duration::from_secs(60))
        .expect("the zombie claims task 1's transactional id");
    zombie
        .begin_transaction()
        .expect("the zombie's transaction");
    zombie
        .send(BaseRecord::to(&topic).key("zombie").payload("zombie line"))
        .map_err(|(e, _)| e)
        .expect("queue the zombie's record");
    zombie
        .flush(Duration::from_secs(30))
        .expect("the zombie's record in its open transaction");

    // A new generation of one task (its task configuration changes with the connector's).
    let mut config = source(&input, &topic);
    config["batch.size"] = json!("500");
    let (status, body) = put_config(&cluster.workers[0], "src", &config);
    assert_eq!(status, 200, "{body}");
    append(&input, TOTAL, TOTAL);
    // The zombie's open transaction was aborted by the fencing: without that, a
    // read_committed reader would wait behind it until it timed out.
    let consumed = read_committed(&broker, &topic, 2 * TOTAL);
    assert!(
        !String::from_utf8_lossy(&consumed).contains("zombie"),
        "the zombie's record is not visible"
    );
    assert_each_line_once(&consumed, 2 * TOTAL, "after the new generation started");
    // The task count record says one task again, written after the fencing.
    wait_for("the new task count record", CONVERGE, || {
        task_count_record(&broker, &config_topic, "src").as_deref() == Some(r#"{"task-count":1}"#)
    });
    let logs: String = cluster.workers.iter().map(Worker::log).collect();
    assert!(
        logs.contains("Fencing out the task producers of the previous task generation")
            && logs.contains(&format!("\"{zombie_id}\"")),
        "the leader fenced task 1's id: {logs}"
    );
    // A task waiting for its fencing is stopped at once when its configuration changes.
    assert!(
        !logs.contains("Graceful stop of tasks timed out"),
        "every task stopped gracefully: {logs}"
    );

    // The zombie can no longer commit, and its record was never visible.
    let refused = zombie
        .commit_transaction(Duration::from_secs(60))
        .expect_err("the zombie's commit is refused");
    let message = refused.to_string();
    assert!(
        message.to_ascii_lowercase().contains("fenced"),
        "the zombie's commit failed as fenced: {message}"
    );
    let consumed = read_committed(&broker, &topic, 2 * TOTAL);
    assert!(
        !String::from_utf8_lossy(&consumed).contains("zombie"),
        "the zombie's record is not visible"
    );
    assert_each_line_once(
        &consumed,
        2 * TOTAL,
        "read_committed after the zombie's commit",
    );
    cluster.stop_all();
}

/// Issue 13 acceptance: a 3-worker cluster with exactly-once sources; 20 random SIGKILLs of
/// workers while the input grows and the source copies it (a killed worker is replaced, so
/// three run); a `read_committed` ConsoleConsumer sees every line exactly once, and an
/// exactly-once FileStreamSink in the same cluster (so some kills hit it) writes a file
/// byte-identical to the input.
#[test]
fn twenty_sigkills_leave_every_line_exactly_once() {
    const KILLS: usize = 20;
    const CHUNK: usize = 10_000;
    let total = KILLS * CHUNK + CHUNK;
    let broker = broker();
    let data = Workdir::new();
    let input = data.path("in.txt");
    let topic = Broker::unique("eos-kill");
    broker.create_topic(&topic, 1);
    let spec = ClusterSpec::new(broker.bootstrap(), "eos-kill").with_extra(EOS);
    let mut cluster = Cluster::start(spec, Runtime::ConnectRs, 3);
    let output = data.path("out.txt");
    let (status, body) = create(&cluster.workers[0], "src", &source(&input, &topic));
    assert_eq!(status, 201, "{body}");
    let (status, body) = create(&cluster.workers[0], "dst", &sink(&topic, &output));
    assert_eq!(status, 201, "{body}");

    let mut rng = Rng(0x5eed_0013);
    let mut fed = 0;
    let (mut source_kills, mut sink_kills) = (0, 0);
    for kill in 0..KILLS {
        wait_for("the source task RUNNING", CONVERGE, || {
            running_on(&mut cluster, "src").is_some()
        });
        append(&input, fed, CHUNK);
        fed += CHUNK;
        // Let the copy of the chunk get under way, then kill a random live worker.
        let copied_before = support::line_count(&output);
        wait_for("the copy to move", COPY, || {
            support::line_count(&output) > copied_before
        });
        std::thread::sleep(Duration::from_millis(rng.below(300)));
        let live: Vec<usize> = (0..cluster.workers.len())
            .filter(|&i| cluster.workers[i].is_alive())
            .collect();
        // Every other kill, on average, hits the worker that runs the source task, and half
        // of the others the one that runs the sink task.
        let owner = running_on(&mut cluster, "src")
            .and_then(|id| cluster.by_id(&id))
            .filter(|i| live.contains(i));
        let sink_owner = running_on(&mut cluster, "dst")
            .and_then(|id| cluster.by_id(&id))
            .filter(|i| live.contains(i));
        let victim = match (owner, sink_owner) {
            (Some(i), _) if rng.chance(50) => i,
            (_, Some(i)) if rng.chance(50) => i,
            _ => live[rng.below(live.len() as u64) as usize],
        };
        let hits_source = Some(victim) == owner;
        let hits_sink = Some(victim) == sink_owner;
        source_kills += usize::from(hits_source);
        sink_kills += usize::from(hits_sink);
        eprintln!(
            "kill {}: worker {}{}{} ({} lines copied of {fed})",
            kill + 1,
            cluster.workers[victim].worker_id(),
            if hits_source {
                ", running the source"
            } else {
                ""
            },
            if hits_sink { ", running the sink" } else { "" },
            support::line_count(&output)
        );
        cluster.kill9(victim);
        cluster.add(Runtime::ConnectRs);
    }
    append(&input, fed, CHUNK);
    fed += CHUNK;
    assert_eq!(fed, total);
    assert!(
        source_kills >= 5,
        "only {source_kills} of {KILLS} kills hit the source's worker"
    );
    assert!(
        sink_kills >= 2,
        "only {sink_kills} of {KILLS} kills hit the sink's worker"
    );

    wait_for("the whole input in the sink's output", COPY, || {
        support::line_count(&output) >= total
    });
    let consumed = read_committed(&broker, &topic, total);
    assert_each_line_once(&consumed, total, "read_committed ConsoleConsumer");
    let copied = std::fs::read(&output).expect("the sink's output");
    assert_each_line_once(&copied, total, "FileStreamSink output");
    assert!(
        copied == std::fs::read(&input).expect("the input"),
        "the sink's output is byte-identical to the input"
    );
}
