//! A Java sink task's `ErrantRecordReporter` (Kafka Connect's `SinkTaskContext.
//! errantRecordReporter()`): a record it reports during `put` is a `TASK_PUT` failure of class
//! `SinkTask` — with `errors.tolerance=all` logged, written to the dead letter queue with its
//! original bytes, and committed past; with the default tolerance the task fails with
//! "Tolerance exceeded" and the Java exception.

use std::path::PathBuf;
use std::time::Duration;

use crate::support;

use support::rest::start;
use support::*;

const WAIT: Duration = Duration::from_secs(120);

/// A plugin directory with a sink whose task reports every record whose value contains
/// "bad" as errant, writes the others to its stdout, and asks for a commit.
fn reporting_plugin(w: &Workdir) -> PathBuf {
    let connector = crate::sink::sink_connector_java(
        w,
        "errant-src",
        "ReportingSinkConnector",
        "ReportingSinkTask",
    );
    let task = w.write(
        "errant-src/fixture/ReportingSinkTask.java",
        r#"package fixture;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class ReportingSinkTask extends SinkTask {
    private String name;
    @Override public String version() { return "1.0"; }
    @Override public void start(Map<String, String> props) { name = props.get("name"); }
    @Override public void put(Collection<SinkRecord> records) {
        ErrantRecordReporter reporter = context.errantRecordReporter();
        for (SinkRecord r : records) {
            if (String.valueOf(r.value()).contains("bad")) {
                reporter.report(r, new DataException("fixture cannot write " + r.value()));
            } else {
                System.out.println(name + " wrote " + r.value());
            }
        }
        if (!records.isEmpty()) {
            context.requestCommit();
        }
    }
    @Override public void stop() {}
}
"#,
    );
    let classes = w.path("errant-classes");
    support::java::javac(
        &[connector, task],
        &support::java::host_api_classpath(),
        &classes,
    );
    let plugins = w.path("plugins");
    support::java::jar(&classes, &plugins.join("reporting/reporting.jar"));
    plugins
}

#[test]
fn records_a_java_sink_reports_as_errant_go_to_the_dead_letter_queue_or_fail_the_task() {
    let w = Workdir::new();
    let plugins = reporting_plugin(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan\n\
         offset.flush.interval.ms=600000",
        w.path("offsets").display(),
        plugins.display()
    ));
    let input = w.write("in.txt", "good one\nbad two\ngood three\n");
    let source = w.source("lines", &input, "lines");
    let tolerant = w.write(
        "tolerant.properties",
        "name=tolerant\nconnector.class=fixture.ReportingSinkConnector\ntasks.max=1\n\
         topics=lines\nerrors.tolerance=all\nerrors.log.enable=true\n\
         errors.deadletterqueue.topic.name=dlq\nerrors.deadletterqueue.context.headers.enable=true\n",
    );
    let strict = w.write(
        "strict.properties",
        "name=strict\nconnector.class=fixture.ReportingSinkConnector\ntasks.max=1\ntopics=lines\n",
    );
    let dead = w.path("dead.txt");
    let dlq_reader = w.sink("dlq-reader", &dead, "dlq");
    let running = start(&w, &[&worker, &source, &tolerant, &strict, &dlq_reader]);

    // Tolerated: the reported record is in the dead letter queue, the others were written, and
    // the offsets are committed past all three.
    wait_for("the tolerant sink's commit past every record", WAIT, || {
        let r = running.client.get("/connectors/tolerant/offsets");
        r.status == 200 && r.json()["offsets"][0]["offset"]["kafka_offset"] == 3
    });
    wait_for("the dead letter queue's record", WAIT, || {
        std::fs::read_to_string(&dead).is_ok_and(|d| d.contains("bad two"))
    });
    assert_eq!(std::fs::read_to_string(&dead).unwrap(), "bad two\n");
    let log = w.log();
    for line in ["tolerant wrote good one", "tolerant wrote good three"] {
        assert!(log.contains(line), "{line} missing from:\n{log}");
    }
    assert!(!log.contains("tolerant wrote bad two"), "{log}");
    assert!(
        log.contains(
            "Error encountered in task tolerant-0. Executing stage 'TASK_PUT' with class \
             'org.apache.kafka.connect.sink.SinkTask'"
        ),
        "{log}"
    );
    let status = running.client.get("/connectors/tolerant/status").json();
    assert_eq!(status["tasks"][0]["state"], "RUNNING", "{status:#}");

    // Not tolerated: the task fails, naming the stage and the Java exception.
    let mut status = serde_json::Value::Null;
    wait_for("the strict sink task to fail", WAIT, || {
        let r = running.client.get("/connectors/strict/status");
        status = r.json();
        r.status == 200 && status["tasks"][0]["state"] == "FAILED"
    });
    let trace = status["tasks"][0]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains("Tolerance exceeded in error handler: stage TASK_PUT")
            && trace.contains("topic 'lines' partition 0 offset 1")
            && trace.contains(
                "org.apache.kafka.connect.errors.DataException: fixture cannot write bad two"
            )
            && trace.contains("\tat fixture.ReportingSinkTask.put(ReportingSinkTask.java:"),
        "{trace}"
    );
}
