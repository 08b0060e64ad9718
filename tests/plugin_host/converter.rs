//! A Java converter from `plugin.path` in connect-rs's tasks: Kafka's own `JsonConverter`
//! (connect-json 4.3.1 from Maven Central, with its Jackson jars, in a plugin location of its
//! own; chosen over the built-in one by `value.converter.plugin.version=4.3.1`) serializes a
//! FileStreamSource's values, byte for byte as the built-in JsonConverter (itself compared with
//! Kafka's in tests/compat) does for the same lines; a FileStreamSink reads them back through it;
//! its `DataException` for bytes that are no JSON is an error `errors.tolerance=all` skips and
//! logs with the Java trace; its `ConfigException` from `configure` is a configuration error.

use std::path::{Path, PathBuf};

use connect_rs::topics::local::LocalLog;
use connect_rs::topics::TopicPartition;

use crate::support;
use support::*;

/// A `plugin.path` whose location `json/` holds Kafka's connect-json and the Jackson jars it
/// needs, from Kafka Connect's libs (Maven Central).
fn json_plugin_path(w: &Workdir) -> PathBuf {
    let libs = support::kafka_connect::jars().libs;
    let dir = w.path("plugins/json");
    std::fs::create_dir_all(&dir).expect("the plugin location");
    let mut copied = 0;
    for entry in std::fs::read_dir(&libs).expect("Kafka Connect's libs") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("connect-json-") || name.starts_with("jackson-") {
            std::fs::copy(&path, dir.join(&name)).expect("copy a jar");
            copied += 1;
        }
    }
    assert!(
        copied >= 4,
        "connect-json and Jackson in {}",
        libs.display()
    );
    w.path("plugins")
}

/// The raw values of partition 0 of `topic` in the embedded log of `data`.
fn raw_values(data: &Path, topic: &str) -> Vec<Vec<u8>> {
    let log = LocalLog::open_read_only(data).expect("the embedded log");
    let tp = TopicPartition {
        topic: topic.to_owned(),
        partition: 0,
    };
    log.read(&tp, 0, 1_000)
        .expect("read")
        .into_iter()
        .map(|r| r.value.expect("a value"))
        .collect()
}

const JAVA_JSON: &str = "value.converter=org.apache.kafka.connect.json.JsonConverter\n\
                         value.converter.plugin.version=4.3.1\n\
                         value.converter.schemas.enable=true\n";

#[test]
fn kafkas_json_converter_from_plugin_path_converts_values_as_the_builtin_one() {
    let w = Workdir::new();
    let plugins = json_plugin_path(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan",
        w.path("offsets").display(),
        plugins.display()
    ));
    let input = w.write("in.txt", "a\n{\"quoted\": \"line\"}\nünïcode\n42\n");
    let not_json = w.write("raw.txt", "not json\n");
    let with = |name: &str, extra: &str, body: String| {
        w.write(
            &format!("{name}.properties"),
            format!("name={name}\n{body}{extra}"),
        )
    };
    let source = |topic: &str, file: &Path| {
        format!(
            "connector.class=FileStreamSource\ntasks.max=1\nfile={}\ntopic={topic}\n",
            file.display()
        )
    };
    let java_src = with("java-src", JAVA_JSON, source("java", &input));
    let builtin_src = with(
        "builtin-src",
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n",
        source("builtin", &input),
    );
    let raw_src = with("raw-src", "", source("raw", &not_json));
    let sink = |topic: &str, file: &Path| {
        format!(
            "connector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics={topic}\n\
             errors.tolerance=all\nerrors.log.enable=true\n",
            file.display()
        )
    };
    let out = w.path("out.txt");
    let java_sink = with("java-sink", JAVA_JSON, sink("java", &out));
    let raw_out = w.path("raw-out.txt");
    let raw_sink = with("raw-sink", JAVA_JSON, sink("raw", &raw_out));

    let (code, err) = w.run_checked(&[
        &worker,
        &java_src,
        &builtin_src,
        &raw_src,
        &java_sink,
        &raw_sink,
    ]);
    assert_eq!(code, 0, "{err}");
    // Kafka's JsonConverter ran in the plugin host: its AbstractConfig logged its values.
    assert!(err.contains("JsonConverterConfig values"), "{err}");

    let data = w.path("data");
    let java = raw_values(&data, "java");
    let builtin = raw_values(&data, "builtin");
    assert_eq!(java.len(), 4, "{err}");
    assert_eq!(
        String::from_utf8_lossy(&java[0]),
        r#"{"schema":{"type":"string","optional":false},"payload":"a"}"#
    );
    assert!(
        java == builtin,
        "the Java JsonConverter's bytes differ from the built-in one's:\n{:?}\n{:?}",
        java.iter()
            .map(|v| String::from_utf8_lossy(v))
            .collect::<Vec<_>>(),
        builtin
            .iter()
            .map(|v| String::from_utf8_lossy(v))
            .collect::<Vec<_>>()
    );
    // Back through the Java converter, the sink writes the lines read.
    assert_eq!(
        std::fs::read_to_string(&out).expect("the sink's file"),
        std::fs::read_to_string(&input).unwrap()
    );
    // Bytes that are no JSON: the Java DataException, skipped and logged.
    assert_eq!(std::fs::read_to_string(&raw_out).unwrap_or_default(), "");
    assert!(
        err.contains("Converting byte[] to Kafka Connect data failed due to serialization error"),
        "{err}"
    );

    // A ConfigException from the Java converter's configure() is a configuration error.
    let bad = with(
        "bad-src",
        &format!("{JAVA_JSON}value.converter.decimal.format=OCTAL\n"),
        source("bad", &input),
    );
    let (code, err) = w.run_checked(&[&worker, &bad]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("decimal.format"), "{err}");
}

/// The raw headers of partition 0 of `topic` in the embedded log of `data`.
fn raw_headers(data: &Path, topic: &str) -> Vec<Vec<(String, Option<Vec<u8>>)>> {
    let log = LocalLog::open_read_only(data).expect("the embedded log");
    let tp = TopicPartition {
        topic: topic.to_owned(),
        partition: 0,
    };
    log.read(&tp, 0, 1_000)
        .expect("read")
        .into_iter()
        .map(|r| r.headers)
        .collect()
}

/// The same JsonConverter as a header converter (`header.converter`): the headers InsertHeader
/// adds are serialized byte for byte as the built-in one does, and a sink reads them back
/// through it.
#[test]
fn kafkas_json_converter_from_plugin_path_converts_headers_as_the_builtin_one() {
    let w = Workdir::new();
    let plugins = json_plugin_path(&w);
    let worker = w.worker(&format!(
        "offset.storage.file.filename={}\nplugin.path={}\nplugin.discovery=only_scan",
        w.path("offsets").display(),
        plugins.display()
    ));
    let input = w.write("in.txt", "a\nb\n");
    let header =
        "transforms=h\ntransforms.h.type=org.apache.kafka.connect.transforms.InsertHeader\n\
                  transforms.h.header=origin\ntransforms.h.value.literal=file\n";
    let java = "header.converter=org.apache.kafka.connect.json.JsonConverter\n\
                header.converter.plugin.version=4.3.1\n";
    let builtin = "header.converter=org.apache.kafka.connect.json.JsonConverter\n";
    let source = |name: &str, converter: &str| {
        w.write(
            &format!("{name}.properties"),
            format!(
                "name={name}\nconnector.class=FileStreamSource\ntasks.max=1\nfile={}\n\
                 topic={name}\n{header}{converter}",
                input.display()
            ),
        )
    };
    let java_src = source("java", java);
    let builtin_src = source("builtin", builtin);
    let out = w.path("out.txt");
    let sink = w.write(
        "sink.properties",
        format!(
            "name=sink\nconnector.class=FileStreamSink\ntasks.max=1\nfile={}\ntopics=java\n{java}",
            out.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &java_src, &builtin_src, &sink]);
    assert_eq!(code, 0, "{err}");
    let data = w.path("data");
    let (java, builtin) = (raw_headers(&data, "java"), raw_headers(&data, "builtin"));
    assert_eq!(java.len(), 2, "{err}");
    let origin = &java[0][0];
    assert_eq!(origin.0, "origin");
    assert_eq!(
        String::from_utf8_lossy(origin.1.as_deref().unwrap_or_default()),
        r#"{"schema":{"type":"string","optional":false},"payload":"file"}"#
    );
    assert_eq!(java, builtin, "the Java header converter's bytes");
    // Read back through the Java header converter: the sink got every record.
    assert_eq!(
        std::fs::read_to_string(&out).expect("the sink's file"),
        "a\nb\n"
    );
}
