//! The config offset a worker tells the group follows every record it reads from the config
//! topic, also a lone record that changes nothing (a task count record written after zombie
//! fencing). A leader whose published offset lags behind what it read waits for members that
//! report the true offset and answers CONFIG_MISMATCH to every round: the group never
//! converges (the exactly-once SIGKILL test once stalled so, a new worker reporting offset 8 to
//! a leader stuck at 7).

use std::sync::Arc;
use std::time::Duration;

use connect_membership::protocol::{ConnectProtocol, WorkItems, CONFIG_MISMATCH};
use connect_membership::{Assigned, ClusterView, MemberEvent};

use super::cluster_view::snapshot_of;
use super::herder::{config_topic_spec, DistributedHerder};
use crate::config::{RawConfig, WorkerConfig, WorkerMode};
use crate::herder::core::HerderCore;
use crate::plugins::PluginRegistry;
use crate::storage::internal::ConfigRecord;
use crate::storage::topic_log::{InternalTopicKind, InternalTopicSpec};
use crate::storage::{ConfigStore, TopicConfigStore, TopicOffsetStore};
use crate::topics::local::LocalLog;
use crate::worker::Worker;

/// A started distributed herder (a one-member cluster) on the embedded log in `dir`, and
/// another worker's config store on the same log.
async fn herder(dir: &std::path::Path) -> (Arc<LocalLog>, DistributedHerder, TopicConfigStore) {
    let log = LocalLog::open(&dir.join("log"), 1).unwrap();
    let raw = RawConfig::from_pairs(
        "worker.properties",
        [
            ("group.id", "view"),
            ("config.storage.topic", "connect-configs"),
            ("offset.storage.topic", "connect-offsets"),
            ("status.storage.topic", "connect-status"),
            ("key.converter", "StringConverter"),
            ("value.converter", "StringConverter"),
        ],
    );
    let worker_config = Arc::new(WorkerConfig::from_raw(&raw, WorkerMode::Distributed).unwrap());
    let offsets = Arc::new(
        TopicOffsetStore::open(
            &*log,
            &InternalTopicSpec::new(InternalTopicKind::Offsets, "connect-offsets", 1, 1),
            "view-offsets",
        )
        .await
        .unwrap(),
    );
    let plugins = Arc::new(PluginRegistry::builtin());
    let worker = Worker::new(
        crate::worker::WorkerSettings::from_config(&worker_config),
        plugins.clone(),
        offsets.clone(),
        log.clone(),
    );
    let core = HerderCore::new(worker, worker_config.clone(), plugins, "w:1".into());
    let mut herder = DistributedHerder::open(core, &*log, &worker_config, offsets, None)
        .await
        .unwrap();
    herder.start().await.unwrap();
    let other = TopicConfigStore::open(&*log, &config_topic_spec(&worker_config), "other")
        .await
        .unwrap();
    (log, herder, other)
}

/// Writes a task count record from `other` (a leader after zombie fencing); the offset after it.
async fn write_task_count_record(other: &mut TopicConfigStore) -> i64 {
    other
        .write(vec![ConfigRecord::TaskCountFencing {
            connector: "c".into(),
            task_count: 1,
        }])
        .await
        .unwrap();
    other.read_to_end().await.unwrap();
    other.snapshot().offset()
}

#[tokio::test]
async fn a_lone_record_that_changes_nothing_moves_the_offset_told_to_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let (log, herder, mut other) = herder(dir.path()).await;
    let view = herder.view.clone();
    let (handle, task) = herder.spawn();
    assert_eq!(view.config_offset(), other.snapshot().offset());

    // This worker's reader delivers the record alone to the idle herder.
    let read = write_task_count_record(&mut other).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while view.config_offset() != read {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the group is told config offset {}, the worker read to {read}",
            view.config_offset()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // As leader, it assigns from the offset the members report without waiting.
    assert_eq!(view.snapshot(read).await.offset, read);

    handle.shutdown().await;
    let _ = task.await;
    other.stop().await;
    log.close().await;
}

#[tokio::test]
async fn a_config_mismatch_tells_the_group_all_the_worker_read() {
    let dir = tempfile::tempdir().unwrap();
    let (log, mut herder, mut other) = herder(dir.path()).await;
    let before = herder.view.config_offset();
    let read = write_task_count_record(&mut other).await;
    herder.read_configs().await.unwrap();
    assert_eq!(herder.configs.snapshot().offset(), read);
    // Whatever left the published offset behind what was read (a leader stuck there answers
    // CONFIG_MISMATCH to every round), the mismatch publishes it again.
    let mut behind = snapshot_of(herder.configs.snapshot());
    behind.offset = before;
    herder.view.publish(behind);

    herder
        .on_member_event(MemberEvent::Assigned(Box::new(Assigned {
            generation: 2,
            member_id: "m".into(),
            leader: "m".into(),
            leader_url: "http://127.0.0.1:1/".into(),
            is_leader: true,
            protocol: ConnectProtocol::Sessioned,
            error: CONFIG_MISMATCH,
            config_offset: read,
            assigned: WorkItems::default(),
            revoked: WorkItems::default(),
            delay: 0,
            assignment: WorkItems::default(),
            member_urls: Default::default(),
        })))
        .await;
    assert_eq!(herder.view.config_offset(), read);
    assert_eq!(herder.view.snapshot(read).await.offset, read);

    let _ = herder.stop_all().await;
    other.stop().await;
    log.close().await;
}
