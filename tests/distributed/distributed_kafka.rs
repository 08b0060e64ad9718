//! A worker cluster on a real Kafka broker (issue 10, Acceptance): several `connect-rs
//! distributed` processes with one `group.id` share connectors and tasks, agree on their status,
//! take over a killed worker's tasks, rebalance onto a new worker without restarting the tasks
//! that stay, come back whole after a full restart, forward writes to the leader, and take over
//! from (and hand back to) an Apache Kafka Connect cluster on the same group and topics; the
//! same over SASL_SSL.
//!
//! Outputs: every sink writes `file=<name>.txt`, a path relative to the worker process's current
//! directory, so each worker process has its own output file and the sink output is the union
//! of those files. One file shared by several processes would not keep the test honest: a worker
//! killed in the middle of a `write` can leave part of it (Linux stops a write between pages on a
//! fatal signal), and the other workers then append after that torn line; and a FileStreamSink
//! task that opens a file ending in an unterminated line cuts it off, which in a shared file can
//! cut lines another process has just appended.
//! Inputs are absolute paths (a source task must find its file on whichever worker runs it).
//!
//! `DISTRIBUTED_RUNTIME=kafka-connect` runs the scenarios with Apache Kafka Connect's
//! `ConnectDistributed` in place of connect-rs (in the migration, Kafka Connect then takes over
//! from itself): the check that these tests ask for Kafka Connect's behaviour. Kafka Connect then gets
//! `scheduled.rebalance.max.delay.ms=0` in the fail-over scenario (its default waits 5 minutes
//! for a lost worker; connect-rs's default is 0, see issue 10).

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::cluster::{
    all_in_state, placement, task_owners, Cluster, ClusterSpec, Runtime, Worker, CONVERGE,
    SESSION_TIMEOUT_MS,
};
use support::kafka::{broker, dedicated_broker, secure_broker, Broker};
use support::{line_index, numbered_lines, wait_for, Workdir, WIDTH};

/// The runtime the scenarios run: connect-rs, or Kafka Connect with
/// `DISTRIBUTED_RUNTIME=kafka-connect` (see the module doc).
fn under_test() -> Runtime {
    match std::env::var("DISTRIBUTED_RUNTIME").as_deref() {
        Ok("kafka-connect") => Runtime::KafkaConnect,
        Ok("connect-rs") | Err(_) => Runtime::ConnectRs,
        Ok(other) => panic!("DISTRIBUTED_RUNTIME={other}: expected connect-rs or kafka-connect"),
    }
}

/// How long a copy of the test's input may take.
const COPY: Duration = Duration::from_secs(180);
/// The sink's tasks in the spread scenarios.
const SINK_TASKS: usize = 6;

// ---------------------------------------------------------------------------------------------
// Connectors, inputs and outputs
// ---------------------------------------------------------------------------------------------

/// A FileStreamSource reading `input` (absolute) into `topic`.
fn source(class: &str, input: &Path, topic: &str) -> Value {
    json!({
        "connector.class": class,
        "tasks.max": "1",
        "file": input.display().to_string(),
        "topic": topic,
    })
}

/// A FileStreamSink with `tasks` tasks writing `topic` into `file` (relative: one per worker).
/// Its consumer group is named after the topic and the file (`consumer.override.group.id`):
/// the tests share one broker and run in parallel, so groups named after the connector
/// (`connect-dst`) would make the sinks of different tests rebalance each other.
fn sink(class: &str, topic: &str, tasks: usize, file: &str) -> Value {
    json!({
        "connector.class": class,
        "tasks.max": tasks.to_string(),
        "file": file,
        "topics": topic,
        "consumer.override.group.id": format!("{topic}-{file}"),
    })
}

/// Whether a REST answer is Kafka Connect's "not now" (a rebalance, a leader not known yet, a
/// forward that failed while the group changes): worth asking again.
fn retriable(status: u16) -> bool {
    matches!(status, 409 | 500 | 503)
}

/// `POST /connectors` through `worker`, asked again while the cluster answers "not now";
/// returns the 201 body.
fn create(worker: &Worker, name: &str, config: &Value) -> Value {
    let body = json!({"name": name, "config": config});
    let mut last = None;
    let start = Instant::now();
    loop {
        if let Ok(r) = worker.client.try_send(
            "POST",
            "/connectors",
            Some(("application/json", &body.to_string())),
        ) {
            if r.status == 201 {
                return r.json();
            }
            assert!(
                retriable(r.status) && !r.body.contains("already exists"),
                "POST /connectors ({name}) on {}: {} {}",
                worker.worker_id(),
                r.status,
                r.body
            );
            last = Some(r);
        }
        assert!(
            start.elapsed() < CONVERGE,
            "POST /connectors ({name}) on {} not accepted within {CONVERGE:?}: {last:?}",
            worker.worker_id()
        );
        std::thread::park_timeout(Duration::from_millis(200));
    }
}

/// `PUT path` with `body` through `worker`, asked again while the cluster answers "not now";
/// returns the answer (the first that is not "not now").
fn put(worker: &Worker, path: &str, body: &Value) -> support::http::Response {
    let start = Instant::now();
    loop {
        let r = worker
            .client
            .try_send("PUT", path, Some(("application/json", &body.to_string())));
        match r {
            Ok(r) if !retriable(r.status) => return r,
            other => assert!(
                start.elapsed() < CONVERGE,
                "PUT {path} on {}: still {other:?} after {CONVERGE:?}",
                worker.worker_id()
            ),
        }
        std::thread::park_timeout(Duration::from_millis(200));
    }
}

/// Appends numbered lines `from..from + n` (100 bytes each) to `input`.
fn append(input: &Path, from: usize, n: usize) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(input)
        .expect("open the input");
    f.write_all(&numbered_lines(from, n, WIDTH))
        .expect("append to the input");
}

/// The complete lines of `files` (one per worker): input line index → how many times it was
/// written. Every complete line must be a whole numbered line; an unterminated last line (a
/// write cut by SIGKILL, never committed) is left out.
fn delivered(files: &[PathBuf]) -> BTreeMap<usize, usize> {
    let mut seen = BTreeMap::new();
    for file in files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let complete = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(end) => &bytes[..end],
            None => continue,
        };
        for (n, line) in complete.split(|&b| b == b'\n').enumerate() {
            assert!(
                line.len() == WIDTH - 1 && line.starts_with(b"line-"),
                "{} line {n} is not a whole input line: {:?}",
                file.display(),
                String::from_utf8_lossy(line)
            );
            *seen.entry(line_index(line)).or_insert(0) += 1;
        }
    }
    seen
}

/// Cheap progress: the newlines in `files`.
fn newlines(files: &[PathBuf]) -> usize {
    files.iter().map(|f| support::line_count(f)).sum()
}

/// Waits until every input line `0..total` is in `files` at least once; returns the counts.
fn wait_delivered(files: &[PathBuf], total: usize, timeout: Duration) -> BTreeMap<usize, usize> {
    let mut seen = BTreeMap::new();
    let mut checked_at = usize::MAX;
    wait_for(
        &format!("{total} input lines in the sink output"),
        timeout,
        || {
            let n = newlines(files);
            if n < total || n == checked_at {
                return false;
            }
            checked_at = n;
            seen = delivered(files);
            (0..total).all(|i| seen.contains_key(&i))
        },
    );
    seen
}

/// Asserts each input line `0..total` is in the output exactly once and nothing else is.
fn assert_exactly_once(seen: &BTreeMap<usize, usize>, total: usize, what: &str) {
    let twice: Vec<_> = seen
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(i, _)| *i)
        .collect();
    assert!(
        twice.is_empty(),
        "{what}: {} input lines written more than once (re-read), the first: {:?}",
        twice.len(),
        &twice[..twice.len().min(10)]
    );
    let extra: Vec<_> = seen.keys().filter(|&&i| i >= total).collect();
    assert!(
        extra.is_empty(),
        "{what}: lines beyond the input: {extra:?}"
    );
    assert_eq!(seen.len(), total, "{what}: lines missing");
}

/// `NAME` in the directory of every worker of `clusters`.
fn outputs(clusters: &[&Cluster], name: &str) -> Vec<PathBuf> {
    clusters
        .iter()
        .flat_map(|c| c.workers.iter().map(|w| w.file(name)))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Cluster views
// ---------------------------------------------------------------------------------------------

/// When every live worker gives the same status for each connector and every connector with
/// its task count is RUNNING: the statuses, in the order of `connectors`.
fn agreed_running(cluster: &mut Cluster, connectors: &[(&str, usize)]) -> Option<Vec<Value>> {
    let live = cluster.live();
    if live.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for (name, tasks) in connectors {
        let first = live[0].status(name)?;
        if !all_in_state(&first, "RUNNING", *tasks) {
            return None;
        }
        for w in &live[1..] {
            if w.status(name).as_ref() != Some(&first) {
                return None;
            }
        }
        out.push(first);
    }
    Some(out)
}

/// Waits until [`agreed_running`] holds and `accept` takes the statuses; returns them.
fn wait_running(
    cluster: &mut Cluster,
    connectors: &[(&str, usize)],
    timeout: Duration,
    what: &str,
    accept: impl Fn(&Cluster, &[Value]) -> bool,
) -> Vec<Value> {
    let start = Instant::now();
    loop {
        if let Some(statuses) = agreed_running(cluster, connectors) {
            if accept(cluster, &statuses) {
                return statuses;
            }
        }
        if start.elapsed() >= timeout {
            let live: Vec<(String, Vec<Option<Value>>)> = cluster
                .live()
                .iter()
                .map(|w| {
                    (
                        w.worker_id(),
                        connectors.iter().map(|(c, _)| w.status(c)).collect(),
                    )
                })
                .collect();
            panic!("timed out after {timeout:?} waiting for {what}; statuses per worker: {live:?}");
        }
        std::thread::park_timeout(Duration::from_millis(50));
    }
}

/// Tasks of several status bodies per `worker_id`.
fn total_placement(statuses: &[Value]) -> BTreeMap<String, usize> {
    let mut total = BTreeMap::new();
    for s in statuses {
        for (w, n) in placement(s) {
            *total.entry(w).or_insert(0) += n;
        }
    }
    total
}

/// The `worker_id`s of the live workers.
fn live_ids(cluster: &mut Cluster) -> BTreeSet<String> {
    cluster.live().iter().map(|w| w.worker_id()).collect()
}

/// Every task and connector of `statuses` runs on one of `ids`.
fn all_on(statuses: &[Value], ids: &BTreeSet<String>) -> bool {
    statuses.iter().all(|s| {
        s["connector"]["worker_id"]
            .as_str()
            .is_some_and(|w| ids.contains(w))
            && task_owners(s).values().all(|w| ids.contains(w))
    })
}

/// Every worker of `ids` runs between `min` and `max` tasks of `statuses` (and none runs on
/// another worker).
fn spread(statuses: &[Value], ids: &BTreeSet<String>, min: usize, max: usize) -> bool {
    let per = total_placement(statuses);
    per.keys().all(|w| ids.contains(w))
        && ids
            .iter()
            .all(|w| (min..=max).contains(&per.get(w).copied().unwrap_or(0)))
}

/// The three-worker scenario of the first acceptance point, on `spec`: a source (1 task) into a
/// 6-partition topic and a sink with 6 tasks; checks the spread, the agreement of every worker
/// on the status, and the copy. Returns the cluster.
fn three_workers_share_the_tasks(spec: ClusterSpec, topic_broker: &Broker) -> Cluster {
    let data = Workdir::new();
    let input = data.path("in.txt");
    let topic = Broker::unique("spread");
    topic_broker.create_topic(&topic, 6);
    let mut cluster = Cluster::start(spec, under_test(), 3);
    create(
        &cluster.workers[0],
        "src",
        &source("FileStreamSource", &input, &topic),
    );
    create(
        &cluster.workers[1],
        "dst",
        &sink("FileStreamSink", &topic, SINK_TASKS, "out.txt"),
    );
    let ids = live_ids(&mut cluster);
    let statuses = wait_running(
        &mut cluster,
        &[("src", 1), ("dst", SINK_TASKS)],
        CONVERGE,
        "src and dst RUNNING, spread over the 3 workers, the same on every worker",
        |_, s| spread(s, &ids, 2, 3),
    );
    // The sink alone: 6 tasks over 3 workers, 2 each (±1).
    let sinks = placement(&statuses[1]);
    assert_eq!(sinks.len(), 3, "every worker runs sink tasks: {sinks:?}");
    assert!(
        sinks.values().all(|n| (1..=3).contains(n)),
        "sink tasks 2 per worker (±1): {sinks:?}"
    );
    // The status is the same on every worker, and stays so while the data flows.
    append(&input, 0, 20_000);
    let files = outputs(&[&cluster], "out.txt");
    let seen = wait_delivered(&files, 20_000, COPY);
    assert_exactly_once(&seen, 20_000, "the 3-worker copy");
    // Kafka's own tool sees the sink's group: each partition read by one of the tasks' members
    // (spread over the workers as the tasks are), its offset committed.
    let group = format!("{topic}-out.txt");
    let described = topic_broker.tools(
        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
        &[
            "--bootstrap-server",
            topic_broker.bootstrap(),
            "--describe",
            "--group",
            &group,
        ],
    );
    let text = String::from_utf8_lossy(&described.stdout);
    let members: BTreeSet<&str> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|c| c.len() > 8 && c[1] == topic && c[6] != "-")
        .map(|c| c[6])
        .collect();
    assert_eq!(members.len(), SINK_TASKS, "a member per sink task: {text}");
    for c in ["src", "dst"] {
        cluster.converged_status(c, Duration::from_secs(10), |s| {
            s["connector"]["state"] == "RUNNING"
        });
        // Every worker lists the topic (KIP-558), also one that runs none of the tasks that
        // used it: the status topic carries it.
        let topics = json!({ c: {"topics": [topic]} });
        wait_same_everywhere(
            &mut cluster,
            &format!("/connectors/{c}/topics"),
            &topics,
            CONVERGE,
        );
    }
    cluster
}

// ---------------------------------------------------------------------------------------------
// The acceptance points
// ---------------------------------------------------------------------------------------------

/// 1. Three workers spread a source (1 task) and a sink (6 tasks over a 6-partition topic)
///    3 × 2 (±1), and `/connectors/{c}/status` and `/connectors/{c}/topics` are the same on
///    every worker.
#[test]
fn three_workers_spread_the_tasks_and_agree_on_the_status() {
    let broker = broker();
    let spec = ClusterSpec::new(broker.bootstrap(), "dk-spread");
    three_workers_share_the_tasks(spec, &broker);
}

/// 2. SIGKILL a worker mid-stream: its tasks are RUNNING on the others within
///    `session.timeout.ms` + 5 s, and every input line reaches the sink output.
#[test]
fn a_killed_workers_tasks_move_to_the_others_and_no_line_is_lost() {
    const TOTAL: usize = 200_000;
    const CHUNK: usize = 10_000;
    const BACKLOG: usize = 30_000;
    let broker = broker();
    let data = Workdir::new();
    let input = data.path("in.txt");
    let topic = Broker::unique("failover");
    broker.create_topic(&topic, 6);
    let mut spec = ClusterSpec::new(broker.bootstrap(), "dk-failover");
    if under_test() == Runtime::KafkaConnect {
        spec = spec.with_extra("scheduled.rebalance.max.delay.ms=0");
    }
    let mut cluster = Cluster::start(spec, under_test(), 3);
    create(
        &cluster.workers[0],
        "src",
        &source("FileStreamSource", &input, &topic),
    );
    create(
        &cluster.workers[0],
        "dst",
        &sink("FileStreamSink", &topic, SINK_TASKS, "out.txt"),
    );
    let connectors = [("src", 1), ("dst", SINK_TASKS)];
    let ids = live_ids(&mut cluster);
    let statuses = wait_running(
        &mut cluster,
        &connectors,
        CONVERGE,
        "a spread cluster",
        |_, s| spread(s, &ids, 2, 3),
    );
    let files = outputs(&[&cluster], "out.txt");

    // The input grows while the copy runs: a chunk whenever the output is less than BACKLOG
    // lines behind, so records are in flight when the worker dies and keep coming after.
    let feeder = feed(input.clone(), files.clone(), TOTAL, CHUNK, BACKLOG);
    wait_for("60,000 lines copied", COPY, || newlines(&files) >= 60_000);

    // The victim runs the source task (and, with 7 tasks over 3 workers, sink tasks too).
    let victim_id = task_owners(&statuses[0])[&0].clone();
    let victim = cluster.by_id(&victim_id).expect("the source's worker");
    let lost: Vec<u64> = task_owners(&statuses[1])
        .into_iter()
        .filter(|(_, w)| *w == victim_id)
        .map(|(t, _)| t)
        .collect();
    assert!(
        !lost.is_empty(),
        "the victim runs sink tasks too: {statuses:?}"
    );
    assert!(
        newlines(&files) < TOTAL,
        "the kill must come mid-stream; the copy already ended"
    );
    cluster.kill9(victim);
    let killed_at = Instant::now();
    let survivors = live_ids(&mut cluster);
    let deadline = Duration::from_millis(SESSION_TIMEOUT_MS) + Duration::from_secs(5);
    let after = wait_running(
        &mut cluster,
        &connectors,
        deadline,
        "the killed worker's tasks RUNNING on the survivors within session.timeout.ms + 5 s",
        |_, s| all_on(s, &survivors),
    );
    let took = killed_at.elapsed();
    eprintln!(
        "tasks RUNNING on the survivors {took:?} after the SIGKILL; tasks per worker: {:?}",
        total_placement(&after)
    );

    feeder.join().expect("the input feeder");
    let seen = wait_delivered(&files, TOTAL, COPY);
    let duplicates: usize = seen.values().map(|n| n - 1).sum();
    eprintln!("{duplicates} lines delivered again after the SIGKILL (at least once)");
    assert!(seen.keys().all(|&i| i < TOTAL), "no line beyond the input");
}

/// Appends `total` lines to `input` in chunks of `chunk`, each one once the sink output
/// (`files`) is less than `backlog` lines behind the input; fails after [`COPY`] × 2.
fn feed(
    input: PathBuf,
    files: Vec<PathBuf>,
    total: usize,
    chunk: usize,
    backlog: usize,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut written = 0;
        wait_for("the whole input appended", COPY * 2, || {
            if written + chunk <= newlines(&files) + backlog {
                append(&input, written, chunk);
                written += chunk;
            }
            written >= total
        });
    })
}

/// 3. A fourth worker joins: tasks move onto it, and the tasks that stay where they were are
///    not restarted (task starts counted in the workers' logs).
#[test]
fn a_joining_worker_takes_tasks_without_restarting_the_others() {
    let broker = broker();
    let data = Workdir::new();
    let input = data.path("in.txt");
    let topic = Broker::unique("join");
    broker.create_topic(&topic, 6);
    let spec = ClusterSpec::new(broker.bootstrap(), "dk-join");
    let mut cluster = Cluster::start(spec, under_test(), 3);
    create(
        &cluster.workers[0],
        "src",
        &source("FileStreamSource", &input, &topic),
    );
    create(
        &cluster.workers[0],
        "dst",
        &sink("FileStreamSink", &topic, SINK_TASKS, "out.txt"),
    );
    let connectors = [("src", 1), ("dst", SINK_TASKS)];
    let three = live_ids(&mut cluster);
    let before = wait_running(
        &mut cluster,
        &connectors,
        CONVERGE,
        "a spread cluster",
        |_, s| spread(s, &three, 2, 3),
    );
    append(&input, 0, 20_000);
    wait_delivered(&outputs(&[&cluster], "out.txt"), 20_000, COPY);
    let starts = |cluster: &Cluster, c: &str| -> BTreeMap<(String, u32), usize> {
        let mut all = BTreeMap::new();
        for w in &cluster.workers {
            for (task, n) in w.task_starts(c) {
                all.insert((w.worker_id(), task), n);
            }
        }
        all
    };
    for (i, (c, tasks)) in connectors.iter().enumerate() {
        let expected: BTreeMap<(String, u32), usize> = task_owners(&before[i])
            .into_iter()
            .map(|(t, w)| ((w, t as u32), 1))
            .collect();
        assert_eq!(
            starts(&cluster, c),
            expected,
            "each of the {tasks} tasks of {c} started once, on its worker"
        );
    }

    let fourth = cluster.add(under_test());
    let newcomer = cluster.workers[fourth].worker_id();
    let four = live_ids(&mut cluster);
    let after = wait_running(
        &mut cluster,
        &connectors,
        CONVERGE,
        "7 tasks rebalanced over 4 workers (1 or 2 each)",
        |_, s| spread(s, &four, 1, 2),
    );
    assert!(
        total_placement(&after).contains_key(&newcomer),
        "the new worker runs tasks: {after:?}"
    );
    for (i, (c, _)) in connectors.iter().enumerate() {
        let old = task_owners(&before[i]);
        let new = task_owners(&after[i]);
        let counted = starts(&cluster, c);
        for (task, owner) in &new {
            let key = (owner.clone(), *task as u32);
            assert_eq!(
                counted.get(&key),
                Some(&1),
                "task {c}-{task} (was on {}, now on {owner}) started once on {owner}: {counted:?}",
                old[task]
            );
        }
        let moved = new.iter().filter(|(t, w)| old[*t] != **w).count();
        let total: usize = counted.values().sum();
        assert_eq!(
            total,
            new.len() + moved,
            "{c}: only the moved tasks started again ({moved} moved): {counted:?}"
        );
    }
    // The data keeps flowing through the rebalanced cluster.
    append(&input, 20_000, 20_000);
    let seen = wait_delivered(&outputs(&[&cluster], "out.txt"), 40_000, COPY);
    assert!(seen.keys().all(|&i| i < 40_000));
}

/// `GET /connectors/{c}/offsets` of `worker` when it answers 200: its `offsets` array.
fn offsets(worker: &Worker, connector: &str) -> Option<Value> {
    Some(worker.get_json(&format!("/connectors/{connector}/offsets"))?["offsets"].clone())
}

/// The committed source position of a FileStreamSource (its single partition).
fn source_position(worker: &Worker, connector: &str) -> Option<u64> {
    offsets(worker, connector)?.get(0)?["offset"]["position"].as_u64()
}

/// The sum of a sink's committed `kafka_offset`s over its partitions.
/// Only `topic`'s partitions count: sink groups are named after their connector
/// (`connect-<name>`), and the shared broker keeps the groups of earlier runs.
fn sink_committed(worker: &Worker, connector: &str, topic: &str) -> Option<u64> {
    offsets(worker, connector)?
        .as_array()?
        .iter()
        .filter(|o| o["partition"]["kafka_topic"] == topic)
        .map(|o| o["offset"]["kafka_offset"].as_u64())
        .sum()
}

/// Waits until the source committed the whole input and each sink committed `records`.
fn wait_committed(
    worker: &Worker,
    src: &str,
    input: &Path,
    topic: &str,
    sinks: &[&str],
    records: u64,
) {
    let len = std::fs::metadata(input).expect("input").len();
    wait_for(
        "the source's offsets committed to the end of its file",
        COPY,
        || source_position(worker, src) == Some(len),
    );
    for s in sinks {
        wait_for(
            &format!("{s}'s offsets committed ({records})"),
            COPY,
            || sink_committed(worker, s, topic) == Some(records),
        );
    }
}

/// `GET /connectors` of `worker`, sorted (Kafka Connect lists them in no particular order).
fn connector_names(worker: &Worker) -> Option<Vec<String>> {
    let mut names: Vec<String> = serde_json::from_value(worker.get_json("/connectors")?).ok()?;
    names.sort();
    Some(names)
}

/// Every live worker lists exactly `names` (within [`CONVERGE`]).
fn wait_connectors(cluster: &mut Cluster, names: &[&str]) {
    let expected: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    cluster.wait_all(
        &format!("GET /connectors = {names:?} on every worker"),
        CONVERGE,
        |w| connector_names(w).as_ref() == Some(&expected),
    );
}

/// `GET path` on every live worker equals `expected` (within `timeout`).
fn wait_same_everywhere(cluster: &mut Cluster, path: &str, expected: &Value, timeout: Duration) {
    cluster.wait_all(
        &format!("GET {path} = {expected} on every worker"),
        timeout,
        |w| w.get_json(path).as_ref() == Some(expected),
    );
}

/// 4. The whole cluster stopped (SIGTERM) and started again: connectors, task configs, a
///    paused and a stopped connector's states and the offsets come back from the topics; nothing
///    is read again from the start.
#[test]
fn a_restarted_cluster_comes_back_from_its_topics() {
    const FIRST: usize = 20_000;
    const MORE: usize = 5_000;
    let broker = broker();
    let data = Workdir::new();
    let input = data.path("in.txt");
    let topic = Broker::unique("restart");
    broker.create_topic(&topic, 6);
    let spec = ClusterSpec::new(broker.bootstrap(), "dk-restart");
    let mut cluster = Cluster::start(spec.clone(), under_test(), 3);
    let w0 = &cluster.workers[0];
    create(w0, "src", &source("FileStreamSource", &input, &topic));
    create(
        w0,
        "dst",
        &sink("FileStreamSink", &topic, SINK_TASKS, "out.txt"),
    );
    create(
        w0,
        "paused",
        &sink("FileStreamSink", &topic, 2, "paused.txt"),
    );
    create(
        w0,
        "stopped",
        &sink("FileStreamSink", &topic, 2, "stopped.txt"),
    );
    append(&input, 0, FIRST);
    for name in ["out.txt", "paused.txt", "stopped.txt"] {
        let seen = wait_delivered(&outputs(&[&cluster], name), FIRST, COPY);
        assert_exactly_once(&seen, FIRST, name);
    }
    wait_committed(
        &cluster.workers[0],
        "src",
        &input,
        &topic,
        &["dst", "paused", "stopped"],
        FIRST as u64,
    );
    let r = put(&cluster.workers[1], "/connectors/paused/pause", &json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    let r = put(&cluster.workers[2], "/connectors/stopped/stop", &json!({}));
    assert_eq!(r.status, 204, "{}", r.body);
    cluster.converged_status("paused", CONVERGE, |s| all_in_state(s, "PAUSED", 2));
    cluster.converged_status("stopped", CONVERGE, |s| all_in_state(s, "STOPPED", 0));

    // What must come back.
    let names = ["dst", "paused", "src", "stopped"];
    wait_connectors(&mut cluster, &names);
    let w0 = &cluster.workers[0];
    let mut before = BTreeMap::new();
    for c in ["src", "dst", "paused", "stopped"] {
        for what in ["config", "tasks", "offsets"] {
            let path = format!("/connectors/{c}/{what}");
            let body = w0.get_json(&path).unwrap_or_else(|| panic!("GET {path}"));
            before.insert(path, body);
        }
    }

    let dirs = cluster.stop_all();
    append(&input, FIRST, MORE);
    let mut cluster = Cluster::start_in(spec, under_test(), dirs);
    wait_connectors(&mut cluster, &names);
    for (path, body) in before.iter().filter(|(p, _)| !p.ends_with("/offsets")) {
        wait_same_everywhere(&mut cluster, path, body, CONVERGE);
    }
    // The paused and stopped connectors came back paused and stopped; their offsets too.
    cluster.converged_status("paused", CONVERGE, |s| all_in_state(s, "PAUSED", 2));
    cluster.converged_status("stopped", CONVERGE, |s| all_in_state(s, "STOPPED", 0));
    for c in ["paused", "stopped"] {
        let path = format!("/connectors/{c}/offsets");
        wait_same_everywhere(&mut cluster, &path, &before[&path], CONVERGE);
    }
    // The running ones resume from their offsets: exactly the new lines are added.
    let total = FIRST + MORE;
    let seen = wait_delivered(&outputs(&[&cluster], "out.txt"), total, COPY);
    assert_exactly_once(&seen, total, "out.txt after the restart");
    let r = put(&cluster.workers[1], "/connectors/paused/resume", &json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    let seen = wait_delivered(&outputs(&[&cluster], "paused.txt"), total, COPY);
    assert_exactly_once(&seen, total, "paused.txt after the restart and resume");
    let seen = delivered(&outputs(&[&cluster], "stopped.txt"));
    assert_exactly_once(
        &seen,
        FIRST,
        "stopped.txt: a stopped connector wrote nothing more",
    );
}

/// 5. A connector created through any worker is visible on all within 2 s; a config PUT on a
///    follower is forwarded to the leader and applied everywhere.
#[test]
fn writes_through_any_worker_reach_every_worker() {
    let broker = broker();
    let data = Workdir::new();
    let topic = Broker::unique("anywhere");
    let spec = ClusterSpec::new(broker.bootstrap(), "dk-anywhere");
    let mut cluster = Cluster::start(spec, under_test(), 3);
    for i in 0..3 {
        let name = format!("via-{i}");
        let input = data.write(&format!("{name}.txt"), "a\nb\n");
        let created = create(
            &cluster.workers[i],
            &name,
            &source("FileStreamSource", &input, &topic),
        );
        assert_eq!(created["name"], name.as_str(), "{created}");
        let at = Instant::now();
        cluster.wait_all(
            &format!("{name} (created through worker {i}) visible on every worker within 2 s"),
            Duration::from_secs(2),
            |w| {
                w.try_get(&format!("/connectors/{name}"))
                    .is_some_and(|r| r.status == 200)
            },
        );
        eprintln!("{name} visible everywhere after {:?}", at.elapsed());
    }
    // Every worker takes a config change in turn: at least two of them are followers.
    for (round, i) in [1usize, 2, 0, 1].into_iter().enumerate() {
        let name = format!("via-{}", (i + 1) % 3);
        let mut config = source(
            "FileStreamSource",
            &data.path(&format!("{name}.txt")),
            &topic,
        );
        let batch = (100 + round).to_string();
        config["batch.size"] = json!(batch);
        let r = put(
            &cluster.workers[i],
            &format!("/connectors/{name}/config"),
            &config,
        );
        assert_eq!(
            r.status, 200,
            "PUT config of {name} on worker {i}: {}",
            r.body
        );
        let body = r.json();
        assert_eq!(body["config"]["batch.size"], batch.as_str(), "{body}");
        let at = Instant::now();
        cluster.wait_all(
            &format!("the new config of {name} (PUT on worker {i}) on every worker within 2 s"),
            Duration::from_secs(2),
            |w| {
                w.get_json(&format!("/connectors/{name}/config"))
                    .is_some_and(|c| c["batch.size"] == batch.as_str())
            },
        );
        eprintln!(
            "{name}'s new config visible everywhere after {:?}",
            at.elapsed()
        );
        // Applied: the task runs with it, as every worker reports.
        cluster.wait_all(
            &format!("{name}'s task configured with batch.size={batch} on every worker"),
            CONVERGE,
            |w| {
                w.get_json(&format!("/connectors/{name}/tasks"))
                    .is_some_and(|t| t[0]["config"]["batch.size"] == batch.as_str())
            },
        );
        cluster.converged_status(&name, CONVERGE, |s| all_in_state(s, "RUNNING", 1));
    }
    // The offsets endpoints work through any worker: via-0's committed source offset is read
    // on every worker, and a reset sent to followers (forwarded to the leader) empties it
    // everywhere.
    let len = std::fs::metadata(data.path("via-0.txt")).unwrap().len();
    cluster.wait_all("via-0's committed offset on every worker", CONVERGE, |w| {
        source_position(w, "via-0") == Some(len)
    });
    let r = put(&cluster.workers[1], "/connectors/via-0/stop", &json!({}));
    assert_eq!(r.status, 204, "{}", r.body);
    cluster.converged_status("via-0", CONVERGE, |s| all_in_state(s, "STOPPED", 0));
    for i in [2, 0] {
        let r = send_retrying(&cluster.workers[i], "DELETE", "/connectors/via-0/offsets");
        assert_eq!(r.status, 200, "DELETE offsets on worker {i}: {}", r.body);
        assert_eq!(
            r.json()["message"],
            "The offsets for this connector have been reset successfully"
        );
    }
    cluster.wait_all("via-0's offsets reset on every worker", CONVERGE, |w| {
        offsets(w, "via-0").is_some_and(|o| o.as_array().is_some_and(Vec::is_empty))
    });
}

/// `method path` (no body) through `worker`, asked again while the cluster answers "not now".
fn send_retrying(worker: &Worker, method: &str, path: &str) -> support::http::Response {
    let start = Instant::now();
    loop {
        match worker.client.try_send(method, path, None) {
            Ok(r) if !retriable(r.status) => return r,
            other => assert!(
                start.elapsed() < CONVERGE,
                "{method} {path} on {}: still {other:?} after {CONVERGE:?}",
                worker.worker_id()
            ),
        }
        std::thread::park_timeout(Duration::from_millis(200));
    }
}

/// The Java class names of the FileStream connectors (connect-rs takes them as aliases).
const JAVA_SOURCE: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";
const JAVA_SINK: &str = "org.apache.kafka.connect.file.FileStreamSinkConnector";

/// One leg of the migration: `cluster` runs `src` and a paused `dst`; resumes `dst`, waits for
/// every line `0..upto` exactly once in `files`, pauses `dst` again, appends `upto..upto+n`
/// (read by the source, not yet by the paused sink), waits for the source's offsets, and stops
/// the cluster.
fn copy_then_hand_over(
    cluster: Cluster,
    files: &[PathBuf],
    input: &Path,
    upto: usize,
    n: usize,
    who: &str,
) -> Vec<Workdir> {
    let w = &cluster.workers[0];
    let r = put(w, "/connectors/dst/resume", &json!({}));
    assert_eq!(r.status, 202, "{who}: resume: {}", r.body);
    let seen = wait_delivered(files, upto, COPY);
    assert_exactly_once(&seen, upto, &format!("{who}: the output"));
    let r = put(w, "/connectors/dst/pause", &json!({}));
    assert_eq!(r.status, 202, "{who}: pause: {}", r.body);
    let mut cluster = cluster;
    cluster.converged_status("dst", CONVERGE, |s| all_in_state(s, "PAUSED", 2));
    append(input, upto, n);
    let len = std::fs::metadata(input).expect("input").len();
    wait_for(
        &format!("{who}: the source's offsets at the end of the input"),
        COPY,
        || source_position(&cluster.workers[0], "src") == Some(len),
    );
    cluster.stop_all()
}

/// 6. Migration: an Apache Kafka Connect cluster (`ConnectDistributed`) runs a FileStream
///    source and sink; connect-rs workers on the same group and topics show the same connectors
///    and configs and continue from Java's offsets (none lost, none read again), reading the
///    records Java's source wrote; then Kafka Connect takes over again from connect-rs's. Each
///    side reads the other's active-topic records (KIP-558) from the status topic.
#[test]
fn a_kafka_connect_cluster_migrates_to_connect_rs_and_back() {
    const STEP: usize = 5_000;
    let broker = broker();
    let data = Workdir::new();
    let input = data.path("in.txt");
    let topic = Broker::unique("migrate");
    broker.create_topic(&topic, 2);
    let mut spec = ClusterSpec::new(broker.bootstrap(), "dk-migrate");
    spec.converter = "org.apache.kafka.connect.json.JsonConverter".to_owned();

    // Kafka Connect runs the job; its sink is paused before the last lines, so the topic holds
    // records its source wrote that no sink has read.
    let mut java = Cluster::start(spec.clone(), Runtime::KafkaConnect, 2);
    create(
        &java.workers[0],
        "src",
        &source(JAVA_SOURCE, &input, &topic),
    );
    create(
        &java.workers[1],
        "dst",
        &sink(JAVA_SINK, &topic, 2, "out.txt"),
    );
    java.converged_status("dst", CONVERGE, |s| all_in_state(s, "RUNNING", 2));
    append(&input, 0, 2 * STEP);
    let mut files = outputs(&[&java], "out.txt");
    let seen = wait_delivered(&files, 2 * STEP, COPY);
    assert_exactly_once(&seen, 2 * STEP, "Kafka Connect's copy");
    let r = put(&java.workers[0], "/connectors/dst/pause", &json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    java.converged_status("dst", CONVERGE, |s| all_in_state(s, "PAUSED", 2));
    append(&input, 2 * STEP, STEP);
    let len = std::fs::metadata(&input).expect("input").len();
    wait_for("Kafka Connect's source offsets at the end", COPY, || {
        source_position(&java.workers[0], "src") == Some(len)
    });
    let mut defined = BTreeMap::new();
    for c in ["src", "dst"] {
        for what in ["config", "tasks"] {
            let path = format!("/connectors/{c}/{what}");
            let body = java.workers[0]
                .get_json(&path)
                .unwrap_or_else(|| panic!("GET {path}"));
            defined.insert(path, body);
        }
    }
    // The stopped workers' directories (and outputs) are kept to the end.
    let _java_dirs = java.stop_all();

    // connect-rs takes over: same connectors, configs, task configs, the paused state; resumed,
    // its sink reads Java's records from Java's committed offsets and its source continues
    // from Java's position.
    append(&input, 3 * STEP, STEP);
    let mut rs = Cluster::start(spec.clone(), under_test(), 2);
    wait_connectors(&mut rs, &["dst", "src"]);
    for (path, body) in &defined {
        wait_same_everywhere(&mut rs, path, body, CONVERGE);
    }
    rs.converged_status("dst", CONVERGE, |s| all_in_state(s, "PAUSED", 2));
    // The topic Kafka Connect's sink used (KIP-558) is read from the status topic: the paused
    // sink has consumed nothing here. Reset, it is used again by connect-rs below.
    let dst_topics = json!({"dst": {"topics": [topic]}});
    wait_same_everywhere(&mut rs, "/connectors/dst/topics", &dst_topics, CONVERGE);
    let r = put(&rs.workers[1], "/connectors/dst/topics/reset", &json!({}));
    assert_eq!(r.status, 202, "{}", r.body);
    let none = json!({"dst": {"topics": []}});
    wait_same_everywhere(&mut rs, "/connectors/dst/topics", &none, CONVERGE);
    files.extend(outputs(&[&rs], "out.txt"));
    let rs_dirs = copy_then_hand_over(rs, &files, &input, 4 * STEP, STEP, "connect-rs");

    // And back: Kafka Connect reads connect-rs's records and offsets.
    append(&input, 5 * STEP, STEP);
    let mut java = Cluster::start(spec, Runtime::KafkaConnect, 2);
    wait_connectors(&mut java, &["dst", "src"]);
    for (path, body) in &defined {
        wait_same_everywhere(&mut java, path, body, CONVERGE);
    }
    java.converged_status("dst", CONVERGE, |s| all_in_state(s, "PAUSED", 2));
    // Its sink's own record was reset by connect-rs: the topic it shows is connect-rs's.
    wait_same_everywhere(&mut java, "/connectors/dst/topics", &dst_topics, CONVERGE);
    files.extend(outputs(&[&java], "out.txt"));
    copy_then_hand_over(java, &files, &input, 6 * STEP, STEP, "Kafka Connect again");
    drop(rs_dirs);
}

/// 7. The three-worker scenario over the broker's SASL_SSL listener (SCRAM-SHA-512, PKCS12
///    truststore), for the workers' group membership, internal topics and tasks alike.
#[test]
fn three_workers_share_the_tasks_over_sasl_ssl() {
    let sb = secure_broker();
    let client = format!(
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n\
         sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
         username=\"{}\" password=\"{}\";\n\
         ssl.truststore.type=PKCS12\nssl.truststore.location={}\nssl.truststore.password={}",
        sb.user,
        sb.password,
        sb.tls_dir.join("truststore.p12").display(),
        sb.store_password
    );
    let prefixed =
        |prefix: &str| -> String { client.lines().map(|l| format!("{prefix}{l}\n")).collect() };
    let spec = ClusterSpec::new(&sb.sasl_ssl, "dk-sasl-ssl").with_extra(&format!(
        "{client}\n{}{}",
        prefixed("producer."),
        prefixed("consumer.")
    ));
    let cluster = three_workers_share_the_tasks(spec, &sb.broker);
    for w in &cluster.workers {
        assert!(
            !w.log().contains(&sb.password),
            "a worker log shows the SASL password"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Cluster-wide logger levels (KIP-976, issue 35)
// ---------------------------------------------------------------------------------------------

/// Loggers the scenarios set (Kafka Connect knows any name; connect-rs maps these onto its own
/// code).
const RUNTIME_LOGGER: &str = "org.apache.kafka.connect.runtime";
const STORAGE_LOGGER: &str = "org.apache.kafka.connect.storage";
const JSON_LOGGER: &str = "org.apache.kafka.connect.json";

/// `GET /admin/loggers/{name}` on `worker` when it answers 200.
fn logger(worker: &Worker, name: &str) -> Option<Value> {
    worker.get_json(&format!("/admin/loggers/{name}"))
}

/// Whether `worker` reports logger `name` at `level`, changed at run time (`last_modified` set),
/// in `GET /admin/loggers/{name}` and in the list of `GET /admin/loggers`.
fn applied(worker: &Worker, name: &str, level: &str) -> bool {
    let set = |l: &Value| l["level"] == level && l["last_modified"].is_u64();
    logger(worker, name).is_some_and(|l| set(&l))
        && worker
            .get_json("/admin/loggers")
            .is_some_and(|all| set(&all[name]))
}

/// Whether `worker` does not report logger `name` at `level` (it has no such logger, or
/// another level).
fn not_at(worker: &Worker, name: &str, level: &str) -> bool {
    logger(worker, name).is_none_or(|l| l["level"] != level)
}

/// `PUT /admin/loggers/{name}?scope=cluster` with `{"level": level}` on `worker`: Kafka Connect's
/// 204 without a body.
fn set_cluster_level(worker: &Worker, name: &str, level: &str) {
    let r = worker.client.put(
        &format!("/admin/loggers/{name}?scope=cluster"),
        &json!({ "level": level }),
    );
    assert_eq!(
        r.status,
        204,
        "cluster-scope PUT of {name} on {}: {}",
        worker.worker_id(),
        r.body
    );
    assert!(r.body.is_empty(), "a 204 has no body: {}", r.body);
}

/// The `logger-cluster-` records of `topic` as Kafka's console consumer prints them (key, tab,
/// value), in the order written.
fn logger_records(broker: &Broker, topic: &str) -> Vec<String> {
    let out =
        broker.consume_from_beginning(topic, 10_000, 5_000, &["--property", "print.key=true"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("logger-cluster-"))
        .map(str::to_owned)
        .collect()
}

/// Waits until `worker` reports itself healthy (`GET /health` 200: it completed start-up, its
/// read of the config topic included).
fn wait_healthy(worker: &Worker) {
    wait_for(&format!("{} healthy", worker.worker_id()), CONVERGE, || {
        worker.try_get("/health").is_some_and(|r| r.status == 200)
    });
}

/// How long every worker may take to apply a cluster-wide level once it is written.
const LOGGER_SPREAD: Duration = Duration::from_secs(5);

/// 8. Cluster-wide logger levels (KIP-976): a cluster-scope PUT on one worker writes
///    `logger-cluster-<namespace>` to the config topic and every worker applies it within
///    seconds; a worker started afterwards does not apply what was written before it started
///    (but does apply later records); a worker-scope PUT changes that worker only.
#[test]
fn a_cluster_scope_logger_level_reaches_every_worker() {
    let broker = broker();
    let spec = ClusterSpec::new(broker.bootstrap(), "dk-loggers");
    let mut cluster = Cluster::start(spec, under_test(), 3);
    for w in &cluster.workers {
        wait_healthy(w);
        assert!(not_at(w, RUNTIME_LOGGER, "DEBUG"), "{}", w.worker_id());
    }

    set_cluster_level(&cluster.workers[1], RUNTIME_LOGGER, "DEBUG");
    let at = Instant::now();
    cluster.wait_all(
        &format!("{RUNTIME_LOGGER} at DEBUG on every worker within {LOGGER_SPREAD:?}"),
        LOGGER_SPREAD,
        |w| applied(w, RUNTIME_LOGGER, "DEBUG"),
    );
    eprintln!("DEBUG on every worker after {:?}", at.elapsed());
    let topic = cluster.spec.config_topic.clone();
    assert_eq!(
        logger_records(&broker, &topic),
        [format!(
            r#"logger-cluster-{RUNTIME_LOGGER}	{{"level":"DEBUG"}}"#
        )]
    );

    // A worker started afterwards keeps its own level: the record was written before it
    // started. It applies a later one, so it has read past the first.
    let late = cluster.add(under_test());
    wait_healthy(&cluster.workers[late]);
    set_cluster_level(&cluster.workers[late], STORAGE_LOGGER, "TRACE");
    cluster.wait_all(
        &format!("{STORAGE_LOGGER} at TRACE on every worker, the new one included"),
        LOGGER_SPREAD,
        |w| applied(w, STORAGE_LOGGER, "TRACE"),
    );
    let w = &cluster.workers[late];
    assert!(
        not_at(w, RUNTIME_LOGGER, "DEBUG"),
        "the worker started after the record applied it: {:?}",
        logger(w, RUNTIME_LOGGER)
    );

    // Worker scope: that worker only. A later cluster-wide record, applied everywhere, shows
    // that the others have read everything written before it.
    let r = cluster.workers[2].client.put(
        &format!("/admin/loggers/{RUNTIME_LOGGER}"),
        &json!({"level": "WARN"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.json()
            .as_array()
            .is_some_and(|a| a.contains(&json!(RUNTIME_LOGGER))),
        "{}",
        r.body
    );
    set_cluster_level(&cluster.workers[0], JSON_LOGGER, "error");
    cluster.wait_all(
        &format!("{JSON_LOGGER} at ERROR on every worker"),
        LOGGER_SPREAD,
        |w| applied(w, JSON_LOGGER, "ERROR"),
    );
    for (i, w) in cluster.workers.iter().enumerate() {
        let level = logger(w, RUNTIME_LOGGER).map(|l| l["level"].clone());
        match i {
            2 => assert_eq!(level, Some(json!("WARN")), "the worker-scope PUT's worker"),
            _ if i == late => assert!(not_at(w, RUNTIME_LOGGER, "DEBUG"), "{level:?}"),
            _ => assert_eq!(level, Some(json!("DEBUG")), "worker {i} keeps DEBUG"),
        }
    }
    // The level is written as the request spelled it, as Kafka Connect writes it.
    assert_eq!(
        logger_records(&broker, &topic),
        [
            format!(r#"logger-cluster-{RUNTIME_LOGGER}	{{"level":"DEBUG"}}"#),
            format!(r#"logger-cluster-{STORAGE_LOGGER}	{{"level":"TRACE"}}"#),
            format!(r#"logger-cluster-{JSON_LOGGER}	{{"level":"error"}}"#),
        ]
    );
}

/// 9. Cluster-wide logger levels between runtimes: in one group, a cluster-scope PUT on a
///    connect-rs worker changes an Apache Kafka Connect worker's level, and one on the Kafka
///    Connect worker changes connect-rs's: each applies the record the other wrote.
#[test]
fn cluster_scope_logger_levels_cross_between_kafka_connect_and_connect_rs() {
    let broker = broker();
    let spec = ClusterSpec::new(broker.bootstrap(), "dk-loggers-mixed");
    let mut cluster = Cluster::start(spec, Runtime::KafkaConnect, 1);
    let rs = cluster.add(Runtime::ConnectRs);
    for w in &cluster.workers {
        wait_healthy(w);
    }
    let (java, rs) = (&cluster.workers[0], &cluster.workers[rs]);
    assert!(not_at(java, RUNTIME_LOGGER, "DEBUG"));

    set_cluster_level(rs, RUNTIME_LOGGER, "DEBUG");
    wait_for(
        "Kafka Connect applies connect-rs's record",
        LOGGER_SPREAD,
        || applied(java, RUNTIME_LOGGER, "DEBUG"),
    );
    assert!(
        applied(rs, RUNTIME_LOGGER, "DEBUG"),
        "{:?}",
        logger(rs, RUNTIME_LOGGER)
    );

    set_cluster_level(java, JSON_LOGGER, "TRACE");
    wait_for(
        "connect-rs applies Kafka Connect's record",
        LOGGER_SPREAD,
        || applied(rs, JSON_LOGGER, "TRACE"),
    );
    wait_for(
        "Kafka Connect applies its own record",
        LOGGER_SPREAD,
        || applied(java, JSON_LOGGER, "TRACE"),
    );
    assert_eq!(
        logger_records(&broker, &cluster.spec.config_topic),
        [
            format!(r#"logger-cluster-{RUNTIME_LOGGER}	{{"level":"DEBUG"}}"#),
            format!(r#"logger-cluster-{JSON_LOGGER}	{{"level":"TRACE"}}"#),
        ]
    );
}

/// `PUT path` with `body` through `worker`, waiting up to `timeout` for the answer (the test
/// client gives up after 30 s, as long as the write this waits for may take).
fn put_waiting(
    worker: &Worker,
    path: &str,
    body: &Value,
    timeout: Duration,
) -> support::http::Response {
    use std::io::Read;
    let addr = worker.client.addr;
    let mut stream = std::net::TcpStream::connect(addr).expect("connect to the worker");
    stream
        .set_read_timeout(Some(timeout))
        .expect("a read timeout");
    let body = body.to_string();
    write!(
        stream,
        "PUT {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send the request");
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("PUT {path}: no answer within {timeout:?}: {e}"));
    support::http::parse_response(&raw).expect("an HTTP response")
}

/// 10. A cluster-wide level that cannot be written (the broker is down) is Kafka Connect's
///     500 `Error writing logger level to Kafka` after its 30 s write timeout, not a 204.
#[test]
fn a_cluster_scope_logger_level_that_cannot_be_written_is_a_500() {
    let broker = dedicated_broker("loggers-outage");
    let spec = ClusterSpec::new(broker.bootstrap(), "dk-loggers-outage");
    let cluster = Cluster::start(spec, under_test(), 1);
    let w = &cluster.workers[0];
    wait_healthy(w);
    broker.pause();
    let asked = Instant::now();
    let r = put_waiting(
        w,
        &format!("/admin/loggers/{RUNTIME_LOGGER}?scope=cluster"),
        &json!({"level": "DEBUG"}),
        Duration::from_secs(90),
    );
    let waited = asked.elapsed();
    broker.resume();
    assert_eq!(r.status, 500, "{}", r.body);
    assert_eq!(
        r.json(),
        json!({"error_code": 500, "message": "Error writing logger level to Kafka"})
    );
    assert!(
        waited >= Duration::from_secs(29),
        "answered after {waited:?}"
    );
}
