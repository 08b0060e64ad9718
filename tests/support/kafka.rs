//! A real Apache Kafka broker for tests (KRaft, single node), run by `scripts/kafka-harness.sh`.
//!
//! `broker()` starts the shared broker once per test process (or reuses the one already running
//! from an earlier test binary) and returns its handle. A test that needs Kafka and cannot
//! get it FAILS with the script's message (Java missing, Maven missing, download failure): it
//! never skips.
//!
//! Nothing outlives the test run: each test process takes a lease on the broker it uses
//! (`KAFKA_HARNESS_LEASE`: its own pid and, when its parent is `cargo`, cargo's pid), and the
//! harness runs a watchdog beside each broker that stops it (SIGTERM, then SIGKILL) as soon as no
//! lease holder is alive. So the test binaries of one `cargo test` run share one broker (cargo
//! holds it between binaries), and it stops within seconds after cargo exits. A broker started by
//! hand (`scripts/kafka-harness.sh start`, no lease) runs until `scripts/kafka-harness.sh stop`.
//!
//! Tests share the broker, so each one uses its own names: `Broker::unique("orders")`.
//! A test that pauses the broker (an outage) should take its own with `dedicated_broker(name)`,
//! so the other tests of its binary, running in parallel, keep theirs.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long one run of a Kafka tool may take before it is killed and the test fails.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// A running Kafka broker of the harness.
#[derive(Clone, Debug)]
pub struct Broker {
    instance: String,
    bootstrap: String,
}

/// The shared broker of this checkout, started (or reused) once per test process.
pub fn broker() -> Broker {
    static SHARED: OnceLock<Broker> = OnceLock::new();
    SHARED
        .get_or_init(|| Broker {
            instance: "default".into(),
            bootstrap: harness("default", "start"),
        })
        .clone()
}

/// A broker of its own, named `name` (letters, digits, `.`, `_`, `-`), for tests that pause
/// and resume it; started (or reused) once per test process and name. Costs a second JVM.
pub fn dedicated_broker(name: &str) -> Broker {
    static DEDICATED: OnceLock<Mutex<HashMap<String, Broker>>> = OnceLock::new();
    let mut map = DEDICATED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    map.entry(name.to_string())
        .or_insert_with(|| Broker {
            instance: name.to_string(),
            bootstrap: harness(name, "start"),
        })
        .clone()
}

/// The broker of the secure listeners (`KAFKA_HARNESS_SECURE=1`, instance `secure`): TLS with a
/// client certificate required, SASL_PLAINTEXT and SASL_SSL (PLAIN, SCRAM-SHA-512, unsecured
/// OAUTHBEARER), and TLS with an expired certificate; its certificates are made by the harness
/// with keytool. Started (or reused) once per test process.
#[derive(Clone, Debug)]
pub struct SecureBroker {
    /// The broker (its PLAINTEXT listener is `bootstrap()`).
    pub broker: Broker,
    /// `HOST:PORT` of the SSL listener (client certificate required).
    pub ssl: String,
    /// `HOST:PORT` of the SASL_PLAINTEXT listener.
    pub sasl_plaintext: String,
    /// `HOST:PORT` of the SASL_SSL listener.
    pub sasl_ssl: String,
    /// `HOST:PORT` of a TLS listener whose certificate expired.
    pub expired: String,
    /// Where the stores are: `truststore.p12`, `truststore.jks`, `other-truststore.p12` (another
    /// CA), `client.p12` (a client key and certificate), `ca.pem`.
    pub tls_dir: PathBuf,
    /// The password of every store.
    pub store_password: String,
    /// The SASL user (PLAIN and SCRAM-SHA-512).
    pub user: String,
    /// Its password.
    pub password: String,
}

/// The secure broker (see [`SecureBroker`]).
pub fn secure_broker() -> SecureBroker {
    static SECURE: OnceLock<SecureBroker> = OnceLock::new();
    SECURE
        .get_or_init(|| {
            let bootstrap = harness_with("secure", "start", &[("KAFKA_HARNESS_SECURE", "1")]);
            let state_path = harness_dir().join("instances/secure/state");
            let state = std::fs::read_to_string(&state_path)
                .unwrap_or_else(|e| panic!("read {}: {e}", state_path.display()));
            let get = |key: &str| {
                state
                    .lines()
                    .rev()
                    .find_map(|l| l.strip_prefix(&format!("{key}=")))
                    .unwrap_or_else(|| {
                        panic!(
                            "{} has no {key}= line (was the secure broker started without \
                             KAFKA_HARNESS_SECURE=1? stop it: KAFKA_HARNESS_INSTANCE=secure \
                             scripts/kafka-harness.sh stop)",
                            state_path.display()
                        )
                    })
                    .to_owned()
            };
            SecureBroker {
                broker: Broker {
                    instance: "secure".into(),
                    bootstrap,
                },
                ssl: get("ssl"),
                sasl_plaintext: get("sasl_plaintext"),
                sasl_ssl: get("sasl_ssl"),
                expired: get("expired"),
                tls_dir: PathBuf::from(get("tls.dir")),
                store_password: get("tls.password"),
                user: get("sasl.user"),
                password: get("sasl.password"),
            }
        })
        .clone()
}

/// The repository root (where `scripts/` and `target/` are).
fn repo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/kafka-harness` (or `KAFKA_HARNESS_DIR`), as the script computes it.
fn harness_dir() -> PathBuf {
    match std::env::var_os("KAFKA_HARNESS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => repo_dir().join("target").join("kafka-harness"),
    }
}

/// The pids that hold this process's brokers (`KAFKA_HARNESS_LEASE`): this process and, when
/// it was started by `cargo` (`cargo test`), cargo, which keeps the broker up for the next test
/// binary of the same run.
pub fn lease_holders() -> String {
    let me = std::process::id();
    let parent = std::os::unix::process::parent_id();
    let parent_is_cargo = std::fs::read_to_string(format!("/proc/{parent}/comm"))
        .is_ok_and(|comm| comm.trim() == "cargo");
    if parent_is_cargo {
        format!("{me} {parent}")
    } else {
        me.to_string()
    }
}

/// Runs `scripts/kafka-harness.sh COMMAND` for an instance, under this process's lease; returns
/// the `bootstrap=` value it prints. Panics with the script's output when it fails: no Kafka
/// means the test fails.
fn harness(instance: &str, command: &str) -> String {
    harness_with(instance, command, &[])
}

/// [`harness`] with extra environment variables for the script.
fn harness_with(instance: &str, command: &str, envs: &[(&str, &str)]) -> String {
    let script = repo_dir().join("scripts").join("kafka-harness.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(command)
        .envs(envs.iter().copied())
        .env("KAFKA_HARNESS_INSTANCE", instance)
        .env("KAFKA_HARNESS_LEASE", lease_holders())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} (is bash installed?)", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        panic!(
            "this test needs a real Apache Kafka broker, and `{} {command}` (instance {instance}) \
             failed with {}:\n{stderr}{stdout}",
            script.display(),
            out.status
        );
    }
    stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("bootstrap="))
        .map(|b| b.trim().to_string())
        .unwrap_or_else(|| {
            panic!(
                "`{} {command}` printed no bootstrap=HOST:PORT:\n{stderr}{stdout}",
                script.display()
            )
        })
}

impl Broker {
    /// `HOST:PORT` for `bootstrap.servers`.
    pub fn bootstrap(&self) -> &str {
        &self.bootstrap
    }

    /// Stops the broker (SIGTERM, then SIGKILL after 60 s) but keeps its data and ports:
    /// clients see an outage until `resume`. On the shared broker this disturbs every test of
    /// the process running at the time: prefer `dedicated_broker`.
    pub fn pause(&self) {
        let out = Command::new("bash")
            .arg(repo_dir().join("scripts").join("kafka-harness.sh"))
            .arg("pause")
            .env("KAFKA_HARNESS_INSTANCE", &self.instance)
            .stdin(Stdio::null())
            .output()
            .expect("run scripts/kafka-harness.sh pause");
        assert!(
            out.status.success(),
            "kafka-harness.sh pause failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Starts the paused broker again on the same ports and data; returns once it answers.
    pub fn resume(&self) {
        let bootstrap = harness(&self.instance, "resume");
        assert_eq!(
            bootstrap, self.bootstrap,
            "the broker came back on another address"
        );
    }

    /// Runs a Kafka tool class (`java -cp 'libs/*' CLASS ARGS`) with no input, e.g.
    /// `org.apache.kafka.tools.TopicCommand`, `org.apache.kafka.tools.consumer.ConsoleConsumer`.
    /// Pass `--bootstrap-server` yourself (`self.bootstrap()`). Panics after `TOOL_TIMEOUT`.
    pub fn tools(&self, class: &str, args: &[&str]) -> Output {
        self.tools_with_input(class, args, &[])
    }

    /// As `tools`, writing `input` to the tool's stdin and then closing it (e.g. records for
    /// `org.apache.kafka.tools.ConsoleProducer`, one per line).
    pub fn tools_with_input(&self, class: &str, args: &[&str], input: &[u8]) -> Output {
        run_tool(class, args, input, TOOL_TIMEOUT)
    }

    /// Runs `ConsoleConsumer` on `topic` from the beginning until `max` records arrived or
    /// `timeout_ms` passed without one, with `extra` arguments (e.g. `--isolation-level
    /// read_committed`, `--property print.headers=true`); returns what it printed.
    pub fn consume_from_beginning(
        &self,
        topic: &str,
        max: usize,
        timeout_ms: u32,
        extra: &[&str],
    ) -> Output {
        let (max, timeout_ms) = (max.to_string(), timeout_ms.to_string());
        let mut args = vec![
            "--bootstrap-server",
            self.bootstrap(),
            "--topic",
            topic,
            "--from-beginning",
            "--max-messages",
            &max,
            "--timeout-ms",
            &timeout_ms,
        ];
        args.extend_from_slice(extra);
        self.tools("org.apache.kafka.tools.consumer.ConsoleConsumer", &args)
    }

    /// Creates a topic with `partitions` partitions and replication factor 1, through an admin
    /// client (no JVM start per topic); panics on failure.
    pub fn create_topic(&self, topic: &str, partitions: u32) {
        use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
        use rdkafka::client::DefaultClientContext;
        use rdkafka::ClientConfig;
        let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap())
            .create()
            .unwrap_or_else(|e| panic!("an admin client for {}: {e}", self.bootstrap()));
        let partitions = i32::try_from(partitions).expect("partition count fits i32");
        let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(1));
        // The broker answers once the topic is created (as TopicCommand waits for it).
        let options = AdminOptions::new()
            .request_timeout(Some(TOOL_TIMEOUT))
            .operation_timeout(Some(Duration::from_secs(60)));
        let results = futures::executor::block_on(admin.create_topics([&new], &options))
            .unwrap_or_else(|e| panic!("creating topic {topic} failed: {e}"));
        for result in results {
            if let Err((name, code)) = result {
                panic!("creating topic {name} failed: {code}");
            }
        }
    }

    /// A member of consumer group `group` subscribed to `topic`, as another process would be:
    /// it polls on a thread of its own (committing nothing) until dropped, then leaves the
    /// group. Returns once the group gave it its assignment. Its member id starts with
    /// `client_id`, so a name that sorts before `connector-consumer-` gets the first partitions
    /// from the range assignor.
    pub fn group_member(&self, group: &str, topic: &str, client_id: &str) -> GroupMember {
        use rdkafka::consumer::{BaseConsumer, Consumer};
        use rdkafka::ClientConfig;
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", self.bootstrap())
            .set("group.id", group)
            .set("client.id", client_id)
            .set("enable.auto.commit", "false")
            .set("session.timeout.ms", "6000")
            .create()
            .unwrap_or_else(|e| panic!("a consumer for {}: {e}", self.bootstrap()));
        consumer.subscribe(&[topic]).expect("subscribe");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (assigned_tx, assigned_rx) = std::sync::mpsc::channel();
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut told = false;
                while !stop.load(Ordering::Acquire) {
                    let _ = consumer.poll(Duration::from_millis(100));
                    let assigned = consumer.assignment().map(|a| a.count()).unwrap_or(0);
                    if !told && assigned > 0 {
                        told = assigned_tx.send(assigned).is_ok();
                    }
                }
                consumer.unsubscribe();
                drop(consumer);
            })
        };
        assigned_rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{client_id} got no partition of {topic} in {group}"));
        GroupMember {
            stop,
            thread: Some(thread),
        }
    }

    /// A name no other test, process or run uses: `PREFIX-PID-NANOS-N` (topic and group safe).
    pub fn unique(prefix: &str) -> String {
        static N: AtomicU64 = AtomicU64::new(0);
        let prefix: String = prefix
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() % 1_000_000_000_000)
            .unwrap_or(0);
        format!(
            "{prefix}-{}-{nanos}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        )
    }
}

/// `java -cp 'target/kafka-harness/libs/*' CLASS ARGS` with stdin `input`, killed at `timeout`.
fn run_tool(class: &str, args: &[&str], input: &[u8], timeout: Duration) -> Output {
    let dir = harness_dir();
    let mut child = Command::new("java")
        .args([
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true",
        ])
        .arg(format!(
            "-Dlog4j2.configurationFile={}",
            dir.join("tools-log4j2.properties").display()
        ))
        .arg("-cp")
        .arg(format!("{}/*", dir.join("libs").display()))
        .arg(class)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run java for Kafka tool {class}: {e} (Java 17+ must be on PATH)")
        });
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for Kafka tool") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = err_reader.join().unwrap_or_default();
            panic!(
                "Kafka tool {class} {args:?} did not finish within {timeout:?}; stderr:\n{}",
                String::from_utf8_lossy(&stderr)
            );
        }
        std::thread::park_timeout(Duration::from_millis(20)); // poll interval of a bounded wait
    };
    let _ = writer.join();
    Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

/// A member of a consumer group held by the test (see [`Broker::group_member`]); leaves the
/// group when dropped.
pub struct GroupMember {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for GroupMember {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
