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
