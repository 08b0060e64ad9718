//! Crash tests of the commit journal: a source batch's records and its source offsets survive a
//! crash together or not at all.
//!
//! Each case commits batches one round at a time, notes every file's contents after each round,
//! then simulates a crash during the last round: each file keeps only a prefix of what that round
//! wrote to it (an appended tail cut to a random length; a file overwritten in place has a random
//! suffix of the changed bytes put back as they were), each file independently (the writer
//! fsyncs the journal and the partitions at the same time).
//! After reopening, the records present and the recovered source offsets must agree exactly,
//! and the round counts exactly when all of it reached the disk. The recovered log then takes
//! one more round and is reopened again: what the crash left behind must not spoil it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::topics::{ProducerRecord, SourceOffsets, TopicBackend};

const CONNECTORS: [&str; 2] = ["c", "d"];

/// Contents of every file under `dir`, by path.
fn file_contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else if !path.ends_with(".lock") && !path.ends_with("clean-shutdown.json") {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// What a crash during the write of `after` over `before` may leave: a prefix of the change,
/// `cut` choosing its length (never all of it). `None` when nothing changed.
fn torn(before: &[u8], after: &[u8], cut: prop::sample::Index) -> Option<Vec<u8>> {
    if before.len() == after.len() {
        let first = before.iter().zip(after).position(|(b, a)| b != a)?;
        let last = before.iter().zip(after).rposition(|(b, a)| b != a)?;
        let keep = first + cut.index(last + 1 - first);
        let mut out = after[..keep].to_vec();
        out.extend_from_slice(&before[keep..]);
        Some(out)
    } else if after.len() > before.len() && after.starts_with(before) {
        Some(after[..before.len() + cut.index(after.len() - before.len())].to_vec())
    } else {
        panic!("a file changed other than by appending or overwriting in place");
    }
}

fn source_partition() -> Arc<connect_api::OffsetMap> {
    Arc::new(json!({"file": "in.txt"}).as_object().cloned().unwrap())
}

fn position(log: &LocalLog, connector: &str) -> u64 {
    log.committed_source_offset(connector, &source_partition())
        .map_or(0, |o| o["position"].as_u64().unwrap())
}

/// The sequence numbers of `connector`'s records in the log, partition by partition.
fn sequences(log: &LocalLog, connector: &str) -> Vec<Vec<u64>> {
    let prefix = format!("{connector}:");
    log.topics()
        .iter()
        .flat_map(|t| t.partitions.iter().map(|p| (t.name.clone(), p.partition)))
        .map(|(topic, partition)| {
            log.read(&TopicPartition { topic, partition }, 0, usize::MAX)
                .unwrap()
                .iter()
                .filter_map(|r| {
                    let v = String::from_utf8(r.value.clone().unwrap()).unwrap();
                    v.strip_prefix(&prefix).map(|n| n.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// One batch: the connector it belongs to and the partition of each record (none: every
/// record was filtered out, the offsets are committed alone).
type Batch = (usize, Vec<i32>);

/// Commits `batch` as one round, `next` counting each connector's records.
async fn commit(
    producer: &dyn TopicProducer,
    next: &mut [u64; 2],
    (connector, partitions): &Batch,
) {
    let records: Vec<ProducerRecord> = partitions
        .iter()
        .map(|&p| {
            let seq = next[*connector];
            next[*connector] += 1;
            ProducerRecord {
                topic: "t".to_string(),
                partition: Some(p),
                value: Some(format!("{}:{seq}", CONNECTORS[*connector]).into_bytes()),
                ..ProducerRecord::default()
            }
        })
        .collect();
    let offsets = SourceOffsets {
        connector: CONNECTORS[*connector].to_string(),
        offsets: vec![(
            source_partition(),
            json!({"position": next[*connector]}).as_object().cloned(),
        )],
    };
    let delivery = producer
        .send_batch_with_offsets(records, offsets)
        .await
        .unwrap();
    delivery.await.unwrap();
}

/// Asserts that each connector's recovered offset is `expected` and that its records present
/// are exactly those the offset covers, in order.
fn check(log: &LocalLog, expected: [u64; 2]) {
    for (c, name) in CONNECTORS.iter().enumerate() {
        let committed = position(log, name);
        assert_eq!(committed, expected[c], "recovered offset of {name}");
        let per_partition = sequences(log, name);
        for seqs in &per_partition {
            assert!(
                seqs.windows(2).all(|w| w[0] < w[1]),
                "{name}: records out of order in a partition: {seqs:?}"
            );
        }
        let mut all: Vec<u64> = per_partition.into_iter().flatten().collect();
        all.sort_unstable();
        assert_eq!(
            all,
            (0..committed).collect::<Vec<_>>(),
            "{name}: the records present are exactly those the recovered offset covers"
        );
    }
}

fn run_case(batches: &[Batch], cuts: &[(bool, prop::sample::Index)], after_crash: &Batch) {
    let dir = tempfile::tempdir().unwrap();
    let options = LocalLogOptions {
        segment_bytes: 160,
        ..LocalLogOptions::new(2)
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut next = [0u64; 2];
    let mut before = [0u64; 2];
    let (contents_before, contents_after) = rt.block_on(async {
        let log = LocalLog::open_with(dir.path(), options.clone()).unwrap();
        let producer = log.producer(&ClientSpec::default()).unwrap();
        let mut contents_before = file_contents(dir.path());
        for (i, batch) in batches.iter().enumerate() {
            if i + 1 == batches.len() {
                contents_before = file_contents(dir.path());
                before = next;
            }
            commit(producer.as_ref(), &mut next, batch).await;
        }
        log.close().await;
        (contents_before, file_contents(dir.path()))
    });
    std::fs::remove_file(dir.path().join("clean-shutdown.json")).unwrap();
    // The crash: every file keeps some prefix of what the last round wrote to it.
    let mut all_whole = true;
    for (k, (path, after)) in contents_after.iter().enumerate() {
        let was = contents_before.get(path).map_or(&[][..], Vec::as_slice);
        let (whole, cut) = &cuts[k % cuts.len()];
        if *whole {
            continue;
        }
        if let Some(left) = torn(was, after, *cut) {
            all_whole = false;
            std::fs::write(path, left).unwrap();
        }
    }
    let mut expected = if all_whole { next } else { before };
    rt.block_on(async {
        let log = LocalLog::open_with(dir.path(), options.clone()).unwrap();
        check(&log, expected);
        // A second life: one more round on top of what the recovery left, then a crash after
        // it was acknowledged (no clean shutdown).
        let producer = log.producer(&ClientSpec::default()).unwrap();
        commit(producer.as_ref(), &mut expected, after_crash).await;
        log.close().await;
    });
    std::fs::remove_file(dir.path().join("clean-shutdown.json")).unwrap();
    let log = LocalLog::open_with(dir.path(), options).unwrap();
    check(&log, expected);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever part of the last round reached the disk, the records present and the recovered
    /// source offsets agree: no record without its offset, no offset without its records.
    #[test]
    fn records_and_source_offsets_survive_a_crash_together(
        batches in prop::collection::vec(
            (0usize..2, prop::collection::vec(0i32..2, 0..5)),
            1..10,
        ),
        cuts in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>()), 64),
        after_crash in (0usize..2, prop::collection::vec(0i32..2, 0..3)),
    ) {
        run_case(&batches, &cuts, &after_crash);
    }
}

#[tokio::test]
async fn a_reset_offset_is_journaled_and_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    let p = source_partition();
    log.commit_source_offsets(SourceOffsets {
        connector: "c".to_string(),
        offsets: vec![(p.clone(), json!({"position": 7}).as_object().cloned())],
    })
    .await
    .unwrap();
    assert_eq!(position(&log, "c"), 7);
    log.commit_source_offsets(SourceOffsets {
        connector: "c".to_string(),
        offsets: vec![(p.clone(), None)],
    })
    .await
    .unwrap();
    assert_eq!(log.committed_source_offset("c", &p), None);
    drop(log);
    let log = loop {
        // The dropped log's writer releases the lock on its own.
        match LocalLog::open(dir.path(), 1) {
            Ok(log) => break log,
            Err(TopicError::Unavailable(_)) => tokio::task::yield_now().await,
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(log.committed_source_offset("c", &p), None);
}

#[tokio::test]
async fn turning_exactly_once_off_removes_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let log = LocalLog::open(dir.path(), 1).unwrap();
    assert!(dir.path().join(journal::FILE_NAME).exists());
    log.close().await;
    drop(log);
    let options = LocalLogOptions {
        exactly_once_source: false,
        ..LocalLogOptions::new(1)
    };
    let log = LocalLog::open_with(dir.path(), options).unwrap();
    assert!(!log.exactly_once_source());
    assert!(!dir.path().join(journal::FILE_NAME).exists());
    let producer = log.producer(&ClientSpec::default()).unwrap();
    assert!(!producer.commits_source_offsets());
}
