//! The live progress lines and the exit summary: shown on a terminal (the worker runs under a
//! pseudo-terminal made by util-linux `script`), absent when stderr is a pipe or with `--quiet`;
//! the summary's log lines are there in every case.

use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};

use support::*;

const LINES: usize = 200_000;

/// A copy job of `LINES` lines: (worker, source, sink, output) files.
fn job(w: &Workdir) -> [std::path::PathBuf; 4] {
    let input = w.write("in.txt", numbered_lines(0, LINES, WIDTH));
    let output = w.path("out.txt");
    [
        w.worker(""),
        w.source("src", &input, "t"),
        w.sink("dst", &output, "t"),
        output,
    ]
}

fn quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// Runs the job under a pseudo-terminal; returns (exit code, everything the terminal showed).
fn run_on_terminal(w: &Workdir, extra: &[&str]) -> (Option<i32>, String) {
    let [worker, source, sink, output] = job(w);
    let mut line = format!(
        "{} standalone --exit-when-idle=500ms",
        quoted(&support::binary())
    );
    for arg in extra {
        line.push(' ');
        line.push_str(arg);
    }
    for file in [&worker, &source, &sink] {
        line.push(' ');
        line.push_str(&quoted(file));
    }
    let screen = w.path("screen.txt");
    let mut child = Command::new("script")
        .args([
            "--quiet",
            "--flush",
            "--return",
            "--command",
            &line,
            "/dev/null",
        ])
        .env("TERM", "xterm-256color")
        .env_remove("RUST_LOG")
        .current_dir(w.dir.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&screen).unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("util-linux script");
    let status = wait_exit(&mut child, RUN_TIMEOUT);
    assert_eq!(line_count(&output), LINES);
    (status.code(), std::fs::read_to_string(&screen).unwrap())
}

/// The log's summary line of each connector.
fn assert_summary_logged(text: &str) {
    for expected in [
        format!("Connector src (source): produced {LINES} records, 19.8 MB in "),
        format!("Connector dst (sink): put {LINES} records, 19.8 MB in "),
    ] {
        assert!(text.contains(&expected), "no {expected:?} in:\n{text}");
    }
}

/// Whether `text` holds a live line of connector `name` (state, then records in and out).
fn has_live_line(text: &str, name: &str) -> bool {
    text.contains(&format!("{name}  RUNNING   in "))
}

#[test]
fn a_terminal_shows_live_lines_and_a_summary_table() {
    let w = Workdir::new();
    let (code, screen) = run_on_terminal(&w, &[]);
    assert_eq!(code, Some(0), "{screen}");
    assert!(has_live_line(&screen, "src"), "{screen}");
    assert!(has_live_line(&screen, "dst"), "{screen}");
    // The source reads a file of known size: a bar that reaches 100 %, and the sink's lag.
    assert!(screen.contains("100% ETA"), "{screen}");
    assert!(screen.contains("in 200.0k 19.8 MB  out 200.0k"), "{screen}");
    assert!(screen.contains("lag 0"), "{screen}");
    // Once the copy ended (the tasks idle), the rates are 0 at once, not a decaying average.
    assert!(screen.contains("out 200.0k 19.8 MB  0/s  ["), "{screen}");
    assert!(screen.contains("out 200.0k  0/s  lag 0"), "{screen}");
    // No ETA of 0 s before everything was read (it is '-' until a rate was measured).
    for (at, _) in screen.match_indices("% ETA 0s") {
        assert_eq!(&screen[at - 3..at], "100", "{screen}");
    }
    let table = &screen[screen
        .find("Summary")
        .unwrap_or_else(|| panic!("no summary table:\n{screen}"))..];
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(1)
        .take(3)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[0],
        [
            "connector",
            "type",
            "records",
            "bytes",
            "duration",
            "rate",
            "errors"
        ]
    );
    let records = LINES.to_string();
    for (row, (name, kind)) in rows[1..].iter().zip([("dst", "sink"), ("src", "source")]) {
        assert_eq!(
            row[..5],
            [name, kind, records.as_str(), "19.8", "MB"],
            "{table}"
        );
        assert_eq!(row.last(), Some(&"0"), "{table}");
    }
    assert_summary_logged(&screen);
}

#[test]
fn quiet_keeps_the_terminal_to_the_log() {
    let w = Workdir::new();
    let (code, screen) = run_on_terminal(&w, &["--quiet"]);
    assert_eq!(code, Some(0), "{screen}");
    assert!(!has_live_line(&screen, "src"), "{screen}");
    assert!(!screen.contains("Summary"), "{screen}");
    assert_summary_logged(&screen);
}

#[test]
fn a_pipe_gets_plain_log_lines_only() {
    let w = Workdir::new();
    let [worker, source, sink, output] = job(&w);
    let out = w.run_until_idle("500ms", &[&worker, &source, &sink]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(line_count(&output), LINES);
    let text = stderr(&out);
    assert!(!has_live_line(&text, "src"), "{text}");
    assert!(!text.contains("Summary"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "escape sequences in a pipe:\n{text}"
    );
    assert!(!text.contains('\r'), "carriage returns in a pipe:\n{text}");
    assert_summary_logged(&text);
}
