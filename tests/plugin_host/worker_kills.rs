//! Kafka's own Verifiable connectors from `plugin.path` under SIGKILLs of the worker, standalone
//! on the embedded log (issue 28, acceptance): the worker is killed at random moments (seeded;
//! `PLUGIN_HOST_KILL_SEED=N` replays a run) and started again each time, its plugin host JVM
//! dying with it.
//! - At least once (`embedded.log.exactly.once.source=false`, Kafka Connect's source
//!   semantics): after 10 kills every seqno up to the highest is in the topic and reached
//!   `VerifiableSinkTask.put`, and each restart resumed from the committed offsets.
//! - Exactly once (the embedded log's exactly-once source, its default): after several kills the
//!   topic holds each seqno exactly once, in order, although the offsets file is never flushed
//!   before a kill.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::support;

use connect_rs::topics::local::LocalLog;
use connect_rs::topics::TopicPartition;
use support::plugin_jars::plugin_jars;
use support::rest::{start, wait_running, Running};
use support::rng::Rng;
use support::*;

const WAIT: Duration = Duration::from_secs(120);
const SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";
const SINK: &str = "org.apache.kafka.connect.tools.VerifiableSinkConnector";
const TOPIC: &str = "seq";

/// A `plugin.path` in `w` with only the Verifiable connectors' location (a link to it): each
/// start of the worker scans it, and the other fetched plugins (Debezium) would make every
/// start seconds longer.
pub(crate) fn verifiable_plugin_path(w: &Workdir) -> std::path::PathBuf {
    let dir = w.path("plugins");
    std::fs::create_dir_all(&dir).expect("plugins dir");
    std::os::unix::fs::symlink(&plugin_jars().verifiable, dir.join("verifiable"))
        .expect("link the Verifiable plugin");
    dir
}

/// The seed of the kill moments: `PLUGIN_HOST_KILL_SEED`, else the clock (printed).
fn rng(test: &str) -> Rng {
    let seed = std::env::var("PLUGIN_HOST_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    eprintln!("{test}: PLUGIN_HOST_KILL_SEED={seed}");
    Rng(seed)
}

/// The end offset of partition 0 of [`TOPIC`] as a reader sees it now (0 before it exists).
fn topic_end(data: &Path) -> i64 {
    let Ok(log) = LocalLog::open_read_only(data) else {
        return 0;
    };
    log.topics()
        .iter()
        .find(|t| t.name == TOPIC)
        .map_or(0, |t| t.partitions[0].end_offset)
}

/// Every value of partition 0 of [`TOPIC`], each a seqno (VerifiableSourceTask's Int64 value
/// through the StringConverter).
fn topic_seqnos(data: &Path) -> Vec<u64> {
    let log = LocalLog::open_read_only(data).expect("the embedded log");
    let tp = TopicPartition {
        topic: TOPIC.to_owned(),
        partition: 0,
    };
    let mut seqnos = Vec::new();
    loop {
        let batch = log.read(&tp, seqnos.len() as i64, 10_000).expect("read");
        if batch.is_empty() {
            return seqnos;
        }
        seqnos.extend(batch.into_iter().map(|r| {
            let value = String::from_utf8(r.value.expect("a value")).expect("UTF-8");
            value
                .parse::<u64>()
                .unwrap_or_else(|e| panic!("value {value:?}: {e}"))
        }));
    }
}

/// A seqno printed by a Verifiable task: `"seqno":N` or `"seqno":"N"` (a string after the
/// StringConverter).
fn seqno_in(line: &str) -> Option<u64> {
    let rest = line.split("\"seqno\":").nth(1)?;
    rest.trim_start_matches('"')
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The seqnos VerifiableSinkTask got in `put` (its JSON lines with `sinkTask`, not `flushed`).
fn sink_puts(log: &str) -> impl Iterator<Item = u64> + '_ {
    log.lines()
        .filter(|l| l.contains("\"sinkTask\"") && !l.contains("\"flushed\""))
        .filter_map(seqno_in)
}

/// The `N` of VerifiableSourceTask's `... resuming from seqno N` line in one run's log.
fn resumed_from(log: &str) -> Option<u64> {
    let marker = "resuming from seqno ";
    let at = log.find(marker)? + marker.len();
    log[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The live processes (zombies aside) whose current directory is `dir`: a worker started in
/// it and its plugin host JVM, which inherits it.
pub(crate) fn processes_in(dir: &Path) -> Vec<u32> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir)
                && std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                    s.rsplit(')')
                        .next()
                        .is_some_and(|r| !r.trim_start().starts_with('Z'))
                })
        })
        .collect()
}

/// One worker run after another on the same files, each ended by a SIGKILL; keeps every run's
/// log (a start truncates the log file).
struct Runs<'a> {
    w: &'a Workdir,
    files: Vec<&'a Path>,
    /// The logs of the killed runs.
    logs: Vec<String>,
}

impl<'a> Runs<'a> {
    fn start(&self) -> Running {
        start(self.w, &self.files)
    }

    /// SIGKILLs the worker; its JVM must die with it (no process is left in the workdir).
    fn kill(&mut self, mut running: Running) {
        running.child.kill().expect("SIGKILL the worker");
        let _ = running.child.wait();
        wait_for(
            "the plugin host JVM to die with its worker (no orphan)",
            Duration::from_secs(20),
            || processes_in(self.w.dir.path()).is_empty(),
        );
        self.logs.push(self.w.log());
    }

    /// Runs and kills the worker `kills` times at random moments: mostly once the topic has
    /// grown by a random number of records (then after 0–50 ms more), every fourth time at a
    /// random moment after its JVM started (connectors and tasks starting, first polls).
    fn kill_at_random(&mut self, rng: &mut Rng, kills: usize, data: &Path) {
        for round in 0..kills {
            let before = topic_end(data);
            let running = self.start();
            let dir = self.w.dir.path();
            if round % 4 == 3 {
                wait_for("the plugin host JVM to start", WAIT, || {
                    processes_in(dir).len() >= 2
                });
                std::thread::park_timeout(Duration::from_millis(rng.below(800)));
            } else {
                let target = before + 1 + rng.below(300) as i64;
                wait_for("the topic to grow", WAIT, || topic_end(data) >= target);
                std::thread::park_timeout(Duration::from_millis(rng.below(50)));
            }
            self.kill(running);
            eprintln!(
                "round {round}: killed at topic end {} (was {before})",
                topic_end(data)
            );
        }
    }
}

/// The `resuming from seqno N` of each run that got as far as starting its source task; they
/// never go back (offsets are committed, never forgotten), and the last is past 0 (the
/// restarts resumed, rather than starting over).
fn check_resumes(logs: &[String]) -> Vec<u64> {
    let resumes: Vec<u64> = logs.iter().filter_map(|l| resumed_from(l)).collect();
    assert!(
        resumes.windows(2).all(|w| w[0] <= w[1]),
        "the source resumed from an earlier seqno than before: {resumes:?}"
    );
    assert!(
        resumes.last().is_some_and(|&r| r > 0),
        "the source never resumed past seqno 0: {resumes:?}"
    );
    resumes
}

#[test]
fn verifiable_seqnos_are_contiguous_after_10_random_sigkills_of_the_worker() {
    let began = Instant::now();
    let mut rng = rng("at least once");
    let jars = plugin_jars();
    let w = Workdir::new();
    let data = w.path("data");
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=200\n\
         embedded.log.exactly.once.source=false\nplugin.path={}\nplugin.host.classpath={}",
        w.path("offsets").display(),
        verifiable_plugin_path(&w).display(),
        jars.classpath_string()
    ));
    let source = w.write(
        "vsource.properties",
        format!(
            "name=vsource\nconnector.class={SOURCE}\ntasks.max=1\ntopic={TOPIC}\nthroughput=1000\n"
        ),
    );
    let sink = w.write(
        "vsink.properties",
        format!("name=vsink\nconnector.class={SINK}\ntasks.max=1\ntopics={TOPIC}\n"),
    );
    let mut runs = Runs {
        w: &w,
        files: vec![&worker, &source, &sink],
        logs: Vec::new(),
    };
    runs.kill_at_random(&mut rng, 10, &data);

    // The last run: both connectors run, the topic grows past what the kills left, and the sink
    // gets past the topic's end as it is then.
    let last = runs.start();
    wait_running(&last.client, "vsource", WAIT);
    wait_running(&last.client, "vsink", WAIT);
    let target = topic_end(&data) + 100;
    wait_for("100 more records in the topic", WAIT, || {
        topic_end(&data) >= target
    });
    let topic = topic_seqnos(&data);
    let max = *topic.iter().max().expect("records");
    wait_for("the sink to get past the topic's end", WAIT, || {
        sink_puts(&w.log()).any(|s| s >= max)
    });
    runs.kill(last);

    // At least once: every seqno up to the highest is in the topic, and reached the sink.
    let in_topic: BTreeSet<u64> = topic.iter().copied().collect();
    let missing: Vec<u64> = (0..=max).filter(|n| !in_topic.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "seqnos missing in the topic: {missing:?}"
    );
    let sunk: BTreeSet<u64> = runs.logs.iter().flat_map(|l| sink_puts(l)).collect();
    let missing: Vec<u64> = (0..=max).filter(|n| !sunk.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "seqnos of the topic that never reached the sink: {missing:?}"
    );
    let resumes = check_resumes(&runs.logs);
    eprintln!(
        "at least once: {} records for seqnos 0..={max} ({} again) after 10 SIGKILLs; \
         the source resumed from {resumes:?}; took {:?}",
        topic.len(),
        topic.len() as u64 - (max + 1),
        began.elapsed()
    );
}

#[test]
fn verifiable_seqnos_are_in_the_topic_exactly_once_after_sigkills_with_the_exactly_once_source() {
    let began = Instant::now();
    const KILLS: usize = 4;
    let mut rng = rng("exactly once");
    let jars = plugin_jars();
    let w = Workdir::new();
    let data = w.path("data");
    // The offsets file is never flushed before a kill: without the commit journal, each
    // restart would start over from seqno 0.
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=3600000\n\
         plugin.path={}\nplugin.host.classpath={}",
        w.path("offsets").display(),
        verifiable_plugin_path(&w).display(),
        jars.classpath_string()
    ));
    let source = w.write(
        "vsource.properties",
        format!(
            "name=vsource\nconnector.class={SOURCE}\ntasks.max=1\ntopic={TOPIC}\nthroughput=1000\n"
        ),
    );
    let mut runs = Runs {
        w: &w,
        files: vec![&worker, &source],
        logs: Vec::new(),
    };
    runs.kill_at_random(&mut rng, KILLS, &data);

    // The last run ends with a SIGTERM: what it wrote is all committed.
    let mut last = runs.start();
    wait_running(&last.client, "vsource", WAIT);
    let target = topic_end(&data) + 100;
    wait_for("100 more records in the topic", WAIT, || {
        topic_end(&data) >= target
    });
    terminate(&mut last.child, WAIT);
    runs.logs.push(w.log());
    drop(last);

    let topic = topic_seqnos(&data);
    let expected: Vec<u64> = (0..topic.len() as u64).collect();
    if topic != expected {
        let again: Vec<u64> = topic
            .iter()
            .enumerate()
            .filter(|(i, s)| topic[..*i].contains(s))
            .map(|(_, s)| *s)
            .take(20)
            .collect();
        panic!(
            "the topic does not hold seqnos 0..{} each once, in order; seqnos written again: \
             {again:?}",
            topic.len()
        );
    }
    let resumes = check_resumes(&runs.logs);
    eprintln!(
        "exactly once: seqnos 0..{} each once after {KILLS} SIGKILLs; the source resumed \
         from {resumes:?}; took {:?}",
        topic.len(),
        began.elapsed()
    );
}
