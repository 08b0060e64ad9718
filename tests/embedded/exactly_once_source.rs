//! Exactly-once sources on the embedded log: a file source killed with SIGKILL at random
//! moments, restarted each time, then run to the end, leaves every input line in the topic
//! exactly once and in order — although the offsets file is never flushed before a kill
//! (`offset.flush.interval.ms` is an hour), so without the commit journal each restart would
//! append the input again from the start.

use crate::support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use connect_rs::topics::local::LocalLog;
use connect_rs::topics::TopicPartition;
use support::rng::Rng;
use support::*;

const LINES: usize = 1_000_000;

/// The end offset of partition 0 of topic `t` as a reader sees it now (0 before it exists).
fn topic_end(data: &std::path::Path) -> i64 {
    let Ok(log) = LocalLog::open_read_only(data) else {
        return 0;
    };
    log.topics()
        .iter()
        .find(|t| t.name == "t")
        .map_or(0, |t| t.partitions[0].end_offset)
}

/// Every value of partition 0 of topic `t`.
fn topic_values(data: &std::path::Path) -> Vec<Vec<u8>> {
    let log = LocalLog::open_read_only(data).unwrap();
    let tp = TopicPartition {
        topic: "t".to_string(),
        partition: 0,
    };
    let mut values = Vec::new();
    loop {
        let batch = log.read(&tp, values.len() as i64, 50_000).unwrap();
        if batch.is_empty() {
            return values;
        }
        values.extend(batch.into_iter().map(|r| r.value.unwrap()));
    }
}

#[test]
fn sigkill_at_random_moments_leaves_every_line_exactly_once() {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("seed {seed}");
    let mut rng = Rng(seed);
    let w = Workdir::new();
    let input_bytes = numbered_lines(0, LINES, WIDTH);
    let input = w.write("in.txt", &input_bytes);
    let data = w.path("data");
    let worker = w.worker("offset.flush.interval.ms=3600000");
    let source = w.source("src", &input, "t");
    let mut killed = 0;
    for round in 0..30 {
        let before = topic_end(&data);
        if before as usize >= LINES {
            break;
        }
        let mut child = w.spawn(&[&worker, &source]);
        // Kill once the topic has grown by a random amount (or after a random moment of the
        // start-up, for a few rounds), anywhere relative to the writer's rounds.
        if round % 4 != 3 {
            let target = (before + 1 + rng.below(LINES as u64 / 40) as i64).min(LINES as i64);
            wait_for("the topic to grow", Duration::from_secs(120), || {
                topic_end(&data) >= target || child.try_wait().ok().flatten().is_some()
            });
        }
        std::thread::park_timeout(Duration::from_millis(rng.below(40)));
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        killed += 1;
        eprintln!(
            "round {round}: killed at topic end {} (was {before})",
            topic_end(&data)
        );
    }
    let out = w.run_until_idle("500ms", &[&worker, &source]);
    assert!(out.status.success(), "{}", stderr(&out));
    let values = topic_values(&data);
    eprintln!("{killed} kills, {} records", values.len());
    let expected: Vec<&[u8]> = input_bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    if values.len() != expected.len() {
        let first_wrong = values
            .iter()
            .zip(&expected)
            .position(|(v, e)| v.as_slice() != *e);
        panic!(
            "the topic holds {} records for {} input lines; first difference at offset {first_wrong:?}",
            values.len(),
            expected.len()
        );
    }
    for (offset, (v, e)) in values.iter().zip(&expected).enumerate() {
        assert_eq!(
            v.as_slice(),
            *e,
            "offset {offset}: {:?}",
            String::from_utf8_lossy(v)
        );
    }
}
