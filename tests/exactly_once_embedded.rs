//! Issue 13's acceptance on the embedded log: a file copied file → embedded topic →
//! FileStreamSink (`exactly.once=true`), the worker SIGKILLed at random moments during the copy
//! and restarted each time, then run to the end. The source's batches and offsets are durable in
//! one step and the sink cuts its file back to the length committed with its offsets, so the
//! output is byte-identical to the input: nothing lost, nothing twice.

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use support::rng::Rng;
use support::*;

/// Bytes per input line (numbered, newline included).
const WIDTH: usize = 40;

/// The worker's converter lines for the two scenarios.
const STRING: &str = "";
const JSON: &str = "key.converter=org.apache.kafka.connect.json.JsonConverter\n\
                    value.converter=org.apache.kafka.connect.json.JsonConverter\n\
                    value.converter.schemas.enable=true\n";

fn seed() -> u64 {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("seed {seed}");
    seed
}

/// A FileStreamSink connector file with `exactly.once=true`.
fn exact_sink(w: &Workdir, output: &Path) -> PathBuf {
    w.write(
        "dst.properties",
        format!(
            "name=dst\nconnector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics=t\n\
             exactly.once=true\n",
            output.display()
        ),
    )
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// How a round picks the moment of its kill.
enum KillAt {
    /// A random 0 – `max_delay_ms` after the run started: start-up, recovery, the copy or after it.
    Time,
    /// When the output file has grown past what the last run wrote, to a random length up to 3/4
    /// of the input (or the random delay passed first): before the copy is done, however fast
    /// the worker copies.
    OutputLength,
}

/// Copies `lines` lines with `kills` SIGKILLs, then a last run goes to the end. The last
/// `time_only` rounds kill at a random moment only; the others kill at a random point of the
/// output or a random moment, whichever comes first. Returns how many kills landed before the
/// output was complete.
fn copy_with_kills(
    converters: &str,
    flush_ms: u64,
    lines: usize,
    kills: usize,
    time_only: usize,
    max_delay_ms: u64,
) -> usize {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, lines, WIDTH));
    let output = w.path("out.txt");
    let worker = w.worker(&format!(
        "offset.flush.interval.ms={flush_ms}\n{converters}"
    ));
    let source = w.source("src", &input, "t");
    let sink = exact_sink(&w, &output);
    let files = [worker.as_path(), source.as_path(), sink.as_path()];
    let total = (lines * WIDTH) as u64;
    let mut rng = Rng(seed());
    let mut mid_copy = 0;
    for round in 0..kills {
        let kill_at = if round + time_only >= kills {
            KillAt::Time
        } else {
            KillAt::OutputLength
        };
        let delay = Duration::from_millis(rng.below(max_delay_ms + 1));
        // Past what the last run wrote, so that each kill lands further into the copy.
        // Never past 3/4 of the input: the sink writes in blocks, and the rest of the copy must
        // take longer than noticing the length does.
        let (written, most) = (file_len(&output), total * 3 / 4);
        let target = if written < most {
            written + 1 + rng.below(most - written)
        } else {
            most
        };
        let mut child = w.spawn(&files);
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "round {round}: connect-rs exited early ({status}): {}",
                    w.log()
                );
            }
            let reached = matches!(kill_at, KillAt::OutputLength) && file_len(&output) >= target;
            if reached || started.elapsed() >= delay {
                break;
            }
            std::thread::park_timeout(Duration::from_millis(1));
        }
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        let log = w.log();
        assert!(!log.contains("panicked"), "round {round}: {log}");
        let at_kill = file_len(&output);
        if at_kill < total {
            mid_copy += 1;
        }
        eprintln!("round {round}: killed with {at_kill} of {total} bytes written");
    }
    let out = w.run_until_idle("500ms", &files);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = std::fs::read(&output).unwrap();
    if got != numbered_lines(0, lines, WIDTH) {
        let n = got.split(|&b| b == b'\n').count().saturating_sub(1);
        panic!(
            "output differs from the input: {} bytes ({n} lines, {} replayed) for {total}",
            got.len(),
            check_replays(&got, lines)
        );
    }
    mid_copy
}

/// The scenario: 2,000,000 lines, offsets flushed every 5 s, 20 kills.
#[test]
fn two_million_lines_with_twenty_kills_are_copied_exactly_with_the_string_converter() {
    let mid_copy = copy_with_kills(STRING, 5000, 2_000_000, 20, 3, 2000);
    assert!(
        mid_copy >= 17,
        "only {mid_copy} of 20 kills landed before the copy was done"
    );
}

#[test]
fn two_million_lines_with_twenty_kills_are_copied_exactly_with_the_json_converter() {
    let mid_copy = copy_with_kills(JSON, 5000, 2_000_000, 20, 3, 2000);
    assert!(
        mid_copy >= 17,
        "only {mid_copy} of 20 kills landed before the copy was done"
    );
}

/// 100 kills, most of them in start-up and recovery, with commits every 50 ms so the sink's
/// file is cut back to a non-zero committed length again and again.
#[test]
fn two_hundred_thousand_lines_with_a_hundred_kills_are_copied_exactly() {
    let mid_copy = copy_with_kills(STRING, 50, 200_000, 100, 10, 80);
    assert!(
        mid_copy >= 90,
        "only {mid_copy} of 100 kills landed before the copy was done"
    );
}
