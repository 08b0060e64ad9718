//! Java plugins in distributed mode (issue 28, acceptance): three `connect-rs distributed`
//! workers on the harness broker, each with its own plugin host JVM, share the tasks of Kafka's
//! `VerifiableSourceConnector` and `VerifiableSinkConnector` (3 tasks each); a SIGKILL of a worker
//! moves its tasks to the two others, its JVM dies with it, and every seqno of every source task
//! is in the topic and reached a sink task (at least once).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support;
use crate::worker_kills::{processes_in, verifiable_plugin_path};

use support::cluster::{
    all_in_state, placement, task_owners, Cluster, ClusterSpec, Runtime, Worker, CONVERGE,
    SESSION_TIMEOUT_MS,
};
use support::debezium::{CdcTopics, TopicReader};
use support::kafka::{broker, Broker};
use support::plugin_jars::plugin_jars;
use support::{wait_for, Workdir};

const SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";
const SINK: &str = "org.apache.kafka.connect.tools.VerifiableSinkConnector";
const TASKS: usize = 3;
/// `scheduled.rebalance.max.delay.ms` of the workers: how long the leader keeps a lost
/// worker's tasks for it before it gives them to the others.
const REBALANCE_DELAY_MS: u64 = 1000;

/// `POST /connectors` through `worker`, asked again while the cluster answers "not now"
/// (a rebalance, no leader yet).
pub(crate) fn create(worker: &Worker, name: &str, config: &Value) {
    let body = json!({"name": name, "config": config}).to_string();
    wait_for(&format!("{name} to be created"), CONVERGE, || {
        let r = worker
            .client
            .try_send("POST", "/connectors", Some(("application/json", &body)));
        if let Ok(r) = &r {
            assert!(
                r.status == 201 || matches!(r.status, 409 | 500 | 503),
                "POST /connectors ({name}): {} {}",
                r.status,
                r.body
            );
        }
        r.is_ok_and(|r| r.status == 201)
    });
}

/// The statuses of `vsource` and `vsink` when every live worker gives the same ones and every
/// connector and task is RUNNING.
fn agreed_running(cluster: &mut Cluster) -> Option<[Value; 2]> {
    let live = cluster.live();
    let mut out = Vec::new();
    for name in ["vsource", "vsink"] {
        let first = live.first()?.status(name)?;
        if !all_in_state(&first, "RUNNING", TASKS)
            || live[1..]
                .iter()
                .any(|w| w.status(name).as_ref() != Some(&first))
        {
            return None;
        }
        out.push(first);
    }
    out.try_into().ok()
}

/// Waits until [`agreed_running`] holds and `accept` takes the statuses.
fn wait_running(
    cluster: &mut Cluster,
    timeout: Duration,
    what: &str,
    accept: impl Fn(&[Value; 2]) -> bool,
) -> [Value; 2] {
    let mut found = None;
    wait_for(what, timeout, || {
        found = agreed_running(cluster).filter(&accept);
        found.is_some()
    });
    found.unwrap_or_else(|| unreachable!())
}

/// The seqnos each source task wrote to `topic` (key: the task id; value: the seqno).
fn topic_seqnos(reader: &TopicReader, topic: &str) -> BTreeMap<u64, Vec<u64>> {
    let mut per_task: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for raw in reader.read_all(topic) {
        let text = |b: Option<Vec<u8>>| {
            let s = String::from_utf8(b.expect("key and value")).expect("UTF-8");
            s.parse::<u64>()
                .unwrap_or_else(|e| panic!("{s:?} in {topic}: {e}"))
        };
        per_task
            .entry(text(raw.key))
            .or_default()
            .push(text(raw.value));
    }
    per_task
}

/// A field of a Verifiable task's JSON line: `"name":N` or `"name":"N"`.
fn field(line: &str, name: &str) -> Option<u64> {
    let rest = line.split(&format!("\"{name}\":")).nth(1)?;
    rest.trim_start_matches('"')
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// `(source task, seqno)` of every record a VerifiableSinkTask got in `put`, in the logs of all
/// workers (the killed one's too).
fn sink_puts(cluster: &Cluster) -> BTreeSet<(u64, u64)> {
    cluster
        .workers
        .iter()
        .flat_map(|w| {
            w.log()
                .lines()
                .filter(|l| l.contains("\"sinkTask\"") && !l.contains("\"flushed\""))
                .filter_map(|l| Some((field(l, "task")?, field(l, "seqno")?)))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn three_workers_share_java_plugin_tasks_and_a_killed_workers_tasks_move_with_no_seqno_lost() {
    let began = Instant::now();
    let broker = broker();
    let jars = plugin_jars();
    let plugins = Workdir::new();
    let topic = Broker::unique("vseq");
    broker.create_topic(&topic, TASKS as u32);
    let spec = ClusterSpec::new(broker.bootstrap(), "ph-dist")
        .with_plugins(&verifiable_plugin_path(&plugins), &[])
        .with_extra(&format!(
            "plugin.host.classpath={}\nscheduled.rebalance.max.delay.ms={REBALANCE_DELAY_MS}",
            jars.classpath_string()
        ));
    let mut cluster = Cluster::start(spec, Runtime::ConnectRs, 3);
    create(
        &cluster.workers[0],
        "vsource",
        &json!({
            "connector.class": SOURCE,
            "tasks.max": TASKS.to_string(),
            "topic": topic,
            "throughput": "200",
        }),
    );
    create(
        &cluster.workers[1],
        "vsink",
        &json!({
            "connector.class": SINK,
            "tasks.max": TASKS.to_string(),
            "topics": topic,
            // The tests share the broker: a group of its own.
            "consumer.override.group.id": format!("{topic}-vsink"),
        }),
    );
    let ids: BTreeSet<String> = cluster.live().iter().map(|w| w.worker_id()).collect();
    let statuses = wait_running(
        &mut cluster,
        CONVERGE,
        "both connectors RUNNING with their tasks on every worker, the same status everywhere",
        |s| {
            let mut per: BTreeMap<String, usize> = BTreeMap::new();
            for st in s {
                for (w, n) in placement(st) {
                    *per.entry(w).or_default() += n;
                }
            }
            ids.iter().all(|id| per.get(id).copied().unwrap_or(0) >= 1)
        },
    );
    // The task configurations the leader planned are what every worker shows: the Java
    // connector's own, with the task class it named.
    for (name, task_class) in [
        (
            "vsource",
            "org.apache.kafka.connect.tools.VerifiableSourceTask",
        ),
        ("vsink", "org.apache.kafka.connect.tools.VerifiableSinkTask"),
    ] {
        let path = format!("/connectors/{name}/tasks");
        let planned = cluster.workers[0].get_json(&path).expect("task configs");
        let list = planned.as_array().expect("a list");
        assert_eq!(list.len(), TASKS, "{planned:#}");
        assert!(
            list.iter().all(|t| t["config"]["task.class"] == task_class),
            "{planned:#}"
        );
        for w in &cluster.workers[1..] {
            assert_eq!(w.get_json(&path).as_ref(), Some(&planned), "{path}");
        }
    }
    wait_for("every sink task to get records", CONVERGE, || {
        let puts = sink_puts(&cluster);
        (0..TASKS as u64).all(|t| puts.iter().filter(|(task, _)| *task == t).count() >= 50)
    });

    // SIGKILL the worker that runs source task 0 (and other tasks: 6 tasks over 3 workers).
    let owners = task_owners(&statuses[0]);
    let victim_id = owners[&0].clone();
    let victim = cluster.by_id(&victim_id).expect("the worker of vsource-0");
    let moved: usize = statuses
        .iter()
        .map(|s| placement(s).get(&victim_id).copied().unwrap_or(0))
        .sum();
    let before = topic_seqnos(&TopicReader::new(&broker), &topic);
    let victim_dir = cluster.workers[victim].dir.dir.path().to_owned();
    assert!(
        processes_in(&victim_dir).len() >= 2,
        "the victim and its plugin host JVM run in its directory"
    );
    cluster.kill9(victim);
    let killed_at = Instant::now();
    wait_for(
        "the killed worker's plugin host JVM to die with it",
        Duration::from_secs(20),
        || processes_in(&victim_dir).is_empty(),
    );
    let survivors: BTreeSet<String> = cluster.live().iter().map(|w| w.worker_id()).collect();
    let deadline =
        Duration::from_millis(SESSION_TIMEOUT_MS + REBALANCE_DELAY_MS) + Duration::from_secs(10);
    let after = wait_running(
        &mut cluster,
        deadline,
        "the killed worker's tasks RUNNING on the survivors",
        |s| {
            s.iter().all(|st| {
                st["connector"]["worker_id"]
                    .as_str()
                    .is_some_and(|w| survivors.contains(w))
                    && task_owners(st).values().all(|w| survivors.contains(w))
            })
        },
    );
    let took = killed_at.elapsed();

    // Every source task goes on past what it had written before the kill, from its committed
    // offset (at least once), and every seqno reaches a sink task.
    let reader = TopicReader::new(&broker);
    let past: BTreeMap<u64, u64> = before
        .iter()
        .map(|(t, s)| (*t, s.iter().max().copied().unwrap_or(0) + 100))
        .collect();
    let mut written = BTreeMap::new();
    wait_for(
        "every source task to write 100 seqnos past its last before the kill",
        CONVERGE,
        || {
            written = topic_seqnos(&reader, &topic);
            (0..TASKS as u64).all(|t| {
                written
                    .get(&t)
                    .and_then(|s| s.iter().max())
                    .copied()
                    .unwrap_or(0)
                    >= past.get(&t).copied().unwrap_or(100)
            })
        },
    );
    let max: BTreeMap<u64, u64> = written
        .iter()
        .map(|(t, s)| (*t, s.iter().max().copied().unwrap_or(0)))
        .collect();
    for (task, seqnos) in &written {
        let have: BTreeSet<u64> = seqnos.iter().copied().collect();
        let missing: Vec<u64> = (0..=max[task]).filter(|n| !have.contains(n)).collect();
        assert!(
            missing.is_empty(),
            "seqnos of source task {task} missing in the topic: {missing:?}"
        );
    }
    wait_for(
        "the sink tasks to get past the topic's ends",
        CONVERGE,
        || {
            let puts = sink_puts(&cluster);
            max.iter()
                .all(|(t, m)| puts.iter().any(|(task, s)| task == t && s >= m))
        },
    );
    let puts = sink_puts(&cluster);
    for (task, m) in &max {
        let missing: Vec<u64> = (0..=*m).filter(|n| !puts.contains(&(*task, *n))).collect();
        assert!(
            missing.is_empty(),
            "seqnos of source task {task} that never reached a sink task: {missing:?}"
        );
    }
    let again: usize = written.values().map(Vec::len).sum::<usize>()
        - max.values().map(|m| *m as usize + 1).sum::<usize>();

    // A worker whose plugin.path lacks the Verifiable connectors joins: what the leader gives
    // it fails, naming the class it cannot find, and the others keep running theirs.
    let with_plugins = cluster.spec.clone();
    cluster.spec.extra = format!("scheduled.rebalance.max.delay.ms={REBALANCE_DELAY_MS}\n");
    let bare = cluster.add(Runtime::ConnectRs);
    cluster.spec = with_plugins;
    let bare_id = cluster.workers[bare].worker_id();
    let mut failed = Vec::new();
    wait_for(
        "what the worker without the plugin got to fail",
        CONVERGE,
        || {
            failed = ["vsource", "vsink"]
                .iter()
                .filter_map(|c| cluster.workers[bare].status(c))
                .flat_map(|s| {
                    let mut all = s["tasks"].as_array().cloned().unwrap_or_default();
                    all.push(s["connector"].clone());
                    all
                })
                .filter(|t| t["worker_id"] == bare_id.as_str() && t["state"] == "FAILED")
                .collect();
            !failed.is_empty()
        },
    );
    for f in &failed {
        let trace = f["trace"].as_str().unwrap_or_default();
        assert!(
            trace.contains(
                "Failed to find any class that implements Connector and which name matches \
                 org.apache.kafka.connect.tools.Verifiable"
            ),
            "Kafka's reason, naming the class: {f:#}"
        );
    }
    eprintln!(
        "{moved} tasks moved {took:?} after the SIGKILL (tasks per worker after: {:?}); \
         seqnos up to {max:?} all in the topic ({again} written again) and at the sinks; \
         {} failed on the worker without the plugin; took {:?}",
        after.iter().map(placement).collect::<Vec<_>>(),
        failed.len(),
        began.elapsed()
    );
}
