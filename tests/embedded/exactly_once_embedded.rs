//! Issue 13's acceptance on the embedded log: a file copied file → embedded topic →
//! FileStreamSink (`exactly.once=true`, and issue 26: the README's job with the default
//! settings), the worker SIGKILLed at random moments during the copy and restarted each time,
//! then run to the end. The source's batches and offsets are durable in
//! one step and the sink cuts its file back to the length committed with its offsets, so the
//! output is byte-identical to the input: nothing lost, nothing twice.

use crate::support;

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

/// A job a kill loop runs: its work dir, the files of its command line, its output file and
/// the bytes of a line.
struct Job {
    w: Workdir,
    files: Vec<PathBuf>,
    output: PathBuf,
    width: usize,
}

/// file → embedded topic → FileStreamSink (`exactly.once=true`) of `lines` lines, with the
/// worker converters `converters` and offsets flushed every `flush_ms`.
fn exact_job(converters: &str, flush_ms: u64, lines: usize) -> Job {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, lines, WIDTH));
    let output = w.path("out.txt");
    let worker = w.worker(&format!(
        "offset.flush.interval.ms={flush_ms}\n{converters}"
    ));
    let source = w.source("src", &input, "t");
    let sink = exact_sink(&w, &output);
    Job {
        files: vec![worker, source, sink],
        w,
        output,
        width: WIDTH,
    }
}

/// The README's job: the files of `examples/` (worker, file source, file sink), as they are,
/// copying `lines` lines; `sink_extra` is appended to the sink's file. Only the REST port
/// differs (`listeners`, a free port: tests run side by side).
fn readme_job(lines: usize, sink_extra: &str) -> Job {
    let w = Workdir::new();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let copy = |name: &str, extra: &str| {
        let text = std::fs::read_to_string(examples.join(name)).unwrap();
        w.write(&format!("examples/{name}"), format!("{text}\n{extra}\n"))
    };
    let worker = copy("worker.properties", "listeners=http://127.0.0.1:0");
    let source = copy("file-source.properties", "");
    let sink = copy("file-sink.properties", sink_extra);
    w.write(
        "examples/input.txt",
        numbered_lines(0, lines, support::WIDTH),
    );
    Job {
        output: w.path("examples/output.txt"),
        files: vec![worker, source, sink],
        w,
        width: support::WIDTH,
    }
}

/// Runs `job` over `lines` lines with `kills` SIGKILLs, then a last run goes to the end. The
/// last `time_only` rounds kill at a random moment only; the others kill at a random point of
/// the output or a random moment, whichever comes first. Returns how many kills landed before
/// the output was complete, and the output.
fn copy_with_kills(
    job: &Job,
    lines: usize,
    kills: usize,
    time_only: usize,
    max_delay_ms: u64,
) -> (usize, Vec<u8>) {
    let (w, output) = (&job.w, &job.output);
    let files: Vec<&Path> = job.files.iter().map(PathBuf::as_path).collect();
    let total = (lines * job.width) as u64;
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
        let (written, most) = (file_len(output), total * 3 / 4);
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
            let reached = matches!(kill_at, KillAt::OutputLength) && file_len(output) >= target;
            if reached || started.elapsed() >= delay {
                break;
            }
            std::thread::park_timeout(Duration::from_millis(1));
        }
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        let log = w.log();
        assert!(!log.contains("panicked"), "round {round}: {log}");
        let at_kill = file_len(output);
        if at_kill < total {
            mid_copy += 1;
        }
        eprintln!("round {round}: killed with {at_kill} of {total} bytes written");
    }
    let out = w.run_until_idle("500ms", &files);
    assert!(out.status.success(), "{}", stderr(&out));
    (mid_copy, std::fs::read(output).unwrap())
}

/// Asserts `got` is the input of `lines` lines of `width` bytes, byte for byte.
fn assert_exact(got: &[u8], lines: usize, width: usize) {
    if got != numbered_lines(0, lines, width) {
        let n = got.split(|&b| b == b'\n').count().saturating_sub(1);
        let replayed = if width == support::WIDTH {
            check_replays(got, lines).to_string()
        } else {
            "?".to_owned()
        };
        panic!(
            "output differs from the input: {} bytes ({n} lines, {replayed} replayed) for {}",
            got.len(),
            lines * width
        );
    }
}

/// The scenario: 2,000,000 lines, offsets flushed every 5 s, 20 kills.
#[test]
fn two_million_lines_with_twenty_kills_are_copied_exactly_with_the_string_converter() {
    let job = exact_job(STRING, 5000, 2_000_000);
    let (mid_copy, got) = copy_with_kills(&job, 2_000_000, 20, 3, 2000);
    assert_exact(&got, 2_000_000, job.width);
    assert!(
        mid_copy >= 17,
        "only {mid_copy} of 20 kills landed before the copy was done"
    );
}

#[test]
fn two_million_lines_with_twenty_kills_are_copied_exactly_with_the_json_converter() {
    let job = exact_job(JSON, 5000, 2_000_000);
    let (mid_copy, got) = copy_with_kills(&job, 2_000_000, 20, 3, 2000);
    assert_exact(&got, 2_000_000, job.width);
    assert!(
        mid_copy >= 17,
        "only {mid_copy} of 20 kills landed before the copy was done"
    );
}

/// 100 kills, most of them in start-up and recovery, with commits every 50 ms so the sink's
/// file is cut back to a non-zero committed length again and again.
#[test]
fn two_hundred_thousand_lines_with_a_hundred_kills_are_copied_exactly() {
    let job = exact_job(STRING, 50, 200_000);
    let (mid_copy, got) = copy_with_kills(&job, 200_000, 100, 10, 80);
    assert_exact(&got, 200_000, job.width);
    assert!(
        mid_copy >= 90,
        "only {mid_copy} of 100 kills landed before the copy was done"
    );
}

/// Issue 26: the README's job with its default settings (FileStreamSink's `exactly.once` unset:
/// exact on the embedded log), SIGKILLed at random points and run to the end, is a
/// byte-identical copy.
#[test]
fn the_readme_job_with_default_settings_is_copied_exactly_after_sigkills() {
    const LINES: usize = 300_000;
    let job = readme_job(LINES, "");
    let (mid_copy, got) = copy_with_kills(&job, LINES, 10, 2, 2000);
    assert_exact(&got, LINES, job.width);
    assert!(
        mid_copy >= 8,
        "only {mid_copy} of 10 kills landed before the copy was done"
    );
}

/// `exactly.once=false` is Kafka Connect's append-only sink: after the same kills, the records
/// delivered again after the last commit are appended again.
#[test]
fn the_readme_job_with_exactly_once_false_appends_what_is_delivered_again() {
    const LINES: usize = 300_000;
    let job = readme_job(LINES, "exactly.once=false");
    let (mid_copy, got) = copy_with_kills(&job, LINES, 3, 0, 10_000);
    assert_eq!(mid_copy, 3, "every kill must land before the copy was done");
    let replayed = check_replays(&got, LINES);
    assert!(
        replayed > 0,
        "nothing was delivered twice: the file was cut"
    );
}
