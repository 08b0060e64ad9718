//! The config state's rules: task configs buffered until their commit, incomplete commits mark
//! the connector inconsistent, tombstones, default target state, change reports and offsets.

use super::*;

fn props(v: &str) -> ConfigProps {
    [("k".to_owned(), Some(v.to_owned()))].into_iter().collect()
}

fn connector(name: &str, v: &str) -> ConfigRecord {
    ConfigRecord::Connector {
        name: name.into(),
        props: Some(props(v)),
    }
}

fn task(name: &str, task: u32, v: &str) -> ConfigRecord {
    ConfigRecord::Task {
        connector: name.into(),
        task,
        props: props(v),
    }
}

fn commit(name: &str, tasks: u32) -> ConfigRecord {
    ConfigRecord::Commit {
        connector: name.into(),
        tasks,
    }
}

/// Applies the records at offsets 0, 1, 2, ...
fn state_of(records: Vec<ConfigRecord>) -> ConfigState {
    let mut s = ConfigState::new();
    for (i, r) in records.into_iter().enumerate() {
        s.apply(i as i64, r);
    }
    s
}

#[test]
fn task_configs_wait_for_their_commit() {
    let mut s = state_of(vec![
        connector("c", "1"),
        task("c", 0, "a"),
        task("c", 1, "b"),
    ]);
    assert_eq!(s.task_count("c"), 0);
    assert!(s.task_configs("c").is_empty());
    assert_eq!(s.offset(), 3);

    s.apply(3, commit("c", 2));
    assert_eq!(s.task_count("c"), 2);
    assert_eq!(s.tasks("c"), [0, 1]);
    assert_eq!(s.task_configs("c"), [(0, &props("a")), (1, &props("b"))]);
    assert_eq!(s.task_config_generation("c"), Some(0));
    assert_eq!(s.applied_connector_config("c"), Some(&props("1")));
    assert!(s.pending_fencing("c"));
    assert_eq!(s.offset(), 4);

    // The next generation replaces them; fewer tasks shrink the list.
    s.apply(4, task("c", 0, "z"));
    s.apply(5, commit("c", 1));
    assert_eq!(s.task_configs("c"), [(0, &props("z"))]);
    assert_eq!(s.task_config_generation("c"), Some(1));
}

#[test]
fn an_incomplete_commit_marks_the_connector_inconsistent_until_a_complete_one() {
    // Compaction removed task 0's config of this generation.
    let mut s = state_of(vec![connector("c", "1"), task("c", 1, "b"), commit("c", 2)]);
    assert!(s.inconsistent().contains("c"));
    assert_eq!(s.task_count("c"), 2);
    assert!(s.tasks("c").is_empty());
    assert!(s.task_configs("c").is_empty());
    assert_eq!(s.applied_connector_config("c"), None);

    // The buffer was cleared: task 1 alone does not complete the next commit of 2.
    s.apply(3, task("c", 0, "a"));
    s.apply(4, commit("c", 2));
    assert!(s.inconsistent().contains("c"));

    s.apply(5, task("c", 0, "a"));
    s.apply(6, task("c", 1, "b"));
    s.apply(7, commit("c", 2));
    assert!(s.inconsistent().is_empty());
    assert_eq!(s.tasks("c"), [0, 1]);
}

#[test]
fn extra_task_configs_do_not_make_a_commit_incomplete() {
    // After compaction: an old task 2 config followed by a new commit of 1 task.
    let s = state_of(vec![
        connector("c", "1"),
        task("c", 2, "old"),
        task("c", 0, "new"),
        commit("c", 1),
    ]);
    assert!(s.inconsistent().is_empty());
    assert_eq!(s.task_configs("c"), [(0, &props("new"))]);
}

#[test]
fn zero_tasks_commit_empties_the_task_list() {
    let mut s = state_of(vec![connector("c", "1"), task("c", 0, "a"), commit("c", 1)]);
    let records = task_config_records("c", Vec::new());
    assert_eq!(records, [commit("c", 0)]);
    for (i, r) in records.into_iter().enumerate() {
        s.apply(10 + i as i64, r);
    }
    assert_eq!(s.task_count("c"), 0);
    assert!(s.task_configs("c").is_empty());
}

#[test]
fn a_commit_for_a_deleted_connector_is_ignored() {
    let s = state_of(vec![task("gone", 0, "a"), commit("gone", 1)]);
    assert_eq!(s.task_count("gone"), 0);
    assert!(s.connectors().is_empty());
    assert!(!s.pending_fencing("gone"));
    assert!(s.inconsistent().is_empty());
}

#[test]
fn tombstones_remove_connector_tasks_and_target_state() {
    let mut s = state_of(vec![
        ConfigRecord::TargetState {
            connector: "c".into(),
            state: Some(TargetState::Paused),
        },
        connector("c", "1"),
        task("c", 0, "a"),
        commit("c", 1),
        connector("d", "2"),
    ]);
    assert_eq!(s.connectors(), ["c", "d"]);
    assert_eq!(s.target_state("c"), TargetState::Paused);
    for (i, r) in connector_removal_records("c").into_iter().enumerate() {
        s.apply(5 + i as i64, r);
    }
    assert_eq!(s.connectors(), ["d"]);
    assert!(!s.contains("c"));
    assert_eq!(s.connector_config("c"), None);
    assert_eq!(s.task_count("c"), 0);
    assert_eq!(s.task_config("c", 0), None);
    assert_eq!(s.target_state("c"), TargetState::Started);
    assert_eq!(s.offset(), 7);
}

#[test]
fn target_state_defaults_and_tombstone_with_live_connector() {
    let mut s = state_of(vec![connector("c", "1")]);
    assert_eq!(s.target_state("c"), TargetState::Started);
    assert_eq!(s.target_state("never-written"), TargetState::Started);
    s.apply(
        1,
        ConfigRecord::TargetState {
            connector: "c".into(),
            state: Some(TargetState::Stopped),
        },
    );
    assert_eq!(s.target_state("c"), TargetState::Stopped);
    // A target-state tombstone while the connector exists brings back STARTED.
    s.apply(
        2,
        ConfigRecord::TargetState {
            connector: "c".into(),
            state: None,
        },
    );
    assert_eq!(s.target_state("c"), TargetState::Started);
}

#[test]
fn changes_are_reported_only_after_start() {
    let mut s = ConfigState::new();
    assert_eq!(s.offset(), -1);
    let restart = ConfigRecord::RestartConnector {
        connector: "c".into(),
        include_tasks: true,
        only_failed: true,
    };
    assert_eq!(s.apply(0, connector("c", "1")), None);
    assert_eq!(s.apply(1, restart.clone()), None);
    assert!(s.drain_restart_requests().is_empty());

    s.mark_started();
    assert_eq!(
        s.apply(2, connector("c", "2")),
        Some(ConfigChange::ConnectorConfigUpdated("c".into()))
    );
    let paused = ConfigRecord::TargetState {
        connector: "c".into(),
        state: Some(TargetState::Paused),
    };
    assert_eq!(
        s.apply(3, paused.clone()),
        Some(ConfigChange::TargetStateChanged("c".into()))
    );
    // The same state again is no change; a state for an unknown connector is not reported.
    assert_eq!(s.apply(4, paused), None);
    assert_eq!(
        s.apply(
            5,
            ConfigRecord::TargetState {
                connector: "new".into(),
                state: Some(TargetState::Stopped),
            }
        ),
        None
    );
    assert_eq!(s.target_state("new"), TargetState::Stopped);
    assert_eq!(s.apply(6, task("c", 0, "a")), None);
    assert_eq!(
        s.apply(7, commit("c", 1)),
        Some(ConfigChange::TaskConfigsUpdated(vec![("c".into(), 0)]))
    );
    assert_eq!(s.apply(8, restart), None);
    assert_eq!(
        s.drain_restart_requests(),
        [RestartRequest {
            connector: "c".into(),
            include_tasks: true,
            only_failed: true
        }]
    );
    assert!(s.drain_restart_requests().is_empty());
    assert_eq!(
        s.apply(
            9,
            ConfigRecord::LoggerCluster {
                namespace: "org".into(),
                level: "WARN".into()
            }
        ),
        Some(ConfigChange::LoggerLevel {
            namespace: "org".into(),
            level: "WARN".into()
        })
    );
    assert_eq!(
        s.apply(
            10,
            ConfigRecord::Connector {
                name: "c".into(),
                props: None
            }
        ),
        Some(ConfigChange::ConnectorConfigRemoved("c".into()))
    );
}

#[test]
fn session_key_and_fencing_records() {
    let key = SessionKey {
        key: vec![1, 2, 3],
        algorithm: "HmacSHA256".into(),
        creation_timestamp: 42,
    };
    let mut s = state_of(vec![
        ConfigRecord::SessionKey(key.clone()),
        connector("c", "1"),
        task("c", 0, "a"),
        commit("c", 1),
    ]);
    assert_eq!(s.session_key(), Some(&key));
    assert!(s.pending_fencing("c"));
    s.apply(
        4,
        ConfigRecord::TaskCountFencing {
            connector: "c".into(),
            task_count: 1,
        },
    );
    assert!(!s.pending_fencing("c"));
    assert_eq!(s.task_count_record("c"), Some(1));
}

#[test]
fn raw_records_advance_the_offset_as_kafka_does() {
    let mut s = ConfigState::new();
    s.apply_raw(0, b"connector-c", Some(br#"{"properties":{"k":"1"}}"#))
        .expect("valid");
    assert_eq!(s.offset(), 1);
    assert_eq!(s.connector_config("c"), Some(&props("1")));
    // Not JSON: skipped without moving the offset.
    let err = s
        .apply_raw(1, b"connector-c", Some(b"{"))
        .expect_err("not json");
    assert!(matches!(err, RecordError::Conversion { .. }), "{err}");
    assert_eq!(s.offset(), 1);
    // JSON in the wrong shape: skipped, the offset moves on.
    let err = s
        .apply_raw(2, b"connector-c", Some(br#"{"properties":[]}"#))
        .expect_err("bad shape");
    assert!(matches!(err, RecordError::Value { .. }), "{err}");
    assert_eq!(s.offset(), 3);
    assert_eq!(s.connector_config("c"), Some(&props("1")));
    // Unknown keys are no-ops that move the offset.
    assert_eq!(s.apply_raw(3, b"whatever", Some(b"{}")), Ok(None));
    assert_eq!(s.offset(), 4);
}

#[test]
fn write_order_helpers() {
    let recs = task_config_records("c", vec![props("a"), props("b")]);
    let keys: Vec<String> = recs.iter().map(ConfigRecord::key).collect();
    assert_eq!(keys, ["task-c-0", "task-c-1", "commit-c"]);
    assert_eq!(recs[2], commit("c", 2));

    let recs = connector_config_records("c", props("1"), Some(TargetState::Stopped));
    let keys: Vec<String> = recs.iter().map(ConfigRecord::key).collect();
    assert_eq!(keys, ["target-state-c", "connector-c"]);
    assert_eq!(connector_config_records("c", props("1"), None).len(), 1);

    let encoded: Vec<(String, Option<Vec<u8>>)> = connector_removal_records("c")
        .iter()
        .map(ConfigRecord::encode)
        .collect();
    assert_eq!(
        encoded,
        [
            ("connector-c".to_owned(), None),
            ("target-state-c".to_owned(), None)
        ]
    );
}
