//! Config-topic records: Kafka's exact bytes (derived from `KafkaConfigBackingStore`'s schemas
//! written by `JsonConverter` with `schemas.enable=false`), round trips and bad input.

use super::*;

fn props(pairs: &[(&str, Option<&str>)]) -> ConfigProps {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned)))
        .collect()
}

fn text(value: Option<Vec<u8>>) -> Option<String> {
    value.map(|v| String::from_utf8(v).expect("utf-8"))
}

/// (record, key, value) as Kafka Connect writes them.
fn cases() -> Vec<(ConfigRecord, &'static str, Option<&'static str>)> {
    vec![
        (
            ConfigRecord::Connector {
                name: "src".into(),
                props: Some(props(&[("a", Some("b")), ("connector.class", Some("X"))])),
            },
            "connector-src",
            Some(r#"{"properties":{"a":"b","connector.class":"X"}}"#),
        ),
        (
            ConfigRecord::Connector {
                name: "with-null".into(),
                props: Some(props(&[("k", None), ("t", Some("é\n\"/"))])),
            },
            "connector-with-null",
            Some(r#"{"properties":{"k":null,"t":"é\n\"/"}}"#),
        ),
        (
            ConfigRecord::Connector {
                name: "gone".into(),
                props: None,
            },
            "connector-gone",
            None,
        ),
        (
            ConfigRecord::Task {
                connector: "my-conn".into(),
                task: 12,
                props: props(&[("task.class", Some("T"))]),
            },
            "task-my-conn-12",
            Some(r#"{"properties":{"task.class":"T"}}"#),
        ),
        (
            ConfigRecord::Task {
                connector: "c".into(),
                task: 0,
                props: ConfigProps::new(),
            },
            "task-c-0",
            Some(r#"{"properties":{}}"#),
        ),
        (
            ConfigRecord::Commit {
                connector: "c".into(),
                tasks: 3,
            },
            "commit-c",
            Some(r#"{"tasks":3}"#),
        ),
        (
            ConfigRecord::TargetState {
                connector: "c".into(),
                state: Some(TargetState::Started),
            },
            "target-state-c",
            Some(r#"{"state":"STARTED","state.v2":"STARTED"}"#),
        ),
        (
            ConfigRecord::TargetState {
                connector: "c".into(),
                state: Some(TargetState::Paused),
            },
            "target-state-c",
            Some(r#"{"state":"PAUSED","state.v2":"PAUSED"}"#),
        ),
        (
            ConfigRecord::TargetState {
                connector: "c".into(),
                state: Some(TargetState::Stopped),
            },
            "target-state-c",
            Some(r#"{"state":"PAUSED","state.v2":"STOPPED"}"#),
        ),
        (
            ConfigRecord::TargetState {
                connector: "c".into(),
                state: None,
            },
            "target-state-c",
            None,
        ),
        (
            ConfigRecord::RestartConnector {
                connector: "c".into(),
                include_tasks: true,
                only_failed: false,
            },
            "restart-connector-c",
            Some(r#"{"include-tasks":true,"only-failed":false}"#),
        ),
        (
            ConfigRecord::SessionKey(SessionKey {
                key: vec![0, 1, 2, 0xff],
                algorithm: "HmacSHA256".into(),
                creation_timestamp: 1_700_000_000_123,
            }),
            "session-key",
            Some(
                r#"{"key":"AAEC/w==","algorithm":"HmacSHA256","creation-timestamp":1700000000123}"#,
            ),
        ),
        (
            ConfigRecord::TaskCountFencing {
                connector: "c".into(),
                task_count: 2,
            },
            "tasks-fencing-c",
            Some(r#"{"task-count":2}"#),
        ),
        (
            ConfigRecord::LoggerCluster {
                namespace: "org.apache.kafka".into(),
                level: "DEBUG".into(),
            },
            "logger-cluster-org.apache.kafka",
            Some(r#"{"level":"DEBUG"}"#),
        ),
    ]
}

#[test]
fn records_encode_to_kafkas_bytes_and_decode_back() {
    for (record, key, value) in cases() {
        let (k, v) = record.encode();
        assert_eq!(k, key, "{record:?}");
        assert_eq!(text(v.clone()).as_deref(), value, "{record:?}");
        let back = ConfigRecord::decode(k.as_bytes(), v.as_deref()).expect("decode");
        assert_eq!(back, record, "{key}");
    }
}

fn decode(key: &str, value: Option<&str>) -> Result<ConfigRecord, RecordError> {
    ConfigRecord::decode(key.as_bytes(), value.map(str::as_bytes))
}

#[test]
fn readers_are_as_lenient_as_kafka() {
    let state = |v: &str| match decode("target-state-c", Some(v)) {
        Ok(ConfigRecord::TargetState { state, .. }) => state,
        other => panic!("{v}: {other:?}"),
    };
    // `state.v2` wins; an old worker's record has only `state`; a bad `state.v2` is ignored.
    assert_eq!(
        state(r#"{"state":"PAUSED","state.v2":"STOPPED"}"#),
        Some(TargetState::Stopped)
    );
    assert_eq!(state(r#"{"state":"PAUSED"}"#), Some(TargetState::Paused));
    assert_eq!(
        state(r#"{"state":"STARTED","state.v2":7}"#),
        Some(TargetState::Started)
    );
    assert_eq!(
        state(r#"{"state":"STARTED","state.v2":null}"#),
        Some(TargetState::Started)
    );
    // A JSON null value reads as a tombstone, as in Kafka.
    assert_eq!(state("null"), None);

    // `tasks` may be written as any integer (Integer or Long in Java).
    assert_eq!(
        decode("commit-c", Some(r#"{"tasks":4294967298}"#)).expect("long"),
        ConfigRecord::Commit {
            connector: "c".into(),
            tasks: 2
        }
    );
    assert_eq!(
        decode("tasks-fencing-c", Some(r#"{"task-count":5}"#)).expect("count"),
        ConfigRecord::TaskCountFencing {
            connector: "c".into(),
            task_count: 5
        }
    );
    // Restart flags default to false when missing or not booleans.
    assert_eq!(
        decode("restart-connector-c", Some(r#"{"include-tasks":"yes"}"#)).expect("restart"),
        ConfigRecord::RestartConnector {
            connector: "c".into(),
            include_tasks: false,
            only_failed: false
        }
    );
    // The session key may come without base64 padding (Java's basic decoder accepts it).
    match decode(
        "session-key",
        Some(r#"{"key":"AAEC/w","algorithm":"HmacSHA256","creation-timestamp":1}"#),
    ) {
        Ok(ConfigRecord::SessionKey(k)) => assert_eq!(k.key, [0, 1, 2, 0xff]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn keys_are_parsed_as_kafka_parses_them() {
    let task = |key: &str| match decode(key, Some(r#"{"properties":{}}"#)) {
        Ok(ConfigRecord::Task {
            connector, task, ..
        }) => Some((connector, task)),
        Err(RecordError::Key { key: k, .. }) => {
            assert_eq!(k, key);
            None
        }
        other => panic!("{key}: {other:?}"),
    };
    assert_eq!(task("task-a-b-c-7"), Some(("a-b-c".into(), 7)));
    assert_eq!(task("task-a--1"), Some(("a-".into(), 1)));
    assert_eq!(task("task-a-1-"), Some(("a".into(), 1)));
    assert_eq!(task("task-a-+2"), Some(("a".into(), 2)));
    assert_eq!(task("task-a"), None);
    assert_eq!(task("task-a-x"), None);
    assert_eq!(task("task-a-99999999999"), None);

    // Prefixes are tried in Kafka's order; anything else is Unknown.
    assert!(matches!(
        decode("tasks-fencing-x", Some(r#"{"task-count":1}"#)),
        Ok(ConfigRecord::TaskCountFencing { .. })
    ));
    assert_eq!(
        decode("something-else", Some("{}")).expect("unknown"),
        ConfigRecord::Unknown {
            key: "something-else".into()
        }
    );
    assert_eq!(
        decode("connector-", None).expect("empty name"),
        ConfigRecord::Connector {
            name: String::new(),
            props: None
        }
    );
}

#[test]
fn bad_values_are_typed_errors_naming_the_key() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("connector-c", Some("{not json"), "conversion"),
        ("connector-c", Some(r#"[1]"#), "value"),
        ("connector-c", Some(r#"{"properties":"x"}"#), "value"),
        ("connector-c", Some(r#"{"properties":{"a":1}}"#), "value"),
        ("task-c-0", None, "value"),
        ("task-c-0", Some(r#"{}"#), "value"),
        ("commit-c", Some(r#"{"tasks":"3"}"#), "value"),
        ("commit-c", Some(r#"{"tasks":1.5}"#), "value"),
        ("commit-c", Some(r#"{"tasks":-1}"#), "value"),
        ("commit-c", None, "value"),
        ("target-state-c", Some(r#"{"state":"RUNNING"}"#), "value"),
        ("target-state-c", Some(r#"{"state.v2":"started"}"#), "value"),
        ("target-state-c", Some(r#"{}"#), "value"),
        ("restart-connector-c", None, "value"),
        ("session-key", None, "value"),
        (
            "session-key",
            Some(r#"{"key":"%%","algorithm":"A","creation-timestamp":1}"#),
            "value",
        ),
        (
            "session-key",
            Some(r#"{"key":"AA==","algorithm":"A","creation-timestamp":1.0}"#),
            "value",
        ),
        (
            "session-key",
            Some(r#"{"key":"AA==","creation-timestamp":1}"#),
            "value",
        ),
        ("logger-cluster-x", None, "value"),
        ("logger-cluster-x", Some(r#"{"level":3}"#), "value"),
        ("unknown-key", Some("{oops"), "conversion"),
    ];
    for (key, value, kind) in cases {
        let err = decode(key, *value).expect_err(key);
        let (k, got) = match &err {
            RecordError::Conversion { key, .. } => (key, "conversion"),
            RecordError::Value { key, .. } => (key, "value"),
            RecordError::Key { key, .. } => (key, "key"),
            RecordError::Offset { .. } => panic!("{err}"),
        };
        assert_eq!((k.as_str(), got), (*key, *kind), "{value:?}: {err}");
        assert!(err.to_string().contains(key), "{err}");
    }
}

#[test]
fn session_key_debug_hides_the_key() {
    let k = SessionKey {
        key: b"secret-bytes".to_vec(),
        algorithm: "HmacSHA256".into(),
        creation_timestamp: 1,
    };
    let shown = format!("{:?}", ConfigRecord::SessionKey(k));
    assert!(
        shown.contains("[hidden]") && !shown.contains("115"),
        "{shown}"
    );
}
