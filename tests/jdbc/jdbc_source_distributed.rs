//! A connector's task reconfiguration request in a distributed cluster on a real Kafka broker:
//! two `connect-rs distributed` workers run two JDBC sources, each on a SQLite file of its own
//! (the assignment puts one connector on each worker, so one of them runs on a follower, whose
//! request the leader must take). A table created in each file while the cluster runs is
//! picked up within `table.poll.interval.ms`: the table monitor asks for a reconfiguration
//! (connect-api `ConnectorContext::request_task_reconfiguration`), the new task configurations
//! reach the config topic (written by the leader; sent to it by the follower), REST
//! `/connectors/NAME/tasks` shows the new table in a task's config, and its rows arrive in its
//! topic, with neither worker restarted.

use crate::support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::cluster::{Cluster, ClusterSpec, Runtime, Worker, CONVERGE};
use support::jdbc::{Engine, SourceDb};
use support::kafka::{broker, Broker};

/// `table.poll.interval.ms` of the sources.
const TABLE_POLL: Duration = Duration::from_secs(1);

/// `POST /connectors` through `worker`, asked again while the cluster answers "not now" (a
/// rebalance, no leader known yet).
fn create(worker: &Worker, name: &str, config: &Value) {
    let body = json!({"name": name, "config": config}).to_string();
    let start = Instant::now();
    loop {
        let r = worker
            .client
            .try_send("POST", "/connectors", Some(("application/json", &body)));
        match r {
            Ok(r) if r.status == 201 => return,
            Ok(r) if !matches!(r.status, 409 | 500 | 503) => {
                panic!("POST /connectors ({name}): {} {}", r.status, r.body)
            }
            other => assert!(
                start.elapsed() < CONVERGE,
                "POST /connectors ({name}) not accepted within {CONVERGE:?}: {other:?}"
            ),
        }
        std::thread::park_timeout(Duration::from_millis(200));
    }
}

/// The `tables` of each task of `connector`, as `worker` serves `/connectors/NAME/tasks`.
fn task_tables(worker: &Worker, connector: &str) -> Vec<String> {
    worker
        .get_json(&format!("/connectors/{connector}/tasks"))
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|t| {
            t["config"]["tables"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// The values of `topic` (JSON without schemas), read from the beginning until `n` arrived.
fn consume(broker: &Broker, topic: &str, n: usize) -> Vec<Value> {
    let out = broker.consume_from_beginning(topic, n, 60_000, &[]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

#[test]
fn a_table_created_while_running_reconfigures_the_tasks_through_the_leader() {
    let broker = broker();
    let spec = ClusterSpec::new(broker.bootstrap(), "jdbc-reconf")
        .with_extra("key.converter.schemas.enable=false\nvalue.converter.schemas.enable=false");
    let spec = ClusterSpec {
        converter: "org.apache.kafka.connect.json.JsonConverter".to_owned(),
        ..spec
    };
    let prefix = format!("{}-", spec.group);
    let names = ["c1", "c2"];
    let dbs: Vec<SourceDb> = names
        .iter()
        .map(|_| {
            let db = SourceDb::new(Engine::Sqlite, "reconf");
            db.sql("CREATE TABLE t1 (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
            db.sql("INSERT INTO t1 (v) VALUES ('t1-a')");
            db
        })
        .collect();
    for name in names {
        for table in ["t1", "t2"] {
            broker.create_topic(&format!("{prefix}{name}-{table}"), 1);
        }
    }

    let mut cluster = Cluster::start(spec, Runtime::ConnectRs, 2);
    for (name, db) in names.iter().zip(&dbs) {
        let mut config = json!({
            "connector.class": "JdbcSource",
            "tasks.max": "2",
            "mode": "incrementing",
            "topic.prefix": format!("{prefix}{name}-"),
            "poll.interval.ms": "100",
            "table.poll.interval.ms": TABLE_POLL.as_millis().to_string(),
        });
        for (k, v) in db.connection() {
            config[k] = json!(v);
        }
        create(cluster.live()[0], name, &config);
    }
    // One task each (one table), every task RUNNING, the two connectors on different workers.
    let mut owners = BTreeSet::new();
    for name in names {
        let status = cluster.converged_status(name, CONVERGE, |s| {
            s["connector"]["state"] == "RUNNING"
                && s["tasks"]
                    .as_array()
                    .is_some_and(|t| t.len() == 1 && t.iter().all(|t| t["state"] == "RUNNING"))
        });
        owners.insert(
            status["connector"]["worker_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
    }
    assert_eq!(owners.len(), 2, "the connectors share a worker: {owners:?}");
    for name in names {
        assert_eq!(task_tables(cluster.live()[0], name), ["\"t1\""]);
        assert_eq!(
            consume(&broker, &format!("{prefix}{name}-t1"), 1),
            [json!({"id": 1, "v": "t1-a"})]
        );
    }

    // A second table in each file: two tasks, t2 in the second, its rows in its topic.
    let pids: Vec<u32> = cluster.live().iter().map(|w| w.child.id()).collect();
    let created = Instant::now();
    for db in &dbs {
        db.sql("CREATE TABLE t2 (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
        db.sql("INSERT INTO t2 (v) VALUES ('t2-a'), ('t2-b')");
    }
    for name in names {
        cluster.wait_all(
            &format!("{name}'s tasks to read t1 and t2"),
            Duration::from_secs(30),
            |w| task_tables(w, name) == ["\"t1\"", "\"t2\""],
        );
    }
    let took = created.elapsed();
    for name in names {
        cluster.converged_status(name, CONVERGE, |s| {
            s["tasks"]
                .as_array()
                .is_some_and(|t| t.len() == 2 && t.iter().all(|t| t["state"] == "RUNNING"))
        });
        assert_eq!(
            consume(&broker, &format!("{prefix}{name}-t2"), 2),
            [json!({"id": 1, "v": "t2-a"}), json!({"id": 2, "v": "t2-b"})]
        );
    }

    // Neither worker restarted; the follower sent its connector's configurations to the leader.
    let live = cluster.live();
    assert_eq!(live.len(), 2, "a worker died");
    let now: Vec<u32> = live.iter().map(|w| w.child.id()).collect();
    assert_eq!(now, pids, "a worker process was replaced");
    let logs: Vec<String> = live.iter().map(|w| w.log()).collect();
    assert!(
        logs.iter()
            .any(|l| l.contains("Sending new task configurations to the leader.")),
        "no worker sent task configurations to the leader:\n{}",
        logs.join("\n----\n")
    );
    assert!(
        logs.iter()
            .any(|l| l.contains("Writing task configurations sent by another worker.")),
        "the leader did not write a follower's task configurations:\n{}",
        logs.join("\n----\n")
    );
    eprintln!("both connectors reconfigured {took:?} after the tables were created");
}
