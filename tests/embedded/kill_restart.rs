//! SIGKILL at random points during a copy, restart each time: nothing is lost, order is kept,
//! the source resumes exactly after its last durable batch (the embedded log's commit journal:
//! the topic holds input line k at offset k), the sink (`exactly.once=false`: append only)
//! replays only what was not yet committed, and the offsets file always parses.

use crate::support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use support::*;

const LINES: usize = 1_000_000;

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

/// The input line index of the record at `offset` of topic `t` (via `topics read --offset`).
fn topic_line_at(w: &Workdir, worker: &std::path::Path, offset: u64) -> usize {
    let worker = worker.display().to_string();
    let offset = offset.to_string();
    let out = w
        .command(&[
            "topics",
            "--worker",
            &worker,
            "read",
            "t",
            "--offset",
            &offset,
            "--max",
            "1",
            "--timeout-ms",
            "1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let value = text
        .trim_end()
        .rsplit('\t')
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(
        value.starts_with("line-"),
        "no record at offset {offset}: {text:?} {}",
        stderr(&out)
    );
    line_index(value.as_bytes())
}

/// The end offset of partition 0 of topic `t`.
fn topic_end(w: &Workdir, worker: &std::path::Path) -> u64 {
    let worker = worker.display().to_string();
    let out = w
        .command(&["topics", "--worker", &worker, "list"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("t\t0\t"))
        .map_or(0, |end| end.parse().unwrap())
}

/// What was committed when a process was killed, and where its successor must resume.
struct Committed {
    /// Complete output lines at the kill.
    output_lines: usize,
    /// Topic end offset at the kill, as a reader saw it (records of a round the crash
    /// interrupted included: the next open may cut them).
    topic_end: u64,
    /// Input line of the source's offsets file (flushed; the commit journal may be ahead).
    source_next: usize,
    /// Sink group's committed offset.
    sink_next_offset: u64,
}

/// The input line the source will produce next, from the offsets file (which must always parse).
fn committed_source_line(w: &Workdir) -> usize {
    let offsets = w.path("data/connect.offsets.json");
    if !offsets.exists() {
        return 0;
    }
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&offsets).unwrap())
        .unwrap_or_else(|e| panic!("offsets file does not parse: {e}"));
    assert_eq!(doc["version"], 1);
    doc["connectors"]["src"][0]["offset"]["position"]
        .as_u64()
        .unwrap_or(0) as usize
        / WIDTH
}

fn committed(w: &Workdir, worker: &std::path::Path, output: &std::path::Path) -> Committed {
    let source_next = committed_source_line(w);
    let group = w.path("data/__groups/connect-dst.json");
    let sink_next_offset = if group.exists() {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&group).unwrap()).unwrap();
        doc["offsets"][0]["offset"].as_u64().unwrap_or(0)
    } else {
        0
    };
    Committed {
        output_lines: line_count(output),
        topic_end: topic_end(w, worker),
        source_next,
        sink_next_offset,
    }
}

/// After a restart: the source resumed exactly at its committed position, and the sink exactly
/// at its committed offset, so the only duplicates are what was not yet committed.
fn check_resumed_exactly(w: &Workdir, worker: &std::path::Path, output: &[u8], c: &Committed) {
    assert!(
        c.source_next as u64 <= c.topic_end,
        "the offsets file is ahead of the topic"
    );
    if c.topic_end < topic_end(w, worker) {
        assert_eq!(
            topic_line_at(w, worker, c.topic_end),
            c.topic_end as usize,
            "the restarted source did not resume exactly after its last durable batch"
        );
    }
    let expected_sink_line = if c.sink_next_offset < c.topic_end {
        topic_line_at(w, worker, c.sink_next_offset)
    } else {
        c.source_next
    };
    if let Some(line) = output
        .split(|&b| b == b'\n')
        .nth(c.output_lines)
        .filter(|l| !l.is_empty())
    {
        assert_eq!(
            line_index(line),
            expected_sink_line,
            "the restarted sink did not resume at its committed offset"
        );
    }
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
    let worker = w.worker("offset.flush.interval.ms=50");
    let source = w.source("src", &input, "t");
    // Kafka Connect's append-only sink (the embedded log's default is exact, see
    // tests/embedded/exactly_once_embedded.rs): what was not committed is appended again.
    let sink = w.sink("dst", &output, "t");
    let sink = w.write(
        "dst.properties",
        format!(
            "{}exactly.once=false\n",
            std::fs::read_to_string(&sink).unwrap()
        ),
    );
    let mut kills = Vec::new();

    for round in 0..6 {
        let mut child = w.spawn(&[&worker, &source, &sink]);
        if round > 0 {
            // Run until the committed source position passed a random target, then kill after a
            // further random delay, so the kill lands anywhere relative to the offset flushes.
            let start = kills.last().map_or(0, |c: &Committed| c.source_next);
            let target =
                (start + LINES / 12 + (rng.next() % (LINES as u64 / 12)) as usize).min(LINES);
            wait_for("progress before the kill", Duration::from_secs(60), || {
                committed_source_line(&w) >= target || child.try_wait().ok().flatten().is_some()
            });
            std::thread::park_timeout(Duration::from_millis(rng.next() % 120));
        }
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        let c = committed(&w, &worker, &output);
        eprintln!(
            "round {round}: killed with {} output lines; committed: source line {}, sink offset {} of {}",
            c.output_lines, c.source_next, c.sink_next_offset, c.topic_end
        );
        kills.push(c);
    }
    let out = w.run_until_idle("500ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    let output_bytes = std::fs::read(&output).unwrap();
    for c in &kills {
        check_resumed_exactly(&w, &worker, &output_bytes, c);
    }
    let duplicates = check_replays(&output_bytes, LINES);
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

/// Every file under `dir` with its contents (the lock file aside).
fn dir_contents(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.ends_with(".lock") {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Where the last frame (`u32 len | u32 crc | body`) of the commit journal starts, and its
/// length.
fn last_journal_frame(journal: &[u8]) -> (usize, usize) {
    let mut pos = 0;
    let mut last = None;
    while pos + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[pos..pos + 4].try_into().unwrap()) as usize;
        last = Some((pos, 8 + len));
        pos += 8 + len;
    }
    assert_eq!(pos, journal.len(), "the journal ends with a whole frame");
    last.expect("a journal entry")
}

#[test]
fn a_corrupt_commit_journal_stops_start_up_untouched_until_repaired_and_nothing_is_lost() {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, 1000, WIDTH));
    let output = w.path("out.txt");
    let worker = w.worker("");
    let source = w.source("src", &input, "t");
    let sink = w.sink("dst", &output, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(line_count(&output), 1000);

    // Four bytes inside the journal's last entry (the one recording the end of t-0) change.
    let journal = w.path("data/commit-journal.log");
    let mut bytes = std::fs::read(&journal).unwrap();
    let (start, len) = last_journal_frame(&bytes);
    bytes[start + len / 2..start + len / 2 + 4].copy_from_slice(b"XXXX");
    std::fs::write(&journal, &bytes).unwrap();
    let before = dir_contents(&w.path("data"));

    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{} is corrupt at byte {start}", journal.display()))
            && err.contains("repair-journal"),
        "{err}"
    );
    assert!(
        dir_contents(&w.path("data")) == before,
        "the refused start changed the log: {err}"
    );
    // `topics list` reports it too.
    let worker_arg = worker.display().to_string();
    let list = w
        .command(&["topics", "list", "--worker", &worker_arg])
        .output()
        .unwrap();
    assert_eq!(list.status.code(), Some(2), "{}", stderr(&list));
    assert!(
        stderr(&list).contains("is corrupt at byte"),
        "{}",
        stderr(&list)
    );

    let repair = w
        .command(&["topics", "--worker", &worker_arg, "repair-journal"])
        .output()
        .unwrap();
    assert!(repair.status.success(), "{}", stderr(&repair));
    let saved = w.path("data/commit-journal.log.damaged");
    assert!(
        stdout(&repair).contains(&saved.display().to_string()),
        "{}",
        stdout(&repair)
    );
    assert_eq!(std::fs::read(&saved).unwrap(), bytes);

    // It starts again: the 1000 records kept, the new lines copied after them.
    let mut more = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    std::io::Write::write_all(&mut more, &numbered_lines(1000, 10, WIDTH)).unwrap();
    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(topic_end(&w, &worker) >= 1010);
    assert_eq!(topic_line_at(&w, &worker, 999), 999);
    check_replays(&std::fs::read(&output).unwrap(), 1010);
}
