//! SIGKILL at random points during a copy, restart each time: nothing is lost, order is kept,
//! duplicates only replay what was not yet committed, and the offsets file always parses.

mod support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use support::*;

const LINES: usize = 400_000;
const WIDTH: usize = 100;

/// A small deterministic generator (xorshift), seeded from the clock and printed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Checks that `output` is the input, in order, with replays: every line is complete and is
/// either the next new input line or a line seen before (a replay of what was not yet
/// committed when a process died). A line beyond the next new one is a gap: a loss.
/// Returns the number of duplicated lines.
fn check_replays(output: &[u8], total: usize) -> usize {
    let body = output.strip_suffix(b"\n").unwrap_or(output);
    let mut expected = 0usize;
    let mut duplicates = 0;
    for (n, line) in body.split(|&b| b == b'\n').enumerate() {
        assert_eq!(
            line.len(),
            WIDTH - 1,
            "line {n} is torn: {:?}",
            String::from_utf8_lossy(line)
        );
        let idx: usize = std::str::from_utf8(&line[5..15]).unwrap().parse().unwrap();
        match idx.cmp(&expected) {
            std::cmp::Ordering::Equal => expected += 1,
            std::cmp::Ordering::Less => duplicates += 1,
            std::cmp::Ordering::Greater => {
                panic!("line {n}: got input line {idx} but line {expected} is missing (gap)")
            }
        }
    }
    assert_eq!(expected, total, "output ends before the input does");
    duplicates
}

#[test]
fn sigkill_at_random_points_loses_nothing() {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {seed}");
    let mut rng = Rng(seed);
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, LINES, WIDTH));
    let output = w.path("out.txt");
    let worker = w.worker("offset.flush.interval.ms=100");
    let source = w.source("src", &input, "t");
    let sink = w.sink("dst", &output, "t");
    let offsets = w.path("data/connect.offsets.json");

    for round in 0..6 {
        let before = line_count(&output);
        let mut child = w.spawn(&[&worker, &source, &sink]);
        // Kill after a random amount of new output (or right at start-up in round 0).
        let target = before + (rng.next() % (LINES as u64 / 8)) as usize;
        if round > 0 {
            wait_for("progress before the kill", Duration::from_secs(60), || {
                line_count(&output) >= target.min(LINES)
                    || child.try_wait().ok().flatten().is_some()
            });
        }
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        if offsets.exists() {
            let text = std::fs::read(&offsets).unwrap();
            let doc: serde_json::Value = serde_json::from_slice(&text)
                .unwrap_or_else(|e| panic!("offsets file does not parse after kill {round}: {e}"));
            assert_eq!(doc["version"], 1);
        }
        eprintln!(
            "round {round}: killed with {} output lines",
            line_count(&output)
        );
    }
    let out = w.run_until_idle("500ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    let duplicates = check_replays(&std::fs::read(&output).unwrap(), LINES);
    eprintln!("duplicates: {duplicates}");
}

#[test]
fn the_replay_checker_rejects_gaps_and_torn_lines() {
    let lines = |idx: &[usize]| -> Vec<u8> {
        idx.iter()
            .flat_map(|&i| numbered_lines(i, 1, WIDTH))
            .collect()
    };
    assert_eq!(check_replays(&lines(&[0, 1, 2, 1, 2, 3]), 4), 2);
    assert!(std::panic::catch_unwind(|| check_replays(&lines(&[0, 2]), 3)).is_err());
    assert!(std::panic::catch_unwind(|| check_replays(&lines(&[0, 1]), 3)).is_err());
    let mut torn = lines(&[0, 1]);
    torn.truncate(150);
    torn.extend_from_slice(b"\n");
    assert!(std::panic::catch_unwind(|| check_replays(&torn, 2)).is_err());
}
