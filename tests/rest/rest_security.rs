//! The REST server's security, driving the real binary: https listeners (PKCS12 from
//! `openssl`, truststores from `keytool`, JKS refused), client certificates, basic
//! authentication from a JAAS file in `KAFKA_OPTS`, CORS, response header rules, the request
//! size limit, no secret in the trace log, admin listeners with their own TLS, and connections
//! that idle or trickle. Requests are made with `curl` (raw sockets for the slow clients).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use support::{wait_for, Workdir};

const STORE_PASSWORD: &str = "Store-Pass-4711";
const TRUST_PASSWORD: &str = "Trust-Pass-0815";
const USER_PASSWORD: &str = "Wonder-Land-77";
const EXTENSION: &str =
    "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension";

fn run(what: &str, cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA, a server certificate for 127.0.0.1/localhost, a client certificate, an unrelated CA,
/// and stores made from them.
struct Pki {
    dir: PathBuf,
}

impl Pki {
    fn new(w: &Workdir) -> Self {
        let dir = w.path("pki");
        std::fs::create_dir_all(&dir).unwrap();
        let pki = Self { dir };
        let ossl = |what: &str, args: &[&str]| {
            run(
                what,
                Command::new("openssl").args(args).current_dir(&pki.dir),
            )
        };
        for ca in ["ca", "other-ca"] {
            ossl(
                "CA",
                &[
                    "req",
                    "-x509",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:P-256",
                    "-nodes",
                    "-keyout",
                    &format!("{ca}.key"),
                    "-out",
                    &format!("{ca}.pem"),
                    "-days",
                    "2",
                    "-subj",
                    &format!("/CN={ca}"),
                ],
            );
        }
        std::fs::write(
            pki.dir.join("server.ext"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
        )
        .unwrap();
        std::fs::write(pki.dir.join("client.ext"), "extendedKeyUsage=clientAuth\n").unwrap();
        for leaf in ["server", "client"] {
            ossl(
                "CSR",
                &[
                    "req",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:P-256",
                    "-nodes",
                    "-keyout",
                    &format!("{leaf}.key"),
                    "-out",
                    &format!("{leaf}.csr"),
                    "-subj",
                    &format!("/CN={leaf}"),
                ],
            );
            ossl(
                "sign",
                &[
                    "x509",
                    "-req",
                    "-in",
                    &format!("{leaf}.csr"),
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-days",
                    "2",
                    "-out",
                    &format!("{leaf}.pem"),
                    "-extfile",
                    &format!("{leaf}.ext"),
                ],
            );
        }
        ossl(
            "PKCS12 keystore",
            &[
                "pkcs12",
                "-export",
                "-in",
                "server.pem",
                "-inkey",
                "server.key",
                "-certfile",
                "ca.pem",
                "-name",
                "server",
                "-passout",
                &format!("pass:{STORE_PASSWORD}"),
                "-out",
                "server.p12",
            ],
        );
        let keytool = |what: &str, args: &[&str]| {
            run(
                what,
                Command::new("keytool").args(args).current_dir(&pki.dir),
            )
        };
        keytool(
            "PKCS12 truststore",
            &[
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-file",
                "ca.pem",
                "-keystore",
                "trust.p12",
                "-storetype",
                "PKCS12",
                "-storepass",
                TRUST_PASSWORD,
            ],
        );
        keytool(
            "JKS keystore",
            &[
                "-importkeystore",
                "-srckeystore",
                "server.p12",
                "-srcstoretype",
                "PKCS12",
                "-srcstorepass",
                STORE_PASSWORD,
                "-destkeystore",
                "server.jks",
                "-deststoretype",
                "JKS",
                "-deststorepass",
                STORE_PASSWORD,
            ],
        );
        pki
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    /// Worker lines for the PKCS12 keystore under `prefix`.
    fn keystore(&self, prefix: &str) -> String {
        format!(
            "{prefix}ssl.keystore.type=PKCS12\n{prefix}ssl.keystore.location={}\n\
             {prefix}ssl.keystore.password={STORE_PASSWORD}\n{prefix}ssl.key.password={STORE_PASSWORD}\n",
            self.path("server.p12")
        )
    }
}

/// A worker started with `--log-level trace` and extra environment; killed on drop.
struct Worker {
    child: Child,
    log: PathBuf,
}

impl Drop for Worker {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Worker {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The port of `REST API listening on SCHEME://127.0.0.1:PORT`.
    fn port(&self, scheme: &str) -> u16 {
        self.port_after(&format!("REST API listening on {scheme}://127.0.0.1:"))
    }

    /// The port of `REST admin endpoints listening on SCHEME://HOST:PORT`.
    fn admin_port(&self, scheme: &str, host: &str) -> u16 {
        self.port_after(&format!(
            "REST admin endpoints listening on {scheme}://{host}:"
        ))
    }

    fn port_after(&self, marker: &str) -> u16 {
        let log = self.log();
        let at = log.find(marker).expect("listening line") + marker.len();
        log[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .expect("port")
    }
}

fn command(w: &Workdir, worker_file: &Path, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(support::binary());
    cmd.args(["--log-level", "trace", "standalone"])
        .arg(worker_file)
        .env_remove("RUST_LOG")
        .env_remove("KAFKA_OPTS")
        .envs(env.iter().copied())
        .current_dir(w.dir.path());
    cmd
}

fn start(w: &Workdir, extra: &str, env: &[(&str, &str)], schemes: &[&str]) -> Worker {
    let worker_file = w.write(
        "worker.properties",
        format!(
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             embedded.log.dir={}\n{extra}\n",
            w.path("data").display()
        ),
    );
    let log = w.path("worker.log");
    let child = command(w, &worker_file, env)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("spawn connect-rs");
    let mut worker = Worker { child, log };
    wait_for("the REST listeners", support::rest::STARTUP, || {
        if let Ok(Some(status)) = worker.child.try_wait() {
            panic!("connect-rs exited with {status}: {}", worker.log());
        }
        let log = worker.log();
        schemes
            .iter()
            .all(|s| log.contains(&format!("REST API listening on {s}://")))
    });
    worker
}

/// Start-up that must fail: (exit code, stderr).
fn start_fails(w: &Workdir, extra: &str, env: &[(&str, &str)]) -> (i32, String) {
    let worker_file = w.write(
        "bad-worker.properties",
        format!(
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             embedded.log.dir={}\n{extra}\n",
            w.path("data-bad").display()
        ),
    );
    let out = command(w, &worker_file, env).output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn curl(args: &[&str]) -> Output {
    Command::new("curl")
        .args(["-sS", "--max-time", "20", "-i"])
        .args(args)
        .output()
        .expect("curl")
}

/// (status, headers lower-cased, body) of a successful curl -i.
fn reply(out: &Output) -> (u16, String, String) {
    assert!(
        out.status.success(),
        "curl failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (status, head.to_ascii_lowercase(), body.to_owned())
}

fn assert_no_secret(text: &str, secrets: &[&str], what: &str) {
    for s in secrets {
        assert!(!text.contains(s), "{what} contains a secret ({s}):\n{text}");
    }
}

#[test]
fn https_listener_serves_with_a_pkcs12_keystore_and_its_ca_only() {
    let w = Workdir::new();
    let pki = Pki::new(&w);
    let worker = start(
        &w,
        &format!("listeners=https://127.0.0.1:0\n{}", pki.keystore("")),
        &[],
        &["https"],
    );
    let url = format!("https://127.0.0.1:{}/", worker.port("https"));
    let (status, _, body) = reply(&curl(&["--cacert", &pki.path("ca.pem"), &url]));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"version\""), "{body}");
    // Also by name (the certificate's SAN).
    let by_name = url.replace("127.0.0.1", "localhost");
    let (status, _, _) = reply(&curl(&["--cacert", &pki.path("ca.pem"), &by_name]));
    assert_eq!(status, 200);
    // A client that trusts another CA refuses the server.
    let out = curl(&["--cacert", &pki.path("other-ca.pem"), &url]);
    assert_eq!(
        out.status.code(),
        Some(60),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Plain http on the https port is not served.
    let out = curl(&[&url.replace("https://", "http://")]);
    let served = out.status.success() && String::from_utf8_lossy(&out.stdout).contains("200 OK");
    assert!(!served, "http answered on the https listener");
    assert_no_secret(&worker.log(), &[STORE_PASSWORD], "the trace log");
}

#[test]
fn mixed_listeners_with_prefixed_tls_and_required_client_certificates() {
    let w = Workdir::new();
    let pki = Pki::new(&w);
    // The top-level keystore is broken on purpose: once a listeners.https. key is set, only
    // those are used (Kafka's all-or-nothing prefix).
    let extra = format!(
        "listeners=http://127.0.0.1:0,https://127.0.0.1:0\n\
         ssl.keystore.location=/nonexistent/keystore.p12\nssl.keystore.password=unused-one\n\
         {}listeners.https.ssl.truststore.type=PKCS12\n\
         listeners.https.ssl.truststore.location={}\n\
         listeners.https.ssl.truststore.password={TRUST_PASSWORD}\n\
         listeners.https.ssl.client.auth=required\n\
         listeners.https.ssl.enabled.protocols=TLSv1.3\n",
        pki.keystore("listeners.https."),
        pki.path("trust.p12")
    );
    let worker = start(&w, &extra, &[], &["http", "https"]);
    let http = format!("http://127.0.0.1:{}/connectors", worker.port("http"));
    let (status, _, body) = reply(&curl(&[&http]));
    assert_eq!((status, body.as_str()), (200, "[]"));
    let https = format!("https://127.0.0.1:{}/connectors", worker.port("https"));
    let out = curl(&["--cacert", &pki.path("ca.pem"), &https]);
    assert!(!out.status.success(), "served without a client certificate");
    let (status, _, body) = reply(&curl(&[
        "--cacert",
        &pki.path("ca.pem"),
        "--cert",
        &pki.path("client.pem"),
        "--key",
        &pki.path("client.key"),
        &https,
    ]));
    assert_eq!((status, body.as_str()), (200, "[]"));
    // A client certificate from another CA is refused.
    let out = curl(&[
        "--cacert",
        &pki.path("ca.pem"),
        "--cert",
        &pki.path("other-ca.pem"),
        "--key",
        &pki.path("other-ca.key"),
        &https,
    ]);
    assert!(
        !out.status.success(),
        "served with an untrusted client certificate"
    );
    assert_no_secret(
        &worker.log(),
        &[STORE_PASSWORD, TRUST_PASSWORD],
        "the trace log",
    );
}

#[test]
fn unusable_tls_settings_stop_start_up_with_the_key_and_no_password() {
    let w = Workdir::new();
    let pki = Pki::new(&w);
    let jks = format!(
        "listeners=https://127.0.0.1:0\nssl.keystore.location={}\n\
         ssl.keystore.password={STORE_PASSWORD}\n",
        pki.path("server.jks")
    );
    let (code, err) = start_fails(&w, &jks, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Java KeyStore (JKS)"), "{err}");
    assert!(err.contains("keytool -importkeystore"), "{err}");
    assert!(err.contains("-deststoretype PKCS12"), "{err}");
    assert_no_secret(&err, &[STORE_PASSWORD], "stderr");

    let wrong = "Not-The-Password-1";
    let bad_password = format!(
        "listeners=https://127.0.0.1:0\nssl.keystore.type=PKCS12\nssl.keystore.location={}\n\
         ssl.keystore.password={wrong}\n",
        pki.path("server.p12")
    );
    let (code, err) = start_fails(&w, &bad_password, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ssl.keystore.password"), "{err}");
    assert!(err.contains(&pki.path("server.p12")), "{err}");
    assert_no_secret(&err, &[wrong, STORE_PASSWORD], "stderr");

    let (code, err) = start_fails(&w, "listeners=https://127.0.0.1:0\n", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("an https listener needs a keystore"), "{err}");
}

fn basic_auth_files(w: &Workdir) -> String {
    let credentials = w.write(
        "credentials.properties",
        format!("alice: {USER_PASSWORD}\nbob=other-secret\n"),
    );
    let jaas = w.write(
        "jaas.conf",
        format!(
            "KafkaConnect {{\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n  file=\"{}\";\n}};\n",
            credentials.display()
        ),
    );
    format!(
        "-Xmx256m -Djava.security.auth.login.config={}",
        jaas.display()
    )
}

#[test]
fn basic_auth_as_kafkas_extension_with_the_jaas_file_of_kafka_opts() {
    let w = Workdir::new();
    let kafka_opts = basic_auth_files(&w);
    let worker = start(
        &w,
        &format!(
            "listeners=http://127.0.0.1:0\nrest.extension.classes={EXTENSION}\n\
             access.control.allow.origin=https://ui.example.com\n"
        ),
        &[("KAFKA_OPTS", &kafka_opts)],
        &["http"],
    );
    let base = format!("http://127.0.0.1:{}", worker.port("http"));
    let url = format!("{base}/connectors");
    let (status, head, body) = reply(&curl(&[&url]));
    assert_eq!(status, 401, "{head}{body}");
    assert!(head.contains("www-authenticate: basic realm="), "{head}");
    assert_eq!(body, "User cannot access the resource.");
    let (status, _, body) = reply(&curl(&["-u", "alice:wrong-password", &url]));
    assert_eq!(
        (status, body.as_str()),
        (401, "User cannot access the resource.")
    );
    let (status, _, _) = reply(&curl(&["-u", &format!("mallory:{USER_PASSWORD}"), &url]));
    assert_eq!(status, 401);
    let (status, _, body) = reply(&curl(&["-u", &format!("alice:{USER_PASSWORD}"), &url]));
    assert_eq!((status, body.as_str()), (200, "[]"));
    let (status, _, _) = reply(&curl(&["-u", "bob:other-secret", &format!("{base}/")]));
    assert_eq!(status, 200);
    // Kafka's internal task-config request passes the filter (connect-rs has no such route).
    let (status, _, _) = reply(&curl(&[
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-d",
        "[]",
        &format!("{url}/x/tasks"),
    ]));
    assert_ne!(status, 401);
    // A CORS preflight carries no credentials: answered before authentication.
    let (status, head, _) = reply(&curl(&[
        "-X",
        "OPTIONS",
        "-H",
        "Origin: https://ui.example.com",
        "-H",
        "Access-Control-Request-Method: GET",
        &url,
    ]));
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("access-control-allow-origin: https://ui.example.com"),
        "{head}"
    );
    // A failed login's TRACE line says the same for a wrong password and an unknown user
    // (Kafka's login module says which): user names cannot be probed through the log.
    let log = worker.log();
    let failed: Vec<String> = log
        .lines()
        .filter(|l| l.contains("Credentials do not match"))
        .map(|l| {
            l[l.find("TRACE").expect("level")..]
                .replace("alice", "USER")
                .replace("mallory", "USER")
        })
        .collect();
    assert_eq!(failed.len(), 2, "{log}");
    assert_eq!(failed[0], failed[1], "{log}");
    assert!(!failed[0].contains("known"), "{}", failed[0]);
    let encoded = "YWxpY2U6V29uZGVyLUxhbmQtNzc="; // base64("alice:Wonder-Land-77")
    assert_no_secret(
        &log,
        &[USER_PASSWORD, "other-secret", encoded],
        "the trace log",
    );
}

#[test]
fn basic_auth_and_extension_mistakes_stop_start_up() {
    let w = Workdir::new();
    let kafka_opts = basic_auth_files(&w);
    let (code, err) = start_fails(
        &w,
        "rest.extension.classes=com.example.MyRestExtension\n",
        &[("KAFKA_OPTS", &kafka_opts)],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("rest.extension.classes") && err.contains("com.example.MyRestExtension"),
        "{err}"
    );
    // The alias, but no JAAS file: say how to give one.
    let (code, err) = start_fails(
        &w,
        "rest.extension.classes=BasicAuthSecurityRestExtension\n",
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("KAFKA_OPTS") && err.contains("java.security.auth.login.config"),
        "{err}"
    );
    let jaas = w.write(
        "other.conf",
        "KafkaServer { org.example.Module required; };\n",
    );
    let opts = format!("-Djava.security.auth.login.config={}", jaas.display());
    let (code, err) = start_fails(
        &w,
        &format!("rest.extension.classes={EXTENSION}\n"),
        &[("KAFKA_OPTS", &opts)],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no KafkaConnect section"), "{err}");
    assert_no_secret(&err, &[USER_PASSWORD], "stderr");
}

#[test]
fn cors_header_rules_and_the_body_limit() {
    let w = Workdir::new();
    let worker = start(
        &w,
        "listeners=http://127.0.0.1:0\n\
         access.control.allow.origin=https://ui.example.com,https://*.corp.example\n\
         access.control.allow.methods=GET,POST,PUT,DELETE\n\
         response.http.headers.config=set X-Frame-Options: DENY,add Cache-Control: no-store,\
         \"add X-Note: a, b\"\n",
        &[],
        &["http"],
    );
    let url = format!("http://127.0.0.1:{}/connectors", worker.port("http"));
    let preflight = |origin: &str, method: &str| {
        reply(&curl(&[
            "-X",
            "OPTIONS",
            "-H",
            &format!("Origin: {origin}"),
            "-H",
            &format!("Access-Control-Request-Method: {method}"),
            &url,
        ]))
    };
    let (status, head, _) = preflight("https://ui.example.com", "PUT");
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("access-control-allow-origin: https://ui.example.com"),
        "{head}"
    );
    assert!(
        head.contains("access-control-allow-methods: get,post,put,delete"),
        "{head}"
    );
    assert!(
        head.contains("access-control-allow-credentials: true"),
        "{head}"
    );
    assert!(head.contains("access-control-max-age: 1800"), "{head}");
    assert!(head.contains("x-frame-options: deny"), "{head}");
    let (_, head, _) = preflight("https://a.corp.example", "GET");
    assert!(
        head.contains("access-control-allow-origin: https://a.corp.example"),
        "{head}"
    );
    let (_, head, _) = preflight("https://evil.example", "GET");
    assert!(!head.contains("access-control-allow-origin"), "{head}");
    let (_, head, _) = preflight("https://ui.example.com", "PATCH");
    assert!(!head.contains("access-control-allow-origin"), "{head}");
    // A simple request: served, with the CORS and rule headers.
    let (status, head, body) = reply(&curl(&["-H", "Origin: https://ui.example.com", &url]));
    assert_eq!((status, body.as_str()), (200, "[]"));
    assert!(
        head.contains("access-control-allow-origin: https://ui.example.com"),
        "{head}"
    );
    assert!(head.contains("cache-control: no-store"), "{head}");
    assert!(head.contains("x-note: a, b"), "{head}");
    // Errors get the rules too.
    let (status, head, _) = reply(&curl(&[&format!("{url}/missing")]));
    assert_eq!(status, 404);
    assert!(head.contains("x-frame-options: deny"), "{head}");
    // Over the body limit: 413 with Kafka's error body.
    let big = w.write("big.json", vec![b' '; 3 * 1024 * 1024]);
    let (status, _, body) = reply(&curl(&[
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-H",
        "Expect:",
        "--data-binary",
        &format!("@{}", big.display()),
        &url,
    ]));
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("\"error_code\":413"), "{body}");
}

#[test]
fn invalid_header_rules_stop_start_up_naming_the_key() {
    let w = Workdir::new();
    let (code, err) = start_fails(
        &w,
        "response.http.headers.config=put X-Frame-Options: DENY\n",
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("response.http.headers.config"), "{err}");
    assert!(
        err.contains(
            "Invalid header config action: 'put'. Expected one of [set, add, setDate, addDate]"
        ),
        "{err}"
    );
}

#[test]
fn admin_listener_has_its_own_tls_and_no_rest_extension_as_kafka_connect() {
    let w = Workdir::new();
    let pki = Pki::new(&w);
    let kafka_opts = basic_auth_files(&w);
    // The top-level keystore is broken on purpose: an https admin listener uses only the
    // admin.listeners.https. keys once one is set.
    let extra = format!(
        "listeners=http://127.0.0.1:0\nadmin.listeners=https://127.0.0.1:0\n\
         rest.extension.classes={EXTENSION}\n\
         ssl.keystore.location=/nonexistent/keystore.p12\nssl.keystore.password=unused-one\n\
         {}admin.listeners.https.ssl.truststore.type=PKCS12\n\
         admin.listeners.https.ssl.truststore.location={}\n\
         admin.listeners.https.ssl.truststore.password={TRUST_PASSWORD}\n\
         admin.listeners.https.ssl.client.auth=required\n",
        pki.keystore("admin.listeners.https."),
        pki.path("trust.p12")
    );
    let worker = start(&w, &extra, &[("KAFKA_OPTS", &kafka_opts)], &["http"]);
    wait_for("the admin listener", support::rest::STARTUP, || {
        worker
            .log()
            .contains("REST admin endpoints listening on https://")
    });
    let main = format!("http://127.0.0.1:{}", worker.port("http"));
    let admin = format!(
        "https://127.0.0.1:{}/admin/loggers",
        worker.admin_port("https", "127.0.0.1")
    );
    // The main listener: basic auth, and no admin endpoints.
    let (status, _, _) = reply(&curl(&[&format!("{main}/connectors")]));
    assert_eq!(status, 401);
    let user = format!("alice:{USER_PASSWORD}");
    let (status, _, body) = reply(&curl(&["-u", &user, &format!("{main}/admin/loggers")]));
    assert_eq!(
        (status, body.as_str()),
        (404, r#"{"error_code":404,"message":"HTTP 404 Not Found"}"#)
    );
    // The admin listener: its client certificate is required, basic auth is not asked for
    // (Kafka Connect registers REST extensions on the main listeners only).
    let out = curl(&["--cacert", &pki.path("ca.pem"), &admin]);
    assert!(!out.status.success(), "served without a client certificate");
    let client_cert = [
        "--cacert",
        &pki.path("ca.pem"),
        "--cert",
        &pki.path("client.pem"),
        "--key",
        &pki.path("client.key"),
    ];
    let (status, _, body) = reply(&curl(&[&client_cert[..], &[admin.as_str()]].concat()));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"root\""), "{body}");
    let (status, _, body) = reply(&curl(
        &[
            &client_cert[..],
            &[
                "-X",
                "PUT",
                "-H",
                "Content-Type: application/json",
                "-d",
                r#"{"level":"DEBUG"}"#,
                &format!("{admin}/connect_rs.rest"),
            ],
        ]
        .concat(),
    ));
    assert_eq!((status, body.as_str()), (200, r#"["connect_rs.rest"]"#));
    let log = worker.log();
    assert!(
        !log.contains("serves /admin/loggers without the basic authentication"),
        "no warning for a loopback admin listener with client certificates: {log}"
    );
    assert_no_secret(&log, &[STORE_PASSWORD, TRUST_PASSWORD], "the trace log");
}

#[test]
fn an_open_admin_listener_beside_basic_auth_is_warned_about() {
    let w = Workdir::new();
    let kafka_opts = basic_auth_files(&w);
    let worker = start(
        &w,
        &format!(
            "listeners=http://127.0.0.1:0\nadmin.listeners=http://0.0.0.0:0\n\
             rest.extension.classes={EXTENSION}\n"
        ),
        &[("KAFKA_OPTS", &kafka_opts)],
        &["http"],
    );
    wait_for("the admin listener", support::rest::STARTUP, || {
        worker
            .log()
            .contains("REST admin endpoints listening on http://")
    });
    let port = worker.admin_port("http", "0.0.0.0");
    let (status, _, body) = reply(&curl(&[&format!("http://127.0.0.1:{port}/admin/loggers")]));
    assert_eq!(status, 200, "{body}");
    assert!(
        worker.log().contains(
            "admin.listeners entry http://0.0.0.0:0 serves /admin/loggers without the basic \
             authentication of rest.extension.classes"
        ),
        "{}",
        worker.log()
    );
}

/// Reads from `s` until the server closes it; how long that took (fails after `limit`).
fn closed_within(s: &mut std::net::TcpStream, limit: std::time::Duration) -> std::time::Duration {
    use std::io::Read;
    let start = std::time::Instant::now();
    s.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return start.elapsed(),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return start.elapsed(),
            Err(e) => panic!("the connection is still open after {limit:?} ({e})"),
        }
    }
}

#[test]
fn silent_and_slow_loris_connections_are_closed_while_others_are_served() {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let w = Workdir::new();
    let worker = start(
        &w,
        "listeners=http://127.0.0.1:0\nrest.idle.timeout.ms=1000\n",
        &[],
        &["http"],
    );
    let port = worker.port("http");
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut silent = std::net::TcpStream::connect(addr).unwrap();
    // A header byte every 200 ms, never a whole head: closed at the timeout.
    let loris = std::thread::spawn(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let start = Instant::now();
        let mut buf = [0u8; 256];
        for b in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "
            .iter()
            .chain([b'a'; 200].iter())
        {
            if s.write_all(&[*b]).is_err() {
                return start.elapsed();
            }
            match s.read(&mut buf) {
                Ok(0) => return start.elapsed(),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                    return start.elapsed()
                }
                _ => {}
            }
        }
        panic!("the slow-loris connection was never closed");
    });
    // Others are served meanwhile.
    let client = support::http::Client::local(port);
    let r = client.get("/connectors");
    assert_eq!((r.status, r.body.as_str()), (200, "[]"));
    let silent_for = closed_within(&mut silent, Duration::from_secs(10));
    assert!(silent_for < Duration::from_secs(3), "{silent_for:?}");
    let loris_for = loris.join().unwrap();
    assert!(loris_for < Duration::from_secs(4), "{loris_for:?}");

    // An idle keep-alive connection is closed too.
    let mut kept = std::net::TcpStream::connect(addr).unwrap();
    kept.write_all(b"GET /connectors HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    kept.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    while !got.ends_with(b"[]") {
        let n = kept.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the answer");
        got.extend_from_slice(&buf[..n]);
    }
    let idle_for = closed_within(&mut kept, Duration::from_secs(10));
    assert!(idle_for < Duration::from_secs(3), "{idle_for:?}");

    // A body that does not arrive: 408 with the error body.
    let mut body = std::net::TcpStream::connect(addr).unwrap();
    body.write_all(
        b"POST /connectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"name\":",
    )
    .unwrap();
    body.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut raw = Vec::new();
    let _ = body.read_to_end(&mut raw);
    let r = support::http::parse_response(&raw).expect("an answer");
    assert_eq!(r.status, 408, "{}", r.body);
    assert_eq!(
        r.json(),
        serde_json::json!({"error_code": 408, "message":
            "Failed to read the request body: the request body did not arrive within 1000 ms"})
    );
    let r = client.get("/connectors");
    assert_eq!(r.status, 200);
}

#[test]
fn connections_beyond_the_bound_wait_and_leave_the_log_its_files() {
    use std::io::Write;
    use std::time::Duration;
    let w = Workdir::new();
    let input = w.write("input.txt", "one\n");
    let output = w.path("output.txt");
    let worker_file = w.worker("offset.flush.interval.ms=100\nrest.idle.timeout.ms=120000");
    let source = w.source("file-source", &input, "bounded");
    let sink = w.sink("file-sink", &output, "bounded");
    // 48 files: the REST listeners take at most a quarter (12 connections); the worker itself
    // holds about 20 (log segments, the files, epoll, stdio).
    let log = w.path("bounded.log");
    let child = Command::new("sh")
        .args(["-c", "ulimit -n 48 && exec \"$0\" \"$@\""])
        .arg(support::binary())
        .arg("standalone")
        .args([&worker_file, &source, &sink])
        .env_remove("RUST_LOG")
        .current_dir(w.dir.path())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("spawn connect-rs");
    let worker = Worker { child, log };
    wait_for("the REST listener", support::rest::STARTUP, || {
        worker.log().contains("REST API listening on http://")
    });
    let port = worker.port("http");
    let client = support::http::Client::local(port);
    wait_for("the first line copied", support::rest::STARTUP, || {
        std::fs::read_to_string(&output).unwrap_or_default() == "one\n"
    });
    // Far more idle connections than the worker has files left.
    let idle: Vec<std::net::TcpStream> = (0..60)
        .map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect"))
        .collect();
    // The log, the offsets file and the sink's output still get their files.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    f.write_all(b"two\nthree\n").unwrap();
    wait_for("the new lines copied", support::rest::STARTUP, || {
        std::fs::read_to_string(&output).unwrap_or_default() == "one\ntwo\nthree\n"
    });
    // A request beyond the bound waits for a free connection, and is served once some close.
    let waiting = std::thread::spawn(move || client.get("/connectors?expand=status"));
    // Not a wait for a condition: the time in which the request must NOT be answered.
    std::thread::sleep(Duration::from_millis(500));
    assert!(!waiting.is_finished(), "served beyond the connection bound");
    drop(idle);
    let r = waiting.join().unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    let status = r.json();
    for name in ["file-source", "file-sink"] {
        assert_eq!(
            status[name]["status"]["tasks"][0]["state"], "RUNNING",
            "{status}"
        );
    }
    let log = worker.log();
    assert!(!log.contains("Too many open files"), "{log}");
    assert!(
        log.contains("The REST listeners have 12 connections open, their limit"),
        "{log}"
    );
}
