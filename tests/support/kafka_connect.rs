//! Apache Kafka Connect itself, as the oracle of the differential tests: its jars come from
//! `scripts/kafka-connect-jars.sh` (Maven Central, fetched once into target/kafka-connect/libs),
//! and `ConnectStandalone` runs on a free 127.0.0.1 port with a worker file and a log4j2 file
//! written here. A test that cannot get Java, Maven or the jars FAILS with the reason.
//!
//! The JVM is killed when the handle is dropped, also when the test panics.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::http::Client;

/// How long Kafka Connect may take to serve `GET /` (JVM start, plugin scan, broker contact).
pub const STARTUP: Duration = Duration::from_secs(180);

/// Kafka Connect's jars: the folder for `-cp "DIR/*"` and the version fetched.
#[derive(Debug, Clone)]
pub struct Jars {
    pub libs: PathBuf,
    pub version: String,
}

/// Runs `scripts/kafka-connect-jars.sh` (downloads once, then reuses); panics with its output
/// when it fails, so a missing Maven or a failed download fails the test with the reason.
pub fn jars() -> Jars {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/kafka-connect-jars.sh");
    let out = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} (is bash installed?)", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "this test needs Apache Kafka Connect's jars, and `{}` failed with {}:\n{stderr}{stdout}",
        script.display(),
        out.status
    );
    let field = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("`{}` printed no {key}:\n{stdout}", script.display()))
    };
    Jars {
        libs: PathBuf::from(field("libs=")),
        version: field("version="),
    }
}

/// A JDK tool (`java`, `javac`): from `JAVA_HOME` when it is set, else from PATH.
pub fn java_tool(name: &str) -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) if !home.is_empty() => Path::new(&home).join("bin").join(name),
        _ => PathBuf::from(name),
    }
}

/// Runs `cmd` to completion; panics naming `what` when it cannot start or fails. Returns its
/// stdout followed by its stderr.
pub fn run_tool(what: &str, cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("cannot run {what} ({cmd:?}): {e}. Install a JDK 17+ (JAVA_HOME or PATH) and Maven.")
    });
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// A compiled Java oracle of a differential test, ready for `java -cp CP CLASS`.
#[derive(Debug, Clone)]
pub struct Oracle {
    /// Kafka Connect's jars and the compiled classes.
    pub cp: String,
    /// The Kafka Connect version of the jars.
    pub version: String,
    /// The first line of `java -version`.
    pub java_version: String,
}

impl Oracle {
    /// The JVM's major version (17 for `openjdk version "17.0.15"`), 0 when unknown.
    pub fn java_major(&self) -> u32 {
        self.java_version
            .split('"')
            .nth(1)
            .and_then(|v| v.split('.').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// Runs `class` with `args` (one JVM); panics with its output when it fails.
    pub fn run(&self, class: &str, args: &[&Path]) -> String {
        run_tool(
            &format!("the {class} oracle (java)"),
            Command::new(java_tool("java"))
                .arg("-cp")
                .arg(&self.cp)
                .arg(class)
                .args(args),
        )
    }
}

/// Fetches Kafka Connect's jars and compiles `tests/compat/<source>` into `work/classes`.
pub fn compile_oracle(source: &str, work: &Path) -> Oracle {
    let jars = jars();
    let java_version = run_tool(
        "java -version",
        Command::new(java_tool("java")).arg("-version"),
    );
    let classes = work.join("classes");
    std::fs::create_dir_all(&classes).expect("create the oracle's classes folder");
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/compat")
        .join(source);
    run_tool(
        &format!("javac ({})", file.display()),
        Command::new(java_tool("javac"))
            .arg("-nowarn")
            .arg("-cp")
            .arg(format!("{}/*", jars.libs.display()))
            .arg("-d")
            .arg(&classes)
            .arg(&file),
    );
    Oracle {
        cp: format!("{}/*:{}", jars.libs.display(), classes.display()),
        version: jars.version,
        java_version: java_version.lines().next().unwrap_or("").to_owned(),
    }
}

/// The JVM class path of a Kafka Connect worker: its jars (`LIBS/*`) followed by `extra` entries
/// (jars a plugin needs on the worker's class path, not isolated, e.g. kafka-server-common).
pub fn worker_classpath(libs: &Path, extra: &[PathBuf]) -> String {
    std::iter::once(format!("{}/*", libs.display()))
        .chain(extra.iter().map(|p| p.display().to_string()))
        .collect::<Vec<_>>()
        .join(":")
}

/// A free TCP port on 127.0.0.1 (bound, then released for the JVM to take).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    listener.local_addr().expect("local address").port()
}

/// A running `ConnectStandalone`, killed on drop.
pub struct KafkaConnect {
    pub child: Child,
    pub client: Client,
    pub port: u16,
    pub version: String,
    log: PathBuf,
}

impl KafkaConnect {
    /// Starts Kafka Connect with its files in `dir`: `worker.properties` gets `bootstrap.servers`,
    /// `listeners=http://127.0.0.1:PORT` and the `worker` lines (converters, offsets file...);
    /// the log (INFO and above, as connect-rs's default) goes to `dir/kafka-connect.log`.
    /// Returns once `GET /` answers 200 with JSON; panics with the log's tail when the JVM exits
    /// or does not answer within [`STARTUP`].
    pub fn start(dir: &Path, bootstrap: &str, worker: &str) -> Self {
        Self::launch(dir, bootstrap, worker, &[])
    }

    /// As [`KafkaConnect::start`], with `plugin.path={plugin_path}` in the worker file and the
    /// `classpath` entries after Kafka Connect's jars on the JVM's class path (as a user puts a
    /// jar into Kafka's `libs/`).
    pub fn start_with_plugins(
        dir: &Path,
        bootstrap: &str,
        worker: &str,
        plugin_path: &Path,
        classpath: &[PathBuf],
    ) -> Self {
        let worker = format!("plugin.path={}\n{worker}", plugin_path.display());
        Self::launch(dir, bootstrap, &worker, classpath)
    }

    fn launch(dir: &Path, bootstrap: &str, worker: &str, classpath: &[PathBuf]) -> Self {
        let jars = jars();
        let java = Command::new("java")
            .arg("-version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        assert!(
            java.is_ok_and(|s| s.success()),
            "this test needs Java 17+ ('java' on PATH) to run Apache Kafka Connect"
        );
        let port = free_port();
        let log = dir.join("kafka-connect.log");
        let log4j = dir.join("kafka-connect-log4j2.properties");
        std::fs::write(
            &log4j,
            format!(
                "status = warn\n\
                 appender.file.type = File\n\
                 appender.file.name = FILE\n\
                 appender.file.fileName = {}\n\
                 appender.file.layout.type = PatternLayout\n\
                 appender.file.layout.pattern = [%d] %p %m (%c)%n\n\
                 rootLogger.level = INFO\n\
                 rootLogger.appenderRef.file.ref = FILE\n",
                log.display()
            ),
        )
        .expect("write the log4j2 file");
        let worker_file = dir.join("kafka-connect-worker.properties");
        std::fs::write(
            &worker_file,
            format!("bootstrap.servers={bootstrap}\nlisteners=http://127.0.0.1:{port}\n{worker}\n"),
        )
        .expect("write the worker file");
        let console = std::fs::File::create(dir.join("kafka-connect.console"))
            .expect("create the console file");
        let child = Command::new("java")
            .args([
                "-Xms128m",
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.awt.headless=true",
            ])
            .arg(format!("-Dlog4j2.configurationFile={}", log4j.display()))
            .arg("-cp")
            .arg(worker_classpath(&jars.libs, classpath))
            .arg("org.apache.kafka.connect.cli.ConnectStandalone")
            .arg(&worker_file)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(console.try_clone().expect("clone the console file"))
            .stderr(console)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start java (Apache Kafka Connect): {e}"));
        let mut kc = Self {
            child,
            client: Client::local(port),
            port,
            version: jars.version,
            log,
        };
        kc.wait_ready();
        kc
    }

    /// Waits until `GET /` answers 200 with a JSON body (Jetty answers 404 before the REST
    /// resources are registered).
    fn wait_ready(&mut self) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "Apache Kafka Connect exited with {status} while starting; its log:\n{}",
                    self.log_tail()
                );
            }
            if let Ok(r) = self.client.try_send("GET", "/", None) {
                if r.status == 200 && serde_json::from_str::<serde_json::Value>(&r.body).is_ok() {
                    return;
                }
            }
            assert!(
                start.elapsed() < STARTUP,
                "Apache Kafka Connect did not answer GET / within {STARTUP:?}; its log:\n{}",
                self.log_tail()
            );
            std::thread::park_timeout(Duration::from_millis(100));
        }
    }

    /// The last 60 lines of the log and of the console output.
    pub fn log_tail(&self) -> String {
        let tail = |p: &Path| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(60)..].join("\n")
        };
        let console = self.log.with_file_name("kafka-connect.console");
        format!("{}\n--- console ---\n{}", tail(&self.log), tail(&console))
    }
}

impl Drop for KafkaConnect {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
