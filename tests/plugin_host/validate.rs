//! `GET /connector-plugins/{plugin}/config` and `PUT /connector-plugins/{plugin}/config/validate`
//! for Java plugins of `plugin.path`, and `connect-rs validate --worker` on a Java connector,
//! against Apache Kafka Connect 4.3.1 with the same `plugin.path`: the plugin's keys and
//! errors come from the plugin host (Kafka's own rendering), the framework's from connect-rs,
//! joined in Kafka's order with Kafka's `error_count` and groups.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::support;
use support::kafka::broker;
use support::kafka_connect::KafkaConnect;
use support::plugin_jars::plugin_jars;
use support::*;

const VERIFIABLE_SOURCE: &str = "org.apache.kafka.connect.tools.VerifiableSourceConnector";
const POSTGRES: &str = "io.debezium.connector.postgresql.PostgresConnector";

/// Asserts `ours == kafka`, naming the first entry that differs.
#[track_caller]
fn same(ours: &Value, kafka: &Value, what: &str) {
    if ours == kafka {
        return;
    }
    let list = |v: &Value| match v {
        Value::Array(a) => a.clone(),
        other => other["configs"].as_array().cloned().unwrap_or_default(),
    };
    let (o, k) = (list(ours), list(kafka));
    let mut report = String::new();
    for i in (0..o.len().max(k.len()))
        .filter(|i| o.get(*i) != k.get(*i))
        .take(8)
    {
        let show = |v: Option<&Value>| v.map(ToString::to_string).unwrap_or_default();
        report.push_str(&format!(
            "  entry {i}:\n    ours:  {}\n    kafka: {}\n",
            show(o.get(i)),
            show(k.get(i))
        ));
    }
    let rest = |v: &Value| {
        let mut v = v.clone();
        if let Some(m) = v.as_object_mut() {
            m.remove("configs");
        }
        v
    };
    panic!(
        "{what}: connect-rs and Kafka Connect differ:\n{report}  ours: {}\n  kafka: {}",
        rest(ours),
        rest(kafka)
    );
}

/// PUTs `config` to `path` on both systems and asserts the same body (framework keys'
/// documentation aside); returns connect-rs's body.
fn compare_validate(
    kc: &KafkaConnect,
    rs: &support::rest::Running,
    path: &str,
    config: &Value,
) -> Value {
    let class = config["connector.class"].as_str().unwrap_or_default();
    let keys = plugin_keys(
        &kc.client
            .get(&format!("/connector-plugins/{class}/config"))
            .json(),
    );
    let kafka = kc.client.put(path, config);
    assert_eq!(kafka.status, 200, "{}", kafka.body);
    let ours = rs.client.put(path, config);
    assert_eq!(ours.status, 200, "{}", ours.body);
    same(
        &comparable_validate(&ours.json(), &keys),
        &comparable_validate(&kafka.json(), &keys),
        path,
    );
    ours.json()
}

/// connect-rs's worker lines: embedded log, the plugins of [`plugin_jars`].
fn rs_worker(w: &Workdir, extra: &str) -> std::path::PathBuf {
    let jars = plugin_jars();
    w.write(
        "worker.properties",
        format!(
            "offset.storage.file.filename={}\nlisteners=http://127.0.0.1:0\n\
             key.converter=org.apache.kafka.connect.json.JsonConverter\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n\
             plugin.path={}\nplugin.host.classpath={}\n{extra}",
            w.path("offsets").display(),
            jars.plugin_path.display(),
            jars.classpath_string(),
        ),
    )
}

/// Versions differ by system (connect-rs's built-ins report its own version, Kafka's report
/// 4.3.1): both become `{version}`.
fn mask_versions(v: &Value) -> Value {
    let ours = env!("CARGO_PKG_VERSION");
    let kafka = plugin_jars().kafka_version.as_str();
    match v {
        Value::String(s) => Value::String(s.replace(kafka, "{version}").replace(ours, "{version}")),
        Value::Array(a) => Value::Array(a.iter().map(mask_versions).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), mask_versions(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `info` (a ConfigKeyInfo) without its documentation when it is a framework key: connect-rs
/// writes its own texts for those (docs/compatibility.md); a plugin key keeps Kafka's text.
fn without_framework_docs(info: &Value, plugin_keys: &BTreeSet<String>) -> Value {
    let mut info = info.clone();
    let name = info["name"].as_str().unwrap_or_default().to_owned();
    if !plugin_keys.contains(&name) {
        if let Some(m) = info.as_object_mut() {
            m.remove("documentation");
        }
    }
    info
}

/// The keys the plugin itself defines: in Kafka's `GET .../config` answer, those before the
/// framework's first key (`name`).
fn plugin_keys(kafka_config: &Value) -> BTreeSet<String> {
    kafka_config
        .as_array()
        .expect("a ConfigKeyInfo array")
        .iter()
        .map_while(|k| k["name"].as_str().filter(|n| *n != "name"))
        .map(str::to_owned)
        .collect()
}

fn comparable_config(body: &Value, plugin_keys: &BTreeSet<String>) -> Value {
    Value::Array(
        body.as_array()
            .expect("a ConfigKeyInfo array")
            .iter()
            .map(|k| without_framework_docs(&mask_versions(k), plugin_keys))
            .collect(),
    )
}

fn comparable_validate(body: &Value, plugin_keys: &BTreeSet<String>) -> Value {
    let mut body = mask_versions(body);
    if let Some(configs) = body["configs"].as_array_mut() {
        for c in configs {
            // Kafka recommends each converter once per PluginDesc of its own scan (JsonConverter
            // once, StringConverter twice); connect-rs per implementation it lists (built-in
            // and Java): not part of the plugin part compared here.
            if ["key.converter", "value.converter", "header.converter"]
                .contains(&c["value"]["name"].as_str().unwrap_or_default())
            {
                c["value"]["recommended_values"] = json!("(converters)");
            }
            // The classes recommended for a transformation's or predicate's `type`: each
            // system's own list of plugins.
            let name = c["value"]["name"].as_str().unwrap_or_default();
            if (name.starts_with("transforms.") || name.starts_with("predicates."))
                && name.ends_with(".type")
            {
                c["value"]["recommended_values"] = json!("(plugins)");
            }
            if !c["definition"].is_null() {
                c["definition"] = without_framework_docs(&c["definition"], plugin_keys);
            }
        }
    }
    body
}

/// Every (key, error) of a validate body.
fn errors(body: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in body["configs"].as_array().into_iter().flatten() {
        for e in c["value"]["errors"].as_array().into_iter().flatten() {
            out.push((
                c["value"]["name"].as_str().unwrap_or_default().to_owned(),
                e.as_str().unwrap_or_default().to_owned(),
            ));
        }
    }
    out
}

#[test]
fn java_connector_config_and_validation_match_kafka_connect() {
    let jars = plugin_jars();
    let broker = broker();
    let kc_dir = Workdir::new();
    // Kafka Connect never loads `org.apache.kafka.connect.tools.*` in isolation
    // (`PluginUtils.shouldLoadInIsolation`): from `plugin.path` alone it lists the Verifiable
    // connectors but answers 404 for their config; users put the jar on its class path too.
    let mut kafka_classpath = jars.classpath.clone();
    kafka_classpath.extend(
        std::fs::read_dir(&jars.verifiable)
            .expect("the verifiable plugin folder")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "jar")),
    );
    let kc = KafkaConnect::start_with_plugins(
        kc_dir.dir.path(),
        broker.bootstrap(),
        &format!(
            "key.converter=org.apache.kafka.connect.json.JsonConverter\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n\
             offset.storage.file.filename={}\n",
            kc_dir.path("offsets").display()
        ),
        &jars.plugin_path,
        &kafka_classpath,
    );
    let w = Workdir::new();
    let worker = rs_worker(&w, "");
    let rs = support::rest::start(&w, &[&worker]);

    for (class, alias) in [
        (VERIFIABLE_SOURCE, "VerifiableSource"),
        (POSTGRES, "PostgresConnector"),
    ] {
        // GET .../config by class and by alias.
        let path = format!("/connector-plugins/{class}/config");
        let kafka = kc.client.get(&path);
        assert_eq!(kafka.status, 200, "{}", kafka.body);
        let keys = plugin_keys(&kafka.json());
        for path in [path.clone(), format!("/connector-plugins/{alias}/config")] {
            let ours = rs.client.get(&path);
            assert_eq!(ours.status, 200, "{path}: {}", ours.body);
            same(
                &comparable_config(&ours.json(), &keys),
                &comparable_config(&kafka.json(), &keys),
                &path,
            );
        }
        if class == POSTGRES {
            assert!(keys.contains("database.hostname"), "{keys:?}");
        }
    }

    // Validation with errors of the framework (and none of the plugin, which defines no key).
    let config = json!({
        "connector.class": VERIFIABLE_SOURCE,
        "name": "verifiable",
        "tasks.max": "0",
        "throughput": "fast",
        "topic": null,
        "errors.tolerance": "some",
    });
    let path = "/connector-plugins/VerifiableSourceConnector/config/validate";
    compare_validate(&kc, &rs, path, &config);
    // A valid configuration.
    let good = json!({
        "connector.class": VERIFIABLE_SOURCE, "name": "verifiable", "tasks.max": "1",
        "throughput": "10", "topic": "t", "id": "1",
    });
    let ours = compare_validate(&kc, &rs, path, &good);
    assert_eq!(ours["error_count"], 0, "{ours}");
    // A Java transformation (Debezium's) in a chain with a built-in one: its own keys, their
    // values and its errors, as Kafka Connect's enriched ConfigDef lists them.
    let mut with_smts = good.clone();
    for (k, v) in [
        ("transforms", "unwrap,tag"),
        (
            "transforms.unwrap.type",
            "io.debezium.transforms.ExtractNewRecordState",
        ),
        ("transforms.unwrap.add.fields", "op,lsn"),
        ("transforms.unwrap.drop.fields.header.name", "x"),
        (
            "transforms.tag.type",
            "org.apache.kafka.connect.transforms.InsertField$Value",
        ),
        ("transforms.tag.static.field", "origin"),
        ("transforms.tag.static.value", "pg"),
    ] {
        with_smts[k] = json!(v);
    }
    with_smts["transforms.unwrap.drop.fields.from.key"] = json!("maybe");
    let ours = compare_validate(&kc, &rs, path, &with_smts);
    assert!(
        errors(&ours)
            .iter()
            .any(|(k, _)| k == "transforms.unwrap.drop.fields.from.key"),
        "the Java transformation's own error: {ours}"
    );
    assert!(
        ours["configs"].as_array().is_some_and(|c| c
            .iter()
            .any(|c| c["value"]["name"] == "transforms.unwrap.add.fields")),
        "{ours}"
    );
    // A Java converter the connector sets (Kafka's JsonConverter, chosen by its version): its
    // own keys, values and errors after the connector's, as Kafka Connect lists them.
    let mut with_converter = good.clone();
    with_converter["value.converter"] = json!("org.apache.kafka.connect.json.JsonConverter");
    with_converter["value.converter.plugin.version"] = json!(plugin_jars().kafka_version);
    with_converter["value.converter.schemas.enable"] = json!("maybe");
    let ours = compare_validate(&kc, &rs, path, &with_converter);
    assert!(
        errors(&ours)
            .iter()
            .any(|(k, _)| k == "value.converter.schemas.enable"),
        "the Java converter's own error: {ours}"
    );

    // Debezium's own validation: its ConfigDef's errors, a null on one of its keys, and its
    // connection check against a host that does not exist (both fail the same way).
    let pg = json!({
        "connector.class": POSTGRES,
        "name": "pg",
        "tasks.max": "1",
        "database.hostname": "no-such-host.invalid",
        "database.port": "not-a-port",
        "database.user": "u",
        "database.password": "secret",
        "database.dbname": null,
        "topic.prefix": "pg",
        "snapshot.mode": "sometimes",
    });
    let ours = compare_validate(
        &kc,
        &rs,
        "/connector-plugins/PostgresConnector/config/validate",
        &pg,
    );
    assert!(
        errors(&ours).iter().any(|(k, _)| k == "database.port"),
        "{ours}"
    );

    // The offline command reports the same problems, and the REST body in --format json.
    let file = w.write(
        "pg.properties",
        "name=pg\nconnector.class=PostgresConnector\ntasks.max=1\n\
         database.hostname=no-such-host.invalid\ndatabase.port=not-a-port\n\
         database.user=u\ndatabase.password=secret\ntopic.prefix=pg\nsnapshot.mode=sometimes\n",
    );
    let as_rest = json!({
        "name": "pg", "connector.class": "PostgresConnector", "tasks.max": "1",
        "database.hostname": "no-such-host.invalid", "database.port": "not-a-port",
        "database.user": "u", "database.password": "secret", "topic.prefix": "pg",
        "snapshot.mode": "sometimes",
    });
    let path = "/connector-plugins/PostgresConnector/config/validate";
    let kafka = kc.client.put(path, &as_rest).json();
    let keys = plugin_keys(
        &kc.client
            .get(&format!("/connector-plugins/{POSTGRES}/config"))
            .json(),
    );
    let run = |format: &str| {
        let out = w
            .command(&[
                "validate",
                "--worker",
                &worker.display().to_string(),
                "--format",
                format,
                &file.display().to_string(),
            ])
            .output()
            .expect("run connect-rs validate");
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        stdout(&out)
    };
    let doc: Value = serde_json::from_str(&run("json")).expect("a JSON document");
    same(
        &comparable_validate(&doc["files"][0]["body"], &keys),
        &comparable_validate(&kafka, &keys),
        "connect-rs validate --format json",
    );
    let text = run("text");
    let problems = errors(&kafka);
    assert!(!problems.is_empty(), "{kafka}");
    for (key, error) in problems {
        assert!(
            text.contains(&format!("{key}: {error}")),
            "{key}: {error} missing from:\n{text}"
        );
    }

    // Creating it is refused with its validation's errors, and nothing is created (Kafka
    // Connect 4.3.1 means to answer so too, but answers 500 with a NullPointerException for a
    // connector whose `validate` leaves keys of its ConfigDef out, as Debezium's does).
    let ours = rs.client.put("/connectors/pg/config", &as_rest);
    assert_eq!(ours.status, 400, "{}", ours.body);
    let message = ours.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let listed = errors(&kafka);
    assert!(
        message.starts_with(&format!(
            "Connector configuration is invalid and contains the following {} error(s):\n",
            listed.len()
        )),
        "{message}"
    );
    for (_, error) in listed {
        assert!(
            message.contains(&format!("\n{error}\n")),
            "{error} missing from {message}"
        );
    }
    // A connector whose validation lists every key: the same answer as Kafka Connect's.
    let bad = json!({
        "connector.class": VERIFIABLE_SOURCE, "name": "verifiable", "tasks.max": "0",
        "throughput": "fast", "errors.tolerance": "some",
    });
    let kafka = kc.client.put("/connectors/verifiable/config", &bad);
    let ours = rs.client.put("/connectors/verifiable/config", &bad);
    assert_eq!(kafka.status, 400, "{}", kafka.body);
    assert_eq!((ours.status, ours.json()), (kafka.status, kafka.json()));
    assert_eq!(rs.client.get("/connectors").json(), json!([]));
    drop(rs);

    // A connector file on the command line is validated by its plugin before anything starts,
    // as Kafka Connect's standalone worker does: exit 3 naming the file, with Kafka's message.
    let out = w
        .command(&[
            "standalone",
            &worker.display().to_string(),
            &file.display().to_string(),
        ])
        .output()
        .expect("run connect-rs standalone");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!(
            "{}: Connector configuration is invalid and contains the following",
            file.display()
        )) && err.contains("database.port"),
        "{err}"
    );
}
