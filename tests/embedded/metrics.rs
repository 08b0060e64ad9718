//! `GET /metrics` of the real binary on the embedded log: Kafka Connect's metric groups in the
//! Prometheus text format, scraped while a copy runs (counters only grow and end equal to the
//! records copied), parsed by an independent Prometheus parser (`prometheus-parse`) and checked
//! line by line against the text format; the rebalance group in distributed mode; counts and
//! summaries of what was written or acknowledged only, and failed tasks as errors.

use crate::support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use prometheus_parse::{Sample, Scrape, Value};
use support::http::Client;
use support::rest::{start, start_args};
use support::{line_count, numbered_lines, terminate, wait_exit, wait_for, Workdir};

/// Lines in the input before the worker starts, then appended per chunk while it runs.
const FIRST: usize = 100_000;
const CHUNK: usize = 50_000;
const CHUNKS: usize = 4;
const TOTAL: usize = FIRST + CHUNK * CHUNKS;

/// A limit for each wait: generous for a loaded machine, never reached when things work.
const WAIT: Duration = Duration::from_secs(60);

/// One scrape: the body parsed by `prometheus-parse`, after the strict format check.
struct Scraped {
    body: String,
    samples: Vec<Sample>,
}

impl Scraped {
    /// The value of the counter or gauge `metric` with exactly these labels.
    fn value(&self, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.samples
            .iter()
            .find(|s| s.metric == metric && has_labels(s, labels) && s.labels.len() == labels.len())
            .and_then(|s| match s.value {
                Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => Some(v),
                _ => None,
            })
    }

    /// The value of a task's counter or gauge `metric`, 0 when absent.
    fn task(&self, metric: &str, connector: &str) -> f64 {
        self.value(metric, &[("connector", connector), ("task", "0")])
            .unwrap_or(0.0)
    }

    /// Whether a sample of family `family` (a histogram's `_bucket`/`_sum`/`_count` too) has
    /// these labels.
    fn has(&self, family: &str, labels: &[(&str, &str)]) -> bool {
        self.samples.iter().any(|s| {
            let name = s.metric.as_str();
            let of_family = name == family
                || ["_bucket", "_sum", "_count"]
                    .iter()
                    .any(|suffix| name.strip_suffix(suffix) == Some(family));
            of_family && has_labels(s, labels)
        })
    }

    /// Every counter sample by name and labels.
    fn counters(&self) -> BTreeMap<String, f64> {
        self.samples
            .iter()
            .filter_map(|s| match s.value {
                Value::Counter(v) => {
                    let mut labels: Vec<_> = s.labels.iter().collect();
                    labels.sort();
                    Some((format!("{}{labels:?}", s.metric), v))
                }
                _ => None,
            })
            .collect()
    }
}

fn has_labels(s: &Sample, labels: &[(&str, &str)]) -> bool {
    labels.iter().all(|(k, v)| s.labels.get(k) == Some(v))
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// Checks the Prometheus text format 0.0.4 line by line: `# HELP` and `# TYPE` (a known type,
/// once per family, before its samples), and samples `name{label="value",...} value` whose
/// family was typed.
fn check_text_format(body: &str) {
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    for line in body.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let name = rest.split(' ').next().unwrap_or_default();
            assert!(valid_name(name), "HELP of a bad name: {line}");
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut parts = rest.split(' ');
            let (name, kind) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            assert!(valid_name(name), "TYPE of a bad name: {line}");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                "unknown type: {line}"
            );
            assert!(
                typed.insert(name.to_owned(), kind.to_owned()).is_none(),
                "family typed twice: {line}"
            );
            continue;
        }
        assert!(!line.starts_with('#'), "unexpected comment: {line}");
        let name_end = line.find(['{', ' ']).expect("a sample has a value");
        let name = &line[..name_end];
        assert!(valid_name(name), "bad metric name: {line}");
        let rest = &line[name_end..];
        let value = if let Some(labels) = rest.strip_prefix('{') {
            let end = labels.rfind('}').expect("labels are closed");
            for pair in labels[..end].split("\",").filter(|p| !p.is_empty()) {
                let (k, v) = pair.split_once('=').expect("label=value");
                assert!(valid_name(k), "bad label name in {line}");
                assert!(v.starts_with('"'), "label value not quoted in {line}");
            }
            labels[end + 1..].trim()
        } else {
            rest.trim()
        };
        let ok = value.parse::<f64>().is_ok() || ["+Inf", "-Inf", "NaN"].contains(&value);
        assert!(ok, "bad sample value: {line}");
        let family = typed.get(name).map(|_| name).or_else(|| {
            ["_bucket", "_sum", "_count"]
                .iter()
                .filter_map(|s| name.strip_suffix(s))
                .find(|base| typed.get(*base).is_some_and(|k| k == "histogram"))
        });
        assert!(family.is_some(), "sample of an untyped family: {line}");
    }
}

fn scrape(client: &Client) -> Scraped {
    let r = client.get("/metrics");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    check_text_format(&r.body);
    let parsed = Scrape::parse(r.body.lines().map(|l| Ok(l.to_owned()))).expect("parse");
    Scraped {
        body: r.body,
        samples: parsed.samples,
    }
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open input");
    f.write_all(bytes).expect("append input");
}

/// The families of Kafka Connect's groups (reference §11) a task of each kind and the worker
/// serve, with the labels their series carry.
const TASK_FAMILIES: &[&str] = &[
    "kafka_connect_connector_task_metrics_status",
    "kafka_connect_connector_task_metrics_batch_size",
    "kafka_connect_connector_task_metrics_offset_commit_time_seconds",
    "kafka_connect_connector_task_metrics_offset_commit_success_total",
    "kafka_connect_connector_task_metrics_offset_commit_failure_total",
    "kafka_connect_task_error_metrics_record_failures_total",
    "kafka_connect_task_error_metrics_record_errors_total",
    "kafka_connect_task_error_metrics_records_skipped_total",
    "kafka_connect_task_error_metrics_retries_total",
    "kafka_connect_task_error_metrics_errors_logged_total",
    "kafka_connect_task_error_metrics_deadletterqueue_produce_requests_total",
    "kafka_connect_task_error_metrics_deadletterqueue_produce_failures_total",
    "kafka_connect_task_error_metrics_last_error_timestamp_seconds",
    "connect_rs_task_record_bytes_total",
    "connect_rs_task_stage_time_seconds",
];
const SOURCE_FAMILIES: &[&str] = &[
    "kafka_connect_source_task_metrics_source_record_poll_total",
    "kafka_connect_source_task_metrics_source_record_write_total",
    "kafka_connect_source_task_metrics_poll_batch_time_seconds",
    "kafka_connect_source_task_metrics_source_record_active_count",
    "kafka_connect_source_task_metrics_source_record_active_count_max",
    "kafka_connect_source_task_metrics_source_record_active_count_avg",
];
const SINK_FAMILIES: &[&str] = &[
    "kafka_connect_sink_task_metrics_sink_record_read_total",
    "kafka_connect_sink_task_metrics_sink_record_send_total",
    "kafka_connect_sink_task_metrics_put_batch_time_seconds",
    "kafka_connect_sink_task_metrics_partition_count",
    "kafka_connect_sink_task_metrics_sink_record_lag_max",
    "kafka_connect_sink_task_metrics_offset_commit_completion_total",
    "kafka_connect_sink_task_metrics_offset_commit_skip_total",
    "kafka_connect_sink_task_metrics_offset_commit_seq_no",
    "kafka_connect_sink_task_metrics_sink_record_active_count",
    "kafka_connect_sink_task_metrics_sink_record_active_count_max",
    "kafka_connect_sink_task_metrics_sink_record_active_count_avg",
];
const CONNECTOR_FAMILIES: &[&str] = &[
    "kafka_connect_connector_metrics_status",
    "kafka_connect_connector_metrics_connector_info",
    "kafka_connect_connect_worker_metrics_connector_total_task_count",
    "kafka_connect_connect_worker_metrics_connector_running_task_count",
    "kafka_connect_connect_worker_metrics_connector_paused_task_count",
    "kafka_connect_connect_worker_metrics_connector_failed_task_count",
    "kafka_connect_connect_worker_metrics_connector_unassigned_task_count",
    "kafka_connect_connect_worker_metrics_connector_destroyed_task_count",
    "kafka_connect_connect_worker_metrics_connector_restarting_task_count",
];
const WORKER_FAMILIES: &[&str] = &[
    "kafka_connect_connect_worker_metrics_connector_count",
    "kafka_connect_connect_worker_metrics_task_count",
    "kafka_connect_connect_worker_metrics_connector_startup_attempts_total",
    "kafka_connect_connect_worker_metrics_connector_startup_success_total",
    "kafka_connect_connect_worker_metrics_connector_startup_failure_total",
    "kafka_connect_connect_worker_metrics_task_startup_attempts_total",
    "kafka_connect_connect_worker_metrics_task_startup_success_total",
    "kafka_connect_connect_worker_metrics_task_startup_failure_total",
];
const REBALANCE_FAMILIES: &[&str] = &[
    "kafka_connect_connect_worker_rebalance_metrics_completed_rebalances_total",
    "kafka_connect_connect_worker_rebalance_metrics_rebalancing",
    "kafka_connect_connect_worker_rebalance_metrics_epoch",
    "kafka_connect_connect_worker_rebalance_metrics_info",
    "kafka_connect_connect_worker_rebalance_metrics_last_rebalance_timestamp_seconds",
    "kafka_connect_connect_worker_rebalance_metrics_rebalance_time_seconds",
    "kafka_connect_connect_coordinator_metrics_assigned_connectors",
    "kafka_connect_connect_coordinator_metrics_assigned_tasks",
];

fn assert_families(s: &Scraped, src: &str, dst: &str) {
    for (connector, kind) in [(src, SOURCE_FAMILIES), (dst, SINK_FAMILIES)] {
        let labels = [("connector", connector), ("task", "0")];
        for family in TASK_FAMILIES.iter().chain(kind) {
            assert!(
                s.has(family, &labels),
                "{family}{labels:?} missing:\n{}",
                s.body
            );
        }
        for family in CONNECTOR_FAMILIES {
            let labels = [("connector", connector)];
            assert!(
                s.has(family, &labels),
                "{family}{labels:?} missing:\n{}",
                s.body
            );
        }
    }
    assert!(
        !s.has(SINK_FAMILIES[0], &[("connector", src)]),
        "a source task has no sink series"
    );
    for family in WORKER_FAMILIES {
        assert!(s.has(family, &[]), "{family} missing:\n{}", s.body);
    }
}

#[test]
fn counters_grow_during_a_copy_and_end_equal_to_the_lines_copied() {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, FIRST, 100));
    let output = w.path("out.txt");
    let worker = w.worker("offset.flush.interval.ms=100");
    let src = w.source("src", &input, "lines");
    let dst = w.sink("dst", &output, "lines");
    let mut running = start(&w, &[&worker, &src, &dst]);

    let mut scrapes: Vec<Scraped> = Vec::new();
    let mut written = FIRST;
    let started = Instant::now();
    // Scrape until the sink has taken every line written so far, then write the next chunk:
    // every scrape before the last chunk lands in the middle of the whole copy.
    loop {
        let s = scrape(&running.client);
        let sent = s.task(
            "kafka_connect_sink_task_metrics_sink_record_send_total",
            "dst",
        );
        // The source counts a record written when its acknowledgement reaches the task, which
        // may come after the sink has already read it: the end is when both counted them all.
        let acked = s.task(
            "kafka_connect_source_task_metrics_source_record_write_total",
            "src",
        );
        scrapes.push(s);
        if sent as usize >= written {
            if written == TOTAL && line_count(&output) == TOTAL && acked as usize == TOTAL {
                break;
            }
            if written < TOTAL {
                append(&input, &numbered_lines(written, CHUNK, 100));
                written += CHUNK;
            }
        }
        assert!(
            started.elapsed() < WAIT,
            "the copy did not finish; last scrape:\n{}",
            scrapes.last().map_or("", |s| s.body.as_str())
        );
    }

    // Counters never go down from one scrape to the next.
    for pair in scrapes.windows(2) {
        let (before, after) = (pair[0].counters(), pair[1].counters());
        for (key, old) in &before {
            if let Some(new) = after.get(key) {
                assert!(new >= old, "{key} went down from {old} to {new}");
            }
        }
    }
    let send = "kafka_connect_sink_task_metrics_sink_record_send_total";
    let mid_copy = scrapes
        .iter()
        .filter(|s| {
            let sent = s.task(send, "dst") as usize;
            sent > 0 && sent < TOTAL
        })
        .count();
    assert!(
        mid_copy >= CHUNKS,
        "only {mid_copy} scrapes landed mid-copy"
    );

    // At the end, what was copied.
    let last = scrapes.last().expect("scraped");
    let total = TOTAL as f64;
    for (metric, connector) in [
        (
            "kafka_connect_source_task_metrics_source_record_poll_total",
            "src",
        ),
        (
            "kafka_connect_source_task_metrics_source_record_write_total",
            "src",
        ),
        (
            "kafka_connect_sink_task_metrics_sink_record_read_total",
            "dst",
        ),
        (send, "dst"),
    ] {
        assert_eq!(last.task(metric, connector), total, "{metric}");
    }
    assert_eq!(line_count(&output), TOTAL);
    assert_eq!(
        last.task("connect_rs_task_record_bytes_total", "dst"),
        (TOTAL * 99) as f64,
        "bytes put (lines without their newline)"
    );
    assert_families(last, "src", "dst");
    for (metric, labels, value) in [
        (
            "kafka_connect_connect_worker_metrics_connector_count",
            vec![],
            2.0,
        ),
        (
            "kafka_connect_connect_worker_metrics_task_count",
            vec![],
            2.0,
        ),
        (
            "kafka_connect_connect_worker_metrics_task_startup_success_total",
            vec![],
            2.0,
        ),
        (
            "kafka_connect_connector_metrics_status",
            vec![("connector", "src"), ("status", "running")],
            1.0,
        ),
        (
            "kafka_connect_connector_task_metrics_status",
            vec![("connector", "dst"), ("task", "0"), ("status", "running")],
            1.0,
        ),
        (
            "kafka_connect_connect_worker_metrics_connector_running_task_count",
            vec![("connector", "dst")],
            1.0,
        ),
        (
            "kafka_connect_sink_task_metrics_partition_count",
            vec![("connector", "dst"), ("task", "0")],
            1.0,
        ),
        // Every record read: nothing left to the end of the topic.
        (
            "kafka_connect_sink_task_metrics_sink_record_lag_max",
            vec![("connector", "dst"), ("task", "0")],
            0.0,
        ),
    ] {
        assert_eq!(
            last.value(metric, &labels),
            Some(value),
            "{metric}{labels:?}"
        );
    }
    assert!(
        !last.body.contains("rebalance"),
        "a standalone worker has no rebalance group"
    );

    // The final log line still counts what each task moved.
    let status = terminate(&mut running.child, Duration::from_secs(30));
    assert!(status.success(), "worker exited with {status}");
    let log = w.log();
    assert!(
        log.contains(&format!("Task stopped: produced {TOTAL} records")),
        "{log}"
    );
    assert!(
        log.contains(&format!("Task stopped: put {TOTAL} records")),
        "{log}"
    );
}

#[test]
fn a_distributed_worker_serves_the_rebalance_group() {
    let w = Workdir::new();
    let input = w.write("in.txt", numbered_lines(0, 100, 40));
    let output = w.path("out.txt");
    let worker = w.worker(
        "group.id=connect-cluster\n\
         config.storage.topic=connect-configs\n\
         offset.storage.topic=connect-offsets\n\
         status.storage.topic=connect-status",
    );
    let src = w.source("src", &input, "lines");
    let dst = w.sink("dst", &output, "lines");
    let args: Vec<String> = ["standalone", "--distributed"]
        .iter()
        .map(|s| (*s).to_owned())
        .chain(
            [&worker, &src, &dst]
                .iter()
                .map(|p| p.display().to_string()),
        )
        .collect();
    let mut running = start_args(&w, &args);
    wait_for("100 lines copied", WAIT, || line_count(&output) == 100);
    let mut last = scrape(&running.client);
    wait_for("both tasks in the metrics", WAIT, || {
        last = scrape(&running.client);
        last.value("kafka_connect_connect_worker_metrics_task_count", &[]) == Some(2.0)
    });
    assert_families(&last, "src", "dst");
    for family in REBALANCE_FAMILIES {
        assert!(last.has(family, &[]), "{family} missing:\n{}", last.body);
    }
    let rebalance = "kafka_connect_connect_worker_rebalance_metrics";
    assert_eq!(
        last.value(&format!("{rebalance}_completed_rebalances_total"), &[]),
        Some(1.0)
    );
    assert_eq!(
        last.value(&format!("{rebalance}_rebalancing"), &[]),
        Some(0.0)
    );
    assert_eq!(last.value(&format!("{rebalance}_epoch"), &[]), Some(0.0));
    let leader = format!("127.0.0.1:{}", running.port);
    assert_eq!(
        last.value(
            &format!("{rebalance}_info"),
            &[("connect_protocol", "none"), ("leader_name", &leader)]
        ),
        Some(1.0),
        "{}",
        last.body
    );
    assert_eq!(
        last.value(
            "kafka_connect_connect_coordinator_metrics_assigned_tasks",
            &[]
        ),
        Some(2.0)
    );
    let status = terminate(&mut running.child, Duration::from_secs(30));
    assert!(status.success(), "worker exited with {status}");
}

/// The status of connector `name`'s task 0 (`None` until the worker answers with one).
fn task_state(client: &Client, name: &str) -> Option<String> {
    let r = client.get(&format!("/connectors/{name}/status"));
    (r.status == 200)
        .then(|| r.json()["tasks"][0]["state"].as_str().map(str::to_owned))
        .flatten()
}

/// The log line holding `needle`.
fn log_line<'a>(log: &'a str, needle: &str) -> &'a str {
    log.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in:\n{log}"))
}

/// What a summary says after the verb: `1 record, 1 B in 3.86 ms (259 records/s)`.
fn moved(line: &str, verb: &str) -> String {
    let at = line
        .find(&format!(": {verb} "))
        .unwrap_or_else(|| panic!("no {verb:?} in {line:?}"));
    let rest = &line[at + verb.len() + 3..];
    rest[..=rest.find(" records/s)").expect("a rate") + " records/s)".len() - 1].to_owned()
}

/// Counts are what was written or acknowledged: a sink whose writes fail is put but not
/// committed, and its failure is an error; a source whose records the topic refuses (a topic
/// name that a transform makes invalid, so only the produce can refuse it) produced nothing; a
/// sink that moved nothing is still a sink; each task has one rate, the same in its stop line
/// and in its connector's summary.
#[test]
fn counts_and_summaries_count_what_was_written_and_errors_as_errors() {
    let w = Workdir::new();
    let one = w.write("one.txt", "x\n");
    let five = w.write("five.txt", "1\n2\n3\n4\n5\n");
    // Flushed soon: the sink's write to /dev/full fails while the worker runs.
    let worker = w.worker("offset.flush.interval.ms=100");
    let src = w.source("src", &one, "t");
    let dst = w.sink("dst", Path::new("/dev/full"), "t");
    let routed = w.write(
        "routed.properties",
        format!(
            "name=routed\nconnector.class=FileStreamSource\ntasks.max=1\nfile={}\ntopic=fine\n\
             transforms=r\ntransforms.r.type=org.apache.kafka.connect.transforms.RegexRouter\n\
             transforms.r.regex=.*\ntransforms.r.replacement=bad/$0\n",
            five.display()
        ),
    );
    let lonely = w.sink("lonely", &w.path("lonely.txt"), "nothing");
    let mut running = start(&w, &[&worker, &src, &dst, &routed, &lonely]);
    wait_for("dst and routed to fail", WAIT, || {
        task_state(&running.client, "dst").as_deref() == Some("FAILED")
            && task_state(&running.client, "routed").as_deref() == Some("FAILED")
    });
    let s = scrape(&running.client);
    let poll = "kafka_connect_source_task_metrics_source_record_poll_total";
    let write = "kafka_connect_source_task_metrics_source_record_write_total";
    let bytes = "connect_rs_task_record_bytes_total";
    assert_eq!(s.task(poll, "routed"), 5.0, "{}", s.body);
    assert_eq!(s.task(write, "routed"), 0.0, "nothing written:\n{}", s.body);
    assert_eq!(s.task(bytes, "routed"), 0.0, "{}", s.body);
    assert_eq!(s.task(write, "src"), 1.0, "{}", s.body);
    // Put (as Kafka Connect's sink-record-send-total counts), never flushed.
    let send = "kafka_connect_sink_task_metrics_sink_record_send_total";
    assert_eq!(s.task(send, "dst"), 1.0, "{}", s.body);
    assert!(std::fs::read_dir(w.path("data")).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("bad")));

    let status = terminate(&mut running.child, Duration::from_secs(30));
    let log = w.log();
    assert_eq!(status.code(), Some(0), "{log}");
    let summary = log_line(&log, "Connector dst (sink): ");
    assert!(summary.contains(" WARN "), "{summary}");
    assert!(
        summary
            .contains(", 1 record not committed, 1 error (task dst-0 FAILED: Task flush failed: ")
            && summary.contains("/dev/full"),
        "{summary}"
    );
    let stopped = log_line(
        &log,
        "Task failed; it will not run again until restarted. error=Task flush failed",
    );
    assert_eq!(
        moved(summary, "put"),
        moved(&stopped.replace("before=", ": "), "put")
    );
    assert!(
        moved(summary, "put").starts_with("1 record, 1 B in "),
        "{summary}"
    );

    let summary = log_line(&log, "Connector routed (source): ");
    assert!(
        summary.contains(
            ": produced 0 records, 0 B in 0.00 s (0 records/s), 1 error (task routed-0 FAILED: "
        ) && summary.contains("bad/"),
        "{summary}"
    );

    let summary = log_line(&log, "Connector lonely (sink): ");
    assert!(
        summary.ends_with(": put 0 records, 0 B in 0.00 s (0 records/s), 0 errors."),
        "{summary}"
    );
    assert!(
        log_line(&log, "task{connector=lonely task=0}: Task stopped: ").contains("put 0 records"),
        "{log}"
    );

    // One rate per task: the stop line and the summary count over the same interval.
    let summary = log_line(&log, "Connector src (source): ");
    let stopped =
        log_line(&log, "task{connector=src task=0}: Task stopped: ").replace("Task stopped", "");
    assert!(summary.ends_with(", 0 errors."), "{summary}");
    assert_eq!(
        moved(summary, "produced"),
        moved(&stopped, "produced"),
        "{log}"
    );
    assert!(
        moved(summary, "produced").starts_with("1 record, 1 B in "),
        "{summary}"
    );
}

/// With Kafka unreachable, the record a source sent is never acknowledged: it is not counted
/// as produced, in `GET /metrics` or in the summary.
#[test]
fn a_source_on_an_unreachable_kafka_counts_nothing_as_produced() {
    let w = Workdir::new();
    let input = w.write("in.txt", "never acknowledged\n");
    // The worker gives up on Kafka after default.api.timeout.ms (its cluster id lookup, as
    // Kafka Connect's); its source task started meanwhile and polled the line.
    let worker = w.write(
        "worker.properties",
        format!(
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             listeners=http://127.0.0.1:0\n\
             bootstrap.servers=127.0.0.1:1\n\
             default.api.timeout.ms=3000\n\
             offset.storage.file.filename={}\n\
             offset.flush.timeout.ms=500\n",
            w.path("offsets.json").display()
        ),
    );
    let src = w.source("src", &input, "t");
    let mut child = w.spawn_args(&[
        "standalone".into(),
        "--exit-when-idle=1s".into(),
        worker.display().to_string(),
        src.display().to_string(),
    ]);
    let status = wait_exit(&mut child, Duration::from_secs(60));
    assert_eq!(status.code(), Some(2), "{}", w.log());
    assert!(w.log().contains("Kafka unreachable"), "{}", w.log());
    let log = w.log();
    // The polled line was never acknowledged: not counted, and said so.
    let stopped = log_line(&log, "Task stopped: ");
    assert!(
        stopped.contains(": produced 0 records, 0 B in 0.00 s (0 records/s)"),
        "{stopped}"
    );
    assert!(
        log_line(&log, "Timed out waiting for acknowledgements").contains("records=1"),
        "{log}"
    );
    assert!(!log.contains("produced 1 record"), "{log}");
    assert!(!log.contains("isn't a known config"), "{log}");
}
