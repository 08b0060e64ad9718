//! Issue 14's JDBC source acceptance on the real binary: `connect-rs standalone` on the
//! embedded log with a JDBC source on the harness's PostgreSQL (three tables, tasks.max=2) and
//! a FileStreamSink copying its topics to a file.
//!
//! * REST `/connectors/c/tasks` shows two tasks with their `tables` (2 + 1);
//! * rows inserted while running arrive; a fourth table created while running is picked up
//!   by a task reconfiguration within `table.poll.interval.ms`, without a restart;
//! * SIGKILL and restart: rows inserted meanwhile arrive, none is lost;
//! * the stored offsets read through REST have the reference's partition and offset shapes.

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use support::db::postgres;
use support::rest::{start, wait_running};
use support::*;

const WAIT: Duration = Duration::from_secs(60);

/// Rows of the output file: `v` of each JSON line → how often it arrived.
fn arrived(w: &Workdir) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(w.path("out.txt")).unwrap_or_default();
    let mut seen = BTreeMap::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        *seen
            .entry(v["v"].as_str().unwrap_or_default().to_owned())
            .or_insert(0) += 1;
    }
    seen
}

fn has_all(w: &Workdir, expected: &[String]) -> bool {
    let seen = arrived(w);
    expected.iter().all(|e| seen.contains_key(e))
}

fn insert(db: &str, table: &str, from: usize, to: usize) -> Vec<String> {
    let values: Vec<String> = (from..to).map(|i| format!("{table}-{i}")).collect();
    let rows = values
        .iter()
        .map(|v| format!("('{v}')"))
        .collect::<Vec<_>>()
        .join(",");
    postgres().sql(db, &format!("INSERT INTO {table} (v) VALUES {rows}"));
    values
}

#[test]
fn jdbc_source_plans_tasks_picks_up_new_tables_and_resumes_after_sigkill() {
    let pg = postgres();
    let db = pg.create_database("jdbc_source_bin");
    let mut expected = Vec::new();
    for t in ["t1", "t2", "t3"] {
        pg.sql(
            &db,
            &format!("CREATE TABLE {t} (id SERIAL PRIMARY KEY, v TEXT NOT NULL)"),
        );
        expected.extend(insert(&db, t, 0, 3));
    }
    let w = Workdir::new();
    let worker = w.worker("offset.flush.interval.ms=100");
    let source = w.write(
        "c.properties",
        format!(
            "name=c\nconnector.class=JdbcSource\ntasks.max=2\nconnection.url={}\n\
             connection.user={}\nconnection.password={}\nmode=incrementing\ntopic.prefix=db-\n\
             poll.interval.ms=100\ntable.poll.interval.ms=1000\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n\
             value.converter.schemas.enable=false\n",
            pg.jdbc_url(&db),
            pg.user,
            pg.password
        ),
    );
    let sink = w.write(
        "s.properties",
        format!(
            "name=s\nconnector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics.regex=db-.*\n",
            w.path("out.txt").display()
        ),
    );
    let files = [worker.as_path(), source.as_path(), sink.as_path()];
    let mut run = start(&w, &files);
    wait_running(&run.client, "c", WAIT);

    // Two tasks, tables split 2 + 1, each task config = connector config + tables.
    let tasks = run.client.get("/connectors/c/tasks").json();
    let tables: Vec<&str> = tasks
        .as_array()
        .unwrap_or_else(|| panic!("{tasks}"))
        .iter()
        .map(|t| t["config"]["tables"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        tables,
        [r#""public"."t1","public"."t2""#, r#""public"."t3""#],
        "{tasks}"
    );
    assert_eq!(tasks[0]["config"]["mode"], "incrementing", "{tasks}");
    wait_for("the first rows", WAIT, || has_all(&w, &expected));

    // Rows inserted while running arrive.
    expected.extend(insert(&db, "t2", 3, 6));
    wait_for("rows inserted while running", WAIT, || {
        has_all(&w, &expected)
    });

    // SIGKILL, insert while down, restart: nothing is lost.
    run.child.kill().unwrap();
    run.child.wait().unwrap();
    for t in ["t1", "t3"] {
        expected.extend(insert(&db, t, 10, 13));
    }
    let run = start(&w, &files);
    wait_running(&run.client, "c", WAIT);
    expected.extend(insert(&db, "t1", 13, 15));
    wait_for("every row after the restart", WAIT, || {
        has_all(&w, &expected)
    });
    let seen = arrived(&w);
    let extra: Vec<_> = seen.keys().filter(|k| !expected.contains(k)).collect();
    assert!(extra.is_empty(), "rows that were never inserted: {extra:?}");

    // Offsets through REST: the reference's partitions and offsets.
    wait_for("the offsets of the three tables", WAIT, || {
        let r = run.client.get("/connectors/c/offsets");
        let offsets = r.json();
        let parts = offsets["offsets"].as_array().cloned().unwrap_or_default();
        let find = |t: &str| {
            parts
                .iter()
                .find(|p| {
                    p["partition"] == json!({"protocol": "1", "table": format!("public.{t}")})
                })
                .map(|p| p["offset"].clone())
        };
        find("t1") == Some(json!({"incrementing": 8}))
            && find("t2") == Some(json!({"incrementing": 6}))
            && find("t3") == Some(json!({"incrementing": 6}))
    });

    // PATCH of t1's offset (connector stopped) replays t1 from there: ids 6..8 arrive again.
    let r = run.client.put("/connectors/c/stop", &json!({}));
    assert!(r.status < 300, "stop: {} {}", r.status, r.body);
    wait_for("the connector to stop", WAIT, || {
        run.client.get("/connectors/c/status").json()["connector"]["state"] == "STOPPED"
    });
    let body = json!({"offsets": [{
        "partition": {"protocol": "1", "table": "public.t1"},
        "offset": {"incrementing": 5}
    }]});
    let r = run.client.send(
        "PATCH",
        "/connectors/c/offsets",
        Some(("application/json", &body.to_string())),
    );
    assert_eq!(r.status, 200, "PATCH offsets: {}", r.body);
    let r = run.client.put("/connectors/c/resume", &json!({}));
    assert!(r.status < 300, "resume: {} {}", r.status, r.body);
    wait_for("t1's rows after id 5 again", WAIT, || {
        let seen = arrived(&w);
        ["t1-12", "t1-13", "t1-14"]
            .iter()
            .all(|v| seen.get(*v).copied().unwrap_or(0) >= 2)
    });
    assert_eq!(
        arrived(&w)["t1-11"],
        1,
        "rows up to the patched offset are not replayed"
    );

    // A fourth table: picked up by a reconfiguration, no restart.
    pg.sql(
        &db,
        "CREATE TABLE t4 (id SERIAL PRIMARY KEY, v TEXT NOT NULL)",
    );
    expected.extend(insert(&db, "t4", 0, 2));
    wait_for("t4 in the task configs", Duration::from_secs(20), || {
        let tasks = run.client.get("/connectors/c/tasks").json();
        tasks.as_array().is_some_and(|a| {
            a.len() == 2 && a[1]["config"]["tables"] == r#""public"."t3","public"."t4""#
        })
    });
    wait_for("the new table's rows", WAIT, || has_all(&w, &expected));
}
