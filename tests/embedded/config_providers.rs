//! Config providers (KIP-297/421/993) end to end with the real binary on the embedded log:
//! `${file:..}`, `${env:..}` and `${dir:..}` placeholders resolve in the worker file and when
//! connectors and tasks start, stay placeholders in every REST body, and their values appear in
//! no log line (trace level), REST body or error message. Unresolvable placeholders are clear
//! errors naming the key and the placeholder.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use support::http::{Client, Response};
use support::rest::{rest_port, wait_running, Running, STARTUP};
use support::*;

const FILE_SECRET: &str = "S3cr3t-from-file-9f2";
const ENV_SECRET: &str = "tok-from-env-7c1";
const DIR_SECRET: &str = "dir-secret-4e8";
/// The name of a directory whose path a provider gives (to show in no error message).
const SECRET_DIR: &str = "S3cr3tDir-5a1";

/// The secrets and the paths of one test's providers.
struct Secrets {
    props: PathBuf,
    mounted: PathBuf,
    env: Vec<(String, String)>,
}

fn secrets(w: &Workdir, output: &Path) -> Secrets {
    let props = w.write(
        "secrets/app.properties",
        format!("topic.name=provider-topic\nsecret={FILE_SECRET}\n"),
    );
    let input = w.write("input.txt", "first line\nsecond line\n");
    // Kubernetes-style mounted secrets: one file per key, content verbatim.
    w.write("mounted/input.file", input.display().to_string());
    w.write("mounted/db.password", DIR_SECRET);
    Secrets {
        props,
        mounted: w.path("mounted"),
        env: vec![
            (
                "CONNECT_TEST_SINK_FILE".into(),
                output.display().to_string(),
            ),
            ("CONNECT_TEST_TOKEN".into(), ENV_SECRET.into()),
            (
                "CONNECT_TEST_DATA_DIR".into(),
                w.path("provider-data").display().to_string(),
            ),
            ("NOT_ALLOWED_VAR".into(), "not-for-connectors".into()),
        ],
    }
}

/// A worker file with the three providers under three name forms Kafka accepts.
fn worker(w: &Workdir, s: &Secrets, extra: &str) -> PathBuf {
    w.write(
        "worker.properties",
        format!(
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             listeners=http://127.0.0.1:0\n\
             embedded.log.dir=${{env:CONNECT_TEST_DATA_DIR}}\n\
             config.providers=file,env,dir\n\
             config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\n\
             config.providers.file.param.allowed.paths={}\n\
             config.providers.env.class=EnvVarConfigProvider\n\
             config.providers.env.param.allowlist.pattern=CONNECT_TEST_.*\n\
             config.providers.dir.class=Directory\n\
             config.providers.dir.param.allowed.paths={}\n{extra}\n",
            w.path("secrets").display(),
            s.mounted.display()
        ),
    )
}

fn command(w: &Workdir, s: &Secrets, args: &[&str]) -> Command {
    let mut cmd = w.command(args);
    cmd.envs(s.env.iter().map(|(k, v)| (k, v)));
    cmd
}

/// Starts the worker at trace level with `files`; stdout and stderr go to files.
fn start(w: &Workdir, s: &Secrets, files: &[&Path]) -> Running {
    let mut args = vec![
        "--log-level".to_owned(),
        "trace".to_owned(),
        "standalone".to_owned(),
    ];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = command(w, s, &args)
        .stdout(Stdio::from(
            std::fs::File::create(w.path("worker.stdout")).unwrap(),
        ))
        .stderr(Stdio::from(
            std::fs::File::create(w.path("connect-rs.log")).unwrap(),
        ))
        .spawn()
        .expect("spawn connect-rs");
    let mut port = None;
    wait_for("the REST API to listen", STARTUP, || {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("connect-rs exited with {status}; its log:\n{}", w.log());
        }
        port = rest_port(&w.log());
        port.is_some()
    });
    let port = port.unwrap_or_else(|| unreachable!());
    Running {
        child,
        client: Client::local(port),
        port,
    }
}

/// Fails when a secret is in `text`.
#[track_caller]
fn assert_no_secret(what: &str, text: &str) {
    for secret in [FILE_SECRET, ENV_SECRET, DIR_SECRET, SECRET_DIR] {
        let line = text.lines().find(|l| l.contains(secret));
        assert!(line.is_none(), "{what} shows a secret: {line:?}");
    }
}

/// GET `path`, checked for status 200 and for secrets.
fn get(c: &Client, path: &str, bodies: &mut Vec<String>) -> Value {
    let r = c.get(path);
    assert_eq!(r.status, 200, "GET {path}: {}", r.body);
    bodies.push(r.body.clone());
    r.json()
}

#[test]
fn placeholders_resolve_when_tasks_start_and_stay_placeholders_everywhere_else() {
    let w = Workdir::new();
    let output = w.path("output.txt");
    let s = secrets(&w, &output);
    let props = s.props.display().to_string();
    let mounted = s.mounted.display().to_string();
    let configs_file = w.path("connectors.json");
    let worker = worker(
        &w,
        &s,
        &format!("config.storage.file.filename={}", configs_file.display()),
    );
    let source_config = [
        ("name", "provided-source".to_owned()),
        ("connector.class", "FileStreamSource".to_owned()),
        ("tasks.max", "1".to_owned()),
        ("file", format!("${{dir:{mounted}:input.file}}")),
        ("topic", format!("${{file:{props}:topic.name}}")),
        ("my.secret", format!("prefix-${{file:{props}:secret}}")),
        ("db.password", format!("${{dir:{mounted}:db.password}}")),
    ];
    let source = w.write(
        "source.properties",
        source_config
            .iter()
            .map(|(k, v)| format!("{k}={v}\n"))
            .collect::<String>(),
    );
    let mut run = start(&w, &s, &[&worker, &source]);
    let c = run.client;
    let mut bodies = Vec::new();

    // A sink created over REST, reading the topic the file provider names.
    let sink_config = json!({
        "connector.class": "FileStreamSink",
        "tasks.max": "1",
        "file": "${env:CONNECT_TEST_SINK_FILE}",
        "topics": format!("${{file:{props}:topic.name}}"),
        "api.token": "${env:CONNECT_TEST_TOKEN}",
        "ssl.key.password": format!("${{file:{props}:secret}}"),
    });
    let r = c.put("/connectors/provided-sink/config", &sink_config);
    assert_eq!(r.status, 201, "{}", r.body);
    bodies.push(r.body.clone());
    assert_eq!(r.json()["config"]["api.token"], "${env:CONNECT_TEST_TOKEN}");

    // The data flows through the resolved file names and topic.
    wait_for("the sink to write both lines", STARTUP, || {
        std::fs::read_to_string(&output).is_ok_and(|t| t == "first line\nsecond line\n")
    });
    wait_running(&c, "provided-source", STARTUP);
    wait_running(&c, "provided-sink", STARTUP);
    // The worker file's own placeholder: the embedded log lives where the env var says.
    assert!(w.path("provider-data").join("provider-topic-0").is_dir());

    // Configurations are shown as written, placeholders kept, also for secret-named keys.
    let shown = get(&c, "/connectors/provided-source/config", &mut bodies);
    for (k, v) in &source_config {
        assert_eq!(shown[*k], *v.as_str(), "{k}");
    }
    let shown = get(&c, "/connectors/provided-sink/config", &mut bodies);
    for (k, v) in sink_config.as_object().unwrap() {
        assert_eq!(&shown[k], v, "{k}");
    }
    // Task configurations too (Kafka's reverse transformation).
    let tasks = get(&c, "/connectors/provided-source/tasks", &mut bodies);
    let task = &tasks[0]["config"];
    assert_eq!(task["file"], format!("${{dir:{mounted}:input.file}}"));
    assert_eq!(task["topic"], format!("${{file:{props}:topic.name}}"));
    assert_eq!(
        task["my.secret"],
        format!("prefix-${{file:{props}:secret}}")
    );
    let tasks = get(&c, "/connectors/provided-sink/tasks", &mut bodies);
    assert_eq!(tasks[0]["config"]["file"], "${env:CONNECT_TEST_SINK_FILE}");
    assert_eq!(tasks[0]["config"]["api.token"], "${env:CONNECT_TEST_TOKEN}");
    for path in [
        "/connectors?expand=info&expand=status",
        "/connectors/provided-source",
        "/connectors/provided-sink/status",
        "/connectors/provided-source/topics",
        "/connectors/provided-source/offsets",
    ] {
        get(&c, path, &mut bodies);
    }
    // A task restart resolves the stored task configuration again.
    let r = c.post("/connectors/provided-sink/tasks/0/restart", &json!({}));
    assert!(r.status == 204 || r.status == 200, "{}", r.body);
    wait_running(&c, "provided-sink", STARTUP);

    let status = terminate(&mut run.child, Duration::from_secs(60));
    assert!(status.success(), "{status}; log:\n{}", w.log());
    for body in &bodies {
        assert_no_secret("a REST body", body);
    }
    // REST-created connectors are kept as written.
    let kept = std::fs::read_to_string(&configs_file).unwrap();
    assert!(kept.contains("${env:CONNECT_TEST_TOKEN}"), "{kept}");
    assert_no_secret("the configurations file", &kept);
    let log = w.log();
    assert!(
        log.contains("TRACE") || log.contains("DEBUG"),
        "trace level is on"
    );
    assert_no_secret("the worker's stderr", &log);
    assert_no_secret(
        "the worker's stdout",
        &std::fs::read_to_string(w.path("worker.stdout")).unwrap_or_default(),
    );
}

#[test]
fn unresolvable_placeholders_are_clear_errors_naming_key_and_placeholder() {
    let w = Workdir::new();
    let output = w.path("output.txt");
    let s = secrets(&w, &output);
    let props = s.props.display().to_string();

    // Worker file: an unknown provider class, and a placeholder of a provider not configured.
    let bad_worker = worker(
        &w,
        &s,
        "config.providers.vault.class=com.example.VaultConfigProvider\n\
         offset.flush.interval.ms=${vault:secret/data:interval}\n",
    );
    let out = command(&w, &s, &["standalone", "--exit-when-idle=300ms"])
        .arg(&bad_worker)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "offset.flush.interval.ms: Cannot resolve ${vault:secret/data:interval} for configuration offset.flush.interval.ms: no config provider 'vault' is configured (config.providers=dir,env,file)"
        ),
        "{err}"
    );
    let listed = worker(
        &w,
        &s,
        "config.providers=file,vault\nconfig.providers.vault.class=Vault\n",
    );
    let out = command(&w, &s, &["standalone", "--exit-when-idle=300ms"])
        .arg(&listed)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("config.providers.vault.class: Invalid value Vault for configuration config.providers.vault.class: Failed to find any class that implements ConfigProvider"),
        "{err}"
    );

    // A connector file whose placeholders do not resolve: start-up fails naming each.
    let worker = worker(&w, &s, "");
    let connector = w.write(
        "bad-source.properties",
        format!(
            "name=bad-source\nconnector.class=FileStreamSource\ntopic=t\nfile=/tmp/x\n\
             my.secret=${{file:{props}:missing.key}}\n\
             my.token=${{env:NOT_ALLOWED_VAR}}\n\
             outside=${{file:/etc/passwd:root}}\n"
        ),
    );
    let out = command(&w, &s, &["standalone", "--exit-when-idle=300ms"])
        .arg(&worker)
        .arg(&connector)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    for expected in [
        format!("line 5: my.secret: Cannot resolve ${{file:{props}:missing.key}} for configuration my.secret: the file {props} has no key 'missing.key'"),
        "line 6: my.token: Cannot resolve ${env:NOT_ALLOWED_VAR} for configuration my.token: the environment variable NOT_ALLOWED_VAR does not match allowlist.pattern".to_owned(),
        "line 7: outside: Cannot resolve ${file:/etc/passwd:root} for configuration outside: the path /etc/passwd is not in allowed.paths".to_owned(),
    ] {
        assert!(err.contains(&expected), "missing {expected:?} in:\n{err}");
    }
    assert!(!err.contains("not-for-connectors"), "{err}");

    // Over REST: 400 naming the key and the placeholder.
    let mut run = start(&w, &s, &[&worker]);
    let c = run.client;
    let r = c.put(
        "/connectors/rest-bad/config",
        &json!({
            "connector.class": "FileStreamSink",
            "topics": "t",
            "file": format!("${{file:{props}:missing.key}}"),
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let message = r.json()["message"].as_str().unwrap_or_default().to_owned();
    assert!(
        message.contains(&format!(
            "Cannot resolve ${{file:{props}:missing.key}} for configuration file: the file {props} has no key 'missing.key'"
        )),
        "{message}"
    );

    // A connector that fails to start because of a resolved value: its trace (and log line)
    // show the placeholder instead.
    std::fs::create_dir(w.path(SECRET_DIR)).unwrap();
    w.write("mounted/dir.name", w.path(SECRET_DIR).display().to_string());
    let mounted = s.mounted.display().to_string();
    let r = c.put(
        "/connectors/dir-source/config",
        &json!({
            "connector.class": "FileStreamSource",
            "topic": "t",
            "file": format!("${{dir:{mounted}:dir.name}}"),
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let r = c.get("/connectors/dir-source/status");
    let status = r.json();
    assert_eq!(status["connector"]["state"], "FAILED", "{status}");
    let trace = status["connector"]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains(&format!(
            "${{dir:{mounted}:dir.name}} is a directory, not a file that can be read line by line"
        )),
        "{trace}"
    );
    assert_no_secret("the status of a failed connector", &r.body);

    // Validation resolves, reports the placeholder that does not resolve on its key, and
    // shows values as given.
    let r = c.put(
        "/connector-plugins/FileStreamSink/config/validate",
        &json!({
            "name": "validated",
            "connector.class": "FileStreamSink",
            "topics": "t",
            "file": "${env:CONNECT_TEST_SINK_FILE}",
            "tasks.max": format!("${{file:{props}:missing.key}}"),
        }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        !r.body.contains(&output.display().to_string()),
        "{}",
        r.body
    );
    let v = r.json();
    assert_eq!(v["error_count"], 1, "{v}");
    let value = |name: &str| {
        v["configs"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["value"]["name"] == name))
            .map(|c| c["value"].clone())
            .unwrap_or_default()
    };
    assert_eq!(value("file")["value"], "${env:CONNECT_TEST_SINK_FILE}");
    assert_eq!(value("file")["errors"], json!([]));
    assert_eq!(
        value("tasks.max")["errors"],
        json!([format!(
            "Cannot resolve ${{file:{props}:missing.key}} for configuration tasks.max: the file {props} has no key 'missing.key'"
        )])
    );

    // `config.action.reload` is checked (`none` and `restart` only).
    let r = c.put(
        "/connectors/reload/config",
        &json!({
            "connector.class": "FileStreamSink",
            "topics": "t",
            "config.action.reload": "sometimes",
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body.contains(
            "Invalid value sometimes for configuration config.action.reload: String must be one of: none, restart"
        ),
        "{}",
        r.body
    );

    // Resolvable when created; the key disappears; the task restart fails with the reason.
    let r = c.put(
        "/connectors/rest-sink/config",
        &json!({
            "config.action.reload": "none",
            "connector.class": "FileStreamSink",
            "topics": "t",
            "file": "${env:CONNECT_TEST_SINK_FILE}",
            "my.secret": format!("${{file:{props}:secret}}"),
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    wait_running(&c, "rest-sink", STARTUP);
    std::fs::write(&s.props, "topic.name=provider-topic\n").unwrap();
    let r = c.post("/connectors/rest-sink/tasks/0/restart", &json!({}));
    assert!(r.status == 204 || r.status == 200, "{}", r.body);
    let mut status = Value::Null;
    wait_for("the task to fail", STARTUP, || {
        let r: Response = c.get("/connectors/rest-sink/status");
        status = r.json();
        status["tasks"][0]["state"] == "FAILED"
    });
    let trace = status["tasks"][0]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains(&format!(
            "my.secret: Cannot resolve ${{file:{props}:secret}} for configuration my.secret: the file {props} has no key 'secret'"
        )),
        "{trace}"
    );
    let status = terminate(&mut run.child, Duration::from_secs(60));
    assert!(status.success(), "{status}");
    assert_no_secret("the worker's log", &w.log());
}

/// A random token, so that a secret found in an output can only have come from the provider.
fn random_token(prefix: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{prefix}{:016x}", h.finish())
}

/// Each line of `text` (named `what`) that shows one of `secrets`, into `leaks`.
fn find_leaks(leaks: &mut Vec<String>, secrets: &[&str], what: &str, text: &str) {
    for line in text.lines() {
        if let Some(secret) = secrets.iter().find(|s| line.contains(**s)) {
            leaks.push(format!("{what} shows {secret}: {line}"));
        }
    }
}

/// Issue 34 item 2: values resolved from `${file:..}`, `${dir:..}` and `${env:..}` — a
/// `topics.regex` that is invalid, a topic name that is invalid, a topic that is created, a
/// transform field name that makes records fail into a dead letter queue, a file path — appear
/// in no REST answer (validate, create 400, status traces, configs, metrics), no log line at
/// TRACE (errors.log included), no dead letter queue header and no `validate`/`doctor` output.
/// `${dir:..}` values keep their trailing newline, which must not defeat the masking.
#[test]
fn resolved_secrets_appear_in_no_answer_log_header_or_cli_output() {
    let w = Workdir::new();
    let regex = random_token("Rgx");
    let bad_topic = random_token("Btp");
    let topic = random_token("Tpc");
    let field = random_token("Fld");
    let path_part = random_token("Pth");
    std::fs::create_dir(w.path(&path_part)).unwrap();
    // The file path a placeholder gives (the directory's name alone is no secret: a file
    // watcher's trace of the work directory names it).
    let out_file = w.path(&path_part).join("out.txt");
    let out_path = out_file.display().to_string();
    let all = [
        regex.as_str(),
        bad_topic.as_str(),
        topic.as_str(),
        field.as_str(),
        out_path.as_str(),
    ];
    // Mounted secrets keep their trailing newline (as Kafka's DirectoryConfigProvider does).
    w.write("mounted/regex", format!("{regex}-(\n"));
    w.write("mounted/bad.topic", format!("bad topic {bad_topic}\n"));
    w.write("mounted/field", format!("{field}\n"));
    let props = w.write("secrets/app.properties", format!("topic.name={topic}\n"));
    let input = w.write(
        "input.json",
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"a\",\"type\":\"string\"}]},\"payload\":{\"a\":\"x\"}}\n"
            .repeat(3),
    );
    let s = Secrets {
        props: props.clone(),
        mounted: w.path("mounted"),
        env: vec![
            ("CONNECT_TEST_OUT".into(), out_file.display().to_string()),
            (
                "CONNECT_TEST_DATA_DIR".into(),
                w.path("data").display().to_string(),
            ),
        ],
    };
    let worker = worker(&w, &s, "offset.flush.interval.ms=100\n");
    let mounted = s.mounted.display().to_string();
    let props = props.display().to_string();
    let source = w.write(
        "source.properties",
        format!(
            "name=topic-source\nconnector.class=FileStreamSource\ntasks.max=1\n\
             file={}\ntopic=${{file:{props}:topic.name}}\n",
            input.display()
        ),
    );
    let sink = w.write(
        "sink.properties",
        format!(
            "name=dlq-sink\nconnector.class=FileStreamSink\ntasks.max=1\n\
             topics=${{file:{props}:topic.name}}\nfile=${{env:CONNECT_TEST_OUT}}\n\
             value.converter=org.apache.kafka.connect.json.JsonConverter\n\
             value.converter.schemas.enable=true\n\
             transforms=key\n\
             transforms.key.type=org.apache.kafka.connect.transforms.ValueToKey\n\
             transforms.key.fields=${{dir:{mounted}:field}}\n\
             errors.tolerance=all\nerrors.log.enable=true\nerrors.log.include.messages=true\n\
             errors.deadletterqueue.topic.name=dlq\n\
             errors.deadletterqueue.topic.replication.factor=1\n\
             errors.deadletterqueue.context.headers.enable=true\n"
        ),
    );
    let regex_sink = json!({
        "name": "regex-sink",
        "connector.class": "FileStreamSink",
        "topics.regex": format!("${{dir:{mounted}:regex}}"),
        "file": "${env:CONNECT_TEST_OUT}",
    });
    let regex_file = w.write(
        "regex-sink.json",
        serde_json::to_string(&regex_sink).unwrap(),
    );
    let bad_topic_file = w.write(
        "bad-topic.properties",
        format!(
            "name=bad-topic\nconnector.class=FileStreamSource\nfile={}\n\
             topic=${{dir:{mounted}:bad.topic}}\n",
            input.display()
        ),
    );

    let mut run = start(&w, &s, &[&worker, &source, &sink]);
    let c = run.client;
    let mut answers: Vec<(String, String)> = Vec::new();
    let mut keep = |what: &str, r: &Response| answers.push((what.to_owned(), r.body.clone()));

    // An invalid topics.regex from a placeholder: validate and create name it without the value.
    let r = c.put(
        "/connector-plugins/FileStreamSink/config/validate",
        &regex_sink,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["error_count"], 1, "{}", r.body);
    keep("validate", &r);
    let r = c.post(
        "/connectors",
        &json!({"name": "regex-sink", "config": regex_sink}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("topics.regex"), "{}", r.body);
    keep("POST /connectors", &r);

    // An invalid topic name from a placeholder: refused (400) naming it without the value.
    let r = c.put(
        "/connectors/bad-topic-source/config",
        &json!({
            "connector.class": "FileStreamSource",
            "file": input.display().to_string(),
            "topic": format!("${{dir:{mounted}:bad.topic}}"),
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    keep("PUT bad-topic-source", &r);
    // Records routed to it: the task fails, its trace names the placeholder.
    let placeholder = format!("${{dir:{mounted}:bad.topic}}");
    let r = c.put(
        "/connectors/routed-source/config",
        &json!({
            "connector.class": "FileStreamSource",
            "file": input.display().to_string(),
            "topic": "routed",
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": ".*",
            "transforms.route.replacement": placeholder,
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    keep("PUT routed-source", &r);
    wait_for("the routed task to fail", STARTUP, || {
        c.get("/connectors/routed-source/status").json()["tasks"][0]["state"] == "FAILED"
    });
    let r = c.get("/connectors/routed-source/status");
    let trace = r.json()["tasks"][0]["trace"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    keep("status of routed-source", &r);

    // Records fail in the transform (no such field) into the dead letter queue, logged.
    wait_for("three records to fail into the DLQ", STARTUP, || {
        w.log()
            .matches("Error encountered in task dlq-sink-0")
            .count()
            >= 3
    });
    wait_running(&c, "topic-source", STARTUP);
    for path in [
        "/connectors?expand=info&expand=status",
        "/connectors/dlq-sink/status",
        "/connectors/dlq-sink/config",
        "/connectors/dlq-sink/tasks",
        "/connectors/dlq-sink/topics",
        "/connectors/topic-source/topics",
        "/connectors/topic-source/offsets",
        "/metrics",
    ] {
        let r = c.get(path);
        assert_eq!(r.status, 200, "GET {path}: {}", r.body);
        keep(path, &r);
    }
    let status = terminate(&mut run.child, Duration::from_secs(60));
    assert!(status.success(), "{status}; log:\n{}", w.log());
    let mut leaks = Vec::new();
    for (what, body) in &answers {
        find_leaks(&mut leaks, &all, &format!("the answer to {what}"), body);
    }
    let log = w.log();
    assert!(log.contains("TRACE"), "trace level is on");
    find_leaks(&mut leaks, &all, "the worker's log", &log);
    find_leaks(
        &mut leaks,
        &all,
        "the worker's stdout",
        &std::fs::read_to_string(w.path("worker.stdout")).unwrap_or_default(),
    );

    // The dead letter queue's context headers (`topics` reads the worker file as written).
    let reader = w.write(
        "reader.properties",
        format!("embedded.log.dir={}\n", w.path("data").display()),
    );
    let reader_arg = reader.display().to_string();
    let worker_arg = worker.display().to_string();
    let read = command(
        &w,
        &s,
        &[
            "topics",
            "read",
            "dlq",
            "--from-beginning",
            "--timeout-ms",
            "200",
            "--worker",
            &reader_arg,
        ],
    )
    .output()
    .unwrap();
    assert!(read.status.success(), "{}", support::stderr(&read));
    let records = support::stdout(&read);
    let count = records
        .lines()
        .filter(|l| l.starts_with("Partition:"))
        .count();
    assert_eq!(count, 3, "{records}");
    // The transform's error names the field by its placeholder.
    assert!(
        records.contains(&format!(
            "__connect.errors.exception.message:Field does not exist: ${{dir:{mounted}:field}}"
        )),
        "{records}"
    );
    find_leaks(&mut leaks, &all, "the dead letter queue", &records);

    // The command line tools, at trace level.
    let regex_arg = regex_file.display().to_string();
    let sink_arg = sink.display().to_string();
    let bad_arg = bad_topic_file.display().to_string();
    for args in [
        vec![
            "--log-level",
            "trace",
            "validate",
            "--worker",
            &worker_arg,
            &regex_arg,
            &bad_arg,
        ],
        vec![
            "--log-level",
            "trace",
            "validate",
            "--format",
            "json",
            "--worker",
            &worker_arg,
            &regex_arg,
            &sink_arg,
        ],
        vec![
            "--log-level",
            "trace",
            "doctor",
            &worker_arg,
            &regex_arg,
            &sink_arg,
            &bad_arg,
        ],
        vec![
            "--log-level",
            "trace",
            "doctor",
            "--format",
            "json",
            &worker_arg,
            &regex_arg,
            &bad_arg,
        ],
    ] {
        let out = command(&w, &s, &args).output().unwrap();
        let (o, e) = (support::stdout(&out), support::stderr(&out));
        assert!(o.contains("topics.regex"), "{args:?}: {o}\n{e}");
        find_leaks(&mut leaks, &all, &format!("the output of {args:?}"), &o);
        find_leaks(&mut leaks, &all, &format!("the stderr of {args:?}"), &e);
    }
    if !trace.contains(&placeholder) {
        leaks.push(format!(
            "the routed task's trace lacks {placeholder}: {trace}"
        ));
    }
    assert!(
        leaks.is_empty(),
        "{} lines show resolved secrets:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}
