//! Java transformations and predicates in connect-rs's transformation chains (issue 28,
//! milestone M4), with fixture plugins: in a source task's chain and a sink task's, a Java
//! stage transforms (headers included), drops (`null`) and fails (its exception skipped by
//! `errors.tolerance=all` and logged with the Java class), only where its Java predicate,
//! negated, allows; a Java `ConfigException` from `configure` fails the connector's creation
//! with Kafka's message naming the full key. (The differential against Kafka Connect with
//! Debezium's `ExtractNewRecordState` and the built-in `InsertField$Value` runs in
//! `debezium.rs`, alongside the Debezium differential.)

use std::path::PathBuf;
use std::time::Duration;

use crate::support;

use serde_json::json;
use support::rest::{start, wait_running};
use support::*;

const WAIT: Duration = Duration::from_secs(120);

/// A plugin directory with `fixture.Tag` (appends `suffix` to a string value and adds a
/// `tagged` header; drops `drop`, throws on `fail`; refuses `suffix=bad` in `configure`) and
/// `fixture.StartsWithSkip` (a predicate: the value starts with `skip`).
fn smt_plugins(w: &Workdir) -> PathBuf {
    let tag = w.write(
        "smt-src/fixture/Tag.java",
        r#"package fixture;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.transforms.Transformation;

public class Tag<R extends ConnectRecord<R>> implements Transformation<R> {
    private String suffix;
    @Override public void configure(Map<String, ?> props) {
        suffix = (String) props.get("suffix");
        if ("bad".equals(suffix)) {
            throw new ConfigException("suffix", suffix, "the fixture refuses it");
        }
    }
    @Override public R apply(R r) {
        Object v = r.value();
        if ("drop".equals(v)) {
            return null;
        }
        if ("fail".equals(v)) {
            throw new DataException("fixture cannot tag 'fail'");
        }
        R out = r.newRecord(r.topic(), r.kafkaPartition(), r.keySchema(), r.key(), r.valueSchema(),
            v + suffix, r.timestamp());
        out.headers().addString("tagged", suffix);
        return out;
    }
    @Override public ConfigDef config() {
        return new ConfigDef().define("suffix", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Suffix.");
    }
    @Override public void close() {}
}
"#,
    );
    let skip = w.write(
        "smt-src/fixture/StartsWithSkip.java",
        r#"package fixture;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.predicates.Predicate;

public class StartsWithSkip<R extends ConnectRecord<R>> implements Predicate<R> {
    @Override public void configure(Map<String, ?> props) {}
    @Override public boolean test(R r) {
        return r.value() instanceof String && ((String) r.value()).startsWith("skip");
    }
    @Override public ConfigDef config() { return new ConfigDef(); }
    @Override public void close() {}
}
"#,
    );
    let classes = w.path("smt-classes");
    support::java::javac(&[tag, skip], &support::java::host_api_classpath(), &classes);
    let plugins = w.path("plugins");
    support::java::jar(&classes, &plugins.join("smt/smt.jar"));
    plugins
}

/// The chain of both connectors: the Java `Tag`, not where the Java predicate matches.
fn chain(suffix: &str) -> String {
    format!(
        "transforms=tag\ntransforms.tag.type=fixture.Tag\ntransforms.tag.suffix={suffix}\n\
         transforms.tag.predicate=skip\ntransforms.tag.negate=true\n\
         predicates=skip\npredicates.skip.type=fixture.StartsWithSkip\n\
         errors.tolerance=all\nerrors.log.enable=true\n"
    )
}

#[test]
fn java_transformations_and_predicates_run_in_source_and_sink_chains() {
    let w = Workdir::new();
    let plugins = smt_plugins(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\noffset.flush.interval.ms=200\nplugin.path={}\n\
         plugin.discovery=only_scan",
        w.path("offsets").display(),
        plugins.display()
    ));
    let input = w.write("in.txt", "a\ndrop\nfail\nskip me\nb\n");
    let output = w.path("out.txt");
    let source = w.write(
        "source.properties",
        format!(
            "name=src\nconnector.class=FileStreamSource\ntasks.max=1\nfile={}\ntopic=smt\n{}",
            input.display(),
            chain("-src")
        ),
    );
    let sink = w.write(
        "sink.properties",
        format!(
            "name=snk\nconnector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics=smt\n{}",
            output.display(),
            chain("-snk")
        ),
    );
    let running = start(&w, &[&worker, &source, &sink]);
    wait_running(&running.client, "snk", WAIT);
    let want = "a-src-snk\nskip me\nb-src-snk\n";
    wait_for("the sink to write the transformed lines", WAIT, || {
        std::fs::read_to_string(&output).is_ok_and(|s| s == want)
    });
    let log = w.log();
    assert!(
        log.contains("org.apache.kafka.connect.errors.DataException: fixture cannot tag 'fail'"),
        "the Java exception in the error log: {log}"
    );
    // The records of the topic, with the header the Java stage added.
    let read = std::process::Command::new(support::binary())
        .args(["topics", "read", "smt", "--from-beginning", "--max", "3"])
        .args(["--timeout-ms", "10000", "--worker"])
        .arg(&worker)
        .env_remove("RUST_LOG")
        .output()
        .expect("connect-rs topics read");
    let lines: Vec<String> = String::from_utf8_lossy(&read.stdout)
        .lines()
        .map(|l| l.splitn(3, '\t').nth(2).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        lines,
        [
            "tagged:-src\tnull\ta-src",
            "NO_HEADERS\tnull\tskip me",
            "tagged:-src\tnull\tb-src"
        ],
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );

    // A Java ConfigException from configure() fails the creation, with the full key.
    let bad = json!({
        "name": "bad",
        "connector.class": "FileStreamSource",
        "file": input.display().to_string(),
        "topic": "bad",
        "transforms": "tag",
        "transforms.tag.type": "fixture.Tag",
        "transforms.tag.suffix": "bad",
    });
    let message =
        "Invalid value bad for configuration transforms.tag.suffix: the fixture refuses it";
    let r = running.client.put("/connectors/bad/config", &bad);
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains(message), "{}", r.body);
    // config/validate: the Java class as the type's value, the error on its key.
    let r = running
        .client
        .put("/connector-plugins/FileStreamSource/config/validate", &bad);
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["error_count"], json!(1), "{v:#}");
    let value = |name: &str| {
        v["configs"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["value"]["name"] == json!(name)))
            .map(|c| c["value"].clone())
            .unwrap_or_else(|| panic!("{name} in {v:#}"))
    };
    assert_eq!(value("transforms.tag.type")["value"], json!("fixture.Tag"));
    assert_eq!(value("transforms.tag.type")["errors"], json!([]));
    assert_eq!(value("transforms.tag.suffix")["errors"], json!([message]));
}
