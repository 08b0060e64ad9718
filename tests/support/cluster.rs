//! A cluster of distributed workers on one Kafka group, for the worker-cluster tests: connect-rs
//! (`connect-rs distributed WORKER_FILE`) or Apache Kafka Connect (`ConnectDistributed`, from the
//! Maven jars of [`super::kafka_connect::jars`]), each process in its own [`Workdir`] (its own
//! worker file, log and current directory), all with the same `group.id` and internal topics.
//!
//! Helpers: start N workers, add one, SIGKILL one, SIGTERM them all, wait until a REST condition
//! holds on every live worker, read `/connectors/{c}/status` and count the tasks per `worker_id`,
//! and count the task starts a connect-rs worker logged.
//!
//! A worker's `worker_id` is `127.0.0.1:PORT` (`rest.advertised.host.name=127.0.0.1` and its REST
//! port), as Kafka Connect advertises it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::http::{Client, Response};
use super::kafka::Broker;
use super::kafka_connect::{free_port, jars, java_tool, worker_classpath};
use super::rest::rest_port;
use super::{wait_for, Workdir};

/// `session.timeout.ms` of the test workers and of their sink consumers (small, so a lost
/// worker's group members are noticed quickly).
pub const SESSION_TIMEOUT_MS: u64 = 6000;
/// `heartbeat.interval.ms` of the test workers.
pub const HEARTBEAT_INTERVAL_MS: u64 = 1000;
/// How long a worker may take to serve its REST API (a JVM included).
pub const STARTUP: Duration = Duration::from_secs(180);
/// How long a cluster may take to agree on something after a change (joins, rebalances).
pub const CONVERGE: Duration = Duration::from_secs(120);

/// Which runtime a worker process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// `connect-rs distributed WORKER_FILE`.
    ConnectRs,
    /// Apache Kafka Connect's `ConnectDistributed WORKER_FILE`.
    KafkaConnect,
}

/// What every worker of one cluster shares: the broker, the group and the internal topics.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    /// `bootstrap.servers`.
    pub bootstrap: String,
    /// `group.id`.
    pub group: String,
    /// `config.storage.topic`.
    pub config_topic: String,
    /// `offset.storage.topic`.
    pub offset_topic: String,
    /// `status.storage.topic`.
    pub status_topic: String,
    /// `offset.storage.partitions`.
    pub offset_partitions: u32,
    /// `key.converter` and `value.converter`.
    pub converter: String,
    /// More worker lines (security settings, `plugin.path`...).
    pub extra: String,
    /// Entries after Kafka Connect's jars on the class path of its JVM workers (jars a plugin
    /// needs on the worker's class path, e.g. kafka-server-common); connect-rs workers ignore it.
    pub java_classpath: Vec<PathBuf>,
}

impl ClusterSpec {
    /// A spec with a unique group (`PREFIX-...`) and topics named after it.
    pub fn new(bootstrap: &str, prefix: &str) -> Self {
        let group = Broker::unique(prefix);
        Self {
            bootstrap: bootstrap.to_owned(),
            config_topic: format!("{group}-configs"),
            offset_topic: format!("{group}-offsets"),
            status_topic: format!("{group}-status"),
            group,
            offset_partitions: 5,
            converter: "org.apache.kafka.connect.storage.StringConverter".to_owned(),
            extra: String::new(),
            java_classpath: Vec::new(),
        }
    }

    /// The same spec with `extra` worker lines appended.
    pub fn with_extra(mut self, extra: &str) -> Self {
        self.extra.push_str(extra);
        self.extra.push('\n');
        self
    }

    /// The same spec with `plugin.path={plugin_path}` (both runtimes) and `java_classpath` on the
    /// class path of Kafka Connect's JVMs.
    pub fn with_plugins(
        mut self,
        plugin_path: &std::path::Path,
        java_classpath: &[PathBuf],
    ) -> Self {
        self = self.with_extra(&format!("plugin.path={}", plugin_path.display()));
        self.java_classpath.extend_from_slice(java_classpath);
        self
    }

    /// The worker file of one worker listening on `listeners`, as a Kafka Connect user writes it.
    pub fn worker_properties(&self, listeners: &str) -> String {
        format!(
            "bootstrap.servers={}\n\
             group.id={}\n\
             config.storage.topic={}\n\
             config.storage.replication.factor=1\n\
             offset.storage.topic={}\n\
             offset.storage.replication.factor=1\n\
             offset.storage.partitions={}\n\
             status.storage.topic={}\n\
             status.storage.replication.factor=1\n\
             status.storage.partitions=1\n\
             listeners={listeners}\n\
             rest.advertised.host.name=127.0.0.1\n\
             session.timeout.ms={SESSION_TIMEOUT_MS}\n\
             heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}\n\
             consumer.session.timeout.ms={SESSION_TIMEOUT_MS}\n\
             consumer.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}\n\
             offset.flush.interval.ms=500\n\
             key.converter={converter}\n\
             value.converter={converter}\n\
             {}\n",
            self.bootstrap,
            self.group,
            self.config_topic,
            self.offset_topic,
            self.offset_partitions,
            self.status_topic,
            self.extra,
            converter = self.converter,
        )
    }
}

/// One worker process, killed (SIGKILL) when dropped while still running.
pub struct Worker {
    /// Which runtime it is.
    pub runtime: Runtime,
    /// The process.
    pub child: Child,
    /// A client of its REST API.
    pub client: Client,
    /// Its REST port.
    pub port: u16,
    /// Its directory: worker file, log, and the current directory of the process (relative
    /// connector paths such as a sink's `file=out.txt` land here).
    pub dir: Workdir,
}

/// Lines of a worker's log printed when a test fails with the worker in scope.
const LOG_TAIL_ON_FAILURE: usize = 120;

impl Drop for Worker {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // The directory goes with the worker: a failing test keeps the end of its log.
        if std::thread::panicking() {
            let log = self.log();
            let lines: Vec<&str> = log.lines().collect();
            let tail = &lines[lines.len().saturating_sub(LOG_TAIL_ON_FAILURE)..];
            eprintln!(
                "---- the last {} lines of the log of worker {} ({:?}) ----\n{}",
                tail.len(),
                self.worker_id(),
                self.runtime,
                tail.join("\n")
            );
        }
    }
}

/// The log file of a runtime, inside the worker's directory.
fn log_name(runtime: Runtime) -> &'static str {
    match runtime {
        Runtime::ConnectRs => "connect-rs.log",
        Runtime::KafkaConnect => "kafka-connect.log",
    }
}

/// A process started but maybe not serving REST yet.
struct Starting {
    runtime: Runtime,
    child: Child,
    dir: Workdir,
    /// Known up front for Kafka Connect (a fixed free port); read from the log for connect-rs.
    port: Option<u16>,
}

impl Starting {
    fn spawn(spec: &ClusterSpec, runtime: Runtime, dir: Workdir) -> Self {
        match runtime {
            Runtime::ConnectRs => {
                let worker = dir.write(
                    "worker.properties",
                    spec.worker_properties("http://127.0.0.1:0"),
                );
                let child =
                    dir.spawn_args(&["distributed".to_owned(), worker.display().to_string()]);
                Self {
                    runtime,
                    child,
                    dir,
                    port: None,
                }
            }
            Runtime::KafkaConnect => {
                let port = free_port();
                let child = spawn_java(spec, &dir, port);
                Self {
                    runtime,
                    child,
                    dir,
                    port: Some(port),
                }
            }
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path(log_name(self.runtime))).unwrap_or_default()
    }

    /// Waits until the REST API answers `GET /` with JSON; panics with the log when the process
    /// exits or does not answer within [`STARTUP`].
    fn ready(mut self) -> Worker {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "a {:?} worker exited with {status} while starting; its log:\n{}{}",
                    self.runtime,
                    self.log(),
                    std::fs::read_to_string(self.dir.path("kafka-connect.console"))
                        .unwrap_or_default()
                );
            }
            if self.port.is_none() {
                self.port = rest_port(&self.log());
            }
            if let Some(port) = self.port {
                let client = Client::local(port);
                if let Ok(r) = client.try_send("GET", "/", None) {
                    if r.status == 200 && serde_json::from_str::<Value>(&r.body).is_ok() {
                        return Worker {
                            runtime: self.runtime,
                            child: self.child,
                            client,
                            port,
                            dir: self.dir,
                        };
                    }
                }
            }
            assert!(
                start.elapsed() < STARTUP,
                "a {:?} worker did not serve GET / within {STARTUP:?}; its log:\n{}",
                self.runtime,
                self.log()
            );
            std::thread::park_timeout(Duration::from_millis(50));
        }
    }
}

/// Starts `ConnectDistributed` in `dir` on `port`, logging (INFO) to `dir/kafka-connect.log`.
fn spawn_java(spec: &ClusterSpec, dir: &Workdir, port: u16) -> Child {
    let libs = jars().libs;
    let log4j = dir.write(
        "kafka-connect-log4j2.properties",
        format!(
            "status = warn\n\
             appender.file.type = File\n\
             appender.file.name = FILE\n\
             appender.file.fileName = {}\n\
             appender.file.layout.type = PatternLayout\n\
             appender.file.layout.pattern = [%d] %p %m (%c)%n\n\
             rootLogger.level = INFO\n\
             rootLogger.appenderRef.file.ref = FILE\n",
            dir.path(log_name(Runtime::KafkaConnect)).display()
        ),
    );
    let worker = dir.write(
        "kafka-connect-worker.properties",
        spec.worker_properties(&format!("http://127.0.0.1:{port}")),
    );
    let console = std::fs::File::create(dir.path("kafka-connect.console")).expect("console file");
    Command::new(java_tool("java"))
        .args([
            "-Xms64m",
            "-Xmx384m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true",
        ])
        .arg(format!("-Dlog4j2.configurationFile={}", log4j.display()))
        .arg("-cp")
        .arg(worker_classpath(&libs, &spec.java_classpath))
        .arg("org.apache.kafka.connect.cli.ConnectDistributed")
        .arg(&worker)
        .current_dir(dir.dir.path())
        .stdin(Stdio::null())
        .stdout(console.try_clone().expect("console file"))
        .stderr(console)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start java (Apache Kafka Connect): {e}"))
}

impl Worker {
    /// `host:port` as the status reports name this worker.
    pub fn worker_id(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Whether the process still runs.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path(log_name(self.runtime))).unwrap_or_default()
    }

    /// A file in its directory (where a relative connector path such as `out.txt` lands).
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path(name)
    }

    /// `GET path`, `None` on a connection error (a dead or busy worker).
    pub fn try_get(&self, path: &str) -> Option<Response> {
        self.client.try_send("GET", path, None).ok()
    }

    /// The JSON body of `GET path` when it answers 200.
    pub fn get_json(&self, path: &str) -> Option<Value> {
        let r = self.try_get(path)?;
        (r.status == 200).then(|| serde_json::from_str(&r.body).ok())?
    }

    /// `GET /connectors/{c}/status` when it answers 200.
    pub fn status(&self, connector: &str) -> Option<Value> {
        self.get_json(&format!("/connectors/{connector}/status"))
    }

    /// How many times each task of `connector` started in this worker's log (connect-rs:
    /// `task{connector=C task=N ...}: ... task started.`; Kafka Connect: `WorkerSourceTask{id=C-N}
    /// ... finished initialization and start`).
    pub fn task_starts(&self, connector: &str) -> BTreeMap<u32, usize> {
        task_starts(&self.log(), connector)
    }

    /// Sends SIGKILL and waits for the process to end.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Counts the task starts of `connector` in a worker log, per task id.
pub fn task_starts(log: &str, connector: &str) -> BTreeMap<u32, usize> {
    let rs_marker = format!("task{{connector={connector} task=");
    let java_markers = [
        format!("WorkerSourceTask{{id={connector}-"),
        format!("WorkerSinkTask{{id={connector}-"),
    ];
    let mut starts = BTreeMap::new();
    for line in log.lines() {
        let id_text = if line.contains("task started.") {
            line.find(&rs_marker)
                .map(|at| &line[at + rs_marker.len()..])
        } else if line.contains("finished initialization and start") {
            java_markers
                .iter()
                .find_map(|m| line.find(m.as_str()).map(|at| &line[at + m.len()..]))
        } else {
            None
        };
        let Some(rest) = id_text else { continue };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let ends_id = rest[digits.len()..].starts_with(['}', ' ', ',']);
        if let (Ok(id), true) = (digits.parse(), ends_id) {
            *starts.entry(id).or_insert(0) += 1;
        }
    }
    starts
}

/// The tasks of a status body per `worker_id`.
pub fn placement(status: &Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for task in status["tasks"].as_array().into_iter().flatten() {
        if let Some(id) = task["worker_id"].as_str() {
            *counts.entry(id.to_owned()).or_insert(0) += 1;
        }
    }
    counts
}

/// `task id → worker_id` of a status body.
pub fn task_owners(status: &Value) -> BTreeMap<u64, String> {
    status["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| Some((t["id"].as_u64()?, t["worker_id"].as_str()?.to_owned())))
        .collect()
}

/// Whether a status body shows the connector and exactly `tasks` tasks all in `state`.
pub fn all_in_state(status: &Value, state: &str, tasks: usize) -> bool {
    let list = status["tasks"].as_array();
    status["connector"]["state"] == state
        && list.is_some_and(|l| l.len() == tasks && l.iter().all(|t| t["state"] == state))
}

/// Workers of one group.
pub struct Cluster {
    /// What they share.
    pub spec: ClusterSpec,
    /// Every worker started, in order (killed ones stay, dead).
    pub workers: Vec<Worker>,
}

impl Cluster {
    /// Starts `n` workers of `runtime` (all spawned at once, then awaited).
    pub fn start(spec: ClusterSpec, runtime: Runtime, n: usize) -> Self {
        let dirs = (0..n).map(|_| Workdir::new()).collect();
        Self::start_in(spec, runtime, dirs)
    }

    /// Starts one worker of `runtime` in each of `dirs` (e.g. the directories of a stopped
    /// cluster, taken with [`Cluster::stop_all`]).
    pub fn start_in(spec: ClusterSpec, runtime: Runtime, dirs: Vec<Workdir>) -> Self {
        let starting: Vec<Starting> = dirs
            .into_iter()
            .map(|dir| Starting::spawn(&spec, runtime, dir))
            .collect();
        let workers = starting.into_iter().map(Starting::ready).collect();
        Self { spec, workers }
    }

    /// Starts one more worker of `runtime`; returns its index.
    pub fn add(&mut self, runtime: Runtime) -> usize {
        let worker = Starting::spawn(&self.spec, runtime, Workdir::new()).ready();
        self.workers.push(worker);
        self.workers.len() - 1
    }

    /// The workers still running.
    pub fn live(&mut self) -> Vec<&Worker> {
        self.workers
            .iter_mut()
            .filter_map(|w| w.is_alive().then_some(&*w))
            .collect()
    }

    /// The worker whose `worker_id` is `id`.
    pub fn by_id(&self, id: &str) -> Option<usize> {
        self.workers.iter().position(|w| w.worker_id() == id)
    }

    /// SIGKILLs worker `i`.
    pub fn kill9(&mut self, i: usize) {
        self.workers[i].kill9();
    }

    /// SIGTERMs every live worker at once, waits for all to exit, and hands back their
    /// directories (for [`Cluster::start_in`]). Panics when one does not exit within 60 s.
    pub fn stop_all(self) -> Vec<Workdir> {
        let mut workers = self.workers;
        for w in workers.iter_mut() {
            if !w.is_alive() {
                continue;
            }
            let status = Command::new("kill")
                .args(["-TERM", &w.child.id().to_string()])
                .status()
                .expect("kill -TERM");
            assert!(status.success(), "kill -TERM failed");
        }
        for w in &mut workers {
            wait_for(
                "a worker to exit after SIGTERM",
                Duration::from_secs(60),
                || !matches!(w.child.try_wait(), Ok(None)),
            );
        }
        workers
            .iter_mut()
            // The process has exited; the worker's drop has nothing left to kill.
            .map(|w| std::mem::replace(&mut w.dir, Workdir::new()))
            .collect()
    }

    /// Waits until `cond` holds on every live worker (each checked in turn), failing after
    /// `timeout` with the last answers.
    pub fn wait_all(&mut self, what: &str, timeout: Duration, cond: impl Fn(&Worker) -> bool) {
        wait_for(what, timeout, || {
            let live = self.live();
            !live.is_empty() && live.iter().all(|w| cond(w))
        });
    }

    /// Waits until every live worker answers `GET /connectors/{c}/status` with the same body
    /// and `accept` takes it; returns it.
    pub fn converged_status(
        &mut self,
        connector: &str,
        timeout: Duration,
        accept: impl Fn(&Value) -> bool,
    ) -> Value {
        let start = Instant::now();
        loop {
            let last: Vec<Option<Value>> =
                self.live().iter().map(|w| w.status(connector)).collect();
            if let Some(Some(first)) = last.first() {
                if accept(first) && last.iter().all(|s| s.as_ref() == Some(first)) {
                    return first.clone();
                }
            }
            assert!(
                start.elapsed() < timeout,
                "the live workers did not agree on an accepted status of {connector} within \
                 {timeout:?}; their last answers: {}",
                json!(last)
            );
            std::thread::park_timeout(Duration::from_millis(50));
        }
    }
}
