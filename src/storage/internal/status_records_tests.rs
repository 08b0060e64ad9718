//! Status-topic records: Kafka's exact bytes (from `KafkaStatusBackingStore`'s schemas written
//! by `JsonConverter` with `schemas.enable=false`), key parsing, and the cache's rules.

use super::*;

fn status(state: ComponentState, trace: Option<&str>, worker: &str, generation: i32) -> Status {
    Status {
        state,
        trace: trace.map(str::to_owned),
        worker_id: worker.to_owned(),
        generation,
        version: None,
    }
}

fn text(v: Option<Vec<u8>>) -> Option<String> {
    v.map(|v| String::from_utf8(v).expect("utf-8"))
}

#[test]
fn records_encode_to_kafkas_bytes_and_decode_back() {
    let cases = vec![
        (
            StatusRecord::Connector {
                connector: "c".into(),
                status: Some(status(ComponentState::Running, None, "h:8083", 3)),
            },
            "status-connector-c",
            Some(
                r#"{"state":"RUNNING","trace":null,"worker_id":"h:8083","generation":3,"version":null}"#,
            ),
        ),
        (
            StatusRecord::Task {
                connector: "my-conn".into(),
                task: 2,
                status: Some(status(
                    ComponentState::Failed,
                    Some("boom\n\tat X"),
                    "h:8083",
                    0,
                )),
            },
            "status-task-my-conn-2",
            Some(
                r#"{"state":"FAILED","trace":"boom\n\tat X","worker_id":"h:8083","generation":0,"version":null}"#,
            ),
        ),
        (
            StatusRecord::Connector {
                connector: "c".into(),
                status: None,
            },
            "status-connector-c",
            None,
        ),
        (
            StatusRecord::Task {
                connector: "c".into(),
                task: 0,
                status: None,
            },
            "status-task-c-0",
            None,
        ),
        (
            StatusRecord::Topic {
                topic: "t.1".into(),
                connector: "c".into(),
                status: Some(TopicStatus {
                    topic: "t.1".into(),
                    connector: "c".into(),
                    task: 1,
                    discover_timestamp: 1_700_000_000_000,
                }),
            },
            "status-topic-t.1:connector-c",
            Some(
                r#"{"topic":{"name":"t.1","connector":"c","task":1,"discoverTimestamp":1700000000000}}"#,
            ),
        ),
        (
            StatusRecord::Topic {
                topic: "t".into(),
                connector: "c".into(),
                status: None,
            },
            "status-topic-t:connector-c",
            None,
        ),
    ];
    for (record, key, value) in cases {
        let (k, v) = record.encode();
        assert_eq!(k, key);
        assert_eq!(text(v.clone()).as_deref(), value, "{key}");
        assert_eq!(
            StatusRecord::decode(k.as_bytes(), v.as_deref()).expect("decode"),
            record
        );
    }
    // A known plugin version is written; records of workers before KIP-891 have none.
    let mut with_version = status(ComponentState::Running, None, "w", 1);
    with_version.version = Some("3.9.0".into());
    let record = StatusRecord::Connector {
        connector: "c".into(),
        status: Some(with_version),
    };
    let (k, v) = record.encode();
    assert_eq!(
        text(v.clone()).as_deref(),
        Some(
            r#"{"state":"RUNNING","trace":null,"worker_id":"w","generation":1,"version":"3.9.0"}"#
        )
    );
    assert_eq!(StatusRecord::decode(k.as_bytes(), v.as_deref()), Ok(record));
    assert_eq!(
        StatusRecord::decode(
            b"status-task-c-0",
            Some(br#"{"state":"PAUSED","trace":null,"worker_id":"w","generation":2}"#)
        ),
        Ok(task_record(
            0,
            Some(status(ComponentState::Paused, None, "w", 2))
        ))
    );
    // Every state writes its name; DESTROYED is a tombstone.
    for state in [
        ComponentState::Unassigned,
        ComponentState::Paused,
        ComponentState::Restarting,
        ComponentState::Stopped,
    ] {
        let (_, v) = StatusRecord::Connector {
            connector: "c".into(),
            status: Some(status(state, None, "w", 1)),
        }
        .encode();
        assert!(text(v)
            .expect("value")
            .starts_with(&format!(r#"{{"state":"{}""#, state.name())));
    }
    let destroyed = StatusRecord::Task {
        connector: "c".into(),
        task: 0,
        status: Some(status(ComponentState::Destroyed, None, "w", 1)),
    };
    assert_eq!(destroyed.encode(), ("status-task-c-0".to_owned(), None));
}

#[test]
fn keys_are_parsed_as_kafka_parses_them() {
    let v = Some(&br#"{"state":"RUNNING","trace":null,"worker_id":"w","generation":1}"#[..]);
    let task = |key: &str| match StatusRecord::decode(key.as_bytes(), v) {
        Ok(StatusRecord::Task {
            connector, task, ..
        }) => Some((connector, task)),
        Err(RecordError::Key { key: k, .. }) => {
            assert_eq!(k, key);
            None
        }
        other => panic!("{key}: {other:?}"),
    };
    assert_eq!(task("status-task-a-b-3"), Some(("a-b".into(), 3)));
    assert_eq!(task("status-task-a--3"), Some(("a-".into(), 3)));
    assert_eq!(task("status-task-a"), None);
    assert_eq!(task("status-task-a-x"), None);

    let topic = |key: &str| match StatusRecord::decode(key.as_bytes(), None) {
        Ok(StatusRecord::Topic {
            topic, connector, ..
        }) => Some((topic, connector)),
        Err(RecordError::Key { .. }) => None,
        other => panic!("{key}: {other:?}"),
    };
    assert_eq!(
        topic("status-topic-t:connector-c:x"),
        Some(("t".into(), "c:x".into()))
    );
    // Kafka skips the separator's length without checking its text.
    assert_eq!(
        topic("status-topic-t:XXXXXXXXXXc"),
        Some(("t".into(), "c".into()))
    );
    assert_eq!(topic("status-topic-t"), None);
    assert_eq!(topic("status-topic-:connector-c"), None);
    assert_eq!(topic("status-topic-t:connector-"), None);
    assert_eq!(topic("status-topic-t:conn"), None);

    assert!(matches!(
        StatusRecord::decode(b"status-connector-", None),
        Err(RecordError::Key { .. })
    ));
    assert_eq!(
        StatusRecord::decode(b"other", None).expect("unknown"),
        StatusRecord::Unknown {
            key: "other".into()
        }
    );
}

#[test]
fn bad_values_are_typed_errors_naming_the_key() {
    let cases: &[(&str, &str)] = &[
        ("status-connector-c", "{"),
        ("status-connector-c", "[]"),
        (
            "status-connector-c",
            r#"{"state":"running","worker_id":"w","generation":1}"#,
        ),
        (
            "status-connector-c",
            r#"{"state":"RUNNING","worker_id":"w"}"#,
        ),
        (
            "status-connector-c",
            r#"{"state":"RUNNING","worker_id":"w","generation":"1"}"#,
        ),
        (
            "status-task-c-0",
            r#"{"state":"RUNNING","trace":5,"worker_id":"w","generation":1}"#,
        ),
        ("status-task-c-0", r#"{"state":"RUNNING","generation":1}"#),
        (
            "status-task-c-0",
            r#"{"state":"RUNNING","worker_id":"w","generation":1,"version":2}"#,
        ),
        ("status-topic-t:connector-c", r#"{"name":"t"}"#),
        (
            "status-topic-t:connector-c",
            r#"{"topic":{"name":"t","connector":"c","task":1}}"#,
        ),
    ];
    for (key, value) in cases {
        let err = StatusRecord::decode(key.as_bytes(), Some(value.as_bytes())).expect_err(value);
        assert!(
            matches!(&err, RecordError::Value { key: k, .. } | RecordError::Conversion { key: k, .. } if k == key),
            "{err}"
        );
        assert!(err.to_string().contains(key), "{err}");
    }
}

fn task_record(task: u32, s: Option<Status>) -> StatusRecord {
    StatusRecord::Task {
        connector: "c".into(),
        task,
        status: s,
    }
}

#[test]
fn stale_unassigned_task_status_is_ignored() {
    let mut cache = StatusState::new();
    assert!(cache.apply(task_record(
        0,
        Some(status(ComponentState::Running, None, "a", 5))
    )));
    // UNASSIGNED from the same or an older generation loses against RUNNING.
    assert!(!cache.apply(task_record(
        0,
        Some(status(ComponentState::Unassigned, None, "b", 5))
    )));
    assert!(!cache.apply(task_record(
        0,
        Some(status(ComponentState::Unassigned, None, "b", 4))
    )));
    assert_eq!(
        cache.task("c", 0).map(|s| s.state),
        Some(ComponentState::Running)
    );
    // A newer generation wins, and any other state always wins.
    assert!(cache.apply(task_record(
        0,
        Some(status(ComponentState::Unassigned, None, "b", 6))
    )));
    assert_eq!(
        cache.task("c", 0).map(|s| s.state),
        Some(ComponentState::Unassigned)
    );
    assert!(cache.apply(task_record(
        0,
        Some(status(ComponentState::Running, None, "a", 5))
    )));
    assert!(cache.apply(task_record(
        0,
        Some(status(ComponentState::Failed, Some("x"), "b", 1))
    )));
    assert_eq!(cache.task("c", 0).map(|s| s.generation), Some(1));
    // Connector statuses have no such rule.
    cache.apply(StatusRecord::Connector {
        connector: "c".into(),
        status: Some(status(ComponentState::Running, None, "a", 5)),
    });
    cache.apply(StatusRecord::Connector {
        connector: "c".into(),
        status: Some(status(ComponentState::Unassigned, None, "b", 1)),
    });
    assert_eq!(
        cache.connector("c").map(|s| s.state),
        Some(ComponentState::Unassigned)
    );
}

#[test]
fn tombstones_remove_statuses() {
    let mut cache = StatusState::new();
    let running = status(ComponentState::Running, None, "a", 1);
    cache.apply(StatusRecord::Connector {
        connector: "c".into(),
        status: Some(running.clone()),
    });
    cache.apply(task_record(0, Some(running.clone())));
    cache.apply(task_record(1, Some(running.clone())));
    assert_eq!(cache.tasks("c").len(), 2);
    cache.apply(task_record(1, None));
    assert_eq!(cache.tasks("c"), [(0, &running)]);
    // A connector tombstone forgets its tasks too.
    cache.apply(StatusRecord::Connector {
        connector: "c".into(),
        status: None,
    });
    assert_eq!(cache.connector("c"), None);
    assert!(cache.tasks("c").is_empty());
    assert!(cache.connectors().is_empty());

    let (k, v) = StatusRecord::Topic {
        topic: "t".into(),
        connector: "c".into(),
        status: Some(TopicStatus {
            topic: "t".into(),
            connector: "c".into(),
            task: 0,
            discover_timestamp: 9,
        }),
    }
    .encode();
    assert_eq!(cache.apply_raw(k.as_bytes(), v.as_deref()), Ok(true));
    assert_eq!(cache.topic("c", "t").map(|t| t.discover_timestamp), Some(9));
    assert_eq!(cache.apply_raw(k.as_bytes(), None), Ok(true));
    assert!(cache.topics("c").is_empty());
    assert_eq!(cache.apply_raw(b"junk", Some(b"{}")), Ok(false));
}

#[test]
fn safe_writes_follow_kafkas_rule() {
    let mut cache = StatusState::new();
    let mine = |state, generation| status(state, None, "me:8083", generation);
    // Nothing cached: safe.
    assert!(cache.task_safe_to_write("c", 0, &mine(ComponentState::Unassigned, 1)));
    cache.apply(task_record(
        0,
        Some(status(ComponentState::Running, None, "other:8083", 5)),
    ));
    // Another worker's newer generation is cached: not safe.
    assert!(!cache.task_safe_to_write("c", 0, &mine(ComponentState::Failed, 4)));
    // Same or newer generation: safe.
    assert!(cache.task_safe_to_write("c", 0, &mine(ComponentState::Failed, 5)));
    assert!(cache.task_safe_to_write("c", 0, &mine(ComponentState::Failed, 6)));
    // Written by this worker: always safe.
    cache.apply(task_record(0, Some(mine(ComponentState::Running, 9))));
    assert!(cache.task_safe_to_write("c", 0, &mine(ComponentState::Unassigned, 1)));
    assert!(cache.connector_safe_to_write("c", &mine(ComponentState::Failed, 0)));
}
