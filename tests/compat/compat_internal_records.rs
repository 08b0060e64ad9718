//! Internal-records differential: every record kind of the three internal topics is written by
//! Apache Kafka Connect's own code (tests/compat/InternalRecordsOracle.java: the schema
//! constants of `KafkaConfigBackingStore`, its `serializeTargetState`, `KafkaStatusBackingStore`'s
//! `serialize` / `serializeTopicStatus`, and a real `OffsetStorageWriter` flush, all with the
//! worker's internal `JsonConverter`, `schemas.enable=false`) and by connect-rs's encoders in
//! `storage::internal`; key and value bytes must be identical, Kafka's bytes must decode to the
//! same record with connect-rs's decoders, and offsets Kafka refuses must be refused with the
//! same message. Needs Java 17+ and Maven (jars from `scripts/kafka-connect-jars.sh`); without
//! them the test fails and says why.

use crate::support;

use std::fmt::Write as _;
use std::path::Path;

use connect_rs::herder::TargetState;
use connect_rs::storage::internal::{
    offset_records, ComponentState, ConfigProps, ConfigRecord, SessionKey, Status, StatusRecord,
    TopicStatus,
};
use serde_json::{json, Map, Value as Json};

const REPO: &str = env!("CARGO_MANIFEST_DIR");

enum Case {
    Config(ConfigRecord),
    Status(StatusRecord),
    Offset {
        connector: &'static str,
        partition: Option<Map<String, Json>>,
        offset: Option<Map<String, Json>>,
    },
}

fn props(pairs: &[(&str, Option<&str>)]) -> ConfigProps {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned)))
        .collect()
}

fn obj(v: Json) -> Option<Map<String, Json>> {
    match v {
        Json::Object(m) => Some(m),
        _ => None,
    }
}

fn status(
    state: ComponentState,
    trace: Option<&str>,
    generation: i32,
    version: Option<&str>,
) -> Status {
    Status {
        state,
        trace: trace.map(str::to_owned),
        worker_id: "10.0.0.7:8083".to_owned(),
        generation,
        version: version.map(str::to_owned),
    }
}

fn cases() -> Vec<Case> {
    let mut out = vec![
        Case::Config(ConfigRecord::Connector {
            name: "file-src".into(),
            props: Some(props(&[
                ("connector.class", Some("FileStreamSource")),
                ("file", Some("/data/in.txt")),
                ("tasks.max", Some("1")),
                ("topic", Some("lines")),
            ])),
        }),
        Case::Config(ConfigRecord::Connector {
            name: "odd name-é".into(),
            props: Some(props(&[
                ("nulled", None),
                ("quote", Some("a\"b\\c\u{1}\t\n€😀 </script>")),
                ("secret", Some("${file:/s.properties:password}")),
            ])),
        }),
        Case::Config(ConfigRecord::Connector {
            name: "empty".into(),
            props: Some(ConfigProps::new()),
        }),
        Case::Config(ConfigRecord::Task {
            connector: "my-conn-1".into(),
            task: 0,
            props: props(&[("task.class", Some("T")), ("x", None)]),
        }),
        Case::Config(ConfigRecord::Task {
            connector: "c".into(),
            task: 17,
            props: props(&[("k", Some("v"))]),
        }),
    ];
    for tasks in [0, 1, 3, 250] {
        out.push(Case::Config(ConfigRecord::Commit {
            connector: "c".into(),
            tasks,
        }));
    }
    for state in [
        TargetState::Started,
        TargetState::Paused,
        TargetState::Stopped,
    ] {
        out.push(Case::Config(ConfigRecord::TargetState {
            connector: "c-1".into(),
            state: Some(state),
        }));
    }
    for (include_tasks, only_failed) in [(false, false), (true, false), (false, true), (true, true)]
    {
        out.push(Case::Config(ConfigRecord::RestartConnector {
            connector: "c".into(),
            include_tasks,
            only_failed,
        }));
    }
    out.extend([
        Case::Config(ConfigRecord::SessionKey(SessionKey {
            key: (0u8..32).map(|b| b.wrapping_mul(37)).collect(),
            algorithm: "HmacSHA256".into(),
            creation_timestamp: 1_733_000_000_123,
        })),
        Case::Config(ConfigRecord::SessionKey(SessionKey {
            key: vec![0xff],
            algorithm: "HmacSHA512".into(),
            creation_timestamp: 0,
        })),
        Case::Config(ConfigRecord::TaskCountFencing {
            connector: "c".into(),
            task_count: 4,
        }),
        Case::Config(ConfigRecord::LoggerCluster {
            namespace: "org.apache.kafka.connect".into(),
            level: "DEBUG".into(),
        }),
    ]);
    let states = [
        ComponentState::Unassigned,
        ComponentState::Running,
        ComponentState::Paused,
        ComponentState::Failed,
        ComponentState::Restarting,
        ComponentState::Stopped,
    ];
    for (i, state) in states.into_iter().enumerate() {
        let trace = (state == ComponentState::Failed).then_some(
            "org.apache.kafka.connect.errors.ConnectException: boom\n\tat X.y(X.java:1)",
        );
        let version = (i % 2 == 0).then_some("4.3.1");
        out.push(Case::Status(StatusRecord::Connector {
            connector: "my-conn".into(),
            status: Some(status(state, trace, i as i32 * 7, version)),
        }));
        out.push(Case::Status(StatusRecord::Task {
            connector: "my-conn".into(),
            task: i as u32,
            status: Some(status(state, trace, i as i32, version)),
        }));
    }
    out.push(Case::Status(StatusRecord::Topic {
        topic: "lines.v1".into(),
        connector: "file-src".into(),
        status: Some(TopicStatus {
            topic: "lines.v1".into(),
            connector: "file-src".into(),
            task: 3,
            discover_timestamp: 1_733_000_000_999,
        }),
    }));
    let offsets = [
        (
            "file-src",
            json!({"filename": "/data/in.txt"}),
            json!({"position": 1234}),
        ),
        (
            "jdbc",
            json!({"table": "t", "shard": 3, "big": 1_700_000_000_000i64}),
            json!({"ts": 1.5, "id": -9, "done": true, "note": null, "e": 1e10, "s": "é\"\n"}),
        ),
        ("null-partition", Json::Null, json!({"p": 0})),
        ("reset", json!({"f": "x"}), Json::Null),
        ("empty", json!({}), json!({})),
        (
            "nested-offset",
            json!({"f": "x"}),
            json!({"ok": 1, "list": [1, 2]}),
        ),
        ("nested-partition", json!({"p": {"x": 1}}), json!({"o": 1})),
    ];
    for (connector, partition, offset) in offsets {
        out.push(Case::Offset {
            connector,
            partition: obj(partition),
            offset: obj(offset),
        });
    }
    out
}

fn state_name(s: TargetState) -> &'static str {
    match s {
        TargetState::Started => "STARTED",
        TargetState::Paused => "PAUSED",
        TargetState::Stopped => "STOPPED",
    }
}

/// The case as the oracle reads it.
fn case_json(id: &str, case: &Case) -> Json {
    let props_json = |p: &ConfigProps| -> Json {
        p.iter()
            .map(|(k, v)| (k.clone(), v.clone().map_or(Json::Null, Json::String)))
            .collect::<Map<_, _>>()
            .into()
    };
    let status_json = |kind: &str, connector: &str, task: u32, s: &Status| {
        json!({"id": id, "kind": kind, "connector": connector, "task": task,
               "state": s.state.name(), "trace": s.trace, "worker": s.worker_id,
               "generation": s.generation, "version": s.version})
    };
    match case {
        Case::Config(r) => match r {
            ConfigRecord::Connector {
                name,
                props: Some(p),
            } => {
                json!({"id": id, "kind": "connector", "name": name, "props": props_json(p)})
            }
            ConfigRecord::Task {
                connector,
                task,
                props,
            } => {
                json!({"id": id, "kind": "task", "connector": connector, "task": task, "props": props_json(props)})
            }
            ConfigRecord::Commit { connector, tasks } => {
                json!({"id": id, "kind": "commit", "connector": connector, "tasks": tasks})
            }
            ConfigRecord::TargetState {
                connector,
                state: Some(s),
            } => {
                json!({"id": id, "kind": "target", "connector": connector, "state": state_name(*s)})
            }
            ConfigRecord::RestartConnector {
                connector,
                include_tasks,
                only_failed,
            } => json!({
                "id": id, "kind": "restart", "connector": connector,
                "include_tasks": include_tasks, "only_failed": only_failed}),
            ConfigRecord::SessionKey(k) => {
                let hex: String = k.key.iter().map(|b| format!("{b:02x}")).collect();
                json!({"id": id, "kind": "session", "key_hex": hex, "algorithm": k.algorithm, "ts": k.creation_timestamp})
            }
            ConfigRecord::TaskCountFencing {
                connector,
                task_count,
            } => {
                json!({"id": id, "kind": "fencing", "connector": connector, "count": task_count})
            }
            ConfigRecord::LoggerCluster { namespace, level } => {
                json!({"id": id, "kind": "logger", "namespace": namespace, "level": level})
            }
            other => panic!("no oracle case for {other:?}"),
        },
        Case::Status(r) => match r {
            StatusRecord::Connector {
                connector,
                status: Some(s),
            } => status_json("status-connector", connector, 0, s),
            StatusRecord::Task {
                connector,
                task,
                status: Some(s),
            } => status_json("status-task", connector, *task, s),
            StatusRecord::Topic {
                status: Some(t), ..
            } => json!({
                "id": id, "kind": "status-topic", "topic": t.topic, "connector": t.connector,
                "task": t.task, "ts": t.discover_timestamp}),
            other => panic!("no oracle case for {other:?}"),
        },
        Case::Offset {
            connector,
            partition,
            offset,
        } => json!({
            "id": id, "kind": "offset", "connector": connector,
            "partition": partition, "offset": offset}),
    }
}

fn hex(b: Option<&[u8]>) -> String {
    b.map_or_else(
        || "NULL".to_owned(),
        |b| b.iter().map(|x| format!("{x:02x}")).collect(),
    )
}

fn unhex(h: &str) -> Option<Vec<u8>> {
    (h != "NULL").then(|| {
        (0..h.len() / 2)
            .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).expect("hex"))
            .collect()
    })
}

fn shown(h: &str) -> String {
    unhex(h).map_or_else(
        || "NULL".to_owned(),
        |b| String::from_utf8_lossy(&b).into_owned(),
    )
}

/// connect-rs's result line fields for a case, and a check that decodes Kafka's bytes.
fn rust_side(case: &Case) -> String {
    match case {
        Case::Config(r) => {
            let (k, v) = r.encode();
            format!("{}\t{}", hex(Some(k.as_bytes())), hex(v.as_deref()))
        }
        Case::Status(r) => {
            let (k, v) = r.encode();
            format!("{}\t{}", hex(Some(k.as_bytes())), hex(v.as_deref()))
        }
        Case::Offset {
            connector,
            partition,
            offset,
        } => {
            let key = offset_records::encode_key(connector, partition.as_ref());
            let value = offset_records::encode_value(connector, offset.as_ref());
            match (key, value) {
                (Ok(k), Ok(v)) => format!("{}\t{}", hex(Some(&k)), hex(v.as_deref())),
                (Err(e), _) | (_, Err(e)) => format!("ERR {e}"),
            }
        }
    }
}

/// Decodes Kafka's key and value with connect-rs's decoders; a description of any mismatch.
fn decode_check(case: &Case, java: &str) -> Option<String> {
    let (k, v) = java.split_once('\t')?;
    let (k, v) = (unhex(k).unwrap_or_default(), unhex(v));
    let got = match case {
        Case::Config(r) => match ConfigRecord::decode(&k, v.as_deref()) {
            Ok(d) if &d == r => return None,
            other => format!("{other:?}"),
        },
        Case::Status(r) => match StatusRecord::decode(&k, v.as_deref()) {
            Ok(d) if &d == r => return None,
            other => format!("{other:?}"),
        },
        Case::Offset {
            connector,
            partition,
            offset,
        } => {
            let key = offset_records::decode_key(&k);
            let value = offset_records::decode_value(connector, v.as_deref());
            match (&key, &value) {
                (Ok((c, p)), Ok(o)) if c == connector && p == partition && o == offset => {
                    return None
                }
                _ => format!("{key:?} {value:?}"),
            }
        }
    };
    Some(got)
}

#[test]
fn internal_records_match_kafka_connect_byte_for_byte() {
    let work = Path::new(REPO).join("target/compat/internal-records");
    std::fs::create_dir_all(&work).expect("create target/compat/internal-records");
    let oracle = support::kafka_connect::compile_oracle("InternalRecordsOracle.java", &work);

    let cases = cases();
    let ids: Vec<String> = (0..cases.len()).map(|i| format!("case{i}")).collect();
    let mut text = String::new();
    for (id, case) in ids.iter().zip(&cases) {
        text.push_str(&case_json(id, case).to_string());
        text.push('\n');
    }
    let cases_path = work.join("cases.jsonl");
    let results_path = work.join("results-java.tsv");
    std::fs::write(&cases_path, text).expect("write cases");
    let _ = std::fs::remove_file(&results_path);
    oracle.run("InternalRecordsOracle", &[&cases_path, &results_path]);
    let java_text = std::fs::read_to_string(&results_path).expect("read oracle results");
    let java: std::collections::HashMap<&str, &str> = java_text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .collect();

    let mut failures = String::new();
    let mut errors_compared = 0;
    for (id, case) in ids.iter().zip(&cases) {
        let Some(j) = java.get(id.as_str()) else {
            let _ = writeln!(failures, "{id}: no result from Kafka Connect");
            continue;
        };
        let r = rust_side(case);
        if *j != r {
            let show = |s: &str| {
                s.split_once('\t').map_or_else(
                    || s.to_owned(),
                    |(k, v)| format!("key {} value {}", shown(k), shown(v)),
                )
            };
            let _ = writeln!(
                failures,
                "{id}: {}\n  kafka:     {}\n  connect-rs: {}",
                case_json(id, case),
                show(j),
                show(&r)
            );
            continue;
        }
        if j.starts_with("ERR ") {
            errors_compared += 1;
        } else if let Some(problem) = decode_check(case, j) {
            let _ = writeln!(failures, "{id}: Kafka's bytes decode to {problem}");
        }
    }
    assert!(
        failures.is_empty(),
        "differences against Apache Kafka Connect {} ({}):\n{failures}",
        oracle.version,
        oracle.java_version
    );
    assert_eq!(errors_compared, 2, "the two refused offsets were compared");
    assert_eq!(java.len(), cases.len());
}
