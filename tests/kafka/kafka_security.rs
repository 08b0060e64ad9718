//! Secure clusters: the FileStream source → Kafka → sink job through TLS (client certificate),
//! SASL_PLAINTEXT (PLAIN, SCRAM-SHA-512) and SASL_SSL (SCRAM-SHA-512, PLAIN with a PEM CA,
//! unsecured OAUTHBEARER) listeners of a real broker, from worker files written as Kafka Connect
//! users write them (JAAS lines, PKCS12 truststores, `producer.`/`consumer.` copies), run by
//! connect-rs and by Apache Kafka Connect alike; refusals (wrong password, wrong CA, expired
//! certificate) fail the tasks with a readable reason; no secret reaches a log line or a REST body.

use crate::support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use support::http::Client;
use support::kafka::{secure_broker, Broker, SecureBroker};
use support::kafka_connect::KafkaConnect;
use support::rest::rest_port;
use support::{binary, stderr, terminate, wait_for, Workdir};

const LINES: usize = 25;
const COPY_TIMEOUT: Duration = Duration::from_secs(120);

/// The Java client settings of one way in, as a Kafka Connect user writes them.
struct Access {
    bootstrap: String,
    client: String,
}

fn jaas(module: &str, user: &str, password: &str) -> String {
    format!("sasl.jaas.config={module} required username=\"{user}\" password=\"{password}\";")
}

const PLAIN: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
const SCRAM: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";

fn truststore(sb: &SecureBroker, file: &str) -> String {
    format!(
        "ssl.truststore.location={}\nssl.truststore.password={}",
        sb.tls_dir.join(file).display(),
        sb.store_password
    )
}

fn ssl_with_client_certificate(sb: &SecureBroker) -> Access {
    Access {
        bootstrap: sb.ssl.clone(),
        client: format!(
            "security.protocol=SSL\n{}\nssl.keystore.type=PKCS12\nssl.keystore.location={}\n\
             ssl.keystore.password={pw}\nssl.key.password={pw}",
            truststore(sb, "truststore.p12"),
            sb.tls_dir.join("client.p12").display(),
            pw = sb.store_password,
        ),
    }
}

fn sasl_plaintext(sb: &SecureBroker, mechanism: &str, module: &str, password: &str) -> Access {
    Access {
        bootstrap: sb.sasl_plaintext.clone(),
        client: format!(
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism={mechanism}\n{}",
            jaas(module, &sb.user, password)
        ),
    }
}

fn sasl_ssl_scram(sb: &SecureBroker, truststore_file: &str) -> Access {
    Access {
        bootstrap: sb.sasl_ssl.clone(),
        client: format!(
            "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n{}\n\
             ssl.truststore.type=PKCS12\n{}",
            jaas(SCRAM, &sb.user, &sb.password),
            truststore(sb, truststore_file)
        ),
    }
}

fn sasl_ssl_plain_pem_ca(sb: &SecureBroker) -> Access {
    Access {
        bootstrap: sb.sasl_ssl.clone(),
        client: format!(
            "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n{}\nssl.truststore.type=PEM\n\
             ssl.truststore.location={}",
            jaas(PLAIN, &sb.user, &sb.password),
            sb.tls_dir.join("ca.pem").display()
        ),
    }
}

fn sasl_ssl_oauthbearer(sb: &SecureBroker) -> Access {
    Access {
        bootstrap: sb.sasl_ssl.clone(),
        client: format!(
            "security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n\
             sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule \
             required unsecuredLoginStringClaim_sub=\"{}\";\n{}",
            sb.user,
            truststore(sb, "truststore.p12")
        ),
    }
}

/// The worker lines both runtimes read (besides `bootstrap.servers` and `listeners`): the
/// client settings for the admin clients (top level), producers and consumers.
fn worker_lines(access: &Access) -> String {
    let prefixed = |prefix: &str| {
        access
            .client
            .lines()
            .map(|l| format!("{prefix}{l}\n"))
            .collect::<String>()
    };
    format!(
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
         value.converter=org.apache.kafka.connect.storage.StringConverter\n\
         offset.storage.file.filename=offsets.json\n\
         offset.flush.interval.ms=500\n{}\n{}{}",
        access.client,
        prefixed("producer."),
        prefixed("consumer.")
    )
}

/// The connectors of the job, as properties: the source also overrides its producer's
/// credentials (`producer.override.*`), as a connector with its own principal does.
fn connectors(access: &Access, topic: &str) -> [(String, String); 2] {
    let overrides: String = access
        .client
        .lines()
        .filter(|l| l.starts_with("sasl.jaas.config="))
        .map(|l| format!("producer.override.{l}\n"))
        .collect();
    [
        (
            "source".to_owned(),
            format!(
                "name=source\nconnector.class=FileStreamSource\ntasks.max=1\nfile=input.txt\n\
                 topic={topic}\n{overrides}"
            ),
        ),
        (
            "sink".to_owned(),
            format!(
                "name=sink\nconnector.class=FileStreamSink\ntasks.max=1\nfile=output.txt\n\
                 topics={topic}\n"
            ),
        ),
    ]
}

fn input() -> String {
    (0..LINES).map(|i| format!("secure line {i}\n")).collect()
}

fn secrets(sb: &SecureBroker) -> Vec<String> {
    vec![sb.password.clone(), sb.store_password.clone()]
}

fn assert_no_secret(what: &str, text: &str, secrets: &[String]) {
    for s in secrets {
        assert!(
            !text.contains(s.as_str()),
            "{what} shows a secret value:\n{text}"
        );
    }
}

/// Spawns `connect-rs --log-level trace standalone` in `w` with its log in `connect-rs.log`.
fn spawn_traced(w: &Workdir, files: &[&Path]) -> Child {
    let log = std::fs::File::create(w.path("connect-rs.log")).expect("log file");
    Command::new(binary())
        .args(["--log-level", "trace", "standalone"])
        .args(files)
        .env_remove("RUST_LOG")
        .current_dir(w.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .spawn()
        .expect("spawn connect-rs")
}

/// Runs the job with connect-rs through `access`; checks the copy, the REST bodies and every
/// log line for secrets.
fn copy_with_connect_rs(sb: &SecureBroker, access: &Access, label: &str) {
    let w = Workdir::new();
    w.write("input.txt", input());
    let topic = Broker::unique(&format!("secure-{label}"));
    let worker = w.write(
        "worker.properties",
        format!(
            "bootstrap.servers={}\nlisteners=http://127.0.0.1:0\n{}",
            access.bootstrap,
            worker_lines(access)
        ),
    );
    let files: Vec<_> = connectors(access, &topic)
        .iter()
        .map(|(name, props)| w.write(&format!("{name}.properties"), props))
        .collect();
    let mut args: Vec<&Path> = vec![&worker];
    args.extend(files.iter().map(|p| p.as_path()));
    let mut child = spawn_traced(&w, &args);
    let output = w.path("output.txt");
    wait_for(
        &format!("{label}: the copy through Kafka"),
        COPY_TIMEOUT,
        || {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("{label}: connect-rs exited with {status}:\n{}", w.log());
            }
            std::fs::read_to_string(&output).unwrap_or_default() == input()
        },
    );
    let port = rest_port(&w.log()).expect("the REST port in the log");
    let client = Client::local(port);
    let secrets = secrets(sb);
    for path in [
        "/connectors?expand=status&expand=info",
        "/connectors/source/config",
        "/connectors/source/tasks",
        "/connectors/sink/status",
    ] {
        let r = client.get(path);
        assert_eq!(r.status, 200, "{label} {path}: {}", r.body);
        assert_no_secret(&format!("{label}: GET {path}"), &r.body, &secrets);
    }
    let status = client.get("/connectors/source/status").json();
    assert_eq!(status["tasks"][0]["state"], "RUNNING", "{label}: {status}");
    terminate(&mut child, Duration::from_secs(30));
    let log = w.log();
    assert!(log.lines().count() > 20, "{label}: a trace log was written");
    assert_no_secret(&format!("{label}: the connect-rs log"), &log, &secrets);
}

/// Runs the same worker lines and connectors with Apache Kafka Connect.
fn copy_with_kafka_connect(access: &Access, label: &str) {
    let w = Workdir::new();
    w.write("input.txt", input());
    let topic = Broker::unique(&format!("secure-java-{label}"));
    let kc = KafkaConnect::start(w.dir.path(), &access.bootstrap, &worker_lines(access));
    for (name, props) in connectors(access, &topic) {
        let config: serde_json::Map<String, Value> = props
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), json!(v)))
            .collect();
        let r = kc
            .client
            .post("/connectors", &json!({"name": name, "config": config}));
        assert_eq!(
            r.status, 201,
            "{label}: Kafka Connect refused {name}: {}",
            r.body
        );
    }
    let output = w.path("output.txt");
    wait_for(
        &format!("{label}: Kafka Connect's copy through Kafka"),
        COPY_TIMEOUT,
        || std::fs::read_to_string(&output).unwrap_or_default() == input(),
    );
}

#[test]
fn tls_with_a_client_certificate() {
    let sb = secure_broker();
    let access = ssl_with_client_certificate(&sb);
    copy_with_connect_rs(&sb, &access, "ssl");
    copy_with_kafka_connect(&access, "ssl");
}

#[test]
fn sasl_plaintext_with_plain_and_scram() {
    let sb = secure_broker();
    let plain = sasl_plaintext(&sb, "PLAIN", PLAIN, &sb.password);
    copy_with_connect_rs(&sb, &plain, "sasl-plain");
    copy_with_kafka_connect(&plain, "sasl-plain");
    let scram = sasl_plaintext(&sb, "SCRAM-SHA-512", SCRAM, &sb.password);
    copy_with_connect_rs(&sb, &scram, "sasl-scram");
    copy_with_kafka_connect(&scram, "sasl-scram");
}

#[test]
fn sasl_ssl_with_scram_plain_and_oauthbearer() {
    let sb = secure_broker();
    let scram = sasl_ssl_scram(&sb, "truststore.p12");
    copy_with_connect_rs(&sb, &scram, "sasl-ssl-scram");
    copy_with_kafka_connect(&scram, "sasl-ssl-scram");
    let plain = sasl_ssl_plain_pem_ca(&sb);
    copy_with_connect_rs(&sb, &plain, "sasl-ssl-plain-pem");
    copy_with_kafka_connect(&plain, "sasl-ssl-plain-pem");
    let oauth = sasl_ssl_oauthbearer(&sb);
    copy_with_connect_rs(&sb, &oauth, "sasl-ssl-oauthbearer");
    copy_with_kafka_connect(&oauth, "sasl-ssl-oauthbearer");
}

/// Runs the job until idle through `access`; returns (exit code, log).
fn run_refused(sb: &SecureBroker, access: &Access, label: &str) -> (i32, String) {
    let w = Workdir::new();
    w.write("input.txt", input());
    let topic = Broker::unique(&format!("refused-{label}"));
    let worker = w.write(
        "worker.properties",
        format!(
            "bootstrap.servers={}\nlisteners=http://127.0.0.1:0\n{}",
            access.bootstrap,
            worker_lines(access)
        ),
    );
    let files: Vec<_> = connectors(access, &topic)
        .iter()
        .map(|(name, props)| w.write(&format!("{name}.properties"), props))
        .collect();
    let mut args: Vec<&Path> = vec![&worker];
    args.extend(files.iter().map(|p| p.as_path()));
    let out = w.run_until_idle("500ms", &args);
    let log = stderr(&out);
    assert!(!log.contains("panicked"), "{label}: {log}");
    assert_no_secret(&format!("{label}: the log"), &log, &secrets(sb));
    (out.status.code().expect("exit code"), log)
}

/// The line of the log that says why the worker did not start: Kafka refused its connection
/// (as Kafka Connect's worker stops when its cluster id lookup fails on an
/// `AuthenticationException`), said at once rather than after `default.api.timeout.ms`.
fn start_refusal(log: &str) -> String {
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("refused the worker: Kafka refused the connection"))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "the refusal is not said once; the log:\n{log}"
    );
    assert!(!log.contains("Kafka unreachable"), "{log}");
    lines[0].to_owned()
}

#[test]
fn refusals_stop_the_worker_at_start_with_a_readable_reason_and_no_secret() {
    let sb = secure_broker();
    let wrong = "wrong-pw-3f9a";
    let wrong_password = sasl_plaintext(&sb, "PLAIN", PLAIN, wrong);
    let (code, log) = run_refused(&sb, &wrong_password, "wrong-password");
    assert_eq!(code, 2, "{log}");
    let failure = start_refusal(&log);
    assert!(
        failure.contains("Authentication failed")
            || failure.contains("Invalid username or password"),
        "{failure}"
    );
    assert!(
        !log.contains(wrong),
        "the wrong password is in the log:\n{log}"
    );

    let wrong_ca = sasl_ssl_scram(&sb, "other-truststore.p12");
    let (code, log) = run_refused(&sb, &wrong_ca, "wrong-ca");
    assert_eq!(code, 2, "{log}");
    let failure = start_refusal(&log);
    assert!(failure.contains("certificate verify failed"), "{failure}");
    assert!(
        failure
            .contains("(the broker's certificate: self-signed certificate in certificate chain)"),
        "{failure}"
    );

    let expired = Access {
        bootstrap: sb.expired.clone(),
        client: format!(
            "security.protocol=SSL\n{}",
            truststore(&sb, "truststore.p12")
        ),
    };
    let (code, log) = run_refused(&sb, &expired, "expired");
    assert_eq!(code, 2, "{log}");
    let failure = start_refusal(&log);
    assert!(failure.contains("certificate verify failed"), "{failure}");
    assert!(
        failure.contains("(the broker's certificate: certificate has expired)"),
        "{failure}"
    );
}

#[test]
fn a_jks_truststore_is_refused_at_start_up_with_the_conversion_command() {
    let sb = secure_broker();
    let jks = Access {
        bootstrap: sb.ssl.clone(),
        client: format!(
            "security.protocol=SSL\n{}",
            truststore(&sb, "truststore.jks")
        ),
    };
    let (code, log) = run_refused(&sb, &jks, "jks");
    assert_eq!(code, 2, "{log}");
    assert!(log.contains("'ssl.truststore.location'"), "{log}");
    assert!(log.contains("keytool -importkeystore"), "{log}");
}
