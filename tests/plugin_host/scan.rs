//! Plugin discovery and config metadata of the plugin host (`plugin_host::locations` in Rust,
//! `io.connectrs.host.scan.ScanService` in Java) against Apache Kafka Connect's own `Plugins`
//! (tests/plugin_host/KafkaPluginsOracle.java) on the same `plugin.path`: fixture plugins
//! (tests/plugin_host/fixtures/) compiled and laid out as a directory of jars (with a nested jar
//! and a corrupt one), an uber-jar, a class directory, a symlinked jar, a dangling link, a corrupt
//! top-level jar, a connector with a missing dependency and one connector in two versions. The
//! discovered (class, type, version, location) sets must be equal in all four
//! `plugin.discovery` modes, `hybrid_fail`'s message must be Kafka's, and the ConfigKeyInfo /
//! validation JSON of the fixture plugins must be Kafka's REST JSON.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use connect_rs::plugin_host::locations::{self, LocationKind, LocationProblem};
use connect_rs::plugin_host::scan::{
    ConfigKeyInfo, DiscoveryMode, ScanRequest, ScanResult, ValidateResult,
};
use serde_json::{json, Value};

use crate::support::java;
use crate::support::kafka_connect::jars;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugin_host/fixtures")
}

fn not_java(p: &Path) -> bool {
    p.extension().is_none_or(|x| x != "java") && p.file_name().is_none_or(|n| n != "README.md")
}

/// Compiles fixture `name` (optionally its sources rewritten by `edit`) into `build/<out>`, with
/// its resources, and returns the folder.
pub(crate) fn build_fixture(
    work: &Path,
    name: &str,
    out: &str,
    edit: impl Fn(String) -> String,
) -> PathBuf {
    let src_root = fixtures().join(name);
    let srcs: Vec<PathBuf> = java::java_files(&src_root)
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src_root).unwrap();
            let target = work.join("src").join(out).join(rel);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, edit(std::fs::read_to_string(&f).unwrap())).unwrap();
            target
        })
        .collect();
    let classes = work.join("build").join(out);
    java::javac(&srcs, &java::host_api_classpath(), &classes);
    java::copy_tree(&src_root, &classes, not_java);
    classes
}

/// Builds the fixture plugins and lays out `work/plugins` (the plugin.path).
fn plugin_path(work: &Path) -> PathBuf {
    let pp = work.join("plugins");
    let same = |s: String| s;
    let connector = build_fixture(work, "connector", "connector", same);
    let converter = build_fixture(work, "converter", "converter", same);
    let broken = build_fixture(work, "broken", "broken", same);
    std::fs::remove_file(broken.join("fixture/Missing.class")).unwrap();
    let predicate = build_fixture(work, "predicate", "predicate", same);
    let v1 = build_fixture(work, "versioned", "v1", |s| s.replace("@VERSION@", "1.0"));
    let v2 = build_fixture(work, "versioned", "v2", |s| s.replace("@VERSION@", "2.0"));

    // a directory of jars, one nested, one corrupt
    java::jar(&connector, &pp.join("dirjars/connector.jar"));
    java::jar(&converter, &pp.join("dirjars/lib/converter.jar"));
    std::fs::write(
        pp.join("dirjars/zz-corrupt.jar"),
        b"PK\x03\x04 not a zip at all",
    )
    .unwrap();
    java::jar(&broken, &pp.join("broken/broken.jar"));
    // an uber-jar and a directory of classes (with its manifest)
    java::jar(&v1, &pp.join("uber-v1.jar"));
    java::copy_tree(&v2, &pp.join("classes-v2"), |_| true);
    // a symlinked jar, a dangling link, a text file that is ignored
    java::jar(&predicate, &work.join("elsewhere/predicate.jar"));
    std::os::unix::fs::symlink(
        work.join("elsewhere/predicate.jar"),
        pp.join("predicate.jar"),
    )
    .unwrap();
    std::os::unix::fs::symlink(work.join("nowhere.jar"), pp.join("dangling.jar")).unwrap();
    std::fs::write(pp.join("notes.txt"), "not a plugin").unwrap();
    pp
}

/// Compiles the plugin host with its test driver; returns the class path to run it.
fn host(work: &Path) -> Vec<PathBuf> {
    let classes = work.join("host-classes");
    let api = java::host_api_classpath();
    java::javac(&java::host_sources(Some("scan")), &api, &classes);
    let mut cp = api;
    cp.push(classes);
    cp
}

/// Runs ScanMain on `ops`; one parsed answer per op.
fn run_host(cp: &[PathBuf], work: &Path, tag: &str, ops: &Value) -> Vec<Value> {
    let file = work.join(format!("host-ops-{tag}.json"));
    std::fs::write(&file, ops.to_string()).unwrap();
    let out = java::run_java(cp, "io.connectrs.host.scan.ScanMain", &[&file]);
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect()
}

/// Runs Kafka's Plugins on the plugin.path in `mode`, then `ops`.
fn run_kafka(oracle_cp: &[PathBuf], work: &Path, pp: &Path, mode: &str, ops: &Value) -> Vec<Value> {
    let file = work.join(format!("kafka-ops-{mode}.json"));
    std::fs::write(&file, ops.to_string()).unwrap();
    let out = java::run_java(
        oracle_cp,
        "KafkaPluginsOracle",
        &[pp, Path::new(mode), &file],
    );
    let line = out
        .lines()
        .find(|l| l.starts_with('['))
        .unwrap_or_else(|| panic!("the oracle printed no answer:\n{out}"));
    serde_json::from_str::<Vec<Value>>(line).unwrap()
}

/// (class, type, version, location's last path element).
type Plugin = (String, String, String, String);

fn last_element(location: &str) -> String {
    location
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn kafka_plugins(answer: &Value) -> BTreeSet<Plugin> {
    answer["plugins"]
        .as_array()
        .unwrap_or_else(|| panic!("Kafka failed: {answer}"))
        .iter()
        .map(|p| {
            (
                p["class"].as_str().unwrap().to_owned(),
                p["type"].as_str().unwrap().to_owned(),
                p["version"].as_str().unwrap().to_owned(),
                last_element(p["location"].as_str().unwrap()),
            )
        })
        .collect()
}

fn host_plugins(scan: &ScanResult) -> BTreeSet<Plugin> {
    scan.plugins
        .iter()
        .map(|p| {
            (
                p.class.clone(),
                p.kind.name().to_owned(),
                p.version.clone(),
                last_element(&p.location),
            )
        })
        .collect()
}

fn plugin(class: &str, kind: &str, version: &str, location: &str) -> Plugin {
    (
        format!("fixture.{class}"),
        kind.into(),
        version.into(),
        location.into(),
    )
}

/// The config_keys / validate requests both sides answer.
fn metadata_ops() -> Value {
    let conn = "fixture.FixtureSourceConnector";
    let mut ops = json!([
        {"op": "config_keys", "request": {"class": conn, "type": "source"}},
        {"op": "config_keys", "request": {"class": "fixture.FixtureTransformation", "type": "transformation"}},
        {"op": "config_keys", "request": {"class": "fixture.VersionedConnector", "type": "sink", "version": "1.0"}},
        {"op": "config_keys", "request": {"class": "fixture.VersionedConnector", "type": "sink"}},
        {"op": "config_keys", "request": {"class": "fixture.FixtureConverter", "type": "converter"}},
        {"op": "validate", "request": {"class": conn, "type": "source", "props": {}}},
        {"op": "validate", "request": {"class": conn, "type": "source", "props": {
            "fixture.topic": "t", "fixture.batch.size": "0", "fixture.mode": "bad",
            "fixture.tags": "x, y", "fixture.secret": "s3cret", "fixture.ratio": "1e3",
            "fixture.class": "java.lang.String", "fixture.enabled": "TRUE"}}},
        {"op": "validate", "request": {"class": conn, "type": "source", "props": {
            "fixture.topic": "t", "fixture.batch.size": "1", "fixture.timeout.ms": "x"}}},
        {"op": "validate", "request": {"class": "fixture.FixtureTransformation", "type": "transformation",
            "props": {"count": "-1"}}},
        {"op": "validate", "request": {"class": "fixture.FixtureConverter", "type": "header_converter",
            "props": {"converter.type": "header"}}},
        {"op": "config_keys", "request": {"class": "fixture.NoSuchConnector", "type": "source"}},
    ]);
    // Kafka's isolation rule (PluginUtils.shouldLoadInIsolation) on names at its edges
    let ops = ops.as_array_mut().unwrap();
    for name in ISOLATION_NAMES {
        ops.push(json!({"op": "isolated", "request": {"name": name}}));
    }
    Value::Array(ops.clone())
}

const ISOLATION_NAMES: &[&str] = &[
    "java.lang.String",
    "javax.sql.DataSource",
    "javax.ws.rs.core.Response",
    "javax.xml.parsers.DocumentBuilder",
    "javax.management.ObjectName",
    "javax.inject.Inject",
    "javax.money.MonetaryAmount",
    "org.w3c.dom.Node",
    "org.slf4j.Logger",
    "org.apache.kafka.clients.producer.KafkaProducer",
    "org.apache.kafka.connect.storage.Converter",
    "org.apache.kafka.connect.storage.StringConverter",
    "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    "org.apache.kafka.connect.json.JsonConverter",
    "org.apache.kafka.connect.file.FileStreamSourceConnector",
    "org.apache.kafka.connect.transforms.Transformation",
    "org.apache.kafka.connect.transforms.TransformationChain",
    "org.apache.kafka.connect.transforms.InsertField$Value",
    "org.apache.kafka.connect.transforms.predicates.Predicate",
    "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
    "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "org.apache.kafka.connect.converters.ByteArrayConverter",
    "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
    "org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy",
    "org.apache.kafka.connect.connector.policy.ConnectorClientConfigRequest$ClientType",
    "org.apache.kafka.connect.connector.policy.AllConnectorClientConfigOverridePolicy",
    "org.apache.kafka.common.config.provider.ConfigProvider",
    "org.apache.kafka.common.config.provider.FileConfigProvider",
    "io.debezium.connector.postgresql.PostgresConnector",
    "com.fasterxml.jackson.databind.ObjectMapper",
];

#[test]
fn discovery_and_config_metadata_match_kafka_connect() {
    let work_dir = tempfile::tempdir().unwrap();
    let work = work_dir.path().canonicalize().unwrap();
    let pp = plugin_path(&work);
    let host_cp = host(&work);
    let libs = jars().libs;
    let oracle_classes = work.join("oracle-classes");
    let mut oracle_cp = vec![libs.join("*")];
    java::javac(
        &[PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/plugin_host/KafkaPluginsOracle.java")],
        &oracle_cp,
        &oracle_classes,
    );
    oracle_cp.push(oracle_classes);

    // Rust: plugin.path → locations, as Kafka's PluginUtils
    let resolved = locations::resolve(Some(&format!("{}, ", pp.display())));
    let kind_of = |name: &str| {
        resolved
            .locations
            .iter()
            .find(|l| l.path.file_name().is_some_and(|n| n == name))
            .map(|l| (l.kind, l.urls.len()))
    };
    assert_eq!(kind_of("dirjars"), Some((LocationKind::MultiJar, 3)));
    assert_eq!(kind_of("uber-v1.jar"), Some((LocationKind::SingleJar, 1)));
    assert_eq!(
        kind_of("classes-v2"),
        Some((LocationKind::ClassHierarchy, 1))
    );
    assert_eq!(kind_of("predicate.jar"), Some((LocationKind::SingleJar, 1)));
    assert_eq!(kind_of("notes.txt"), None);
    assert!(
        resolved
            .problems
            .iter()
            .any(|p| matches!(p, LocationProblem::EmptyElement { .. })),
        "{:?}",
        resolved.problems
    );
    // the empty element (the cwd) adds locations of its own: keep only plugin.path's
    let resolved = locations::resolve(Some(pp.to_str().unwrap()));

    let expected_all: BTreeSet<Plugin> = [
        plugin("FixtureSourceConnector", "source", "1.0.0", "dirjars"),
        plugin(
            "FixtureTransformation",
            "transformation",
            "2.1.0",
            "dirjars",
        ),
        plugin("FixtureConverter", "converter", "0.9", "dirjars"),
        plugin("FixtureConverter", "header_converter", "0.9", "dirjars"),
        plugin("VersionedConnector", "sink", "1.0", "uber-v1.jar"),
        plugin("VersionedConnector", "sink", "2.0", "classes-v2"),
        plugin("FixturePredicate", "predicate", "0.3", "predicate.jar"),
    ]
    .into_iter()
    .collect();

    let mut differences = Vec::new();
    for mode in [
        DiscoveryMode::HybridWarn,
        DiscoveryMode::OnlyScan,
        DiscoveryMode::ServiceLoad,
        DiscoveryMode::HybridFail,
    ] {
        let mode_name = serde_json::to_value(mode).unwrap();
        let mode_name = mode_name.as_str().unwrap();
        let request = ScanRequest::new(mode, &resolved, vec![]);
        let with_metadata = mode == DiscoveryMode::HybridWarn;
        let meta = if with_metadata {
            metadata_ops()
        } else {
            json!([])
        };
        let mut ops = vec![json!({"op": "scan", "request": request})];
        ops.extend(meta.as_array().unwrap().iter().cloned());
        let host_answers = run_host(&host_cp, &work, mode_name, &Value::Array(ops));
        let kafka_answers = run_kafka(&oracle_cp, &work, &pp, mode_name, &meta);

        let scan: ScanResult = serde_json::from_value(host_answers[0]["ok"].clone())
            .unwrap_or_else(|e| panic!("{mode_name}: {e}: {}", host_answers[0]));
        let mine = host_plugins(&scan);

        if mode == DiscoveryMode::HybridFail {
            // Kafka refuses to start; the host reports Kafka's exception text
            let kafka_fail = kafka_answers[0]["fail"].as_str().unwrap_or_else(|| {
                panic!("Kafka did not fail in hybrid_fail: {}", kafka_answers[0])
            });
            assert_eq!(scan.hybrid_message.as_deref(), Some(kafka_fail));
            assert_eq!(mine, expected_all);
            continue;
        }
        let kafka = kafka_plugins(&kafka_answers[0]);
        if mine != kafka {
            differences.push(format!(
                "{mode_name}: plugins differ\n  only connect-rs: {:?}\n  only Kafka: {:?}",
                mine.difference(&kafka).collect::<Vec<_>>(),
                kafka.difference(&mine).collect::<Vec<_>>()
            ));
        }
        let expected: BTreeSet<Plugin> = match mode {
            DiscoveryMode::ServiceLoad => expected_all
                .iter()
                .filter(|p| !p.0.ends_with("FixtureConverter"))
                .cloned()
                .collect(),
            _ => expected_all.clone(),
        };
        assert_eq!(mine, expected, "{mode_name}: {:#?}", scan);

        // the broken connector and the corrupt jars are named in errors; the scan went on
        let broken_text = format!(
            "Failed to discover SinkConnector in {}: Unable to instantiate BrokenConnector: \
             Failed to invoke plugin constructor",
            pp.join("broken").display()
        );
        if mode != DiscoveryMode::ServiceLoad {
            assert!(
                scan.errors.iter().any(|e| e.message == broken_text
                    && e.class.as_deref() == Some("fixture.BrokenConnector")
                    && e.trace
                        .as_deref()
                        .is_some_and(|t| t.contains("fixture/Missing"))),
                "{mode_name}: no `{broken_text}` in {:#?}",
                scan.errors
            );
            for corrupt in ["dirjars/zz-corrupt.jar", "dangling.jar"] {
                let path = pp.join(corrupt).display().to_string();
                assert!(
                    scan.errors
                        .iter()
                        .any(|e| e.location == path && e.message.contains(&path)),
                    "{mode_name}: no error naming {path} in {:#?}",
                    scan.errors
                );
            }
        } else {
            assert!(
                scan.errors.iter().any(|e| e.message.starts_with(&format!(
                    "Failed to discover SinkConnector in {}",
                    pp.join("broken").display()
                ))),
                "{mode_name}: {:#?}",
                scan.errors
            );
        }
        match mode {
            DiscoveryMode::HybridWarn => {
                let report = scan.hybrid_report.as_ref().expect("a hybrid report");
                let mut missing: Vec<_> = report
                    .iter()
                    .map(|h| (h.class.as_str(), h.kind.as_str(), h.location.as_str()))
                    .collect();
                missing.sort();
                let dirjars = format!("file:{}/", pp.join("dirjars").display());
                assert_eq!(
                    missing,
                    vec![
                        ("fixture.FixtureConverter", "converter", dirjars.as_str()),
                        (
                            "fixture.FixtureConverter",
                            "header_converter",
                            dirjars.as_str()
                        ),
                    ]
                );
                let text = scan.hybrid_message.as_deref().unwrap_or_default();
                assert!(
                    text.starts_with("One or more plugins are missing ServiceLoader manifests")
                        && text.ends_with(
                            "To silence this warning, set plugin.discovery=only_scan in the worker config."
                        )
                        && text.contains(&format!(
                            "{dirjars}\tfixture.FixtureConverter\tconverter\t0.9"
                        )),
                    "{text}"
                );
            }
            _ => assert_eq!(scan.hybrid_report, None),
        }
        if !with_metadata {
            continue;
        }

        // ConfigKeyInfo and validation JSON, answer for answer
        let names = metadata_ops();
        for (i, op) in names.as_array().unwrap().iter().enumerate() {
            let (h, k) = (&host_answers[i + 1], &kafka_answers[i + 1]);
            let what = format!("{} {}", op["op"], op["request"]);
            match (h.get("ok"), k.get("ok")) {
                (Some(h), Some(k)) => {
                    let mut k = k.clone();
                    if let Some(o) = k.as_object_mut() {
                        o.remove("name");
                    }
                    if op["op"] == "validate" {
                        let _: ValidateResult = serde_json::from_value(h.clone())
                            .unwrap_or_else(|e| panic!("{what}: {e}: {h}"));
                    } else if op["op"] == "config_keys" {
                        let _: Vec<ConfigKeyInfo> = serde_json::from_value(h.clone())
                            .unwrap_or_else(|e| panic!("{what}: {e}: {h}"));
                    }
                    if *h != k {
                        differences.push(format!("{what}:\n  connect-rs: {h}\n  Kafka:      {k}"));
                    }
                }
                (None, None) => {}
                _ => differences.push(format!("{what}:\n  connect-rs: {h}\n  Kafka:      {k}")),
            }
        }
        assert!(
            differences.is_empty(),
            "connect-rs's plugin host differs from Kafka Connect:\n{}",
            differences.join("\n")
        );
        // the answers are not vacuous: a required key, Kafka's errors, the validate() rule
        let keys = host_answers[1]["ok"].as_array().unwrap();
        assert_eq!(keys.len(), 10, "{keys:?}");
        assert_eq!(keys[0]["required"], true);
        let bad = &host_answers[7]["ok"];
        assert!(bad["error_count"].as_u64().unwrap() >= 3, "{bad}");
        assert_eq!(bad["configs"][0]["value"]["name"], "fixture.extra");
        assert!(bad
            .to_string()
            .contains("fixture.mode=bad is refused by validate()"));
        let isolated: Vec<bool> = host_answers
            [names.as_array().unwrap().len() - ISOLATION_NAMES.len() + 1..]
            .iter()
            .map(|a| a["ok"].as_bool().unwrap())
            .collect();
        assert!(
            isolated.contains(&true) && isolated.contains(&false),
            "{isolated:?}"
        );
        assert_eq!(host_answers[3]["ok"][0]["name"], "only.in.1.0");
        assert_eq!(host_answers[4]["ok"][0]["name"], "only.in.2.0");
        assert!(host_answers[11]["error"]
            .as_str()
            .is_some_and(|e| e.contains("Unknown plugin fixture.NoSuchConnector.")));
    }
    assert!(
        differences.is_empty(),
        "connect-rs's plugin host differs from Kafka Connect:\n{}",
        differences.join("\n")
    );
}
