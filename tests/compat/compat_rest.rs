//! REST differential test: Apache Kafka Connect itself is the oracle. Its `ConnectStandalone`
//! (jars from Maven Central) and `connect-rs standalone` run on the same Kafka broker; both get
//! the same scripted REST sequence, and every answer is compared: status code, JSON body key by
//! key (objects order-insensitive, arrays in order unless a step says the order is undefined),
//! and the `Location` header of a create.
//!
//! Each system names its connectors and topics with its own suffix (so the sink consumer groups
//! `connect-<name>` and the topics do not collide on the shared broker) and keeps its files in
//! its own temp dir; [`Side::mask`] maps those, and the values that differ from run to run
//! (ports, versions, commit ids, cluster ids, traces, timestamps), to placeholders before the
//! comparison.
//!
//! A difference must be listed in `tests/compat/rest_deviations.toml` (and, with its reason, in
//! docs/compatibility.md); the test fails on any other difference and on list entries that no
//! longer match one (stale). The report is printed and written to `target/compat/rest-report.txt`.

use crate::support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use support::http::{Client, Response};
use support::kafka::{broker, Broker};
use support::kafka_connect::KafkaConnect;
use support::{glob, rest, wait_for, Workdir};

/// How long a connector may take to reach a state, or offsets to be committed.
const SETTLE: Duration = Duration::from_secs(60);

/// Lines in each system's source file.
const INPUT: &str = "alpha\nbeta\ngamma\n";

/// Worker settings both systems get (besides `bootstrap.servers`, `listeners` and the offsets file).
const WORKER: &str = "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
                      value.converter=org.apache.kafka.connect.storage.StringConverter\n\
                      offset.flush.interval.ms=500\n";

/// One system under comparison.
struct Side {
    label: &'static str,
    client: Client,
    port: u16,
    /// Suffix of this system's connector and topic names.
    sfx: String,
    /// This system's temp dir (input and output files).
    dir: PathBuf,
    /// Version strings this system reports (masked wherever they appear).
    versions: Vec<String>,
}

impl Side {
    /// The request text for this side: `{sfx}` and `{dir}` replaced by its own.
    fn fill(&self, template: &str) -> String {
        template
            .replace("{sfx}", &self.sfx)
            .replace("{dir}", &self.dir.display().to_string())
    }

    /// Maps this side's own names and volatile values to placeholders, so both sides compare.
    fn mask_text(&self, text: &str) -> String {
        let mut out = text
            .replace(&self.dir.display().to_string(), "{dir}")
            .replace(&self.sfx, "{sfx}")
            .replace(&format!(":{}", self.port), ":{port}");
        for v in &self.versions {
            out = out.replace(v.as_str(), "{version}");
        }
        out
    }

    /// [`Side::mask_text`] on every key and string, and a placeholder for the values of keys
    /// that differ from run to run whatever the system: `worker_id`, `version`, `commit`,
    /// `kafka_cluster_id`, `trace`, `last_modified` (a null stays null, so presence compares).
    fn mask(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.mask_text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.mask(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let placeholder = match k.as_str() {
                            "worker_id" | "version" | "commit" | "kafka_cluster_id" | "trace"
                            | "last_modified"
                                if !v.is_null() =>
                            {
                                Some(Value::String(format!("{{{k}}}")))
                            }
                            _ => None,
                        };
                        (
                            self.mask_text(k),
                            placeholder.unwrap_or_else(|| self.mask(v)),
                        )
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Response {
        let path = self.fill(path);
        let body = body.map(|b| self.fill(&b.to_string()));
        self.client.send(
            method,
            &path,
            body.as_deref().map(|b| ("application/json", b)),
        )
    }
}

/// How a step's body is prepared for the comparison, beyond masking.
#[derive(Clone, Copy)]
enum View {
    /// As answered.
    Plain,
    /// The top-level array sorted (its order is not defined, e.g. the connector list).
    Sorted,
    /// Only these keys of the top-level object (e.g. the loggers both systems must know).
    Keys(&'static [&'static str]),
    /// Only these elements of the top-level array.
    Elements(&'static [&'static str]),
}

impl View {
    fn apply(self, body: Value) -> Value {
        match (self, body) {
            (View::Sorted, Value::Array(mut items)) => {
                items.sort_by_key(|v| v.to_string());
                Value::Array(items)
            }
            (View::Keys(keys), Value::Object(map)) => Value::Object(
                map.into_iter()
                    .filter(|(k, _)| keys.contains(&k.as_str()))
                    .collect(),
            ),
            (View::Elements(keep), Value::Array(items)) => Value::Array(
                items
                    .into_iter()
                    .filter(|v| v.as_str().is_some_and(|s| keep.contains(&s)))
                    .collect(),
            ),
            (_, body) => body,
        }
    }
}

/// One difference between the two answers to a step.
#[derive(Debug, Clone)]
struct Difference {
    step: String,
    request: String,
    /// `status`, `header:Location` or a JSON path (`$.a.b[0]`, `$[name=x]` for named elements).
    path: String,
    kafka: String,
    ours: String,
}

/// A step's answers on both sides, already masked, and the differences found.
struct Harness {
    kc: Side,
    rs: Side,
    differences: Vec<Difference>,
    steps: usize,
    /// Kafka Connect's status code of every step, to check the scenario itself.
    kafka_status: Vec<(String, u16)>,
}

impl Harness {
    /// Sends the same request to both systems and records every difference.
    fn step(&mut self, id: &str, method: &str, path: &str, body: Option<Value>) -> [Value; 2] {
        self.step_view(id, method, path, body, View::Plain)
    }

    fn step_view(
        &mut self,
        id: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
        view: View,
    ) -> [Value; 2] {
        self.steps += 1;
        let answers = [&self.kc, &self.rs].map(|side| {
            let r = side.send(method, path, body.as_ref());
            let json = if r.body.trim().is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&r.body).unwrap_or_else(|_| Value::String(r.body.clone()))
            };
            let location = r.header("location").map(|l| side.mask_text(l));
            (r.status, location, view.apply(side.mask(&json)))
        });
        let [(kc_status, kc_loc, kc_body), (rs_status, rs_loc, rs_body)] = answers;
        self.kafka_status.push((id.to_owned(), kc_status));
        let request = format!("{method} {path}");
        let mut found = Vec::new();
        if kc_status != rs_status {
            found.push(("status".to_owned(), json!(kc_status), json!(rs_status)));
        }
        if kc_loc != rs_loc {
            found.push(("header:Location".to_owned(), json!(kc_loc), json!(rs_loc)));
        }
        diff("$", &kc_body, &rs_body, &mut found);
        for (p, k, o) in found {
            self.differences.push(Difference {
                step: id.to_owned(),
                request: request.clone(),
                path: p,
                kafka: k.to_string(),
                ours: o.to_string(),
            });
        }
        [kc_body, rs_body]
    }

    /// Waits until `GET path` satisfies `ready` on both systems (not a compared step).
    fn settle(&self, what: &str, path: &str, ready: impl Fn(&Value) -> bool) {
        for side in [&self.kc, &self.rs] {
            let start = std::time::Instant::now();
            loop {
                let r = side.send("GET", path, None);
                if r.status == 200 && serde_json::from_str(&r.body).is_ok_and(|v| ready(&v)) {
                    break;
                }
                let last = format!("{} {}", r.status, r.body);
                assert!(
                    start.elapsed() < SETTLE,
                    "{}: timed out after {SETTLE:?} waiting for {what}; last answer to GET {}: {last}",
                    side.label,
                    side.fill(path)
                );
                std::thread::park_timeout(Duration::from_millis(50));
            }
        }
    }

    /// Waits until the connector (and every task, if `tasks`) is in `state` on both systems.
    fn settle_state(&self, connector: &str, state: &str, tasks: Option<usize>) {
        self.settle(
            &format!("{connector} {state}"),
            &format!("/connectors/{connector}/status"),
            |s| {
                let list = s["tasks"].as_array().cloned().unwrap_or_default();
                s["connector"]["state"] == state
                    && tasks.is_none_or(|n| list.len() == n)
                    && list.iter().all(|t| t["state"] == state)
            },
        );
    }
}

/// Appends the differences between `kafka` and `ours` under `path`.
fn diff(path: &str, kafka: &Value, ours: &Value, out: &mut Vec<(String, Value, Value)>) {
    let absent = || json!("(absent)");
    match (kafka, ours) {
        (Value::Object(k), Value::Object(o)) => {
            let mut keys: Vec<&String> = k.keys().chain(o.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let p = format!("{path}.{key}");
                match (k.get(key), o.get(key)) {
                    (Some(a), Some(b)) => diff(&p, a, b, out),
                    (Some(a), None) => out.push((p, a.clone(), absent())),
                    (None, Some(b)) => out.push((p, absent(), b.clone())),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(k), Value::Array(o)) => match (named(k), named(o)) {
            (Some(kn), Some(on)) => {
                let order = |n: &[(String, &Value)], other: &[(String, &Value)]| -> Vec<String> {
                    n.iter()
                        .filter(|(name, _)| other.iter().any(|(x, _)| x == name))
                        .map(|(name, _)| name.clone())
                        .collect()
                };
                let (ko, oo) = (order(&kn, &on), order(&on, &kn));
                if ko != oo {
                    out.push((format!("{path}[order]"), json!(ko), json!(oo)));
                }
                let mut names: Vec<&String> = kn.iter().chain(on.iter()).map(|(n, _)| n).collect();
                names.sort();
                names.dedup();
                for name in names {
                    let p = format!("{path}[{name}]");
                    match (by_name(&kn, name), by_name(&on, name)) {
                        (Some(a), Some(b)) => diff(&p, a, b, out),
                        (Some(a), None) => out.push((p, a.clone(), absent())),
                        (None, Some(b)) => out.push((p, absent(), b.clone())),
                        (None, None) => {}
                    }
                }
            }
            _ => {
                for i in 0..k.len().max(o.len()) {
                    let p = format!("{path}[{i}]");
                    match (k.get(i), o.get(i)) {
                        (Some(a), Some(b)) => diff(&p, a, b, out),
                        (Some(a), None) => out.push((p, a.clone(), absent())),
                        (None, Some(b)) => out.push((p, absent(), b.clone())),
                        (None, None) => {}
                    }
                }
            }
        },
        (a, b) if a == b => {}
        (a, b) => out.push((path.to_owned(), a.clone(), b.clone())),
    }
}

/// The element named `name`.
fn by_name<'a>(items: &[(String, &'a Value)], name: &str) -> Option<&'a Value> {
    items.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
}

/// The elements of an array of named objects, by label: `name=N` for `{"name": N}` or
/// `{"definition": {"name": N}}` (plugin configs, validation results), `TYPE:CLASS` for
/// `{"class": CLASS, "type": TYPE}` (plugin lists); `None` for other arrays.
fn named(items: &[Value]) -> Option<Vec<(String, &Value)>> {
    if items.is_empty() {
        return None;
    }
    items
        .iter()
        .map(|v| {
            let label =
                if let Some(name) = v.get("name").or_else(|| v.get("definition")?.get("name")) {
                    format!("name={}", name.as_str()?)
                } else {
                    format!("{}:{}", v.get("type")?.as_str()?, v.get("class")?.as_str()?)
                };
            Some((label, v))
        })
        .collect()
}

/// One entry of the allow-list of deliberate deviations.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Deviation {
    /// Step id; `*` matches any run of characters.
    step: String,
    /// `status`, `header:Location` or a JSON path; `*` matches any run of characters.
    path: String,
    /// Why connect-rs answers differently.
    reason: String,
    /// The branch expected to remove this deviation (then the entry goes).
    #[serde(default)]
    pending: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
struct AllowList {
    #[serde(default)]
    deviation: Vec<Deviation>,
}

fn allow_list_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/compat/rest_deviations.toml")
}

fn load_allow_list() -> Vec<Deviation> {
    let path = allow_list_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let list: AllowList =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is invalid: {e}", path.display()));
    list.deviation
}

/// The report: unexplained differences, stale allow-list entries, then the explained ones.
/// Returns it and whether the test passes.
fn report(h: &Harness, allowed: &[Deviation], kc_version: &str) -> (String, bool) {
    let matches = |d: &Deviation, x: &Difference| glob(&d.step, &x.step) && glob(&d.path, &x.path);
    let unexplained: Vec<&Difference> = h
        .differences
        .iter()
        .filter(|x| !allowed.iter().any(|d| matches(d, x)))
        .collect();
    let stale: Vec<&Deviation> = allowed
        .iter()
        .filter(|d| !h.differences.iter().any(|x| matches(d, x)))
        .collect();
    let line = |x: &Difference| {
        format!(
            "  [{}] {}  {}\n      Kafka Connect: {}\n      connect-rs:    {}\n",
            x.step, x.request, x.path, x.kafka, x.ours
        )
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "REST differential: Apache Kafka Connect {kc_version} vs connect-rs {}, {} steps, \
         {} differences ({} unexplained), {} allow-list entries ({} stale)\n\
         allow-list: {}\n",
        env!("CARGO_PKG_VERSION"),
        h.steps,
        h.differences.len(),
        unexplained.len(),
        allowed.len(),
        stale.len(),
        allow_list_path().display()
    );
    let _ = writeln!(
        out,
        "== Unexplained differences (fix connect-rs, or add to the allow-list and docs/compatibility.md)"
    );
    for x in &unexplained {
        out.push_str(&line(x));
    }
    let _ = writeln!(
        out,
        "\n== Stale allow-list entries (they match no difference any more: delete them)"
    );
    for d in &stale {
        let _ = writeln!(out, "  step {:?} path {:?}: {}", d.step, d.path, d.reason);
    }
    let _ = writeln!(out, "\n== Explained differences (allow-list)");
    for x in h.differences.iter().filter(|x| !unexplained.contains(x)) {
        let d = allowed.iter().find(|d| matches(d, x));
        out.push_str(&line(x));
        if let Some(d) = d {
            let pending = d
                .pending
                .as_deref()
                .map(|p| format!(" (pending: {p})"))
                .unwrap_or_default();
            let _ = writeln!(out, "      reason: {}{pending}", d.reason);
        }
    }
    (out, unexplained.is_empty() && stale.is_empty())
}

impl PartialEq for Difference {
    fn eq(&self, other: &Self) -> bool {
        self.step == other.step && self.path == other.path && self.request == other.request
    }
}

/// The worker lines of one system: the shared settings plus its own offsets file.
fn worker_lines(dir: &Path) -> String {
    format!(
        "{WORKER}offset.storage.file.filename={}\n",
        dir.join("offsets").display()
    )
}

#[test]
fn kafka_connect_and_connect_rs_answer_the_rest_api_alike() {
    let broker = broker();
    let kc_dir = Workdir::new();
    let rs_dir = Workdir::new();
    for w in [&kc_dir, &rs_dir] {
        w.write("in.txt", INPUT);
    }

    let kc = KafkaConnect::start(
        kc_dir.dir.path(),
        broker.bootstrap(),
        &worker_lines(kc_dir.dir.path()),
    );
    let rs_worker = rs_dir.write(
        "worker.properties",
        format!(
            "bootstrap.servers={}\nlisteners=http://127.0.0.1:0\n{}",
            broker.bootstrap(),
            worker_lines(rs_dir.dir.path())
        ),
    );
    let rs = rest::start(&rs_dir, &[&rs_worker]);

    let mut h = Harness {
        kc: Side {
            label: "Kafka Connect",
            client: kc.client,
            port: kc.port,
            sfx: Broker::unique("kc"),
            dir: kc_dir.dir.path().to_path_buf(),
            versions: vec![kc.version.clone()],
        },
        rs: Side {
            label: "connect-rs",
            client: rs.client,
            port: rs.port,
            sfx: Broker::unique("rs"),
            dir: rs_dir.dir.path().to_path_buf(),
            versions: vec![env!("CARGO_PKG_VERSION").to_owned()],
        },
        differences: Vec::new(),
        steps: 0,
        kafka_status: Vec::new(),
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        script(&mut h);
        check_scenario(&h);
    }));
    if let Err(panic) = outcome {
        eprintln!(
            "--- Kafka Connect log ---\n{}\n--- connect-rs log ---\n{}",
            kc.log_tail(),
            rs_dir.log()
        );
        std::panic::resume_unwind(panic);
    }

    let (text, pass) = report(&h, &load_allow_list(), &kc.version);
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/compat");
    let _ = std::fs::create_dir_all(&out);
    let _ = std::fs::write(out.join("rest-report.txt"), &text);
    println!("{text}");
    assert!(
        pass,
        "the REST answers of connect-rs differ from Apache Kafka Connect's (report also in \
         target/compat/rest-report.txt):\n{text}"
    );
}

/// Kafka Connect's answers to the steps that carry the scenario: when one of them is not the
/// expected one, the sequence itself is broken (and agreement would prove nothing).
fn check_scenario(h: &Harness) {
    for (id, status) in [
        ("root", 200),
        ("create-source", 201),
        ("create-duplicate", 409),
        ("create-sink", 201),
        ("create-no-class", 400),
        ("validate-tasks-max-zero", 200),
        ("create-tasks-max-zero", 400),
        ("status", 200),
        ("config-put", 200),
        ("config-put-create", 201),
        ("config-patch", 200),
        ("topics-source", 200),
        ("create-failing-sink", 201),
        ("topics-failing-sink", 200),
        ("pause", 202),
        ("offsets-patch-running", 400),
        ("stop-source", 204),
        ("offsets-patch-source", 200),
        ("offsets-delete-source", 200),
        ("offsets-patch-sink", 200),
        ("offsets-delete-sink", 200),
        ("offsets-patch-source-no-filename", 500),
        ("offsets-patch-source-bad-position", 500),
        ("restart", 204),
        ("restart-include-tasks", 202),
        ("logger-put", 200),
        ("logger-unknown", 404),
        ("unknown-path", 404),
        ("method-root", 405),
        ("delete-source", 204),
        ("delete-again", 404),
    ] {
        let got = h
            .kafka_status
            .iter()
            .find(|(s, _)| s == id)
            .map(|(_, c)| *c);
        assert_eq!(
            got,
            Some(status),
            "the scenario is broken: Kafka Connect answered step {id} with {got:?}, not {status}"
        );
    }
}

/// The scripted REST sequence, in order. Names: `source{sfx}`, `sink{sfx}`, topic `t{sfx}`.
fn script(h: &mut Harness) {
    let source = "source{sfx}";
    let sink = "sink{sfx}";
    let source_config = json!({
        "connector.class": "FileStreamSource",
        "tasks.max": "1",
        "file": "{dir}/in.txt",
        "topic": "t{sfx}",
    });
    let sink_config = json!({
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "tasks.max": "1",
        "file": "{dir}/out.txt",
        "topics": "t{sfx}",
    });

    // Server and plugins.
    h.step("root", "GET", "/", None);
    h.step("plugins", "GET", "/connector-plugins", None);
    h.step(
        "plugins-all",
        "GET",
        "/connector-plugins?connectorsOnly=false",
        None,
    );
    h.step(
        "plugin-config-source",
        "GET",
        "/connector-plugins/FileStreamSource/config",
        None,
    );
    h.step(
        "plugin-config-sink",
        "GET",
        "/connector-plugins/org.apache.kafka.connect.file.FileStreamSinkConnector/config",
        None,
    );
    h.step(
        "plugin-config-unknown",
        "GET",
        "/connector-plugins/com.example.Nope/config",
        None,
    );
    h.step(
        "plugin-config-transform",
        "GET",
        "/connector-plugins/org.apache.kafka.connect.transforms.Cast$Value/config",
        None,
    );
    h.step(
        "plugin-config-predicate",
        "GET",
        "/connector-plugins/TopicNameMatches/config",
        None,
    );
    let mut with_transforms = source_config.clone();
    with_transforms["name"] = json!(source);
    for (k, v) in [
        ("transforms", "route,drop"),
        ("transforms.route.type", "RegexRouter"),
        ("transforms.route.regex", "(.*)"),
        ("transforms.route.replacement", "$1-routed"),
        (
            "transforms.drop.type",
            "org.apache.kafka.connect.transforms.Filter",
        ),
        ("transforms.drop.predicate", "isTomb"),
        ("transforms.drop.negate", "false"),
        ("predicates", "isTomb,byName"),
        (
            "predicates.isTomb.type",
            "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
        ),
        ("predicates.byName.type", "TopicNameMatches"),
        ("predicates.byName.pattern", "t.*"),
    ] {
        with_transforms[k] = json!(v);
    }
    h.step(
        "validate-transforms",
        "PUT",
        "/connector-plugins/FileStreamSourceConnector/config/validate",
        Some(with_transforms),
    );
    let mut good = source_config.clone();
    good["name"] = json!(source);
    h.step(
        "validate-good",
        "PUT",
        "/connector-plugins/FileStreamSourceConnector/config/validate",
        Some(good),
    );
    h.step(
        "validate-bad",
        "PUT",
        "/connector-plugins/FileStreamSourceConnector/config/validate",
        Some(json!({
            "connector.class": "FileStreamSource",
            "name": source,
            "tasks.max": "zero",
            "batch.size": "-1",
        })),
    );

    // tasks.max below its minimum: both the validation and the create list every error.
    h.step(
        "validate-tasks-max-zero",
        "PUT",
        "/connector-plugins/FileStreamSourceConnector/config/validate",
        Some(json!({
            "connector.class": "FileStreamSource",
            "name": source,
            "tasks.max": "0",
            "topic": "t{sfx}",
        })),
    );

    // Create, duplicate, invalid.
    h.step(
        "create-source",
        "POST",
        "/connectors",
        Some(json!({"name": source, "config": source_config})),
    );
    h.step(
        "create-duplicate",
        "POST",
        "/connectors",
        Some(json!({"name": source, "config": source_config})),
    );
    h.step(
        "create-sink",
        "POST",
        "/connectors",
        Some(json!({"name": sink, "config": sink_config})),
    );
    h.step(
        "create-no-class",
        "POST",
        "/connectors",
        Some(json!({"name": "bad{sfx}", "config": {"tasks.max": "1", "topic": "t{sfx}"}})),
    );
    h.step(
        "create-unknown-class",
        "POST",
        "/connectors",
        Some(json!({"name": "bad{sfx}", "config": {"connector.class": "com.example.Nope"}})),
    );
    h.step(
        "create-bad-tasks-max",
        "POST",
        "/connectors",
        Some(json!({"name": "bad{sfx}", "config": {
            "connector.class": "FileStreamSource", "tasks.max": "x", "topic": "t{sfx}"}})),
    );
    h.step(
        "create-tasks-max-zero",
        "POST",
        "/connectors",
        Some(json!({"name": "bad{sfx}", "config": {
            "connector.class": "FileStreamSource", "tasks.max": "0", "topic": "t{sfx}"}})),
    );
    h.step(
        "create-no-name",
        "POST",
        "/connectors",
        Some(json!({"config": {"connector.class": "FileStreamSource", "topic": "t{sfx}"}})),
    );
    h.settle_state(source, "RUNNING", Some(1));
    h.settle_state(sink, "RUNNING", Some(1));

    // Reading connectors.
    h.step_view("list", "GET", "/connectors", None, View::Sorted);
    h.step(
        "list-expanded",
        "GET",
        "/connectors?expand=status&expand=info",
        None,
    );
    h.step("info", "GET", "/connectors/source{sfx}", None);
    h.step("info-unknown", "GET", "/connectors/nope{sfx}", None);
    h.step("status", "GET", "/connectors/source{sfx}/status", None);
    h.step(
        "status-unknown",
        "GET",
        "/connectors/nope{sfx}/status",
        None,
    );
    h.step("tasks", "GET", "/connectors/source{sfx}/tasks", None);
    h.step("tasks-sink", "GET", "/connectors/sink{sfx}/tasks", None);
    h.step(
        "task-status",
        "GET",
        "/connectors/source{sfx}/tasks/0/status",
        None,
    );
    h.step(
        "task-status-unknown",
        "GET",
        "/connectors/source{sfx}/tasks/7/status",
        None,
    );

    // Configuration.
    h.step("config", "GET", "/connectors/source{sfx}/config", None);
    let mut sink_update = sink_config.clone();
    sink_update["tasks.max"] = json!("2");
    h.step(
        "config-put",
        "PUT",
        "/connectors/sink{sfx}/config",
        Some(sink_update),
    );
    h.step(
        "config-put-name-mismatch",
        "PUT",
        "/connectors/sink{sfx}/config",
        Some(json!({"name": "other", "connector.class": "FileStreamSink", "topics": "t{sfx}"})),
    );
    h.step(
        "config-put-create",
        "PUT",
        "/connectors/extra{sfx}/config",
        Some(json!({
            "connector.class": "FileStreamSink",
            "tasks.max": "1",
            "file": "{dir}/extra.txt",
            "topics": "t{sfx}",
        })),
    );
    h.step(
        "config-patch",
        "PATCH",
        "/connectors/source{sfx}/config",
        Some(json!({"batch.size": "500"})),
    );
    h.step(
        "config-patch-unknown",
        "PATCH",
        "/connectors/nope{sfx}/config",
        Some(json!({"batch.size": "500"})),
    );
    h.step("delete-extra", "DELETE", "/connectors/extra{sfx}", None);
    h.settle_state(source, "RUNNING", Some(1));
    h.settle_state(sink, "RUNNING", Some(2));
    h.step("config-after", "GET", "/connectors/sink{sfx}/config", None);

    // Data flowed (source → topic → sink) on both: topics are tracked.
    for side in [&h.kc, &h.rs] {
        let out = side.dir.join("out.txt");
        wait_for(
            &format!("{}: the sink's output file", side.label),
            SETTLE,
            || {
                let text = std::fs::read_to_string(&out).unwrap_or_default();
                INPUT.lines().all(|l| text.lines().any(|o| o == l))
            },
        );
    }
    h.step(
        "topics-source",
        "GET",
        "/connectors/source{sfx}/topics",
        None,
    );
    h.step("topics-sink", "GET", "/connectors/sink{sfx}/topics", None);
    h.step(
        "topics-reset",
        "PUT",
        "/connectors/source{sfx}/topics/reset",
        None,
    );
    h.step(
        "topics-after-reset",
        "GET",
        "/connectors/source{sfx}/topics",
        None,
    );
    // A sink records its topic once a record is converted, before its transforms: one whose
    // transform fails on every record used the topic all the same.
    h.step(
        "create-failing-sink",
        "POST",
        "/connectors",
        Some(json!({"name": "failing{sfx}", "config": {
            "connector.class": "FileStreamSink",
            "tasks.max": "1",
            "file": "{dir}/failing.txt",
            "topics": "t{sfx}",
            "transforms": "int",
            "transforms.int.type": "org.apache.kafka.connect.transforms.Cast$Value",
            "transforms.int.spec": "int32",
        }})),
    );
    h.settle(
        "the failing sink's task FAILED",
        "/connectors/failing{sfx}/status",
        |s| s["tasks"][0]["state"] == "FAILED",
    );
    let [kafka, _] = h.step(
        "topics-failing-sink",
        "GET",
        "/connectors/failing{sfx}/topics",
        None,
    );
    assert_eq!(
        kafka,
        json!({"failing{sfx}": {"topics": ["t{sfx}"]}}),
        "the scenario is broken: Kafka Connect's failing sink lists no topic"
    );
    h.step(
        "delete-failing-sink",
        "DELETE",
        "/connectors/failing{sfx}",
        None,
    );

    // Pause and resume.
    h.step("pause", "PUT", "/connectors/source{sfx}/pause", None);
    h.settle_state(source, "PAUSED", Some(1));
    h.step(
        "status-paused",
        "GET",
        "/connectors/source{sfx}/status",
        None,
    );
    h.step("resume", "PUT", "/connectors/source{sfx}/resume", None);
    h.settle_state(source, "RUNNING", Some(1));
    h.step(
        "status-resumed",
        "GET",
        "/connectors/source{sfx}/status",
        None,
    );

    // Offsets: readable while running; changes need the connector STOPPED.
    let position = INPUT.len() as u64;
    h.settle(
        "the source's offsets",
        "/connectors/source{sfx}/offsets",
        |o| o["offsets"][0]["offset"]["position"] == position,
    );
    h.step(
        "offsets-source-running",
        "GET",
        "/connectors/source{sfx}/offsets",
        None,
    );
    let source_offsets = json!({"offsets": [
        {"partition": {"filename": "{dir}/in.txt"}, "offset": {"position": 6}}
    ]});
    h.step(
        "offsets-patch-running",
        "PATCH",
        "/connectors/source{sfx}/offsets",
        Some(source_offsets.clone()),
    );
    h.step(
        "offsets-delete-running",
        "DELETE",
        "/connectors/source{sfx}/offsets",
        None,
    );
    h.step("stop-source", "PUT", "/connectors/source{sfx}/stop", None);
    h.settle_state(source, "STOPPED", Some(0));
    h.step(
        "status-stopped",
        "GET",
        "/connectors/source{sfx}/status",
        None,
    );
    h.step(
        "tasks-stopped",
        "GET",
        "/connectors/source{sfx}/tasks",
        None,
    );
    h.step(
        "offsets-source",
        "GET",
        "/connectors/source{sfx}/offsets",
        None,
    );
    h.step(
        "offsets-patch-empty",
        "PATCH",
        "/connectors/source{sfx}/offsets",
        Some(json!({})),
    );
    h.step(
        "offsets-patch-source",
        "PATCH",
        "/connectors/source{sfx}/offsets",
        Some(source_offsets),
    );
    h.step(
        "offsets-source-patched",
        "GET",
        "/connectors/source{sfx}/offsets",
        None,
    );
    h.step(
        "offsets-delete-source",
        "DELETE",
        "/connectors/source{sfx}/offsets",
        None,
    );
    h.step(
        "offsets-source-deleted",
        "GET",
        "/connectors/source{sfx}/offsets",
        None,
    );

    h.step("stop-sink", "PUT", "/connectors/sink{sfx}/stop", None);
    h.settle_state(sink, "STOPPED", Some(0));
    h.settle("the sink's offsets", "/connectors/sink{sfx}/offsets", |o| {
        o["offsets"][0]["offset"]["kafka_offset"] == 3
    });
    h.step("offsets-sink", "GET", "/connectors/sink{sfx}/offsets", None);
    h.step(
        "offsets-patch-sink",
        "PATCH",
        "/connectors/sink{sfx}/offsets",
        Some(json!({"offsets": [{
            "partition": {"kafka_topic": "t{sfx}", "kafka_partition": 0},
            "offset": {"kafka_offset": 1}
        }]})),
    );
    h.step(
        "offsets-sink-patched",
        "GET",
        "/connectors/sink{sfx}/offsets",
        None,
    );
    h.step(
        "offsets-delete-sink",
        "DELETE",
        "/connectors/sink{sfx}/offsets",
        None,
    );
    h.step(
        "offsets-sink-deleted",
        "GET",
        "/connectors/sink{sfx}/offsets",
        None,
    );
    // FileStreamSource's alterOffsets checks what a PATCH stores (the source is still
    // STOPPED): a refusal is Kafka Connect's ConnectException, and nothing is stored.
    h.step(
        "offsets-patch-source-no-filename",
        "PATCH",
        "/connectors/source{sfx}/offsets",
        Some(json!({"offsets": [
            {"partition": {"file": "{dir}/in.txt"}, "offset": {"position": 6}}
        ]})),
    );
    h.step(
        "offsets-patch-source-bad-position",
        "PATCH",
        "/connectors/source{sfx}/offsets",
        Some(json!({"offsets": [
            {"partition": {"filename": "{dir}/in.txt"}, "offset": {"position": "6"}}
        ]})),
    );
    h.step(
        "offsets-patch-source-negative",
        "PATCH",
        "/connectors/source{sfx}/offsets",
        Some(json!({"offsets": [
            {"partition": {"filename": "{dir}/in.txt"}, "offset": {"position": -1}}
        ]})),
    );
    h.step(
        "offsets-source-after-refusals",
        "GET",
        "/connectors/source{sfx}/offsets",
        None,
    );
    h.step(
        "resume-source",
        "PUT",
        "/connectors/source{sfx}/resume",
        None,
    );
    h.step("resume-sink", "PUT", "/connectors/sink{sfx}/resume", None);
    h.settle_state(source, "RUNNING", Some(1));
    h.settle_state(sink, "RUNNING", Some(2));

    // Restarts.
    h.step("restart", "POST", "/connectors/source{sfx}/restart", None);
    h.settle_state(source, "RUNNING", Some(1));
    h.step(
        "restart-include-tasks",
        "POST",
        "/connectors/source{sfx}/restart?includeTasks=true",
        None,
    );
    h.settle_state(source, "RUNNING", Some(1));
    h.step(
        "restart-only-failed",
        "POST",
        "/connectors/source{sfx}/restart?includeTasks=true&onlyFailed=true",
        None,
    );
    h.step(
        "restart-task",
        "POST",
        "/connectors/source{sfx}/tasks/0/restart",
        None,
    );
    h.settle_state(source, "RUNNING", Some(1));
    h.step(
        "restart-task-unknown",
        "POST",
        "/connectors/source{sfx}/tasks/7/restart",
        None,
    );
    h.step(
        "restart-unknown",
        "POST",
        "/connectors/nope{sfx}/restart",
        None,
    );

    // Loggers (GET all: only root and the logger set here are compared; which other loggers
    // Kafka Connect lists depends on the Java classes loaded so far).
    const RUNTIME: &str = "org.apache.kafka.connect.runtime";
    h.step_view(
        "loggers",
        "GET",
        "/admin/loggers",
        None,
        View::Keys(&["root", RUNTIME]),
    );
    h.step("logger-root", "GET", "/admin/loggers/root", None);
    h.step_view(
        "logger-put",
        "PUT",
        "/admin/loggers/org.apache.kafka.connect.runtime",
        Some(json!({"level": "DEBUG"})),
        View::Elements(&[RUNTIME]),
    );
    h.step(
        "logger-get",
        "GET",
        "/admin/loggers/org.apache.kafka.connect.runtime",
        None,
    );
    h.step_view(
        "loggers-after-put",
        "GET",
        "/admin/loggers",
        None,
        View::Keys(&["root", RUNTIME]),
    );
    h.step(
        "logger-put-bad-level",
        "PUT",
        "/admin/loggers/org.apache.kafka.connect.runtime",
        Some(json!({"level": "LOUD"})),
    );
    h.step(
        "logger-put-no-level",
        "PUT",
        "/admin/loggers/org.apache.kafka.connect.runtime",
        Some(json!({})),
    );
    h.step_view(
        "logger-put-back",
        "PUT",
        "/admin/loggers/org.apache.kafka.connect.runtime",
        Some(json!({"level": "INFO"})),
        View::Elements(&[RUNTIME]),
    );
    h.step(
        "logger-unknown",
        "GET",
        "/admin/loggers/com.example.nope",
        None,
    );

    // Unknown paths and methods.
    h.step("unknown-path", "GET", "/nope", None);
    h.step(
        "unknown-subpath",
        "GET",
        "/connectors/source{sfx}/nope",
        None,
    );
    h.step("method-root", "DELETE", "/", None);
    h.step("method-connectors", "PUT", "/connectors", Some(json!({})));
    h.step(
        "method-connector",
        "POST",
        "/connectors/source{sfx}",
        Some(json!({})),
    );
    h.step(
        "method-plugins",
        "POST",
        "/connector-plugins",
        Some(json!({})),
    );

    // Delete.
    h.step("delete-source", "DELETE", "/connectors/source{sfx}", None);
    h.step("delete-sink", "DELETE", "/connectors/sink{sfx}", None);
    h.step("delete-again", "DELETE", "/connectors/source{sfx}", None);
    h.step("info-deleted", "GET", "/connectors/source{sfx}", None);
    h.step_view("list-empty", "GET", "/connectors", None, View::Sorted);
    h.step("root-end", "GET", "/", None);
}

/// The comparison machinery itself, without Java or a broker.
mod machinery {
    use super::*;

    fn side() -> Side {
        Side {
            label: "test",
            client: Client::local(1),
            port: 18083,
            sfx: "kc-1-2-3".to_owned(),
            dir: PathBuf::from("/tmp/.tmpAbc"),
            versions: vec!["4.3.1".to_owned()],
        }
    }

    fn diffs(kafka: Value, ours: Value) -> Vec<(String, Value, Value)> {
        let mut out = Vec::new();
        diff("$", &kafka, &ours, &mut out);
        out
    }

    fn harness(differences: Vec<Difference>) -> Harness {
        Harness {
            kc: side(),
            rs: side(),
            differences,
            steps: 1,
            kafka_status: Vec::new(),
        }
    }

    fn difference(step: &str, path: &str) -> Difference {
        Difference {
            step: step.to_owned(),
            request: "GET /".to_owned(),
            path: path.to_owned(),
            kafka: "1".to_owned(),
            ours: "2".to_owned(),
        }
    }

    fn deviation(step: &str, path: &str) -> Deviation {
        Deviation {
            step: step.to_owned(),
            path: path.to_owned(),
            reason: "because".to_owned(),
            pending: None,
        }
    }

    #[test]
    fn glob_matches_runs_of_characters() {
        assert!(glob("*.version", "$.connector.version"));
        assert!(glob("*.version", "$.tasks[0].version"));
        assert!(!glob(
            "*.version",
            "$.configs[name=key.converter.plugin.version]"
        ));
        assert!(glob(
            "*[name=*.plugin.version]",
            "$[name=key.converter.plugin.version]"
        ));
        assert!(glob("create-*", "create-source"));
        assert!(!glob("create-*", "config-put-create"));
        assert!(glob("status", "status"));
        assert!(!glob("status", "status-paused"));
        assert!(glob("a*b*c", "a-b-b-c"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn objects_compare_key_by_key_in_any_order() {
        assert!(diffs(
            json!({"a": 1, "b": {"c": 2}}),
            json!({"b": {"c": 2}, "a": 1})
        )
        .is_empty());
        assert_eq!(
            diffs(json!({"a": 1, "b": 2}), json!({"a": 3, "c": 4})),
            [
                ("$.a".to_owned(), json!(1), json!(3)),
                ("$.b".to_owned(), json!(2), json!("(absent)")),
                ("$.c".to_owned(), json!("(absent)"), json!(4)),
            ]
        );
    }

    #[test]
    fn arrays_compare_in_order_and_named_elements_by_name() {
        assert_eq!(
            diffs(json!([1, 2]), json!([2, 1, 3])),
            [
                ("$[0]".to_owned(), json!(1), json!(2)),
                ("$[1]".to_owned(), json!(2), json!(1)),
                ("$[2]".to_owned(), json!("(absent)"), json!(3)),
            ]
        );
        let kafka = json!([{"name": "a", "x": 1}, {"name": "b", "x": 2}]);
        let ours = json!([{"name": "b", "x": 2}, {"name": "a", "x": 5}]);
        assert_eq!(
            diffs(kafka, ours),
            [
                (
                    "$[order]".to_owned(),
                    json!(["name=a", "name=b"]),
                    json!(["name=b", "name=a"])
                ),
                ("$[name=a].x".to_owned(), json!(1), json!(5)),
            ]
        );
        let plugins = json!([{"class": "C", "type": "converter"}]);
        assert_eq!(
            diffs(plugins, json!([])),
            [(
                "$[0]".to_owned(),
                json!({"class": "C", "type": "converter"}),
                json!("(absent)")
            )]
        );
        assert_eq!(
            diffs(
                json!([{"class": "C", "type": "sink"}]),
                json!([{"class": "D", "type": "sink"}])
            )
            .iter()
            .map(|d| d.0.as_str())
            .collect::<Vec<_>>(),
            ["$[sink:C]", "$[sink:D]"]
        );
    }

    #[test]
    fn masking_maps_own_names_and_volatile_values_to_placeholders() {
        let s = side();
        let body = json!({
            "sourcekc-1-2-3": {"file": "/tmp/.tmpAbc/in.txt", "loc": "http://127.0.0.1:18083/x"},
            "worker_id": "127.0.0.1:18083",
            "version": "4.3.1",
            "kafka_cluster_id": null,
            "trace": "java.lang.Exception",
            "message": "version='4.3.1'",
        });
        assert_eq!(
            s.mask(&body),
            json!({
                "source{sfx}": {"file": "{dir}/in.txt", "loc": "http://127.0.0.1:{port}/x"},
                "worker_id": "{worker_id}",
                "version": "{version}",
                "kafka_cluster_id": null,
                "trace": "{trace}",
                "message": "version='{version}'",
            })
        );
        assert_eq!(
            s.fill("/connectors/source{sfx}"),
            "/connectors/sourcekc-1-2-3"
        );
        assert_eq!(View::Sorted.apply(json!(["b", "a"])), json!(["a", "b"]));
        assert_eq!(
            View::Keys(&["root"]).apply(json!({"root": 1, "x": 2})),
            json!({"root": 1})
        );
        assert_eq!(
            View::Elements(&["a"]).apply(json!(["a", "b"])),
            json!(["a"])
        );
    }

    #[test]
    fn report_fails_on_unexplained_differences_and_stale_entries() {
        let h = harness(vec![
            difference("status", "$.a"),
            difference("root", "status"),
        ]);
        let (text, pass) = report(
            &h,
            &[deviation("status", "$.*"), deviation("root", "status")],
            "4.3.1",
        );
        assert!(pass, "{text}");
        assert!(text.contains("(0 unexplained)"), "{text}");

        let (text, pass) = report(&h, &[deviation("status", "$.*")], "4.3.1");
        assert!(!pass);
        assert!(
            text.contains("1 unexplained") && text.contains("[root] GET /  status"),
            "{text}"
        );

        let all = [deviation("*", "*"), deviation("gone", "$.x")];
        let (text, pass) = report(&h, &all, "4.3.1");
        assert!(!pass);
        assert!(
            text.contains("1 stale") && text.contains("step \"gone\""),
            "{text}"
        );
    }

    #[test]
    fn the_allow_list_parses_and_every_entry_has_a_reason() {
        let list = load_allow_list();
        assert!(!list.is_empty());
        for d in &list {
            assert!(!d.reason.trim().is_empty(), "{d:?} has no reason");
        }
    }
}
