//! Transform differential: a generated corpus of records runs through Apache Kafka Connect's
//! own single message transforms and predicates (the connect-transforms jar, driven by
//! tests/compat/TransformOracle.java in one JVM) and through connect-rs's
//! (`PluginRegistry::builtin().transformation(class)` / `.predicate(class)`), and the results
//! must be identical: the outcome (record, dropped, configuration error, data error, predicate
//! answer), then topic, partition, timestamp, key, value and headers, the last three compared
//! as JsonConverter envelopes (schemas enabled), and error messages.
//!
//! A difference must be listed in `tests/compat/transform_deviations.toml` (and, with its
//! reason, in docs/compatibility.md, "Single message transforms"); the test fails on any other
//! difference and on an entry that matches none (stale). The report goes to
//! target/compat/transforms-report.txt.
//!
//! `CONNECT_RS_SMT_ONLY=Filter,Cast$*,TopicNameMatches` runs only the classes whose simple name
//! (`Cast$Value`, `HasHeaderKey`, ...) matches one of the comma-separated globs, for work on
//! one transform; the full run covers every class. Needs Java 17+ and Maven, as the other
//! differential tests.

#[path = "transform_corpus.rs"]
mod corpus;
use crate::support;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use connect_api::{
    ConfigMap, ConnectError, ConnectRecord, Headers, RecordContext, SchemaRef, TimestampType, Value,
};
use connect_rs::converters::{JsonConverter, JsonConverterConfig};
use connect_rs::plugins::PluginRegistry;
use serde_json::{json, Value as Json};
use support::glob;

const REPO: &str = env!("CARGO_MANIFEST_DIR");
/// The env var that restricts the run to some classes.
const ONLY_VAR: &str = "CONNECT_RS_SMT_ONLY";

/// The simple class name the report and the allow-list use (`Cast$Value`).
fn short(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

// ---- the connect-rs side ----

fn converter() -> JsonConverter {
    let props = ConfigMap::from([
        ("schemas.enable".to_owned(), "true".to_owned()),
        ("replace.null.with.default".to_owned(), "false".to_owned()),
    ]);
    JsonConverter::with_config(JsonConverterConfig::from_props(&props).expect("converter config"))
}

fn read(conv: &JsonConverter, env: &Json) -> (Option<SchemaRef>, Value) {
    if env.is_null() {
        return (None, Value::Null);
    }
    let bytes = serde_json::to_vec(env).expect("envelope bytes");
    let sv = conv
        .deserialize(Some(&bytes))
        .unwrap_or_else(|e| panic!("connect-rs cannot read the corpus envelope {env}: {e}"));
    (sv.schema, sv.value)
}

fn text(conv: &JsonConverter, schema: Option<&SchemaRef>, value: &Value) -> Json {
    match conv.serialize(schema, value) {
        Ok(None) => Json::Null,
        Ok(Some(b)) => json!(String::from_utf8_lossy(&b)),
        Err(e) => json!(format!("(cannot serialize: {e})")),
    }
}

fn error(e: &ConnectError) -> Json {
    let (class, message) = match e {
        ConnectError::Config { message, .. } => ("Config", message.clone()),
        ConnectError::Data(m) => ("Data", m.clone()),
        ConnectError::Retriable(m) => ("Retriable", m.clone()),
        ConnectError::Other(m) => ("Other", m.clone()),
        other => ("Io", other.to_string()),
    };
    json!({"class": class, "message": message})
}

fn build_record(conv: &JsonConverter, r: &Json) -> (ConnectRecord, RecordContext) {
    let (key_schema, key) = read(conv, &r["key"]);
    let (value_schema, value) = read(conv, &r["value"]);
    let mut headers = Headers::new();
    for h in r["headers"].as_array().expect("headers") {
        let (schema, value) = read(conv, &h[1]);
        headers.add(h[0].as_str().expect("header key"), schema, value);
    }
    let timestamp = r["timestamp"].as_i64();
    let record = ConnectRecord {
        topic: r["topic"].as_str().expect("topic").to_owned(),
        kafka_partition: r["partition"].as_i64().map(|p| p as i32),
        key_schema,
        key,
        value_schema,
        value,
        timestamp,
        headers,
    };
    let ctx = match r["offset"].as_i64() {
        Some(offset) => RecordContext::sink(
            offset,
            if timestamp.is_some() {
                TimestampType::CreateTime
            } else {
                TimestampType::NoTimestampType
            },
        ),
        None => RecordContext::source(),
    };
    (record, ctx)
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "panic".to_owned())
}

thread_local! {
    /// Set while a connect-rs plugin runs: its panics become the case's result, not test output.
    static IN_PLUGIN: Cell<bool> = const { Cell::new(false) };
}

/// One case through connect-rs, as the same JSON object the oracle writes.
fn run_rust(registry: &PluginRegistry, conv: &JsonConverter, c: &Json) -> Json {
    let mut result = json!({"id": c["id"]});
    let class = c["class"].as_str().expect("class");
    let props: ConfigMap = c["config"]
        .as_object()
        .expect("config")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("config string").to_owned()))
        .collect();
    let (record, ctx) = build_record(conv, &c["record"]);
    IN_PLUGIN.with(|f| f.set(true));
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        if c["kind"] == "predicate" {
            let plugin = match registry.predicate(class) {
                Ok(p) => p,
                Err(e) => return ("missing", json!(e.to_string())),
            };
            let mut p = (plugin.new)();
            if let Err(e) = p.configure(&props) {
                return ("config_error", error(&e));
            }
            return ("test", json!(p.test(&record)));
        }
        let plugin = match registry.transformation(class) {
            Ok(p) => p,
            Err(e) => return ("missing", json!(e.to_string())),
        };
        let mut t = (plugin.new)();
        if let Err(e) = t.configure(&props) {
            return ("config_error", error(&e));
        }
        match t.apply(record, &ctx) {
            Err(e) => ("error", error(&e)),
            Ok(None) => ("dropped", json!(true)),
            Ok(Some(out)) => {
                let headers: Vec<Json> = out
                    .headers
                    .iter()
                    .map(|h| json!([h.key, text(conv, h.schema.as_ref(), &h.value)]))
                    .collect();
                (
                    "record",
                    json!({
                        "topic": out.topic,
                        "partition": out.kafka_partition,
                        "timestamp": out.timestamp,
                        "key": text(conv, out.key_schema.as_ref(), &out.key),
                        "value": text(conv, out.value_schema.as_ref(), &out.value),
                        "headers": headers,
                    }),
                )
            }
        }
    }));
    IN_PLUGIN.with(|f| f.set(false));
    let (kind, body) = outcome.unwrap_or_else(|p| {
        (
            "error",
            json!({"class": "PANIC", "message": panic_text(&*p)}),
        )
    });
    result[kind] = body;
    result
}

// ---- comparing ----

const OUTCOMES: &[&str] = &[
    "record",
    "dropped",
    "test",
    "config_error",
    "error",
    "missing",
    "oracle_error",
];

fn outcome(r: &Json) -> &'static str {
    OUTCOMES
        .iter()
        .copied()
        .find(|k| r.get(*k).is_some())
        .unwrap_or("none")
}

/// A converter text parsed back, with the entries of maps whose keys are not strings (written
/// as `[[k, v], …]`, in Java's HashMap order) sorted, and `float` numbers read as `f32` (Java
/// before 19 writes some floats with more digits than the shortest form, which connect-rs
/// writes; both read back as the same `f32`).
fn canonical(text: &Json) -> Json {
    let Some(t) = text.as_str() else {
        return text.clone();
    };
    let Ok(mut env) = serde_json::from_str::<Json>(t) else {
        return text.clone();
    };
    let schema = env["schema"].clone();
    if let Some(p) = env.get_mut("payload") {
        sort_maps(&schema, p);
    }
    env
}

fn sort_maps(schema: &Json, payload: &mut Json) {
    match schema["type"].as_str() {
        Some("float") => {
            if let Some(x) = payload.as_f64() {
                *payload = json!(f64::from(x as f32));
            }
        }
        Some("map") => {
            if let Some(entries) = payload.as_array_mut() {
                for e in entries.iter_mut() {
                    if let Some(kv) = e.as_array_mut() {
                        if kv.len() == 2 {
                            sort_maps(&schema["keys"], &mut kv[0]);
                            sort_maps(&schema["values"], &mut kv[1]);
                        }
                    }
                }
                entries.sort_by_key(Json::to_string);
            } else if let Some(o) = payload.as_object_mut() {
                for v in o.values_mut() {
                    sort_maps(&schema["values"], v);
                }
            }
        }
        Some("array") => {
            if let Some(items) = payload.as_array_mut() {
                for i in items {
                    sort_maps(&schema["items"], i);
                }
            }
        }
        Some("struct") => {
            if let (Some(fields), Some(o)) = (schema["fields"].as_array(), payload.as_object_mut())
            {
                for f in fields {
                    if let Some(v) = f["field"].as_str().and_then(|n| o.get_mut(n)) {
                        sort_maps(f, v);
                    }
                }
            }
        }
        _ => {}
    }
}

/// One field that differs between Kafka Connect and connect-rs.
#[derive(Debug, Clone)]
struct Difference {
    class: String,
    case: String,
    field: String,
    kafka: String,
    ours: String,
}

fn show(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        Json::Null => "(none)".to_owned(),
        other => other.to_string(),
    }
}

fn compare(class: &str, java: &Json, rust: &Json) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut diff = |field: &str, kafka: String, ours: String| {
        out.push(Difference {
            class: short(class).to_owned(),
            case: show(&java["id"]),
            field: field.to_owned(),
            kafka,
            ours,
        });
    };
    let (jo, ro) = (outcome(java), outcome(rust));
    if jo != ro {
        let describe = |r: &Json, o: &str| match o {
            "record" => "a record".to_owned(),
            "dropped" => "dropped".to_owned(),
            "none" => "nothing".to_owned(),
            _ => format!("{o}: {}", show(&r[o])),
        };
        diff("outcome", describe(java, jo), describe(rust, ro));
        return out;
    }
    match jo {
        "config_error" | "error" => {
            let (j, r) = (&java[jo]["message"], &rust[jo]["message"]);
            if j != r {
                diff(
                    &format!("{jo}.message"),
                    format!("{}: {}", show(&java[jo]["class"]), show(j)),
                    format!("{}: {}", show(&rust[jo]["class"]), show(r)),
                );
            }
        }
        "test" if java["test"] != rust["test"] => {
            diff("test", java["test"].to_string(), rust["test"].to_string());
        }
        "record" => {
            let (j, r) = (&java["record"], &rust["record"]);
            for f in ["topic", "partition", "timestamp"] {
                if j[f] != r[f] {
                    diff(f, j[f].to_string(), r[f].to_string());
                }
            }
            for f in ["key", "value"] {
                if canonical(&j[f]) != canonical(&r[f]) {
                    diff(f, show(&j[f]), show(&r[f]));
                }
            }
            let hs = |x: &Json| -> Vec<(Json, Json)> {
                x["headers"]
                    .as_array()
                    .map(|a| a.iter().map(|h| (h[0].clone(), canonical(&h[1]))).collect())
                    .unwrap_or_default()
            };
            if hs(j) != hs(r) {
                diff(
                    "headers",
                    j["headers"].to_string(),
                    r["headers"].to_string(),
                );
            }
        }
        "oracle_error" | "missing" | "none" => diff(jo, show(&java[jo]), show(&rust[jo])),
        _ => {}
    }
    out
}

// ---- the allow-list ----

/// One entry of the allow-list of deliberate deviations.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Deviation {
    /// Simple class name (`Cast$Value`); `*` matches any run of characters.
    class: String,
    /// Case id (`Cast$Value#17`); default `*`.
    #[serde(default = "any")]
    case: String,
    /// The field that differs (`outcome`, `error.message`, `value`, ...).
    field: String,
    /// What Kafka Connect answered (as the report prints it); default `*`.
    #[serde(default = "any")]
    kafka: String,
    /// Why connect-rs answers differently.
    reason: String,
    /// The branch expected to remove this deviation (then the entry goes).
    #[serde(default)]
    pending: Option<String>,
}

fn any() -> String {
    "*".to_owned()
}

impl Deviation {
    fn matches(&self, d: &Difference) -> bool {
        glob(&self.class, &d.class)
            && glob(&self.case, &d.case)
            && glob(&self.field, &d.field)
            && glob(&self.kafka, &d.kafka)
    }
}

#[derive(Debug, serde::Deserialize)]
struct AllowList {
    #[serde(default)]
    deviation: Vec<Deviation>,
}

fn allow_list_path() -> PathBuf {
    Path::new(REPO).join("tests/compat/transform_deviations.toml")
}

fn load_allow_list() -> Vec<Deviation> {
    let path = allow_list_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let list: AllowList =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is invalid: {e}", path.display()));
    list.deviation
}

/// The globs of `CONNECT_RS_SMT_ONLY`, if set.
fn only() -> Option<Vec<String>> {
    let v = std::env::var(ONLY_VAR).ok()?;
    let globs: Vec<String> = v
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    (!globs.is_empty()).then_some(globs)
}

fn selected(only: Option<&[String]>, class: &str) -> bool {
    only.is_none_or(|globs| globs.iter().any(|g| glob(g, short(class))))
}

/// Per-class tallies for the report.
#[derive(Default)]
struct Tally {
    cases: usize,
    outcomes: BTreeMap<&'static str, usize>,
    differences: usize,
    explained: usize,
}

#[test]
fn transforms_match_kafka_connect() {
    let work = Path::new(REPO).join("target/compat");
    std::fs::create_dir_all(&work).expect("create target/compat");
    let only = only();
    let cases: Vec<Json> = corpus::generate()
        .into_iter()
        .filter(|c| selected(only.as_deref(), c["class"].as_str().unwrap_or("")))
        .collect();
    assert!(!cases.is_empty(), "{ONLY_VAR} selects no class");
    let corpus_path = work.join("transforms-corpus.jsonl");
    let results_path = work.join("transforms-results-java.jsonl");
    let mut text = String::new();
    for c in &cases {
        text.push_str(&c.to_string());
        text.push('\n');
    }
    std::fs::write(&corpus_path, text).expect("write the corpus");
    let _ = std::fs::remove_file(&results_path);

    let oracle = support::kafka_connect::compile_oracle("TransformOracle.java", &work);
    oracle.run("TransformOracle", &[&corpus_path, &results_path]);
    let java_text = std::fs::read_to_string(&results_path).expect("read the oracle's results");
    let java: BTreeMap<String, Json> = java_text
        .lines()
        .map(|l| {
            let j: Json = serde_json::from_str(l).expect("oracle result line");
            (show(&j["id"]), j)
        })
        .collect();

    let registry = PluginRegistry::builtin();
    let conv = converter();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !IN_PLUGIN.with(Cell::get) {
            default_hook(info);
        }
    }));
    let rust: Vec<Json> = cases
        .iter()
        .map(|c| run_rust(&registry, &conv, c))
        .collect();

    let allowed: Vec<Deviation> = load_allow_list()
        .into_iter()
        .filter(|d| {
            corpus::class_names()
                .iter()
                .any(|c| selected(only.as_deref(), c) && glob(&d.class, short(c)))
        })
        .collect();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut differences = Vec::new();
    let mut used = vec![0_usize; allowed.len()];
    let mut unexplained: Vec<(Difference, &Json)> = Vec::new();
    for (c, r) in cases.iter().zip(&rust) {
        let class = c["class"].as_str().unwrap_or("");
        let id = show(&c["id"]);
        let j = java.get(&id).cloned().unwrap_or(Json::Null);
        let t = tallies.entry(short(class).to_owned()).or_default();
        t.cases += 1;
        *t.outcomes.entry(outcome(&j)).or_default() += 1;
        for d in compare(class, &j, r) {
            t.differences += 1;
            match allowed.iter().position(|a| a.matches(&d)) {
                Some(i) => {
                    used[i] += 1;
                    t.explained += 1;
                    differences.push((d, Some(i)));
                }
                None => {
                    unexplained.push((d.clone(), c));
                    differences.push((d, None));
                }
            }
        }
    }
    let stale: Vec<&Deviation> = allowed
        .iter()
        .zip(&used)
        .filter(|(_, n)| **n == 0)
        .map(|(d, _)| d)
        .collect();

    let mut report = String::new();
    let _ = writeln!(
        report,
        "# Transform differential: connect-rs {} vs Apache Kafka Connect {} ({})\n\
         cases: {}{}; differences: {} ({} unexplained); allow-list entries: {} ({} stale)\n\
         corpus: {}\njava results: {}\nevery difference: transforms-differences.jsonl\n\
         allow-list: {}\n",
        env!("CARGO_PKG_VERSION"),
        oracle.version,
        oracle.java_version,
        cases.len(),
        only.as_ref()
            .map(|o| format!(" (only {ONLY_VAR}={})", o.join(",")))
            .unwrap_or_default(),
        differences.len(),
        unexplained.len(),
        allowed.len(),
        stale.len(),
        corpus_path.display(),
        results_path.display(),
        allow_list_path().display(),
    );
    let _ = writeln!(
        report,
        "== Per class: cases, Kafka's outcomes, differences (explained)"
    );
    for (class, t) in &tallies {
        let _ = writeln!(
            report,
            "  {class:<28} {:>4}  {:<60} {} ({})",
            t.cases,
            format!("{:?}", t.outcomes),
            t.differences,
            t.explained
        );
    }
    let _ = writeln!(
        report,
        "\n== Unexplained differences (fix connect-rs, or add to the allow-list and docs/compatibility.md)"
    );
    let mut shown: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (d, c) in &unexplained {
        let n = shown.entry((d.class.clone(), d.field.clone())).or_default();
        *n += 1;
        if *n > 8 {
            continue;
        }
        let _ = writeln!(
            report,
            "  [{}] {}\n      case: {}\n      Kafka Connect: {}\n      connect-rs:    {}",
            d.case,
            d.field,
            json!({"config": c["config"], "record": c["record"]}),
            d.kafka,
            d.ours
        );
    }
    for ((class, field), n) in shown.iter().filter(|(_, n)| **n > 8) {
        let _ = writeln!(report, "  ... {class} {field}: {} more", n - 8);
    }
    let _ = writeln!(
        report,
        "\n== Stale allow-list entries (they match no difference any more: delete them)"
    );
    for d in &stale {
        let _ = writeln!(
            report,
            "  class {:?} case {:?} field {:?} kafka {:?}: {}",
            d.class, d.case, d.field, d.kafka, d.reason
        );
    }
    let _ = writeln!(report, "\n== Explained differences (allow-list), by entry");
    for (i, d) in allowed.iter().enumerate() {
        if used[i] == 0 {
            continue;
        }
        let pending = d
            .pending
            .as_deref()
            .map(|p| format!(" (pending: {p})"))
            .unwrap_or_default();
        let _ = writeln!(
            report,
            "  {} x class {:?} field {:?}: {}{pending}",
            used[i], d.class, d.field, d.reason
        );
        if let Some((x, _)) = differences.iter().find(|(_, a)| *a == Some(i)) {
            let _ = writeln!(
                report,
                "      e.g. [{}] Kafka Connect: {}\n                    connect-rs:    {}",
                x.case, x.kafka, x.ours
            );
        }
    }
    let all: String = differences
        .iter()
        .map(|(d, a)| {
            json!({"case": d.case, "class": d.class, "field": d.field, "kafka": d.kafka,
                   "ours": d.ours, "allowed": a.map(|i| allowed[i].reason.clone())})
            .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(work.join("transforms-differences.jsonl"), all).expect("write the differences");
    let report_path = work.join("transforms-report.txt");
    std::fs::write(&report_path, &report).expect("write the report");
    eprintln!("{}", report.lines().take(3).collect::<Vec<_>>().join("\n"));
    if only.is_none() {
        assert!(
            cases.len() >= 3000,
            "the corpus is too small: {}",
            cases.len()
        );
    }
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "connect-rs's transforms differ from Kafka Connect's; report: {}\n{}",
        report_path.display(),
        report.chars().take(30_000).collect::<String>()
    );
}

#[test]
fn canonical_sorts_non_string_keyed_maps_only() {
    let text = |payload: &str| {
        json!(format!(
            r#"{{"schema":{{"type":"map","keys":{{"type":"int32","optional":false}},"values":{{"type":"string","optional":false}},"optional":false}},"payload":{payload}}}"#
        ))
    };
    assert_eq!(
        canonical(&text(r#"[[2,"b"],[1,"a"]]"#)),
        canonical(&text(r#"[[1,"a"],[2,"b"]]"#))
    );
    let arr = |payload: &str| {
        json!(format!(
            r#"{{"schema":{{"type":"array","items":{{"type":"int32","optional":false}},"optional":false}},"payload":{payload}}}"#
        ))
    };
    assert_ne!(canonical(&arr("[2,1]")), canonical(&arr("[1,2]")));
}

#[test]
fn allow_list_entries_match_by_class_field_and_kafka_text() {
    let d = Deviation {
        class: "Cast$*".into(),
        case: "*".into(),
        field: "error.message".into(),
        kafka: "*NumberFormat*".into(),
        reason: "r".into(),
        pending: None,
    };
    let x = |class: &str, kafka: &str| Difference {
        class: class.into(),
        case: format!("{class}#1"),
        field: "error.message".into(),
        kafka: kafka.into(),
        ours: String::new(),
    };
    assert!(d.matches(&x(
        "Cast$Value",
        "java.lang.NumberFormatException: For input"
    )));
    assert!(!d.matches(&x("Flatten$Value", "java.lang.NumberFormatException: x")));
    assert!(!d.matches(&x("Cast$Key", "DataException: x")));
}
