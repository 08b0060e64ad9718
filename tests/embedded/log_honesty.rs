//! The embedded log says what went wrong instead of hiding it: a corrupt record ends
//! `topics read` with its place and reason, a sink whose committed offset lies beyond a cut log
//! resumes at the end instead of copying everything again, and a forced exit says what the next
//! start will repeat.

use crate::support;

use std::io::Read;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::*;

/// `rec-00\n` .. : `n` lines from `start`.
fn records(start: usize, n: usize) -> String {
    (start..start + n)
        .map(|i| format!("rec-{i:02}\n"))
        .collect()
}

/// The only segment of partition 0 of topic `t`.
fn segment(w: &Workdir) -> std::path::PathBuf {
    w.path("data/t-0/00000000000000000000.log")
}

/// Bytes written into a pipe and not read yet (FIONREAD).
fn unread_bytes(pipe: &std::fs::File) -> u64 {
    rustix::io::ioctl_fionread(pipe).expect("FIONREAD on the fifo")
}

/// Where `needle` starts in `bytes`.
fn find(bytes: &[u8], needle: &[u8]) -> usize {
    bytes
        .windows(needle.len())
        .position(|win| win == needle)
        .unwrap_or_else(|| panic!("{:?} not in the segment", String::from_utf8_lossy(needle)))
}

#[test]
fn topics_read_reports_a_corrupt_record_after_printing_the_ones_before_it() {
    let w = Workdir::new();
    let input = w.write("in.txt", records(0, 10));
    let worker = w.worker("");
    let source = w.source("src", &input, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source]);
    assert!(out.status.success(), "{}", stderr(&out));

    // One bit of record 5's value flips on disk: its CRC no longer matches.
    let path = segment(&w);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = find(&bytes, b"rec-05");
    bytes[at + 5] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();

    let worker_arg = worker.display().to_string();
    let out = w
        .command(&[
            "topics",
            "--worker",
            &worker_arg,
            "read",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "300",
        ])
        .output()
        .unwrap();
    let values: Vec<String> = stdout(&out)
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(values, ["rec-00", "rec-01", "rec-02", "rec-03", "rec-04"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("corrupt record in topic t partition 0 at offset 5")
            && err.contains("CRC mismatch")
            && err.contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn a_sink_committed_beyond_a_cut_log_resumes_at_the_end_without_copying_again() {
    let w = Workdir::new();
    let input = w.write("in.txt", records(0, 10));
    let output = w.path("out.txt");
    let worker = w.worker("");
    let source = w.source("src", &input, "t");
    let sink = w.sink("dst", &output, "t");
    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&output).unwrap(), records(0, 10));

    // The log loses its last records (torn in the middle of record 7) after the sink
    // committed offset 10: it ends at 7 at the next open.
    let path = segment(&w);
    let at = find(&std::fs::read(&path).unwrap(), b"rec-07");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(at as u64)
        .unwrap();
    // Two new lines land at offsets 7 and 8.
    std::fs::write(&input, records(0, 12)).unwrap();

    let out = w.run_until_idle("300ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("Consumer group connect-dst committed offset 10 of t-0, but the log ends at 7: 3 offsets are missing"),
        "{err}"
    );
    // Only the new records were copied: nothing earlier came again.
    assert_eq!(std::fs::read_to_string(&output).unwrap(), records(0, 12));
}

#[test]
fn a_second_signal_says_which_records_the_next_start_repeats() {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, 300_000, 20));
    // The sink writes into a pipe nobody drains: its flush, and so its commit, never ends.
    let fifo = w.path("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let worker =
        w.worker("offset.flush.interval.ms=600000\ntask.shutdown.graceful.timeout.ms=120000");
    let source = w.source("src", &input, "t");
    let sink = w.sink("dst", &fifo, "t");
    let mut child = w.spawn(&[&worker, &source, &sink]);
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || {
            // Opening blocks until the sink opens its end; one byte proves it put records.
            let mut file = std::fs::File::open(fifo).expect("open the fifo");
            let mut byte = [0u8; 1];
            file.read_exact(&mut byte).expect("read from the fifo");
            file
        }
    });
    wait_for("the sink to write", Duration::from_secs(60), || {
        reader.is_finished()
    });
    let pipe = reader.join().expect("fifo reader");
    // The sink is stuck only once the pipe is full; a stop before that would let its last
    // records fit in the pipe's buffer and commit them.
    wait_for("the sink to fill the pipe", Duration::from_secs(60), || {
        unread_bytes(&pipe) >= 60_000
    });

    let signal = |child: &std::process::Child| {
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
    };
    signal(&child);
    wait_for(
        "the graceful stop to begin",
        Duration::from_secs(30),
        || w.log().contains("Stopping gracefully"),
    );
    signal(&child);
    let status = wait_exit(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(130), "{}", w.log());

    let log = w.log();
    let line = log
        .lines()
        .find(|l| l.contains("sink task dst-0: "))
        .unwrap_or_else(|| panic!("no word on the sink's uncommitted records:\n{log}"));
    let count: u64 = line
        .split("sink task dst-0: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line:?}"));
    assert!(
        count > 0
            && count <= 300_000
            && line
                .contains("records put since its last offset commit will be delivered to it again"),
        "{line}"
    );
    // Nothing was committed: all of them will indeed come again.
    assert!(!Path::new(&w.path("data/__groups/connect-dst.json")).exists());
}
