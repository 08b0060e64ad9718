//! A shared worker on the real broker (issue 33): 200 FileStreamSource connectors and 100
//! FileStreamSink connectors in one standalone worker, which shares one producer among the
//! sources and runs the sinks' group members on its runtime. Every sink file gets every line of
//! every source, each source's lines in order, across a SIGTERM and a restart; and the worker's
//! threads do not grow with the connectors.

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use support::kafka::{broker, Broker};
use support::*;

const SOURCES: usize = 200;
const SINKS: usize = 100;
const LINES: usize = 20;

/// Threads of process `pid`, counted by name.
fn threads(pid: u32) -> BTreeMap<String, usize> {
    let mut names = BTreeMap::new();
    for t in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        let name = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        *names.entry(name.trim().to_owned()).or_insert(0) += 1;
    }
    names
}

/// Checks one sink file: complete lines only, each source's lines in order, nothing missing
/// once `complete`; returns how many lines it holds.
fn check_sink_file(path: &PathBuf, complete: bool) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut next: BTreeMap<usize, usize> = BTreeMap::new();
    let mut count = 0;
    for line in text.lines() {
        let (source, n): (usize, usize) = line
            .split_once('-')
            .and_then(|(s, n)| Some((s.strip_prefix('s')?.parse().ok()?, n.parse().ok()?)))
            .unwrap_or_else(|| panic!("{}: torn line {line:?}", path.display()));
        let expected = next.entry(source).or_insert(0);
        assert_eq!(
            n,
            *expected,
            "{}: source {source} out of order",
            path.display()
        );
        *expected += 1;
        count += 1;
    }
    if complete {
        assert_eq!(next.len(), SOURCES, "{}: sources missing", path.display());
        assert!(
            next.values().all(|n| *n == LINES),
            "{}: lines missing",
            path.display()
        );
    }
    count
}

#[test]
fn two_hundred_sources_and_a_hundred_sinks_copy_every_line_across_a_restart() {
    let broker = broker();
    let w = Workdir::new();
    let topic = Broker::unique("many");
    broker.create_topic(&topic, 1);
    let worker = w.write(
        "worker.properties",
        format!(
            "bootstrap.servers={}\nlisteners=http://127.0.0.1:0\n\
             key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             offset.storage.file.filename={}\noffset.flush.interval.ms=500\n",
            broker.bootstrap(),
            w.path("offsets.json").display()
        ),
    );
    let mut files = vec![worker];
    for i in 0..SOURCES {
        let lines: String = (0..LINES).map(|j| format!("s{i}-{j}\n")).collect();
        let input = w.write(&format!("in/{i}.txt"), lines);
        files.push(w.source(&format!("src{i}"), &input, &topic));
    }
    let outputs: Vec<PathBuf> = (0..SINKS)
        .map(|i| w.path(&format!("out/{i}.txt")))
        .collect();
    std::fs::create_dir_all(w.path("out")).unwrap();
    for (i, out) in outputs.iter().enumerate() {
        files.push(w.sink(&Broker::unique(&format!("dst{i}")), out, &topic));
    }
    let files: Vec<_> = files.iter().map(|f| f.as_path()).collect();
    let total = SOURCES * LINES;
    let written = |outputs: &[PathBuf], complete: bool| -> usize {
        outputs.iter().map(|o| check_sink_file(o, complete)).sum()
    };

    // First run: stopped with SIGTERM once the sinks are under way.
    let mut child = w.spawn(&files);
    wait_for("the sinks to write", Duration::from_secs(120), || {
        assert!(child.try_wait().unwrap().is_none(), "{}", w.log());
        written(&outputs, false) >= SINKS * total / 4
    });
    let busy_threads = threads(child.id());
    assert!(
        terminate(&mut child, Duration::from_secs(60)).success(),
        "{}",
        w.log()
    );
    let before = written(&outputs, false);

    // Second run: every sink file completes, nothing lost or repeated.
    let mut child = w.spawn(&files);
    wait_for(
        "every sink file to complete",
        Duration::from_secs(180),
        || {
            assert!(child.try_wait().unwrap().is_none(), "{}", w.log());
            written(&outputs, false) >= SINKS * total
        },
    );
    let threads_after = threads(child.id());
    assert!(
        terminate(&mut child, Duration::from_secs(60)).success(),
        "{}",
        w.log()
    );
    assert!(before < SINKS * total, "the restart had nothing left to do");
    assert_eq!(written(&outputs, true), SINKS * total);
    // The runtime's threads and a few clients' (one shared producer), whatever the count of
    // connectors: a client per task would be well over a thousand.
    for t in [busy_threads, threads_after] {
        let n: usize = t.values().sum();
        assert!(
            n <= 64,
            "{n} threads for {SOURCES} sources and {SINKS} sinks: {t:?}"
        );
    }
}
